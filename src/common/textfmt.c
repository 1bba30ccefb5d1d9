/* SPDX-License-Identifier: MIT */
/* textfmt.c — text fitted to a width, ordinals (see textfmt.h). */
#include "textfmt.h"
#include "err.h"
#include "text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The code point shown for the step of s at i (its length in *k): controls as spaces,
 * each ill-formed subpart as '?'. */
static int32_t shown(const char *s, size_t n, size_t i, size_t *k)
{
    int32_t c = text_step(s + i, n - i, k);
    return c < 0 ? '?' : c < 0x20 || c == 0x7F || (c >= 0x80 && c < 0xA0) ? ' ' : c;
}

void textfmt_fit(const char *s, size_t n, size_t maxw, int keep_end, char *buf, size_t cap)
{
    size_t total = 0, o = 0, k, w = 0, seen = 0;
    for (size_t i = 0; i < n; i += k)
        total += (size_t)text_cp_width(shown(s, n, i, &k));
    int cut = total > maxw, left = cut && keep_end;
    size_t skip = left ? total - (maxw - 1) : 0;
    if (left && cap >= 4) {
        memcpy(buf, "\xE2\x80\xA6", 3);
        o = 3;
    }
    for (size_t i = 0; i < n; i += k) {
        int32_t c = shown(s, n, i, &k);
        size_t cw = (size_t)text_cp_width(c);
        if (seen < skip) { /* dropped from the left */
            seen += cw;
            continue;
        }
        if (cut && !left && w + cw > maxw - 1) {
            if (o + 4 <= cap) {
                memcpy(buf + o, "\xE2\x80\xA6", 3);
                o += 3;
            }
            break;
        }
        char enc[4];
        size_t el = text_encode(c, enc);
        if (o + el + 4 > cap)
            break;
        memcpy(buf + o, enc, el);
        o += el;
        w += cw;
    }
    if (cap)
        buf[o] = '\0';
}

const char *textfmt_ordinal(size_t n)
{
    if (n % 100 >= 11 && n % 100 <= 13)
        return "th";
    return n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
}

void textfmt_pad(FILE *f, const char *s, size_t width, int right)
{
    size_t w = text_width(s, strlen(s));
    if (!right)
        fputs(s, f);
    for (; w < width; w++)
        fputc(' ', f);
    if (right)
        fputs(s, f);
}

void textfmt_csv_field(FILE *f, const char *s, size_t n)
{
    int quote = n > 0 && (s[0] == ' ' || s[n - 1] == ' ');
    for (size_t i = 0; i < n && !quote; i++)
        if (s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n')
            quote = 1;
    if (!quote) {
        fwrite(s, 1, n, f);
        return;
    }
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            fputc('"', f);
        fputc(s[i], f);
    }
    fputc('"', f);
}
