/* SPDX-License-Identifier: MIT */
/* charcost.c — the tokens each character costs (see charcost.h).
 *
 * One walk over the characters with a cursor on the tokens (both in text order); distinct
 * characters are found through an open-addressing table keyed by their bytes and length.
 * Hand-written: no library here does "which token bytes fall in which character", and the
 * table is twenty lines. */
#include "charcost.h"
#include "text.h"

#include <stdlib.h>
#include <string.h>

typedef struct cc_map {
    size_t *slot;       /* row index + 1, 0 empty */
    size_t cap;         /* power of two */
    charcost_row *rows;
    size_t n, rows_cap;
} cc_map;

static uint64_t key_of(const char *s, size_t k)
{
    uint64_t v = k;
    for (size_t i = 0; i < k; i++)
        v = v << 8 | (unsigned char)s[i];
    return v;
}

static size_t hash_of(uint64_t key)
{
    key *= 0x9E3779B97F4A7C15ull;
    return (size_t)(key ^ key >> 29);
}

static int cc_grow(cc_map *m)
{
    size_t cap = m->cap ? m->cap * 2 : 256;
    size_t *slot = calloc(cap, sizeof *slot);
    if (!slot)
        return -1;
    for (size_t r = 0; r < m->n; r++) {
        size_t h = hash_of(key_of(m->rows[r].bytes, m->rows[r].n_bytes)) & (cap - 1);
        while (slot[h])
            h = (h + 1) & (cap - 1);
        slot[h] = r + 1;
    }
    free(m->slot);
    m->slot = slot;
    m->cap = cap;
    return 0;
}

/* Adds one occurrence of text[pos, pos + k) costing c tokens. */
static int cc_add(cc_map *m, const char *text, size_t pos, size_t k, int32_t cp, double c)
{
    if (2 * (m->n + 1) > m->cap && cc_grow(m))
        return -1;
    uint64_t key = key_of(text + pos, k);
    size_t h = hash_of(key) & (m->cap - 1);
    for (; m->slot[h]; h = (h + 1) & (m->cap - 1)) {
        charcost_row *r = &m->rows[m->slot[h] - 1];
        if (key_of(r->bytes, r->n_bytes) == key) {
            r->count++;
            r->tokens += c;
            return 0;
        }
    }
    if (m->n == m->rows_cap) {
        size_t nc = m->rows_cap ? m->rows_cap * 2 : 64;
        charcost_row *nr = realloc(m->rows, nc * sizeof *nr);
        if (!nr)
            return -1;
        m->rows = nr;
        m->rows_cap = nc;
    }
    charcost_row *r = &m->rows[m->n];
    memset(r, 0, sizeof *r);
    memcpy(r->bytes, text + pos, k);
    r->n_bytes = (uint8_t)k;
    r->code_point = cp;
    r->first = pos;
    r->count = 1;
    r->tokens = c;
    m->slot[h] = ++m->n;
    return 0;
}

static int cmp_rows(const void *pa, const void *pb)
{
    const charcost_row *a = pa, *b = pb;
    if (a->tokens != b->tokens)
        return a->tokens > b->tokens ? -1 : 1;
    double ua = a->tokens / (double)a->count, ub = b->tokens / (double)b->count;
    if (ua != ub)
        return ua > ub ? -1 : 1;
    return a->first < b->first ? -1 : a->first > b->first;
}

/* The cost of the character text[s, e): the tokens from *t on that overlap it. */
static double cost_of(const size_t *offsets, size_t n, size_t *t, size_t s, size_t e)
{
    while (*t < n && offsets[*t + 1] <= s)
        (*t)++;
    double c = 0;
    for (size_t u = *t; u < n && offsets[u] < e; u++) {
        size_t a = offsets[u], b = offsets[u + 1];
        size_t lo = a > s ? a : s, hi = b < e ? b : e;
        if (b > a && hi > lo)
            c += (double)(hi - lo) / (double)(b - a);
    }
    return c;
}

int charcost_compute(const char *text, size_t len, const size_t *offsets, size_t n,
                     charcost_row **rows, size_t *n_rows, g2e_err *err)
{
    *rows = NULL;
    *n_rows = 0;
    if ((n && !offsets) || (!text && len))
        return g2e_fail(err, G2E_EINVAL, "charcost_compute: NULL argument");
    for (size_t i = 0; i < n; i++)
        if (offsets[i] > offsets[i + 1] || offsets[i + 1] > len)
            return g2e_fail(err, G2E_EINVAL, "token %zu covers bytes %zu..%zu of a %zu-byte text: "
                            "offsets must not decrease nor pass the end", i, offsets[i],
                            offsets[i + 1], len);
    cc_map m = {0};
    size_t t = 0, k;
    for (size_t pos = 0; pos < len; pos += k) {
        int32_t cp = text_step(text + pos, len - pos, &k);
        if (cc_add(&m, text, pos, k, cp, cost_of(offsets, n, &t, pos, pos + k))) {
            free(m.slot);
            free(m.rows);
            return g2e_fail(err, G2E_ENOMEM, "out of memory counting the characters of %zu bytes", len);
        }
    }
    free(m.slot);
    if (m.n)
        qsort(m.rows, m.n, sizeof *m.rows, cmp_rows);
    *rows = m.rows;
    *n_rows = m.n;
    return 0;
}
