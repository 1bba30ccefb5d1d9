/* cmd_stats.c — `gpt2-embed stats`: the scale of wte and wpe side by side, as the chapter
 * discusses (position vectors neither swamp nor vanish beside token vectors): row norms
 * (mean, min, max), mean |x|, mean and spread of the elements, and the rows with the
 * largest norms (GPT-2's position 0 is an outlier). Streams each matrix once.
 */
#include "cli.h"
#include "json.h"
#include "load.h"
#include "out.h"
#include "similarity.h"

#include <stdlib.h>
#include <string.h>

static void help(void)
{
    printf("usage: gpt2-embed stats [--format table|json] [--top K] [--weights FILE] [--model NAME]\n"
           "                        [--tokenizer DIR]\n\n"
           "For wte (token vectors) and wpe (position vectors): the mean, smallest and largest row\n"
           "norm, the mean absolute value, the mean and standard deviation of all elements, and the\n"
           "K (default 5, at most 10) rows with the largest norms, token rows shown with their piece.\n");
}

static void json_matrix(const char *name, const sim_stats *s, size_t top)
{
    printf("\"%s\": {\"rows\": %zu, \"cols\": %zu, \"norm_mean\": ", name, s->rows, s->cols);
    json_write_f64(stdout, s->norm_mean);
    printf(", \"norm_min\": ");
    json_write_f64(stdout, s->norm_min);
    printf(", \"norm_min_row\": %zu, \"norm_max\": ", s->argmin);
    json_write_f64(stdout, s->norm_max);
    printf(", \"norm_max_row\": %zu, \"mean_abs\": ", s->argmax);
    json_write_f64(stdout, s->mean_abs);
    printf(", \"mean\": ");
    json_write_f64(stdout, s->mean);
    printf(", \"std\": ");
    json_write_f64(stdout, s->std);
    printf(", \"largest_norms\": [");
    for (size_t i = 0; i < top && i < s->n_top; i++) {
        printf("%s{\"row\": %zu, \"norm\": ", i ? ", " : "", s->top[i]);
        json_write_f64(stdout, s->top_norm[i]);
        printf("}");
    }
    printf("]}");
}

int cmd_stats(int argc, char **argv)
{
    load_opts lo = {0};
    const char *fmt = "table", *v;
    uint64_t top = 5;
    int r;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            help();
            return EXIT_OK;
        }
        if ((r = load_opt(argc, argv, &i, &lo)) || (r = cli_opt(argc, argv, &i, "--format", &fmt))) {
            if (r < 0) return EXIT_USAGE;
        } else if ((r = cli_opt(argc, argv, &i, "--top", &v))) {
            if (r < 0 || cli_parse_u64(v, 0, 10, "--top", &top)) return EXIT_USAGE;
        } else {
            cli_error("stats: unexpected argument '%s' (see gpt2-embed stats --help)", argv[i]);
            return EXIT_USAGE;
        }
    }
    int f = cli_format(fmt, (const char *const[]){"table", "json", NULL});
    if (f < 0)
        return EXIT_USAGE;
    int json = f == 1;
    g2e_model *m = NULL;
    tok_tokenizer *tok = NULL;
    char *path = NULL;
    int rc = EXIT_ERR;
    sim_stats s[2];
    g2e_err e;
    if (load_model(lo.weights, lo.model, &m, &path))
        goto done;
    if (!json && load_tokenizer(lo.tokenizer, &tok))
        goto done;
    for (int w = 0; w < 2; w++)
        if (sim_stats_of(m, w, &s[w], &e)) {
            cli_error("%s", e.msg);
            goto done;
        }
    if (json) {
        printf("{\"weights\": ");
        out_json_string(stdout, path, strlen(path));
        printf(", ");
        json_matrix("wte", &s[0], top);
        printf(", ");
        json_matrix("wpe", &s[1], top);
        printf(", \"norm_ratio_wte_to_wpe\": ");
        json_write_f64(stdout, s[0].norm_mean / s[1].norm_mean);
        printf("}\n");
    } else {
        printf("Scale of the embeddings in %s (n_embd %zu)\n\n", path, m->n_embd);
        printf("%-22s %14s %14s\n", "", "wte (tokens)", "wpe (positions)");
        printf("%-22s %14zu %14zu\n", "rows", s[0].rows, s[1].rows);
        printf("%-22s %14.4f %14.4f\n", "mean row norm", s[0].norm_mean, s[1].norm_mean);
        printf("%-22s %14.4f %14.4f\n", "smallest row norm", s[0].norm_min, s[1].norm_min);
        printf("%-22s %14.4f %14.4f\n", "largest row norm", s[0].norm_max, s[1].norm_max);
        printf("%-22s %14.6f %14.6f\n", "mean |x|", s[0].mean_abs, s[1].mean_abs);
        printf("%-22s %14.6f %14.6f\n", "mean x", s[0].mean, s[1].mean);
        printf("%-22s %14.6f %14.6f\n", "std of x", s[0].std, s[1].std);
        printf("\nmean token norm / mean position norm = %.2f\n", s[0].norm_mean / s[1].norm_mean);
        if (top > 0) {
            printf("\nlargest wte rows:");
            for (size_t i = 0; i < top && i < s[0].n_top; i++) {
                const uint8_t *b;
                size_t n;
                char *vis = NULL;
                if (tok_piece(tok, (uint32_t)s[0].top[i], &b, &n, NULL) == 0)
                    vis = out_piece_visible((const char *)b, n);
                printf(" %zu '%s' (%.3f)%s", s[0].top[i], vis ? vis : "?", s[0].top_norm[i],
                       i + 1 < top && i + 1 < s[0].n_top ? "," : "");
                free(vis);
            }
            printf("\nlargest wpe rows:");
            for (size_t i = 0; i < top && i < s[1].n_top; i++)
                printf(" position %zu (%.3f)%s", s[1].top[i], s[1].top_norm[i],
                       i + 1 < top && i + 1 < s[1].n_top ? "," : "");
            printf("\n");
        }
    }
    rc = cli_flush_stdout() == 0 ? EXIT_OK : EXIT_ERR;
done:
    free(path);
    tok_close(tok);
    model_close(m);
    return rc;
}
