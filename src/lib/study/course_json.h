/* SPDX-License-Identifier: MIT */
/* course_json.h — the course's results as JSON, written once: `exercise --format json`,
 * `compare --format json` and `sinusoidal --compare-learned --format json` print these, and
 * the public course calls (gpt2embed.h: gpt2embed_course_*) return the same documents, so
 * the program, a C user and the Python module read one set of numbers by construction.
 *
 * Numbers are written at full precision (%.17g: a double reads back bit for bit). The keys
 * are the commands' (their --help lists them). says: NULL, or the lines interpret.h chose
 * for these numbers ('\n'-separated, in the host's language), written as "says": [...] last;
 * the program's JSON never has it (machine output is the same in every language).
 *
 * Deliberately left out: computing (exercise.h, order.h, similarity.h do), files.
 */
#ifndef G2E_COURSE_JSON_H
#define G2E_COURSE_JSON_H

#include <stdint.h>
#include <stdio.h>

#include "exercise.h"
#include "model.h"
#include "order.h"

/* {"exercise1": {...}, "exercise2": {...}}: one is exercise 1 (m, when non-NULL, adds the
 * file's counts), two exercise 2 on the weights file at path; either may be NULL. */
void course_exercise_json(FILE *f, const ex_first *one, const g2e_model *m, const ex_second *two,
                          const char *path, const char *says);

/* The order puzzle: the two texts with their tokens (t[k].text holds t[k].len bytes), the
 * multiset, the verdict, both views (unmasked and causal toy attention), the moved token,
 * the per-position cosines. */
void course_order_json(FILE *f, const order_text t[2], const order_cmp *c, const char *says);

/* Learned against sinusoidal: the mean cosine of positions d apart, d = 0..max_d, over
 * positions 0..len-1, of wpe (learned) and of the sinusoidal encoding of width n_embd
 * (base); m's shape and name, the weights file at path. */
void course_by_distance_json(FILE *f, const g2e_model *m, const char *path, size_t len,
                             size_t max_d, double base, const double *sinusoidal,
                             const double *learned, const char *says);

/* The lines of text as a JSON array of strings (after a key). */
struct json_w;
void course_says_json(struct json_w *w, const char *says);

/* A member key: [v[0], ..., v[n-1]] (doubles as json_f64), and key: [first, ..., first+n-1]
 * (a table's index column), for the documents written elsewhere (api_study.c). */
void course_f64s_json(struct json_w *w, const char *key, const double *v, size_t n);
void course_count_json(struct json_w *w, const char *key, uint64_t first, size_t n);

#endif
