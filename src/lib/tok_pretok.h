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

/* tok_pretok for the text s[0..n) inside a buffer s[0..readable) (n <= readable) whose
 * bytes after the text may be read (they are never part of a piece): the same pieces, a
 * text's end found without copying its last bytes; in *at where the last piece ends. */
size_t tok_pretok_at(const uint8_t *s, size_t n, size_t readable, size_t pos, uint32_t *len, size_t max, size_t *at);

/* A safe cut of s[0..n) at or after `from` (0 < from <= n): the smallest p in [from, n)
 * such that pre-tokenizing s[0..p) and s[p..n) separately gives exactly the pieces of
 * s[0..n) — or n if there is none. The proof is in tok_pretok.c. */
size_t tok_pretok_cut(const uint8_t *s, size_t n, size_t from);

#endif
