/* embed.c — lookup-and-add (see embed.h). */
#include "embed.h"

#include <math.h>
#include <stdlib.h>

size_t embed_max_positions(const g2e_model *m, embed_pe pe)
{
    return pe == EMBED_PE_SINUSOIDAL ? SIZE_MAX : m->n_ctx;
}

int embed_check(const g2e_model *m, embed_pe pe, const uint32_t *ids, size_t T, size_t start,
                g2e_err *err)
{
    for (size_t t = 0; t < T; t++)
        if (ids[t] >= m->n_vocab)
            return g2e_fail(err, EMBED_E_ID, "token ID %u at index %zu is outside the vocabulary (0..%zu)",
                            ids[t], t, m->n_vocab - 1);
    size_t max = embed_max_positions(m, pe);
    if (start > max || T > max - start)
        return g2e_fail(err, EMBED_E_CONTEXT,
                        "%zu tokens from position %zu need positions up to %zu, but wpe has only %zu rows",
                        T, start, start + T - 1, m->n_ctx);
    return 0;
}

/* The sinusoidal encoding of width D at position pos, in double then rounded to float32. */
static void sinusoid_row(size_t pos, size_t D, float *out)
{
    for (size_t i = 0; i < D; i += 2) {
        double w = pow(10000.0, -(double)i / (double)D);
        double a = (double)pos * w;
        out[i] = (float)sin(a);
        if (i + 1 < D)
            out[i + 1] = (float)cos(a);
    }
}

int embed_rows(const g2e_model *m, embed_pe pe, const uint32_t *ids, size_t T, size_t start,
               float *sum, float *tok, float *pos, g2e_err *err)
{
    int rc = embed_check(m, pe, ids, T, start, err);
    if (rc)
        return rc;
    size_t C = m->n_embd;
    float *scratch = NULL;
    if (!pos && T > 0) {
        scratch = malloc(C * sizeof *scratch);
        if (!scratch)
            return g2e_fail(err, G2E_ENOMEM, "out of memory for one row of %zu floats", C);
    }
    for (size_t t = 0; t < T; t++) {
        /* Both rows go into the caller's buffers; without tok, the sum row holds the token row. */
        float *tr = tok ? tok + t * C : sum + t * C;
        float *pr = pos ? pos + t * C : scratch;
        if ((rc = model_wte_row(m, ids[t], tr, err)))
            goto done;
        if (pe == EMBED_PE_SINUSOIDAL)
            sinusoid_row(start + t, C, pr);
        else if ((rc = model_wpe_row(m, start + t, pr, err)))
            goto done;
        float *sr = sum + t * C;
        for (size_t c = 0; c < C; c++)
            sr[c] = tr[c] + pr[c];
    }
done:
    free(scratch);
    return rc;
}

int embed_windows(size_t T, size_t W, size_t S, size_t *n_windows, g2e_err *err)
{
    if (W == 0 || S == 0 || S > W)
        return g2e_fail(err, EMBED_E_WINDOW, "windows need 1 <= stride <= window, got window %zu stride %zu", W, S);
    if (T == 0)
        *n_windows = 0;
    else if (T <= W)
        *n_windows = 1;
    else
        *n_windows = 1 + (T - W + S - 1) / S;
    return 0;
}
