/* SPDX-License-Identifier: MIT */
/* test_tokchars_cli.c — the characters behind byte-level tokens, as the commands show them
 * (issue 11, item 2): embed's table, JSON and CSV, tokenize's table and JSON, nearest's
 * pieces shown alone, count --per-char.
 *
 * The oracle is tests/tokchars_cli_ref.py, which knows only the token IDs, vocab.json and
 * Python's str: each ID's bytes through GPT-2's byte-to-unicode map, the offsets by adding
 * up their lengths, each character's bytes by str.encode, display widths from unicodedata.
 * The IDs of 犬が猫を追いかけた (163 232 105 35585 163 234 104 31758 164 4204 18566 27370
 * 2515 239 25224) are tiktoken's gpt2 encoding. */
#include "fixture.h"
#include "support.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dir, *weights;

static void setup(void)
{
    fixture_opts o;
    fixture_tiny(&o);
    o.n_vocab = 50257;   /* every GPT-2 ID has a row; n_embd 8 keeps it small */
    o.n_ctx = 1024;
    dir = test_tmpdir("tokchars-cli");
    weights = path_join(dir, "w.safetensors");
    char e[256];
    cr_assert_eq(fixture_write(weights, &o, e, sizeof e), 0, "%s", e);
}

TestSuite(tokchars_cli, .init = setup);

/* Runs the program with args, writing its standard output to DIR/name. */
static void to_file(const char *name, char *const args[])
{
    char *argv[24];
    int n = 0;
    argv[n++] = (char *)G2E_TEST_BIN;
    for (int i = 0; args[i]; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    run_result r = run_argv(argv, NULL, 0, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s: %s", name, r.err);
    char *p = path_join(dir, name);
    write_file(p, r.out, r.out_len);
    free(p);
    run_free(&r);
}

static void check_text(const char *text)
{
    char *tp = path_join(dir, "text.txt");
    write_file(tp, text, strlen(text));
    char *w = weights;
    to_file("embed.json", (char *[]){"--weights", w, "-f", tp, "--format", "json", NULL});
    to_file("embed.csv", (char *[]){"--weights", w, "-f", tp, "--format", "csv", NULL});
    to_file("embed.txt", (char *[]){"--weights", w, "-f", tp, NULL});
    to_file("tokenize.json", (char *[]){"tokenize", "-f", tp, "--format", "json", NULL});
    to_file("tokenize.txt", (char *[]){"tokenize", "-f", tp, NULL});
    char *script = path_join(G2E_SRCDIR, "tests/tokchars_cli_ref.py");
    run_result r = run_argv((char *[]){"/usr/bin/python3", script, "check", dir,
                                       G2E_SRCDIR "/tokenizer/vocab.json", NULL}, NULL, 0, NULL, NULL);
    cr_expect_eq(r.status, 0, "%s: %s%s", text, r.out, r.err);
    cr_expect(strncmp(r.out, "ok ", 3) == 0, "%s", r.out);
    run_free(&r);
    free(script);
    free(tp);
}

Test(tokchars_cli, japanese_sentence_json_csv_tables)
{
    check_text("犬が猫を追いかけた");
}

Test(tokchars_cli, mixed_english_japanese_emoji)
{
    /* tokens that end one character and start the next (" 😀" is ␣ + 😀 (1-3/4)), a
     * fullwidth punctuation mark, Latin with a diacritic, two-byte and four-byte characters */
    check_text("The dog 犬 chased 猫! 😀 naïve café、東京 🐈‍⬛ end");
}

Test(tokchars_cli, the_table_names_the_character_and_its_share)
{
    run_result r = run_g2e("--weights", weights, "犬が猫を追いかけた", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *rows[] = {"犬 (1/3)", "犬 (2/3)", "犬 (3/3)", "が", "猫 (1/3)", "追 (1/3)", "追 (2-3/3)",
                          "け (1-2/3)", "け (3/3)", "た"};
    const char *p = r.out;
    for (size_t k = 0; k < sizeof rows / sizeof *rows; k++) {
        p = strstr(p, rows[k]);
        cr_expect(p != NULL, "'%s' missing (in order) in:\n%s", rows[k], r.out);
        if (!p)
            break;
    }
    cr_expect(strstr(r.out, "\\xE7") == NULL, "no anonymous bytes left:\n%s", r.out);
    run_free(&r);
    /* --ids: the IDs' bytes one after another say which characters they are */
    r = run_g2e("--weights", weights, "--ids", "163 232 105 35585", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "犬 (1/3)") && strstr(r.out, "犬 (3/3)"), "%s", r.out);
    run_free(&r);
}

Test(tokchars_cli, nearest_shows_a_lone_piece_as_bytes_and_says_why)
{
    run_result r = run_g2e("nearest", "--weights", weights, "--id", "163", "-k", "3", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "wte[163 '\\xE7']") != NULL, "%s", r.out);
    cr_expect(strstr(r.out, "\\xNN: a byte of a UTF-8 character") != NULL, "%s", r.out);
    run_free(&r);
    r = run_g2e("nearest", "--weights", weights, "--id", "163", "-k", "50", "--format", "json", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert(j, "%s", r.out);
    cJSON *h;
    cJSON_ArrayForEach(h, cJSON_GetObjectItemCaseSensitive(j, "nearest")) {
        cJSON *bytes = cJSON_GetObjectItemCaseSensitive(h, "bytes");
        cr_assert(cJSON_IsArray(bytes));
        /* the bytes spell the piece whenever it is valid UTF-8; "utf8" says whether it is */
        int n = cJSON_GetArraySize(bytes);
        char buf[256];
        cr_assert(n < 256);
        for (int k = 0; k < n; k++)
            buf[k] = (char)cJSON_GetArrayItem(bytes, k)->valueint;
        buf[n] = '\0';
        int valid = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(h, "utf8"));
        const char *piece = cJSON_GetObjectItemCaseSensitive(h, "piece")->valuestring;
        if (valid)
            cr_expect_str_eq(piece, buf);
        else
            cr_expect(strstr(piece, "\xEF\xBF\xBD") != NULL, "an invalid piece reads as U+FFFD: %s", piece);
    }
    cJSON_Delete(j);
    run_free(&r);
}

static void per_char_case(const char *text)
{
    char *tp = path_join(dir, "pc.txt"), *cj = path_join(dir, "count.json"), *tj = path_join(dir, "tok.json");
    write_file(tp, text, strlen(text));
    to_file("count.json", (char *[]){"count", "--per-char", "--format", "json", "-f", tp, NULL});
    to_file("tok.json", (char *[]){"tokenize", "--format", "json", "-f", tp, NULL});
    char *script = path_join(G2E_SRCDIR, "tests/tokchars_cli_ref.py");
    run_result r = run_argv((char *[]){"/usr/bin/python3", script, "percost", tp, cj, tj, NULL}, NULL, 0, NULL, NULL);
    cr_expect_eq(r.status, 0, "%s: %s%s", text, r.out, r.err);
    cr_expect(strncmp(r.out, "ok ", 3) == 0, "%s", r.out);
    run_free(&r);
    free(script), free(tp), free(cj), free(tj);
}

Test(tokchars_cli, count_per_char_json_against_exact_fractions)
{
    per_char_case("犬が猫を追いかけた");
    per_char_case("The dog 犬 chased 猫! 😀 naïve café、東京 🐈‍⬛ end. 犬犬 the the");
}

Test(tokchars_cli, count_per_char_table)
{
    run_result r = run_g2e("count", "--per-char", "犬が猫を追いかけた", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    /* 犬 and 猫 are three byte tokens each (3 of the 15 tokens: 20%), 追 and け two */
    const char *rows[] = {"犬      U+72AC        3        1     3.0000       3.0000   20.0%",
                          "猫      U+732B        3        1     3.0000       3.0000   20.0%",
                          "追      U+8FFD        3        1     2.0000       2.0000   13.3%",
                          "け      U+3051        3        1     2.0000       2.0000   13.3%",
                          "が      U+304C        3        1     1.0000       1.0000    6.7%"};
    const char *p = r.out;
    for (size_t k = 0; k < sizeof rows / sizeof *rows; k++) {
        p = strstr(p, rows[k]);
        cr_expect(p != NULL, "'%s' missing (in order) in:\n%s", rows[k], r.out);
        if (!p)
            break;
    }
    run_free(&r);
    r = run_g2e("count", "--per-char", "--top", "2", "犬が猫を追いかけた", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "猫      U+732B") && !strstr(r.out, "追      U+8FFD"), "%s", r.out);
    cr_expect(strstr(r.out, "... and 7 more characters") != NULL, "%s", r.out);
    run_free(&r);
    r = run_g2e("count", "犬が", NULL);
    cr_expect(strstr(r.out, "U+72AC") == NULL, "only with --per-char: %s", r.out);
    run_free(&r);
    /* lossy input: ill-formed bytes are characters of their own, escaped, and the column after
     * them still lines up (these rows are ASCII: a byte is a column) */
    char *bad = path_join(dir, "bad.txt");
    write_file(bad, "a\xFF" "b\xE7\x8A\xE7", 6);
    r = run_g2e("count", "--lossy", "--per-char", "-f", bad, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *lines[] = {"\na ", "\n\\xFF ", "\n\\xE7\\x8A ", "\n\\xE7 "};
    long col = -1;
    for (size_t k = 0; k < 4; k++) {
        const char *l = strstr(r.out, lines[k]);
        cr_assert(l, "row '%s' missing:\n%s", lines[k] + 1, r.out);
        const char *inv = strstr(l + 1, "invalid"), *u = strstr(l + 1, "U+");   /* the code column */
        const char *code = inv && (!u || inv < u) ? inv : u;
        long c = (long)(code - (l + 1));
        cr_expect(col < 0 || c == col, "row '%s': code column at %ld, not %ld:\n%s", lines[k] + 1, c, col, r.out);
        col = c;
    }
    cr_expect(strstr(r.out, "0.6667") != NULL, "E7 8A get 2/3 of the token E7 8A E7:\n%s", r.out);
    run_free(&r);
    free(bad);
    r = run_g2e("count", "--per-char", "--top", "x", "犬が", NULL);
    cr_expect_eq(r.status, 2, "%s", r.err);
    run_free(&r);
}
