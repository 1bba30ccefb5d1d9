/* SPDX-License-Identifier: MIT */
/* cmd_plot.c — `gpt2-embed plot FIGURE ...`: draw one figure as PNG.
 *
 * A table of figures, like the program's table of commands: each figure has its own
 * declared option table (opt.h), so that it takes exactly its options and its --help is
 * generated; the options all figures share (-o, --width, --height: the limits are
 * render.h's, in one place) are one macro of rows. A figure is one row here, one table and
 * a recipe in the rendering wing (fig.h). The figures from GPT-2's weights (wpe, cosine, by-distance)
 * find them as every command does (load.h).
 *
 * Deliberately left out: several figures in one call, figures of other tensors.
 */
#include "cli.h"
#include "i18n.h"
#include "figures.h"
#include "load.h"
#include "opt.h"
#include "render.h"

#include <stdlib.h>
#include <string.h>

/* What the figures' options hold after parsing (each figure reads its own fields). */
typedef struct fig_opts {
    const char *out;               /* -o FILE, NULL: stdout */
    int64_t width, height;         /* 0: the figure's default */
    int64_t len, dim, from, to, max_d, pair;
    double base, percentile;
    int cmap;                      /* render_cmap, in RENDER_CMAP_NAMES order */
    load_opts lo;
} fig_opts;

static const char *const CMAPS[] = RENDER_CMAP_NAMES;

#define ROW_OUT                                                                                   \
    {.name = "--output", .short_name = 'o', .kind = OPT_FILE, .flags = OPTF_STDIN,                \
     .off = offsetof(fig_opts, out), .metavar = "FILE.png",                                       \
     .help = N_("where the PNG goes (atomically; - or none: standard output, never a terminal)")}, \
    {.name = "--width", .kind = OPT_INT, .off = offsetof(fig_opts, width), .lo = RENDER_MIN_SIDE,  \
     .hi = RENDER_MAX_SIDE, .metavar = "W", .help = N_("image width in pixels (default: the figure's)")}, \
    {.name = "--height", .kind = OPT_INT, .off = offsetof(fig_opts, height), .lo = RENDER_MIN_SIDE,\
     .hi = RENDER_MAX_SIDE, .metavar = "H", .help = N_("image height in pixels (default: the figure's)")}
#define ROW_CMAP                                                                                  \
    {.name = "--cmap", .kind = OPT_CHOICE, .off = offsetof(fig_opts, cmap), .choices = CMAPS,      \
     .def = "coolwarm", .help = N_("colour map: matplotlib's coolwarm, or blue-white-red rdbu")}
#define ROW_BASE                                                                                  \
    {.name = "--base", .kind = OPT_REAL, .off = offsetof(fig_opts, base), .metavar = "B",          \
     .def = "10000", .help = N_("the wavelength base of the sinusoidal PE (> 1)")}
#define ROW_LEN(shown, text)                                                                      \
    {.name = "--len", .kind = OPT_INT, .off = offsetof(fig_opts, len), .lo = 1,                   \
     .hi = RENDER_MAX_SIDE, .metavar = "N", .def = shown, .help = text}
#define ROW_DIM                                                                                   \
    {.name = "--dim", .kind = OPT_INT, .off = offsetof(fig_opts, dim), .lo = 2, .hi = 32766,       \
     .metavar = "D", .def = "128", .help = N_("the PE's width (even)")}

static const opt_def PE_OPTS[] = {
    ROW_LEN("100", N_("positions 0..N-1 (x axis)")), ROW_DIM, ROW_BASE, ROW_CMAP, ROW_OUT, OPT_END,
};
static const opt_def DOT_OPTS[] = {
    ROW_DIM,
    {.name = "--from", .kind = OPT_INT, .off = offsetof(fig_opts, from), .lo = 0,
     .hi = (int64_t)GPT2EMBED_SINUSOIDAL_MAX_POS, .metavar = "P", .def = "0", .help = N_("first position")},
    {.name = "--to", .kind = OPT_INT, .off = offsetof(fig_opts, to), .lo = 0,
     .hi = (int64_t)GPT2EMBED_SINUSOIDAL_MAX_POS, .metavar = "Q", .def = "50", .help = N_("last position")},
    ROW_BASE, ROW_OUT, OPT_END,
};
static const opt_def ROT_OPTS[] = {
    ROW_LEN("100", N_("positions 0..N-1 (one point each)")), ROW_DIM,
    {.name = "--pair", .kind = OPT_INT, .off = offsetof(fig_opts, pair), .lo = 0, .hi = 16382,
     .metavar = "I", .def = "D/8", .help = N_("the pair (2I, 2I+1) of dimensions, I < D/2; the default "
                                                 "turns about 0.1 rad per position")},
    ROW_BASE, ROW_CMAP, ROW_OUT, OPT_END,
};
static const opt_def WPE_OPTS[] = {
    LOAD_WEIGHTS_ROWS(fig_opts, lo),
    {.name = "--percentile", .kind = OPT_REAL, .off = offsetof(fig_opts, percentile), .rlo = 0,
     .rhi = 100, .metavar = "P", .def = "99",
     .help = N_("colours clipped at \xC2\xB1 the P-th percentile of |wpe| (0 < P <= 100)")},
    ROW_CMAP, ROW_OUT, OPT_END,
};
static const opt_def COS_OPTS[] = {LOAD_WEIGHTS_ROWS(fig_opts, lo), ROW_CMAP, ROW_OUT, OPT_END};
static const opt_def BYD_OPTS[] = {
    LOAD_WEIGHTS_ROWS(fig_opts, lo),
    ROW_LEN("n_ctx", N_("positions 0..N-1 averaged over")),
    {.name = "--max-distance", .kind = OPT_INT, .off = offsetof(fig_opts, max_d), .lo = 0,
     .hi = RENDER_MAX_SIDE, .metavar = "M", .def = "N-1", .help = N_("largest distance d drawn")},
    ROW_BASE, ROW_OUT, OPT_END,
};

/* A figure's drawing: its checks (-1: a usage error, printed), then its recipe (fig.h) with
 * the PNG in *png, or the recipe's status and message in *e. m: the weights, if it needs them. */
#define UNUSED __attribute__((unused))
#define DRAW(name) static int name(UNUSED const opt_cmd *c, const fig_opts *o,                   \
                                   UNUSED const opt_parsed *p, UNUSED const gpt2embed_model *m,      \
                                   render_png *png, g2e_err *e)

/* -1 (printed) when D or the base is not a sinusoidal PE's */
static int check_base(const opt_cmd *c, size_t dim, double base)
{
    gpt2embed_error err;   /* the encoding's own checks: gpt2embed_sinusoidal of no rows */
    if (gpt2embed_sinusoidal(0, 0, dim, base, NULL, &err))
        return opt_usage_error(c, "%s", err.message), -1;
    return 0;
}

#define W_H (int)o->width, (int)o->height

DRAW(draw_pe)
{
    return fig_pe_png((size_t)o->len, (size_t)o->dim, o->base, (render_cmap)o->cmap, W_H, png, e);
}

DRAW(draw_dot_curve)
{
    if (o->from > o->to)
        return opt_usage_error(c, "--from %lld is after --to %lld", (long long)o->from,
                               (long long)o->to), -1;
    return fig_dot_curve_png((uint64_t)o->from, (uint64_t)o->to, (size_t)o->dim, o->base, W_H,
                             png, e);
}

DRAW(draw_rotation)
{
    /* by default D/8, gpt2embed_sinusoid_pair's (GPT2EMBED_PAIR_DEFAULT) */
    int64_t pair = opt_given(c, p, "--pair") ? o->pair : o->dim / 8;
    if (pair >= o->dim / 2) {
        char given[24];
        snprintf(given, sizeof given, "%lld", (long long)o->pair);
        opt_range_error(c, "--pair", 0, o->dim / 2 - 1, given, 1);
        return -1;
    }
    return fig_rotation_png((size_t)o->len, (size_t)o->dim, (size_t)pair, o->base,
                            (render_cmap)o->cmap, W_H, png, e);
}

DRAW(draw_wpe)
{
    if (!(o->percentile > 0))
        return opt_usage_error(c, "--percentile must be in (0, 100], got %g", o->percentile), -1;
    double q;
    int fell_back = 0;
    int rc = fig_wpe_heatmap_png(m, o->percentile, (render_cmap)o->cmap, W_H, &q, &fell_back, png, e);
    if (rc == 0 && fell_back)
        fig_fallback_note(o->percentile, q);
    return rc;
}

DRAW(draw_cosine)
{
    return fig_wpe_cosine_png(m, (render_cmap)o->cmap, W_H, png, e);
}

DRAW(draw_by_distance)
{
    size_t n_ctx = gpt2embed_n_ctx(m), len = opt_given(c, p, "--len") ? (size_t)o->len : n_ctx;
    size_t max_d = opt_given(c, p, "--max-distance") ? (size_t)o->max_d : len - 1;
    if (len > n_ctx)
        return opt_usage_error(c, "--len %zu is more than the model's %zu positions", len, n_ctx), -1;
    if (max_d >= len)
        return opt_usage_error(c, "--max-distance (%zu) must be less than the length (%zu)",
                               max_d, len), -1;
    return fig_wpe_by_distance_png(m, len, max_d, o->base, W_H, png, e);
}

typedef struct figure {
    opt_cmd cmd;
    int (*draw)(const opt_cmd *c, const fig_opts *o, const opt_parsed *p, const gpt2embed_model *m,
                render_png *png, g2e_err *e);
    int weights;                   /* 1: drawn from GPT-2's weights (found as load.h does) */
    int sinusoid;                  /* 1: --base (and --dim, without weights) checked first */
} figure;

#define FIG(fig_name, table, text, example) \
    {.name = "plot " fig_name, .synopsis = N_("[OPTIONS] [-o FILE.png]"), .purpose = text, \
     .examples = example, .opts = table, .min_pos = 0, .max_pos = 0}

static const figure FIGURES[] = {
    {FIG("pe", PE_OPTS, N_("\nThe sinusoidal PE heatmap as the article draws it: x = position, y = dimension\n"
                           "(0 at the bottom), colours fixed to [-1, 1], a labelled colour bar."),
         N_("  gpt2-embed plot pe -o pe.png\n  gpt2-embed plot pe --len 50 --dim 64 --cmap rdbu -o pe.png\n")),
     draw_pe, 0, 1},
    {FIG("dot-curve", DOT_OPTS, N_("\nPE(0)\xC2\xB7PE(pos) for pos = P..Q as a line chart."),
         N_("  gpt2-embed plot dot-curve --dim 128 --to 200 -o dot.png\n")),
     draw_dot_curve, 0, 1},
    {FIG("rotation", ROT_OPTS, N_("\nOne pair (2I, 2I+1) of the sinusoidal PE as position grows: points on the unit\n"
                                  "circle coloured by position, each step turned by the same angle."),
         N_("  gpt2-embed plot rotation --pair 3 --len 60 -o rot.png\n")),
     draw_rotation, 0, 1},
    {FIG("wpe", WPE_OPTS, N_("\nGPT-2's learned wpe: x = position, y = dimension (0 at the bottom), colours\n"
                             "\xC2\xB1 the P-th percentile of |wpe|, stated on the colour bar."),
         N_("  gpt2-embed plot wpe -o wpe.png\n")),
     draw_wpe, 1, 0},
    {FIG("cosine", COS_OPTS, N_("\nThe cosine similarity of every pair of wpe rows (n_ctx x n_ctx), colours [-1, 1]."),
         N_("  gpt2-embed plot cosine -o cos.png\n")),
     draw_cosine, 1, 0},
    {FIG("by-distance", BYD_OPTS, N_("\nThe mean cosine of positions d apart, d = 0..M, for the learned wpe and the\n"
                                     "sinusoidal PE of the same width, on one chart."),
         N_("  gpt2-embed plot by-distance --len 512 -o bd.png\n")),
     draw_by_distance, 1, 1},
};
#define N_FIGURES (sizeof FIGURES / sizeof FIGURES[0])

/* Parses the figure's options, finds the weights if it needs them, draws and writes. */
static int run(const figure *fig, int argc, char **argv)
{
    fig_opts o = {.len = 100, .dim = 128, .to = 50, .base = GPT2EMBED_SINUSOID_BASE, .percentile = 99.0};
    opt_parsed p = {0};
    gpt2embed_model *m = NULL;
    render_png png = {0};
    g2e_err e;
    int r = opt_parse(&fig->cmd, argc, argv, &o, &p), rc = r < 0 ? EXIT_USAGE : EXIT_OK;
    if (r == 0) {   /* (r > 0: --help was printed) */
        if (fig->sinusoid && check_base(&fig->cmd, fig->weights ? 2 : (size_t)o.dim, o.base))
            rc = EXIT_USAGE;
        else if (fig->weights && load_model(&o.lo, &m))
            rc = EXIT_ERR;
        else if ((r = fig->draw(&fig->cmd, &o, &p, m, &png, &e)) < 0)
            rc = EXIT_USAGE;
        else
            rc = fig_write(r, &png, &e, o.out) ? EXIT_ERR : EXIT_OK;
    }
    gpt2embed_model_close(m);
    opt_free(&p);
    return rc;
}

static int help(FILE *f)
{
    fputs(_("usage: gpt2-embed plot FIGURE [OPTIONS] [-o FILE.png]\n\n"
            "Draws one figure as PNG (to FILE.png, atomically; without -o to standard output,\n"
            "but never to a terminal). 'gpt2-embed plot FIGURE --help' lists its options.\n\n"
            "figures:\n"), f);
    for (size_t i = 0; i < N_FIGURES; i++) {   /* each purpose starts with a newline */
        fprintf(f, "  %-12s ", FIGURES[i].cmd.name + 5);
        opt_wrap(f, gettext(FIGURES[i].cmd.purpose) + 1, 15, 15, NULL);
    }
    return ferror(f) ? -1 : 0;
}

int cmd_plot(int argc, char **argv)
{
    if (argc < 2) {
        help(stderr);
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)
        return help(stdout) ? EXIT_ERR : EXIT_OK;
    const figure *fig = NULL;
    for (size_t i = 0; i < N_FIGURES; i++)
        if (strcmp(argv[1], FIGURES[i].cmd.name + 5) == 0)
            fig = &FIGURES[i];
    if (!fig) {
        const char *names[N_FIGURES];
        for (size_t i = 0; i < N_FIGURES; i++)
            names[i] = FIGURES[i].cmd.name + 5;
        const char *near = opt_nearest(argv[1], names, N_FIGURES);
        if (near)
            cli_error("unknown figure '%s'; did you mean '%s'? (see 'gpt2-embed plot --help')", argv[1], near);
        else
            cli_error("unknown figure '%s' (see 'gpt2-embed plot --help')", argv[1]);
        return EXIT_USAGE;
    }
    return run(fig, argc - 1, argv + 1);
}
