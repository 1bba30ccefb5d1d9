/* SPDX-License-Identifier: MIT */
/* test_tokchars.c — the characters behind byte-level tokens, against offsets computed
 * independently: tests/text_ref.py walks the text with Python's str (its own UTF-8
 * decoding) and reports, per token, the characters it overlaps, the partial shares and
 * the display string; every field is compared with tokchars_spans / tokchars_display /
 * tokchars_json. Token ranges come from the real tokenizer, from "every byte a token",
 * and from seeded random cuts. Plus hand-written cases that state the expected strings. */
#include "fixture.h"
#include "json.h"
#include "tokchars.h"
#include "tokenizer.h"
#include "support.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_against_oracle(const char *tag, const char *text, const size_t *off, size_t n)
{
    size_t len = strlen(text);
    char *dir = test_tmpdir(tag);
    char *tp = path_join(dir, "text.txt"), *op = path_join(dir, "offsets.txt");
    write_file(tp, text, len);
    FILE *f = fopen(op, "w");
    cr_assert(f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%zu %zu\n", off[i], off[i + 1]);
    fclose(f);
    char *script = path_join(G2E_SRCDIR, "tests/text_ref.py");
    run_result r = run_argv((char *[]){"/usr/bin/python3", script, "chars", tp, op, NULL}, NULL, 0,
                            NULL, NULL);
    cr_assert_eq(r.status, 0, "text_ref.py: %s", r.err);

    tokchars_span *sp = calloc(n ? n : 1, sizeof *sp);
    g2e_err err;
    cr_assert_eq(tokchars_spans(text, len, off, n, sp, &err), 0, "%s", err.msg);
    char *line = r.out;
    for (size_t i = 0; i < n; i++) {
        char *nl = strchr(line, '\n');
        cr_assert(nl, "%s: oracle stops at token %zu", tag, i);
        *nl = '\0';
        cJSON *want = cJSON_Parse(line);
        cr_assert(want, "%s: oracle line %zu unparsable", tag, i);

        /* our JSON members, parsed back */
        char *buf = NULL;
        size_t blen = 0;
        FILE *m = open_memstream(&buf, &blen);
        json_w w;
        json_init(&w, m);
        json_begin_object(&w);
        tokchars_json(&w, text, &sp[i]);
        json_key(&w, "display");
        char *disp = tokchars_display_alloc(text, &sp[i]);
        cr_assert(disp);
        json_cstr(&w, disp);
        json_end_object(&w);
        cr_assert(json_done(&w));
        fclose(m);
        cJSON *got = cJSON_Parse(buf);
        cr_assert(got, "%s: our JSON for token %zu does not parse: %s", tag, i, buf);
        const char *keys[] = {"offset", "chars", "char_index", "char_part", "display"};
        for (size_t k = 0; k < 5; k++) {
            cJSON *a = cJSON_GetObjectItemCaseSensitive(got, keys[k]);
            cJSON *b = cJSON_GetObjectItemCaseSensitive(want, keys[k]);
            cr_expect(cJSON_Compare(a, b, 1), "%s: token %zu [%zu, %zu) %s: ours %s, Python %s", tag, i,
                      off[i], off[i + 1], keys[k], cJSON_PrintUnformatted(a), cJSON_PrintUnformatted(b));
        }
        /* the struct agrees with its own JSON: cend - cstart are the chars' bytes */
        cJSON *chars = cJSON_GetObjectItemCaseSensitive(want, "chars");
        cr_expect_eq(strlen(chars->valuestring), sp[i].cend - sp[i].cstart);
        cr_expect(memcmp(text + sp[i].cstart, chars->valuestring, sp[i].cend - sp[i].cstart) == 0);
        cJSON_Delete(got);
        cJSON_Delete(want);
        free(buf);
        free(disp);
        line = nl + 1;
    }
    free(sp);
    run_free(&r);
    free(script), free(tp), free(op), free(dir);
}

static const char *TEXTS[] = {
    "犬が猫を追いかけた",
    "猫が犬を追いかけた",
    "位置埋め込み (position embedding) とトークン埋め込みの和: コサイン類似度は?",
    "Hello, world!\n\tcafé naïve 😀 𝔘 ñ \\ back",
    "日本語のテキストはトークンが多い。英語より多い。🐶🐱",
};

Test(tokchars, tokenizer_offsets_match_python)
{
    tok_tokenizer *t;
    g2e_err err;
    cr_assert_eq(tok_open_builtin(&t, &err), 0, "%s", err.msg);
    for (size_t i = 0; i < sizeof TEXTS / sizeof *TEXTS; i++) {
        tok_ids ids;
        cr_assert_eq(tok_encode(t, TEXTS[i], strlen(TEXTS[i]), TOK_SPECIAL_TEXT, 0, &ids, NULL, &err),
                     0, "%s", err.msg);
        char tag[32];
        snprintf(tag, sizeof tag, "tokchars-tok-%zu", i);
        check_against_oracle(tag, TEXTS[i], ids.offsets, ids.n);
        tok_ids_free(&ids);
    }
    tok_close(t);
}

Test(tokchars, every_byte_and_random_cuts_match_python)
{
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < sizeof TEXTS / sizeof *TEXTS; i++) {
        size_t len = strlen(TEXTS[i]);
        size_t *off = malloc((len + 1) * sizeof *off);
        for (size_t b = 0; b <= len; b++)
            off[b] = b;
        char tag[48];
        snprintf(tag, sizeof tag, "tokchars-bytes-%zu", i);
        check_against_oracle(tag, TEXTS[i], off, len);
        /* random cuts: tokens of 1..7 bytes */
        size_t n = 0, p = 0;
        off[n++] = 0;
        while (p < len) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            size_t step = 1 + (size_t)(seed >> 61);
            p = p + step > len ? len : p + step;
            off[n++] = p;
        }
        snprintf(tag, sizeof tag, "tokchars-cuts-%zu", i);
        check_against_oracle(tag, TEXTS[i], off, n - 1);
        free(off);
    }
}

static char *display_of(const char *text, size_t a, size_t b)
{
    size_t off[2] = {a, b};
    tokchars_span sp;
    g2e_err err;
    cr_assert_eq(tokchars_spans(text, strlen(text), off, 1, &sp, &err), 0, "%s", err.msg);
    return tokchars_display_alloc(text, &sp);
}

Test(tokchars, hand_written_displays)
{
    const char *dog = "犬が猫";   /* E7 8A AC  E3 81 8C  E7 8C AB */
    const struct { size_t a, b; const char *want; } cases[] = {
        {0, 1, "犬 (1/3)"}, {1, 2, "犬 (2/3)"}, {2, 3, "犬 (3/3)"}, {0, 3, "犬"},
        {1, 3, "犬 (2-3/3)"}, {2, 7, "犬 (3/3) + が + 猫 (1/3)"}, {2, 6, "犬 (3/3) + が"},
        {3, 9, "が猫"}, {5, 7, "が (3/3) + 猫 (1/3)"}, {4, 4, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *got = display_of(dog, cases[i].a, cases[i].b);
        cr_expect_str_eq(got, cases[i].want, "bytes %zu..%zu", cases[i].a, cases[i].b);
        free(got);
    }
    char *sp = display_of(" the\n", 0, 5);
    cr_expect_str_eq(sp, "\xE2\x90\xA3the\xE2\x86\xB5", "spaces and newlines as every piece shows them");
    free(sp);
    /* an ill-formed subpart (lossy input) is one "character", shown escaped */
    char *bad = display_of("a\xE7\x8A" "b", 1, 2);
    cr_expect_str_eq(bad, "\\xE7\\x8A (1/2)");
    free(bad);
}

Test(tokchars, truncated_display_and_bad_offsets)
{
    const char *dog = "犬が猫";
    size_t off[2] = {2, 7};
    tokchars_span sp;
    g2e_err err;
    cr_assert_eq(tokchars_spans(dog, strlen(dog), off, 1, &sp, &err), 0);
    cr_expect_eq(sp.char_index, 0);
    cr_expect_eq(sp.n_chars, 3);
    cr_expect_eq(sp.cstart, 0);
    cr_expect_eq(sp.cend, 9);
    cr_expect(sp.head.lo == 3 && sp.head.hi == 3 && sp.head.n == 3);
    cr_expect(sp.tail.lo == 1 && sp.tail.hi == 1 && sp.tail.n == 3);
    char small[12];
    size_t need = tokchars_display(dog, &sp, small, sizeof small);
    cr_expect_eq(need, strlen("犬 (3/3) + が + 猫 (1/3)"));
    cr_expect_str_eq(small, "犬 (3/3)", "cut after a whole piece");

    size_t down[3] = {0, 3, 2};
    cr_expect_eq(tokchars_spans(dog, 9, down, 2, (tokchars_span[2]){0}, &err), G2E_EINVAL);
    cr_expect(strstr(err.msg, "token 1") != NULL, "%s", err.msg);
    size_t past[2] = {0, 10};
    cr_expect_eq(tokchars_spans(dog, 9, past, 1, &sp, &err), G2E_EINVAL);
    cr_expect_eq(tokchars_spans(dog, 9, NULL, 0, NULL, &err), 0, "no tokens: nothing to do");
}

/* The main job's JSON: every token's offset, chars, char_index and char_part, checked by
 * tests/text_ref.py from the IDs alone (their bytes from tokenizer/vocab.json through GPT-2's
 * byte-to-unicode map, offsets by adding up their lengths, characters from Python's str). */
Test(tokchars, embed_json_matches_offsets_computed_from_the_ids)
{
    fixture_opts o;
    fixture_tiny(&o);
    o.n_vocab = 50257;
    o.n_ctx = 1024;
    o.n_embd = 4;
    char *dir = test_tmpdir("tokchars-embed");
    char *w = path_join(dir, "w.safetensors"), *js = path_join(dir, "out.json"), *tp = path_join(dir, "t.txt");
    char e[256];
    cr_assert_eq(fixture_write(w, &o, e, sizeof e), 0, "%s", e);
    for (size_t i = 0; i < sizeof TEXTS / sizeof *TEXTS; i++) {
        write_file(tp, TEXTS[i], strlen(TEXTS[i]));
        run_result r = run_g2e("embed", "--weights", w, "--format", "json", "-o", js, "-f", tp, NULL);
        cr_assert_eq(r.status, 0, "%s", r.err);
        run_free(&r);
        char *script = path_join(G2E_SRCDIR, "tests/text_ref.py");
        r = run_argv((char *[]){"/usr/bin/python3", script, "embedjson", tp, js,
                                G2E_SRCDIR "/tokenizer/vocab.json", NULL}, NULL, 0, NULL, NULL);
        cr_expect_eq(r.status, 0, "text %zu: %s%s", i, r.out, r.err);
        run_free(&r);
        free(script);
    }
    /* the table shows the characters: 犬 (1/3) ... */
    run_result r = run_g2e("embed", "--weights", w, "犬が", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *rows[] = {"犬 (1/3)", "犬 (2/3)", "犬 (3/3)", "が"};
    const char *p = r.out;
    for (size_t k = 0; k < 4; k++) {
        p = strstr(p, rows[k]);
        cr_expect(p != NULL, "row %zu '%s' missing in:\n%s", k, rows[k], r.out);
        if (!p)
            break;
    }
    run_free(&r);
    free(w), free(js), free(tp), free(dir);
}
