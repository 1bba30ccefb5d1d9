/* SPDX-License-Identifier: MIT */
/* charcost.h — which characters of a text cost the most tokens (`count --per-char`).
 *
 * A token of b bytes is one token spread evenly over its bytes, 1/b each; a character costs
 * what its bytes received. So a character with tokens of its own costs their number (犬 as
 * three one-byte tokens costs 3), the characters of " cat" (one token, four bytes) cost 1/4
 * each, a token that ends one character and starts the next is shared by its bytes (1 byte
 * of 犬 and the 3 of が in one 4-byte token: 1/4 and 3/4), and the costs of all characters
 * add up to the number of tokens. Per distinct character (its bytes; in lossy input each
 * maximal ill-formed subpart is one "character" of its bytes, as in tokchars.h): how often
 * it occurs, its total cost and its cost per occurrence.
 *
 * Order of the rows: total cost, largest first; equal totals by cost per occurrence, largest
 * first; then by first occurrence. Costs are sums of (bytes of the character in the token) /
 * (bytes of the token), each one correctly rounded division, added in double in text order.
 *
 * Deliberately left out: tokenizing (offsets come from tokenizer.h), grapheme clusters (a
 * character is a code point), display (the program's).
 */
#ifndef G2E_CHARCOST_H
#define G2E_CHARCOST_H

#include "../../gpt2embed.h"
#include "err.h"

#include <stddef.h>
#include <stdint.h>

/* A row: the character's bytes (n_bytes of them), its code point (-1 for an ill-formed
 * subpart), the byte offset of its first occurrence, how often it occurs, its total cost in
 * tokens. The public gpt2embed_char_cost itself (gpt2embed_char_costs hands these rows out). */
typedef gpt2embed_char_cost charcost_row;

/* The cost of every distinct character of text[0..len) given its n tokens, token i being
 * text[offsets[i], offsets[i + 1]) (n + 1 offsets, as tok_ids has). *rows receives a new
 * array of *n_rows rows in the order above (the caller frees it; NULL with *n_rows 0 for an
 * empty text). Offsets must not decrease nor pass len (G2E_EINVAL, naming the token); bytes
 * no token covers cost nothing. G2E_ENOMEM. On error *rows is NULL. O(len + n). */
int charcost_compute(const char *text, size_t len, const size_t *offsets, size_t n,
                     charcost_row **rows, size_t *n_rows, g2e_err *err);

#endif
