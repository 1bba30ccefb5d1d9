/* SPDX-License-Identifier: MIT */
/* textpos.c — byte offsets to characters, lines and a snippet (see textpos.h). */
#include "textpos.h"
#include "text.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s[0, n), or 1 for an invalid byte. */
static size_t seq_len(const unsigned char *s, size_t n)
{
    size_t k;
    return text_step((const char *)s, n, &k) < 0 ? 1 : k;
}

/* Characters of well-formed UTF-8: the bytes that are not continuation bytes (10xxxxxx),
 * counted eight at a time. */
static size_t valid_chars(const unsigned char *s, size_t len)
{
    size_t n = 0, i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        uint64_t cont = (w & ~(w << 1) & 0x8080808080808080ull) >> 7; /* 10xxxxxx: 1 per byte */
        n += 8 - (size_t)((cont * 0x0101010101010101ull) >> 56);          /* their sum, <= 8 */
    }
    for (; i < len; i++)
        n += (s[i] & 0xC0) != 0x80;
    return n;
}

size_t textpos_chars_valid(const char *text, size_t len)
{
    return valid_chars((const unsigned char *)text, len);
}

size_t textpos_chars(const char *text, size_t len)
{
    const unsigned char *s = (const unsigned char *)text;
    if (text_validate(text, len) == len)
        return valid_chars(s, len);
    size_t n = 0;
    for (size_t i = 0; i < len; i += seq_len(s + i, len - i))
        n++;
    return n;
}

/* Appends the characters of s[a, b) to out (made visible: a newline as "\\n", the rest as
 * text.h's escaping for a person: controls, C1, bidi controls, separators, bad bytes),
 * keeping room for the NUL. */
static void put_visible(char *out, size_t *o, size_t cap, const unsigned char *s, size_t a, size_t b)
{
    size_t i = a;
    while (i < b) {
        size_t k = seq_len(s + i, b - i);
        char tmp[24];
        size_t tn;
        if (k == 1 && s[i] == '\n') { memcpy(tmp, "\\n", 2); tn = 2; }
        else tn = text_escape_buf(tmp, sizeof tmp, (const char *)s + i, k, TEXT_ESC_BIDI);
        if (tn >= sizeof tmp || *o + tn + 1 > cap)
            return;
        memcpy(out + *o, tmp, tn);
        *o += tn;
        i += k;
    }
}

/* " (lo-hi/n)" or " (lo/n)" into dst (tokchars.h's shares). */
static void share(char *dst, size_t cap, unsigned lo, unsigned hi, unsigned n)
{
    if (lo == hi)
        snprintf(dst, cap, " (%u/%u)", lo, n);
    else
        snprintf(dst, cap, " (%u-%u/%u)", lo, hi, n);
}

/* The character s[a, b) that out->byte splits: itself with the bytes before the cut, '|',
 * itself with the bytes after it. */
static void put_split(textpos *out, size_t *o, const unsigned char *s, size_t a, size_t b)
{
    size_t cap = sizeof out->snippet;
    char sh[2][32];
    share(sh[0], sizeof sh[0], 1, out->part_before, out->part_len);
    share(sh[1], sizeof sh[1], out->part_before + 1, out->part_len, out->part_len);
    for (int k = 0; k < 2; k++) {
        size_t n = strlen(sh[k]);
        if (*o + (b - a) + n + 2 >= cap)
            return;
        put_visible(out->snippet, o, cap, s, a, b);
        memcpy(out->snippet + *o, sh[k], n);
        *o += n;
        if (k == 0)
            out->snippet[(*o)++] = '|';
    }
}

void textpos_at(const char *text, size_t len, size_t byte, textpos *out)
{
    const unsigned char *s = (const unsigned char *)text;
    if (byte > len)
        byte = len;
    memset(out, 0, sizeof *out);
    out->byte = byte;
    out->line = 1;
    out->col = 1;
    /* Remember where each of the last 24 characters started, to cut the snippet there. */
    size_t ring[24], nring = 0;
    size_t i = 0;
    while (i < byte) {
        size_t k = seq_len(s + i, len - i);
        ring[nring % 24] = i;
        nring++;
        out->chr++;
        if (s[i] == '\n') { out->line++; out->col = 1; }
        else out->col++;
        i += k;
    }
    /* A sequence straddling the offset: the offset was not on a character boundary. */
    size_t last = nring == 0 ? 0 : ring[(nring - 1) % 24];
    if (i > byte) {
        out->inside = 1;
        out->part_before = (unsigned)(byte - last);
        out->part_len = (unsigned)(i - last);
    }
    size_t from = nring == 0 ? 0 : (nring < 24 ? ring[0] : ring[nring % 24]);
    size_t to = i, after = 0;
    while (to < len && after < 12) {
        to += seq_len(s + to, len - to);
        after++;
    }
    size_t o = 0, cap = sizeof out->snippet;
    if (from > 0) { memcpy(out->snippet, "\xE2\x80\xA6", 3); o = 3; }  /* … */
    put_visible(out->snippet, &o, cap, s, from, out->inside ? last : i);
    if (out->inside)   /* the split character on both sides, with its bytes: "角 (1-2/3)|角 (3/3)" */
        put_split(out, &o, s, last, i);
    else if (o + 2 < cap)
        out->snippet[o++] = '|';
    put_visible(out->snippet, &o, cap, s, i, to);
    if (to < len && o + 4 < cap) { memcpy(out->snippet + o, "\xE2\x80\xA6", 3); o += 3; }
    out->snippet[o] = '\0';
}
