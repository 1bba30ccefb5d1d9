/* cmd_exercise.c — `gpt2-embed exercise`: the chapter's two exercises, computed from the
 * weights file and printed the way the chapter prints them (4 decimals), or as JSON at full
 * precision for programs.
 *
 * Exercise 1 is arithmetic (parameters of a position-embedding matrix: GPT-2's 1024 x 768
 * against --ctx x --dim, 4096 x 4096 by default) plus, when weights are found, the actual
 * counts of the file's wpe and wte. Exercise 2 needs the weights and the tokenizer:
 * wpe's shape, cos(wpe[0], wpe[1]), cos(wpe[0], wpe[500]), the ID of " cat" and
 * cos(wte[cat] + wpe[0], wte[cat] + wpe[5]).
 */
#include "cli.h"
#include "load.h"
#include "out.h"
#include "similarity.h"

#include <stdlib.h>
#include <string.h>

static void help(void)
{
    printf("usage: gpt2-embed exercise [1|2] [--format text|json] [--ctx N --dim D]\n"
           "                           [--weights FILE] [--model NAME] [--tokenizer DIR]\n\n"
           "The chapter's exercises, from the weights:\n"
           "  1  parameters of a position-embedding matrix: GPT-2's 1024 x 768 = 786,432 against\n"
           "     N x D (default 4096 x 4096 = 16,777,216) and their ratio; with weights, the actual\n"
           "     sizes of the file's wpe and wte. Needs no weights.\n"
           "  2  the shape of wpe, cos(wpe[0], wpe[1]), cos(wpe[0], wpe[500]), the ID of \" cat\",\n"
           "     cos(wte[cat] + wpe[0], wte[cat] + wpe[5]).\n"
           "Without 1 or 2, both. Text shows 4 decimals; json gives full precision with the keys\n"
           "exercise1.{gpt2_wpe_params, wpe_params, ratio} and exercise2.{wpe_shape,\n"
           "cos_pos0_pos1, cos_pos0_pos500, cat_token_id, cos_cat_pos0_pos5}.\n");
}

/* 16777216 -> "16,777,216" */
static const char *thousands(unsigned long long v, char buf[32])
{
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%llu", v);
    int o = 0;
    for (int i = 0; i < n; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = tmp[i];
    }
    buf[o] = '\0';
    return buf;
}

typedef struct ex2 {
    size_t rows, cols;
    double c01, c0500, ccat;
    uint32_t cat;
} ex2;

/* cos of two wpe rows, or of wte[id] + wpe[p] and wte[id] + wpe[q]; prints errors. */
static int cos_rows(const g2e_model *m, long id, size_t p, size_t q, double *out)
{
    size_t C = m->n_embd;
    float *a = calloc(C, sizeof *a), *b = calloc(C, sizeof *b), *t = calloc(C, sizeof *t);
    g2e_err e;
    int rc = -1;
    if (!a || !b || !t) {
        cli_error("out of memory");
        goto done;
    }
    if (p >= m->n_ctx || q >= m->n_ctx) {
        cli_error("position %zu is outside wpe, which has %zu rows (0..%zu)", p >= m->n_ctx ? p : q,
                  m->n_ctx, m->n_ctx - 1);
        goto done;
    }
    if (model_wpe_row(m, p, a, &e) || model_wpe_row(m, q, b, &e) ||
        (id >= 0 && model_wte_row(m, (uint64_t)id, t, &e))) {
        cli_error("%s", e.msg);
        goto done;
    }
    if (id >= 0)
        for (size_t c = 0; c < C; c++) {
            a[c] = t[c] + a[c];
            b[c] = t[c] + b[c];
        }
    if (sim_cosine(a, b, C, out, &e) != 0) {
        if (id >= 0)
            cli_error("cos(wte[%ld] + wpe[%zu], wte[%ld] + wpe[%zu]): %s", id, p, id, q, e.msg);
        else
            cli_error("cos(wpe[%zu], wpe[%zu]): %s", p, q, e.msg);
        goto done;
    }
    rc = 0;
done:
    free(a);
    free(b);
    free(t);
    return rc;
}

int cmd_exercise(int argc, char **argv)
{
    load_opts lo = {0};
    const char *fmt = "text", *v;
    uint64_t ctx = 4096, dim = 4096;
    int which = 0, r;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            help();
            return EXIT_OK;
        }
        if ((r = load_opt(argc, argv, &i, &lo)) || (r = cli_opt(argc, argv, &i, "--format", &fmt))) {
            if (r < 0) return EXIT_USAGE;
        } else if ((r = cli_opt(argc, argv, &i, "--ctx", &v))) {
            if (r < 0 || cli_parse_u64(v, 1, 1ULL << 31, "--ctx", &ctx)) return EXIT_USAGE;
        } else if ((r = cli_opt(argc, argv, &i, "--dim", &v))) {
            if (r < 0 || cli_parse_u64(v, 1, 1ULL << 31, "--dim", &dim)) return EXIT_USAGE;
        } else if (strcmp(a, "1") == 0 || strcmp(a, "2") == 0) {
            which = a[0] - '0';
        } else {
            cli_error("exercise: unexpected argument '%s' (see gpt2-embed exercise --help)", a);
            return EXIT_USAGE;
        }
    }
    int f = cli_format(fmt, (const char *const[]){"text", "json", "table", NULL});
    if (f < 0)
        return EXIT_USAGE;
    int json = f == 1;

    /* Exercise 2 needs the weights; exercise 1 uses them if they are there. */
    g2e_model *m = NULL;
    tok_tokenizer *tok = NULL;
    char *path = NULL;
    int rc = EXIT_ERR;
    ex2 x = {0};
    if (which != 1) {
        if (load_model(lo.weights, lo.model, &m, &path) || load_tokenizer(lo.tokenizer, &tok) ||
            load_single_token(tok, " cat", &x.cat))
            goto done;
        if (x.cat >= m->n_vocab) {
            cli_error("token ID %u of \" cat\" is outside this file's wte (%zu rows)", x.cat, m->n_vocab);
            goto done;
        }
        x.rows = m->n_ctx;
        x.cols = m->n_embd;
        if (cos_rows(m, -1, 0, 1, &x.c01) || cos_rows(m, -1, 0, 500, &x.c0500) ||
            cos_rows(m, x.cat, 0, 5, &x.ccat))
            goto done;
    } else if (lo.weights || getenv("GPT2_EMBED_WEIGHTS")) {
        if (load_model(lo.weights, lo.model, &m, &path))
            goto done;
    }

    unsigned long long g = 1024ULL * 768ULL, w = ctx * dim;
    double ratio = (double)w / (double)g;
    char b1[32], b2[32], b3[32];
    if (json) {
        printf("{\"exercise1\": {\"gpt2_wpe_params\": %llu, \"wpe_params\": %llu, \"ratio\": ", g, w);
        out_json_f64(stdout, ratio);
        printf(", \"ctx\": %llu, \"dim\": %llu", (unsigned long long)ctx, (unsigned long long)dim);
        if (m)
            printf(", \"file_wpe_params\": %zu, \"file_wte_params\": %zu", m->n_ctx * m->n_embd,
                   m->n_vocab * m->n_embd);
        printf("}");
        if (which != 1) {
            printf(", \"exercise2\": {\"wpe_shape\": [%zu, %zu], \"cos_pos0_pos1\": ", x.rows, x.cols);
            out_json_f64(stdout, x.c01);
            printf(", \"cos_pos0_pos500\": ");
            out_json_f64(stdout, x.c0500);
            printf(", \"cat_token_id\": %u, \"cos_cat_pos0_pos5\": ", x.cat);
            out_json_f64(stdout, x.ccat);
            printf(", \"weights\": ");
            out_json_string(stdout, path, strlen(path));
            printf("}");
        }
        printf("}\n");
    } else {
        if (which != 2) {
            printf("Exercise 1: parameters of a position-embedding matrix (positions x width)\n");
            char other[64];
            snprintf(other, sizeof other, "%llu x %llu", (unsigned long long)ctx, (unsigned long long)dim);
            printf("  %-14s %-12s = %s\n", "GPT-2:", "1024 x 768", thousands(g, b1));
            printf("  %-14s %-12s = %s\n", "other model:", other, thousands(w, b2));
            printf("  %-14s %.4f (%.1fx as many parameters)\n", "ratio:", ratio, ratio);
            if (m)
                printf("  in %s: wpe %zu x %zu = %s, wte %zu x %zu = %s\n", path, m->n_ctx, m->n_embd,
                       thousands(m->n_ctx * m->n_embd, b1), m->n_vocab, m->n_embd,
                       thousands(m->n_vocab * m->n_embd, b3));
        }
        if (which != 1) {
            if (which != 2)
                printf("\n");
            printf("Exercise 2: learned positions in %s\n", path);
            printf("  %-44s (%zu, %zu)\n", "wpe shape:", x.rows, x.cols);
            printf("  %-44s %.4f\n", "cos(wpe[0], wpe[1]):", x.c01);
            printf("  %-44s %.4f\n", "cos(wpe[0], wpe[500]):", x.c0500);
            printf("  %-44s %u\n", "token ID of \" cat\":", x.cat);
            printf("  %-44s %.4f\n", "cos(wte[cat] + wpe[0], wte[cat] + wpe[5]):", x.ccat);
        }
    }
    rc = cli_flush_stdout() == 0 ? EXIT_OK : EXIT_ERR;
done:
    free(path);
    tok_close(tok);
    model_close(m);
    return rc;
}
