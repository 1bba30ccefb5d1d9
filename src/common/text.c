/* SPDX-License-Identifier: MIT */
/* text.c — UTF-8 validation, width and terminal escaping (see text.h). The decoder
 * itself is text_step, inline in the header so the tokenizer's hot loops can use it. */
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

size_t text_english_words(const char *s, size_t n, int *english)
{
    size_t words = 0, ascii = 0, other = 0, k = 1;
    int in_word = 0, lettered = 0;
    for (size_t i = 0; i <= n; i += k) {   /* (i == n: a space that ends the last word) */
        int32_t cp = i < n ? text_step(s + i, n - i, &k) : ' ';
        int space = cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || cp == '\f' || cp == '\v' ||
                    cp == 0x3000 || cp == 0xA0;
        if (space) {
            words += in_word && lettered;
            in_word = lettered = 0;
            continue;
        }
        in_word = 1;
        int letter = (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
        lettered |= letter;
        ascii += letter;
        other += cp >= 0x80;
    }
    if (english)
        *english = ascii > 0 && ascii >= 9 * other;
    return words;
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
