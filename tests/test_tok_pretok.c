/* SPDX-License-Identifier: MIT */
/* test_tok_pretok.c — GPT-2's pre-tokenizer on its own (tok_pretok.h): the pieces of the
 * pattern 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+ worked
 * out by hand from the regex's rules (leftmost alternative first, greedy runs, the one
 * look-ahead backing off), and the property the threads rely on: at every cut that
 * tok_pretok_cut offers, the two halves pre-tokenized alone give exactly the pieces of the
 * whole, on adversarial texts of whitespace runs, contractions, special tokens and long
 * unsplittable pieces. And, against the independent, character-by-character reference
 * tests/pretok_ref.c: random mixtures of every kind of character the pattern tells apart
 * (millions of texts), the benchmark corpus and the conformance texts. */
#include "pretok_ref.h"
#include "support.h"
#include "text.h"
#include "tok_pretok.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The portable block classifier (the one built where SSE2 is not), compiled into this test
 * under other names so that it is checked here too. */
size_t tok_pretok_portable(const uint8_t *s, size_t n, size_t pos, uint32_t *len, size_t max);
size_t tok_pretok_cut_portable(const uint8_t *s, size_t n, size_t from);
size_t tok_pretok_texts_portable(const uint8_t *s, const size_t *ends, size_t nt, size_t *text, size_t *pos,
                                 uint32_t *len, size_t max, uint32_t *marks, size_t *n_marks, size_t max_marks);
int tok_pretok_use_portable(int path);
int tok_pretok_path_portable(void);
#define G2E_PRETOK_PORTABLE
#define tok_pretok tok_pretok_portable
#define tok_pretok_texts tok_pretok_texts_portable
#define tok_pretok_cut tok_pretok_cut_portable
#define tok_pretok_use tok_pretok_use_portable
#define tok_pretok_path tok_pretok_path_portable
#include "tok_pretok.c"
#undef tok_pretok
#undef tok_pretok_cut
#undef tok_pretok_texts
#undef tok_pretok_use
#undef tok_pretok_path

/* The pre-tokenizer under test: the library's (on the path use() chose), or the portable one
 * above. */
static size_t (*pretok)(const uint8_t *, size_t, size_t, uint32_t *, size_t) = tok_pretok;

/* The library's pre-tokenizer on `path` from now on (each test runs in a process of its
 * own). AVX2 on a CPU without it cannot be tested: the test says so and is skipped. */
static void use(int path)
{
    if (path == TOK_PRETOK_AVX2 && tok_pretok_use(TOK_PRETOK_AUTO) != TOK_PRETOK_AVX2)
        cr_skip_test("this CPU has no AVX2: its path is not built or not chosen");
    cr_assert_eq(tok_pretok_use(path), path, "path %d refused", path);
    cr_assert_eq(tok_pretok_path(), path);
    pretok = tok_pretok;
}

Test(tok_pretok, the_fastest_path_is_chosen)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2");
    cr_expect_eq(tok_pretok_path(), avx2 ? TOK_PRETOK_AVX2 : TOK_PRETOK_BLOCKS);
#else
    cr_expect_eq(tok_pretok_path(), TOK_PRETOK_BLOCKS);
#endif
    cr_expect_eq(tok_pretok_use(77), -1, "an unknown path is refused");
    cr_expect_eq(tok_pretok_path_portable(), TOK_PRETOK_BLOCKS, "the portable build has no AVX2 path");
    cr_expect_eq(tok_pretok_use_portable(TOK_PRETOK_AVX2), -1);
}

/* Every piece length of s[0..n), in batches of `batch` (so batch edges are crossed too). */
static size_t pieces(const char *s, size_t n, uint32_t *len, size_t batch)
{
    size_t k = 0, pos = 0;
    uint32_t *room = malloc(batch * sizeof *room); /* exactly the room given: ASan checks it */
    cr_assert(room);
    while (pos < n) {
        size_t m = pretok((const uint8_t *)s, n, pos, room, batch);
        cr_assert(m >= 1 && m <= batch);
        memcpy(len + k, room, m * sizeof *len);
        for (size_t j = 0; j < m; j++) {
            cr_assert(len[k + j] >= 1);
            pos += len[k + j];
        }
        k += m;
    }
    free(room);
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

/* ------------------------------------------------------------ against the reference */

/* tok_pretok's pieces of s[0..n), in batches of `batch`, equal the reference's. */
static void expect_reference(const char *what, const uint8_t *s, size_t n, size_t batch)
{
    uint32_t *got = malloc((n + 1) * sizeof *got), *want = malloc((n + 1) * sizeof *want);
    cr_assert(got && want);
    size_t nw = pretok_ref(s, n, want);
    cr_assert_neq(nw, (size_t)-1, "%s: the reference refused the text", what);
    size_t ng = pieces((const char *)s, n, got, batch);
    size_t j = 0, at = 0;
    while (j < ng && j < nw && got[j] == want[j])
        at += got[j++];
    if (j < ng || j < nw) {
        size_t from = at > 20 ? at - 20 : 0, to = at + 40 < n ? at + 40 : n;
        cr_assert_fail("%s (%zu bytes): piece %zu at byte %zu is %u bytes long, the reference's %u; "
                       "text around it: '%.*s'", what, n, j, at, j < ng ? got[j] : 0, j < nw ? want[j] : 0,
                       (int)(to - from), (const char *)s + from);
    }
    free(got);
    free(want);
}

/* Appends code point c as UTF-8 (text.h's encoder). */
static size_t put_utf8(uint8_t *b, uint32_t c) { return text_encode((int32_t)c, (char *)b); }

/* The kinds of character mixed: ASCII letters (and those of the contractions), digits,
 * punctuation and controls, the apostrophe, ' ', the other ASCII white space, white space
 * beyond ASCII, CJK (and a letter beyond the BMP), Cyrillic and accented Latin, combining
 * marks, numbers beyond digits, emoji, and runs of one byte long enough to cross the
 * pre-tokenizer's blocks. */
enum { K_LOWER, K_UPPER, K_CONTR, K_DIGIT, K_PUNCT, K_APOS, K_SPACE, K_ASCII_WS, K_WIDE_WS, K_CJK,
       K_CYRILLIC, K_MARK, K_WIDE_N, K_EMOJI, K_RUN, N_KINDS, K_FIRST_WIDE = K_WIDE_WS };

static uint32_t pick(const char *set, size_t n_set) { return (uint8_t)set[rnd() % n_set]; }

static size_t random_char(uint8_t *b, int kind)
{
    static const char punct[] = "!\"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\x01\x1C\x1F\x7F";
    static const char contr[] = "stmdrevl";
    static const char ws[] = "\t\n\r\x0B\x0C";
    static const uint32_t wide_ws[] = {0xA0, 0x3000, 0x2028, 0x2029, 0x85, 0x1680, 0x2000, 0x200A, 0x202F, 0x205F};
    static const uint32_t wide_n[] = {0xBD, 0xB2, 0xB3, 0x660, 0x669, 0x216B, 0xFF10, 0x2460, 0x1D7CE};
    static const uint32_t cjk[] = {0x4E00, 0x65E5, 0x672C, 0x8A9E, 0x3042, 0x30AB, 0xAC00, 0x20000};
    switch (kind) {
    case K_LOWER: return put_utf8(b, 'a' + rnd() % 26);
    case K_UPPER: return put_utf8(b, 'A' + rnd() % 26);
    case K_CONTR: return put_utf8(b, pick(contr, sizeof contr - 1));
    case K_DIGIT: return put_utf8(b, '0' + rnd() % 10);
    case K_PUNCT: return put_utf8(b, rnd() % 64 ? pick(punct, sizeof punct - 1) : 0);
    case K_APOS: return put_utf8(b, '\'');
    case K_SPACE: return put_utf8(b, ' ');
    case K_ASCII_WS: return put_utf8(b, pick(ws, sizeof ws - 1));
    case K_WIDE_WS: return put_utf8(b, wide_ws[rnd() % 10]);
    case K_CJK: return put_utf8(b, cjk[rnd() % 8] + rnd() % 16);
    case K_CYRILLIC: return put_utf8(b, rnd() % 4 ? 0x410 + rnd() % 64 : 0xE0 + rnd() % 32);
    case K_MARK: return put_utf8(b, 0x300 + rnd() % 0x70);
    case K_WIDE_N: return put_utf8(b, wide_n[rnd() % 9]);
    case K_EMOJI: return put_utf8(b, 0x1F600 + rnd() % 64);
    default: break;
    }
    return 0;
}

/* A random text of at most cap bytes: each case weighs the kinds anew (half the cases are
 * ASCII only), so some are mostly words and spaces, others mostly white space, and so on. */
static size_t random_text(uint8_t *buf, size_t cap)
{
    unsigned w[N_KINDS], total = 0;
    int ascii_only = rnd() % 2;
    for (int k = 0; k < N_KINDS; k++) {
        w[k] = (ascii_only && k >= K_FIRST_WIDE && k != K_RUN) || rnd() % 3 == 0 ? 0 : 1 + rnd() % 16;
        total += w[k];
    }
    if (!total)
        w[K_LOWER] = total = 1;
    size_t n = 0;
    while (n + 4 <= cap) {
        unsigned r = rnd() % total;
        int k = 0;
        while (r >= w[k])
            r -= w[k++];
        if (k == K_RUN) {
            static const char one[] = "a7 .\n'";
            size_t l = 1 + rnd() % 150;
            if (n + l > cap)
                l = cap - n;
            memset(buf + n, one[rnd() % 6], l);
            n += l;
        } else {
            n += random_char(buf + n, k);
        }
    }
    return n;
}

static void random_texts(long count)
{
    uint8_t buf[304];
    for (long c = 0; c < count; c++) {
        size_t cap = rnd() % (1 + rnd() % 301); /* 0..300, short ones more often */
        size_t n = random_text(buf, cap);
        uint8_t *s = malloc(n ? n : 1); /* exactly n bytes: a read past the end is caught by ASan */
        cr_assert(s);
        memcpy(s, buf, n);
        char what[32];
        snprintf(what, sizeof what, "random text %ld", c);
        expect_reference(what, s, n, 1 + rnd() % 64);
        free(s);
    }
}

LongTest(tok_pretok, random_texts_as_the_reference) { random_texts(1000000); } /* the fastest path */
Test(tok_pretok, sse2_blocks_on_random_texts_as_the_reference)
{
    use(TOK_PRETOK_BLOCKS);
    random_texts(300000);
}
Test(tok_pretok, avx2_blocks_on_random_texts_as_the_reference)
{
    use(TOK_PRETOK_AVX2);
    random_texts(300000);
}
Test(tok_pretok, the_state_machine_on_random_texts_as_the_reference)
{
    use(TOK_PRETOK_SCALAR);
    random_texts(200000);
}

/* Random texts after every prefix of 0..96 bytes of a fixed ASCII and UTF-8 text, so that
 * each kind of piece starts and ends at every offset of the 16-, 32- and 64-byte blocks,
 * on every path, each against the reference. */
static void every_offset(int path)
{
    static const char pre[] = "The cat's  1234 \n\t(x) caf\xC3\xA9 \xE6\x97\xA5 ok...\r\n  don't, 'll we've 99 "
                              "zz\xC2\xA0 yy  \xE3\x80\x80-- 'S x'd 3.14 \xD0\x96\xD0\x96 end  ";
    enum { MAX_PREFIX = 96 };
    _Static_assert(sizeof pre > MAX_PREFIX + 1, "the prefixes are parts of pre");
    uint8_t buf[512];
    char what[64];
    if (path)
        use(path);
    for (int round = 0; round < 3000; round++) {
        size_t p = (size_t)round % (MAX_PREFIX + 1);
        while (p && ((uint8_t)pre[p] & 0xC0) == 0x80)
            p--; /* no prefix that ends inside a character */
        memcpy(buf, pre, p);
        size_t n = p + random_text(buf + p, 1 + rnd() % 200);
        uint8_t *s = malloc(n); /* exactly n bytes: a read past the end is caught by ASan */
        cr_assert(s);
        memcpy(s, buf, n);
        snprintf(what, sizeof what, "path %d, prefix %zu, round %d", path, p, round);
        expect_reference(what, s, n, 1 + rnd() % 64);
        free(s);
    }
}

Test(tok_pretok, pieces_at_every_block_offset)
{
    every_offset(TOK_PRETOK_SCALAR);
    every_offset(TOK_PRETOK_BLOCKS);
    pretok = tok_pretok_portable;
    every_offset(0);
}
Test(tok_pretok, avx2_pieces_at_every_block_offset) { every_offset(TOK_PRETOK_AVX2); }

Test(tok_pretok, portable_blocks_on_random_texts_as_the_reference)
{
    pretok = tok_pretok_portable;
    random_texts(200000);
}

/* tok_pretok_texts on up to 40 random texts back to back (short and empty ones often, so
 * that blocks hold several text ends), in batches of random size with random room for
 * marks: the pieces between marks are each text's, the reference's for it alone. */
static void texts_together(long rounds, size_t (*fn)(const uint8_t *, const size_t *, size_t, size_t *, size_t *,
                                                     uint32_t *, size_t, uint32_t *, size_t *, size_t))
{
    enum { TEXTS = 40 };
    uint8_t buf[TEXTS * 304];
    uint32_t got[TEXTS * 304], want[TEXTS * 304], batch[64], marks[8];
    size_t piece_at[TEXTS * 304 + 1];
    for (long r = 0; r < rounds; r++) {
        size_t nt = 1 + rnd() % TEXTS, ends[TEXTS], total = 0;
        for (size_t k = 0; k < nt; k++) {
            size_t cap = rnd() % 3 == 0 ? 0 : rnd() % 4 ? rnd() % 40 : rnd() % 301;
            total += random_text(buf + total, cap);
            ends[k] = total;
        }
        uint8_t *s = malloc(total ? total : 1); /* exactly: a read past the buffer is caught by ASan */
        cr_assert(s);
        memcpy(s, buf, total);
        /* every piece in order, and for each text the index of its first piece */
        size_t text = 0, pos = 0, np = 0, first[TEXTS + 1], done = 0;
        first[0] = 0;
        piece_at[0] = 0;
        while (done < nt) {
            size_t max = 1 + rnd() % 64, max_marks = 1 + rnd() % 8, nm, t0 = text;
            size_t m = fn(s, ends, nt, &text, &pos, batch, max, marks, &nm, max_marks);
            cr_assert(m <= max && nm <= max_marks && (m || nm), "round %ld: no progress", r);
            cr_assert_eq(text, t0 + nm, "round %ld: %zu marks for texts %zu..%zu", r, nm, t0, text);
            for (size_t j = 0; j < nm; j++) {
                cr_assert(marks[j] <= m && (j == 0 || marks[j] >= marks[j - 1]));
                first[t0 + j + 1] = np + marks[j];
            }
            for (size_t j = 0; j < m; j++) {
                got[np] = batch[j];
                piece_at[np + 1] = piece_at[np] + batch[j];
                np++;
            }
            cr_assert_eq(pos, piece_at[np], "round %ld: *pos %zu, the pieces end at %zu", r, pos, piece_at[np]);
            done = text;
        }
        for (size_t k = 0; k < nt; k++) {
            size_t from = k ? ends[k - 1] : 0, n = ends[k] - from, ng = first[k + 1] - first[k];
            cr_assert_eq(piece_at[first[k]], from, "round %ld text %zu starts at piece %zu", r, k, first[k]);
            size_t nw = pretok_ref(s + from, n, want);
            cr_assert(nw == ng && memcmp(got + first[k], want, ng * sizeof *got) == 0,
                      "round %ld text %zu of %zu (%zu bytes): %zu pieces, the reference %zu", r, k, nt, n, ng, nw);
        }
        free(s);
    }
}

LongTest(tok_pretok, texts_together_as_the_reference) { texts_together(100000, tok_pretok_texts); }
Test(tok_pretok, portable_texts_together_as_the_reference) { texts_together(20000, tok_pretok_texts_portable); }
Test(tok_pretok, sse2_texts_together_as_the_reference)
{
    use(TOK_PRETOK_BLOCKS);
    texts_together(30000, tok_pretok_texts);
}
Test(tok_pretok, avx2_texts_together_as_the_reference)
{
    use(TOK_PRETOK_AVX2);
    texts_together(30000, tok_pretok_texts);
}
Test(tok_pretok, the_state_machine_texts_together_as_the_reference)
{
    use(TOK_PRETOK_SCALAR);
    texts_together(20000, tok_pretok_texts);
}

/* The corpus (bench/data/corpus.txt.gz), n bytes (the caller frees). */
static uint8_t *corpus(size_t *len)
{
    FILE *f = popen("gzip -dc " G2E_SRCDIR "/bench/data/corpus.txt.gz", "r");
    cr_assert(f);
    size_t cap = 1 << 24, n = 0, got;
    uint8_t *s = malloc(cap);
    cr_assert(s);
    while ((got = fread(s + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            s = realloc(s, cap *= 2);
            cr_assert(s);
        }
    }
    cr_assert_eq(pclose(f), 0);
    cr_assert_gt(n, 10000000, "the corpus is %zu bytes", n);
    *len = n;
    return s;
}

Test(tok_pretok, the_corpus_as_the_reference)
{
    size_t n;
    uint8_t *s = corpus(&n);
    expect_reference("the corpus", s, n, 64);
    expect_reference("the corpus", s, n, 5);
    pretok = tok_pretok_portable;
    expect_reference("the corpus (portable blocks)", s, n, 64);
    use(TOK_PRETOK_BLOCKS);
    expect_reference("the corpus (SSE2 blocks)", s, n, 64);
    use(TOK_PRETOK_SCALAR);
    expect_reference("the corpus (the state machine alone)", s, n, 64);
    free(s);
}

Test(tok_pretok, the_corpus_as_the_reference_avx2)
{
    use(TOK_PRETOK_AVX2);
    size_t n;
    uint8_t *s = corpus(&n);
    expect_reference("the corpus (AVX2 blocks)", s, n, 64);
    expect_reference("the corpus (AVX2 blocks)", s, n, 3);
    free(s);
}

/* The conformance texts against the reference, on `path` (0: the fastest). */
static void conformance(int which)
{
    if (which)
        use(which);
    static const char *const files[] = {"/tests/data/tokenizer_cases.jsonl", "/tests/data/tokenizer_extra_cases.jsonl",
                                        "/tests/data/tokenizer_long_cases.jsonl"};
    size_t texts = 0;
    for (size_t fi = 0; fi < 3; fi++) {
        char path[4096], what[128];
        snprintf(path, sizeof path, "%s%s", G2E_SRCDIR, files[fi]);
        FILE *f = fopen(path, "r");
        cr_assert(f, "%s", path);
        char *line = NULL;
        size_t cap = 0;
        for (size_t no = 1; getline(&line, &cap, f) > 0; no++) {
            cJSON *j = cJSON_Parse(line);
            cr_assert(j && cJSON_IsString(cJSON_GetObjectItem(j, "text")), "%s:%zu: no text", path, no);
            const char *text = cJSON_GetObjectItem(j, "text")->valuestring;
            size_t n = strlen(text);
            uint8_t *s = malloc(n ? n : 1); /* exactly n bytes, as above */
            cr_assert(s);
            memcpy(s, text, n);
            snprintf(what, sizeof what, "%s:%zu (path %d)", files[fi], no, tok_pretok_path());
            expect_reference(what, s, n, 64);
            free(s);
            cJSON_Delete(j);
            texts++;
        }
        free(line);
        fclose(f);
    }
    cr_expect_gt(texts, 2000, "only %zu conformance texts", texts);
}

Test(tok_pretok, the_conformance_texts_as_the_reference) { conformance(0); }
Test(tok_pretok, the_conformance_texts_as_the_reference_sse2) { conformance(TOK_PRETOK_BLOCKS); }
Test(tok_pretok, the_conformance_texts_as_the_reference_avx2) { conformance(TOK_PRETOK_AVX2); }
Test(tok_pretok, the_conformance_texts_as_the_reference_state_machine) { conformance(TOK_PRETOK_SCALAR); }
