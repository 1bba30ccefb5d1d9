/* SPDX-License-Identifier: MIT */
/* test_count_cli.c — `gpt2-embed count` through the built program.
 *
 * Expected values are independent of the code under test:
 *   - tests/data/count_expected.json, made once by tools/count_expected.mjs from tiktoken's
 *     gpt2 encoding: bytes, characters, tokens and, for contexts 1024, 256, 100 and 7,
 *     where the N-th token ends (byte, characters before, inside a character or not, line,
 *     column), for the chapter's pair, two texts of a few paragraphs (tests/data/count_en.txt,
 *     count_ja.txt) and prefixes of the Japanese one with exactly 1024 and 1025 tokens;
 *   - tests/data/tokenizer_cases.jsonl / tokenizer_expected.jsonl (tiktoken's IDs for the
 *     tokenizer's conformance cases): their lengths are the token counts.
 */
#include "../src/gpt2embed.h"
#include "fixture.h"
#include "support.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DATA G2E_SRCDIR "/tests/data/"

static cJSON *expected(void)
{
    size_t len = 0;
    char *s = read_file(DATA "count_expected.json", &len);
    cr_assert(s != NULL, "tests/data/count_expected.json");
    cJSON *j = cJSON_Parse(s);
    free(s);
    cr_assert(j != NULL);
    return j;
}

static cJSON *find_input(cJSON *exp, const char *name)
{
    cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(exp, "inputs"))
        if (strcmp(cJSON_GetObjectItem(e, "name")->valuestring, name) == 0)
            return e;
    cr_assert_fail("no expected values for %s", name);
    return NULL;
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    cr_assert(v != NULL && cJSON_IsNumber(v), "number '%s'", key);
    return v->valuedouble;
}

/* Checks one entry of count's JSON (got) against the expected entry for context ctx. */
static void check_entry(const cJSON *got, const cJSON *want, int ctx, const char *what)
{
    double bytes = num(want, "bytes"), chars = num(want, "chars"), tokens = num(want, "tokens");
    cr_expect_eq(num(got, "bytes"), bytes, "%s: bytes", what);
    cr_expect_eq(num(got, "chars"), chars, "%s: chars", what);
    cr_expect_eq(num(got, "tokens"), tokens, "%s: tokens %g vs %g", what, num(got, "tokens"), tokens);
    if (tokens > 0)
        cr_expect(fabs(num(got, "chars_per_token") - chars / tokens) < 1e-5, "%s: chars/token", what);
    else
        cr_expect(cJSON_IsNull(cJSON_GetObjectItem(got, "chars_per_token")), "%s", what);
    int fits = tokens <= ctx;
    cr_expect_eq(cJSON_IsTrue(cJSON_GetObjectItem(got, "fits")), fits, "%s: fits %d", what, ctx);
    cr_expect_eq(num(got, "windows"), ceil(tokens / ctx), "%s: windows of %d", what, ctx);
    const cJSON *cut = cJSON_GetObjectItem(got, "cut");
    if (fits) {
        cr_expect(cJSON_IsNull(cut), "%s: no cut when it fits", what);
        return;
    }
    char key[16];
    snprintf(key, sizeof key, "%d", ctx);
    const cJSON *wc = cJSON_GetObjectItem(cJSON_GetObjectItem(want, "cuts"), key);
    cr_assert(wc != NULL && cJSON_IsObject(cut), "%s: a cut at %d", what, ctx);
    cr_expect_eq(num(cut, "byte"), num(wc, "byte"), "%s/%d: byte", what, ctx);
    cr_expect_eq(num(cut, "chars_before"), num(wc, "chars_before"), "%s/%d: chars before", what, ctx);
    cr_expect_eq(cJSON_IsTrue(cJSON_GetObjectItem(cut, "inside_char")),
                 cJSON_IsTrue(cJSON_GetObjectItem(wc, "inside_char")), "%s/%d: inside", what, ctx);
    cr_expect_eq(num(cut, "line"), num(wc, "line"), "%s/%d: line", what, ctx);
    cr_expect_eq(num(cut, "column"), num(wc, "column"), "%s/%d: column %g vs %g", what, ctx,
                 num(cut, "column"), num(wc, "column"));
    cr_expect(strchr(cJSON_GetObjectItem(cut, "snippet")->valuestring, '|') != NULL);
}

/* Runs count with the arguments (NULL-terminated, at most 20) plus --format json. */
static cJSON *run_json(run_result *r, const char *const *args)
{
    char *argv[32] = {G2E_TEST_BIN, "count", "--format", "json"};
    int n = 4;
    for (int i = 0; args[i]; i++)
        argv[n++] = (char *)args[i];
    argv[n] = NULL;
    *r = run_argv(argv, NULL, 0, NULL, NULL);
    cr_assert_eq(r->status, 0, "%s", r->err);
    cJSON *j = cJSON_Parse(r->out);
    cr_assert(j != NULL, "valid JSON: %s", r->out);
    return j;
}

Test(count_cli, pair_and_texts_against_tiktoken_for_several_contexts)
{
    cJSON *exp = expected();
    static const char *ctxs[] = {"1024", "256", "100", "7"};
    for (size_t c = 0; c < 4; c++) {
        const char *args[] = {"--ctx", ctxs[c], "犬が猫を追いかけた", "The dog chased the cat",
                              "-f", DATA "count_en.txt", "-f", DATA "count_ja.txt", NULL};
        run_result r;
        cJSON *j = run_json(&r, args);
        cr_expect_eq(num(j, "ctx"), atoi(ctxs[c]));
        cJSON *ins = cJSON_GetObjectItem(j, "inputs");
        cr_assert_eq(cJSON_GetArraySize(ins), 4, "four inputs in order");
        static const char *names[] = {"pair_ja", "pair_en", "count_en.txt", "count_ja.txt"};
        static const char *kinds[] = {"text", "text", "file", "file"};
        for (int i = 0; i < 4; i++) {
            cJSON *g = cJSON_GetArrayItem(ins, i);
            cr_expect_str_eq(cJSON_GetObjectItem(g, "kind")->valuestring, kinds[i]);
            check_entry(g, find_input(exp, names[i]), atoi(ctxs[c]), names[i]);
        }
        cr_expect_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(ins, 0), "input")->valuestring,
                         "犬が猫を追いかけた");
        cJSON_Delete(j);
        run_free(&r);
    }
    cJSON_Delete(exp);
}

Test(count_cli, the_1024_boundary)
{
    cJSON *exp = expected();
    char *dir = test_tmpdir("count-boundary");
    const char *names[2] = {"ja_prefix_1024", "ja_prefix_1025"};
    char *paths[2];
    for (int k = 0; k < 2; k++) {
        cJSON *e = find_input(exp, names[k]);
        const char *text = cJSON_GetObjectItem(e, "text")->valuestring;
        cr_assert_eq(num(e, "tokens"), 1024 + k);
        paths[k] = path_join(dir, names[k]);
        write_file(paths[k], text, strlen(text));
    }
    /* JSON: exactly 1024 fits in one window; 1025 needs two and names the cut */
    const char *args[] = {"-f", paths[0], "-f", paths[1], NULL};
    run_result r;
    cJSON *j = run_json(&r, args);
    cJSON *ins = cJSON_GetObjectItem(j, "inputs");
    for (int k = 0; k < 2; k++)
        check_entry(cJSON_GetArrayItem(ins, k), find_input(exp, names[k]), 1024, names[k]);
    cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(ins, 0), "fits")));
    cr_expect_eq(num(cJSON_GetArrayItem(ins, 0), "windows"), 1);
    cr_expect(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetArrayItem(ins, 1), "fits")));
    cr_expect_eq(num(cJSON_GetArrayItem(ins, 1), "windows"), 2);
    cJSON_Delete(j);
    run_free(&r);

    /* the table says the same to a person */
    r = run_g2e("count", "-f", paths[0], "-f", paths[1], NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    const cJSON *wc = cJSON_GetObjectItem(cJSON_GetObjectItem(find_input(exp, names[1]), "cuts"), "1024");
    char line[160];
    snprintf(line, sizeof line, "line %d, column %d", (int)num(wc, "line"), (int)num(wc, "column"));
    cr_expect(strstr(r.out, line) != NULL, "'%s' in:\n%s", line, r.out);
    char *row0 = strstr(r.out, "ja_prefix_1024"), *row1 = strstr(r.out, "ja_prefix_1025");
    cr_assert(row0 && row1, "%s", r.out);
    cr_expect(strstr(row0, " 1024 ") != NULL && strstr(row0, " yes ") < strchr(row0, '\n'),
              "1024 tokens: yes\n%s", r.out);
    cr_expect(strstr(row1, " 1025 ") != NULL && strstr(row1, " no ") < strchr(row1, '\n'),
              "1025 tokens: no\n%s", r.out);
    snprintf(line, sizeof line, "the 1024th token ends at byte %d", (int)num(wc, "byte"));
    cr_expect(strstr(r.out, line) != NULL, "'%s' in:\n%s", line, r.out);
    run_free(&r);

    /* --ctx moves the boundary: 1025 tokens fit a context of 1025 */
    r = run_g2e("count", "--ctx", "1025", "--format", "json", "-f", paths[1], NULL);
    cr_assert_eq(r.status, 0);
    cr_expect(strstr(r.out, "\"fits\": true") && strstr(r.out, "\"windows\": 1"), "%s", r.out);
    run_free(&r);
    r = run_g2e("count", "--ctx", "1", "--format", "json", "-f", paths[1], NULL);
    cr_expect(strstr(r.out, "\"windows\": 1025"), "%s", r.out);
    run_free(&r);
    free(paths[0]), free(paths[1]), free(dir);
    cJSON_Delete(exp);
}

Test(count_cli, conformance_cases_count_like_tiktoken)
{
    size_t lc = 0, le = 0;
    char *cases = read_file(DATA "tokenizer_cases.jsonl", &lc);
    char *exp = read_file(DATA "tokenizer_expected.jsonl", &le);
    cr_assert(cases && exp);
    char *dir = test_tmpdir("count-conf");
    char *argv[400] = {G2E_TEST_BIN, "count", "--format", "json"};
    int n = 4, want[200];
    char *paths[200];
    int np = 0;
    char *cs = cases, *es = exp;
    while (np < 150 && cs && *cs && es && *es) {
        char *cn = strchr(cs, '\n'), *en = strchr(es, '\n');
        if (cn) *cn = '\0';
        if (en) *en = '\0';
        cJSON *c = cJSON_Parse(cs), *e = cJSON_Parse(es);
        cr_assert(c && e);
        const cJSON *t = cJSON_GetObjectItem(c, "text");
        /* the expected IDs treat <|endoftext|> as text; count treats it as the special token */
        if (cJSON_IsString(t) && !strstr(t->valuestring, "<|endoftext|>")) {
            char name[32];
            snprintf(name, sizeof name, "case%d", np);
            paths[np] = path_join(dir, name);
            write_file(paths[np], t->valuestring, strlen(t->valuestring));
            want[np] = cJSON_GetArraySize(cJSON_GetObjectItem(e, "ids"));
            argv[n++] = "-f"; /* -f names one file */
            argv[n++] = paths[np++];
        }
        cJSON_Delete(c);
        cJSON_Delete(e);
        cs = cn ? cn + 1 : NULL;
        es = en ? en + 1 : NULL;
    }
    argv[n] = NULL;
    cr_assert(np >= 100);
    run_result r = run_argv(argv, NULL, 0, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert(j);
    cJSON *ins = cJSON_GetObjectItem(j, "inputs");
    cr_assert_eq(cJSON_GetArraySize(ins), np);
    int bad = 0;
    for (int i = 0; i < np && bad < 5; i++) {
        int got = (int)num(cJSON_GetArrayItem(ins, i), "tokens");
        if (got != want[i]) {
            bad++;
            cr_expect_eq(got, want[i], "case %d: %d tokens, tiktoken %d", i, got, want[i]);
        }
    }
    cr_expect_eq(bad, 0);
    cJSON_Delete(j);
    run_free(&r);
    for (int i = 0; i < np; i++)
        free(paths[i]);
    free(dir), free(cases), free(exp);
}

Test(count_cli, stdin_empty_special_and_lossy)
{
    cJSON *exp = expected();
    size_t len = 0;
    char *en = read_file(DATA "count_en.txt", &len);
    cr_assert(en);
    char *argv[] = {G2E_TEST_BIN, "count", "--format", "json", "-", NULL};
    run_result r = run_argv(argv, en, len, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    cJSON *g = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "inputs"), 0);
    cr_expect_str_eq(cJSON_GetObjectItem(g, "kind")->valuestring, "stdin");
    check_entry(g, find_input(exp, "count_en.txt"), 1024, "stdin");
    cJSON_Delete(j);
    run_free(&r);
    free(en);

    /* <|endoftext|> is the one special token */
    const char *a1[] = {"a<|endoftext|>b", NULL};
    j = run_json(&r, a1);
    check_entry(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "inputs"), 0),
                find_input(exp, "endoftext"), 1024, "endoftext");
    cJSON_Delete(j);
    run_free(&r);

    /* empty: nothing to fit, no window */
    const char *a2[] = {"", "--", "-not-an-option", NULL};
    j = run_json(&r, a2);
    cJSON *e0 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "inputs"), 0);
    cr_expect(num(e0, "bytes") == 0 && num(e0, "tokens") == 0 && num(e0, "windows") == 0);
    cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(e0, "fits")));
    cr_expect(cJSON_IsNull(cJSON_GetObjectItem(e0, "chars_per_token")));
    cJSON *e1 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "inputs"), 1);
    cr_expect_str_eq(cJSON_GetObjectItem(e1, "input")->valuestring, "-not-an-option");
    cr_expect_eq(num(e1, "bytes"), 14);
    cJSON_Delete(j);
    run_free(&r);

    /* invalid UTF-8: an error naming the byte offset, nothing on stdout; --lossy counts it */
    char *dir = test_tmpdir("count-utf8");
    char *bad = path_join(dir, "bad.txt");
    write_file(bad, "ok \xE3\x81 then", 10);
    r = run_g2e("count", "The dog chased the cat", "-f", bad, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect_eq(r.out_len, 0, "nothing printed: %s", r.out);
    cr_expect(strstr(r.err, "bad.txt") && strstr(r.err, "byte offset 3") && strstr(r.err, "--lossy"),
              "%s", r.err);
    run_free(&r);
    r = run_g2e("count", "--lossy", "--format", "json", "-f", bad, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "\"replaced\": 1") && strstr(r.out, "\"bytes\": 10"), "%s", r.out);
    run_free(&r);
    free(bad), free(dir);
    cJSON_Delete(exp);
}

Test(count_cli, table_for_several_inputs)
{
    run_result r = run_g2e("count", "犬が猫を追いかけた", "The dog chased the cat", "-f",
                           DATA "count_ja.txt", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *heads[] = {"input", "bytes", "chars", "tokens", "chars/token", "fits 1024",
                           "windows", "1024th token ends"};
    for (size_t i = 0; i < 8; i++)
        cr_expect(strstr(r.out, heads[i]) != NULL, "column '%s':\n%s", heads[i], r.out);
    /* one row per input, then a note for the one that does not fit */
    char *p1 = strstr(r.out, "犬が猫を追いかけた"), *p2 = strstr(r.out, "The dog chased the cat"),
         *p3 = strstr(r.out, "count_ja.txt");
    cr_assert(p1 && p2 && p3 && p1 < p2 && p2 < p3, "%s", r.out);
    cr_expect(strstr(p1, "0.60") < strchr(p1, '\n'), "9 chars / 15 tokens:\n%s", r.out);
    cr_expect(strstr(p2, "4.40") < strchr(p2, '\n'), "22 chars / 5 tokens:\n%s", r.out);
    cr_expect(strstr(r.out, "inside character 737 (line 9, column 141)") != NULL, "%s", r.out);
    /* a second ordinal */
    run_free(&r);
    r = run_g2e("count", "--ctx", "2", "dog cat mouse", NULL);
    cr_expect(strstr(r.out, "2nd token ends") && strstr(r.out, "fits 2"), "%s", r.out);
    run_free(&r);
    r = run_g2e("count", "--ctx", "13", "dog cat mouse", NULL);
    cr_expect(strstr(r.out, "13th token ends"), "%s", r.out);
    run_free(&r);
}

Test(count_cli, usage_and_errors)
{
    struct {
        const char *args[6];
        int status;
        const char *msg;
    } cases[] = {
        {{NULL}, 2, "nothing to count"},
        {{"--ctx", "0", "x"}, 2, "--ctx needs an integer in 1.."},
        {{"--ctx", "x", "x"}, 2, "--ctx needs an integer in 1.."},
        {{"--format", "csv", "x"}, 2, "table or json"},
        {{"--bogus", "x"}, 2, "unknown option '--bogus'"},
        {{"-", "-"}, 2, "only once"},
        {{"-f"}, 2, "needs a file name"},
        {{"-f", "/nonexistent/file.txt"}, 1, "/nonexistent/file.txt"},
        {{"-f", "/"}, 1, "cannot read '/'"},
        {{"--tokenizer", "/nonexistent/tok", "x"}, 1, "/nonexistent/tok"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *argv[12] = {G2E_TEST_BIN, "count"};
        int n = 2;
        for (int i = 0; cases[k].args[i]; i++)
            argv[n++] = (char *)cases[k].args[i];
        argv[n] = NULL;
        run_result r = run_argv(argv, NULL, 0, NULL, NULL);
        cr_expect_eq(r.status, cases[k].status, "case %zu: %d %s", k, r.status, r.err);
        cr_expect(strstr(r.err, cases[k].msg) != NULL, "case %zu: %s", k, r.err);
        cr_expect_eq(r.out_len, 0, "case %zu: nothing on stdout", k);
        const char *nl = strchr(r.err, '\n');
        cr_expect(nl && nl[1] == '\0', "case %zu: one line: %s", k, r.err);
        run_free(&r);
    }
    run_result r = run_g2e("count", "--help", NULL);
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "usage: gpt2-embed count") && strstr(r.out, "--ctx"), "%s", r.out);
    run_free(&r);
    r = run_g2e("--help", NULL);
    cr_expect(strstr(r.out, "count") != NULL, "listed: %s", r.out);
    run_free(&r);
}

/* -f names one file: a TEXT after it is a text (issue 10), and inputs keep their order. */
Test(count_cli, a_text_after_a_file_is_a_text)
{
    run_result r = run_g2e("count", "--format", "json", "-f", DATA "count_en.txt", "The dog chased the cat",
                           "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *j = cJSON_Parse(r.out), *ins = cJSON_GetObjectItem(j, "inputs");
    cr_assert(j && cJSON_GetArraySize(ins) == 3, "%s", r.out);
    const char *kinds[] = {"file", "text", "stdin"};
    for (int k = 0; k < 3; k++)
        cr_expect_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(ins, k), "kind")->valuestring, kinds[k]);
    cr_expect_eq(num(cJSON_GetArrayItem(ins, 1), "tokens"), 5); /* tiktoken: The dog chased the cat */
    cr_expect_eq(num(cJSON_GetArrayItem(ins, 2), "bytes"), 0);  /* standard input was empty */
    cJSON_Delete(j);
    run_free(&r);
    /* "--" makes "-" a text too */
    r = run_g2e("count", "--format", "json", "--", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "\"kind\": \"text\"") != NULL, "%s", r.out);
    run_free(&r);
}

/* issue 23: README.ja's `count -f a.txt b.txt` counted the second *name* as text. A TEXT that
 * names an existing file gets a note (count, tokenize, embed, compare); other texts none. */
Test(count_cli, a_text_that_names_a_file_is_said)
{
    run_result r = run_g2e("count", "-f", DATA "count_en.txt", DATA "count_ja.txt", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, "note: '" DATA "count_ja.txt' is a file name; to read the file use -f ")
              != NULL, "%s", r.err);
    run_free(&r);
    r = run_g2e("count", "-f", DATA "count_en.txt", "-f", DATA "count_ja.txt", "犬が猫", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(r.err_len, 0, "%s", r.err);
    run_free(&r);
    r = run_g2e("tokenize", DATA "count_ja.txt", NULL);
    cr_expect(strstr(r.err, "is a file name; to read the file use -f") != NULL, "%s", r.err);
    run_free(&r);
    r = run_g2e("embed", DATA "count_ja.txt", "--weights", "/nonexistent.safetensors", NULL);
    cr_expect(strstr(r.err, "is a file name; to read the file use -f") != NULL, "%s", r.err);
    run_free(&r);
    r = run_g2e("compare", DATA "count_ja.txt", "x", "--weights", "/nonexistent.safetensors", NULL);
    cr_expect(strstr(r.err, "is a file name; this command takes texts, not files") != NULL, "%s", r.err);
    run_free(&r);
}

/* issue 23: the cut inside 角 is shown the same way, with the same words, by count, by embed's
 * error and by its --truncate note: the 1024th token is 角 (2/3), window 2 starts with 角 (3/3) */
Test(count_cli, the_cut_inside_a_character_is_shown_split_everywhere)
{
    static const char *const SPLIT = "対角 (1-2/3)|角 (3/3)線";
    static const char *const WHERE = "inside character 737 (line 9, column 141)";
    run_result r = run_g2e("count", "-f", DATA "count_ja.txt", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, SPLIT) && strstr(r.out, WHERE), "%s", r.out);
    run_free(&r);
    fixture_opts o;
    fixture_tiny(&o);
    o.n_vocab = 50257, o.n_ctx = 1024, o.n_embd = 4;
    char *dir = test_tmpdir("countcut"), *w = path_join(dir, "w.safetensors"), e[256];
    char *npy = path_join(dir, "x.npy");
    cr_assert_eq(fixture_write(w, &o, e, sizeof e), 0, "%s", e);
    r = run_g2e("embed", "-f", DATA "count_ja.txt", "--weights", w, "-o", npy, NULL);
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect(strstr(r.err, SPLIT) && strstr(r.err, WHERE), "%s", r.err);
    run_free(&r);
    r = run_g2e("embed", "-f", DATA "count_ja.txt", "--weights", w, "-o", npy, "--truncate", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, SPLIT) && strstr(r.err, "up to inside character 737 (line 9, column 141"),
              "%s", r.err);
    run_free(&r);
    r = run_g2e("tokenize", "-f", DATA "count_ja.txt", "--format", "ids", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    /* in Japanese, the same 「の途中」 in both */
    r = run_g2e("--lang", "ja", "count", "-f", DATA "count_ja.txt", NULL);
    cr_expect(strstr(r.out, "737 文字目（9 行 141 桁目）の途中"), "%s", r.out);
    run_free(&r);
    r = run_g2e("--lang", "ja", "embed", "-f", DATA "count_ja.txt", "--weights", w, "-o", npy, NULL);
    cr_expect(strstr(r.err, "737 文字目（9 行 141 桁目）の途中"), "%s", r.err);
    run_free(&r);
    free(npy), free(w), free(dir);
}

/* A large file over threads counts exactly what one thread counts. */
Test(count_cli, threads_count_the_same, .timeout = 60)
{
    char *dir = test_tmpdir("count-threads");
    char *path = path_join(dir, "big.txt");
    size_t n;
    char *en = read_file(DATA "count_en.txt", &n);
    size_t reps = (2u << 20) / n + 1;
    char *big = malloc(n * reps);
    for (size_t k = 0; k < reps; k++)
        memcpy(big + k * n, en, n);
    write_file(path, big, n * reps);
    run_result a = run_g2e("count", "--format", "json", "--threads", "1", "-f", path, NULL);
    run_result b = run_g2e("count", "--format", "json", "--threads", "4", "-f", path, NULL);
    cr_assert_eq(a.status, 0, "%s", a.err);
    cr_assert_eq(b.status, 0, "%s", b.err);
    cr_expect_str_eq(a.out, b.out);
    run_free(&a);
    run_free(&b);
    free(big);
    free(en);
    free(path);
    free(dir);
}

/* ---- no cap: a text over 1 GiB, from a file and through a pipe ---- */

/* One number of `count --format json`'s first input. */
static double json_num(const char *out, const char *key, const char *sub)
{
    cJSON *j = cJSON_Parse(out);
    cr_assert(j != NULL, "%s", out);
    cJSON *in = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "inputs"), 0);
    cJSON *o = sub ? cJSON_GetObjectItem(in, sub) : in;
    double v = cJSON_GetObjectItem(o, key)->valuedouble;
    cJSON_Delete(j);
    return v;
}

/* The corpus 82 times (1.09 GB): 82 times its bytes, characters and tokens (its copies'
 * tokens do not merge: test_tokenize_cli.c), the cut where the corpus's is, from the file
 * and through a pipe, in doc/corpora.md's memory bound. */
LongTest(count_cli, a_text_over_1_gib_is_counted_exactly_in_bounded_memory, .timeout = 900)
{
    char *gz[] = {"/bin/gzip", "-dc", G2E_SRCDIR "/bench/data/corpus.txt.gz", NULL};
    run_result c = run_argv(gz, NULL, 0, NULL, NULL);
    cr_assert_eq(c.status, 0);
    char *dir = test_tmpdir("countcli-big");
    char *cp = path_join(dir, "corpus.txt"), *rss = path_join(dir, "rss");
    write_file(cp, c.out, c.out_len);
    run_result one = run_g2e("count", "--format", "json", "-f", cp, NULL);
    cr_assert_eq(one.status, 0, "%s", one.err);
    char *big = mem_file(c.out, c.out_len, 82); /* in memory: the test needs no free disk */
    run_free(&c);
    for (int via = 0; via < 2; via++) {
        char cmd[8192];
        if (via)
            snprintf(cmd, sizeof cmd, "cat '%s' | /usr/bin/time -f %%M -o '%s' '%s' count --format json -", big, rss,
                     G2E_TEST_BIN);
        else
            snprintf(cmd, sizeof cmd, "/usr/bin/time -f %%M -o '%s' '%s' count --format json -f '%s'", rss,
                     G2E_TEST_BIN, big);
        char *sh[] = {"/bin/sh", "-c", cmd, NULL};
        run_result r = run_argv(sh, NULL, 0, NULL, NULL);
        cr_assert_eq(r.status, 0, "%s: %s", via ? "pipe" : "file", r.err);
        static const char *const keys[] = {"bytes", "chars", "tokens"};
        for (int k = 0; k < 3; k++)
            cr_expect_eq(json_num(r.out, keys[k], NULL), 82 * json_num(one.out, keys[k], NULL), "%s: %s",
                         via ? "pipe" : "file", keys[k]);
        cr_expect_eq(json_num(r.out, "byte", "cut"), json_num(one.out, "byte", "cut"));
        cr_expect_eq(json_num(r.out, "line", "cut"), json_num(one.out, "line", "cut"));
        cr_expect_eq(json_num(r.out, "column", "cut"), json_num(one.out, "column", "cut"));
        size_t n;
        char *s = read_file(rss, &n);
        long kb = atol(s);
        /* doc/corpora.md's bound; a sanitizer build adds ASan's 256 MB quarantine of freed memory */
        cr_expect(kb > 0 && kb < (64 + (sizeof G2E_TEST_SANFLAGS > 1 ? 256 : 0)) * 1024, "%s: peak RSS %ld KB",
                  via ? "pipe" : "file", kb);
        fprintf(stderr, "count 1.09 GB from a %s: peak RSS %ld KB\n", via ? "pipe" : "file", kb);
        free(s);
        run_free(&r);
    }
    run_free(&one);
    free(cp), free(big), free(rss), free(dir);
}

/* Issue 38: an English text also says how many words its tokens hold and so how many words
 * the context holds (the chapter's "700-800 words"), from numbers made here: words counted
 * by Python (runs between white space with an ASCII letter), tokens from tiktoken's expected
 * file. A Japanese text gets no such line. Standard input too. */
Test(count_cli, english_text_says_how_many_words_the_context_holds)
{
    run_result r = run_argv((char *[]){"/usr/bin/python3", "-c",
                                       "import re, sys; t = open(sys.argv[1], encoding='utf-8').read(); "
                                       "print(sum(1 for w in t.split() if re.search('[A-Za-z]', w)))",
                                       DATA "count_en.txt", NULL}, NULL, 0, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    long words = strtol(r.out, NULL, 10);
    run_free(&r);
    cJSON *exp = expected();
    double tokens = num(find_input(exp, "count_en.txt"), "tokens");
    cJSON_Delete(exp);
    r = run_g2e("count", "-f", DATA "count_en.txt", "-f", DATA "count_ja.txt", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char want[256];
    snprintf(want, sizeof want, "count_en.txt: %ld English words in %.0f tokens (%.2f tokens per word): "
             "1024 tokens hold about %.0f words of such text", words, tokens, tokens / (double)words,
             1024.0 * (double)words / tokens);
    cr_expect(strstr(r.out, want), "want %s in %s", want, r.out);
    for (const char *p = r.out; (p = strstr(p, "English words")); p++) {   /* the English text's only */
        const char *line = p;
        while (line > r.out && line[-1] != '\n')
            line--;
        const char *en = strstr(line, "count_en.txt");
        cr_expect(en && en < p, "only the English text: %.*s", (int)(p - line), line);
    }
    run_free(&r);
    /* standard input is streamed (counted as it is read): the same sentence */
    size_t n;
    char *text = read_file(DATA "count_en.txt", &n);
    r = run_argv((char *[]){G2E_TEST_BIN, "count", "-", NULL}, text, n, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    snprintf(want, sizeof want, "-: %ld English words in %.0f tokens", words, tokens);
    cr_expect(strstr(r.out, want), "want %s in %s", want, r.out);
    run_free(&r);
    free(text);
}

/* count's JSON with --per-char and --lossy: every member read back, against the numbers the
 * door gives (gpt2embed_count_ex, gpt2embed_char_costs) and this test's own arithmetic. */
Test(count_cli, json_with_per_char_and_lossy_reads_back)
{
    const char *text = "\xFF犬が猫を追いかけた";
    run_result r;
    cJSON *j = run_json(&r, (const char *const[]){"--per-char", "--lossy", "--ctx", "3", "--", text, NULL});
    const cJSON *g = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "inputs"), 0);
    cr_assert(g != NULL, "%s", r.out);
    gpt2embed_tokenizer *t;
    gpt2embed_count_info c;
    gpt2embed_count_detail d;
    gpt2embed_char_cost *cc;
    size_t ncc;
    cr_assert_eq(gpt2embed_tokenizer_open(&t, NULL, NULL), 0);
    cr_assert_eq(gpt2embed_count_ex(t, text, strlen(text), GPT2EMBED_LOSSY, 3, 2, &c, &d, NULL), 0);
    cr_assert_eq(gpt2embed_char_costs(t, text, strlen(text), GPT2EMBED_LOSSY, 1, &cc, &ncc, NULL), 0);
    cr_expect_str_eq(cJSON_GetObjectItem(g, "kind")->valuestring, "text");
    cr_expect_eq(num(g, "bytes"), (double)strlen(text));
    cr_expect_eq(num(g, "chars"), 10, "the bad byte and nine characters");
    cr_expect_eq(num(g, "tokens"), (double)c.n_tokens);
    cr_expect_eq(num(g, "windows"), ceil((double)c.n_tokens / 3));
    cr_expect_eq(num(g, "replaced"), 1);
    cr_expect(cJSON_IsFalse(cJSON_GetObjectItem(g, "fits")));
    const cJSON *pc = cJSON_GetObjectItem(g, "per_char");
    cr_assert_eq(cJSON_GetArraySize(pc), 10);
    cr_expect_eq((size_t)cJSON_GetArraySize(pc), ncc);
    double sum = 0;
    for (int i = 0; i < cJSON_GetArraySize(pc); i++) {
        const cJSON *row = cJSON_GetArrayItem(pc, i);
        sum += num(row, "tokens");
        cr_expect_eq(num(row, "tokens"), cc[i].tokens, "row %d", i);
        cr_expect_eq(num(row, "count"), (double)cc[i].count);
    }
    cr_expect(fabs(sum - (double)c.n_tokens) < 1e-9, "the costs add up to the tokens: %g", sum);
    const cJSON *bad = cJSON_GetArrayItem(pc, 0);
    cr_expect(cJSON_IsNull(cJSON_GetObjectItem(bad, "codepoint")) || num(bad, "codepoint") > 0);
    const cJSON *cut = cJSON_GetObjectItem(g, "cut");
    cr_expect_eq(num(cut, "byte"), (double)c.ctx_end_byte);
    cr_expect_eq(num(cut, "chars_before"), (double)c.ctx_end_char);
    cr_expect_eq(num(cut, "line"), 1);
    cr_expect_eq(num(cut, "column"), (double)d.ctx_end_column);
    cr_expect_str_eq(cJSON_GetObjectItem(cut, "snippet")->valuestring, d.ctx_end_snippet);
    gpt2embed_free(cc);
    gpt2embed_tokenizer_close(t);
    cJSON_Delete(j);
    run_free(&r);
}
