/* SPDX-License-Identifier: MIT */
/* cmd_stats.c — `gpt2-embed stats`: the scale of wte and wpe side by side, as the chapter
 * discusses (position vectors neither swamp nor vanish beside token vectors): row norms
 * (mean, min, max), mean |x|, mean and spread of the elements, and the rows with the
 * largest norms (GPT-2's position 0 is an outlier). Streams each matrix once.
 *
 * --by-position: the norm of every wpe row against its position (pca.h's row norms), with
 * the summary a reader looks for: position 0 against the median, and how flat the norms
 * are from position 100 on (published analyses of GPT-2 small report them nearly constant
 * there) compared with positions 1..99. Every format of study_out.h; --plot draws it.
 */
#include "cli.h"
#include "i18n.h"
#include "json.h"
#include "load.h"
#include "opt.h"
#include "out.h"
#include "pca.h"
#include "similarity.h"
#include "study.h"
#include "study_fig.h"
#include "figures.h"
#include "study_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct stats_opts {
    load_opts lo;
    int fmt;
    int64_t top;
    int by_pos;
    const char *out, *plot;
} stats_opts;

static const char *const FORMATS[] = {"table", "json", "csv", "npy", NULL};

static const opt_def OPTS[] = {
    {.name = "--format", .kind = OPT_CHOICE, .off = offsetof(stats_opts, fmt), .choices = FORMATS,
     .def = "table", .help = N_("output format (csv and npy with --by-position)")},
    {.name = "--top", .kind = OPT_INT, .off = offsetof(stats_opts, top), .lo = 0, .hi = 10,
     .metavar = "K", .def = "5", .help = N_("how many of the largest rows to list")},
    {.name = "--by-position", .kind = OPT_FLAG, .off = offsetof(stats_opts, by_pos),
     .help = N_("the norm of every wpe row against its position")},
    {.name = "--output", .short_name = 'o', .kind = OPT_FILE, .off = offsetof(stats_opts, out),
     .help = N_("write to FILE (atomically) instead of standard output")},
    {.name = "--plot", .kind = OPT_FILE, .off = offsetof(stats_opts, plot), .metavar = "FILE.png",
     .help = N_("with --by-position: draw the norms against position, position 0 marked")},
    LOAD_OPT_ROWS(stats_opts, lo),
    OPT_END,
};

static const opt_cmd CMD = {
    .name = "stats",
    .synopsis = N_("[--by-position] [--format table|json|csv|npy] [--top K] [-o FILE]"),
    .purpose = N_("\nFor wte (token vectors) and wpe (position vectors): the mean, smallest and largest row\n"
                  "norm, the mean absolute value, the mean and standard deviation of all elements, and the\n"
                  "K rows with the largest norms, token rows shown with their piece.\n"
                  "With --by-position: the norm of every wpe row against its position, position 0\n"
                  "against the median, and the spread of the norms before and after position 100."),
    .examples = N_("  gpt2-embed stats\n"
                   "  gpt2-embed stats --by-position --plot norms.png\n"
                   "  gpt2-embed stats --by-position -o norms.npy\n"),
    .opts = OPTS,
    .min_pos = 0,
    .max_pos = 0,
};
const opt_cmd *const cmd_stats_spec = &CMD;

static void json_matrix(FILE *f, const char *name, const sim_stats *s, size_t top)
{
    fprintf(f, "\"%s\": {\"rows\": %zu, \"cols\": %zu, \"norm_mean\": ", name, s->rows, s->cols);
    json_write_f64(f, s->norm_mean);
    fprintf(f, ", \"norm_min\": ");
    json_write_f64(f, s->norm_min);
    fprintf(f, ", \"norm_min_row\": %zu, \"norm_max\": ", s->argmin);
    json_write_f64(f, s->norm_max);
    fprintf(f, ", \"norm_max_row\": %zu, \"mean_abs\": ", s->argmax);
    json_write_f64(f, s->mean_abs);
    fprintf(f, ", \"mean\": ");
    json_write_f64(f, s->mean);
    fprintf(f, ", \"std\": ");
    json_write_f64(f, s->std);
    fprintf(f, ", \"largest_norms\": [");
    for (size_t i = 0; i < top && i < s->n_top; i++) {
        fprintf(f, "%s{\"row\": %zu, \"norm\": ", i ? ", " : "", s->top[i]);
        json_write_f64(f, s->top_norm[i]);
        fprintf(f, "}");
    }
    fprintf(f, "]}");
}

static void table_top(FILE *f, const sim_stats *s, size_t top, tok_tokenizer *tok)
{
    fputs(_("\nlargest wte rows:"), f);
    for (size_t i = 0; i < top && i < s[0].n_top; i++) {
        const uint8_t *b;
        size_t n;
        char *vis = NULL;
        if (tok_piece(tok, (uint32_t)s[0].top[i], &b, &n, NULL) == 0)
            vis = out_piece_visible((const char *)b, n);
        fprintf(f, " %zu '%s' (%.3f)%s", s[0].top[i], vis ? vis : "?", s[0].top_norm[i],
                i + 1 < top && i + 1 < s[0].n_top ? "," : "");
        free(vis);
    }
    fputs(_("\nlargest wpe rows:"), f);
    for (size_t i = 0; i < top && i < s[1].n_top; i++)
        fprintf(f, _(" position %zu (%.3f)%s"), s[1].top[i], s[1].top_norm[i],
                i + 1 < top && i + 1 < s[1].n_top ? "," : "");
    fprintf(f, "\n");
}

/* A row label padded by display width (translated labels are wider per byte). */
static void label(FILE *f, const char *s)
{
    out_pad(f, s, 22);
    fputc(' ', f);
}

static void table(FILE *f, const char *path, const g2e_model *m, const sim_stats *s, size_t top,
                  tok_tokenizer *tok)
{
    fprintf(f, _("Scale of the embeddings in %s (n_embd %zu)\n\n"), path, m->n_embd);
    label(f, "");
    out_rpad(f, _("wte (tokens)"), 14);
    fputc(' ', f);
    out_rpad(f, _("wpe (positions)"), 14);
    fputc('\n', f);
    label(f, _("rows"));
    fprintf(f, "%14zu %14zu\n", s[0].rows, s[1].rows);
    label(f, _("mean row norm"));
    fprintf(f, "%14.4f %14.4f\n", s[0].norm_mean, s[1].norm_mean);
    label(f, _("smallest row norm"));
    fprintf(f, "%14.4f %14.4f\n", s[0].norm_min, s[1].norm_min);
    label(f, _("largest row norm"));
    fprintf(f, "%14.4f %14.4f\n", s[0].norm_max, s[1].norm_max);
    label(f, _("mean |x|"));
    fprintf(f, "%14.6f %14.6f\n", s[0].mean_abs, s[1].mean_abs);
    label(f, _("mean x"));
    fprintf(f, "%14.6f %14.6f\n", s[0].mean, s[1].mean);
    label(f, _("std of x"));
    fprintf(f, "%14.6f %14.6f\n", s[0].std, s[1].std);
    fprintf(f, _("\nmean token norm / mean position norm = %.2f\n"), s[0].norm_mean / s[1].norm_mean);
    if (top > 0)
        table_top(f, s, top, tok);
}

/* 1 when the matrix holds a NaN or an infinity (its sums are then not finite);
 * the table says so after its figures, which are then nan. */
static int undefined(const sim_stats *s)
{
    return !isfinite(s->norm_mean) || !isfinite(s->mean) || !isfinite(s->mean_abs);
}

static void undefined_note(FILE *f, const sim_stats *s)
{
    for (int w = 0; w < 2; w++)
        if (isnan(s[w].std))
            fprintf(f, "%s holds a NaN or an infinity: its norms, mean and std are undefined (nan "
                       "here, null in JSON)\n", w ? "wpe" : "wte");
}

/* The whole-matrix statistics (the command without --by-position). */
static int run_scale(const stats_opts *o, int json)
{
    g2e_model *m = NULL;
    tok_tokenizer *tok = NULL;
    char *path = NULL;
    int rc = EXIT_ERR;
    sim_stats s[2];
    g2e_err e;
    out_file of = {0};
    if (load_model_lo(&o->lo, &m, &path) ||
        (!json && o->top > 0 && load_tokenizer(o->lo.tokenizer, &tok)))
        goto done;
    for (int w = 0; w < 2; w++)
        if (sim_stats_of(m, w, &s[w], &e)) {
            cli_error("%s", e.msg);
            goto done;
        } else if (undefined(&s[w])) {
            /* A NaN or an infinity makes the sums non-finite; the library then still gives
             * std 0 and the min/max over the other rows, which must not read as results. */
            s[w].norm_mean = s[w].norm_min = s[w].norm_max = NAN;
            s[w].mean = s[w].mean_abs = s[w].std = NAN;
        }
    if (out_open(&of, o->out, 0))
        goto done;
    if (json) {
        fprintf(of.f, "{\"weights\": ");
        out_json_string(of.f, path, strlen(path));
        fprintf(of.f, ", ");
        json_matrix(of.f, "wte", &s[0], (size_t)o->top);
        fprintf(of.f, ", ");
        json_matrix(of.f, "wpe", &s[1], (size_t)o->top);
        fprintf(of.f, ", \"norm_ratio_wte_to_wpe\": ");
        json_write_f64(of.f, s[0].norm_mean / s[1].norm_mean);
        fprintf(of.f, "}\n");
    } else {
        table(of.f, path, m, s, (size_t)o->top, tok);
        undefined_note(of.f, s);
    }
    rc = out_commit(&of) ? EXIT_ERR : EXIT_OK;
done:
    free(path);
    tok_close(tok);
    model_close(m);
    return rc;
}

/* --by-position: norms, summary, output, figure. */
static int run_by_position(const stats_opts *o, int fmt)
{
    g2e_model *m = NULL;
    char *path = NULL, *pre_json = NULL, *pre_table = NULL;
    study_norms sn = {0};
    int rc = EXIT_ERR;
    if (load_model_lo(&o->lo, &m, &path) || study_wpe_norms(m, &sn))
        goto done;
    if (study_norms_text(&sn, path, &pre_json, &pre_table))
        goto done;
    double *v = malloc(sn.n * 3 * sizeof *v);
    if (!v) {
        cli_error("out of memory");
        goto done;
    }
    for (size_t p = 0; p < sn.n; p++) {
        v[3 * p] = (double)p;
        v[3 * p + 1] = sn.norm[p];
        v[3 * p + 2] = sn.sum.median > 0 ? sn.norm[p] / sn.sum.median : 0;
    }
    static const char *const NAMES[] = {"position", "norm", "vs_median"};
    static const unsigned char INTS[] = {1, 0, 0};
    study_cols c = {NAMES, INTS, 3, sn.n, v, 1, 1};
    rc = study_emit(o->out, fmt, &c, pre_json, pre_table) ? EXIT_ERR : EXIT_OK;
    free(v);
    char name[64];
    fig_model_name(m, name, sizeof name);
    if (rc == EXIT_OK && o->plot && study_fig_norms(&sn, name, o->plot))
        rc = EXIT_ERR;
done:
    study_norms_free(&sn);
    free(pre_json), free(pre_table), free(path);
    model_close(m);
    return rc;
}

int cmd_stats(int argc, char **argv)
{
    stats_opts o = {.top = 5};
    opt_parsed p;
    int r = opt_parse(&CMD, argc, argv, &o, &p);
    int given_fmt = r ? 0 : opt_given(&CMD, &p, "--format");
    opt_free(&p);
    if (r)
        return opt_exit(r);
    if (out_pick_format(&CMD, o.out, FORMATS, given_fmt, &o.fmt))
        return EXIT_USAGE;
    if (!o.by_pos && o.plot)
        return opt_usage_error(&CMD, "--plot needs --by-position"), EXIT_USAGE;
    if (!o.by_pos && o.fmt >= 2)
        return opt_usage_error(&CMD, "--format %s needs --by-position", FORMATS[o.fmt]), EXIT_USAGE;
    return o.by_pos ? run_by_position(&o, o.fmt) : run_scale(&o, o.fmt == 1);
}
