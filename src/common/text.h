/* SPDX-License-Identifier: MIT */
/* text.h — the one UTF-8 toolkit: decode a step, validate, display width, and escaping
 * of outside data (file names, user text, token pieces) before it reaches a terminal.
 *
 * UTF-8 here is RFC 3629's: no overlong forms, no surrogates (U+D800..U+DFFF), nothing
 * above U+10FFFF. An ill-formed sequence is cut into "maximal subparts" (Unicode 15,
 * section 3.9, "U+FFFD substitution of maximal subparts" — what Python's
 * bytes.decode("utf-8", errors="replace") and the WHATWG decoder do): each one is one
 * replacement character. text_step reports the subpart's length so that every caller
 * replaces (or counts, or escapes) ill-formed input the same way.
 *
 * The display width is utf8proc's (East Asian Wide/Fullwidth 2 columns, combining marks
 * and other zero-width characters 0); it is the width terminals that follow Unicode
 * use, not a promise about every terminal.
 *
 * Part of the shared toolkit (src/common), compiled into the library and the program: it
 * never prints; escaping writes into the caller's buffer or a new string.
 *
 * Deliberately left out: normalisation, grapheme clusters (a flag emoji counts as its
 * code points' widths), encodings other than UTF-8, line breaking.
 */
#ifndef G2E_TEXT_H
#define G2E_TEXT_H

#include <stddef.h>
#include <stdint.h>

#define TEXT_BAD (-1)

/* How many times w[0..wn) (wn > 0) occurs in s[0..n), found left to right, not overlapping
 * (s may be NULL when n is 0). */
size_t text_occurrences(const char *s, size_t n, const char *w, size_t wn);   /* text_step's result for an ill-formed sequence */

/* 1 for the four bytes JSON (RFC 8259) calls white space: space, tab, LF, CR; the ID-list
 * grammar, the JSON Lines reader and the safetensors header reader all skip exactly these. */
static inline int text_is_json_ws(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Decodes one step of s[0..n) (n >= 1). For a well-formed character returns its code
 * point (0..0x10FFFF) and sets *len to its length (1..4). For an ill-formed sequence
 * returns TEXT_BAD and sets *len to the length of its maximal subpart (1..3): the bytes
 * one U+FFFD stands for. Every step advances by *len >= 1; reads only s[0..n). */
static inline int32_t text_step(const char *str, size_t n, size_t *len)
{
    const uint8_t *s = (const uint8_t *)str;
    uint8_t c = s[0];
    if (c < 0x80) {
        *len = 1;
        return c;
    }
    size_t need;                     /* continuation bytes */
    uint8_t lo = 0x80, hi = 0xBF;    /* allowed range of the second byte */
    int32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
        need = 1;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        need = 2;
        cp = c & 0x0F;
        if (c == 0xE0) lo = 0xA0;   /* no overlong */
        if (c == 0xED) hi = 0x9F;   /* no surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 3;
        cp = c & 0x07;
        if (c == 0xF0) lo = 0x90;   /* no overlong */
        if (c == 0xF4) hi = 0x8F;   /* nothing above U+10FFFF */
    } else {
        *len = 1;
        return TEXT_BAD;
    }
    if (n < 2 || s[1] < lo || s[1] > hi) {
        *len = 1;
        return TEXT_BAD;
    }
    cp = cp << 6 | (s[1] & 0x3F);
    for (size_t k = 2; k <= need; k++) {
        if (k >= n || (s[k] & 0xC0) != 0x80) {
            *len = k;
            return TEXT_BAD;
        }
        cp = cp << 6 | (s[k] & 0x3F);
    }
    *len = need + 1;
    return cp;
}

/* The offset of the first byte of s[0..n) that is not part of well-formed UTF-8, or n
 * when all of it is (an empty or NULL-with-0 text is valid); the tokenizer's check
 * (tok_utf8_check) is this. 32 bytes at a time with AVX2 where the CPU has it
 * (utf8_simd.c), else text_validate_scalar; both give the same offset. */
size_t text_validate(const char *s, size_t n);
/* The same, one character at a time: ASCII runs are skipped 16 bytes at a time where SSE2
 * is (else 8), and the commonest 2- and 3-byte characters are taken without text_step's
 * cases. The reference the AVX2 path is tested against. */
size_t text_validate_scalar(const char *s, size_t n);
/* 1 when text_validate uses AVX2 on this CPU, else 0. */
int text_validate_simd(void);

/* The words of s[0..n) as a reader of English counts them: runs of characters between
 * white space that hold at least one ASCII letter ("GPT-2's" is one word, "1024" none).
 * *english (may be NULL): 1 when ASCII letters are at least 90% of the text's letters
 * (ASCII letters and characters outside ASCII), so the count means words of English. */
size_t text_english_words(const char *s, size_t n, int *english);

/* The same counted in stretches (the chunks of threads, the reads of a stream): a text cut
 * at character boundaries, each stretch counted by text_words_count and joined in order by
 * text_words_join, gives exactly text_english_words's numbers. */
typedef struct text_words {
    size_t words;          /* word starts, counting the first letter as one */
    size_t ascii, other;   /* letters: ASCII, and characters from U+0080 but white space */
    unsigned char any;     /* the stretch holds a letter or a white space */
    unsigned char lead;    /* its first letter-or-space is a letter (a start only after a space) */
    unsigned char after_space; /* its last letter-or-space is a space */
} text_words;
/* A zeroed text_words is the empty stretch. */
void text_words_count(const char *s, size_t n, text_words *w);
void text_words_join(text_words *a, const text_words *b); /* a = a then b */
/* 1 when ASCII letters are at least 90% of the letters (text_english_words's *english). */
int text_words_english(const text_words *w);

/* Display width in terminal columns of code point cp: 0, 1 or 2 (controls 0). */
int text_cp_width(int32_t cp);

/* Display width of s[0..n): the sum of text_cp_width over its characters; each maximal
 * subpart of ill-formed input counts 1 (as the U+FFFD a terminal shows). */
size_t text_width(const char *s, size_t n);

/* Writes code point cp (0..0x10FFFF, not a surrogate) as UTF-8 into out[4]; returns the
 * length 1..4, or 0 (nothing written) for a value that is not a Unicode scalar value. */
size_t text_encode(int32_t cp, char out[4]);

/* ---- escaping outside data ----
 *
 * Made safe for a terminal: every C0 control (U+0000..U+001F, including ESC), DEL, every
 * C1 control (U+0080..U+009F, which some terminals obey as CSI/OSC...), and each byte of
 * ill-formed UTF-8 becomes "\xNN" per byte (uppercase hex). With TEXT_ESC_BIDI the
 * Unicode bidirectional controls (U+061C, U+200E, U+200F, U+202A..U+202E,
 * U+2066..U+2069), which reorder what a terminal shows, and the line/paragraph
 * separators U+2028/U+2029 become "\u{XXXX}". Everything else is copied as it is.
 * Flags:
 *   TEXT_ESC_VISIBLE  ' ' -> '␣' (U+2423), '\n' -> '↵' (U+21B5), '\t' -> '→' (U+2192),
 *                     and '\\' -> "\\\\", so that "\x" in the result always means an
 *                     escaped byte — the way every command shows a token's piece;
 *                     the bidi controls and separators as TEXT_ESC_BIDI (a piece shown
 *                     to a person never reorders or breaks the line it is on);
 *   TEXT_ESC_BIDI     as above (messages quoting user text or file names use it).
 * Without TEXT_ESC_VISIBLE spaces and backslashes are kept and '\n', '\t' are "\x0A",
 * "\x09": the result is always one line. */
enum { TEXT_ESC_VISIBLE = 1u, TEXT_ESC_BIDI = 2u };

/* Escapes s[0..n) into dst[0..cap) as described above. Returns the length of the whole
 * escaped text (not counting the NUL), like snprintf; when that is >= cap, dst holds the
 * longest prefix that ends at the end of one character's (or escape's) output. dst is
 * NUL-terminated whenever cap > 0; dst may be NULL when cap is 0. */
size_t text_escape_buf(char *dst, size_t cap, const char *s, size_t n, unsigned flags);

/* The same into a new NUL-terminated string the caller frees; NULL if out of memory. */
char *text_escape(const char *s, size_t n, unsigned flags);

#endif
