/* SPDX-License-Identifier: MIT */
/* order.c — two token sequences compared with and without positions (see order.h). */
#include "order.h"

#include "embed.h"
#include "similarity.h"

#include <stdlib.h>
#include <string.h>

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

/* The mean of wte rows ids[n], summed in double in ascending ID order; sorted[n] receives the
 * sorted IDs. row and acc are scratch of n_embd each. */
static int bag_mean(const g2e_model *m, const uint32_t *ids, size_t n, uint32_t *sorted,
                    float *row, double *acc, float *bag, g2e_err *err)
{
    size_t C = m->n_embd;
    memcpy(sorted, ids, n * sizeof *ids);
    qsort(sorted, n, sizeof *sorted, cmp_u32);
    memset(acc, 0, C * sizeof *acc);
    for (size_t t = 0; t < n; t++) {
        int rc = model_wte_row(m, sorted[t], row, err);
        if (rc)
            return rc;
        for (size_t c = 0; c < C; c++)
            acc[c] += (double)row[c];
    }
    for (size_t c = 0; c < C; c++)
        bag[c] = (float)(acc[c] / (double)n);
    return 0;
}

/* Position-wise comparison of the first c->n_pos tokens of a and b. */
static int by_position(const g2e_model *m, const uint32_t *a, const uint32_t *b, order_cmp *c,
                       float *scratch, g2e_err *err)
{
    size_t C = m->n_embd;
    float *xa = scratch, *xb = scratch + C, *ta = scratch + 2 * C, *tb = scratch + 3 * C;
    embed_ctx ec;
    int rc = embed_init(&ec, m, EMBED_PE_LEARNED, err);
    if (rc)
        return rc;
    for (size_t t = 0; t < c->n_pos && rc == 0; t++) {
        if ((rc = embed_row(&ec, a[t], t, xa, ta, NULL, err)) ||
            (rc = embed_row(&ec, b[t], t, xb, tb, NULL, err)) ||
            (rc = sim_cosine(ta, tb, C, &c->tok_cos[t], err)) ||
            (rc = sim_cosine(xa, xb, C, &c->input_cos[t], err)))
            break;
        c->same_id[t] = a[t] == b[t];
        c->n_differ += memcmp(xa, xb, C * sizeof *xa) != 0;
    }
    embed_free(&ec);
    return rc;
}

int order_compare(const g2e_model *m, const uint32_t *a, size_t n_a, const uint32_t *b,
                  size_t n_b, order_cmp *out, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    if (n_a == 0 || n_b == 0)
        return g2e_fail(err, ORDER_E_EMPTY, "nothing to compare: text %s has no tokens",
                        n_a == 0 ? "A" : "B");
    int rc;
    if ((rc = embed_check(m, EMBED_PE_LEARNED, a, n_a, 0, err)) ||
        (rc = embed_check(m, EMBED_PE_LEARNED, b, n_b, 0, err)))
        return rc;
    size_t C = m->n_embd, nmax = n_a > n_b ? n_a : n_b;
    order_cmp c = {.n_a = n_a, .n_b = n_b, .n_embd = C, .n_pos = n_a < n_b ? n_a : n_b};
    uint32_t *sa = malloc(nmax * sizeof *sa), *sb = malloc(nmax * sizeof *sb);
    float *scratch = malloc(4 * C * sizeof *scratch);
    double *acc = malloc(C * sizeof *acc);
    c.bag_a = malloc(C * sizeof *c.bag_a);
    c.bag_b = malloc(C * sizeof *c.bag_b);
    c.same_id = malloc(c.n_pos);
    c.tok_cos = malloc(c.n_pos * sizeof *c.tok_cos);
    c.input_cos = malloc(c.n_pos * sizeof *c.input_cos);
    if (!sa || !sb || !scratch || !acc || !c.bag_a || !c.bag_b || !c.same_id || !c.tok_cos ||
        !c.input_cos) {
        rc = g2e_fail(err, G2E_ENOMEM, "out of memory comparing %zu and %zu tokens", n_a, n_b);
        goto done;
    }
    if ((rc = bag_mean(m, a, n_a, sa, scratch, acc, c.bag_a, err)) ||
        (rc = bag_mean(m, b, n_b, sb, scratch, acc, c.bag_b, err)))
        goto done;
    c.same_multiset = n_a == n_b && memcmp(sa, sb, n_a * sizeof *sa) == 0;
    c.bags_identical = memcmp(c.bag_a, c.bag_b, C * sizeof *c.bag_a) == 0;
    if ((rc = sim_cosine(c.bag_a, c.bag_b, C, &c.bag_cos, err)) ||
        (rc = by_position(m, a, b, &c, scratch, err)))
        goto done;
    *out = c;
    memset(&c, 0, sizeof c);
done:
    order_free(&c);
    free(sa);
    free(sb);
    free(scratch);
    free(acc);
    return rc;
}

void order_free(order_cmp *c)
{
    if (!c)
        return;
    free(c->bag_a);
    free(c->bag_b);
    free(c->same_id);
    free(c->tok_cos);
    free(c->input_cos);
    memset(c, 0, sizeof *c);
}
