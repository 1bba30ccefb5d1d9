/* SPDX-License-Identifier: MIT */
/* test_tok_pretok.c — GPT-2's pre-tokenizer on its own (tok_pretok.h): the pieces of the
 * pattern 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+ worked
 * out by hand from the regex's rules (leftmost alternative first, greedy runs, the one
 * look-ahead backing off), and the property the threads rely on: at every cut that
 * tok_pretok_cut offers, the two halves pre-tokenized alone give exactly the pieces of the
 * whole, on adversarial texts of whitespace runs, contractions, special tokens and long
 * unsplittable pieces. */
#include "tok_pretok.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* Every piece length of s[0..n), in batches of `batch` (so batch edges are crossed too). */
static size_t pieces(const char *s, size_t n, uint32_t *len, size_t batch)
{
    size_t k = 0, pos = 0;
    while (pos < n) {
        size_t m = tok_pretok((const uint8_t *)s, n, pos, len + k, batch);
        cr_assert(m >= 1 && m <= batch);
        for (size_t j = 0; j < m; j++) {
            cr_assert(len[k + j] >= 1);
            pos += len[k + j];
        }
        k += m;
    }
    cr_assert_eq(pos, n);
    return k;
}

Test(tok_pretok, pieces_worked_out_from_the_pattern)
{
    static const struct {
        const char *text;
        const char *want[8]; /* NULL-terminated */
    } cases[] = {
        {"Hello world", {"Hello", " world"}},
        {"a   b", {"a", "  ", " b"}},                 /* \s+(?!\S) leaves one space */
        {"a \n\nb", {"a", " \n", "\n", "b"}},          /* ... even when it is not a space */
        {"trailing   ", {"trailing", "   "}},          /* at the end: \s+ takes all */
        {"don't we'll", {"don", "'t", " we", "'ll"}},
        {"DON'T", {"DON", "'", "T"}},                  /* contractions are lower-case only */
        {"x 's", {"x", " '", "s"}},                    /* " '" is ' ?[^\s\p{L}\p{N}]+' */
        {"'re're", {"'re", "'re"}},
        {"''s", {"''", "s"}},                         /* contractions only at a piece start */
        {"12ab 34", {"12", "ab", " 34"}},
        {" \xC2\xA0x", {" ", "\xC2\xA0", "x"}},        /* U+00A0 is \s but not ' ' */
        {"\xE6\x97\xA5\xE6\x9C\xAC \xE8\xAA\x9E", {"\xE6\x97\xA5\xE6\x9C\xAC", " \xE8\xAA\x9E"}},
        {"a\xE3\x80\x80\xE3\x80\x80" "b", {"a", "\xE3\x80\x80", "\xE3\x80\x80", "b"}},
        {"...!? x", {"...!?", " x"}},
        {"\xC2\xBD\xC2\xB2x", {"\xC2\xBD\xC2\xB2", "x"}}, /* ½² are \p{N} */
        {"\r\n\r\nx", {"\r\n\r", "\n", "x"}},
        {"<|endoftext|>", {"<|", "endoftext", "|>"}},
        {" ", {" "}},
        {"'", {"'"}},
    };
    uint32_t len[64];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const char *s = cases[c].text;
        size_t n = strlen(s), k = pieces(s, n, len, 64), at = 0;
        size_t want = 0;
        while (cases[c].want[want])
            want++;
        cr_expect_eq(k, want, "'%s': %zu pieces, expected %zu", s, k, want);
        for (size_t j = 0; j < k && j < want; j++) {
            size_t wl = strlen(cases[c].want[j]);
            cr_expect(len[j] == wl && memcmp(s + at, cases[c].want[j], wl) == 0,
                      "'%s' piece %zu: '%.*s', expected '%s'", s, j, (int)len[j], s + at, cases[c].want[j]);
            at += len[j];
        }
    }
}

/* ------------------------------------------------------------ safe cuts */

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

/* Fragments that stress the pattern at a cut: whitespace runs of every kind (ASCII and
 * not), contractions and lone apostrophes, letters, digits, symbols, CJK, the special
 * token's text, and a long unsplittable run. */
static const char *const FRAG[] = {
    " ", " ", "  ", "   ", "\n", "\n\n", "\t", "\r\n", " \n", "\x0B", "\x0C",
    "\xC2\xA0", "\xE3\x80\x80", "\xC2\x85", "\xE2\x80\xA8",
    "'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'", "''", "'S", "'r", "'l",
    "a", "word", "Z", "\xC3\xA9t\xC3\xA9", "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E",
    "1", "2024", "\xC2\xBD", ".", ",", "!?", "()", "<|endoftext|>", "<|", "|>",
    "\xF0\x9F\x98\x80", "\xCC\x81",
};
#define N_FRAG (sizeof FRAG / sizeof FRAG[0])

static size_t make_text(char *buf, size_t cap, size_t n_frags)
{
    size_t n = 0;
    for (size_t i = 0; i < n_frags; i++) {
        const char *f = FRAG[rnd() % N_FRAG];
        size_t fl = strlen(f);
        if (rnd() % 40 == 0) { /* a long piece that cannot be cut: 300 letters or digits */
            char c = rnd() % 2 ? 'x' : '7';
            if (n + 300 >= cap)
                break;
            memset(buf + n, c, 300);
            n += 300;
            continue;
        }
        if (n + fl >= cap)
            break;
        memcpy(buf + n, f, fl);
        n += fl;
    }
    return n;
}

/* The pieces of a[0..na) followed by those of b[0..nb) equal whole's. */
static void expect_same_pieces(const char *s, size_t n, size_t p, const uint32_t *whole, size_t nw)
{
    static uint32_t left[8192], right[8192];
    size_t nl = p ? pieces(s, p, left, 7) : 0, nr = p < n ? pieces(s + p, n - p, right, 64) : 0;
    cr_assert_eq(nl + nr, nw, "cut at %zu of '%.*s': %zu + %zu pieces, whole %zu", p, (int)n, s, nl, nr, nw);
    cr_assert(memcmp(left, whole, nl * sizeof *left) == 0, "cut at %zu: the left pieces differ", p);
    cr_assert(memcmp(right, whole + nl, nr * sizeof *right) == 0, "cut at %zu: the right pieces differ", p);
}

Test(tok_pretok, every_offered_cut_keeps_the_pieces)
{
    static char buf[4096];
    static uint32_t whole[8192];
    size_t offered = 0;
    for (int round = 0; round < 3000; round++) {
        size_t n = make_text(buf, sizeof buf, 1 + rnd() % 60);
        if (n < 2)
            continue;
        size_t nw = pieces(buf, n, whole, 64);
        /* every position is asked for; whatever comes back must be a real cut */
        for (size_t p = 1; p < n; p++) {
            size_t c = tok_pretok_cut((const uint8_t *)buf, n, p);
            cr_assert(c >= p && c <= n, "cut(%zu) = %zu", p, c);
            if (c == n)
                continue;
            cr_assert(((uint8_t)buf[c] & 0xC0) != 0x80, "cut %zu inside a character", c);
            if (c == p) {
                offered++;
                expect_same_pieces(buf, n, c, whole, nw);
            }
        }
    }
    cr_expect_gt(offered, 10000, "only %zu cuts offered", offered);
}

/* The cuts are not offered where the pattern could join across them. */
Test(tok_pretok, no_cut_where_pieces_cross)
{
    static const struct {
        const char *text;
        size_t at;
    } bad[] = {
        {"a  b", 2},    /* inside a whitespace run */
        {"a  b", 3},    /* before " b": the space belongs to the next piece, but s[2] is \s */
        {"x 'll", 2},   /* after the space */
        {"\xC2\xA0 x", 2}, /* after U+00A0 (whitespace, decoded backwards) */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t n = strlen(bad[i].text);
        cr_expect_neq(tok_pretok_cut((const uint8_t *)bad[i].text, n, bad[i].at), bad[i].at, "'%s' at %zu",
                      bad[i].text, bad[i].at);
    }
    /* and offered where they cannot */
    cr_expect_eq(tok_pretok_cut((const uint8_t *)"ab cd", 5, 1), 2);
    cr_expect_eq(tok_pretok_cut((const uint8_t *)"\xE6\x97\xA5\n", 4, 1), 3);
    cr_expect_eq(tok_pretok_cut((const uint8_t *)"xxxx", 4, 1), 4); /* none: n */
}
