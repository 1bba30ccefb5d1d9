/* SPDX-License-Identifier: MIT */
/* tokchars.h — the characters behind byte-level tokens.
 *
 * GPT-2's tokens are byte sequences: 犬 (E7 8A AC) is often three tokens, one byte each,
 * and a token may end one character and start the next. Given the input text and each
 * token's byte range, this module says, for every token, which characters of the text it
 * overlaps and which bytes of a character it holds when it holds only part of one, so
 * that every table, JSON document, CSV file and picture can show
 *     犬 (1/3)   犬 (2/3)   犬 (3/3)
 * instead of \xE7 \x8A \xAC.
 *
 * Characters are text.h's steps of the input: well-formed UTF-8 characters, and each
 * maximal subpart of ill-formed input (lossy mode) counts as one "character" whose bytes
 * are shown escaped (\xNN).
 *
 * Shares: a character of n bytes of which the token holds bytes lo..hi (1-based) is a
 * partial character when (lo, hi) != (1, n); its share is written "lo/n" when lo == hi,
 * else "lo-hi/n" ("犬 (2-3/3)").
 *
 * JSON, the same in every command (tokchars_json writes it), per token:
 *     "offset": [start, end]       the token's bytes in the input, end exclusive
 *     "chars": "犬"                 the characters it overlaps, whole, as a JSON string
 *                                   (json.h's escaping: ill-formed input as \ufffd)
 *     "char_index": 0               index of the first of them among the input's characters
 *     "char_part": [[1, 1, 3]]     one [lo, hi, n] per partial character, first before last
 *                                   ([] when the token starts and ends on character
 *                                   boundaries; at most two entries)
 *
 * In the shared toolkit (src/common): it needs only the text and byte offsets, which the
 * library computes and the program gets through the door (gpt2embed_tokenize_ex's offsets).
 * Deliberately left out: grapheme clusters (a character is a code point), tokenization
 * itself (offsets[i], offsets[i + 1] come from the tokenizer).
 */
#ifndef G2E_TOKCHARS_H
#define G2E_TOKCHARS_H

#include "err.h"

#include <stddef.h>
#include <stdint.h>

/* Bytes lo..hi (1-based) of a character of n bytes; n == 0: no partial character here. */
typedef struct tokchars_part {
    uint8_t lo, hi, n;
} tokchars_part;

typedef struct tokchars_span {
    size_t start, end;      /* the token: text[start, end) */
    size_t cstart, cend;    /* the whole characters it overlaps: text[cstart, cend) */
    size_t char_index;      /* index of the first of them among the text's characters */
    size_t n_chars;         /* how many (0 only for an empty token) */
    tokchars_part head;     /* the first overlapped character, when partial (else n == 0) */
    tokchars_part tail;     /* the last one, when partial and not the same as head */
} tokchars_span;

/* Fills out[0..n) for tokens i = 0..n-1 covering text[offsets[i], offsets[i + 1]) (n + 1
 * offsets, as tok_ids has). Offsets must not decrease and must not exceed len; otherwise
 * G2E_EINVAL with a message naming the token, and out is unspecified. O(len + n). */
int tokchars_spans(const char *text, size_t len, const size_t *offsets, size_t n,
                   tokchars_span *out, g2e_err *err);

/* The one-line display string of a token, for tables and pictures, into dst[0..cap) with
 * text_escape_buf's contract (returns the full length, truncates at whole pieces, NUL
 * terminated when cap > 0):
 *   - whole characters as the token's piece is shown elsewhere (text.h TEXT_ESC_VISIBLE:
 *     ' ' as ␣, '\n' as ↵, controls and ill-formed bytes as \xNN);
 *   - a partial character as "犬 (1/3)";
 *   - pieces joined by " + " when the token holds a partial character and something more:
 *     "犬 (3/3) + が + 猫 (1/3)", "猫 (2-3/3) + を".
 * An empty token gives "". */
size_t tokchars_display(const char *text, const tokchars_span *sp, char *dst, size_t cap);

/* The same in a new string the caller frees; NULL if out of memory. */
char *tokchars_display_alloc(const char *text, const tokchars_span *sp);

struct json_w;
/* Writes the four members "offset", "chars", "char_index", "char_part" (shapes above) into
 * the JSON object w is writing (json.h; the caller opened it and closes it). */
void tokchars_json(struct json_w *w, const char *text, const tokchars_span *sp);

#endif
