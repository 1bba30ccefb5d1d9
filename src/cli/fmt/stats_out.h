/* SPDX-License-Identifier: MIT */
/* stats_out.h — what `gpt2-embed stats` writes: the scale of wte and wpe side by side
 * (gpt2embed_table_stats of each).
 *
 * Table (headings translated, g2e_tr, aligned by display width): rows, mean / smallest /
 * largest row norm, mean |x|, mean x, std of x, the ratio of the mean norms, the `top`
 * largest rows (token rows with their piece made visible); then one line per matrix that
 * holds a NaN or an infinity. JSON: {"weights", "wte": {...}, "wpe": {...},
 * "norm_ratio_wte_to_wpe"}, full precision, undefined figures as null (json.h).
 */
#ifndef G2E_STATS_OUT_H
#define G2E_STATS_OUT_H

#include "gpt2embed.h"

#include <stdio.h>

/* Sets every sum-based figure of s to NaN when the matrix held a NaN or an infinity (the
 * library's min/max then describe only the other rows, which must not read as results). */
void stats_mark_undefined(gpt2embed_stats *s);

/* Writes s[0] (wte) and s[1] (wpe); tok names the largest token rows in the table (may be
 * NULL when top is 0 or json is 1). */
void stats_write(FILE *f, int json, const char *path, size_t n_embd, const gpt2embed_stats s[2],
                 size_t top, const gpt2embed_tokenizer *tok);

#endif
