/* SPDX-License-Identifier: MIT */
/* text.c — UTF-8 validation, width and terminal escaping, English words (see text.h). The
 * decoder itself is text_step, inline in the header so the tokenizer's hot loops can use it.
 * The word count reads ASCII 64 bytes at a time, so that `count`'s words-per-1024 sentence
 * costs a few per cent of the command, not a third (bench/PROGRAM.md). */
#define _GNU_SOURCE /* memmem */
#include "text.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

size_t text_validate_scalar(const char *str, size_t n)
{
    const uint8_t *s = (const uint8_t *)str;
    size_t i = 0;
    const uint64_t hi = 0x8080808080808080ull;
    while (i < n) {
        /* skip to the next byte from 0x80: 16 at a time where SSE2 is, else 8 */
#ifdef __SSE2__
        while (i + 16 <= n) {
            unsigned m = (unsigned)_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(const void *)(s + i)));
            if (m) {
                i += (size_t)__builtin_ctz(m);
                break;
            }
            i += 16;
        }
        if (i == n)
            break; /* all ASCII up to the end, which is a multiple of 16 bytes away */
#endif
        if (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            if (!(w & hi)) {
                i += 8;
                continue;
            }
            i += (size_t)__builtin_ctzll(w & hi) >> 3;
        } else if (s[i] < 0x80) {
            i++;
            continue;
        }
        /* the commonest multi-byte characters without text_step's cases: two bytes from
         * U+0080 (C2..DF), three from U+1000 outside the surrogates (E1..EC, EE, EF) */
        uint8_t c0 = s[i];
        if (c0 >= 0xC2 && c0 <= 0xDF && i + 1 < n && (s[i + 1] & 0xC0) == 0x80) {
            i += 2;
            continue;
        }
        if (c0 >= 0xE1 && c0 <= 0xEF && c0 != 0xED && i + 2 < n && (s[i + 1] & 0xC0) == 0x80 &&
            (s[i + 2] & 0xC0) == 0x80) {
            i += 3;
            continue;
        }
        size_t k;
        if (text_step(str + i, n - i, &k) == TEXT_BAD)
            return i;
        i += k;
    }
    return n;
}

size_t text_occurrences(const char *s, size_t n, const char *w, size_t wn)
{
    size_t c = 0;
    for (const char *e = s + n; s && (size_t)(e - s) >= wn && (s = memmem(s, (size_t)(e - s), w, wn)); s += wn)
        c++;
    return c;
}

/* ASCII byte classes for text_english_words: bit 0 a letter, bit 1 white space. */
static const uint8_t ascii_class[128] = {
    ['\t'] = 2, ['\n'] = 2, ['\v'] = 2, ['\f'] = 2, ['\r'] = 2, [' '] = 2,
    ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1, ['I'] = 1,
    ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1,
    ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1,
    ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1,
    ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1,
    ['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,
};

/* The words as a count of word starts: a letter whose last letter-or-space before it is a
 * space, or that has none (`after_space`: the last one was a space). An ASCII byte is
 * classified by the table, without a branch on what it is (a word ends at about every sixth
 * byte of English, at random to a predictor); a character from U+0080 is decoded (U+00A0 and
 * U+3000 are white space). Reads s[0..n) from its start to the first character that begins
 * at or after `upto`; returns where that is. w->lead is set by the first letter-or-space
 * while w->any is 0. */
static size_t words_scalar(const uint8_t *s, size_t n, size_t upto, text_words *w)
{
    unsigned st = w->after_space, any = w->any, lead = w->lead;
    size_t k, i;
    for (i = 0; i < upto; i += k) {
        unsigned c;
        if (s[i] < 0x80) {
            c = ascii_class[s[i]];
            k = 1;
        } else {
            int32_t cp = text_step((const char *)s + i, n - i, &k);
            c = cp == 0x3000 || cp == 0xA0 ? 2u : 0u;
            w->other += cp >= 0x80 && !c; /* a letter-like character; white space is none */
        }
        unsigned space = c >> 1, letter = c & 1;
        w->words += st & letter;
        w->ascii += letter;
        lead |= (any ^ 1u) & letter;
        any |= c != 0;
        st = space | (st & !letter);
    }
    w->after_space = (unsigned char)st, w->any = (unsigned char)any, w->lead = (unsigned char)lead;
    return i;
}

void text_words_count(const char *str, size_t n, text_words *w)
{
    const uint8_t *s = (const uint8_t *)str;
    size_t i = 0;
    *w = (text_words){.after_space = 1};
#ifdef __SSE2__
    /* 64 ASCII bytes at a time, as bit masks of letters L and white space S: with N the
     * bytes that are neither, N + (S << 1) + after_space carries from each space (and from
     * the block's start) through the neutral bytes after it to the first letter or space,
     * whose bit is then set outside N; the letters among those bits start words. A block
     * with a byte from 0x80 goes to words_scalar, which ends at a character's start (the
     * next block begins there, where a character that crossed the block's end ends). */
    const __m128i nine = _mm_set1_epi8(9), four = _mm_set1_epi8(4), blank = _mm_set1_epi8(' '),
                  low = _mm_set1_epi8(0x20), a = _mm_set1_epi8('a'), z25 = _mm_set1_epi8(25);
    while (i + 64 <= n) {
        uint64_t L = 0, S = 0, hi = 0;
        for (int q = 0; q < 4; q++) {
            __m128i c = _mm_loadu_si128((const __m128i *)(s + i + 16 * q));
            __m128i c9 = _mm_sub_epi8(c, nine), ca = _mm_sub_epi8(_mm_or_si128(c, low), a);
            __m128i sp = _mm_or_si128(_mm_cmpeq_epi8(c, blank), _mm_cmpeq_epi8(_mm_min_epu8(c9, four), c9));
            __m128i lt = _mm_cmpeq_epi8(_mm_min_epu8(ca, z25), ca);
            hi |= (uint64_t)(unsigned)_mm_movemask_epi8(c) << (16 * q);
            S |= (uint64_t)(unsigned)_mm_movemask_epi8(sp) << (16 * q);
            L |= (uint64_t)(unsigned)_mm_movemask_epi8(lt) << (16 * q);
        }
        if (hi) {
            i += words_scalar(s + i, n - i, 64, w);
            continue;
        }
        uint64_t N = ~(L | S), first = (N + (S << 1) + w->after_space) & ~N;
        w->words += (size_t)__builtin_popcountll(first & L);
        w->ascii += (size_t)__builtin_popcountll(L);
        if (L | S) {
            if (!w->any) /* the lowest of L | S is the stretch's first letter-or-space */
                w->lead = (L & (L | S) & -(L | S)) != 0, w->any = 1;
            w->after_space = (unsigned char)(S >> (63 - __builtin_clzll(L | S)) & 1);
        }
        i += 64;
    }
#endif
    words_scalar(s + i, n - i, n - i, w);
}

void text_words_join(text_words *a, const text_words *b)
{
    /* b counted its leading letter as a start; it is none if a ended inside a word */
    a->words += b->words - (size_t)(a->any && !a->after_space && b->lead);
    a->ascii += b->ascii;
    a->other += b->other;
    if (!a->any)
        a->lead = b->lead;
    if (b->any)
        a->after_space = b->after_space;
    a->any |= b->any;
}

int text_words_english(const text_words *w)
{
    return w->ascii > 0 && w->ascii >= 9 * w->other;
}

size_t text_english_words(const char *s, size_t n, int *english)
{
    text_words w;
    text_words_count(s, n, &w);
    if (english)
        *english = text_words_english(&w);
    return w.words;
}

int text_cp_width(int32_t cp)
{
    if (cp < 0 || cp > 0x10FFFF)
        return 0;
    int w = utf8proc_charwidth(cp);
    return w < 0 ? 0 : w > 2 ? 2 : w;
}

size_t text_width(const char *s, size_t n)
{
    size_t w = 0, k;
    for (size_t i = 0; i < n; i += k) {
        int32_t cp = text_step(s + i, n - i, &k);
        w += cp < 0 ? 1 : (size_t)text_cp_width(cp);
    }
    return w;
}

size_t text_encode(int32_t cp, char out[4])
{
    uint32_t c = (uint32_t)cp;
    if (cp < 0 || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    if (c < 0x80) {
        out[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (char)(0xC0 | c >> 6);
        out[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = (char)(0xE0 | c >> 12);
        out[1] = (char)(0x80 | (c >> 6 & 0x3F));
        out[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | c >> 18);
    out[1] = (char)(0x80 | (c >> 12 & 0x3F));
    out[2] = (char)(0x80 | (c >> 6 & 0x3F));
    out[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

static int is_bidi_or_separator(int32_t cp)
{
    return cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
           (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 || cp == 0x2029;
}

/* The escaped form of one step (a character or a maximal subpart) into piece[16];
 * returns its length. */
static size_t escape_step(const char *s, int32_t cp, size_t k, unsigned flags, char piece[16])
{
    static const char HEX[] = "0123456789ABCDEF";
    if (flags & TEXT_ESC_VISIBLE) {
        switch (cp) {
        case ' ': memcpy(piece, "\xE2\x90\xA3", 3); return 3;    /* ␣ */
        case '\n': memcpy(piece, "\xE2\x86\xB5", 3); return 3;   /* ↵ */
        case '\t': memcpy(piece, "\xE2\x86\x92", 3); return 3;   /* → */
        case '\\': memcpy(piece, "\\\\", 2); return 2;
        default: break;
        }
    }
    if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F)) {
        /* ill-formed (cp < 0) or a control: each byte as \xNN */
        size_t o = 0;
        for (size_t j = 0; j < k; j++) {
            unsigned char b = (unsigned char)s[j];
            piece[o++] = '\\', piece[o++] = 'x', piece[o++] = HEX[b >> 4], piece[o++] = HEX[b & 15];
        }
        return o;
    }
    if ((flags & (TEXT_ESC_BIDI | TEXT_ESC_VISIBLE)) && is_bidi_or_separator(cp)) {
        size_t o = 0;
        piece[o++] = '\\', piece[o++] = 'u', piece[o++] = '{';
        for (int sh = 12; sh >= 0; sh -= 4)
            piece[o++] = HEX[(cp >> sh) & 15];
        piece[o++] = '}';
        return o;
    }
    memcpy(piece, s, k);
    return k;
}

size_t text_escape_buf(char *dst, size_t cap, const char *s, size_t n, unsigned flags)
{
    size_t total = 0, k;
    int full = 0;
    if (cap > 0)
        dst[0] = '\0';
    for (size_t i = 0; i < n; i += k) {
        int32_t cp = text_step(s + i, n - i, &k);
        char piece[16];
        size_t m = escape_step(s + i, cp, k, flags, piece);
        if (!full && total + m < cap) {
            memcpy(dst + total, piece, m);
            dst[total + m] = '\0';
        } else {
            full = 1;
        }
        total += m;
    }
    return total;
}

char *text_escape(const char *s, size_t n, unsigned flags)
{
    size_t need = text_escape_buf(NULL, 0, s, n, flags);
    char *r = need < SIZE_MAX ? malloc(need + 1) : NULL;
    if (!r)
        return NULL;
    text_escape_buf(r, need + 1, s, n, flags);
    return r;
}
