/* SPDX-License-Identifier: MIT */
/* pretok_ref.h — a deliberately simple reference for GPT-2's pre-tokenizer, for tests and
 * fuzz targets to compare tok_pretok with: the text is decoded into code points, each is
 * classified with unicode.h (itself checked against utf8proc for every code point by
 * tests/test_unicode.c), and the pattern
 *   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
 * is followed alternative by alternative, in order, character by character, with the
 * look-ahead's back-tracking done literally (no state machine, no byte tricks, no speed). */
#ifndef G2E_PRETOK_REF_H
#define G2E_PRETOK_REF_H

#include <stddef.h>
#include <stdint.h>

/* The byte lengths of all pieces of s[0..n) (valid UTF-8) into len[] (room for n entries
 * is always enough); returns how many. Returns (size_t)-1 if s is not valid UTF-8 or memory
 * runs out. */
size_t pretok_ref(const uint8_t *s, size_t n, uint32_t *len);

#endif
