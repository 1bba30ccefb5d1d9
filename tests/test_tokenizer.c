/* SPDX-License-Identifier: MIT */
/* test_tokenizer.c — the tokenizer library against independent references: tiktoken's IDs
 * (tests/data/tokenizer_*.jsonl, made by tiktoken 1.0.22 through peer-tokenize.js), the
 * published sha256 of GPT-2's files, Python's errors="replace" results, utf8proc's UTF-8
 * validation; and properties (round trip, offsets, no crash) on random input. */
#include "sha256.h"
#include "support.h"
#include "engine.h"
#include "tok_internal.h"
#include "tokenizer.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#define TOKDIR G2E_SRCDIR "/tokenizer"

static tok_tokenizer *open_repo(void)
{
    g2e_err err;
    tok_tokenizer *t = NULL;
    int rc = tok_open(TOKDIR, 0, &t, &err);
    cr_assert_eq(rc, 0, "%s", err.msg);
    return t;
}

static void expect_ids(tok_tokenizer *t, const char *text, size_t len, tok_special sp, const uint32_t *want,
                       size_t n_want)
{
    tok_ids r;
    g2e_err err;
    int rc = tok_encode(t, text, len, sp, 0, &r, NULL, &err);
    cr_assert_eq(rc, 0, "%s", err.msg);
    cr_expect_eq(r.n, n_want, "'%s': %zu tokens, expected %zu", text, r.n, n_want);
    for (size_t i = 0; i < r.n && i < n_want; i++)
        cr_expect_eq(r.ids[i], want[i], "'%s' token %zu: %u, expected %u", text, i, r.ids[i], want[i]);
    tok_ids_free(&r);
}
#define EXPECT(t, s, sp, ...)                                                              \
    do {                                                                                   \
        const uint32_t w_[] = {__VA_ARGS__};                                              \
        expect_ids(t, s, sizeof(s) - 1, sp, w_, sizeof w_ / sizeof w_[0]);                 \
    } while (0)

/* ------------------------------------------------------------ data files */

static char *sha256_of(const char *path)
{
    char *argv[] = {"/usr/bin/sha256sum", (char *)path, NULL};
    run_result r = run_argv(argv, NULL, 0, NULL, NULL);
    cr_assert_eq(r.status, 0, "sha256sum %s: %s", path, r.err);
    char *h = strndup(r.out, 64);
    run_free(&r);
    return h;
}

Test(tokenizer_data, files_are_gpt2s_own)
{
    char *a = sha256_of(TOKDIR "/vocab.json"), *b = sha256_of(TOKDIR "/merges.txt");
    cr_expect_str_eq(a, "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783");
    cr_expect_str_eq(b, "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5");
    free(a);
    free(b);
}

Test(tokenizer_data, compiled_form_equals_the_parsed_files)
{
    g2e_err err;
    tok_tokenizer *p = NULL, *c = NULL;
    cr_assert_eq(tok_open(TOKDIR, TOK_OPEN_PARSE, &p, &err), 0, "%s", err.msg);
    cr_assert_eq(tok_open_builtin(&c, &err), 0, "%s", err.msg);
    cr_expect(!tok_is_compiled(p));
    cr_expect(tok_is_compiled(c));
    cr_assert_eq(tok_n_vocab(p), 50257);
    cr_assert_eq(tok_n_vocab(c), 50257);
    for (uint32_t id = 0; id < 50257; id++) {
        const uint8_t *a, *b;
        size_t la, lb;
        cr_assert_eq(tok_piece(p, id, &a, &la, NULL), 0);
        cr_assert_eq(tok_piece(c, id, &b, &lb, NULL), 0);
        cr_assert(la == lb && memcmp(a, b, la) == 0, "token %u differs", id);
    }
    const uint8_t *e;
    size_t le;
    cr_expect_eq(tok_piece(c, 50256, &e, &le, NULL), 0);
    cr_expect(le == 13 && memcmp(e, "<|endoftext|>", 13) == 0);
    cr_expect_eq(tok_piece(c, 50257, &e, &le, &err), TOK_E_ID);
    /* the repository's files are recognised, so the fast path is taken */
    tok_tokenizer *r = open_repo();
    cr_expect(tok_is_compiled(r));
    cr_expect_str_eq(tok_source(r), TOKDIR);
    tok_close(r);
    tok_close(p);
    tok_close(c);
    tok_close(NULL);
}

/* The index compiled into tokenizer_data.c (used as is, nothing built at load) is the one
 * the library builds from the files, slot for slot. */
Test(tokenizer_data, compiled_index_equals_the_built_one)
{
    g2e_err err;
    tok_tokenizer *p = NULL, *c = NULL;
    cr_assert_eq(tok_open(TOKDIR, TOK_OPEN_PARSE, &p, &err), 0, "%s", err.msg);
    cr_assert_eq(tok_open_builtin(&c, &err), 0, "%s", err.msg);
    cr_expect(c->static_index, "the compiled-in index is stale: regenerate tokenizer_data.c");
    cr_expect(!p->static_index);
    cr_assert_eq(c->mask, p->mask);
    cr_expect(memcmp(c->slots, p->slots, (p->mask + 1) * sizeof *p->slots) == 0, "slots differ");
    cr_expect(memcmp(c->pair2p1, p->pair2p1, 65536 * sizeof *p->pair2p1) == 0, "pairs differ");
    cr_expect(memcmp(c->byte_id, p->byte_id, sizeof p->byte_id) == 0);
    cr_expect(memcmp(c->joins, p->joins, 1024 * sizeof *p->joins) == 0, "joins differ");
    cr_expect_eq(c->max_len, p->max_len);
    tok_close(p);
    tok_close(c);
}

/* The byte pairs that stand side by side in some token (where BPE may join, tok_bpe.c):
 * 2,693 of the 65,536, counted by Python over vocab.json's tokens mapped back to bytes
 * (bench/TOKENIZER_SIMD.md, round 12), among them "th" and the two pairs inside "の"
 * (E3 81 AE); between two characters of "日本" (E6 97 A5 | E6 9C AC) no token has A5 E6. */
Test(tokenizer_data, joins_are_the_vocabularys_byte_pairs)
{
    tok_tokenizer *t = open_repo();
    size_t set = 0;
    for (size_t w = 0; w < 1024; w++)
        set += (size_t)__builtin_popcountll(t->joins[w]);
    cr_expect_eq(set, 2693);
#define JOINED(a, b) (t->joins[((a) << 8 | (b)) >> 6] >> (((a) << 8 | (b)) & 63) & 1)
    cr_expect(JOINED('t', 'h'));
    cr_expect(JOINED(0xE3, 0x81) && JOINED(0x81, 0xAE));
    cr_expect(!JOINED(0xA5, 0xE6));
#undef JOINED
    tok_close(t);
}

/* The index's hash (key_hash: mum, a 64 x 64 -> 128-bit product folded) is the same with
 * the compiler's 128-bit integers and without them (mum_32, from 32-bit halves), or the
 * compiled-in index would be stale on such a compiler: both on the edges (zeros, all ones,
 * carries through every half) and on a million pseudo-random pairs. */
Test(tokenizer_data, the_hash_is_the_same_without_128_bit_integers)
{
    static const uint64_t edge[] = {0, 1, 2, 0xFFFFFFFFu, 0x100000000ull, 0xFFFFFFFF00000000ull,
                                    0x8000000000000000ull, UINT64_MAX, UINT64_MAX - 1, KEY_S0, KEY_S1, KEY_S2};
    size_t ne = sizeof edge / sizeof edge[0];
    for (size_t i = 0; i < ne; i++)
        for (size_t j = 0; j < ne; j++)
            cr_assert_eq(mum(edge[i], edge[j]), mum_32(edge[i], edge[j]), "%llx x %llx",
                         (unsigned long long)edge[i], (unsigned long long)edge[j]);
    uint64_t x = 0x243F6A8885A308D3ull; /* splitmix64 */
    for (int k = 0; k < 1000000; k++) {
        uint64_t a = (x += 0x9E3779B97F4A7C15ull), b;
        a = (a ^ (a >> 30)) * 0xBF58476D1CE4E5B9ull;
        a = (a ^ (a >> 27)) * 0x94D049BB133111EBull;
        a ^= a >> 31;
        b = a * 0xD6E8FEB86659FD93ull ^ (a >> 17);
        cr_assert_eq(mum(a, b), mum_32(a, b), "%llx x %llx", (unsigned long long)a, (unsigned long long)b);
    }
}

static void copy_file(const char *from, const char *to)
{
    size_t n;
    char *d = read_file(from, &n);
    cr_assert(d != NULL, "%s", from);
    write_file(to, d, n);
    free(d);
}

Test(tokenizer_data, openai_spelling_and_edited_files)
{
    char *dir = test_tmpdir("spelling");
    char *v = path_join(dir, "encoder.json"), *m = path_join(dir, "vocab.bpe");
    copy_file(TOKDIR "/vocab.json", v);
    copy_file(TOKDIR "/merges.txt", m);
    g2e_err err;
    tok_tokenizer *t = NULL;
    cr_assert_eq(tok_open(dir, 0, &t, &err), 0, "%s", err.msg);
    cr_expect(tok_is_compiled(t));
    EXPECT(t, "Hello world", TOK_SPECIAL_TEXT, 15496, 995);
    tok_close(t);

    /* the same data with different bytes (an added space): parsed, not the compiled form */
    size_t n;
    char *d = read_file(TOKDIR "/vocab.json", &n);
    char *d2 = malloc(n + 1);
    d2[0] = ' ';
    memcpy(d2 + 1, d, n);
    write_file(v, d2, n + 1);
    cr_assert_eq(tok_open(dir, 0, &t, &err), 0, "%s", err.msg);
    cr_expect(!tok_is_compiled(t));
    EXPECT(t, "Hello world", TOK_SPECIAL_TEXT, 15496, 995);
    tok_close(t);

    /* the same size with one byte changed, anywhere (the hash's first block, a 64 KB read's
     * edge, its tail): parsed or refused, never taken for the compiled form */
    write_file(v, d, n);
    size_t en;
    char *ed = read_file(TOKDIR "/merges.txt", &en);
    size_t at[] = {9, 65535, 65536, en - 3};
    for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
        ed[at[k]] ^= 1;
        write_file(m, ed, en);
        tok_tokenizer *e = NULL;
        int rc = tok_open(dir, 0, &e, &err);
        cr_expect(rc != 0 || !tok_is_compiled(e), "byte %zu changed, yet the compiled form", at[k]);
        tok_close(e);
        ed[at[k]] ^= 1;
    }
    write_file(m, ed, en);
    free(ed);

    /* truncated JSON: an error naming the file */
    write_file(v, d, n / 2);
    cr_expect_eq(tok_open(dir, 0, &t, &err), TOK_E_VOCAB);
    cr_expect(t == NULL);
    cr_expect(strstr(err.msg, "encoder.json") != NULL, "%s", err.msg);

    /* an empty vocabulary file: said so (it maps to no buffer; memchr(NULL) was UB) */
    write_file(v, d, 0);
    cr_expect_eq(tok_open(dir, 0, &t, &err), TOK_E_VOCAB);
    cr_expect(strstr(err.msg, "empty") != NULL, "%s", err.msg);

    /* merges out of order: tiktoken's rank == ID no longer holds */
    write_file(v, d, n);
    size_t mn;
    char *md = read_file(TOKDIR "/merges.txt", &mn);
    char *nl1 = strchr(md, '\n'), *nl2 = strchr(nl1 + 1, '\n'), *nl3 = strchr(nl2 + 1, '\n');
    /* swap the first two merge lines ("Ġ t" and "Ġ a", same length) */
    cr_assert_eq(nl2 - nl1, nl3 - nl2);
    char tmp[16];
    size_t l = (size_t)(nl2 - nl1);
    memcpy(tmp, nl1, l);
    memcpy(nl1, nl2, l);
    memcpy(nl2, tmp, l);
    write_file(m, md, mn);
    cr_expect_eq(tok_open(dir, 0, &t, &err), TOK_E_MERGES);
    cr_expect(strstr(err.msg, "vocab.bpe") != NULL, "%s", err.msg);

    /* a key cut short at \u0000 (cJSON's strings end there) is refused, not misread */
    size_t zl = n + 32;
    char *z = malloc(zl);
    int k = snprintf(z, zl, "{\"\\u0000x\": 0, ");
    memcpy(z + k, d + 1, n - 1); /* the rest of the object after its '{' */
    write_file(v, z, (size_t)k + n - 1);
    cr_expect_eq(tok_open(dir, 0, &t, &err), TOK_E_VOCAB);
    cr_expect(strstr(err.msg, "NUL") != NULL, "%s", err.msg);
    free(z);

    /* no files at all */
    remove(v);
    cr_expect_eq(tok_open(dir, 0, &t, &err), TOK_E_NOT_FOUND);
    cr_expect(strstr(err.msg, dir) != NULL, "%s", err.msg);
    cr_expect_eq(tok_open("/nonexistent/dir", 0, &t, &err), TOK_E_NOT_FOUND);
    cr_expect(strstr(err.msg, "/nonexistent/dir") != NULL, "%s", err.msg);
    free(md);
    free(d);
    free(d2);
    free(v);
    free(m);
    free(dir);
}

Test(tokenizer_data, locate_order)
{
    g2e_err err;
    tok_tokenizer *t = NULL;
    /* an explicit directory wins and its failure is not silently skipped */
    cr_expect_eq(tok_locate("/nonexistent/tok", &t, &err), TOK_E_NOT_FOUND);
    cr_expect(strstr(err.msg, "/nonexistent/tok") != NULL, "%s", err.msg);
    setenv(TOK_ENV, "/nonexistent/env", 1);
    cr_expect_eq(tok_locate(NULL, &t, &err), TOK_E_NOT_FOUND);
    cr_expect(strstr(err.msg, "GPT2_EMBED_TOKENIZER") && strstr(err.msg, "/nonexistent/env"), "%s", err.msg);
    setenv(TOK_ENV, TOKDIR, 1);
    cr_assert_eq(tok_locate(NULL, &t, &err), 0, "%s", err.msg);
    cr_expect_str_eq(tok_source(t), TOKDIR);
    tok_close(t);
    unsetenv(TOK_ENV);
    /* the test binary has no tokenizer/ beside it: installed dir or the compiled-in copy */
    cr_assert_eq(tok_locate(NULL, &t, &err), 0, "%s", err.msg);
    cr_expect(tok_is_compiled(t));
    tok_close(t);
}

/* ------------------------------------------------------------ conformance with tiktoken */

static char **read_lines(const char *path, size_t *n)
{
    size_t len;
    char *d = read_file(path, &len);
    cr_assert(d != NULL, "%s", path);
    size_t cap = 2048, k = 0;
    char **v = malloc(cap * sizeof *v);
    for (char *p = d, *e; p < d + len; p = e + 1) {
        e = memchr(p, '\n', (size_t)(d + len - p));
        if (!e)
            e = d + len;
        if (e > p) {
            if (k == cap)
                v = realloc(v, (cap *= 2) * sizeof *v);
            v[k++] = strndup(p, (size_t)(e - p));
        }
    }
    free(d);
    *n = k;
    return v;
}

static void run_conformance(const char *cases, const char *expected, size_t n_expected)
{
    size_t nc, ne;
    char **c = read_lines(cases, &nc), **e = read_lines(expected, &ne);
    cr_assert_eq(nc, n_expected);
    cr_assert_eq(ne, n_expected);
    tok_tokenizer *t = open_repo();
    size_t failed = 0;
    for (size_t i = 0; i < nc; i++) {
        cJSON *cj = cJSON_Parse(c[i]), *ej = cJSON_Parse(e[i]);
        cr_assert(cj && ej, "line %zu", i + 1);
        const char *text = cJSON_GetObjectItem(cj, "text")->valuestring;
        cJSON *ids = cJSON_GetObjectItem(ej, "ids");
        size_t len = strlen(text);
        tok_ids r;
        g2e_err err;
        int rc = tok_encode(t, text, len, TOK_SPECIAL_TEXT, 0, &r, NULL, &err);
        cr_assert_eq(rc, 0, "case %zu: %s", i + 1, err.msg);
        int ok = (size_t)cJSON_GetArraySize(ids) == r.n;
        for (size_t k = 0; ok && k < r.n; k++)
            ok = (uint32_t)cJSON_GetArrayItem(ids, (int)k)->valuedouble == r.ids[k];
        if (!ok && failed++ < 5)
            cr_log_error("case %zu differs from tiktoken: %s", i + 1, c[i]);
        /* offsets: each token's bytes are exactly the input bytes it covers */
        cr_assert_eq(r.offsets[0], r.n ? 0 : len);
        cr_assert_eq(r.offsets[r.n], len);
        for (size_t k = 0; k < r.n; k++) {
            const uint8_t *p;
            size_t pl;
            tok_piece(t, r.ids[k], &p, &pl, NULL);
            cr_assert_eq(r.offsets[k + 1] - r.offsets[k], pl, "case %zu token %zu", i + 1, k);
            cr_assert(memcmp(text + r.offsets[k], p, pl) == 0);
        }
        /* and decode is the exact inverse */
        char *back;
        size_t bl;
        cr_assert_eq(tok_decode(t, r.ids, r.n, &back, &bl, &err), 0);
        cr_assert(bl == len && memcmp(back, text, len) == 0, "case %zu round trip", i + 1);
        free(back);
        tok_ids_free(&r);
        cJSON_Delete(cj);
        cJSON_Delete(ej);
        free(c[i]);
        free(e[i]);
    }
    cr_expect_eq(failed, 0, "%zu of %zu cases differ from tiktoken", failed, nc);
    free(c);
    free(e);
    tok_close(t);
}

Test(tokenizer_conformance, the_1019_shared_cases)
{
    run_conformance(G2E_SRCDIR "/tests/data/tokenizer_cases.jsonl",
                    G2E_SRCDIR "/tests/data/tokenizer_expected.jsonl", 1019);
}

Test(tokenizer_conformance, extra_edge_version_and_random_cases)
{
    run_conformance(G2E_SRCDIR "/tests/data/tokenizer_extra_cases.jsonl",
                    G2E_SRCDIR "/tests/data/tokenizer_extra_expected.jsonl", 1049);
}

/* Long pieces without spaces (1,000 to 6,000 characters of one class), which take the
 * bucketed long-piece BPE: letters, CJK, digits, punctuation, runs of one character. */
Test(tokenizer_conformance, long_pieces)
{
    run_conformance(G2E_SRCDIR "/tests/data/tokenizer_long_cases.jsonl",
                    G2E_SRCDIR "/tests/data/tokenizer_long_expected.jsonl", 16);
}

/* ------------------------------------------------------------ the issue's edge cases */

Test(tokenizer_edges, pieces_from_the_issue)
{
    tok_tokenizer *t = open_repo();
    EXPECT(t, "DON'T", TOK_SPECIAL_TEXT, 41173, 6, 51);          /* DON ' T */
    EXPECT(t, "a   b", TOK_SPECIAL_TEXT, 64, 220, 220, 275);      /* a, "  ", " b" */
    EXPECT(t, "a \n\nb", TOK_SPECIAL_TEXT, 64, 220, 198, 198, 65); /* a, " \n", "\n", b */
    EXPECT(t, "trailing   ", TOK_SPECIAL_TEXT, 9535, 4386, 220, 220, 220);
    EXPECT(t, "x\xE1\xA0\x8Ey", TOK_SPECIAL_TEXT, 87, 157, 254, 236, 88); /* U+180E not space */
    EXPECT(t, "\xC2\xBD \xC2\xB2 \xE2\x85\xAB 42", TOK_SPECIAL_TEXT, 23141, 1587, 110, 2343, 227, 104, 5433);
    tok_ids r;
    g2e_err err;
    cr_assert_eq(tok_encode(t, "", 0, TOK_SPECIAL_TOKEN, 0, &r, NULL, &err), 0);
    cr_expect_eq(r.n, 0);
    cr_expect_eq(r.offsets[0], 0);
    tok_ids_free(&r);
    cr_assert_eq(tok_encode(t, NULL, 0, TOK_SPECIAL_TOKEN, TOK_NO_OFFSETS, &r, NULL, &err), 0);
    cr_expect_eq(r.n, 0);
    cr_expect(r.offsets == NULL);
    tok_ids_free(&r);
    tok_ids_free(NULL);
    tok_close(t);
}

Test(tokenizer_edges, special_token_modes)
{
    tok_tokenizer *t = open_repo();
    EXPECT(t, "<|endoftext|>", TOK_SPECIAL_TEXT, 27, 91, 437, 1659, 5239, 91, 29);
    EXPECT(t, "<|endoftext|>", TOK_SPECIAL_TOKEN, 50256);
    EXPECT(t, "Hello<|endoftext|>world", TOK_SPECIAL_TOKEN, 15496, 50256, 6894);
    EXPECT(t, "a<|endoftext|><|endoftext|> b", TOK_SPECIAL_TOKEN, 64, 50256, 50256, 275);
    tok_ids r;
    g2e_err err;
    size_t off = 0;
    cr_expect_eq(tok_encode(t, "ab <|endoftext|>", 16, TOK_SPECIAL_ERROR, 0, &r, &off, &err), TOK_E_SPECIAL);
    cr_expect_eq(off, 3);
    cr_expect(strstr(err.msg, "byte offset 3") != NULL, "%s", err.msg);
    cr_expect(strstr(err.msg, "--") == NULL, "the library names no program option: %s", err.msg);
    cr_expect(r.ids == NULL && r.n == 0);
    /* offsets around the special token */
    cr_assert_eq(tok_encode(t, "Hi<|endoftext|>x", 16, TOK_SPECIAL_TOKEN, 0, &r, NULL, &err), 0);
    cr_assert_eq(r.n, 3);
    cr_expect_eq(r.offsets[1], 2);
    cr_expect_eq(r.offsets[2], 15);
    cr_expect_eq(r.offsets[3], 16);
    tok_ids_free(&r);
    tok_close(t);
}

Test(tokenizer_edges, one_megabyte_without_spaces)
{
    tok_tokenizer *t = open_repo();
    size_t n = 1000000;
    char *s = malloc(n);
    memset(s, 'a', n);
    tok_ids r;
    g2e_err err;
    cr_assert_eq(tok_encode(t, s, n, TOK_SPECIAL_TEXT, 0, &r, NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(r.n, 250000);
    for (size_t i = 0; i < r.n; i++)
        cr_assert_eq(r.ids[i], 24794, "token %zu", i); /* "aaaa" */
    cr_expect_eq(r.offsets[249999], 999996);
    tok_ids_free(&r);
    /* a long run of one CJK character: one piece, which BPE cuts into its characters (no
     * token holds A5 E6, the bytes across two of them) */
    char *u = malloc(3 * 100000);
    for (size_t i = 0; i < 100000; i++)
        memcpy(u + 3 * i, "\xE6\x97\xA5", 3); /* 日 */
    cr_assert_eq(tok_encode(t, u, 300000, TOK_SPECIAL_TEXT, 0, &r, NULL, &err), 0);
    char *back;
    size_t bl;
    cr_assert_eq(tok_decode(t, r.ids, r.n, &back, &bl, &err), 0);
    cr_expect(bl == 300000 && memcmp(back, u, bl) == 0);
    free(back);
    tok_ids_free(&r);
    free(u);
    free(s);
    tok_close(t);
}

/* The caches ask for huge pages from a text of TOK_CACHES_HUGE_MIN (4 KB) on, once; a
 * smaller one (the cold start's "Hello world") leaves them on 4 KB pages. */
Test(tokenizer_edges, caches_on_huge_pages_from_4_kb)
{
    tok_tokenizer *t = open_repo();
    size_t n = 4096;
    char *s = malloc(n);
    for (size_t i = 0; i < n; i++)
        s[i] = "the cat sat "[i % 12];
    tok_ids r;
    g2e_err err;
    cr_assert_eq(tok_encode(t, "Hello world", 11, TOK_SPECIAL_TEXT, 0, &r, NULL, &err), 0);
    tok_ids_free(&r);
    cr_expect_eq(t->caches_huge, 0);
    cr_assert_eq(tok_encode(t, s, n - 1, TOK_SPECIAL_TEXT, 0, &r, NULL, &err), 0);
    tok_ids_free(&r);
    cr_expect_eq(t->caches_huge, 0, "%zu bytes", n - 1);
    cr_assert_eq(tok_encode(t, s, n, TOK_SPECIAL_TEXT, 0, &r, NULL, &err), 0);
    tok_ids_free(&r);
    cr_expect_eq(t->caches_huge, 1, "%zu bytes", n);
    tok_close(t);
    /* a batch asks as a text of its total size does, however short its texts */
    const char *texts[512];
    size_t lens[512], counts[512], bt, bo;
    for (size_t k = 0; k < 512; k++)
        texts[k] = s, lens[k] = 8;
    for (size_t m = 511; m <= 512; m++) {
        t = open_repo();
        eng *e;
        cr_assert_eq(eng_new(&e, t, &err), 0);
        uint32_t *ids;
        cr_assert_eq(eng_batch(e, 1, m, texts, lens, TOK_SPECIAL_TEXT, 0, &ids, counts, NULL, &bt, &bo, &err), 0);
        free(ids);
        cr_expect_eq(t->caches_huge, m == 512, "%zu texts of 8 bytes", m);
        eng_free(e);
    }
    free(s);
}

/* ------------------------------------------------------------ UTF-8: strict and lossy */

Test(tokenizer_utf8, strict_reports_the_first_bad_byte)
{
    tok_tokenizer *t = open_repo();
    static const struct {
        const char *s;
        size_t len, off;
    } cases[] = {
        {"\xFF", 1, 0},
        {"ab\xC3", 3, 2},             /* truncated at the end */
        {"ab\xC3" "c", 4, 2},         /* continuation missing */
        {"\xED\xA0\x80", 3, 0},       /* a surrogate */
        {"\xC0\xAF", 2, 0},           /* overlong */
        {"\xE0\x80\xAF", 3, 0},       /* overlong */
        {"ok \xF4\x90\x80\x80", 7, 3}, /* above U+10FFFF */
        {"\xE6\x97\xA5\x80", 4, 3},   /* stray continuation */
        {"12345678\xF5", 9, 8},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tok_ids r;
        g2e_err err;
        size_t off = 99;
        cr_expect_eq(tok_encode(t, cases[i].s, cases[i].len, TOK_SPECIAL_TOKEN, 0, &r, &off, &err), TOK_E_UTF8,
                     "case %zu", i);
        cr_expect_eq(off, cases[i].off, "case %zu: offset %zu", i, off);
        char want[64];
        snprintf(want, sizeof want, "byte offset %zu", cases[i].off);
        cr_expect(strstr(err.msg, want) != NULL, "%s", err.msg);
        cr_expect_eq(tok_utf8_check(cases[i].s, cases[i].len), cases[i].off);
    }
    tok_close(t);
}

/* Expected outputs of Python 3's bytes.decode("utf-8", errors="replace"). */
Test(tokenizer_utf8, lossy_is_pythons_replace)
{
    tok_tokenizer *t = open_repo();
    static const struct {
        const char *in;
        size_t len;
        const char *py; /* what Python gives, UTF-8 encoded */
        size_t n_rep;
    } cases[] = {
        {"a\xFF" "b", 3, "a\xEF\xBF\xBD" "b", 1},
        {"\xE2\x82", 2, "\xEF\xBF\xBD", 1},                      /* one maximal subpart */
        {"\xF0\x9F\x98x", 4, "\xEF\xBF\xBDx", 1},
        {"\xED\xA0\x80", 3, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD", 3}, /* ED A0: not a prefix */
        {"\xC0\xAF", 2, "\xEF\xBF\xBD\xEF\xBF\xBD", 2},
        {"\xF4\x90\x80\x80", 4, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD", 4},
        {"\xE0\xA0", 2, "\xEF\xBF\xBD", 1},
        {"x\x80\x80y", 4, "x\xEF\xBF\xBD\xEF\xBF\xBDy", 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tok_ids a, b;
        g2e_err err;
        cr_assert_eq(tok_encode(t, cases[i].in, cases[i].len, TOK_SPECIAL_TOKEN, TOK_LOSSY, &a, NULL, &err), 0,
                     "%s", err.msg);
        cr_assert_eq(tok_encode(t, cases[i].py, strlen(cases[i].py), TOK_SPECIAL_TOKEN, 0, &b, NULL, &err), 0);
        cr_expect_eq(a.n_replaced, cases[i].n_rep, "case %zu", i);
        cr_expect_eq(a.n, b.n, "case %zu", i);
        for (size_t k = 0; k < a.n && k < b.n; k++)
            cr_expect_eq(a.ids[k], b.ids[k], "case %zu token %zu", i, k);
        /* offsets refer to the original input: non-decreasing, in range, ending at its length */
        for (size_t k = 0; k < a.n; k++)
            cr_expect(a.offsets[k] <= a.offsets[k + 1] && a.offsets[k] < cases[i].len, "case %zu", i);
        cr_expect_eq(a.offsets[a.n], cases[i].len);
        tok_ids_free(&a);
        tok_ids_free(&b);
    }
    /* " x\xFFyz": the token after the bad byte starts at byte 3 of the input */
    tok_ids r;
    g2e_err err;
    cr_assert_eq(tok_encode(t, "ab\xFF" " cd", 6, TOK_SPECIAL_TOKEN, TOK_LOSSY, &r, NULL, &err), 0);
    cr_assert(r.n >= 3);
    cr_expect_eq(r.offsets[0], 0);
    cr_expect_eq(r.offsets[r.n - 1], 3); /* " cd" */
    tok_ids_free(&r);
    tok_close(t);
}

/* ------------------------------------------------------------ properties on random input */

static uint64_t rng_state = 0x243F6A8885A308D3ull;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 11);
}

static size_t put_cp(char *o, uint32_t cp)
{
    return (size_t)utf8proc_encode_char((utf8proc_int32_t)cp, (utf8proc_uint8_t *)o);
}

Test(tokenizer_props, round_trip_on_random_valid_utf8)
{
    tok_tokenizer *t = open_repo();
    static const uint32_t interesting[] = {' ', ' ', ' ', '\n', '\t', '\'', 's', 'l', 'e', 'A', '1', '!',
                                           0xA0, 0x3000, 0x2028, 0x180E, 0xFEFF, 0x85, 0x301, 0x65E5, 0xBD};
    char *buf = malloc(4 * 600);
    for (int iter = 0; iter < 3000; iter++) {
        size_t n = 0, chars = rnd() % 300;
        for (size_t k = 0; k < chars; k++) {
            uint32_t r = rnd() % 100, cp;
            if (r < 50)
                cp = interesting[rnd() % (sizeof interesting / sizeof interesting[0])];
            else if (r < 70)
                cp = 0x20 + rnd() % 0x5F;
            else if (r < 90)
                cp = rnd() % 0x10000;
            else
                cp = rnd() % 0x110000;
            if (cp >= 0xD800 && cp < 0xE000)
                cp = 'x';
            n += put_cp(buf + n, cp);
        }
        tok_ids r;
        g2e_err err;
        tok_special sp = (tok_special)(iter % 2); /* token / text */
        cr_assert_eq(tok_encode(t, buf, n, sp, 0, &r, NULL, &err), 0, "%s", err.msg);
        char *back;
        size_t bl;
        cr_assert_eq(tok_decode(t, r.ids, r.n, &back, &bl, &err), 0);
        cr_assert(bl == n && memcmp(back, buf, n) == 0, "round trip failed at iteration %d", iter);
        for (size_t k = 0; k < r.n; k++)
            cr_assert(r.offsets[k] < r.offsets[k + 1]);
        free(back);
        tok_ids_free(&r);
    }
    free(buf);
    tok_close(t);
}

/* utf8proc's decoder as the independent judge of where the first bad byte is. */
static size_t utf8proc_first_bad(const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t k = utf8proc_iterate(s + i, (utf8proc_ssize_t)(n - i), &cp);
        if (k <= 0)
            return i;
        i += (size_t)k;
    }
    return n;
}

/* Valid text of every sequence length (ASCII runs past 32 bytes, 2-, 3- and 4-byte
 * characters at the edges of their ranges) with now and then one byte changed, truncated
 * or inserted: tok_utf8_check's fast paths find the first bad byte where utf8proc does. */
Test(tokenizer_props, mostly_valid_text_checked_like_utf8proc)
{
    static const uint32_t cps[] = {0x41, 0x7F, 0x80, 0x7FF, 0x800, 0xFFF, 0x1000, 0xD7FF, 0xE000, 0xFFFD,
                                   0xFFFF, 0x10000, 0x10FFFF, 0x3042, 0x65E5, 0x0416};
    uint8_t buf[400];
    for (int iter = 0; iter < 40000; iter++) {
        size_t n = 0, want = rnd() % 300;
        while (n + 4 < want) {
            uint32_t r = rnd();
            if (r % 3 == 0) { /* an ASCII run */
                for (size_t k = (r >> 8) % 40; k-- && n < want;)
                    buf[n++] = (uint8_t)(' ' + rnd() % 0x5F);
                continue;
            }
            uint32_t cp = cps[(r >> 8) % (sizeof cps / sizeof cps[0])];
            n += (size_t)utf8proc_encode_char((utf8proc_int32_t)cp, buf + n);
        }
        if (n && rnd() % 2) { /* one fault: a byte changed, the end cut, or a byte inserted */
            uint32_t r = rnd(), at = (uint32_t)(r >> 4) % (uint32_t)n;
            if (r % 3 == 0)
                buf[at] = (uint8_t)(0x80 + (r >> 20) % 0x80);
            else if (r % 3 == 1)
                n = at;
            else {
                memmove(buf + at + 1, buf + at, n - at);
                buf[at] = (uint8_t)(0x80 + (r >> 20) % 0x80);
                n++;
            }
        }
        char *exact = malloc(n ? n : 1); /* exactly n bytes: a read past the end shows under ASan */
        cr_assert(exact);
        memcpy(exact, buf, n);
        cr_assert_eq(tok_utf8_check(exact, n), utf8proc_first_bad(buf, n), "iteration %d", iter);
        free(exact);
    }
}

Test(tokenizer_props, random_bytes_strict_and_lossy)
{
    tok_tokenizer *t = open_repo();
    uint8_t buf[200];
    for (int iter = 0; iter < 20000; iter++) {
        size_t n = rnd() % sizeof buf;
        for (size_t k = 0; k < n; k++) {
            uint32_t r = rnd();
            buf[k] = (uint8_t)(r % 4 == 0 ? 0x80 + (r >> 8) % 0x40 : r % 4 == 1 ? ' ' + (r >> 8) % 0x60 : r >> 8);
        }
        size_t bad = utf8proc_first_bad(buf, n);
        cr_assert_eq(tok_utf8_check((const char *)buf, n), bad, "iteration %d", iter);
        tok_ids r;
        g2e_err err;
        size_t off = 0;
        int rc = tok_encode(t, (const char *)buf, n, TOK_SPECIAL_TOKEN, 0, &r, &off, &err);
        if (bad < n) {
            cr_assert_eq(rc, TOK_E_UTF8);
            cr_assert_eq(off, bad);
        } else {
            cr_assert_eq(rc, 0);
            tok_ids_free(&r);
        }
        cr_assert_eq(tok_encode(t, (const char *)buf, n, TOK_SPECIAL_TEXT, TOK_LOSSY, &r, NULL, &err), 0);
        cr_assert_eq(r.offsets[r.n], n);
        for (size_t k = 0; k + 1 < r.n; k++)
            cr_assert(r.offsets[k] <= r.offsets[k + 1]);
        cr_assert_eq(r.n_replaced == 0, bad == n);
        tok_ids_free(&r);
    }
    tok_close(t);
}

Test(tokenizer_props, decode_rejects_ids_outside_the_vocabulary)
{
    tok_tokenizer *t = open_repo();
    uint32_t ids[] = {15496, 50257, 995};
    char *out = (char *)1;
    size_t len = 7;
    g2e_err err;
    cr_expect_eq(tok_decode(t, ids, 3, &out, &len, &err), TOK_E_ID);
    cr_expect(out == NULL);
    cr_expect(strstr(err.msg, "50257") && strstr(err.msg, "index 1"), "%s", err.msg);
    uint32_t ok[] = {50256};
    cr_assert_eq(tok_decode(t, ok, 1, &out, &len, &err), 0);
    cr_expect_str_eq(out, "<|endoftext|>");
    free(out);
    cr_assert_eq(tok_decode(t, NULL, 0, &out, &len, &err), 0);
    cr_expect_eq(len, 0);
    free(out);
    tok_close(t);
}

/* ------------------------------------------------------------ threads and BPE paths */

/* Every conformance text (1,019 + 1,049 + 16 cases), concatenated in order. */
static char *all_conformance_texts(size_t *len)
{
    static const char *const files[] = {"/tests/data/tokenizer_cases.jsonl", "/tests/data/tokenizer_extra_cases.jsonl",
                                        "/tests/data/tokenizer_long_cases.jsonl"};
    size_t cap = 1 << 20, n = 0, count = 0;
    char *all = malloc(cap);
    for (size_t f = 0; f < 3; f++) {
        char path[512];
        snprintf(path, sizeof path, "%s%s", G2E_SRCDIR, files[f]);
        size_t nl;
        char **lines = read_lines(path, &nl);
        for (size_t i = 0; i < nl; i++) {
            cJSON *j = cJSON_Parse(lines[i]);
            cr_assert(j != NULL);
            const char *text = cJSON_GetObjectItem(j, "text")->valuestring;
            size_t l = strlen(text);
            while (n + l + 1 > cap)
                all = realloc(all, cap *= 2);
            memcpy(all + n, text, l);
            n += l;
            count++;
            cJSON_Delete(j);
            free(lines[i]);
        }
        free(lines);
    }
    cr_assert_eq(count, 1019 + 1049 + 16);
    *len = n;
    return all;
}

/* The corpus of the benchmark (13,271,529 bytes), unpacked by gzip. */
static char *corpus(size_t *len)
{
    char *argv[] = {"/bin/gzip", "-dc", G2E_SRCDIR "/bench/data/corpus.txt.gz", NULL};
    run_result r = run_argv(argv, NULL, 0, NULL, NULL);
    cr_assert_eq(r.status, 0, "gzip: %s", r.err);
    cr_assert_eq(r.out_len, 13271529);
    free(r.err);
    *len = r.out_len;
    return r.out;
}

/* IDs and offsets of t on text equal the reference ones. */
static void expect_same(tok_tokenizer *t, const char *text, size_t n, tok_special sp, unsigned flags,
                        const tok_ids *want, const char *what)
{
    tok_ids r;
    g2e_err err;
    cr_assert_eq(tok_encode(t, text, n, sp, flags, &r, NULL, &err), 0, "%s: %s", what, err.msg);
    cr_assert_eq(r.n, want->n, "%s: %zu tokens, one thread %zu", what, r.n, want->n);
    for (size_t k = 0; k < r.n; k++)
        cr_assert_eq(r.ids[k], want->ids[k], "%s: token %zu is %u, one thread %u", what, k, r.ids[k],
                     want->ids[k]);
    if (!(flags & TOK_NO_OFFSETS))
        cr_assert(memcmp(r.offsets, want->offsets, (r.n + 1) * sizeof *r.offsets) == 0, "%s: offsets differ", what);
    cr_assert_eq(r.n_replaced, want->n_replaced);
    tok_ids_free(&r);
}

/* eng_encode on `threads` members gives want (tok_encode's result on one thread). */
static void eng_same(eng *e, unsigned threads, const char *text, size_t n, tok_special sp, unsigned flags,
                     const tok_ids *want, const char *what)
{
    tok_ids r;
    g2e_err err;
    cr_assert_eq(eng_encode(e, threads, text, n, sp, flags, &r, NULL, &err), 0, "%s: %s", what, err.msg);
    cr_assert_eq(r.n, want->n, "%s: %zu tokens, want %zu", what, r.n, want->n);
    cr_assert(!r.n || memcmp(r.ids, want->ids, r.n * sizeof *r.ids) == 0, "%s: the IDs differ", what);
    if (!(flags & TOK_NO_OFFSETS))
        cr_assert(memcmp(r.offsets, want->offsets, (r.n + 1) * sizeof *r.offsets) == 0, "%s: offsets differ", what);
    cr_assert_eq(r.n_replaced, want->n_replaced);
    tok_ids_free(&r);
}

/* The engine's split of text (chunks of `chunk` bytes, 0: the default) gives the one-thread
 * IDs and offsets. */
static void threads_agree(const char *text, size_t n, tok_special sp, unsigned flags, size_t chunk, const char *what)
{
    tok_tokenizer *one = open_repo();
    tok_ids want;
    g2e_err err;
    cr_assert_eq(tok_encode(one, text, n, sp, flags, &want, NULL, &err), 0, "%s: %s", what, err.msg);
    static const unsigned counts[] = {2, 3, 8, 64};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        eng *e;
        cr_assert_eq(eng_new(&e, open_repo(), &err), 0);
        if (chunk)
            eng_set_chunk(e, chunk);
        char label[128];
        snprintf(label, sizeof label, "%s, %u threads", what, counts[c]);
        eng_same(e, counts[c], text, n, sp, flags, &want, label);
        eng_same(e, counts[c], text, n, sp, flags, &want, label); /* again, with warm caches */
        eng_free(e);
    }
    tok_ids_free(&want);
    tok_close(one);
}

LongTest(tokenizer_threads, corpus_split_over_threads_is_exact, .timeout = 120)
{
    size_t n;
    char *text = corpus(&n);
    threads_agree(text, n, TOK_SPECIAL_TEXT, 0, 0, "corpus");
    threads_agree(text, n, TOK_SPECIAL_TOKEN, TOK_NO_OFFSETS, 0, "corpus, IDs only");
    free(text);
}

/* sha256 of the IDs written as tiktoken's reference was (decimal, space-separated, newline). */
static void ids_digest(const tok_ids *r, char hex[65])
{
    sha256_ctx c;
    sha256_init(&c);
    char num[16];
    for (size_t k = 0; k < r->n; k++) {
        int w = snprintf(num, sizeof num, k ? " %u" : "%u", r->ids[k]);
        sha256_update(&c, num, (size_t)w);
    }
    sha256_update(&c, "\n", 1);
    uint8_t d[SHA256_DIGEST_LEN];
    sha256_final(&c, d);
    for (int i = 0; i < SHA256_DIGEST_LEN; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

/* The corpus is large enough for every large-input path (huge pages for the caches and the
 * output arrays, their growth by copy, the split over threads): its IDs equal tiktoken's
 * (5,094,173 tokens; the digest is the one bench_tokenizer checks, made with tiktoken by
 * ../shared/tools), and each offset starts its token's bytes. */
Test(tokenizer_threads, corpus_ids_equal_tiktoken, .timeout = 120)
{
    size_t n;
    char *text = corpus(&n);
    static const unsigned threads[] = {1, 2};
    for (size_t c = 0; c < 2; c++) {
        tok_tokenizer *t = open_repo();
        eng *e;
        g2e_err err;
        cr_assert_eq(eng_new(&e, open_repo(), &err), 0);
        for (int with_off = 0; with_off < 2; with_off++) {
            tok_ids r;
            cr_assert_eq(eng_encode(e, threads[c], text, n, TOK_SPECIAL_TEXT, with_off ? 0 : TOK_NO_OFFSETS, &r, NULL,
                                    &err),
                         0, "%s", err.msg);
            cr_assert_eq(r.n, 5094173u, "%u threads: %zu tokens", threads[c], r.n);
            char hex[65];
            ids_digest(&r, hex);
            cr_expect_str_eq(hex, "a32e6decd62653603120d455d94ad9ca3021ac9f021a2977d913d98aa0c55603",
                             "%u threads, offsets %d", threads[c], with_off);
            if (with_off) {
                cr_assert_eq(r.offsets[0], 0);
                cr_assert_eq(r.offsets[r.n], n);
                for (size_t k = 0; k < r.n; k++) {
                    const uint8_t *b;
                    size_t len;
                    cr_assert_eq(tok_piece(t, r.ids[k], &b, &len, NULL), 0);
                    cr_assert_eq(r.offsets[k + 1] - r.offsets[k], len, "token %zu", k);
                    cr_assert(memcmp(text + r.offsets[k], b, len) == 0, "token %zu at %zu", k, r.offsets[k]);
                }
            }
            tok_ids_free(&r);
        }
        eng_free(e);
        tok_close(t);
    }
    free(text);
}

Test(tokenizer_threads, conformance_texts_concatenated, .timeout = 60)
{
    size_t n;
    char *text = all_conformance_texts(&n);
    threads_agree(text, n, TOK_SPECIAL_TEXT, 0, 1, "conformance texts");
    threads_agree(text, n, TOK_SPECIAL_TOKEN, 0, 1, "conformance texts, special tokens");
    free(text);
}

/* Random mixtures and adversarial texts: whitespace runs of every kind, contractions, the
 * special token, invalid bytes (lossy) and long unsplittable pieces, cut at every place
 * the split may choose (64 parts of a few hundred bytes). */
Test(tokenizer_threads, random_and_adversarial_texts, .timeout = 60)
{
    static const char *const frag[] = {
        " ", "  ", "   ", "\n", "\n\n", "\t", "\r\n", " \n", "\xC2\xA0", "\xE3\x80\x80", "'s", "'re",
        "'ll", "'", "''", "a", "word", " the", "\xC3\xA9t\xC3\xA9", "\xE6\x97\xA5\xE6\x9C\xAC",
        "1", "2024", ".", ",", "!?", "<|endoftext|>", "\xF0\x9F\x98\x80", "\xFF", "\xE6\x97"};
    size_t cap = 1 << 16;
    char *buf = malloc(cap);
    for (int round = 0; round < 12; round++) {
        size_t n = 0;
        while (n + 2100 < cap) {
            uint32_t r = rnd() % 100;
            if (r < 2) { /* long pieces: letters, digits, CJK, punctuation, spaces */
                static const char *const run[] = {"a", "9", "\xE6\x97\xA5", "=", " "};
                const char *u = run[rnd() % 5];
                size_t reps = 200 + rnd() % 500;
                for (size_t k = 0; k < reps; k++, n += strlen(u))
                    memcpy(buf + n, u, strlen(u));
            } else {
                const char *f = frag[rnd() % (sizeof frag / sizeof frag[0])];
                memcpy(buf + n, f, strlen(f));
                n += strlen(f);
            }
        }
        char what[64];
        snprintf(what, sizeof what, "mixture %d", round);
        threads_agree(buf, n, round % 2 ? TOK_SPECIAL_TOKEN : TOK_SPECIAL_TEXT, TOK_LOSSY, 1, what);
    }
    free(buf);
}

/* The refused special token is reported at its first occurrence whatever the threads. */
Test(tokenizer_threads, first_refused_special_token_wins)
{
    size_t n = 3 << 20;
    char *text = malloc(n);
    for (size_t i = 0; i < n; i++)
        text[i] = i % 7 == 6 ? ' ' : 'a';
    memcpy(text + 2000000, "<|endoftext|>", 13);
    memcpy(text + 2500000, "<|endoftext|>", 13);
    eng *e;
    tok_ids r;
    g2e_err err;
    cr_assert_eq(eng_new(&e, open_repo(), &err), 0);
    size_t bad = 0;
    cr_expect_eq(eng_encode(e, 4, text, n, TOK_SPECIAL_ERROR, 0, &r, &bad, &err), TOK_E_SPECIAL);
    cr_expect_eq(bad, 2000000);
    cr_expect(r.ids == NULL && r.n == 0);
    eng_free(e);
    free(text);
}

/* Each BPE path forced on the same inputs gives the same IDs: the linear scan (pieces of
 * up to 64 bytes), the heap and the rank buckets (every piece), each with pieces cut where
 * no merge can join (the default) or whole (TOK_BPE_WHOLE). */
Test(tokenizer_bpe, the_three_paths_agree, .timeout = 60)
{
    size_t n;
    char *text = all_conformance_texts(&n);
    tok_tokenizer *t = open_repo();
    tok_ids want;
    g2e_err err;
    cr_assert_eq(tok_encode(t, text, n, TOK_SPECIAL_TEXT, 0, &want, NULL, &err), 0);
    static const int paths[] = {TOK_BPE_SCAN, TOK_BPE_HEAP, TOK_BPE_BUCKETS};
    static const char *const names[] = {"scan", "heap", "buckets"};
    for (size_t p = 0; p < 3; p++)
        for (int whole = 0; whole <= TOK_BPE_WHOLE; whole += TOK_BPE_WHOLE) {
            tok_set_bpe_path(t, paths[p] | whole);
            expect_same(t, text, n, TOK_SPECIAL_TEXT, 0, &want, names[p]);
        }
    tok_set_bpe_path(t, TOK_BPE_AUTO | TOK_BPE_WHOLE);
    expect_same(t, text, n, TOK_SPECIAL_TEXT, 0, &want, "auto, whole pieces");
    tok_set_bpe_path(t, TOK_BPE_AUTO);
    expect_same(t, text, n, TOK_SPECIAL_TEXT, 0, &want, "auto again");
    /* and the no-space worst case: 5,000 'a' is 1,250 x 'aaaa' (24794) on every path */
    char a[5000];
    memset(a, 'a', sizeof a);
    for (size_t p = 0; p < 3; p++) {
        tok_set_bpe_path(t, paths[p]);
        tok_ids r;
        cr_assert_eq(tok_encode(t, a, sizeof a, TOK_SPECIAL_TEXT, 0, &r, NULL, &err), 0);
        cr_assert_eq(r.n, 1250, "%s", names[p]);
        for (size_t k = 0; k < r.n; k++)
            cr_assert_eq(r.ids[k], 24794, "%s", names[p]);
        tok_ids_free(&r);
    }
    tok_ids_free(&want);
    tok_close(t);
    free(text);
}

/* BPE of pieces cut where no merge can join (the default), from tok_bpe on each path,
 * against BPE of whole pieces (the heap): the same IDs and offsets on 30,000 random byte
 * strings of 1-300 bytes mixing kana, kanji, Cyrillic, ASCII letters and arbitrary bytes
 * (so that the cuts fall everywhere, at a string's ends too), the part cache filling as they
 * go; the conformance texts on every path, cut and whole: the_three_paths_agree. */
Test(tokenizer_bpe, cut_pieces_give_the_whole_pieces_merges, .timeout = 120)
{
    tok_tokenizer *t = open_repo();
    static const int paths[] = {TOK_BPE_AUTO, TOK_BPE_SCAN, TOK_BPE_HEAP, TOK_BPE_BUCKETS};
    uint8_t s[300];
    obuf cut = {.keep_off = 1}, whole = {.keep_off = 1};
    uint32_t tmp[300];
    size_t cuts = 0;
    for (int round = 0; round < 30000; round++) {
        size_t len = 1 + rnd() % 300, k = 0;
        while (k < len) {
            uint32_t kind = rnd() % 6, cp;
            if (kind == 0)
                cp = 0x3041 + rnd() % 0xBA; /* hiragana, katakana */
            else if (kind == 1)
                cp = 0x4E00 + rnd() % 0x600; /* common kanji */
            else if (kind == 2)
                cp = 0x410 + rnd() % 0x40; /* Cyrillic */
            else if (kind == 3)
                cp = 'a' + rnd() % 26;
            else {
                s[k++] = (uint8_t)rnd();
                continue;
            }
            char u[4];
            size_t m = put_cp(u, cp);
            for (size_t j = 0; j < m && k < len; j++)
                s[k++] = (uint8_t)u[j];
        }
        for (size_t i = 1; i < len; i++)
            cuts += !(t->joins[(s[i - 1] << 8 | s[i]) >> 6] >> ((s[i - 1] << 8 | s[i]) & 63) & 1);
        int path = paths[rnd() % 4];
        size_t nc = 0, nw = 0;
        cut.n = whole.n = 0;
        tok_set_bpe_path(t, path);
        int copy = round % 3 != 0; /* the copy for the caches, or none (the buckets then) */
        cr_assert_eq(tok_bpe(t, s, len, &cut, 7, copy ? tmp : NULL, copy ? &nc : NULL), 0);
        tok_set_bpe_path(t, TOK_BPE_HEAP | TOK_BPE_WHOLE);
        cr_assert_eq(tok_bpe(t, s, len, &whole, 7, NULL, &nw), 0);
        cr_assert_eq(cut.n, whole.n, "round %d (%zu bytes, path %d)", round, len, path);
        cr_assert(memcmp(cut.ids, whole.ids, cut.n * sizeof *cut.ids) == 0, "round %d: IDs differ", round);
        cr_assert(memcmp(cut.off, whole.off, cut.n * sizeof *cut.off) == 0, "round %d: offsets differ", round);
        if (copy) {
            cr_assert_eq(nc, cut.n, "round %d: the copy's count", round);
            cr_assert(memcmp(tmp, cut.ids, nc * sizeof *tmp) == 0, "round %d: the copy differs", round);
        }
    }
    cr_expect_gt(cuts, 1000000, "%zu cuts: the strings must be cut often", cuts);
    tok_set_bpe_path(t, TOK_BPE_AUTO);
    free(cut.ids), free(cut.off), free(whole.ids), free(whole.off);
    tok_close(t);
}

/* The whole-piece lookup that encoding does before BPE (as tiktoken does) is only the
 * same as BPE if the merges reach every token from its bytes. Checked for all 50,256
 * ordinary tokens on each BPE path (tok_bpe on the token's bytes, no lookup first): each
 * gives exactly its own ID. Single bytes need no BPE; the special token is never BPE'd. */
Test(tokenizer_bpe, every_token_is_reached_by_its_merges, .timeout = 120)
{
    tok_tokenizer *t = open_repo();
    static const int paths[] = {TOK_BPE_SCAN, TOK_BPE_HEAP, TOK_BPE_BUCKETS};
    uint32_t n_vocab = tok_n_vocab(t), checked = 0;
    obuf o = {0};
    for (uint32_t id = 0; id < n_vocab; id++) {
        const uint8_t *b;
        size_t n;
        g2e_err err;
        cr_assert_eq(tok_piece(t, id, &b, &n, &err), 0);
        if (id == t->special_id || n < 2)
            continue;
        for (size_t p = 0; p < 3; p++) {
            tok_set_bpe_path(t, paths[p]);
            o.n = 0;
            cr_assert_eq(tok_bpe(t, b, n, &o, 0, NULL, NULL), 0);
            cr_assert(o.n == 1 && o.ids[0] == id, "token %u (%zu bytes), path %d: %zu IDs, the first %u", id, n,
                      paths[p], o.n, o.n ? o.ids[0] : 0);
        }
        checked++;
    }
    cr_expect_eq(checked, 50256 - 256, "%u multi-byte ordinary tokens", checked);
    free(o.ids);
    free(o.off);
    tok_close(t);
}

/* The piece caches filled by an encoding without offsets serve one with offsets (and the
 * reverse) with the same IDs and offsets as a fresh tokenizer. */
Test(tokenizer_cache, ids_only_then_offsets_on_one_tokenizer, .timeout = 60)
{
    size_t n;
    char *text = all_conformance_texts(&n);
    tok_tokenizer *fresh = open_repo(), *t = open_repo();
    tok_ids want, r;
    g2e_err err;
    cr_assert_eq(tok_encode(fresh, text, n, TOK_SPECIAL_TEXT, 0, &want, NULL, &err), 0);
    cr_assert_eq(tok_encode(t, text, n, TOK_SPECIAL_TEXT, TOK_NO_OFFSETS, &r, NULL, &err), 0);
    cr_assert_eq(r.n, want.n);
    cr_assert(memcmp(r.ids, want.ids, r.n * sizeof *r.ids) == 0);
    tok_ids_free(&r);
    expect_same(t, text, n, TOK_SPECIAL_TEXT, 0, &want, "offsets after IDs only");
    expect_same(t, text, n, TOK_SPECIAL_TEXT, TOK_NO_OFFSETS, &want, "IDs only after offsets");
    tok_ids_free(&want);
    tok_close(fresh);
    tok_close(t);
    free(text);
}

/* ---------------------------------------------------------------- many texts */

/* Texts of random fragments (special tokens, bad bytes, a character cut in two, lone
 * continuation bytes, white space runs, empty texts): each text's IDs and status from
 * eng_batch (texts one after another in one buffer, which takes tok_encode_joined, and the
 * same texts each in its own allocation) and from tok_encode_joined itself equal
 * tok_encode's of that text alone, on 1 and 2 threads and with a forced BPE path. */
static void many_texts_agree(eng *e, unsigned threads, tok_tokenizer *t, size_t nt, tok_special special,
                             unsigned flags, int dirty, int round)
{
    static const char *const frag[] = {
        " ", "  ", "\n", "\n\n", "\t", " \n", "\xC2\xA0", "\xE3\x80\x80", "'s", "'re", "'ll", "'", "a",
        "word", " the", "\xC3\xA9t\xC3\xA9", "\xE6\x97\xA5\xE6\x9C\xAC", "2024", ".", "!?", "<|endoftext|>",
        "<|endof", "text|>", "\xF0\x9F\x98\x80", "\xFF", "\xE6\x97", "\xA5", "\xE6\x97\xA5"};
    size_t cap = nt * 40 * 14 + 1, total = 0;
    char *joined = malloc(cap);
    size_t *lens = calloc(nt, sizeof *lens), *ends = calloc(nt, sizeof *ends);
    cr_assert(joined && lens && ends);
    for (size_t k = 0; k < nt; k++) {
        size_t parts = rnd() % 4 == 0 ? 0 : rnd() % 40;
        for (size_t j = 0; j < parts; j++) {
            const char *f = frag[rnd() % (sizeof frag / sizeof frag[0])];
            /* clean rounds (the joined path): no bad bytes, no special token; else rarely */
            if ((f[0] == '\xFF' || f[0] == '\xA5' || !strcmp(f, "\xE6\x97") || !strcmp(f, "<|endoftext|>")) &&
                (!dirty || rnd() % 8))
                f = "x";
            memcpy(joined + total, f, strlen(f));
            total += strlen(f);
            lens[k] += strlen(f);
        }
        ends[k] = total;
    }
    char *exact = malloc(total ? total : 1); /* exactly total bytes: ASan sees a read past the end */
    const char **in_one = malloc(nt * sizeof *in_one), **apart = malloc(nt * sizeof *apart);
    cr_assert(exact && in_one && apart);
    memcpy(exact, joined, total);
    for (size_t k = 0, at = 0; k < nt; at += lens[k++]) {
        in_one[k] = exact + at;
        char *own = malloc(lens[k] ? lens[k] : 1);
        cr_assert(own);
        memcpy(own, joined + at, lens[k]);
        apart[k] = own;
    }
    size_t *counts = calloc(nt, sizeof *counts);
    int *rcs = calloc(nt, sizeof *rcs);
    cr_assert(counts && rcs);
    for (int way = 0; way < 3; way++) {
        uint32_t *ids = NULL;
        obuf o = {0};
        if (way < 2) {
            size_t bt, bo;
            cr_assert_eq(eng_batch(e, threads, nt, way ? apart : in_one, lens, special, flags, &ids, counts, rcs, &bt,
                                   &bo, NULL),
                         0);
        } else {
            cr_assert_eq(tok_encode_joined(t, exact, ends, nt, special, flags, &o, counts, rcs), 0);
            ids = o.ids;
        }
        for (size_t k = 0, at = 0; k < nt; k++) {
            tok_ids r;
            g2e_err err;
            int want = tok_encode(t, apart[k], lens[k], special, flags | TOK_NO_OFFSETS, &r, NULL, &err);
            cr_assert_eq(rcs[k], want, "round %d way %d text %zu: status %d, alone %d", round, way, k, rcs[k], want);
            cr_assert(counts[k] == (want ? 0 : r.n) && (want || !r.n || !memcmp(ids + at, r.ids, r.n * sizeof *ids)),
                      "round %d way %d text %zu (%zu bytes): %zu IDs differ from its %zu alone", round, way, k, lens[k],
                      counts[k], r.n);
            at += counts[k];
            tok_ids_free(&r);
        }
        free(ids);
    }
    for (size_t k = 0; k < nt; k++)
        free((void *)apart[k]);
    free(apart), free(in_one), free(exact), free(joined), free(lens), free(ends), free(counts), free(rcs);
}

Test(tokenizer_batch, texts_together_equal_each_alone, .timeout = 120)
{
    tok_tokenizer *t = open_repo();
    static const tok_special sp[] = {TOK_SPECIAL_TEXT, TOK_SPECIAL_TOKEN, TOK_SPECIAL_ERROR};
    for (int round = 0; round < 60; round++) {
        tok_tokenizer *shared = open_repo();
        int path = round % 5 == 4 ? TOK_BPE_HEAP : TOK_BPE_AUTO;
        tok_set_bpe_path(t, path);
        tok_set_bpe_path(shared, path); /* (its clones copy it) */
        eng *e;
        g2e_err err;
        cr_assert_eq(eng_new(&e, shared, &err), 0);
        /* every other 2-thread round in items of a few hundred bytes: many items on the queue */
        if (round % 4 == 3)
            eng_set_chunk(e, 64 + rnd() % 1024);
        size_t nt = round % 10 == 0 ? 1 + rnd() % 3 : 50 + rnd() % 400; /* > one batch of marks too */
        many_texts_agree(e, 1 + round % 2, t, nt, sp[round % 3], round % 4 == 1 ? TOK_LOSSY : 0, round % 6 >= 3,
                         round);
        eng_free(e);
    }
    tok_set_bpe_path(t, TOK_BPE_AUTO);
    /* valid UTF-8 together, not apart: a character cut by a text's end; and a special
     * token only across two texts */
    static const char cut[] = "\xE6\x97\xA5\xE6\x9C\xAC\xE6\x97\xA5\xE6\x9C\xAC", eot[] = "a <|endoftext|> b";
    const size_t cut_ends[] = {7, 12}, eot_ends[] = {6, 17};
    for (unsigned flags = 0; flags <= TOK_LOSSY; flags += TOK_LOSSY) {
        obuf o = {0};
        size_t counts[2];
        int rcs[2];
        cr_assert_eq(tok_encode_joined(t, cut, cut_ends, 2, TOK_SPECIAL_TEXT, flags, &o, counts, rcs), 0);
        cr_expect(flags ? rcs[0] == 0 && rcs[1] == 0 && o.n == counts[0] + counts[1] && counts[0] >= 3
                        : rcs[0] == TOK_E_UTF8 && rcs[1] == TOK_E_UTF8 && o.n == 0,
                  "a character cut between two texts: %d %d, %zu IDs", rcs[0], rcs[1], o.n);
        o.n = 0;
        cr_assert_eq(tok_encode_joined(t, eot, eot_ends, 2, TOK_SPECIAL_ERROR, flags, &o, counts, rcs), 0);
        cr_expect(rcs[0] == 0 && rcs[1] == 0, "<|endof + text|> is no special token: %d %d", rcs[0], rcs[1]);
        free(o.ids);
    }
    tok_close(t);
}
