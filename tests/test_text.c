/* SPDX-License-Identifier: MIT */
/* test_text.c — the UTF-8 toolkit against independent references: CPython's UTF-8
 * decoder (tests/text_ref.py, which reports every maximal subpart through an error
 * handler) on every short byte pattern that matters, utf8proc's encoder on every code
 * point, and hand-built escaping and width cases. */
#include "text.h"
#include "support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

/* Interesting byte values for each position of a 4-byte window. */
static const unsigned char PICK[] = {0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0,
                                     0xBF, 0xC0, 0xC2, 0xE0, 0xED, 0xF0, 0xF4, 0xFF};
#define NP (sizeof PICK)

/* Our steps of s[0..n) as the oracle prints them: "cp:len cp:len ...". */
static void our_steps(const unsigned char *s, size_t n, char *buf, size_t cap)
{
    size_t o = 0, k;
    buf[0] = '\0';
    for (size_t i = 0; i < n; i += k) {
        int32_t cp = text_step((const char *)s + i, n - i, &k);
        o += (size_t)snprintf(buf + o, cap - o, "%s%d:%zu", i ? " " : "", (int)cp, k);
    }
}

Test(text, steps_match_cpython_maximal_subparts)
{
    /* every lead byte 0x80..0xFF followed by 0..3 bytes from PICK, plus all lengths */
    char *dir = test_tmpdir("text-steps");
    char *in = path_join(dir, "in.bin"), *outp = path_join(dir, "out.txt");
    size_t cap = 16u << 20, o = 0, ncase = 0;
    unsigned char *blob = malloc(cap);
    unsigned char(*cases)[5] = malloc(sizeof *cases * 128 * (1 + NP + NP * NP + NP * NP * NP));
    cr_assert(blob && cases);
    for (unsigned lead = 0x80; lead <= 0xFF; lead++)
        for (size_t len = 1; len <= 4; len++) {
            size_t combos = len == 1 ? 1 : len == 2 ? NP : len == 3 ? NP * NP : NP * NP * NP;
            for (size_t c = 0; c < combos; c++) {
                unsigned char *e = cases[ncase++];
                e[0] = (unsigned char)len;
                e[1] = (unsigned char)lead;
                size_t x = c;
                for (size_t j = 2; j <= len; j++, x /= NP)
                    e[j] = PICK[x % NP];
                blob[o++] = (unsigned char)len, blob[o++] = 0;
                memcpy(blob + o, e + 1, len);
                o += len;
            }
        }
    write_file(in, blob, o);
    char *script = path_join(G2E_SRCDIR, "tests/text_ref.py");
    run_result r = run_argv((char *[]){"/usr/bin/python3", script, "steps", in, outp, NULL}, NULL, 0,
                            NULL, NULL);
    cr_assert_eq(r.status, 0, "text_ref.py: %s", r.err);
    size_t olen;
    char *want = read_file(outp, &olen);
    cr_assert(want);
    char *line = want, mine[256];
    size_t bad = 0;
    for (size_t i = 0; i < ncase; i++) {
        char *nl = strchr(line, '\n');
        cr_assert(nl, "oracle output ends early at case %zu", i);
        *nl = '\0';
        our_steps(cases[i] + 1, cases[i][0], mine, sizeof mine);
        if (strcmp(mine, line) != 0 && bad++ < 5)
            cr_expect_fail("case %zu (%zu bytes, lead %02X %02X %02X %02X): ours '%s', CPython '%s'", i,
                           (size_t)cases[i][0], cases[i][1], cases[i][2], cases[i][3], cases[i][4],
                           mine, line);
        /* validate agrees with the steps */
        size_t n = cases[i][0], k, first_bad = n;
        for (size_t j = 0; j < n; j += k)
            if (text_step((const char *)cases[i] + 1 + j, n - j, &k) < 0 && first_bad == n)
                first_bad = j;
        cr_expect_eq(text_validate((const char *)cases[i] + 1, n), first_bad);
        line = nl + 1;
    }
    cr_expect_eq(bad, 0, "%zu of %zu cases differ from CPython", bad, ncase);
    cr_expect(ncase > 500000);
    run_free(&r);
    free(want), free(blob), free(cases), free(script), free(in), free(outp), free(dir);
}

Test(text, every_code_point_round_trips_and_matches_utf8proc)
{
    for (int32_t cp = 0; cp <= 0x10FFFF; cp++) {
        char mine[4];
        utf8proc_uint8_t ref[4];
        size_t n = text_encode(cp, mine);
        if (cp >= 0xD800 && cp <= 0xDFFF) {
            cr_assert_eq(n, 0, "surrogate U+%04X encoded", (unsigned)cp);
            size_t k;
            /* the 3-byte pattern a surrogate would have is ill-formed at its second byte */
            char sur[3] = {(char)0xED, (char)(0x80 | (cp >> 6 & 0x3F)), (char)(0x80 | (cp & 0x3F))};
            cr_assert_eq(text_step(sur, 3, &k), TEXT_BAD);
            cr_assert_eq(k, 1);
            continue;
        }
        utf8proc_ssize_t rn = utf8proc_encode_char(cp, ref);
        cr_assert_eq(n, (size_t)rn, "length of U+%04X", (unsigned)cp);
        cr_assert(memcmp(mine, ref, n) == 0, "bytes of U+%04X", (unsigned)cp);
        size_t k;
        cr_assert_eq(text_step(mine, n, &k), cp, "decode of U+%04X", (unsigned)cp);
        cr_assert_eq(k, n);
        cr_assert_eq(text_validate(mine, n), n);
    }
    char out[4];
    cr_expect_eq(text_encode(0x110000, out), 0);
    cr_expect_eq(text_encode(-1, out), 0);
}

Test(text, validate_finds_the_first_bad_byte_past_ascii_runs)
{
    const char *s = "0123456789abcdefghij\xE7\x8A\xAC" "0123456789" "\xE7\x8A" "xyz";
    size_t n = strlen(s);
    cr_expect_eq(text_validate(s, n), 33);
    cr_expect_eq(text_validate(s, 33), 33);
    cr_expect_eq(text_validate(s, 22), 20, "a character cut by the end of the text is ill-formed");
    cr_expect_eq(text_validate(NULL, 0), 0);
}

/* The first bad byte by the definition: where text_step first says TEXT_BAD. */
static size_t first_bad(const unsigned char *s, size_t n)
{
    size_t k;
    for (size_t i = 0; i < n; i += k)
        if (text_step((const char *)s + i, n - i, &k) == TEXT_BAD)
            return i;
    return n;
}

static void same_answer(const unsigned char *s, size_t n, const char *what, size_t at)
{
    size_t want = first_bad(s, n), scalar = text_validate_scalar((const char *)s, n),
           got = text_validate((const char *)s, n);
    if (want != scalar || want != got)
        cr_assert_fail("%s at %zu, %zu bytes: definition %zu, scalar %zu, text_validate %zu", what, at, n, want,
                       scalar, got);
}

/* text_validate (AVX2 where the CPU has it) against the scalar check and the definition:
 * every 4-byte window of PICK's values at offsets that straddle the 32-byte blocks, in
 * ASCII and in Japanese, each text cut short too; then random mixtures of well-formed
 * characters and broken ones. */
Test(text, validate_paths_agree_with_the_definition)
{
    cr_log_info("text_validate uses AVX2 here: %s", text_validate_simd() ? "yes" : "no");
    static const char *const BACK[] = {"a", "\xE3\x81\x82" /* あ */};
    unsigned char buf[96];
    for (int b = 0; b < 2; b++) {
        size_t bl = strlen(BACK[b]);
        for (size_t i = 0; i + bl <= sizeof buf; i += bl)
            memcpy(buf + i, BACK[b], bl);
        unsigned char keep[96];
        memcpy(keep, buf, sizeof buf);
        for (size_t at = 27; at <= 34; at += b ? 3 : 1)
            for (size_t w = 0; w < NP * NP * NP * NP; w++) {
                for (int j = 0; j < 4; j++)
                    buf[at + j] = PICK[w / (j == 0 ? 1 : j == 1 ? NP : j == 2 ? NP * NP : NP * NP * NP) % NP];
                same_answer(buf, 66, "window", at);
                same_answer(buf, at + 2 + w % 3, "window, cut", at);
                memcpy(buf + at, keep + at, 4);
            }
    }
    static const char *const PARTS[] = {"a", " ", "\n", "\xC2\x80", "\xDF\xBF", "\xE0\xA0\x80", "\xE3\x81\x82",
                                        "\xED\x9F\xBF", "\xEE\x80\x80", "\xEF\xBF\xBF", "\xF0\x90\x80\x80",
                                        "\xF4\x8F\xBF\xBF", "\xF3\xA0\x80\x80",
                                        /* broken */ "\x80", "\xBF", "\xC0\x80", "\xC1\xBF", "\xE0\x80\x80",
                                        "\xED\xA0\x80", "\xF0\x80\x80\x80", "\xF4\x90\x80\x80", "\xF5\x80\x80\x80",
                                        "\xFF", "\xE3\x81", "\xF0\x90\x80", "\xC2"};
    size_t np = sizeof PARTS / sizeof PARTS[0], n_good = 13;
    unsigned seed = 12345;
    unsigned char text[400];
    for (int r = 0; r < 40000; r++) {
        size_t n = 0, want = (seed = seed * 1103515245u + 12345u) >> 16 & 255;
        int broken = r % 4 == 0; /* one text in four may hold broken parts */
        while (n < want) {
            seed = seed * 1103515245u + 12345u;
            size_t k = (seed >> 16) % (broken && (seed >> 8) % 16 == 0 ? np : n_good);
            size_t l = strlen(PARTS[k]);
            memcpy(text + n, PARTS[k], l);
            n += l;
        }
        same_answer(text, n, "mixture", (size_t)r);
    }
}

Test(text, display_width)
{
    cr_expect_eq(text_width("abc", 3), 3);
    cr_expect_eq(text_width("犬が猫", strlen("犬が猫")), 6);
    cr_expect_eq(text_width("e\xCC\x81", 3), 1, "a combining acute accent takes no column");
    cr_expect_eq(text_width("ｱ", strlen("ｱ")), 1, "halfwidth katakana");
    cr_expect_eq(text_width("\xE7\x8A", 2), 1, "one maximal subpart counts one column");
    cr_expect_eq(text_width("\x80\x80", 2), 2);
    cr_expect_eq(text_width("\t\x1B", 2), 0, "controls take none");
    cr_expect_eq(text_cp_width(0x3000), 2);
    cr_expect_eq(text_cp_width(-5), 0);
}

static void expect_escape(const char *in, size_t n, unsigned flags, const char *want)
{
    char *got = text_escape(in, n, flags);
    cr_assert(got);
    cr_expect_str_eq(got, want);
    cr_expect_eq(text_escape_buf(NULL, 0, in, n, flags), strlen(want));
    free(got);
}

Test(text, escaping_for_terminals)
{
    /* ESC, BEL, DEL, a C1 CSI, a cut character and a stray continuation byte */
    const char *s = "a\x1B[31mb\x07\x7F\xC2\x9B" "c\xE7\x8A" "d\x80";
    expect_escape(s, strlen(s), 0, "a\\x1B[31mb\\x07\\x7F\\xC2\\x9Bc\\xE7\\x8Ad\\x80");
    expect_escape("x y\n\tz\\", 7, 0, "x y\\x0A\\x09z\\");
    expect_escape("x y\n\tz\\", 7, TEXT_ESC_VISIBLE, "x\xE2\x90\xA3y\xE2\x86\xB5\xE2\x86\x92z\\\\");
    expect_escape("a\0b", 3, 0, "a\\x00b");
    expect_escape("犬", strlen("犬"), TEXT_ESC_VISIBLE, "犬");
    /* bidi controls and separators only with TEXT_ESC_BIDI */
    const char *bidi = "ab\xE2\x80\xAE" "cd\xE2\x80\xA8";
    expect_escape(bidi, strlen(bidi), 0, bidi);
    expect_escape(bidi, strlen(bidi), TEXT_ESC_BIDI, "ab\\u{202E}cd\\u{2028}");
    expect_escape("", 0, 0, "");
}

Test(text, escape_buf_truncates_at_whole_escapes)
{
    const char *s = "ab\x1B" "cd";
    char buf[6];
    size_t need = text_escape_buf(buf, sizeof buf, s, 5, 0);
    cr_expect_eq(need, 8);
    cr_expect_str_eq(buf, "ab", "\\x1B does not fit after 'ab' in 5 bytes + NUL: stop before it");
    char big[9];
    cr_expect_eq(text_escape_buf(big, sizeof big, s, 5, 0), 8);
    cr_expect_str_eq(big, "ab\\x1Bcd");
    char one[1] = {'z'};
    text_escape_buf(one, 1, s, 5, 0);
    cr_expect_eq(one[0], '\0');
    /* a multi-byte character is never cut */
    char four[4];
    text_escape_buf(four, sizeof four, "a犬", strlen("a犬"), 0);
    cr_expect_str_eq(four, "a");
}

/* The words and the English verdict by their definition (text.h), decoded by utf8proc:
 * runs between white space (ASCII's six, U+00A0, U+3000) holding an ASCII letter; ASCII
 * letters against characters from U+0080 (an ill-formed byte is neither). */
static size_t words_ref(const char *s, size_t n, int *english)
{
    size_t words = 0, ascii = 0, other = 0;
    int lettered = 0;
    for (size_t i = 0; i < n;) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s + i, (utf8proc_ssize_t)(n - i), &cp);
        if (k <= 0 || (cp >= 0xD800 && cp <= 0xDFFF)) {
            i++;
            continue;
        }
        i += (size_t)k;
        if (cp == ' ' || (cp >= '\t' && cp <= '\r') || cp == 0xA0 || cp == 0x3000) {
            words += lettered;
            lettered = 0;
        } else if ((cp | 0x20) >= 'a' && (cp | 0x20) <= 'z') {
            lettered = 1;
            ascii++;
        } else {
            other += cp >= 0x80;
        }
    }
    *english = ascii > 0 && ascii >= 9 * other;
    return words + lettered;
}

Test(text, english_words_by_their_definition)
{
    static const char *const PARTS[] = {"word", "GPT-2's", "1024", " ", "  ", "\t", "\n", "\r\n", "\v", "\f",
                                        "\xc2\xa0", "\xe3\x80\x80", "\xe7\x8a\xac", "\xc3\xa9", "\xff", "\xe3\x80",
                                        "\xf0\x9f\x98\x80", "x", "-", "\x00", "\xed\xa0\x80", "Z"};
    const size_t np = sizeof PARTS / sizeof *PARTS;
    char buf[4096];
    size_t at[700]; /* where each part starts: character boundaries, where stretches may end */
    unsigned seed = 12345;
    for (int round = 0; round < 50000; round++) {
        /* short texts of any parts; long ones (the 64-byte blocks' path) mostly ASCII, with
         * parts from U+0080 crossing blocks' ends now and then */
        int long_one = round % 2, most = long_one ? 600 : 40;
        size_t n = 0, n_parts = 0;
        for (int k = (int)((seed = seed * 1103515245u + 12345u) >> 16) % most; k-- > 0;) {
            unsigned r = (seed = seed * 1103515245u + 12345u) >> 16;
            const char *p = long_one && r % 16 ? PARTS[r % 10 < 5 ? 0 : r % 10 < 8 ? 3 : r % 10 < 9 ? 2 : 6]
                                               : PARTS[r % np];
            size_t pn = *p ? strlen(p) : 1; /* "\x00": one NUL byte */
            at[n_parts++] = n;
            memcpy(buf + n, p, pn);
            n += pn;
        }
        int en = -1, en_ref = -1;
        size_t w = text_english_words(buf, n, &en), w_ref = words_ref(buf, n, &en_ref);
        cr_assert_eq(w, w_ref, "round %d: %zu words, the definition says %zu", round, w, w_ref);
        cr_assert_eq(en, en_ref, "round %d: english %d, the definition says %d", round, en, en_ref);
        /* the same text in up to 5 stretches (some empty), counted apart and joined in order,
         * as the threads' chunks and a stream's reads are */
        size_t cut[6] = {0}, nc = 1;
        for (int k = ((seed = seed * 1103515245u + 12345u) >> 16) % 5; k-- > 0 && n_parts;) {
            size_t c = at[((seed = seed * 1103515245u + 12345u) >> 16) % n_parts];
            cut[nc] = c > cut[nc - 1] ? c : cut[nc - 1];
            nc++;
        }
        cut[nc] = n;
        text_words all = {0};
        for (size_t k = 0; k < nc; k++) {
            text_words part;
            text_words_count(buf + cut[k], cut[k + 1] - cut[k], &part);
            text_words_join(&all, &part);
        }
        cr_assert_eq(all.words, w_ref, "round %d: %zu words in %zu stretches, the definition says %zu", round,
                     all.words, nc, w_ref);
        cr_assert_eq(text_words_english(&all), en_ref, "round %d: english in %zu stretches", round, nc);
    }
    int en;
    cr_expect_eq(text_english_words("The dog\xc2\xa0" "chased\xe3\x80\x80the cat", 25, &en), 5);
    cr_expect_eq(en, 1); /* 16 letters; U+00A0 and U+3000 are white space, not letters */
    cr_expect_eq(text_english_words("the dog \xe7\x8a\xac\xe3\x81\x8c", 14, &en), 2);
    cr_expect_eq(en, 0); /* 6 letters against 2 characters from U+0080: under 9 to 1 */
}
