/* SPDX-License-Identifier: MIT */
/* cmd_rope.c — `gpt2-embed rope`: the rotary position encoding of RoFormer (gpt2embed_rope_*)
 * beside the two additive encodings the chapter names.
 *
 * Without a mode: the table that contrasts learned absolute (GPT-2's wpe), sinusoidal
 * absolute and rotary relative positions, and the frequencies for -d and --base.
 * --check-relative: ⟨R(m)q, R(n)k⟩ against ⟨R(m−n)q, k⟩ on random unit q, k (the largest
 * deviation; like `sinusoidal --check-rotation`). --dot-curve: the mean ⟨R(0)q, R(k)q⟩
 * against k, with its expectation. --rotation: one pair's path as the position grows.
 * Curves in every format of table.h.
 */
#include "cli.h"
#include "i18n.h"
#include "opt.h"
#include "out.h"
#include "study.h"
#include "study_fig.h"
#include "table_out.h"

#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

typedef struct rope_opts {
    int check, curve, rotation, fmt;
    int numeric;   /* 0: --plot alone, which replaces the numeric output */
    int64_t dim, max_pos, pairs, seed, from, to, samples, pair, len;
    double base;
    const char *out, *plot;
} rope_opts;

static const char *const FORMATS[] = {"table", "json", "csv", "npy", NULL};

static const opt_def OPTS[] = {
    {.name = "--check-relative", .kind = OPT_FLAG, .off = offsetof(rope_opts, check),
     .help = N_("verify that <R(m)q, R(n)k> depends only on m - n (random unit q, k)")},
    {.name = "--dot-curve", .kind = OPT_FLAG, .off = offsetof(rope_opts, curve),
     .help = N_("the mean <R(0)q, R(k)q> against k, and its expectation")},
    {.name = "--rotation", .kind = OPT_FLAG, .off = offsetof(rope_opts, rotation),
     .help = N_("one pair (2i, 2i+1) of a unit vector as the position grows")},
    {.name = "--dim", .short_name = 'd', .kind = OPT_INT, .off = offsetof(rope_opts, dim), .lo = 2,
     .hi = 1 << 20, .metavar = "D", .def = "768", .help = N_("the width of q and k (even)")},
    {.name = "--base", .kind = OPT_REAL, .off = offsetof(rope_opts, base), .rlo = 1.000001,
     .rhi = 1e300, .metavar = "B", .def = "10000", .help = N_("theta_i = B^(-2i/D)")},
    {.name = "--max-pos", .kind = OPT_INT, .off = offsetof(rope_opts, max_pos), .lo = 0,
     .hi = (int64_t)1 << 53, .metavar = "P", .def = "4096",
     .help = N_("--check-relative: positions m, n drawn from 0..P")},
    {.name = "--pairs", .kind = OPT_INT, .off = offsetof(rope_opts, pairs), .lo = 1,
     .hi = 100000000, .metavar = "N", .def = "10000", .help = N_("--check-relative: how many (q, k, m, n)")},
    {.name = "--seed", .kind = OPT_INT, .off = offsetof(rope_opts, seed), .lo = 0,
     .hi = INT64_MAX, .metavar = "S", .def = "1", .help = N_("the random generator's seed")},
    {.name = "--from", .kind = OPT_INT, .off = offsetof(rope_opts, from), .lo = 0,
     .hi = (int64_t)1 << 53, .metavar = "K", .def = "0", .help = N_("--dot-curve: first offset")},
    {.name = "--to", .kind = OPT_INT, .off = offsetof(rope_opts, to), .lo = 0,
     .hi = (int64_t)1 << 53, .metavar = "K", .def = "512", .help = N_("--dot-curve: last offset")},
    {.name = "--samples", .kind = OPT_INT, .off = offsetof(rope_opts, samples), .lo = 1,
     .hi = 1000000, .metavar = "N", .def = "100", .help = N_("--dot-curve: random vectors averaged")},
    {.name = "--pair", .kind = OPT_INT, .off = offsetof(rope_opts, pair), .lo = 0, .hi = 1 << 19,
     .metavar = "I", .def = "D/8", .help = N_("--rotation: the pair i (dimensions 2i, 2i+1); the default "
                                                 "turns about 0.1 rad per position")},
    {.name = "--len", .kind = OPT_INT, .off = offsetof(rope_opts, len), .lo = 1, .hi = 1 << 24,
     .metavar = "N", .def = "64", .help = N_("--rotation: positions 0..N-1")},
    {.name = "--format", .kind = OPT_CHOICE, .off = offsetof(rope_opts, fmt), .choices = FORMATS,
     .def = "table", .help = N_("output format (npy: float32)")},
    {.name = "--output", .short_name = 'o', .kind = OPT_FILE, .off = offsetof(rope_opts, out),
     .help = N_("write to FILE (atomically) instead of standard output")},
    {.name = "--plot", .kind = OPT_FILE, .off = offsetof(rope_opts, plot), .metavar = "FILE.png",
     .help = N_("with --dot-curve or --rotation: draw it; alone, it replaces the numeric output "
                "(with --format or -o, both are written)")},
    OPT_END,
};

static const opt_cmd CMD = {
    .name = "rope",
    .synopsis = N_("[--check-relative | --dot-curve | --rotation] [-d D] [--base B] [OPTIONS]"),
    .purpose = N_("\nThe rotary position encoding (RoPE, RoFormer): instead of adding a position vector,\n"
                  "each pair (2i, 2i+1) of a query or key is rotated by pos * theta_i, theta_i = B^(-2i/D).\n"
                  "Without a mode: how it differs from GPT-2's learned positions and the sinusoidal PE."),
    .examples = N_("  gpt2-embed rope\n"
                   "  gpt2-embed rope --check-relative -d 768 --max-pos 4096\n"
                   "  gpt2-embed rope --dot-curve --to 1024 -o rope-dot.csv\n"
                   "  gpt2-embed rope --dot-curve --plot rope-dot.png\n"
                   "  gpt2-embed rope --rotation --pair 3 --len 100 --plot rope-rot.png\n"),
    .opts = OPTS,
    .min_pos = 0,
    .max_pos = 0,
};
const opt_cmd *const cmd_rope_spec = &CMD;

#define SCHEME(r, c) gpt2embed_rope_scheme(r, c)
#define N_SCHEMES GPT2EMBED_ROPE_SCHEME_ROWS

/* --format json, every mode: the library's document (gpt2embed_rope_json). */
static int emit_doc(const rope_opts *o, int mode)
{
    gpt2embed_rope_params p = {.mode = mode, .dim = (size_t)o->dim, .base = o->base,
                               .max_pos = (uint64_t)o->max_pos, .pairs = (size_t)o->pairs,
                               .seed = (uint64_t)o->seed, .from = (uint64_t)o->from,
                               .to = (uint64_t)o->to, .samples = (size_t)o->samples,
                               .pair = (size_t)o->pair, .len = (size_t)o->len};
    char *json;
    gpt2embed_error e;
    return study_print_doc(gpt2embed_rope_json(&p, &json, &e), &json, &e, o->out);
}

static int emit_schemes(const rope_opts *o)
{
    out_file of;
    if (out_open(&of, o->out, 0))
        return -1;
    FILE *f = of.f;
    size_t d = (size_t)o->dim;
    double lam_max = 2 * 3.141592653589793 * pow(o->base, (double)(d - 2) / (double)d);
    fputs(_("The three position schemes the chapter names\n"), f);
    for (size_t r = 1; r < N_SCHEMES; r++) {   /* the text in the chosen language (msgids of the library's) */
        fprintf(f, "\n%s\n", gettext(SCHEME(r, 0)));
        for (size_t c = 1; c < 4; c++) {
            fputs("  ", f);
            out_pad(f, gettext(SCHEME(0, c)), 26);
            fprintf(f, " %s\n", gettext(SCHEME(r, c)));
        }
    }
    fprintf(f, _("\nRoPE with d = %zu, base %g: %zu pairs; pair 0 turns 1 radian per position "
                 "(wavelength 2*pi = 6.28), pair %zu the slowest (wavelength %.4g positions).\n"),
            d, o->base, d / 2, d / 2 - 1, lam_max);
    return out_commit(&of);
}

static int emit_check(const rope_opts *o)
{
    gpt2embed_rope_check r;
    gpt2embed_error e;
    if (study_said(gpt2embed_rope_check_relative((size_t)o->dim, o->base, (uint64_t)o->max_pos,
                                                 (size_t)o->pairs, (uint64_t)o->seed, &r, &e), &e))
        return -1;
    out_file of;
    if (out_open(&of, o->out, 0))
        return -1;
    fprintf(of.f, _("RoPE relative check: d = %lld, base %g, %zu random unit q, k with positions "
                    "m, n in 0..%lld (seed %lld)\n"), (long long)o->dim, o->base, r.pairs,
            (long long)o->max_pos, (long long)o->seed);
    fprintf(of.f, _("largest |<R(m)q, R(n)k> - <R(m-n)q, k>| = %.3g (at m = %llu, n = %llu); "
                    "mean %.3g\n"), r.max_dev, (unsigned long long)r.at_m,
            (unsigned long long)r.at_n, r.mean_dev);
    double bound = r.rounding_bound;
    if (r.relative)
        fprintf(of.f, _("the score depends on m - n alone, up to rounding of the angles "
                        "(within %.3g for positions up to %lld)\n"), bound, (long long)o->max_pos);
    else
        fprintf(of.f, _("the score does not depend on m - n alone here: the largest deviation "
                        "exceeds what rounding the angles explains (%.3g)\n"), bound);
    return out_commit(&of);
}

/* The parameters above the curve's table (JSON is emit_doc's). */
static void curve_head(FILE *f, int fmt, const void *user)
{
    const rope_opts *o = user;
    if (fmt == TBL_TABLE)
        fprintf(f, _("RoPE dot curve: mean <R(0)q, R(k)q> over %lld random unit q (d = %lld, base %g); "
                     "expected = (2/d) sum_i cos(k theta_i) = (2/d) PE(0).PE(k)\n\n"),
                (long long)o->samples, (long long)o->dim, o->base);
}

static int emit_curve(const rope_opts *o)
{
    size_t n = (size_t)(o->to - o->from) + 1;
    double *mean = malloc(n * sizeof *mean), *exp_ = malloc(n * sizeof *exp_);
    gpt2embed_error e;
    int rc = -1;
    if (!mean || !exp_) {
        cli_error("out of memory for %zu offsets", n);
    } else if (!study_said(gpt2embed_rope_dot_curve((size_t)o->dim, o->base, (uint64_t)o->from,
                                                    (uint64_t)o->to, (size_t)o->samples,
                                                    (uint64_t)o->seed, mean, exp_, &e), &e)) {
        const tbl_col c[] = {{.key = "k", .width = 10, .prec = -1},
                             {.key = "mean_dot", .head = _("mean_dot"), .width = 14, .prec = 6, .g = 1},
                             {.key = "expected", .head = _("expected"), .width = 14, .prec = 6, .g = 1}};
        tbl_series s = {.first = (double)o->from, .col = {mean, exp_}};
        tbl t = {.cols = c, .ncols = 3, .nrow = n, .row = tbl_series_row, .user = &s,
                 .npy_first = 1, .npy_count = 2};
        rc = o->numeric ? table_emit(o->out, o->fmt, &t, curve_head, o) : 0;
        if (rc == 0 && o->plot)
            rc = study_fig_rope_dot(mean, exp_, (size_t)o->from, n, (size_t)o->dim, o->base, o->plot);
    }
    free(mean), free(exp_);
    return rc;
}

typedef struct rotation_info {
    const rope_opts *o;
    double theta;
} rotation_info;

static void rotation_head(FILE *f, int fmt, const void *user)
{
    const rotation_info *ri = user;
    const rope_opts *o = ri->o;
    long long i = (long long)o->pair;
    if (fmt == TBL_TABLE)
        fprintf(f, _("RoPE pair %lld (dimensions %lld, %lld) of the unit vector e_%lld as the position "
                     "grows: turned by pos x theta, theta = %.6g rad per position\n\n"),
                i, 2 * i, 2 * i + 1, 2 * i, ri->theta);
}

static int emit_rotation(const rope_opts *o)
{
    size_t n = (size_t)o->len;
    double *xy = malloc(2 * n * sizeof *xy), *v = malloc(3 * n * sizeof *v);
    gpt2embed_error e;
    rotation_info ri = {o, 0};
    int rc = -1;
    /* the unit vector (1, 0) in the pair: its path is (cos pos·θ_i, sin pos·θ_i) */
    if (!xy || !v) {
        cli_error("out of memory for %zu positions", n);
    } else if (!study_said(gpt2embed_rope_rotation((size_t)o->dim, o->base, (size_t)o->pair, 1.0, 0.0, n,
                                                   xy, xy + n, &ri.theta, &e), &e)) {
        for (size_t p = 0; p < n; p++)
            v[3 * p] = (double)p, v[3 * p + 1] = xy[p], v[3 * p + 2] = xy[n + p];
        const tbl_col c[] = {{.key = "position", .head = _("position"), .width = 10, .prec = -1},
                             {.key = "x_2i", .width = 14, .prec = 6, .g = 1},
                             {.key = "x_2i+1", .width = 14, .prec = 6, .g = 1}};
        tbl t = {.cols = c, .ncols = 3, .nrow = n, .v = v, .npy_first = 1, .npy_count = 2};
        rc = o->numeric ? table_emit(o->out, o->fmt, &t, rotation_head, &ri) : 0;
        if (rc == 0 && o->plot)
            rc = study_fig_rope_rotation(xy, xy + n, n, (size_t)o->pair, ri.theta, (size_t)o->dim, o->plot);
    }
    free(xy), free(v);
    return rc;
}

static int check(const rope_opts *o, const opt_parsed *p)
{
    if (o->check + o->curve + o->rotation > 1)
        return opt_usage_error(&CMD, "--check-relative, --dot-curve and --rotation are separate "
                                     "modes; pick one");
    if (o->dim % 2)
        return opt_usage_error(&CMD, "--dim must be even (rotated pairs), got %lld", (long long)o->dim);
    static const char *const MODE_OPTS[][4] = {
        {"--max-pos", "--pairs", NULL}, {"--from", "--to", "--samples", NULL}, {"--pair", "--len", NULL}};
    const int modes[3] = {o->check, o->curve, o->rotation};
    if (o->curve && o->from > o->to)
        return opt_usage_error(&CMD, "--from %lld is after --to %lld", (long long)o->from,
                               (long long)o->to);
    if (!o->curve && !o->rotation && o->fmt >= TBL_CSV)
        return opt_usage_error(&CMD, "csv and npy are for --dot-curve and --rotation; the %s is "
                               "a table or JSON", o->check ? "check" : "comparison");
    if (o->plot && !o->curve && !o->rotation)
        return opt_usage_error(&CMD, "--plot draws --dot-curve or --rotation");
    static const char *const MODE_NAMES[] = {"--check-relative", "--dot-curve", "--rotation"};
    for (int m = 0; m < 3; m++)
        for (int i = 0; MODE_OPTS[m][i]; i++)
            if (!modes[m] && opt_given(&CMD, p, MODE_OPTS[m][i]))
                return opt_usage_error(&CMD, "%s belongs to %s", MODE_OPTS[m][i], MODE_NAMES[m]);
    return 0;
}

int cmd_rope(int argc, char **argv)
{
    rope_opts o = {.dim = 768, .base = 10000.0, .max_pos = 4096, .pairs = 10000, .seed = 1,
                   .to = 512, .samples = 100, .len = 64};
    opt_parsed p;
    int r = opt_parse(&CMD, argc, argv, &o, &p);
    int given_fmt = r ? 0 : opt_given(&CMD, &p, "--format");
    if (r || out_pick_format(&CMD, o.out, FORMATS, given_fmt, &o.fmt) || check(&o, &p)) {
        opt_free(&p);
        return r ? opt_exit(r) : EXIT_USAGE;
    }
    if (!opt_given(&CMD, &p, "--pair"))
        o.pair = o.dim / 8;   /* the pair the sinusoidal figures show (GPT2EMBED_PAIR_DEFAULT) */
    opt_free(&p);
    o.numeric = !o.plot || given_fmt || o.out;
    int mode = o.check ? GPT2EMBED_ROPE_CHECK_RELATIVE : o.curve ? GPT2EMBED_ROPE_DOT_CURVE
             : o.rotation ? GPT2EMBED_ROPE_ROTATION : GPT2EMBED_ROPE_SCHEMES;
    int rc = 0;
    if (o.numeric && o.fmt == TBL_JSON) {   /* then the figure alone, if asked */
        rc = emit_doc(&o, mode);
        o.numeric = 0;
        if (rc || !o.plot)
            return rc ? EXIT_ERR : EXIT_OK;
    }
    rc = o.check ? emit_check(&o) : o.curve ? emit_curve(&o) : o.rotation ? emit_rotation(&o)
                                                                          : emit_schemes(&o);
    return rc ? EXIT_ERR : EXIT_OK;
}
