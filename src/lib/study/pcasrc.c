/* SPDX-License-Identifier: MIT */
/* pcasrc.c — the matrices gpt2embed_pca takes apart, and wpe's row norms (see pcasrc.h). */
#include "pcasrc.h"

#include "sinusoid.h"

#include <stdlib.h>
#include <string.h>

void pcasrc_norms_free(pcasrc_norms *sn)
{
    if (sn) {
        free(sn->norm);
        memset(sn, 0, sizeof *sn);
    }
}

/* rows [first, first + n) of wte (wte 1) or wpe of m as float32 into a new array *out. */
static int load_rows(const g2e_model *m, int wte, size_t first, size_t n, float **out, g2e_err *err)
{
    size_t C = m->n_embd;
    if (!(*out = malloc((n ? n : 1) * C * sizeof **out)))
        return g2e_fail(err, G2E_ENOMEM, "out of memory for %zu values", n * C);
    for (size_t i = 0; i < n; i++) {
        int rc = wte ? model_wte_row(m, first + i, *out + i * C, err)
                     : model_wpe_row(m, first + i, *out + i * C, err);
        if (rc) {
            free(*out);
            *out = NULL;
            return rc;
        }
    }
    return 0;
}

int pcasrc_wpe_norms(const g2e_model *m, pcasrc_norms *out, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    float *wpe = NULL;
    size_t N = m->n_ctx, C = m->n_embd;
    int rc = load_rows(m, 0, 0, N, &wpe, err);
    if (rc)
        return rc;
    out->n = N;
    if (!(out->norm = malloc(out->n * sizeof *out->norm)))
        rc = g2e_fail(err, G2E_ENOMEM, "out of memory for %zu norms", out->n);
    else
        pca_row_norms(wpe, N, C, out->norm);
    free(wpe);
    if (rc == 0)
        rc = pca_norm_summarise(out->norm, out->n, PCASRC_NORM_SPLIT, &out->sum, err);
    if (rc)
        pcasrc_norms_free(out);
    return rc;
}

/* The rows as float32 (wpe, wte) or double (sinusoidal) into a new buffer. */
static int rows(const pcasrc_spec *s, float **xf, double **xd, size_t *n, size_t *d, size_t *bad,
                g2e_err *e)
{
    *xf = NULL, *xd = NULL;
    if (s->of == PCASRC_SINUSOIDAL) {
        *n = s->len, *d = s->dim;
        if (s->len == 0 || s->dim > SIN_MAX_DIM || s->len > PCA_MAX_CELLS / (s->dim ? s->dim : 1))
            return g2e_fail(e, PCA_E_SHAPE, "a %zu x %zu sinusoidal matrix is too large", s->len,
                            s->dim);
        if (!(*xd = malloc(s->len * s->dim * sizeof **xd)))
            return g2e_fail(e, G2E_ENOMEM, "out of memory");
        return sin_matrix_f64(s->len, s->dim, s->base, *xd, e);
    }
    *d = s->m->n_embd;
    if (s->of == PCASRC_WPE) {
        *n = s->m->n_ctx;
        return load_rows(s->m, 0, 0, *n, xf, e);
    }
    if (!s->n_ids) {
        *n = s->m->n_vocab;
        return load_rows(s->m, 1, 0, *n, xf, e);
    }
    *n = s->n_ids;
    if (*n > PCA_MAX_CELLS / *d)
        return g2e_fail(e, PCA_E_SHAPE, "%zu rows of %zu are more than %zu values", *n, *d, PCA_MAX_CELLS);
    if (!(*xf = malloc(*n * *d * sizeof **xf)))
        return g2e_fail(e, G2E_ENOMEM, "out of memory for %zu rows of wte", *n);
    for (size_t i = 0; i < *n; i++) {
        int rc = model_wte_row(s->m, s->ids[i], *xf + i * *d, e);
        if (rc) {
            *bad = i;
            return rc;
        }
    }
    return 0;
}

int pcasrc_pca(const pcasrc_spec *s, size_t k, pca_result *r, double **row_id, size_t *bad_index,
               g2e_err *e)
{
    float *xf;
    double *xd;
    size_t n = 0, d = 0, bad = (size_t)-1;
    memset(r, 0, sizeof *r);
    if (row_id)
        *row_id = NULL;
    int rc = rows(s, &xf, &xd, &n, &d, &bad, e);
    if (bad_index)
        *bad_index = bad;
    size_t skip = s->of == PCASRC_WTE ? 0 : s->skip;
    if (rc == 0 && k > d)
        rc = g2e_fail(e, PCA_E_SHAPE, "%zu components asked of %zu columns", k, d);
    if (rc == 0 && skip >= n)
        rc = g2e_fail(e, PCA_E_SHAPE, "skipping %zu positions leaves no rows of %zu", skip, n);
    if (rc == 0)
        rc = xd ? pca_compute(xd + skip * d, n - skip, d, k, r, e)
                : pca_compute_f32(xf + skip * d, n - skip, d, k, r, e);
    free(xf), free(xd);
    if (rc == 0 && row_id) {
        if (!(*row_id = malloc((n - skip) * sizeof **row_id)))
            rc = g2e_fail(e, G2E_ENOMEM, "out of memory");
        for (size_t i = 0; rc == 0 && i < n - skip; i++)
            (*row_id)[i] = s->of == PCASRC_WTE && s->n_ids ? (double)s->ids[i] : (double)(i + skip);
    }
    if (rc)
        pca_free(r);
    return rc;
}
