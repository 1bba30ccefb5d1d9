/* SPDX-License-Identifier: MIT */
/* interpret.h — what a number shows, in the chapter's terms: one line per result, printed
 * after the numbers by `exercise` and `similarity`.
 *
 * Every sentence is chosen from the numbers themselves, never fixed in advance: weights
 * whose position 500 is more like position 0 than position 1 is get the opposite sentence
 * ("not what the chapter expects"), so a learner can trust the line as much as the number.
 * Reference points: 1.0 (the same vector) and the median cosine of random pairs of rows of
 * the same matrix (reference.h), which says what "unrelated" looks like in these weights.
 *
 * Lines go to f, end with '\n', and are translated through the host's translator (err.h's
 * g2e_tr: the program's gettext domain, the Python module's catalogue, or none: English);
 * numbers are formatted with '.' whatever the language (the library never changes the
 * locale). The commands, the report and the public course calls (gpt2embed.h) say these
 * lines; the library never prints to a stream of its own.
 */
#ifndef G2E_INTERPRET_H
#define G2E_INTERPRET_H

#include <stddef.h>
#include <stdio.h>

#include "order.h"

/* The chapter's exercise 2 question: is cos(wpe[a], wpe[near]) above cos(wpe[a], wpe[far])?
 * (near < far in distance from a.) */
void interp_near_far(FILE *f, size_t a, size_t near, double c_near, size_t far, double c_far);

/* One token at two positions: cos(wte[t] + wpe[p1], wte[t] + wpe[p2]) = c, placed between
 * the median cosine of random token pairs (median, over n_pairs pairs) and 1.0. piece is the
 * token as shown in tables (e.g. "␣cat"). */
void interp_same_token(FILE *f, const char *piece, size_t p1, size_t p2, double c, double median,
                       size_t n_pairs);

/* Any cosine c of two rows of one matrix ("positions" or "tokens") beside the median of
 * random pairs of that matrix's rows. */
void interp_pair(FILE *f, const char *what, double c, double median, size_t n_pairs);

/* The order puzzle (order.h) after its table: the multiset view without and with positions,
 * why two characters share a token (when they do), the moved token, the toy self-attention
 * and the conclusion, every sentence chosen by c's numbers (c->verdict). t[0], t[1]: the
 * two texts with their tokens. Used by `compare` and by the report's order section. */
void interp_order(FILE *f, const order_cmp *c, const order_text t[2]);

#endif
