/* cmd_plot.c — `gpt2-embed plot FIGURE ...`: draw one figure as PNG.
 *
 * A table of figures, each with its own option set, like the program's own table of
 * commands: a figure is one line here plus a function in figures.c. The options all
 * figures share (-o, --width, --height) are parsed in one place; an option is accepted
 * only by the figures whose usage line names it. The figures from GPT-2's weights
 * (wpe, cosine, by-distance) find them as every command does (--weights, --model,
 * $GPT2_EMBED_WEIGHTS, weights/, the installed data, the Hugging Face cache).
 *
 * Deliberately left out: several figures in one call, figures of other tensors.
 */
#include "cli.h"
#include "figures.h"
#include "load.h"
#include "model.h"
#include "sinusoid.h"

#include <stdlib.h>
#include <string.h>

/* What the figures' options hold after parsing. */
typedef struct fig_opts {
    const char *out;            /* -o FILE, NULL: stdout */
    uint64_t width, height;     /* 0: the figure's default */
    uint64_t len, dim, from, to, max_d;
    int have_len, have_dim, have_max_d;
    double base;
    double percentile;          /* plot wpe: the colour range is ±this percentile of |x| */
    const char *weights, *model;   /* --weights FILE, --model NAME (NULL: not given) */
} fig_opts;

typedef struct figure {
    const char *name;
    int (*draw)(const fig_opts *o);
    const char *usage;          /* the figure's own options */
    const char *summary;
} figure;

static int draw_pe(const fig_opts *o)
{
    if (!o->have_len || !o->have_dim) {
        cli_error("plot pe needs --len N and --dim D");
        return EXIT_USAGE;
    }
    return fig_pe_heatmap((size_t)o->len, (size_t)o->dim, o->base, o->out, (int)o->width,
                          (int)o->height) ? EXIT_ERR : EXIT_OK;
}

static int draw_dot_curve(const fig_opts *o)
{
    if (!o->have_dim) {
        cli_error("plot dot-curve needs --dim D");
        return EXIT_USAGE;
    }
    if (o->from > o->to) {
        cli_error("--from %llu is after --to %llu", (unsigned long long)o->from,
                  (unsigned long long)o->to);
        return EXIT_USAGE;
    }
    return fig_dot_curve(o->from, o->to, (size_t)o->dim, o->base, o->out, (int)o->width,
                         (int)o->height) ? EXIT_ERR : EXIT_OK;
}

/* Opens the weights named by the options; prints why not and returns NULL on failure. */
static g2e_model *open_model(const fig_opts *o)
{
    g2e_model *m = NULL;
    return load_model(o->weights, o->model, &m, NULL) ? NULL : m;
}

static int draw_wpe(const fig_opts *o)
{
    g2e_model *m = open_model(o);
    if (!m)
        return EXIT_ERR;
    int rc = fig_wpe_heatmap(m, o->percentile, o->out, (int)o->width, (int)o->height, NULL);
    model_close(m);
    return rc ? EXIT_ERR : EXIT_OK;
}

static int draw_cosine(const fig_opts *o)
{
    g2e_model *m = open_model(o);
    if (!m)
        return EXIT_ERR;
    int rc = fig_wpe_cosine(m, o->out, (int)o->width, (int)o->height);
    model_close(m);
    return rc ? EXIT_ERR : EXIT_OK;
}

static int draw_by_distance(const fig_opts *o)
{
    g2e_model *m = open_model(o);
    if (!m)
        return EXIT_ERR;
    int rc = EXIT_USAGE;
    size_t len = o->have_len ? (size_t)o->len : m->n_ctx;
    if (len > m->n_ctx) {
        cli_error("--len %zu is more than the model's %zu positions", len, m->n_ctx);
        goto done;
    }
    size_t max_d = o->have_max_d ? (size_t)o->max_d : len - 1;
    if (max_d >= len) {
        cli_error("--max-distance (%zu) must be less than the length (%zu)", max_d, len);
        goto done;
    }
    rc = fig_wpe_by_distance(m, len, max_d, o->base, o->out, (int)o->width, (int)o->height)
             ? EXIT_ERR : EXIT_OK;
done:
    model_close(m);
    return rc;
}

static const figure FIGURES[] = {
    {"pe", draw_pe, "--len N --dim D [--base B]",
     "the sinusoidal PE heatmap: x position, y dimension (0 at the bottom), colours [-1, 1]"},
    {"dot-curve", draw_dot_curve, "--dim D [--from P] [--to Q] [--base B]",
     "PE(0)\xC2\xB7PE(pos) for pos = P..Q (default 0..50)"},
    {"wpe", draw_wpe, "[--weights FILE] [--model NAME] [--percentile P]",
     "GPT-2's wpe: x position, y dimension (0 at the bottom), colours \xC2\xB1 the P-th\n"
     "               percentile of |wpe| (default 99), stated on the colour bar"},
    {"cosine", draw_cosine, "[--weights FILE] [--model NAME]",
     "cosine similarity of every pair of wpe rows (n_ctx x n_ctx), colours [-1, 1]"},
    {"by-distance", draw_by_distance,
     "[--weights FILE] [--model NAME] [--len N] [--max-distance M] [--base B]",
     "mean cosine of positions d apart, d = 0..M, learned wpe and sinusoidal PE of\n"
     "               the same width on one chart (N default n_ctx, M default N-1)"},
};
#define N_FIGURES (sizeof FIGURES / sizeof FIGURES[0])

static void help(FILE *f)
{
    fprintf(f, "usage: gpt2-embed plot FIGURE [OPTIONS] [-o FILE.png] [--width W] [--height H]\n\n"
               "Draws one figure as PNG (to FILE.png, atomically; without -o to standard output,\n"
               "but never to a terminal).\n\nfigures:\n");
    for (size_t i = 0; i < N_FIGURES; i++)
        fprintf(f, "  %-11s %s\n  %-11s   %s\n", FIGURES[i].name, FIGURES[i].usage, "",
                FIGURES[i].summary);
}

int cmd_plot(int argc, char **argv)
{
    if (argc < 2) {
        help(stderr);
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        help(stdout);
        return EXIT_OK;
    }
    const figure *fig = NULL;
    for (size_t i = 0; i < N_FIGURES; i++)
        if (strcmp(argv[1], FIGURES[i].name) == 0)
            fig = &FIGURES[i];
    if (!fig) {
        cli_error("unknown figure '%s' (see 'gpt2-embed plot --help')", argv[1]);
        return EXIT_USAGE;
    }
    fig_opts o = {.base = SIN_DEFAULT_BASE, .to = 50, .percentile = 99.0};
    const char *v = NULL;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            printf("usage: gpt2-embed plot %s %s [-o FILE.png] [--width W] [--height H]\n%16s%s\n",
                   fig->name, fig->usage, "", fig->summary);
            return EXIT_OK;
        } else if (strcmp(a, "-o") == 0) {
            if (i + 1 >= argc) {
                cli_error("option -o needs a file name");
                return EXIT_USAGE;
            }
            o.out = argv[++i];
        } else if (cli_opt(argc, argv, &i, "--output", &v)) {
            if (!v)
                return EXIT_USAGE;
            o.out = v;
        } else if (cli_opt(argc, argv, &i, "--width", &v)) {
            if (!v || cli_parse_u64(v, 200, 32767, "--width", &o.width))
                return EXIT_USAGE;
        } else if (cli_opt(argc, argv, &i, "--height", &v)) {
            if (!v || cli_parse_u64(v, 150, 32767, "--height", &o.height))
                return EXIT_USAGE;
        } else if (strstr(fig->usage, "--len") && cli_opt(argc, argv, &i, "--len", &v)) {
            if (!v || cli_parse_u64(v, 1, SIN_MAX_POS, "--len", &o.len))
                return EXIT_USAGE;
            o.have_len = 1;
        } else if (strstr(fig->usage, "--dim") && cli_opt(argc, argv, &i, "--dim", &v)) {
            if (!v || cli_parse_u64(v, 1, SIN_MAX_DIM, "--dim", &o.dim))
                return EXIT_USAGE;
            o.have_dim = 1;
        } else if (strstr(fig->usage, "--base") && cli_opt(argc, argv, &i, "--base", &v)) {
            if (!v || cli_parse_double(v, "--base", &o.base))
                return EXIT_USAGE;
        } else if (strstr(fig->usage, "--from") && cli_opt(argc, argv, &i, "--from", &v)) {
            if (!v || cli_parse_u64(v, 0, SIN_MAX_POS, "--from", &o.from))
                return EXIT_USAGE;
        } else if (strstr(fig->usage, "--to") && cli_opt(argc, argv, &i, "--to", &v)) {
            if (!v || cli_parse_u64(v, 0, SIN_MAX_POS, "--to", &o.to))
                return EXIT_USAGE;
        } else if (strstr(fig->usage, "--max-distance") &&
                   cli_opt(argc, argv, &i, "--max-distance", &v)) {
            if (!v || cli_parse_u64(v, 0, SIN_MAX_POS, "--max-distance", &o.max_d))
                return EXIT_USAGE;
            o.have_max_d = 1;
        } else if (strstr(fig->usage, "--percentile") &&
                   cli_opt(argc, argv, &i, "--percentile", &v)) {
            if (!v || cli_parse_double(v, "--percentile", &o.percentile))
                return EXIT_USAGE;
            if (!(o.percentile > 0 && o.percentile <= 100)) {
                cli_error("--percentile must be in (0, 100], got %s", v);
                return EXIT_USAGE;
            }
        } else if (strstr(fig->usage, "--weights") && cli_opt(argc, argv, &i, "--weights", &v)) {
            if (!v)
                return EXIT_USAGE;
            o.weights = v;
        } else if (strstr(fig->usage, "--model") && cli_opt(argc, argv, &i, "--model", &v)) {
            if (!v)
                return EXIT_USAGE;
            o.model = v;
        } else {
            cli_error("unknown option '%s' for 'plot %s' (usage: gpt2-embed plot %s %s)", a,
                      fig->name, fig->name, fig->usage);
            return EXIT_USAGE;
        }
    }
    if (o.have_dim || strstr(fig->usage, "--base")) {
        g2e_err err;
        g2e_clear(&err);
        if (sin_check_params(o.have_dim ? (size_t)o.dim : 2, o.base, &err)) {
            cli_error("%s", err.msg);
            return EXIT_USAGE;
        }
    }
    return fig->draw(&o);
}
