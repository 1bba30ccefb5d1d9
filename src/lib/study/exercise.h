/* SPDX-License-Identifier: MIT */
/* exercise.h — the numbers of the chapter's two exercises on position embeddings, from the
 * library's own pieces (similarity.h, reference.h): the one place they are computed, for
 * `gpt2-embed exercise`, the report, the public API (gpt2embed_exercise1/2) and so the
 * Python module.
 *
 *   1: the parameters of a position-embedding matrix, GPT-2's 1024 x 768 against N x D
 *      (EX_OTHER_CTX x EX_OTHER_DIM by default), their ratio, and (with a model) the sizes
 *      of the file's wpe and wte;
 *   2: wpe's shape, cos(wpe[0], wpe[1]), cos(wpe[0], wpe[far]) with far = EX_FAR (500, the
 *      chapter's) or the last position of a wpe that has no row 500, and for the token
 *      " cat" cos(wte[cat] + wpe[0], wte[cat] + wpe[5]) beside the median cosine of random
 *      token pairs (reference.h's course draw: REF_PAIRS pairs from REF_SEED).
 * Cosines are accumulated in double from float32 rows (similarity.h).
 * Deliberately left out: tokenizing " cat" (the caller passes its ID: EX_CAT's one token),
 * printing.
 */
#ifndef G2E_EXERCISE_H
#define G2E_EXERCISE_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "model.h"

#define EX_OTHER_CTX 4096        /* exercise 1's other model: 4096 positions x 4096 wide */
#define EX_OTHER_DIM 4096
#define EX_FAR 500               /* exercise 2's far position */
#define EX_NEAR_TOKEN_POS 5      /* " cat" at positions 0 and 5 */
#define EX_CAT " cat"            /* the token exercise 2 places at two positions */

/* Status codes of this module and the public status each is reported as (err.h). */
#define EX_CODES(X) X(EX_E_SHORT, CONTEXT) /* wpe has fewer than EX_NEAR_TOKEN_POS + 1 rows */
G2E_CODES(EX, EX_CODES);

typedef struct ex_first {
    unsigned long long gpt2_params;   /* 1024 * 768 */
    unsigned long long ctx, dim;      /* the other model's shape */
    unsigned long long params;        /* ctx * dim */
    double ratio;                     /* params / gpt2_params */
    size_t file_wpe, file_wte;        /* with a model: n_ctx * n_embd, n_vocab * n_embd (else 0) */
} ex_first;

/* Exercise 1 for an N x D matrix (ctx, dim >= 1, ctx * dim < 2^64); m may be NULL. */
void ex_first_compute(uint64_t ctx, uint64_t dim, const g2e_model *m, ex_first *x);

typedef struct ex_second {
    size_t rows, cols;                /* wpe's shape */
    size_t far;                       /* EX_FAR, or rows - 1 when wpe has no row EX_FAR */
    double c01, c0far, ccat;          /* cos(wpe[0], wpe[1]), cos(wpe[0], wpe[far]), " cat"'s */
    uint32_t cat;                     /* the token ID of " cat" given */
    double median;                    /* median cosine of random token pairs */
    size_t n_pairs;                   /* pairs behind it; 0: none could be drawn */
} ex_second;

/* Exercise 2 on m, with cat the ID of " cat". Errors: EX_E_SHORT "exercise 2 needs at least
 * 6 positions, wpe has N"; SIM_E_RANGE "token ID C of \" cat\" is outside this file's wte
 * (N rows)"; a zero or non-finite row as "cos(wpe[0], wpe[1]): ..." (which cosine, then
 * why); the model's row errors. A median that cannot be drawn (a sparse file) is no error:
 * n_pairs is 0. *x is complete only on 0. */
int ex_second_compute(const g2e_model *m, uint32_t cat, ex_second *x, g2e_err *err);

#endif
