/* SPDX-License-Identifier: MIT */
/* rope.c — RoFormer's rotary encoding and the two measurements of rope.h. The frequencies
 * are sinusoid.c's table (one place computes base^(2i/d)); everything is double. */
#include "rope.h"
#include "sinusoid.h"

#include <float.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int params(size_t dim, double base, g2e_err *err)
{
    int rc = sin_check_params(dim, base, err);
    if (rc && err)
        err->code = rc == SIN_E_DIM ? ROPE_E_DIM : ROPE_E_BASE;
    return rc ? (rc == SIN_E_DIM ? ROPE_E_DIM : ROPE_E_BASE) : 0;
}

int rope_init(rope_table *t, size_t dim, double base, g2e_err *err)
{
    memset(t, 0, sizeof *t);
    int rc = params(dim, base, err);
    if (rc)
        return rc;
    sin_table tab;
    if ((rc = sin_table_init(&tab, dim, base, err)))
        return rc;
    t->dim = tab.dim;
    t->div = tab.div;   /* (the table's own array: rope_free frees it) */
    return 0;
}

void rope_free(rope_table *t)
{
    if (t) {
        free(t->div);
        memset(t, 0, sizeof *t);
    }
}

double rope_theta(const rope_table *t, size_t i)
{
    return 1.0 / t->div[i];
}

void rope_apply(const rope_table *t, uint64_t pos, const double *x, double *out)
{
    double p = (double)pos;
    for (size_t i = 0; i < t->dim / 2; i++) {
        double a = p / t->div[i], c = cos(a), s = sin(a);
        double u = x[2 * i], v = x[2 * i + 1];
        out[2 * i] = u * c - v * s;
        out[2 * i + 1] = u * s + v * c;
    }
}

uint64_t rope_rand_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* uniform in [-1, 1) from the top 53 bits */
static double rand_sym(uint64_t *state)
{
    return (double)(rope_rand_next(state) >> 11) * 0x1p-52 - 1.0;
}

void rope_rand_unit(uint64_t *state, size_t d, double *out)
{
    double s;
    do {
        s = 0;
        for (size_t j = 0; j < d; j++) {
            out[j] = rand_sym(state);
            s += out[j] * out[j];
        }
    } while (s == 0);
    s = 1.0 / sqrt(s);
    for (size_t j = 0; j < d; j++)
        out[j] *= s;
}

static double dot(const double *a, const double *b, size_t n)
{
    double s = 0;
    for (size_t j = 0; j < n; j++)
        s += a[j] * b[j];
    return s;
}

/* uniform in [0, max] (max + 1 may be 2^53 + 1: modulo bias is far below what matters) */
static uint64_t rand_pos(uint64_t *state, uint64_t max)
{
    return max == UINT64_MAX ? rope_rand_next(state) : rope_rand_next(state) % (max + 1);
}

int rope_check_relative(size_t dim, double base, uint64_t max_pos, size_t n_pairs, uint64_t seed,
                        rope_relative *out, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    int rc = params(dim, base, err);
    if (rc)
        return rc;
    if (n_pairs == 0 || max_pos > ROPE_MAX_POS)
        return g2e_fail(err, ROPE_E_LEN, n_pairs == 0 ? "no pairs to check"
                                                      : "positions must not pass 2^53");
    if ((double)n_pairs * (double)(dim / 2) * 3.0 > ROPE_MAX_WORK)
        return g2e_fail(err, ROPE_E_SIZE, "%zu pairs of width %zu are more than 2^32 rotations",
                        n_pairs, dim);
    rope_table t;
    if ((rc = rope_init(&t, dim, base, err)))
        return rc;
    double *q = malloc(4 * dim * sizeof *q);
    if (!q) {
        rope_free(&t);
        return g2e_fail(err, G2E_ENOMEM, "out of memory for four vectors of %zu", dim);
    }
    double *k = q + dim, *rq = k + dim, *rk = rq + dim, sum = 0;
    uint64_t st = seed;
    for (size_t p = 0; p < n_pairs; p++) {
        rope_rand_unit(&st, dim, q);
        rope_rand_unit(&st, dim, k);
        uint64_t m = rand_pos(&st, max_pos), n = rand_pos(&st, max_pos);
        rope_apply(&t, m, q, rq);
        rope_apply(&t, n, k, rk);
        double got = dot(rq, rk, dim), want;
        if (m >= n) {
            rope_apply(&t, m - n, q, rq);
            want = dot(rq, k, dim);
        } else {
            rope_apply(&t, n - m, k, rk);
            want = dot(q, rk, dim);
        }
        double dev = fabs(got - want);
        if (!(dev <= out->max_dev)) {   /* NaN too */
            out->max_dev = isnan(dev) ? INFINITY : dev;
            out->at_m = m, out->at_n = n;
        }
        sum += dev;
    }
    out->pairs = n_pairs;
    out->mean_dev = sum / (double)n_pairs;
    out->rounding_bound = rope_rounding_bound(max_pos);
    out->relative = rope_relative_holds(out, max_pos);
    free(q);
    rope_free(&t);
    return 0;
}

int rope_dot_curve_check(size_t dim, double base, uint64_t from, uint64_t to, size_t n_samples,
                         g2e_err *err)
{
    int rc = params(dim, base, err);
    if (rc)
        return rc;
    if (from > to || to > ROPE_MAX_POS || n_samples == 0)
        return g2e_fail(err, ROPE_E_LEN, n_samples == 0 ? "no samples for the dot curve"
                        : "the offsets must run from <= to, up to 2^53");
    double points = (double)(to - from) + 1.0;
    if ((double)n_samples * points * (double)(dim / 2) > ROPE_MAX_WORK)
        return g2e_fail(err, ROPE_E_SIZE, "%zu samples x %.0f offsets x %zu pairs is more than "
                        "2^32 rotations", n_samples, points, dim / 2);
    return 0;
}

int rope_dot_curve(size_t dim, double base, uint64_t from, uint64_t to, size_t n_samples,
                   uint64_t seed, double *mean, double *expected, g2e_err *err)
{
    int rc = rope_dot_curve_check(dim, base, from, to, n_samples, err);
    if (rc)
        return rc;
    rope_table t;
    if ((rc = rope_init(&t, dim, base, err)))
        return rc;
    double *q = malloc(2 * dim * sizeof *q);
    if (!q) {
        rope_free(&t);
        return g2e_fail(err, G2E_ENOMEM, "out of memory for two vectors of %zu", dim);
    }
    double *rq = q + dim;
    uint64_t st = seed;
    size_t np = (size_t)(to - from) + 1;
    memset(mean, 0, np * sizeof *mean);
    for (size_t s = 0; s < n_samples; s++) {
        rope_rand_unit(&st, dim, q);
        for (size_t j = 0; j < np; j++) {
            rope_apply(&t, from + j, q, rq);
            mean[j] += dot(q, rq, dim);   /* R(0) q = q */
        }
    }
    for (size_t j = 0; j < np; j++) {
        mean[j] /= (double)n_samples;
        if (expected) {
            double e = 0, kk = (double)(from + j);
            for (size_t i = 0; i < dim / 2; i++)
                e += cos(kk / t.div[i]);
            expected[j] = 2.0 * e / (double)dim;
        }
    }
    free(q);
    rope_free(&t);
    return 0;
}

int rope_pair_path(size_t dim, double base, size_t pair, double x0, double y0, uint64_t n_pos,
                   double *x, double *y, g2e_err *err)
{
    int rc = params(dim, base, err);
    if (rc)
        return rc;
    if (pair >= dim / 2)
        return g2e_fail(err, ROPE_E_DIM, "pair %zu does not exist in width %zu (pairs 0..%zu)",
                        pair, dim, dim / 2 - 1);
    if (n_pos == 0 || n_pos > ROPE_MAX_POS)
        return g2e_fail(err, ROPE_E_LEN, "the path needs 1..2^53 positions");
    rope_table t;
    if ((rc = rope_init(&t, dim, base, err)))
        return rc;
    double div = t.div[pair];
    rope_free(&t);
    for (uint64_t p = 0; p < n_pos; p++) {
        double a = (double)p / div, c = cos(a), s = sin(a);
        x[p] = x0 * c - y0 * s;
        y[p] = x0 * s + y0 * c;
    }
    return 0;
}

double rope_rounding_bound(uint64_t max_pos)
{
    return 16.0 * DBL_EPSILON * ((double)max_pos + 1.0);
}

int rope_relative_holds(const rope_relative *r, uint64_t max_pos)
{
    return r->max_dev <= rope_rounding_bound(max_pos);
}

#ifndef N_
#define N_(s) s
#endif

/* The three schemes, as the chapter names them (rows: property; columns: scheme). */
const char *const rope_schemes[ROPE_N_SCHEME_ROWS][4] = {
    {"", N_("learned absolute (GPT-2)"), N_("sinusoidal absolute"), N_("rotary relative (RoPE)")},
    {N_("how it enters"), N_("added to the token vector"), N_("added to the token vector"),
     N_("multiplies (rotates) q and k in every attention layer")},
    {N_("parameters"), N_("n_ctx x d (GPT-2: 1024 x 768 = 786,432)"), N_("none (a formula)"), N_("none (a formula)")},
    {N_("hard length limit"), N_("yes: n_ctx rows (1024)"), N_("no (positions never trained on are untested)"),
     N_("no (quality past the trained length is not promised)")},
    {N_("score q.k depends on"), N_("both absolute positions (whatever was learned)"),
     N_("both: PE(m).PE(n) alone depends on m - n, the token cross terms do not"),
     N_("only m - n: <R(m)q, R(n)k> = <R(m-n)q, k>")},
};
