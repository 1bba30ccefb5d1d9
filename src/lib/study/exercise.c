/* SPDX-License-Identifier: MIT */
/* exercise.c — the chapter's two exercises as numbers (see exercise.h). */
#include "exercise.h"

#include "reference.h"
#include "similarity.h"

void ex_first_compute(uint64_t ctx, uint64_t dim, const g2e_model *m, ex_first *x)
{
    x->gpt2_params = 1024ULL * 768ULL;
    x->ctx = ctx;
    x->dim = dim;
    x->params = (unsigned long long)(ctx * dim);
    x->ratio = (double)x->params / (double)x->gpt2_params;
    x->file_wpe = m ? m->n_ctx * m->n_embd : 0;
    x->file_wte = m ? m->n_vocab * m->n_embd : 0;
}

/* cos of wpe[p] and wpe[q] (id < 0) or of wte[id] + wpe[p] and wte[id] + wpe[q]. */
static int cos_rows(const g2e_model *m, long long id, size_t p, size_t q, double *out, g2e_err *err)
{
    const long long ids[2] = {id, id}, pos[2] = {(long long)p, (long long)q};
    g2e_err e;
    int rc = sim_input_cosine(m, ids, pos, out, &e);
    if (rc == 0)
        return 0;
    if (rc != SIM_E_ZERO && rc != SIM_E_NONFINITE)
        return g2e_fail(err, rc, "%s", e.msg);
    if (id >= 0)
        return g2e_fail(err, rc, "cos(wte[%ld] + wpe[%zu], wte[%ld] + wpe[%zu]): %s", (long)id, p,
                        (long)id, q, e.msg);
    return g2e_fail(err, rc, "cos(wpe[%zu], wpe[%zu]): %s", p, q, e.msg);
}

int ex_second_compute(const g2e_model *m, uint32_t cat, ex_second *x, g2e_err *err)
{
    if (m->n_ctx < EX_NEAR_TOKEN_POS + 1)
        return g2e_fail(err, EX_E_SHORT, "exercise 2 needs at least %d positions, wpe has %zu",
                        EX_NEAR_TOKEN_POS + 1, m->n_ctx);
    if (cat >= m->n_vocab)
        return g2e_fail(err, SIM_E_RANGE, "token ID %u of \" cat\" is outside this file's wte (%zu rows)",
                        cat, m->n_vocab);
    x->cat = cat;
    x->rows = m->n_ctx;
    x->cols = m->n_embd;
    x->far = m->n_ctx > EX_FAR ? EX_FAR : m->n_ctx - 1;
    int rc = cos_rows(m, -1, 0, 1, &x->c01, err);
    if (rc == 0)
        rc = cos_rows(m, -1, 0, x->far, &x->c0far, err);
    if (rc == 0)
        rc = cos_rows(m, cat, 0, EX_NEAR_TOKEN_POS, &x->ccat, err);
    if (rc == 0 && ref_median_cosine(m, 0, REF_PAIRS, REF_SEED, &x->median, &x->n_pairs, NULL) != 0)
        x->n_pairs = 0; /* e.g. a sparse file with almost no token rows: numbers only */
    return rc;
}
