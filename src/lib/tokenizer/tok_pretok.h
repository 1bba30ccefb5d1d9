/* SPDX-License-Identifier: MIT */
/* tok_pretok.h — GPT-2's pre-tokenizer: the pieces its pattern
 *   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
 * cuts a text into (leftmost-first alternation, greedy runs, as tiktoken's regex does), by
 * a hand-written state machine over the classes of unicode.h (no regex engine), 64 bytes at
 * a time where it can (SSE2 on x86-64, a portable loop elsewhere: same pieces); and the
 * places where a text can be cut into parts that are pre-tokenized (hence tokenized)
 * independently, for threads. Internal to the library (tests include it); not installed.
 *
 * Input: valid UTF-8 (tok_encode checks it first); a piece never exceeds 2^32 - 1 bytes
 * because callers pass at most UINT32_MAX bytes at once.
 */
#ifndef G2E_TOK_PRETOK_H
#define G2E_TOK_PRETOK_H

#include <stddef.h>
#include <stdint.h>

/* The next pieces of s[0..n) from offset pos (pos < n, pos at a piece boundary): writes the
 * lengths of at most max consecutive pieces to len[] (the first starts at pos, each next
 * where the previous ends) and returns how many (>= 1). */
size_t tok_pretok(const uint8_t *s, size_t n, size_t pos, uint32_t *len, size_t max);

/* tok_pretok over the texts s[ends[j-1]..ends[j]) (ends[-1] = 0; ends never decreasing)
 * that lie one after another in one buffer s[0..ends[nt-1]) (each valid UTF-8 on its own:
 * no character crosses a text's end, as tok_encode_joined checks), from text *text at offset
 * *pos (a piece boundary inside it, or its end): the next at most max pieces, of as many
 * texts as they reach, never crossing a text's end, with the blocks of 64 bytes shared by
 * the texts they hold (a text's last bytes are read in place, the next text's after them).
 * Each text that ends (an empty one too) gets a mark: marks[j] is the number of pieces
 * given before the j-th text's end, at most max_marks of them (*n_marks: how many).
 * *text and *pos move on to where the pieces end (*pos == ends[*text] when text *text
 * ended there but its mark did not fit). Returns the number of pieces. */
size_t tok_pretok_texts(const uint8_t *s, const size_t *ends, size_t nt, size_t *text, size_t *pos, uint32_t *len,
                        size_t max, uint32_t *marks, size_t *n_marks, size_t max_marks);

/* A safe cut of s[0..n) at or after `from` (0 < from <= n): the smallest p in [from, n)
 * such that pre-tokenizing s[0..p) and s[p..n) separately gives exactly the pieces of
 * s[0..n) — or n if there is none. The proof is in tok_pretok.c. */
size_t tok_pretok_cut(const uint8_t *s, size_t n, size_t from);

#endif
