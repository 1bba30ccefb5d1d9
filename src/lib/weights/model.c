/* SPDX-License-Identifier: MIT */
/* model.c — the GPT-2 view of a safetensors file (see model.h).
 *
 * Only wte and wpe matter to the embedding stage; the other tensors are looked at just
 * to count transformer blocks, which is the one thing telling gpt2 from distilgpt2.
 * Deliberately left out: any use of the blocks' weights, and guessing sizes from
 * anything but shapes, block count and the "repo" metadata value.
 */
#include "model.h"
#include "models.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PREFIX "transformer."

/* Finds base or PREFIX base. Returns 0 with *t (NULL if neither) and *prefixed, or
 * MODEL_E_AMBIGUOUS if both exist. */
static int find_pair(const st_file *st, const char *base, const st_tensor **t, int *prefixed,
                     g2e_err *err)
{
    char name[64];
    snprintf(name, sizeof name, PREFIX "%s", base);
    const st_tensor *a = st_find(st, base), *b = st_find(st, name);
    if (a && b)
        return g2e_fail(err, MODEL_E_AMBIGUOUS, "both '%s' and '%s' are present: which is meant?",
                        base, name);
    *t = a ? a : b;
    *prefixed = b != NULL;
    return 0;
}

/* Blocks are "[prefix]h.N.<anything>"; returns max N + 1, 0 when there is none. */
static size_t count_blocks(const st_file *st, int prefixed)
{
    size_t plen = prefixed ? strlen(PREFIX) : 0, n = 0;
    for (size_t i = 0; i < st->n_tensors; i++) {
        const char *s = st->tensors[i].name;
        if (prefixed && strncmp(s, PREFIX, plen) != 0) continue;
        s += plen;
        if (s[0] != 'h' || s[1] != '.' || s[2] < '0' || s[2] > '9') continue;
        size_t v = 0;
        const char *p = s + 2;
        while (*p >= '0' && *p <= '9' && v < 1000000)
            v = v * 10 + (size_t)(*p++ - '0');
        if (*p != '.') continue;
        if (v + 1 > n) n = v + 1;
    }
    return n;
}

static const char *size_name(const g2e_model *m)
{
    const char *repo = m->n_layer ? NULL : st_meta_get(m->st, "repo");
    return models_match(m->n_vocab, m->n_ctx, m->n_embd, m->n_layer, repo);
}

static int check_tensor(const st_tensor *t, g2e_err *err)
{
    if (t->ndim != 2)
        return g2e_fail(err, MODEL_E_SHAPE, "'%s' has %d dimensions, expected 2 [rows, n_embd]",
                        t->name, t->ndim);
    if (t->shape[0] == 0 || t->shape[1] == 0)
        return g2e_fail(err, MODEL_E_SHAPE, "'%s' is empty: shape [%llu, %llu]", t->name,
                        (unsigned long long)t->shape[0], (unsigned long long)t->shape[1]);
    if (t->shape[0] > SIZE_MAX || t->shape[1] > SIZE_MAX)
        return g2e_fail(err, MODEL_E_SHAPE, "'%s' is too large for this machine", t->name);
    if (t->dtype != ST_F32 && t->dtype != ST_F16 && t->dtype != ST_BF16)
        return g2e_fail(err, MODEL_E_DTYPE,
                        "'%s' is %s: embeddings must be F32, F16 or BF16 to be read as float32",
                        t->name, st_dtype_name(t->dtype));
    return 0;
}

int model_from_st(g2e_model **out, st_file *st, g2e_err *err)
{
    int rc = 0;
    g2e_model *m = NULL;
    if (!out || !st) {
        rc = g2e_fail(err, G2E_EINVAL, "model_from_st: NULL argument");
        goto fail;
    }
    *out = NULL;
    m = calloc(1, sizeof *m);
    if (!m) {
        rc = g2e_fail(err, G2E_ENOMEM, "out of memory");
        goto fail;
    }
    m->st = st;
    int pe = 0, pp = 0;
    if ((rc = find_pair(st, "wte.weight", &m->wte, &pe, err))) goto fail;
    if ((rc = find_pair(st, "wpe.weight", &m->wpe, &pp, err))) goto fail;
    if (!m->wte) {
        rc = g2e_fail(err, MODEL_E_NO_WTE,
                      "no token embedding: neither 'wte.weight' nor '" PREFIX "wte.weight' is in the file (%zu tensors)",
                      st->n_tensors);
        goto fail;
    }
    if (!m->wpe) {
        rc = g2e_fail(err, MODEL_E_NO_WPE,
                      "no position embedding: neither 'wpe.weight' nor '" PREFIX "wpe.weight' is in the file (%zu tensors)",
                      st->n_tensors);
        goto fail;
    }
    if (pe != pp) {
        rc = g2e_fail(err, MODEL_E_AMBIGUOUS, "'%s' and '%s' do not share the same prefix",
                      m->wte->name, m->wpe->name);
        goto fail;
    }
    if ((rc = check_tensor(m->wte, err)) || (rc = check_tensor(m->wpe, err))) goto fail;
    if (m->wte->shape[1] != m->wpe->shape[1]) {
        rc = g2e_fail(err, MODEL_E_SHAPE,
                      "widths differ: '%s' is [%llu, %llu] but '%s' is [%llu, %llu]", m->wte->name,
                      (unsigned long long)m->wte->shape[0], (unsigned long long)m->wte->shape[1],
                      m->wpe->name, (unsigned long long)m->wpe->shape[0],
                      (unsigned long long)m->wpe->shape[1]);
        goto fail;
    }
    m->prefixed = pe;
    m->n_vocab = (size_t)m->wte->shape[0];
    m->n_ctx = (size_t)m->wpe->shape[0];
    m->n_embd = (size_t)m->wte->shape[1];
    m->n_layer = count_blocks(st, pe);
    m->size_name = size_name(m);
    *out = m;
    return 0;
fail:
    if (m) m->st = NULL;
    free(m);
    st_close(st);
    return rc;
}

int model_open(g2e_model **out, const char *path, g2e_err *err)
{
    if (!out || !path) return g2e_fail(err, G2E_EINVAL, "model_open: NULL argument");
    *out = NULL;
    st_file *st = NULL;
    /* only the header is read here, and only wte and wpe are mapped: a full GPT-2
     * checkpoint is 548 MB, its embeddings 157 MB */
    int rc = st_open_header(&st, path, err);
    if (rc) return rc; /* st_open_header's message already names the path */
    rc = model_from_st(out, st, err);
    if (rc == 0 && ((rc = st_map(st, (*out)->wte, err)) || (rc = st_map(st, (*out)->wpe, err)))) {
        model_close(*out);
        *out = NULL;
    }
    if (rc && err) {
        char msg[G2E_ERR_MSG_MAX];
        memcpy(msg, err->msg, sizeof msg);
        g2e_fail(err, rc, "%s: %s", path, msg);
        for (char *p = err->msg; *p; p++) /* one line, whatever the path holds */
            if ((unsigned char)*p < 0x20 || *p == 0x7F) *p = '?';
    }
    return rc;
}

void model_close(g2e_model *m)
{
    if (!m) return;
    st_close(m->st);
    free(m);
}

int model_wte_row(const g2e_model *m, uint64_t id, float *out, g2e_err *err)
{
    if (!m || !out) return g2e_fail(err, G2E_EINVAL, "model_wte_row: NULL argument");
    if (id >= m->n_vocab)
        return g2e_fail(err, MODEL_E_RANGE, "token id %llu is out of range (n_vocab %zu: 0..%zu)",
                        (unsigned long long)id, m->n_vocab, m->n_vocab - 1);
    return st_read_row_f32(m->st, m->wte, id, out, err);
}

int model_wpe_row(const g2e_model *m, uint64_t pos, float *out, g2e_err *err)
{
    if (!m || !out) return g2e_fail(err, G2E_EINVAL, "model_wpe_row: NULL argument");
    if (pos >= m->n_ctx)
        return g2e_fail(err, MODEL_E_RANGE,
                        "position %llu is out of range (n_ctx %zu: the context holds positions 0..%zu)",
                        (unsigned long long)pos, m->n_ctx, m->n_ctx - 1);
    return st_read_row_f32(m->st, m->wpe, pos, out, err);
}
