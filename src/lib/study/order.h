/* SPDX-License-Identifier: MIT */
/* order.h — the chapter's opening puzzle in numbers: two token sequences that hold the same
 * tokens in a different order (「犬が猫を追いかけた」 / 「猫が犬を追いかけた」).
 *
 * Self-attention without a mask sees its inputs as a set: permute the input rows and its
 * outputs are the same rows permuted. So what matters is whether the two texts give the same
 * MULTISET of input vectors. This module computes, for two ID sequences A and B:
 *   - whether they are the same multiset of IDs, and the verdict derived from the numbers;
 *   - two views of the input rows, without positions (x = wte[id]) and with GPT-2's
 *     x[t] = wte[id_t] + wpe[t]: how many rows of A have a row of B equal to them bit for
 *     bit (matched one to one), and a toy self-attention layer with identity projections,
 *     Y = softmax(X Xᵀ / √d) X, run on both texts twice:
 *       unmasked (the chapter's simplification): which rows of B's output equal (within
 *       ORDER_TOL of the outputs' scale) a row of A's output, as a permutation, and by how
 *       much the others miss;
 *       causal (GPT-2's mask: row t attends to rows 0..t only): which output rows t of A and
 *       B are equal position by position. A row's context is its prefix, so without
 *       positions row t is equal wherever A and B hold the same token at t and the same
 *       multiset of tokens in 0..t (prefix_same), and differs elsewhere.
 *     The toy layer illustrates what attention can and cannot see; it is not GPT-2's
 *     trained attention (no weights, one head);
 *   - a moved token: the first token of A that stands elsewhere in B, and the cosine of its
 *     two input rows wte[id] + wpe[t] and wte[id] + wpe[s];
 *   - for every position t < min(T_a, T_b): whether the IDs agree, cos(wte[a_t], wte[b_t])
 *     and cos(x_a[t], x_b[t]) of the summed input rows, in double.
 * Every cosine is clamped into [-1, 1] (rounding can give 1.0000000000000002).
 *
 * order_shared_piece finds why two different characters share a token (犬 and 猫 both start
 * with the byte E7: token 163), from the bytes of the texts.
 *
 * Deliberately left out: tokenizing (tokenizer.h), printing, sinusoidal positions.
 */
#ifndef G2E_ORDER_H
#define G2E_ORDER_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "model.h"
#include "tokchars.h"

/* Status codes of this module and the public status each is reported as (err.h). */
#define ORDER_CODES(X) X(ORDER_E_EMPTY, ARG) /* one of the sequences has no tokens */
G2E_CODES(ORDER, ORDER_CODES);

/* Two outputs rows are "equal" when they differ by at most ORDER_TOL times the largest |x|
 * of the inputs (every output is a convex combination of input rows): rounding of sums taken
 * in another order, nothing more. */
#define ORDER_TOL 1e-9
#define ORDER_NONE ((size_t)-1)

enum { ORDER_NOPOS = 0, ORDER_POS = 1 };   /* the two views: wte only, wte + wpe */

/* What the numbers say, in this order of precedence. */
typedef enum order_verdict {
    ORDER_SAME_SEQUENCE,    /* the same IDs in the same order */
    ORDER_OTHER_TOKENS,     /* not the same multiset of IDs: not the order puzzle */
    ORDER_INDISTINGUISHABLE,/* reordered, and with positions the rows are still one multiset */
    ORDER_DISTINGUISHABLE,  /* reordered, and with positions some row of A has no equal in B */
} order_verdict;

typedef struct order_view {
    size_t n_equal;         /* rows of A with an equal row of B (bit for bit), one to one */
    size_t *perm;           /* (n_b): the row of A's toy output that B's output row s equals,
                               or ORDER_NONE; owned */
    size_t out_equal;       /* rows of B's toy output with an entry in perm */
    double out_maxdiff;     /* max |Y_B[s][c] - Y_A[perm[s]][c]| over those rows (0 if none) */
    double out_gap;         /* over the other rows of B's output: the smallest max-abs distance
                               to any row of A's output (0 when every row is matched) */
    /* the causal toy layer, compared position by position over t < n_pos: */
    uint8_t *causal_equal;  /* (n_pos): 1 when B's output row t equals A's row t; owned */
    size_t causal_n_equal;  /* how many are */
    double causal_maxdiff;  /* max |Y_B[t][c] - Y_A[t][c]| over the equal rows (0 if none) */
    double causal_gap;      /* min over the other rows of max |Y_B[t][c] - Y_A[t][c]| (0 if none) */
} order_view;

typedef struct order_cmp {
    size_t n_a, n_b;        /* the two lengths */
    size_t n_embd;
    int same_multiset;      /* 1: the same IDs with the same counts */
    order_verdict verdict;
    order_view view[2];     /* [ORDER_NOPOS], [ORDER_POS] */
    int moved;              /* 1: a token of A stands at another position in B */
    uint32_t moved_id;
    size_t moved_a, moved_b;/* its position in A and in B */
    double moved_cos;       /* cos(wte[id] + wpe[moved_a], wte[id] + wpe[moved_b]) */
    size_t n_pos;           /* min(n_a, n_b): positions compared */
    uint8_t *same_id;       /* (n_pos): a_t == b_t, owned */
    double *tok_cos;        /* (n_pos): cos(wte[a_t], wte[b_t]), owned */
    double *input_cos;      /* (n_pos): cos(wte[a_t] + wpe[t], wte[b_t] + wpe[t]), owned */
    size_t n_differ;        /* positions whose summed input rows differ in any bit */
    uint8_t *prefix_same;   /* (n_pos): a_t == b_t and a[0..t], b[0..t] are the same multiset
                               of IDs (what a causal row without positions depends on); owned */
} order_cmp;

/* Compares a[n_a] and b[n_b] (IDs < n_vocab, lengths <= n_ctx) on model m. On success *out
 * owns its arrays (free with order_free). Errors: ORDER_E_EMPTY, EMBED_E_ID / EMBED_E_CONTEXT
 * (embed.h's checks), SIM_E_ZERO / SIM_E_NONFINITE (a row without a cosine), G2E_ENOMEM;
 * *out then needs no free. O((n_a² + n_b²) n_embd) for the toy attention. */
int order_compare(const g2e_model *m, const uint32_t *a, size_t n_a, const uint32_t *b,
                  size_t n_b, order_cmp *out, g2e_err *err);

/* Frees what order_compare made; accepts a zeroed struct. */
void order_free(order_cmp *c);

/* One text's tokens with the characters behind them (tokchars.h). */
typedef struct order_text {
    const char *text;
    const uint32_t *ids;
    const tokchars_span *sp;
    size_t n;
    size_t len;             /* bytes of text (for its JSON) */
} order_text;

/* A token that is a piece of one character only (a partial character, "犬 (1/3)") whose ID
 * also stands, in x or in y, for a piece of a different character ("猫 (1/3)"): the two
 * characters hold the same bytes at the same place. On finding one returns 1 with *i the
 * token in x, *in_y 1 when the other is in y (else in x), *j the other token; else 0. */
int order_shared_piece(const order_text *x, const order_text *y, size_t *i, int *in_y, size_t *j);

#endif
