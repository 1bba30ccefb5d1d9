/* SPDX-License-Identifier: MIT */
/* cmd_sinusoidal.c — `gpt2-embed sinusoidal`: the original Transformer's fixed positional
 * encoding, its values and its properties, without any weights.
 *
 * Modes: the (N, D) matrix (default), --dot-curve, --by-distance, --check-rotation,
 * --compare-learned. Matrix values are computed in double and rounded once to float32
 * (what the embedding stage adds), and every format shows those float32 values: table
 * with 6 decimals, csv with 9 significant digits (reads back to the same float32), npy as
 * float32. The curves are measurements in double: csv prints 17 significant digits, npy
 * holds them rounded to float32 (a 1-D array indexed from --from, resp. distance 0).
 *
 * --compare-learned is the one mode that reads weights: GPT-2's wpe gives the learned
 * by-distance curve (gpt2embed_wpe_by_distance, the same numbers the figure draws), and the
 * sinusoidal curve is computed with D = n_embd over the same positions, so the two columns
 * share their axes. It writes table, csv or json (json: the course's document,
 * gpt2embed_course_by_distance); npy is not offered there.
 */
#include "cli.h"
#include "i18n.h"
#include "figures.h"
#include "load.h"
#include "opt.h"
#include "out.h"
#include "table_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum mode { M_MATRIX, M_DOT, M_DIST, M_ROT, M_CMP };
static const char *const FORMATS[] = {"table", "csv", "npy", "json", NULL};

typedef struct sin_opts {
    load_opts lo;
    int dot, dist, rot, cmp;   /* the mode flags (none: the matrix) */
    int64_t len, dim, from, to, maxd, maxk, width, height;
    double base;
    int fmt;                   /* index in FORMATS; after check(), TBL_* (table.h) */
    const char *out, *plot;
    /* set by check() */
    enum mode mode;
    int have_len, have_maxd, numeric; /* numeric: write numbers (not only a figure) */
} sin_opts;

static const opt_def OPTS[] = {
    {.name = "--dot-curve", .kind = OPT_FLAG, .off = offsetof(sin_opts, dot),
     .help = N_("mode: PE(0)\xC2\xB7PE(pos) for pos = P..Q (default 0..50)")},
    {.name = "--by-distance", .kind = OPT_FLAG, .off = offsetof(sin_opts, dist),
     .help = N_("mode: mean cosine similarity of PE(p) and PE(p+d) over p < N-d, for d = 0..M "
                "(default M = N-1)")},
    {.name = "--check-rotation", .kind = OPT_FLAG, .off = offsetof(sin_opts, rot),
     .help = N_("mode: checks that PE(pos+k) is PE(pos) rotated by \xCF\x89_i\xC2\xB7k in every pair "
                "(2i, 2i+1), for pos < N (default 256), k < K (default 64); prints the largest "
                "error; exit status 1 if it is 1e-9 or more")},
    {.name = "--compare-learned", .kind = OPT_FLAG, .off = offsetof(sin_opts, cmp),
     .help = N_("mode: the --by-distance curve of GPT-2's learned wpe (from the weights) next to "
                "the sinusoidal one of the same width D = n_embd, over positions 0..N-1 (default "
                "N = n_ctx), d = 0..M (default N-1)")},
    {.name = "--len", .kind = OPT_INT, .off = offsetof(sin_opts, len), .lo = 1, .hi = (int64_t)GPT2EMBED_SINUSOIDAL_MAX_POS,
     .help = N_("number of positions (matrix, by-distance, rotation grid)")},
    {.name = "--dim", .kind = OPT_INT, .off = offsetof(sin_opts, dim), .lo = 1, .hi = GPT2EMBED_SINUSOID_MAX_DIM,
     .metavar = "D", .help = N_("model width, even and positive")},
    {.name = "--base", .kind = OPT_REAL, .off = offsetof(sin_opts, base), .metavar = "B",
     .def = "10000", .help = N_("the base of the wavelengths, greater than 1")},
    {.name = "--from", .kind = OPT_INT, .off = offsetof(sin_opts, from), .lo = 0,
     .hi = (int64_t)GPT2EMBED_SINUSOIDAL_MAX_POS, .metavar = "P", .help = N_("--dot-curve: first position")},
    {.name = "--to", .kind = OPT_INT, .off = offsetof(sin_opts, to), .lo = 0,
     .hi = (int64_t)GPT2EMBED_SINUSOIDAL_MAX_POS, .metavar = "Q", .help = N_("--dot-curve: last position")},
    {.name = "--max-distance", .kind = OPT_INT, .off = offsetof(sin_opts, maxd), .lo = 0,
     .hi = (int64_t)GPT2EMBED_SINUSOIDAL_MAX_POS, .metavar = "M", .help = N_("--by-distance, --compare-learned: "
                                                            "the largest distance")},
    {.name = "--max-k", .kind = OPT_INT, .off = offsetof(sin_opts, maxk), .lo = 1,
     .hi = (int64_t)GPT2EMBED_SINUSOIDAL_MAX_POS, .metavar = "K", .help = N_("--check-rotation: shifts k < K")},
    {.name = "--format", .kind = OPT_CHOICE, .off = offsetof(sin_opts, fmt), .choices = FORMATS,
     .help = N_("table (default), csv, npy (float32; never to a terminal); with --compare-learned: "
                "table, csv or json; -o FILE's extension picks it when not given")},
    {.name = "--output", .short_name = 'o', .kind = OPT_FILE, .off = offsetof(sin_opts, out),
     .help = N_("write to FILE (atomically: a temporary file, then a rename)")},
    {.name = "--plot", .kind = OPT_FILE, .flags = OPTF_STDIN, .off = offsetof(sin_opts, plot),
     .metavar = "FILE.png", .help = N_("draw the figure (matrix: heatmap, x position, y dimension; "
                                       "curves: line chart); alone, it replaces the numeric output")},
    {.name = "--width", .kind = OPT_INT, .off = offsetof(sin_opts, width), .lo = 200, .hi = 32767,
     .metavar = "W", .help = N_("figure width in pixels")},
    {.name = "--height", .kind = OPT_INT, .off = offsetof(sin_opts, height), .lo = 150, .hi = 32767,
     .metavar = "H", .help = N_("figure height in pixels")},
    LOAD_WEIGHTS_ROWS(sin_opts, lo),
    OPT_END,
};

static const opt_cmd CMD = {
    .name = "sinusoidal",
    .synopsis = N_("--len N --dim D [--base B] [--format table|csv|npy] [-o FILE]\n"
                   "       gpt2-embed sinusoidal --dot-curve --dim D [--from P] [--to Q] [--base B] [...]\n"
                   "       gpt2-embed sinusoidal --by-distance --len N --dim D [--max-distance M] [...]\n"
                   "       gpt2-embed sinusoidal --check-rotation --dim D [--len N] [--max-k K] [--base B]\n"
                   "       gpt2-embed sinusoidal --compare-learned [--len N] [--max-distance M] [--base B]\n"
                   "                  [--weights FILE] [--model NAME] [--format table|csv|json] [-o FILE]\n"
                   "       any mode but --check-rotation also takes --plot FILE.png [--width W] [--height H]"),
    .purpose = N_("\nThe fixed positional encoding of 'Attention Is All You Need' (no weights needed):\n"
                  "  PE(pos, 2i) = sin(pos / base^(2i/D)),  PE(pos, 2i+1) = cos(pos / base^(2i/D))\n"
                  "Without a mode: the N x D matrix, positions 0..N-1 (float32 values)."),
    .examples = N_("  gpt2-embed sinusoidal --len 100 --dim 128 -o pe.npy\n"
                   "  gpt2-embed sinusoidal --dot-curve --dim 512 --to 100 --plot dot.png\n"
                   "  gpt2-embed sinusoidal --compare-learned --max-distance 64 -o cmp.csv\n"),
    .opts = OPTS,
    .min_pos = 0,
    .max_pos = 0,
    .pos_name = "arguments (values go after their option)",
};
const opt_cmd *const cmd_sinusoidal_spec = &CMD;

typedef struct mat_rows {
    size_t dim;
    double base;
    size_t first, n;   /* the rows held: [first, first + n) */
    size_t block;      /* rows made by one call of the door: 256, fewer for a wide matrix */
    float *rows;       /* (block, dim) */
    size_t len;
} mat_rows;

/* Row p of the matrix: p, then PE(p) rounded to float32 (gpt2embed_sinusoidal, a block of
 * rows at a time). */
static int mat_row(void *user, size_t p, double *out, g2e_err *err)
{
    mat_rows *m = user;
    if (!(m->n && p >= m->first && p < m->first + m->n)) {
        size_t n = m->len - p < m->block ? m->len - p : m->block;
        gpt2embed_error e;
        m->n = 0;
        if (gpt2embed_sinusoidal(p, n, m->dim, m->base, m->rows, &e))
            return g2e_fail(err, G2E_EINVAL, "%s", e.message);
        m->first = p, m->n = n;
    }
    const float *row = m->rows + (p - m->first) * m->dim;
    out[0] = (double)p;
    for (size_t j = 0; j < m->dim; j++)
        out[1 + j] = row[j];
    return 0;
}

/* The (len, dim) matrix, streamed row by row: float32 values in every format. */
static int write_matrix(const char *path, int fmt, size_t len, size_t dim, double base)
{
    size_t block = ((size_t)1 << 20) / dim;   /* at most 4 MB of rows, at least one */
    mat_rows m = {.dim = dim, .base = base, .len = len, .block = block < 1 ? 1 : block > 256 ? 256 : block};
    int rc = -1;
    if (!(m.rows = malloc(m.block * dim * sizeof *m.rows))) {
        cli_error("out of memory for a row of %zu", dim);
    } else {
        const tbl_col c[] = {{.key = "pos", .head = _("pos"), .width = 8, .prec = -1},
                             {.key = "d", .width = 10, .prec = 6, .csv = TBL_CSV_G9, .count = dim}};
        tbl t = {.cols = c, .ncols = 2, .nrow = len, .row = mat_row, .user = &m, .npy_first = 1,
                 .npy_count = dim};
        rc = table_emit(path, fmt, &t, NULL, NULL);
    }
    free(m.rows);
    return rc;
}

typedef struct cmp_head {
    const gpt2embed_model *m;
    size_t len, max_d;
    double base;
} cmp_head;

/* What --compare-learned writes above its columns: where the numbers come from. */
static void compare_head(FILE *f, int fmt, const void *user)
{
    const cmp_head *h = user;
    if (fmt != TBL_TABLE)
        return;   /* (JSON is the course's document) */
    const gpt2embed_model *m = h->m;
    fprintf(f, _("# mean cosine of positions d apart, over positions 0..%zu\n"), h->len - 1);
    fprintf(f, _("# learned:    wpe of %s (n_ctx %zu, n_embd %zu) from %s\n"), fig_model_name(m),
            gpt2embed_n_ctx(m), gpt2embed_n_embd(m), gpt2embed_model_path(m));
    fprintf(f, _("# sinusoidal: D = %zu, base %g\n"), gpt2embed_n_embd(m), h->base);
}

/* The figure and the table of --compare-learned, from the two curves (M + 1 values each). */
static int show_compare(const sin_opts *o, const gpt2embed_model *m, size_t N, size_t M, const double *sinus,
                        const double *learned)
{
    if (o->plot) {
        char *legend = fig_learned_legend(m);
        int bad = !legend || fig_by_distance_curves(N, gpt2embed_n_embd(m), o->base, M, sinus, learned, legend,
                                                    o->plot, (int)o->width, (int)o->height);
        if (!legend)
            cli_error("out of memory");
        free(legend);
        if (bad)
            return -1;
    }
    if (!o->numeric)
        return 0;
    if (o->fmt == TBL_JSON) {   /* the course's one JSON of this comparison */
        char *json;
        gpt2embed_error e;
        out_file of;
        if (gpt2embed_course_by_distance(m, N, M, o->base, 0, &json, &e)) {
            cli_error("%s", e.message);
            return -1;
        }
        int rc = out_open(&of, o->out, 0);
        if (!rc) {
            fputs(json, of.f);   /* (the document ends with its newline) */
            rc = out_commit(&of);
        }
        gpt2embed_free(json);
        return rc;
    }
    const tbl_col c[] = {{.key = "distance", .head = _("distance"), .width = 10, .prec = -1},
                         {.key = "sinusoidal", .head = _("sinusoidal"), .width = 14, .prec = 9},
                         {.key = "learned", .head = _("learned"), .width = 14, .prec = 9}};
    tbl_series s = {.col = {sinus, learned}};
    tbl t = {.cols = c, .ncols = 3, .nrow = M + 1, .row = tbl_series_row, .user = &s, .sep = "  ",
             .json_sep = ",\n "};
    cmp_head h = {m, N, M, o->base};
    return table_emit(o->out, o->fmt, &t, compare_head, &h);
}

/* --compare-learned, after the options are checked. */
static int compare_learned(const sin_opts *o)
{
    gpt2embed_model *m = NULL;
    double *curves = NULL;
    gpt2embed_error err;
    if (load_model(&o->lo, &m))
        return EXIT_ERR;
    int rc = EXIT_USAGE;
    size_t n_ctx = gpt2embed_n_ctx(m), C = gpt2embed_n_embd(m);
    size_t N = o->have_len ? (size_t)o->len : n_ctx, M = o->have_maxd ? (size_t)o->maxd : N - 1;
    if (N > n_ctx) {
        cli_error("--len %zu is more than the model's %zu positions (wpe has n_ctx rows)", N, n_ctx);
    } else if (M >= N) {
        cli_error("--max-distance (%zu) must be less than the length (%zu)", M, N);
    } else if (rc = EXIT_ERR, !(curves = malloc(2 * (M + 1) * sizeof *curves))) {
        cli_error("out of memory for %zu values", M + 1);
    } else if (gpt2embed_sinusoid_by_distance(N, C, o->base, M, curves, &err)) {
        cli_error("%s", err.message);
    } else if (gpt2embed_wpe_by_distance(m, N, M, curves + M + 1, NULL, &err)) {
        cli_error("wpe: %s", err.message);
    } else if (show_compare(o, m, N, M, curves, curves + M + 1) == 0) {
        rc = EXIT_OK;
    }
    free(curves);
    gpt2embed_model_close(m);
    return rc;
}

/* Which mode, and which options belong to it. -1 after one usage line. */
static int check_mode(sin_opts *o, const opt_parsed *p)
{
    int n_modes = o->dot + o->dist + o->rot + o->cmp;
    o->mode = o->dot ? M_DOT : o->dist ? M_DIST : o->rot ? M_ROT : o->cmp ? M_CMP : M_MATRIX;
    int have_dim = opt_given(&CMD, p, "--dim"), have_k = opt_given(&CMD, p, "--max-k");
    int have_range = opt_given(&CMD, p, "--from") || opt_given(&CMD, p, "--to");
    o->have_len = opt_given(&CMD, p, "--len");
    o->have_maxd = opt_given(&CMD, p, "--max-distance");
    if (n_modes > 1)
        return opt_usage_error(&CMD, "choose one of --dot-curve, --by-distance, --check-rotation, "
                                     "--compare-learned");
    if ((o->lo.weights || o->lo.model) && o->mode != M_CMP)
        return opt_usage_error(&CMD, "--weights and --model belong to --compare-learned (the other "
                                     "modes need no weights)");
    if (o->mode == M_CMP) {
        if (have_dim)
            return opt_usage_error(&CMD, "--compare-learned takes its width from the weights "
                                         "(D = n_embd): drop --dim");
        if (have_range || have_k)
            return opt_usage_error(&CMD, "--from, --to and --max-k do not apply to --compare-learned");
        return 0;
    }
    if (!have_dim)
        return opt_usage_error(&CMD, "--dim D is required (see 'gpt2-embed sinusoidal --help')");
    if ((o->mode == M_MATRIX || o->mode == M_DIST) && !o->have_len)
        return opt_usage_error(&CMD, "--len N is required (see 'gpt2-embed sinusoidal --help')");
    if (have_range && o->mode != M_DOT)
        return opt_usage_error(&CMD, "--from and --to belong to --dot-curve");
    if (o->have_maxd && o->mode != M_DIST)
        return opt_usage_error(&CMD, "--max-distance belongs to --by-distance and --compare-learned");
    if (have_k && o->mode != M_ROT)
        return opt_usage_error(&CMD, "--max-k belongs to --check-rotation");
    return 0;
}

/* The checks of values and outputs, once the mode is known. -1 after one usage line. */
static int check(sin_opts *o, const opt_parsed *p)
{
    if (check_mode(o, p))
        return -1;
    int fmt_given = opt_given(&CMD, p, "--format");
    gpt2embed_error err;   /* the encoding's own checks: gpt2embed_sinusoidal of no rows */
    if (gpt2embed_sinusoidal(0, 0, o->mode == M_CMP ? 2 : (size_t)o->dim, o->base, NULL, &err))
        return opt_usage_error(&CMD, "%s", err.message);
    if (o->mode == M_ROT && (o->plot || fmt_given || o->out))
        return opt_usage_error(&CMD, "--check-rotation prints one line; it takes no --plot, --format or -o");
    if (o->mode == M_DOT && o->from > o->to)
        return opt_usage_error(&CMD, "--from %lld is after --to %lld", (long long)o->from, (long long)o->to);
    if (o->mode == M_DIST) {
        if (!o->have_maxd)
            o->maxd = o->len - 1;
        if (o->maxd >= o->len)
            return opt_usage_error(&CMD, "--max-distance (%lld) must be less than --len (%lld)",
                                   (long long)o->maxd, (long long)o->len);
    }
    static const char *const MAT[] = {"table", "csv", "npy", NULL}, *const CMP[] = {"table", "csv", "json", NULL};
    const char *const *names = o->mode == M_CMP ? CMP : MAT;
    int k = 0;
    while (names[k] && strcmp(names[k], FORMATS[o->fmt]) != 0)
        k++;
    if (!names[k])
        return opt_usage_error(&CMD, o->mode == M_CMP ? N_("--compare-learned writes table, csv or json, not npy")
                                                      : N_("--format json belongs to --compare-learned (use table, csv or npy)"));
    if (out_pick_format(&CMD, o->out, names, fmt_given, &k))
        return -1;
    o->fmt = tbl_format_of(names[k]);
    if (o->plot && strcmp(o->plot, "-") == 0 && (fmt_given || o->out) && (!o->out || strcmp(o->out, "-") == 0))
        return opt_usage_error(&CMD, "--plot - and the numeric output cannot both go to standard output");
    o->numeric = !o->plot || fmt_given || o->out;
    return 0;
}

static int run_rotation(const sin_opts *o)
{
    uint64_t n_pos = o->have_len ? (uint64_t)o->len : 256, dim = (uint64_t)o->dim, max_k = (uint64_t)o->maxk;
    double worst;
    uint64_t wp, wk;
    size_t wi;
    gpt2embed_error err;
    if (gpt2embed_sinusoid_check_rotation((size_t)dim, o->base, n_pos, max_k, &worst, &wp, &wk, &wi, &err)) {
        cli_error("%s", err.message);
        return EXIT_ERR;
    }
    int ok = worst < 1e-9;
    printf(_("rotation check (D=%llu, base %g, pos 0..%llu, k 0..%llu, %llu pairs): "
             "largest error %.3g at pos %llu, k %llu, pair %zu: %s\n"),
           (unsigned long long)dim, o->base, (unsigned long long)(n_pos - 1),
           (unsigned long long)(max_k - 1), (unsigned long long)(dim / 2), worst,
           (unsigned long long)wp, (unsigned long long)wk, wi,
           ok ? _("ok (below 1e-9)") : _("FAILED (1e-9 or more)"));
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cli_error("writing standard output failed");
        return EXIT_ERR;
    }
    return ok ? EXIT_OK : EXIT_ERR;
}

static int run_plot(const sin_opts *o)
{
    size_t len = (size_t)o->len, dim = (size_t)o->dim;
    int w = (int)o->width, h = (int)o->height;
    if (o->mode == M_MATRIX)
        return fig_pe_heatmap(len, dim, o->base, o->plot, w, h);
    if (o->mode == M_DOT)
        return fig_dot_curve((uint64_t)o->from, (uint64_t)o->to, dim, o->base, o->plot, w, h);
    return fig_by_distance(len, dim, o->base, (size_t)o->maxd, NULL, NULL, o->plot, w, h);
}

/* The matrix or a curve, computed before the output opens so a failure leaves nothing. */
static int run_numeric(const sin_opts *o)
{
    if (o->mode == M_MATRIX)
        return write_matrix(o->out, o->fmt, (size_t)o->len, (size_t)o->dim, o->base) ? EXIT_ERR : EXIT_OK;
    int dot = o->mode == M_DOT;
    size_t n = dot ? (size_t)(o->to - o->from) + 1 : (size_t)o->maxd + 1;
    double *curve = NULL;
    gpt2embed_error err;
    if (n > ((size_t)1 << 28)) {
        cli_error("%zu points is more than this command computes at once (2^28)", n);
        return EXIT_ERR;
    }
    if (!(curve = malloc(n * sizeof *curve))) {
        cli_error("out of memory for %zu values", n);
        return EXIT_ERR;
    }
    int rc = dot ? gpt2embed_sinusoid_dot_curve((uint64_t)o->from, (uint64_t)o->to, (size_t)o->dim, o->base,
                                                curve, &err)
                 : gpt2embed_sinusoid_by_distance((size_t)o->len, (size_t)o->dim, o->base, (size_t)o->maxd, curve,
                                                  &err);
    if (rc) {
        cli_error("%s", err.message);
    } else {   /* the index column, then the values (npy: the values alone) */
        const tbl_col c[] = {{.key = dot ? "pos" : "distance", .head = dot ? _("pos") : _("distance"),
                              .width = 10, .prec = -1},
                             {.key = dot ? "dot" : "mean_cosine", .head = dot ? _("dot") : _("mean_cosine"),
                              .width = 14, .prec = 9}};
        tbl_series s = {.first = dot ? (double)o->from : 0, .col = {curve}};
        tbl t = {.cols = c, .ncols = 2, .nrow = n, .row = tbl_series_row, .user = &s, .sep = "  ",
                 .npy_first = 1, .npy_count = 1};
        rc = table_emit(o->out, o->fmt, &t, NULL, NULL);
    }
    free(curve);
    return rc ? EXIT_ERR : EXIT_OK;
}

int cmd_sinusoidal(int argc, char **argv)
{
    sin_opts o = {.base = GPT2EMBED_SINUSOID_BASE, .to = 50, .maxk = 64};
    opt_parsed p;
    int r = opt_parse(&CMD, argc, argv, &o, &p);
    if (r == 0 && check(&o, &p))
        r = -1;
    opt_free(&p);
    if (r)
        return opt_exit(r);
    if (o.mode == M_CMP)
        return compare_learned(&o);
    if (o.mode == M_ROT)
        return run_rotation(&o);
    if (o.plot && run_plot(&o))
        return EXIT_ERR;
    return o.numeric ? run_numeric(&o) : EXIT_OK;
}
