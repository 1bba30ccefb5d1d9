/* SPDX-License-Identifier: MIT */
/* embed.c — lookup-and-add (see embed.h). */
#include "embed.h"

#include "sinusoid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The number of positions the scheme allows: n_ctx for learned, SIN_MAX_POS for sinusoidal
 * (the encoding's exactness bound, 2^53). */
static size_t max_positions(const g2e_model *m, embed_pe pe)
{
    return pe == EMBED_PE_SINUSOIDAL ? (size_t)SIN_MAX_POS : m->n_ctx;
}

/* Every ID against n_vocab (EMBED_E_ID names the first bad one and its index). */
static int check_ids(const g2e_model *m, const uint32_t *ids, size_t T, g2e_err *err)
{
    for (size_t t = 0; t < T; t++)
        if (ids[t] >= m->n_vocab)
            return g2e_fail(err, EMBED_E_ID, "token ID %u at index %zu is outside the vocabulary (0..%zu)",
                            ids[t], t, m->n_vocab - 1);
    return 0;
}

int embed_check(const g2e_model *m, embed_pe pe, const uint32_t *ids, size_t T, size_t start,
                g2e_err *err)
{
    int rc = check_ids(m, ids, T, err);
    if (rc)
        return rc;
    size_t max = max_positions(m, pe);
    if (start > max || T > max - start) {
        if (pe == EMBED_PE_SINUSOIDAL)
            return g2e_fail(err, EMBED_E_CONTEXT,
                            "%zu tokens from position %zu need positions up to %zu, but the sinusoidal "
                            "encoding is exact only for positions 0..%zu (2^53 - 1)",
                            T, start, start + T - 1, max - 1);
        return g2e_fail(err, EMBED_E_CONTEXT,
                        "%zu tokens from position %zu need positions up to %zu, but wpe has only %zu rows",
                        T, start, start + T - 1, m->n_ctx);
    }
    return 0;
}

int embed_init(embed_ctx *c, const g2e_model *m, embed_pe pe, g2e_err *err)
{
    c->m = m;
    c->pe = pe;
    c->tab = (sin_table){0};
    c->pe_scale = 1.0;
    if (pe == EMBED_PE_SINUSOIDAL)
        return sin_table_init(&c->tab, m->n_embd, SIN_DEFAULT_BASE, err);
    return 0;
}

int embed_set_pe_scale(embed_ctx *c, double s, g2e_err *err)
{
    if (c->pe != EMBED_PE_SINUSOIDAL)
        return g2e_fail(err, EMBED_E_SCALE, "a position scale applies to the sinusoidal encoding "
                        "only; learned positions are wpe's rows as trained");
    if (!isfinite(s) || !(s > 0) || s > EMBED_MAX_PE_SCALE)
        return g2e_fail(err, EMBED_E_SCALE, "the position scale must be a number greater than 0 "
                        "and at most %g, got %g", EMBED_MAX_PE_SCALE, s);
    c->pe_scale = s;
    return 0;
}

/* s * PE(position) into pr[C]: each sine or cosine (double) times s, rounded once. */
static int scaled_sin_row(const embed_ctx *c, size_t position, float *pr, g2e_err *err)
{
    size_t C = c->m->n_embd;
    double stack[2048], *d = C <= 2048 ? stack : malloc(C * sizeof *d);
    if (!d)
        return g2e_fail(err, G2E_ENOMEM, "out of memory for one row of %zu doubles", C);
    int rc = sin_table_row_f64(&c->tab, position, d, err);
    for (size_t k = 0; rc == 0 && k < C; k++)
        pr[k] = (float)(d[k] * c->pe_scale);
    if (d != stack)
        free(d);
    return rc;
}

void embed_free(embed_ctx *c)
{
    if (c)
        sin_table_free(&c->tab);
}

int embed_row(const embed_ctx *c, uint32_t id, size_t position, float *sum, float *tok,
              float *pos, g2e_err *err)
{
    const g2e_model *m = c->m;
    int rc = embed_check(m, c->pe, &id, 1, position, err);
    if (rc)
        return rc;
    size_t C = m->n_embd;
    /* Without tok, the sum row holds the token row; without pos, a stack row up to 2048
     * wide (GPT-2's widest is 1600) or a heap one. */
    float stack[2048], *heap = NULL;
    float *tr = tok ? tok : sum;
    float *pr = pos;
    if (!pr) {
        if (C <= 2048) {
            pr = stack;
        } else if (!(pr = heap = malloc(C * sizeof *heap))) {
            return g2e_fail(err, G2E_ENOMEM, "out of memory for one row of %zu floats", C);
        }
    }
    if ((rc = model_wte_row(m, id, tr, err)))
        goto done;
    if (c->pe == EMBED_PE_SINUSOIDAL && c->pe_scale != 1.0)
        rc = scaled_sin_row(c, position, pr, err);
    else if (c->pe == EMBED_PE_SINUSOIDAL)
        rc = sin_table_row_f32(&c->tab, position, pr, err);
    else
        rc = model_wpe_row(m, position, pr, err);
    if (rc)
        goto done;
    for (size_t k = 0; k < C; k++)
        sum[k] = tr[k] + pr[k];
done:
    free(heap);
    return rc;
}

int embed_rows(const g2e_model *m, embed_pe pe, const uint32_t *ids, size_t T, size_t start,
               float *sum, float *tok, float *pos, g2e_err *err)
{
    int rc = embed_check(m, pe, ids, T, start, err);
    if (rc)
        return rc;
    embed_ctx c;
    if ((rc = embed_init(&c, m, pe, err)))
        return rc;
    size_t C = m->n_embd;
    for (size_t t = 0; t < T && rc == 0; t++)
        rc = embed_row(&c, ids[t], start + t, sum + t * C, tok ? tok + t * C : NULL,
                       pos ? pos + t * C : NULL, err);
    embed_free(&c);
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

int embed_window_padding(size_t T, size_t W, size_t S, size_t *padding, g2e_err *err)
{
    size_t n = 0;
    int rc = embed_windows(T, W, S, &n, err);
    if (rc)
        return rc;
    /* the last window starts at (n - 1) * S and holds min(W, T - start) tokens */
    size_t last = n ? T - (n - 1) * S : 0;
    size_t pad = n && last < W ? W - last : 0;
    if (pad > EMBED_MAX_PADDING)
        return g2e_fail(err, EMBED_E_WINDOW,
                        "a window of %zu rows over %zu tokens would add %zu rows of zero padding "
                        "(at most %zu): use a window no longer than the input",
                        W, T, pad, EMBED_MAX_PADDING);
    *padding = pad;
    return 0;
}
