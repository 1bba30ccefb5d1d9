/* SPDX-License-Identifier: MIT */
/* study.c — the numbers the study commands share (see study.h). */
#include "study.h"
#include "i18n.h"

#include "cli.h"
#include "json.h"
#include "out.h"
#include "similarity.h"
#include "sinusoid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int study_buf_open(study_buf *b)
{
    memset(b, 0, sizeof *b);
    b->f = open_memstream(&b->s, &b->len);
    if (!b->f) {
        cli_error("out of memory");
        return -1;
    }
    return 0;
}

int study_buf_close(study_buf *b, char **out)
{
    *out = NULL;
    if (!b->f)
        return -1;
    int bad = fclose(b->f) != 0;
    b->f = NULL;
    if (bad) {
        free(b->s);
        cli_error("out of memory");
        return -1;
    }
    *out = b->s;
    return 0;
}

void study_norms_free(study_norms *sn)
{
    if (sn) {
        free(sn->norm);
        memset(sn, 0, sizeof *sn);
    }
}

int study_wpe_norms(const g2e_model *m, study_norms *out)
{
    memset(out, 0, sizeof *out);
    float *wpe = NULL;
    g2e_err e;
    if (sim_load_wpe(m, &wpe, &e))
        goto fail;
    out->n = m->n_ctx;
    if (!(out->norm = malloc(out->n * sizeof *out->norm))) {
        g2e_fail(&e, G2E_ENOMEM, "out of memory for %zu norms", out->n);
        goto fail;
    }
    pca_row_norms(wpe, m->n_ctx, m->n_embd, out->norm);
    free(wpe);
    wpe = NULL;
    if (pca_norm_summarise(out->norm, out->n, STUDY_NORM_SPLIT, &out->sum, &e))
        goto fail;
    return 0;
fail:
    free(wpe);
    study_norms_free(out);
    cli_error("%s", e.msg);
    return -1;
}

/* lead (a JSON separator and key) and then v as json_write_f64 writes it. */
static void put_f64(FILE *f, const char *lead, double v)
{
    fputs(lead, f);
    json_write_f64(f, v);
}

int study_norms_text(const study_norms *sn, const char *path, char **pre_json, char **pre_table)
{
    const pca_norm_summary *s = &sn->sum;
    study_buf j, t;
    if (study_buf_open(&j))
        return -1;
    if (study_buf_open(&t)) {
        study_buf_close(&j, pre_json);
        free(*pre_json);
        return -1;
    }
    FILE *jf = j.f, *tf = t.f;
    fputs("\"weights\": ", jf);
    json_write_string(jf, path, strlen(path));
    fprintf(jf, ", \"positions\": %zu, \"norm_0\": ", sn->n);
    json_write_f64(jf, s->first);
    put_f64(jf, ", \"median_norm_1_on\": ", s->median);
    put_f64(jf, ", \"norm_0_vs_median\": ", s->first_vs_median);
    fprintf(jf, ", \"split\": %zu, \"mean_before_split\": ", s->split);
    json_write_f64(jf, s->mean_early);
    put_f64(jf, ", \"cv_before_split\": ", s->cv_early);
    put_f64(jf, ", \"mean_from_split\": ", s->mean_late);
    put_f64(jf, ", \"cv_from_split\": ", s->cv_late);
    fputs(", ", jf);
    fprintf(tf, _("Norm of every wpe row against its position (%s, %zu positions)\n"), path, sn->n);
    fprintf(tf, _("position 0: norm %.4f = %.2f x the median of positions 1..%zu (%.4f)\n"),
            s->first, s->first_vs_median, sn->n - 1, s->median);
    fprintf(tf, _("positions 1..%zu: smallest %.4f (position %zu), largest %.4f (position %zu)\n"),
            sn->n - 1, s->min, s->argmin, s->max, s->argmax);
    if (s->split > 1 && s->split < sn->n)
        fprintf(tf, _("spread (std / mean): %.2f%% over positions 1..%zu, %.2f%% over %zu..%zu\n"),
                100 * s->cv_early, s->split - 1, 100 * s->cv_late, s->split, sn->n - 1);
    fputc('\n', tf);
    if (study_buf_close(&j, pre_json) || study_buf_close(&t, pre_table)) {
        free(*pre_json);
        *pre_json = NULL;
        return -1;
    }
    return 0;
}

/* The rows as float32 (wpe, wte) or double (sinusoidal) into a new buffer. */
static int pca_rows(const study_pca_src *s, float **xf, double **xd, size_t *n, size_t *d,
                    g2e_err *e)
{
    *xf = NULL, *xd = NULL;
    if (s->of == STUDY_OF_SINUSOIDAL) {
        *n = s->len, *d = s->dim;
        if (s->len == 0 || s->dim > SIN_MAX_DIM || s->len > PCA_MAX_CELLS / (s->dim ? s->dim : 1))
            return g2e_fail(e, PCA_E_SHAPE, "a %zu x %zu sinusoidal matrix is too large", s->len,
                            s->dim);
        if (!(*xd = malloc(s->len * s->dim * sizeof **xd)))
            return g2e_fail(e, G2E_ENOMEM, "out of memory");
        return sin_matrix_f64(s->len, s->dim, s->base, *xd, e);
    }
    if (s->of == STUDY_OF_WPE) {
        *n = s->m->n_ctx, *d = s->m->n_embd;
        return sim_load_wpe(s->m, xf, e);
    }
    *n = s->n_ids ? s->n_ids : s->m->n_vocab, *d = s->m->n_embd;
    if (!(*xf = malloc(*n * *d * sizeof **xf)))
        return g2e_fail(e, G2E_ENOMEM, "out of memory for %zu rows of wte", *n);
    for (size_t i = 0; i < *n; i++) {
        int rc = model_wte_row(s->m, s->n_ids ? s->ids[i] : i, *xf + i * *d, e);
        if (rc)
            return rc;
    }
    return 0;
}

int study_pca(const study_pca_src *s, size_t k, pca_result *r, double **row_id)
{
    float *xf;
    double *xd;
    size_t n = 0, d = 0;
    g2e_err e;
    memset(r, 0, sizeof *r);
    if (row_id)
        *row_id = NULL;
    int rc = pca_rows(s, &xf, &xd, &n, &d, &e);
    size_t skip = s->of == STUDY_OF_WTE ? 0 : s->skip;
    if (rc == 0 && k > d)
        rc = g2e_fail(&e, PCA_E_SHAPE, "--keep (-k) %zu is more components than the %zu columns", k, d);
    if (rc == 0 && skip >= n)
        rc = g2e_fail(&e, PCA_E_SHAPE, "--skip %zu leaves no rows of %zu", skip, n);
    if (rc == 0)
        rc = xd ? pca_compute(xd + skip * d, n - skip, d, k, r, &e)
                : pca_compute_f32(xf + skip * d, n - skip, d, k, r, &e);
    free(xf), free(xd);
    if (rc == 0 && row_id) {
        if (!(*row_id = malloc((n - skip) * sizeof **row_id)))
            rc = g2e_fail(&e, G2E_ENOMEM, "out of memory");
        for (size_t i = 0; rc == 0 && i < n - skip; i++)
            (*row_id)[i] = s->of == STUDY_OF_WTE && s->n_ids ? (double)s->ids[i] : (double)(i + skip);
    }
    if (rc) {
        pca_free(r);
        cli_error("%s", e.msg);
        return -1;
    }
    return 0;
}

/* The three schemes, as the chapter names them (rows: property; columns: scheme). */
const char *const study_schemes[STUDY_N_SCHEME_ROWS][4] = {
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
