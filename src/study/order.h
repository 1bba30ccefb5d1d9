/* SPDX-License-Identifier: MIT */
/* order.h — the chapter's opening puzzle in numbers: two token sequences that hold the same
 * tokens in a different order (「犬が猫を追いかけた」 / 「猫が犬を追いかけた」).
 *
 * Without positions a model sees only the multiset of token vectors; their mean (the "bag")
 * is then the same for both texts. With GPT-2's input x[t] = wte[id_t] + wpe[t] the rows at
 * each position differ, and that is where order enters. This module computes exactly those
 * facts for two ID sequences:
 *   - whether the two sequences are the same multiset of IDs;
 *   - the bag mean of each: (1/T) sum_t wte[id_t], accumulated in double over the IDs in
 *     ascending ID order and rounded once to float32, so two equal multisets give
 *     bit-identical bags (the summation order depends only on the multiset);
 *   - for every position t < min(T_a, T_b): whether the IDs agree, cos(wte[a_t], wte[b_t])
 *     and cos(x_a[t], x_b[t]) of the summed input rows (learned positions), in double.
 *
 * Deliberately left out: tokenizing (tokenizer.h), printing, sinusoidal positions.
 */
#ifndef G2E_ORDER_H
#define G2E_ORDER_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "model.h"

enum {
    ORDER_E_EMPTY = 1900,   /* one of the sequences has no tokens */
};

typedef struct order_cmp {
    size_t n_a, n_b;        /* the two lengths */
    size_t n_embd;
    int same_multiset;      /* 1: the same IDs with the same counts */
    int bags_identical;     /* 1: bag_a and bag_b are equal bit for bit */
    float *bag_a, *bag_b;   /* (n_embd) each, owned */
    double bag_cos;         /* cos(bag_a, bag_b) */
    size_t n_pos;           /* min(n_a, n_b): positions compared */
    uint8_t *same_id;       /* (n_pos): a_t == b_t, owned */
    double *tok_cos;        /* (n_pos): cos(wte[a_t], wte[b_t]), owned */
    double *input_cos;      /* (n_pos): cos(wte[a_t] + wpe[t], wte[b_t] + wpe[t]), owned */
    size_t n_differ;        /* positions whose summed input rows differ in any bit */
} order_cmp;

/* Compares a[n_a] and b[n_b] (IDs < n_vocab, lengths <= n_ctx) on model m. On success *out
 * owns its arrays (free with order_free). Errors: ORDER_E_EMPTY, EMBED_E_ID / EMBED_E_CONTEXT
 * (embed.h's checks), SIM_E_ZERO (a zero row has no cosine), G2E_ENOMEM; *out then needs no
 * free. */
int order_compare(const g2e_model *m, const uint32_t *a, size_t n_a, const uint32_t *b,
                  size_t n_b, order_cmp *out, g2e_err *err);

/* Frees what order_compare made; accepts a zeroed struct. */
void order_free(order_cmp *c);

#endif
