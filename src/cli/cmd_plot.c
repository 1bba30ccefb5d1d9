/* cmd_plot.c — `gpt2-embed plot FIGURE ...`: draw one figure as PNG.
 *
 * A table of figures, each with its own option set, like the program's own table of
 * commands: adding the weights-based figures (wpe, cosine, by-distance) is one line
 * here plus a function in figures.c. The options all figures share (-o, --width,
 * --height) are parsed in one place.
 *
 * Deliberately left out for now: the figures that need GPT-2's weights.
 */
#include "cli.h"
#include "figures.h"
#include "sinusoid.h"

#include <stdlib.h>
#include <string.h>

/* What the figures' options hold after parsing. */
typedef struct fig_opts {
    const char *out;            /* -o FILE, NULL: stdout */
    uint64_t width, height;     /* 0: the figure's default */
    uint64_t len, dim, from, to;
    int have_len, have_dim;
    double base;
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

static const figure FIGURES[] = {
    {"pe", draw_pe, "--len N --dim D [--base B]",
     "the sinusoidal PE heatmap: x position, y dimension (0 at the bottom), colours [-1, 1]"},
    {"dot-curve", draw_dot_curve, "--dim D [--from P] [--to Q] [--base B]",
     "PE(0)\xC2\xB7PE(pos) for pos = P..Q (default 0..50)"},
};
#define N_FIGURES (sizeof FIGURES / sizeof FIGURES[0])

static void help(FILE *f)
{
    fprintf(f, "usage: gpt2-embed plot FIGURE [OPTIONS] [-o FILE.png] [--width W] [--height H]\n\n"
               "Draws one figure as PNG (to FILE.png, atomically; without -o to standard output,\n"
               "but never to a terminal).\n\nfigures:\n");
    for (size_t i = 0; i < N_FIGURES; i++)
        fprintf(f, "  %-10s %s\n  %-10s   %s\n", FIGURES[i].name, FIGURES[i].usage, "",
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
    fig_opts o = {.base = SIN_DEFAULT_BASE, .to = 50};
    const char *v = NULL;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            printf("usage: gpt2-embed plot %s %s [-o FILE.png] [--width W] [--height H]\n  %s\n",
                   fig->name, fig->usage, fig->summary);
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
        } else {
            cli_error("unknown option '%s' for 'plot %s' (usage: gpt2-embed plot %s %s)", a,
                      fig->name, fig->name, fig->usage);
            return EXIT_USAGE;
        }
    }
    if (o.have_dim) {
        g2e_err err;
        g2e_clear(&err);
        if (sin_check_params((size_t)o.dim, o.base, &err)) {
            cli_error("%s", err.msg);
            return EXIT_USAGE;
        }
    }
    return fig->draw(&o);
}
