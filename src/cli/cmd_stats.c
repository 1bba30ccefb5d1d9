/* SPDX-License-Identifier: MIT */
/* cmd_stats.c — `gpt2-embed stats`: the scale of wte and wpe side by side, as the chapter
 * discusses (position vectors neither swamp nor vanish beside token vectors): row norms
 * (mean, min, max), mean |x|, mean and spread of the elements, and the rows with the
 * largest norms (GPT-2's position 0 is an outlier). Streams each matrix once.
 *
 * --by-position: the norm of every wpe row against its position (gpt2embed_wpe_norms), with
 * the summary a reader looks for: position 0 against the median, and how flat the norms
 * are from position 100 on (published analyses of GPT-2 small report them nearly constant
 * there) compared with positions 1..99. Every format of table.h; --plot draws it.
 */
#include "cli.h"
#include "i18n.h"
#include "load.h"
#include "opt.h"
#include "out.h"
#include "study.h"
#include "study_fig.h"
#include "figures.h"
#include "stats_out.h"
#include "table_out.h"

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

/* The whole-matrix statistics (the command without --by-position). */
static int run_scale(const stats_opts *o, int json)
{
    gpt2embed_model *m = NULL;
    gpt2embed_tokenizer *tok = NULL;
    int rc = EXIT_ERR;
    gpt2embed_stats s[2];
    gpt2embed_error e;
    out_file of = {0};
    if (load_model(&o->lo, &m) || (!json && o->top > 0 && load_tokenizer(o->lo.tokenizer, &tok)))
        goto done;
    for (int w = 0; w < 2; w++) {
        if (gpt2embed_table_stats(m, w ? GPT2EMBED_WPE : GPT2EMBED_WTE, &s[w], &e)) {
            cli_error("%s", e.message);
            goto done;
        }
        stats_mark_undefined(&s[w]);
    }
    if (out_open(&of, o->out, 0))
        goto done;
    stats_write(of.f, json, gpt2embed_model_path(m), gpt2embed_n_embd(m), s, (size_t)o->top, tok);
    rc = out_commit(&of) ? EXIT_ERR : EXIT_OK;
done:
    gpt2embed_tokenizer_close(tok);
    gpt2embed_model_close(m);
    return rc;
}

/* What goes above the norms in the table: the summary, as lines of text (nothing for csv
 * and npy; JSON is the library's document, gpt2embed_wpe_norms_json). */
typedef struct norms_head {
    const study_norms *sn;
    const char *path;
} norms_head;

static void put_norms_head(FILE *f, int fmt, const void *user)
{
    const norms_head *h = user;
    const gpt2embed_norm_summary *s = &h->sn->sum;
    size_t n = h->sn->n;
    if (fmt != TBL_TABLE)
        return;
    fprintf(f, _("Norm of every wpe row against its position (%s, %zu positions)\n"), h->path, n);
    if (isnan(s->first_vs_median))   /* the median is 0: a ratio to it would say nothing true */
        fprintf(f, _("position 0: norm %.4f; the median of positions 1..%zu is 0 (at least half of "
                     "them are zero vectors), so no ratio to it is defined\n"), s->first, n - 1);
    else
        fprintf(f, _("position 0: norm %.4f = %.2f x the median of positions 1..%zu (%.4f)\n"),
                s->first, s->first_vs_median, n - 1, s->median);
    fprintf(f, _("positions 1..%zu: smallest %.4f (position %zu), largest %.4f (position %zu)\n"),
            n - 1, s->min, s->argmin, s->max, s->argmax);
    if (s->split > 1 && s->split < n)
        fprintf(f, _("spread (std / mean): %.2f%% over positions 1..%zu, %.2f%% over %zu..%zu\n"),
                100 * s->cv_early, s->split - 1, 100 * s->cv_late, s->split, n - 1);
    fputc('\n', f);
}

/* --format json: the library's document (gpt2embed_wpe_norms_json). 0 or -1 (said). */
static int emit_json(const gpt2embed_model *m, const char *out)
{
    char *json;
    gpt2embed_error e;
    return study_print_doc(gpt2embed_wpe_norms_json(m, &json, &e), &json, &e, out);
}

/* --by-position: norms, summary, output, figure. */
static int run_by_position(const stats_opts *o, int fmt)
{
    gpt2embed_model *m = NULL;
    study_norms sn = {0};
    int rc = EXIT_ERR;
    if (load_model(&o->lo, &m) || study_wpe_norms(m, &sn))
        goto done;
    const char *path = gpt2embed_model_path(m);
    const tbl_col COLS[] = {
        {.key = "position", .head = _("position"), .width = 10, .prec = -1},
        {.key = "norm", .head = _("norm"), .width = 14, .prec = 6, .g = 1},
        {.key = "vs_median", .head = _("vs_median"), .width = 14, .prec = 6, .g = 1},
    };
    double *v = malloc(sn.n * 3 * sizeof *v);
    if (!v) {
        cli_error("out of memory");
        goto done;
    }
    for (size_t p = 0; p < sn.n; p++) {
        v[3 * p] = (double)p;
        v[3 * p + 1] = sn.norm[p];
        v[3 * p + 2] = sn.sum.median > 0 ? sn.norm[p] / sn.sum.median : NAN;   /* no ratio to 0 */
    }
    tbl t = {.cols = COLS, .ncols = 3, .nrow = sn.n, .v = v, .npy_first = 1, .npy_count = 1};
    norms_head h = {&sn, path};
    rc = (fmt == TBL_JSON ? emit_json(m, o->out) : table_emit(o->out, fmt, &t, put_norms_head, &h)) ? EXIT_ERR
                                                                                                    : EXIT_OK;
    free(v);
    const char *name = fig_model_name(m);
    if (rc == EXIT_OK && o->plot && study_fig_norms(sn.norm, sn.n, sn.sum.first_vs_median, name, o->plot))
        rc = EXIT_ERR;
done:
    study_norms_free(&sn);
    gpt2embed_model_close(m);
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
