/* SPDX-License-Identifier: MIT */
/* similarity.c — cosine similarity in double (see similarity.h).
 *
 * Speed notes. Dot products use four independent double accumulators so that the
 * compiler can keep several additions in flight and vectorise without -ffast-math (the
 * summation order is fixed by the code, not by the optimiser). The cosine matrix is a
 * Gram matrix of the normalised rows, computed in 4 x 8 register tiles over packed
 * panels; each entry still accumulates over k in order, so no reassociation is needed. Hot kernels are compiled for AVX2 and baseline x86-64 and
 * picked at run time (target_clones), since -march=native would tie the binary to this
 * machine.
 */
#include "similarity.h"
#include "sinusoid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define SIM_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define SIM_CLONES
#endif

SIM_CLONES
double sim_dot(const float *a, const float *b, size_t n)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        s0 += (double)a[i] * (double)b[i];
        s1 += (double)a[i + 1] * (double)b[i + 1];
        s2 += (double)a[i + 2] * (double)b[i + 2];
        s3 += (double)a[i + 3] * (double)b[i + 3];
    }
    for (; i < n; i++)
        s0 += (double)a[i] * (double)b[i];
    return (s0 + s1) + (s2 + s3);
}

double sim_norm(const float *a, size_t n)
{
    return sqrt(sim_dot(a, a, n));
}

/* The status of a vector of norm nrm: 0 if it has a cosine, else SIM_E_NONFINITE or
 * SIM_E_ZERO. The norm of float32 values, accumulated in double, cannot overflow
 * (3.4e38^2 * n < 1.8e308), so a non-finite norm means a NaN or an infinity among them. */
static int no_cosine(double nrm)
{
    return !isfinite(nrm) ? SIM_E_NONFINITE : nrm == 0.0 ? SIM_E_ZERO : 0;
}

int sim_cosine(const float *a, const float *b, size_t n, double *out, g2e_err *err)
{
    double na = sim_norm(a, n), nb = sim_norm(b, n);
    int ca = no_cosine(na), cb = no_cosine(nb);
    if (ca == SIM_E_ZERO)
        return g2e_fail(err, ca, "the first vector is all zeros: it has no cosine");
    if (ca)
        return g2e_fail(err, ca, "the first vector holds a NaN or an infinity: it has no cosine");
    if (cb == SIM_E_ZERO)
        return g2e_fail(err, cb, "the second vector is all zeros: it has no cosine");
    if (cb)
        return g2e_fail(err, cb, "the second vector holds a NaN or an infinity: it has no cosine");
    *out = sim_dot(a, b, n) / (na * nb);
    return 0;
}

/* The Gram kernel works on packed panels: 4 rows of A interleaved by k (a panel [C][4]) and
 * 8 rows of the other factor interleaved by k (b panel [C][8]), so both stream
 * sequentially; a 4 x 8 tile of results stays in eight 4-double vector registers. */
typedef double v4d __attribute__((vector_size(32)));

enum { MR = 4, NR = 8 };

SIM_CLONES
static void gram_tile(const double *ap, const double *bp, size_t C, double tile[MR][NR])
{
    v4d c[MR][2];
    memset(c, 0, sizeof c);
    for (size_t k = 0; k < C; k++) {
        v4d b0, b1;
        memcpy(&b0, bp + k * NR, sizeof b0);
        memcpy(&b1, bp + k * NR + 4, sizeof b1);
        for (size_t r = 0; r < MR; r++) {
            double a = ap[k * MR + r];
            v4d av = {a, a, a, a};
            c[r][0] += av * b0;
            c[r][1] += av * b1;
        }
    }
    for (size_t r = 0; r < MR; r++) {
        memcpy(&tile[r][0], &c[r][0], sizeof c[r][0]);
        memcpy(&tile[r][4], &c[r][1], sizeof c[r][1]);
    }
}

int sim_cosine_matrix(const float *X, size_t R, size_t C, double *out, g2e_err *err)
{
    if (R == 0)
        return 0;
    size_t RA = (R + NR - 1) / NR * NR;   /* rows padded to whole panels (NR is a multiple of MR) */
    if (C != 0 && RA > SIZE_MAX / sizeof(double) / C / 2)
        return g2e_fail(err, SIM_E_SHAPE, "a %zu x %zu matrix is too large", R, C);
    double *AP = calloc(RA * C, sizeof *AP);  /* panels of MR rows: [R/MR][C][MR] */
    double *BP = calloc(RA * C, sizeof *BP);  /* panels of NR rows: [R/NR][C][NR] */
    if (!AP || !BP) {
        free(AP);
        free(BP);
        return g2e_fail(err, G2E_ENOMEM, "out of memory for a %zu x %zu cosine matrix", R, R);
    }
    for (size_t i = 0; i < R; i++) {
        double nrm = sim_norm(X + i * C, C);
        int code = no_cosine(nrm);
        if (code) {
            free(AP);
            free(BP);
            if (code == SIM_E_ZERO)
                return g2e_fail(err, code, "row %zu is all zeros: it has no cosine", i);
            return g2e_fail(err, code, "row %zu holds a NaN or an infinity: it has no cosine", i);
        }
        double *a = AP + (i / MR) * C * MR + i % MR;
        double *b = BP + (i / NR) * C * NR + i % NR;
        for (size_t k = 0; k < C; k++) {
            double v = (double)X[i * C + k] / nrm;
            a[k * MR] = v;
            b[k * NR] = v;
        }
    }
    /* Tiles on or above the diagonal only; the lower triangle is mirrored afterwards. */
    double tile[MR][NR];
    for (size_t j0 = 0; j0 < R; j0 += NR) {
        for (size_t i0 = 0; i0 < R && i0 < j0 + NR; i0 += MR) {
            gram_tile(AP + (i0 / MR) * C * MR, BP + (j0 / NR) * C * NR, C, tile);
            for (size_t r = 0; r < MR && i0 + r < R; r++)
                for (size_t j = 0; j < NR && j0 + j < R; j++)
                    if (j0 + j >= i0 + r)
                        out[(i0 + r) * R + j0 + j] = tile[r][j];
        }
    }
    for (size_t i = 0; i < R; i++)
        for (size_t j = 0; j < i; j++)
            out[i * R + j] = out[j * R + i];
    free(AP);
    free(BP);
    return 0;
}

void sim_by_distance(const double *M, size_t R, double *mean, double *sd)
{
    for (size_t d = 0; d < R; d++) {
        size_t n = R - d;
        double s = 0;
        for (size_t p = 0; p < n; p++)
            s += M[p * R + p + d];
        double mu = s / (double)n;
        mean[d] = mu;
        if (sd) {
            double v = 0;
            for (size_t p = 0; p < n; p++) {
                double e = M[p * R + p + d] - mu;
                v += e * e;
            }
            sd[d] = sqrt(v / (double)n);
        }
    }
}

/* Keeps hits[0..*n) sorted by descending cosine (ties: lower ID first); inserts h if it
 * belongs among the best k. */
static void top_insert(sim_hit *hits, size_t *n, size_t k, sim_hit h)
{
    if (*n == k && !(h.cos > hits[k - 1].cos))
        return;
    size_t i = *n < k ? (*n)++ : k - 1;
    while (i > 0 && h.cos > hits[i - 1].cos) {
        hits[i] = hits[i - 1];
        i--;
    }
    hits[i] = h;
}

int sim_nearest(const g2e_model *m, const float *q, size_t k, uint32_t exclude, sim_hit *hits,
                size_t *n_hits, g2e_err *err)
{
    size_t C = m->n_embd;
    if (k == 0 || k > m->n_vocab)
        return g2e_fail(err, SIM_E_RANGE, "k must be from 1 to %zu, got %zu", m->n_vocab, k);
    double nq = sim_norm(q, C);
    int code = no_cosine(nq);
    if (code == SIM_E_ZERO)
        return g2e_fail(err, code, "the query vector is all zeros: it has no cosine");
    if (code)
        return g2e_fail(err, code, "the query vector holds a NaN or an infinity: it has no cosine");
    float *row = malloc(C * sizeof *row);
    if (!row)
        return g2e_fail(err, G2E_ENOMEM, "out of memory");
    size_t n = 0;
    int rc = 0;
    for (size_t id = 0; id < m->n_vocab; id++) {
        if (id == exclude)
            continue;
        if ((rc = model_wte_row(m, id, row, err)))
            break;
        double nr = sim_norm(row, C);
        if (nr == 0.0 || !isfinite(nr))
            continue;   /* no cosine (similarity.h) */
        sim_hit h = {(uint32_t)id, sim_dot(q, row, C) / (nq * nr)};
        top_insert(hits, &n, k, h);
    }
    free(row);
    *n_hits = n;
    return rc;
}

int sim_stats_of(const g2e_model *m, int which, sim_stats *out, g2e_err *err)
{
    size_t R = which ? m->n_ctx : m->n_vocab, C = m->n_embd;
    memset(out, 0, sizeof *out);
    out->rows = R;
    out->cols = C;
    float *row = malloc(C * sizeof *row);
    if (!row)
        return g2e_fail(err, G2E_ENOMEM, "out of memory");
    double sum_norm = 0, sum_abs = 0, sum = 0, sum_sq = 0;
    out->norm_min = INFINITY;
    out->norm_max = -INFINITY;
    sim_hit top[10];
    size_t n_top = 0, k = R < 10 ? R : 10;
    int rc = 0;
    for (size_t r = 0; r < R; r++) {
        rc = which ? model_wpe_row(m, r, row, err) : model_wte_row(m, r, row, err);
        if (rc)
            break;
        double s = 0, s2 = 0, sa = 0;
        for (size_t c = 0; c < C; c++) {
            double v = row[c];
            s += v;
            s2 += v * v;
            sa += fabs(v);
        }
        double nrm = sqrt(s2);
        sum_norm += nrm;
        sum_abs += sa;
        sum += s;
        sum_sq += s2;
        if (nrm < out->norm_min) { out->norm_min = nrm; out->argmin = r; }
        if (nrm > out->norm_max) { out->norm_max = nrm; out->argmax = r; }
        if (k)
            top_insert(top, &n_top, k, (sim_hit){(uint32_t)r, nrm});
    }
    free(row);
    if (rc)
        return rc;
    double N = (double)R * (double)C;
    out->norm_mean = R ? sum_norm / (double)R : 0;
    out->mean_abs = N > 0 ? sum_abs / N : 0;
    out->mean = N > 0 ? sum / N : 0;
    double var = N > 0 ? sum_sq / N - out->mean * out->mean : 0;
    out->std = var > 0 ? sqrt(var) : 0;
    out->n_top = n_top;
    for (size_t i = 0; i < n_top; i++) {
        out->top[i] = top[i].id;
        out->top_norm[i] = top[i].cos;
    }
    return 0;
}

/* ---- the learned curves (see similarity.h) ---- */

/* wpe rows 0..len-1 as float32 (len, n_embd) into a new buffer. */
static int load_wpe_rows(const g2e_model *m, size_t len, float **out, g2e_err *err)
{
    float *buf = malloc(len * m->n_embd * sizeof *buf);
    if (!buf)
        return g2e_fail(err, G2E_ENOMEM, "out of memory for wpe rows 0..%zu", len - 1);
    for (size_t p = 0; p < len; p++) {
        int rc = model_wpe_row(m, p, buf + p * m->n_embd, err);
        if (rc) {
            free(buf);
            return rc;
        }
    }
    *out = buf;
    return 0;
}

int sim_wpe_cosine_matrix(const g2e_model *m, size_t len, double **out, g2e_err *err)
{
    *out = NULL;
    if (len == 0 || len > m->n_ctx)
        return g2e_fail(err, SIM_E_RANGE, "the positions must be 0..N-1 with 1 <= N <= n_ctx (%zu), got N=%zu",
                        m->n_ctx, len);
    if (len > SIM_MAX_MATRIX_CELLS / len || m->n_embd > SIM_MAX_MATRIX_CELLS / len)
        return g2e_fail(err, SIM_E_RANGE, "a %zu x %zu cosine matrix of %zu-wide rows is more than this computes at once",
                        len, len, m->n_embd);
    float *w = NULL;
    int rc = load_wpe_rows(m, len, &w, err);
    if (rc)
        return rc;
    double *M = malloc(len * len * sizeof *M);
    if (!M) {
        free(w);
        return g2e_fail(err, G2E_ENOMEM, "out of memory for a %zu x %zu cosine matrix", len, len);
    }
    rc = sim_cosine_matrix(w, len, m->n_embd, M, err);
    free(w);
    if (rc) {
        free(M);
        return rc;
    }
    *out = M;
    return 0;
}

int sim_learned_by_distance(const g2e_model *m, size_t len, size_t max_d, double *mean,
                            double *sd, g2e_err *err)
{
    if (max_d >= len)
        return g2e_fail(err, SIM_E_RANGE, "the largest distance (%zu) must be less than N (%zu)", max_d, len);
    double *M = NULL;
    int rc = sim_wpe_cosine_matrix(m, len, &M, err);
    if (rc)
        return rc;
    double *all = malloc(2 * len * sizeof *all);
    if (!all) {
        free(M);
        return g2e_fail(err, G2E_ENOMEM, "out of memory for %zu values", 2 * len);
    }
    sim_by_distance(M, len, all, all + len);
    memcpy(mean, all, (max_d + 1) * sizeof *mean);
    if (sd)
        memcpy(sd, all + len, (max_d + 1) * sizeof *sd);
    free(all);
    free(M);
    return 0;
}

/* ---- inputs of the model and a cosine matrix's extremes (see similarity.h) ---- */

/* x = wte[id] + wpe[pos] (either may be left out, < 0), tmp a scratch row. */
static int input_row(const g2e_model *m, long long id, long long pos, float *x, float *tmp,
                     g2e_err *err)
{
    if (pos >= 0 && (uint64_t)pos >= m->n_ctx)
        return g2e_fail(err, SIM_E_RANGE, "position %zu is outside wpe, which has %zu rows (0..%zu)",
                        (size_t)pos, m->n_ctx, m->n_ctx - 1);
    if (id >= 0 && (uint64_t)id >= m->n_vocab)
        return g2e_fail(err, SIM_E_RANGE, "token ID %lld is outside wte, which has %zu rows", id,
                        m->n_vocab);
    if (id < 0)
        return pos < 0 ? g2e_fail(err, SIM_E_RANGE, "neither a token nor a position given")
                       : model_wpe_row(m, (uint64_t)pos, x, err);
    int rc = model_wte_row(m, (uint64_t)id, x, err);
    if (rc == 0 && pos >= 0 && (rc = model_wpe_row(m, (uint64_t)pos, tmp, err)) == 0)
        for (size_t c = 0; c < m->n_embd; c++)
            x[c] = x[c] + tmp[c];
    return rc;
}

int sim_input_cosine(const g2e_model *m, const long long id[2], const long long pos[2], double *out,
                     g2e_err *err)
{
    size_t C = m->n_embd;
    float *a = calloc(3 * (C ? C : 1), sizeof *a);
    if (!a)
        return g2e_fail(err, G2E_ENOMEM, "out of memory for three rows of %zu", C);
    float *b = a + C, *tmp = b + C;
    int rc = input_row(m, id[0], pos[0], a, tmp, err);
    if (rc == 0)
        rc = input_row(m, id[1], pos[1], b, tmp, err);
    if (rc == 0)
        rc = sim_cosine(a, b, C, out, err);
    free(a);
    return rc;
}

int sim_learned_and_sinusoidal(const g2e_model *m, size_t len, size_t max_d, double base,
                               double *sinus, double *learned, g2e_err *err)
{
    g2e_err e;
    int rc = sin_by_distance(len, m->n_embd, base, max_d, sinus, err);
    if (rc == 0 && (rc = sim_learned_by_distance(m, len, max_d, learned, NULL, &e)) != 0)
        g2e_fail(err, rc, "wpe: %s", e.msg);
    return rc;
}
