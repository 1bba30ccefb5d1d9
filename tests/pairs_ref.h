/* SPDX-License-Identifier: MIT */
/* pairs_ref.h — the cosines of random row pairs recomputed from a fixture's own values, the
 * reference for the median cosine of src/study/reference.c (tests/test_reference.c, and the
 * exercise that quotes it, tests/test_exercise.c): the documented generator (splitmix64 from
 * the seed; i = next % R, then j = next % R; a pair with i == j is drawn again), each cosine
 * in double from fixture_expected. Every row of a full fixture has a non-zero norm. */
#ifndef G2E_TEST_PAIRS_REF_H
#define G2E_TEST_PAIRS_REF_H

#include "fixture.h"

#include <stddef.h>
#include <stdint.h>

/* The cosines of the first n pairs of distinct rows of wte (which = FIXTURE_WTE) or wpe, into v. */
void pairs_ref_cosines(const fixture_opts *o, int which, size_t n, uint64_t seed, double *v);
/* Their median (the mean of the middle two for an even n), sorting v in place. */
double pairs_ref_median(double *v, size_t n);

#endif
