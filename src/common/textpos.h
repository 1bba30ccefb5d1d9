/* SPDX-License-Identifier: MIT */
/* textpos.h — where a byte offset falls in a text, for messages a person can act on:
 * "the 1024th token ends at character 4,321 (line 12, column 7): …the cat sat|on the…".
 *
 * Characters are Unicode code points of UTF-8 text; a byte that does not begin a valid
 * sequence counts as one character. Lines are split at '\n' only; line and column are
 * 1-based, the column counted in characters.
 */
#ifndef G2E_TEXTPOS_H
#define G2E_TEXTPOS_H

#include <stddef.h>

#define TEXTPOS_SNIPPET_MAX 256

typedef struct textpos {
    size_t byte;        /* the offset asked about (clamped to the text's length) */
    size_t chr;         /* characters before it */
    size_t line, col;   /* 1-based line, and column of the character at byte */
    int inside;         /* 1: the offset falls inside a character (chr counts it, col is after it) */
    unsigned part_before, part_len; /* with inside: that character's bytes before the offset,
                                       and all its bytes */
    /* Up to 24 characters before and 12 after the offset, joined by '|', with "…" where the
     * text goes on, newlines shown as "\n" and other control characters as "\xNN";
     * NUL-terminated. A character the offset splits is shown on both sides of '|' with its
     * bytes on that side, as tokchars.h writes shares: "…対角 (1-2/3)|角 (3/3)線…". */
    char snippet[TEXTPOS_SNIPPET_MAX];
} textpos;

/* Fills *out for offset byte in text[len]. Never fails; reads only text[0, len). */
void textpos_at(const char *text, size_t len, size_t byte, textpos *out);

/* The number of characters in text[len] (counted as above). */
size_t textpos_chars(const char *text, size_t len);
/* The same for a text already known to be well-formed UTF-8 (no second validation). */
size_t textpos_chars_valid(const char *text, size_t len);

#endif
