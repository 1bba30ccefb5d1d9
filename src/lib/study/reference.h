/* SPDX-License-Identifier: MIT */
/* reference.h — reference points for reading a cosine: what "typical" looks like.
 *
 * A cosine of 0.3 between two token vectors means little on its own; beside the median
 * cosine of random pairs of rows of the same matrix it says whether the pair is unusually
 * alike. This module draws pairs of distinct rows with a fixed generator (splitmix64 from a
 * given seed, so the figure is the same on every run and machine), skips rows whose norm is
 * 0 (sparse fixtures, never real weights), and returns the median of their cosines
 * (accumulated in double, similarity.h).
 *
 * Deliberately left out: printing, and any claim about the full distribution (only the
 * median and the count of pairs used are returned).
 */
#ifndef G2E_REFERENCE_H
#define G2E_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "model.h"

/* Status codes of this module and the public status each is reported as (err.h). */
#define REF_CODES(X) X(REF_E_FEW_ROWS, ZERO_VECTOR) /* fewer than two rows with a non-zero norm were found */
G2E_CODES(REF, REF_CODES);

/* The course's reference draw: every median the program, the report and the Python module
 * print beside a cosine (exercise 2, similarity) is over REF_PAIRS pairs drawn from REF_SEED
 * (the bytes of "gpt2-emb"), so they are one number wherever they appear. */
#define REF_PAIRS 1000
#define REF_SEED 0x677074322d656d62ULL

/* The median cosine of up to n_pairs random pairs of distinct rows of wte (which = 0) or wpe
 * (which = 1), drawn from seed. *used receives the number of pairs that counted (pairs with a
 * zero row are skipped; the draw stops after 4 * n_pairs attempts). Errors: REF_E_FEW_ROWS
 * when no pair counted, G2E_EINVAL for n_pairs 0, G2E_ENOMEM, the model's row errors. */
int ref_median_cosine(const g2e_model *m, int which, size_t n_pairs, uint64_t seed,
                      double *median, size_t *used, g2e_err *err);

#endif
