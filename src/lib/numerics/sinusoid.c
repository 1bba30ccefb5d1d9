/* SPDX-License-Identifier: MIT */
/* sinusoid.c — the fixed sinusoidal positional encoding; see sinusoid.h.
 *
 * The angle is pos / base^(2i/D), written as the formula reads (pow then divide) rather
 * than through exp(-log(base)·2i/D) as some implementations do; the two differ in the
 * last bits, and the formula is the reference the tests check against.
 */
#include "sinusoid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int sin_check_params(size_t dim, double base, g2e_err *err)
{
    if (dim == 0 || dim % 2 != 0)
        return g2e_fail(err, SIN_E_DIM, "the dimension D must be even and positive "
                        "(sin and cos fill dimensions in pairs), got %zu", dim);
    if (dim > SIN_MAX_DIM)
        return g2e_fail(err, SIN_E_DIM, "the dimension D must be at most %zu, got %zu",
                        SIN_MAX_DIM, dim);
    if (!isfinite(base) || !(base > 1.0))
        return g2e_fail(err, SIN_E_BASE, "the base must be a finite number greater than 1, got %g",
                        base);
    return 0;
}

double sin_omega(size_t i, size_t dim, double base)
{
    return 1.0 / pow(base, (double)(2 * i) / (double)dim);
}

size_t sin_demo_pair(size_t dim)
{
    return dim / 8;
}

static double denom(size_t i, size_t dim, double base)
{
    return pow(base, (double)(2 * i) / (double)dim);
}

/* One row from precomputed denominators (div NULL: compute them on the way). */
static void row_div(uint64_t pos, size_t dim, double base, const double *div, double *out)
{
    double p = (double)pos;
    for (size_t i = 0; i < dim / 2; i++) {
        double a = p / (div ? div[i] : denom(i, dim, base));
        out[2 * i] = sin(a);
        out[2 * i + 1] = cos(a);
    }
}

static void row(uint64_t pos, size_t dim, double base, double *out)
{
    row_div(pos, dim, base, NULL, out);
}

int sin_table_init(sin_table *t, size_t dim, double base, g2e_err *err)
{
    memset(t, 0, sizeof *t);
    int rc = sin_check_params(dim, base, err);
    if (rc)
        return rc;
    t->div = malloc(dim / 2 * sizeof *t->div);
    if (!t->div)
        return g2e_fail(err, G2E_ENOMEM, "out of memory for %zu denominators", dim / 2);
    for (size_t i = 0; i < dim / 2; i++)
        t->div[i] = denom(i, dim, base);
    t->dim = dim;
    t->base = base;
    return 0;
}

void sin_table_free(sin_table *t)
{
    if (!t)
        return;
    free(t->div);
    memset(t, 0, sizeof *t);
}

/* The one error for a position beyond SIN_MAX_POS. */
static int pos_too_far(uint64_t pos, g2e_err *err)
{
    return g2e_fail(err, SIN_E_LEN, "position %llu is beyond 2^53, where positions stop "
                    "being exact in double", (unsigned long long)pos);
}

int sin_table_row_f32(const sin_table *t, uint64_t pos, float *out, g2e_err *err)
{
    if (!t->div)
        return g2e_fail(err, G2E_EINVAL, "sinusoid table not initialised");
    if (pos > SIN_MAX_POS)
        return pos_too_far(pos, err);
    double p = (double)pos;
    for (size_t i = 0; i < t->dim / 2; i++) {
        double a = p / t->div[i];
        out[2 * i] = (float)sin(a);
        out[2 * i + 1] = (float)cos(a);
    }
    return 0;
}

int sin_table_row_f64(const sin_table *t, uint64_t pos, double *out, g2e_err *err)
{
    if (!t->div)
        return g2e_fail(err, G2E_EINVAL, "sinusoid table not initialised");
    if (pos > SIN_MAX_POS)
        return pos_too_far(pos, err);
    row_div(pos, t->dim, t->base, t->div, out);
    return 0;
}

int sin_row_f64(uint64_t pos, size_t dim, double base, double *out, g2e_err *err)
{
    int rc = sin_check_params(dim, base, err);
    if (rc)
        return rc;
    if (pos > SIN_MAX_POS)
        return pos_too_far(pos, err);
    row(pos, dim, base, out);
    return 0;
}

int sin_row_f32(uint64_t pos, size_t dim, double base, float *out, g2e_err *err)
{
    int rc = sin_check_params(dim, base, err);
    if (rc)
        return rc;
    if (pos > SIN_MAX_POS)
        return pos_too_far(pos, err);
    double p = (double)pos;
    for (size_t i = 0; i < dim / 2; i++) {
        double a = p / denom(i, dim, base);
        out[2 * i] = (float)sin(a);
        out[2 * i + 1] = (float)cos(a);
    }
    return 0;
}

int sin_matrix_f64(size_t len, size_t dim, double base, double *out, g2e_err *err)
{
    int rc = sin_check_params(dim, base, err);
    if (rc)
        return rc;
    if (len == 0)
        return g2e_fail(err, SIN_E_LEN, "the length N must be positive");
    if (len > SIZE_MAX / dim)
        return g2e_fail(err, SIN_E_SIZE, "a %zu x %zu matrix does not fit in memory", len, dim);
    if ((uint64_t)len - 1 > SIN_MAX_POS)
        return g2e_fail(err, SIN_E_LEN, "positions beyond 2^53 are not exact in double");
    sin_table t;
    if ((rc = sin_table_init(&t, dim, base, err)))
        return rc;
    for (size_t p = 0; p < len; p++)
        row_div(p, dim, base, t.div, out + p * dim);
    sin_table_free(&t);
    return 0;
}

int sin_dot_curve(uint64_t from, uint64_t to, size_t dim, double base, double *out, g2e_err *err)
{
    int rc = sin_check_params(dim, base, err);
    if (rc)
        return rc;
    if (from > to)
        return g2e_fail(err, SIN_E_LEN, "the range is empty: from %llu is after to %llu",
                        (unsigned long long)from, (unsigned long long)to);
    if (to > SIN_MAX_POS)
        return g2e_fail(err, SIN_E_LEN, "position %llu is beyond 2^53", (unsigned long long)to);
    double steps = ((double)(to - from) + 1.0) * (double)dim;
    if (steps > 4294967296.0)
        return g2e_fail(err, SIN_E_SIZE, "%llu positions x D=%zu is %.3g values; the limit is 2^32",
                        (unsigned long long)(to - from) + 1, dim, steps);
    sin_table t;
    if ((rc = sin_table_init(&t, dim, base, err)))
        return rc;
    double *p0 = malloc(2 * dim * sizeof *p0);
    if (!p0) {
        sin_table_free(&t);
        return g2e_fail(err, G2E_ENOMEM, "out of memory for two rows of %zu", dim);
    }
    double *pp = p0 + dim;
    row_div(0, dim, base, t.div, p0);
    for (uint64_t pos = from;; pos++) {
        row_div(pos, dim, base, t.div, pp);
        double s = 0.0;
        for (size_t j = 0; j < dim; j++)
            s += p0[j] * pp[j];
        out[pos - from] = s;
        if (pos == to)
            break;
    }
    free(p0);
    sin_table_free(&t);
    return 0;
}

int sin_check_rotation(size_t dim, double base, uint64_t n_pos, uint64_t n_k, double *max_err,
                       uint64_t *at_pos, uint64_t *at_k, size_t *at_i, g2e_err *err)
{
    int rc = sin_check_params(dim, base, err);
    if (rc)
        return rc;
    if (n_pos == 0 || n_k == 0)
        return g2e_fail(err, SIN_E_LEN, "the grid is empty (%llu positions, %llu offsets)",
                        (unsigned long long)n_pos, (unsigned long long)n_k);
    if (n_pos > SIN_MAX_POS || n_k > SIN_MAX_POS - n_pos)
        return g2e_fail(err, SIN_E_LEN, "the grid reaches beyond position 2^53");
    /* bounded so that a typo cannot run for hours (2^32 pair checks: about a minute) */
    double steps = (double)n_pos * (double)n_k * (double)(dim / 2);
    if (steps > 4294967296.0)
        return g2e_fail(err, SIN_E_SIZE, "a grid of %llu positions x %llu offsets x %zu pairs "
                        "is %.3g checks; the limit is 2^32", (unsigned long long)n_pos,
                        (unsigned long long)n_k, dim / 2, steps);
    sin_table t;
    if ((rc = sin_table_init(&t, dim, base, err)))
        return rc;
    double *a = malloc(2 * dim * sizeof *a);
    if (!a) {
        sin_table_free(&t);
        return g2e_fail(err, G2E_ENOMEM, "out of memory for two rows of %zu", dim);
    }
    double *b = a + dim;
    double worst = 0.0;
    uint64_t wp = 0, wk = 0;
    size_t wi = 0;
    for (uint64_t pos = 0; pos < n_pos; pos++) {
        row_div(pos, dim, base, t.div, a);
        for (uint64_t k = 0; k < n_k; k++) {
            row_div(pos + k, dim, base, t.div, b);
            for (size_t i = 0; i < dim / 2; i++) {
                double th = (double)k / t.div[i];   /* ω_i·k, ω_i = 1 / base^(2i/D) */
                double c = cos(th), s = sin(th);
                double rs = a[2 * i] * c + a[2 * i + 1] * s;
                double rc2 = a[2 * i + 1] * c - a[2 * i] * s;
                double e = fmax(fabs(rs - b[2 * i]), fabs(rc2 - b[2 * i + 1]));
                if (e > worst || isnan(e)) {
                    worst = isnan(e) ? INFINITY : e;
                    wp = pos, wk = k, wi = i;
                }
            }
        }
    }
    free(a);
    sin_table_free(&t);
    *max_err = worst;
    if (at_pos) *at_pos = wp;
    if (at_k) *at_k = wk;
    if (at_i) *at_i = wi;
    return 0;
}

int sin_by_distance(size_t len, size_t dim, double base, size_t max_d, double *out, g2e_err *err)
{
    int rc = sin_check_params(dim, base, err);
    if (rc)
        return rc;
    if (len == 0)
        return g2e_fail(err, SIN_E_LEN, "the length N must be positive");
    if (max_d >= len)
        return g2e_fail(err, SIN_E_LEN, "the largest distance (%zu) must be less than N (%zu)",
                        max_d, len);
    if (len > SIZE_MAX / sizeof(double) / dim)
        return g2e_fail(err, SIN_E_SIZE, "a %zu x %zu matrix does not fit in memory", len, dim);
    /* steps ≈ len * (max_d+1) * dim, bounded so that a typo cannot run for hours
     * (2^36 multiply-adds: well under a minute) */
    double steps = (double)len * (double)(max_d + 1) * (double)dim;
    if (steps > 68719476736.0)
        return g2e_fail(err, SIN_E_SIZE, "N=%zu, max distance %zu and D=%zu need %.3g steps; "
                        "the limit is 2^36", len, max_d, dim, steps);
    double *m = malloc(len * dim * sizeof *m);
    double *norm = malloc(len * sizeof *norm);
    if (!m || !norm) {
        free(m);
        free(norm);
        return g2e_fail(err, G2E_ENOMEM, "out of memory for a %zu x %zu matrix", len, dim);
    }
    rc = sin_matrix_f64(len, dim, base, m, err);
    if (rc)
        goto fail;
    for (size_t p = 0; p < len; p++) {
        double s = 0.0;
        for (size_t j = 0; j < dim; j++)
            s += m[p * dim + j] * m[p * dim + j];
        norm[p] = sqrt(s);
    }
    for (size_t d = 0; d <= max_d; d++) {
        double acc = 0.0;
        for (size_t p = 0; p + d < len; p++) {
            const double *x = m + p * dim, *y = m + (p + d) * dim;
            double s = 0.0;
            for (size_t j = 0; j < dim; j++)
                s += x[j] * y[j];
            acc += s / (norm[p] * norm[p + d]);
        }
        out[d] = acc / (double)(len - d);
    }
fail:
    free(m);
    free(norm);
    return rc;
}
