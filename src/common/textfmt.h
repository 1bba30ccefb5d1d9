/* SPDX-License-Identifier: MIT */
/* textfmt.h — small pieces of text for tables and messages: outside text fitted to one
 * line of a given display width, English ordinal suffixes, formatted text in a buffer of
 * its own size (a translated format never passes through a fixed buffer that could cut it
 * inside a character; err.h's g2e_cut_whole where a limit is fixed).
 *
 * Display widths are text.h's (text_cp_width: a kanji is 2 columns, a control 0).
 * Deliberately left out: translation (the caller's).
 */
#ifndef G2E_TEXTFMT_H
#define G2E_TEXTFMT_H

#include "err.h"

#include <stddef.h>
#include <stdio.h>

/* s[0..n) as one line of at most maxw (>= 2) display columns into buf[0..cap) (NUL-
 * terminated; cap >= 4 * maxw + 8 holds any result): controls (C0, DEL, C1) as spaces,
 * each ill-formed subpart as '?'; when wider than maxw, shortened with "…" — keeping its
 * start, or with keep_end its end (a path keeps its file's name). */
void textfmt_fit(const char *s, size_t n, size_t maxw, int keep_end, char *buf, size_t cap);

/* s then spaces to `width` display columns (text_width), or (right = 1) spaces then s. */
void textfmt_pad(FILE *f, const char *s, size_t width, int right);

/* A CSV field (RFC 4180): quoted, with quotes doubled, if it holds ',', '"', CR or LF or
 * starts or ends with a space; as it is otherwise. */
void textfmt_csv_field(FILE *f, const char *s, size_t n);

/* "st", "nd", "rd" or "th": 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 1024th. */
const char *textfmt_ordinal(size_t n);

/* printf into a new string of the length it needs (caller frees); NULL when out of memory
 * or when the format fails: err.h's one such helper. */
#define textfmt_printf g2e_printf_alloc

#endif
