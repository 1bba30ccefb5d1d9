/* SPDX-License-Identifier: MIT */
/* pretok_ref.c — see pretok_ref.h. Slow on purpose: clarity is the point. */
#include "pretok_ref.h"

#include "unicode.h"

#include <stdlib.h>

/* Decodes s[0..n) into cp[] with the byte offset of each character in at[] (at[m] = n);
 * returns the number of characters, or (size_t)-1 on invalid UTF-8 (overlong forms,
 * surrogates, values above U+10FFFF, cut-off sequences). */
static size_t decode(const uint8_t *s, size_t n, uint32_t *cp, size_t *at)
{
    size_t m = 0, i = 0;
    while (i < n) {
        uint8_t c = s[i];
        size_t k; /* continuation bytes */
        uint32_t v, min;
        if (c < 0x80) {
            k = 0, v = c, min = 0;
        } else if (c >= 0xC0 && c < 0xE0) {
            k = 1, v = c & 0x1Fu, min = 0x80;
        } else if (c >= 0xE0 && c < 0xF0) {
            k = 2, v = c & 0x0Fu, min = 0x800;
        } else if (c >= 0xF0 && c < 0xF8) {
            k = 3, v = c & 0x07u, min = 0x10000;
        } else {
            return (size_t)-1;
        }
        if (k && i + k >= n) /* cut off */
            return (size_t)-1;
        for (size_t j = 1; j <= k; j++) {
            if ((s[i + j] & 0xC0) != 0x80)
                return (size_t)-1;
            v = v << 6 | (s[i + j] & 0x3Fu);
        }
        if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
            return (size_t)-1;
        cp[m] = v;
        at[m++] = i;
        i += k + 1;
    }
    at[m] = n;
    return m;
}

static int is_w(uint32_t c) { return uni_class(c) == UNI_W; }
static int is_l(uint32_t c) { return uni_class(c) == UNI_L; }
static int is_n(uint32_t c) { return uni_class(c) == UNI_N; }
static int is_o(uint32_t c) { return uni_class(c) == UNI_O; } /* [^\s\p{L}\p{N}] */

/* ' ?X+' at character p: the number of characters it matches, 0 if none. */
static size_t space_run(const uint32_t *cp, size_t m, size_t p, int (*in)(uint32_t))
{
    size_t q = p;
    if (q < m && cp[q] == ' ')
        q++;
    if (q >= m || !in(cp[q]))
        return 0;
    while (q < m && in(cp[q]))
        q++;
    return q - p;
}

/* The one alternative that matches first at character p (p < m): its length in characters. */
static size_t match_at(const uint32_t *cp, size_t m, size_t p)
{
    static const char *const contr[] = {"s", "t", "re", "ve", "m", "ll", "d"};
    if (cp[p] == '\'')
        for (size_t a = 0; a < sizeof contr / sizeof contr[0]; a++) {
            size_t j = 0;
            while (contr[a][j] && p + 1 + j < m && cp[p + 1 + j] == (uint32_t)contr[a][j])
                j++;
            if (!contr[a][j])
                return 1 + j;
        }
    size_t r;
    if ((r = space_run(cp, m, p, is_l)) || (r = space_run(cp, m, p, is_n)) || (r = space_run(cp, m, p, is_o)))
        return r;
    /* \s+(?!\S): the greedy run, then shorter ones until nothing non-white follows */
    size_t e = p;
    while (e < m && is_w(cp[e]))
        e++;
    for (size_t k = e - p; k >= 1; k--)
        if (p + k == m || is_w(cp[p + k]))
            return k;
    /* \s+ */
    if (e > p)
        return e - p;
    return 0; /* unreachable: every character is in one of the classes */
}

size_t pretok_ref(const uint8_t *s, size_t n, uint32_t *len)
{
    uint32_t *cp = malloc((n + 1) * sizeof *cp);
    size_t *at = malloc((n + 1) * sizeof *at);
    size_t k = (size_t)-1;
    if (!cp || !at)
        goto out;
    size_t m = decode(s, n, cp, at);
    if (m == (size_t)-1)
        goto out;
    k = 0;
    for (size_t p = 0; p < m;) {
        size_t r = match_at(cp, m, p);
        if (r == 0) {
            k = (size_t)-1;
            goto out;
        }
        len[k++] = (uint32_t)(at[p + r] - at[p]);
        p += r;
    }
out:
    free(cp);
    free(at);
    return k;
}
