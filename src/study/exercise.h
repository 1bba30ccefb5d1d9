/* SPDX-License-Identifier: MIT */
/* exercise.h — the numbers of the chapter's two exercises on position embeddings, from the
 * library's own pieces (similarity.h, reference.h), so that `gpt2-embed exercise`, the
 * Python module and the tests compute them one way.
 *
 *   1: the parameters of a position-embedding matrix, GPT-2's 1024 x 768 against N x D, their
 *      ratio, and (with a model) the sizes of the file's wpe and wte;
 *   2: wpe's shape, cos(wpe[0], wpe[1]), cos(wpe[0], wpe[500]), and for the token " cat"
 *      cos(wte[cat] + wpe[0], wte[cat] + wpe[5]) beside the median cosine of random token
 *      pairs (a fixed draw: EX_PAIRS pairs from EX_SEED).
 * Cosines are accumulated in double from float32 rows (similarity.h).
 * Deliberately left out: tokenizing " cat" (the caller passes its ID), printing.
 */
#ifndef G2E_EXERCISE_H
#define G2E_EXERCISE_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "model.h"

#define EX_PAIRS 1000
#define EX_SEED 0x677074322d656d62ULL

typedef struct ex_first {
    unsigned long long gpt2_params;   /* 1024 * 768 */
    unsigned long long params;        /* ctx * dim */
    double ratio;                     /* params / gpt2_params */
    size_t file_wpe, file_wte;        /* with a model: n_ctx * n_embd, n_vocab * n_embd (else 0) */
} ex_first;

/* Exercise 1 for an N x D matrix (ctx, dim >= 1, ctx * dim < 2^64); m may be NULL. */
void ex_first_compute(uint64_t ctx, uint64_t dim, const g2e_model *m, ex_first *x);

typedef struct ex_second {
    size_t rows, cols;                /* wpe's shape */
    double c01, c0500, ccat;          /* the three cosines */
    uint32_t cat;                     /* the token ID of " cat" given */
    double median;                    /* median cosine of random token pairs */
    size_t n_pairs;                   /* pairs behind it; 0: none could be drawn */
} ex_second;

/* Exercise 2 on m, with cat the ID of " cat". Errors: SIM_E_RANGE "token ID C of \" cat\" is
 * outside this file's wte (N rows)" or a position beyond wpe; a zero or non-finite row as
 * "cos(wpe[0], wpe[1]): ..." (which cosine, then why); the model's row errors. A median that
 * cannot be drawn (a sparse file) is no error: n_pairs is 0. *x is complete only on 0. */
int ex_second_compute(const g2e_model *m, uint32_t cat, ex_second *x, g2e_err *err);

#endif
