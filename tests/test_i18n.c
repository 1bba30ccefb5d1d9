/* SPDX-License-Identifier: MIT */
/* test_i18n.c — the Japanese interface: the catalogue is complete for the messages the
 * sources hold today (msgmerge of po/ja.po with the freshly extracted template, then
 * msgfmt --statistics: no untranslated, no fuzzy message), every way of choosing the
 * language works (LANGUAGE, LC_ALL, LC_MESSAGES, LANG — even when the named locale is not
 * installed or the locale is C — and --lang ja|en before "--"), Japanese output carries the
 * same numbers, written the same way, as English output, and machine-readable outputs
 * (JSON, CSV, npy) are byte for byte the same in both languages. */
#include "fixture.h"
#include "i18n.h"
#include "support.h"

#include <criterion/criterion.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The template the build extracted: beside the program under test (build/po/...). */
static char *pot_path(void)
{
    char *dir = strdup(G2E_TEST_BIN);
    *strrchr(dir, '/') = '\0';
    char *p = path_join(dir, "po/gpt2-embed.pot");
    free(dir);
    return p;
}

/* The environment of every run: no inherited language, plus the entries given. */
static run_result run_env(char *const *env_extra, char *const *args)
{
    char *env[32];
    int n = 0;
    static const char *const CLEAR[] = {"-LANGUAGE", "-LC_ALL", "-LC_MESSAGES", "-LANG",
                                        "-LC_NUMERIC", "-LC_CTYPE", "-GPT2_EMBED_LOCALEDIR"};
    for (size_t i = 0; i < sizeof CLEAR / sizeof *CLEAR; i++)
        env[n++] = (char *)CLEAR[i];
    for (; env_extra && *env_extra && n < 30; env_extra++)
        env[n++] = *env_extra;
    env[n] = NULL;
    char *argv[64];
    int k = 0;
    argv[k++] = G2E_TEST_BIN;
    for (; *args && k < 63; args++)
        argv[k++] = *args;
    argv[k] = NULL;
    return run_argv(argv, NULL, 0, env, NULL);
}

/* 1 if s holds a hiragana, katakana or CJK ideograph. */
static int has_japanese(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p == 0xE3 || (*p >= 0xE4 && *p <= 0xE9))   /* U+3000..U+9FFF lead bytes */
            return 1;
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The numbers in s, each as written ("0.5", "-1", "1e-05"), sorted and joined by '|': a
 * translation may put them in another order, but must write the same numbers the same way. */
static char *numbers_of(const char *s)
{
    regex_t re;
    cr_assert_eq(regcomp(&re, "-?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?", REG_EXTENDED), 0);
    size_t cap = strlen(s) * 2 + 2, o = 0;
    char *out = malloc(cap);
    out[0] = '\0';
    regmatch_t m;
    const char *p = s;
    while (regexec(&re, p, 1, &m, 0) == 0) {
        size_t len = (size_t)(m.rm_eo - m.rm_so);
        memcpy(out + o, p + m.rm_so, len);
        o += len;
        out[o++] = '|';
        out[o] = '\0';
        p += m.rm_eo;
    }
    regfree(&re);
    /* sort the '|'-separated items */
    char *items[4096];
    size_t n = 0;
    for (char *t = strtok(out, "|"); t && n < 4096; t = strtok(NULL, "|"))
        items[n++] = t;
    qsort(items, n, sizeof *items, cmp_str);
    char *sorted = malloc(cap);
    size_t q = 0;
    sorted[0] = '\0';
    for (size_t i = 0; i < n; i++)
        q += (size_t)snprintf(sorted + q, cap - q, "%s|", items[i]);
    free(out);
    return sorted;
}

Test(i18n, catalogue_is_complete_for_the_sources)
{
    char *dir = test_tmpdir("i18n-po");
    char *merged = path_join(dir, "merged.po"), *pot = pot_path();
    run_result r = run_argv((char *[]){"/usr/bin/msgmerge", "--quiet", "-o", merged,
                                       G2E_SRCDIR "/po/ja.po", pot, NULL},
                            NULL, 0, NULL, NULL);
    cr_assert_eq(r.status, 0, "msgmerge: %s", r.err);
    run_free(&r);
    const char *files[] = {G2E_SRCDIR "/po/ja.po", merged};
    for (size_t i = 0; i < 2; i++) {
        r = run_argv((char *[]){"/usr/bin/msgfmt", "-c", "--statistics", "-o", "/dev/null",
                                (char *)files[i], NULL}, NULL, 0, (char *[]){"LC_ALL=C", NULL}, NULL);
        cr_expect_eq(r.status, 0, "msgfmt -c %s: %s", files[i], r.err);
        cr_expect(strstr(r.err, "translated message") != NULL, "%s", r.err);
        cr_expect(strstr(r.err, "untranslated") == NULL,
                  "%s: messages without a Japanese translation (run make po-update, then "
                  "translate): %s", files[i], r.err);
        cr_expect(strstr(r.err, "fuzzy") == NULL, "%s: fuzzy translations to check: %s", files[i], r.err);
        run_free(&r);
    }
    free(merged);
    free(pot);
    free(dir);
}

static void expect_lang(char *const *env, char *const *args, int ja, const char *what)
{
    /* the English reference: the same command without --lang and without the environment */
    char *plain[64];
    int n = 0, after_dashes = 0;
    for (char *const *a = args; *a && n < 63; a++) {
        if (!after_dashes && strcmp(*a, "--lang") == 0 && a[1]) {
            a++;
            continue;
        }
        if (!after_dashes && strncmp(*a, "--lang=", 7) == 0)
            continue;
        after_dashes |= strcmp(*a, "--") == 0;
        plain[n++] = *a;
    }
    plain[n] = NULL;
    run_result en = run_env(NULL, plain);
    run_result r = run_env(env, args);
    cr_expect(!en.signaled && !r.signaled, "%s: killed by a signal (status %d / %d)", what, en.status, r.status);
    cr_expect_eq(r.status, en.status, "%s: status %d, English %d", what, r.status, en.status);
    const char *got = *r.err ? r.err : r.out;
    const char *eng = *en.err ? en.err : en.out;
    if (ja) {
        cr_expect(has_japanese(got), "%s: not Japanese: %s", what, got);
        cr_expect(strcmp(got, eng) != 0, "%s: same as English", what);
    } else {
        cr_expect_str_eq(got, eng, "%s: not English", what);
    }
    char *a = numbers_of(got), *b = numbers_of(eng);
    cr_expect_str_eq(a, b, "%s: the numbers differ from English: %s vs %s", what, got, eng);
    free(a), free(b);
    run_free(&r);
    run_free(&en);
}

Test(i18n, every_way_of_choosing_the_language)
{
    char *unknown[] = {"help", "nosuchcommand", NULL};
    expect_lang((char *[]){"LANGUAGE=ja", NULL}, unknown, 1, "LANGUAGE=ja (locale C)");
    expect_lang((char *[]){"LANG=ja_JP.UTF-8", NULL}, unknown, 1, "LANG=ja_JP.UTF-8 (not installed)");
    expect_lang((char *[]){"LC_MESSAGES=ja_JP.UTF-8", NULL}, unknown, 1, "LC_MESSAGES=ja_JP.UTF-8");
    expect_lang((char *[]){"LC_ALL=ja_JP.UTF-8", "LANG=en_US.UTF-8", NULL}, unknown, 1, "LC_ALL wins over LANG");
    expect_lang((char *[]){"LANGUAGE=fr:ja", "LANG=C.UTF-8", NULL}, unknown, 1, "LANGUAGE=fr:ja");
    expect_lang((char *[]){"LANG=C.UTF-8", NULL}, (char *[]){"--lang", "ja", "help", "nosuchcommand", NULL},
                1, "--lang ja");
    expect_lang(NULL, (char *[]){"--lang=ja", "help", "nosuchcommand", NULL}, 1, "--lang=ja");
    expect_lang(NULL, (char *[]){"tokenize", "--no-such-option", "--lang", "ja", NULL}, 1,
                "--lang ja after the command");
    expect_lang((char *[]){"LANGUAGE=ja", "LC_ALL=ja_JP.UTF-8", NULL},
                (char *[]){"--lang", "en", "help", "nosuchcommand", NULL}, 0, "--lang en wins");
    expect_lang((char *[]){"LANGUAGE=fr", NULL}, unknown, 0, "a language without catalogue");
    expect_lang((char *[]){"LANG=en_US.UTF-8", NULL}, unknown, 0, "LANG=en_US");
    expect_lang(NULL, (char *[]){"tokenize", "--no-such-option", "--", "--lang", "ja", NULL}, 0,
                "--lang after -- is text");
}

Test(i18n, unknown_language_is_a_usage_error)
{
    run_result r = run_env(NULL, (char *[]){"--lang", "fr", "help", NULL});
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "gpt2-embed: --lang needs one of ja or en, got 'fr'\n");
    cr_expect_str_eq(r.out, "");
    run_free(&r);
    r = run_env((char *[]){"LANGUAGE=ja", NULL}, (char *[]){"tokenize", "--lang=de", "x", NULL});
    cr_expect_eq(r.status, 2);
    cr_expect(has_japanese(r.err), "the message is in the environment's language: %s", r.err);
    cr_expect(strstr(r.err, "'de'") != NULL, "%s", r.err);
    run_free(&r);
}

Test(i18n, help_and_parse_errors_in_japanese_with_the_same_numbers)
{
    const char *cmds[] = {"embed", "tokenize", "decode", "count", "similarity", "sinusoidal",
                          "exercise", "inspect", "nearest", "download", "plot", "stats"};
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        char what[64];
        snprintf(what, sizeof what, "%s --help", cmds[i]);
        expect_lang(NULL, (char *[]){"--lang", "ja", (char *)cmds[i], "--help", NULL}, 1, what);
    }
    expect_lang((char *[]){"LANGUAGE=ja", NULL}, (char *[]){"decode", "464", "99999999", NULL}, 1,
                "an ID beyond the vocabulary");
    expect_lang((char *[]){"LANGUAGE=ja", NULL}, (char *[]){"decode", "[464,", NULL}, 1,
                "a broken ID list");
    expect_lang((char *[]){"LANGUAGE=ja", NULL}, (char *[]){"inspect", "/nonexistent/w.safetensors", NULL},
                1, "a missing file");
    expect_lang((char *[]){"LANGUAGE=ja", NULL}, (char *[]){"sinusoidal", "--len", "0", "--dim", "8", NULL},
                1, "an option's range");
    expect_lang((char *[]){"LANGUAGE=ja", NULL}, (char *[]){"exercise", "1", "--ctx", "-3", NULL}, 1,
                "a negative value");
}

/* A fixture with GPT-2's vocabulary and context, narrow rows. */
static char *write_weights(const char *tag)
{
    fixture_opts o;
    fixture_tiny(&o);
    o.n_vocab = 50257;
    o.n_ctx = 1024;
    o.n_embd = 8;
    char *dir = test_tmpdir(tag);
    char *w = path_join(dir, "w.safetensors");
    char e[256];
    cr_assert_eq(fixture_write(w, &o, e, sizeof e), 0, "%s", e);
    free(dir);
    return w;
}

Test(i18n, machine_readable_output_never_changes_with_the_language)
{
    char *w = write_weights("i18n-w");
    char *cases[][10] = {
        {"tokenize", "--format", "json", "犬が猫を追いかけた", NULL},
        {"embed", "--weights", w, "--format", "json", "犬が猫を追いかけた", NULL},
        {"embed", "--weights", w, "--format", "csv", "The cat sat", NULL},
        {"similarity", "--weights", w, "--format", "json", "--pos", "0", "5", NULL},
        {"sinusoidal", "--len", "4", "--dim", "8", "--format", "csv", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        run_result en = run_env(NULL, cases[i]);
        run_result ja = run_env((char *[]){"LANGUAGE=ja", NULL}, cases[i]);
        run_result ja2 = run_env(NULL, (char *[]){"--lang", "ja", cases[i][0], cases[i][1], cases[i][2],
                                                  cases[i][3], cases[i][4], cases[i][5], cases[i][6],
                                                  cases[i][7], cases[i][8], NULL});
        cr_expect_eq(en.status, 0, "%s: %s", cases[i][0], en.err);
        cr_expect(en.out_len > 0);
        cr_expect(ja.out_len == en.out_len && memcmp(ja.out, en.out, en.out_len) == 0,
                  "%s: LANGUAGE=ja changed the output:\n%s\nvs\n%s", cases[i][0], ja.out, en.out);
        cr_expect(ja2.out_len == en.out_len && memcmp(ja2.out, en.out, en.out_len) == 0,
                  "%s: --lang ja changed the output", cases[i][0]);
        run_free(&en), run_free(&ja), run_free(&ja2);
    }
    free(w);
}

Test(i18n, tables_keep_their_numbers)
{
    char *w = write_weights("i18n-t");
    char *cases[][8] = {
        {"tokenize", "犬が猫を追いかけた", NULL},
        {"embed", "--weights", w, "Hello world", NULL},
        {"count", "犬が猫を追いかけた", NULL},
        {"exercise", "--weights", w, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        run_result en = run_env(NULL, cases[i]);
        run_result ja = run_env((char *[]){"LANGUAGE=ja", NULL}, cases[i]);
        cr_expect_eq(ja.status, en.status, "%s", cases[i][0]);
        char *a = numbers_of(en.out), *b = numbers_of(ja.out);
        cr_expect_str_eq(b, a, "%s: numbers differ in Japanese:\n%s\nvs\n%s", cases[i][0], ja.out, en.out);
        free(a), free(b);
        run_free(&en), run_free(&ja);
    }
    free(w);
}

Test(i18n, localedir_of_the_build_tree)
{
    /* the test binary lives in build/tests/: i18n_init finds build/locale */
    char *argv[] = {"test_i18n", NULL};
    setenv("LANGUAGE", "ja", 1);
    cr_assert_eq(i18n_init(1, argv), 0);
    cr_expect(strstr(i18n_localedir(), "/locale") != NULL, "%s", i18n_localedir());
    cr_expect_str_eq(i18n_lang(), "ja");
    char *argv_en[] = {"test_i18n", "--lang", "en", NULL};
    cr_assert_eq(i18n_init(3, argv_en), 0);
    cr_expect_str_eq(i18n_lang(), "en");
}

Test(i18n, japanese_manual_is_what_the_tables_and_ja_po_generate)
{
    const char *man = G2E_SRCDIR "/doc/ja/gpt2-embed.1";
    char *dir = test_tmpdir("i18n-man");
    char *out = path_join(dir, "out.1");
    run_result r = run_argv((char *[]){"/bin/sh", G2E_SRCDIR "/tools/genman.sh", G2E_TEST_BIN, G2E_VERSION,
                                       (char *)man, out, "ja", NULL}, NULL, 0, NULL, NULL);
    cr_assert_eq(r.status, 0, "genman.sh: %s", r.err);
    run_free(&r);
    size_t n, m;
    char *want = read_file(man, &n), *got = read_file(out, &m);
    cr_assert(want && got);
    cr_expect(n == m && memcmp(want, got, n) == 0,
              "doc/ja/gpt2-embed.1 differs from the option tables and po/ja.po: run `make man`");
    cr_expect(strstr(want, ".SS embed\n") && has_japanese(strstr(want, ".SS embed\n")),
              "the generated options are in Japanese");
    free(want), free(got), free(out), free(dir);
}

/* Figures are drawn with Japanese labels (Pango finds the IPA font): a valid PNG that differs
 * from the English one only because its text does. */
Test(i18n, figures_draw_japanese_labels)
{
    char *dir = test_tmpdir("i18n-png");
    char *en = path_join(dir, "en.png"), *ja = path_join(dir, "ja.png");
    run_result r = run_env(NULL, (char *[]){"plot", "pe", "--len", "20", "--dim", "16", "-o", en, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    r = run_env(NULL, (char *[]){"--lang", "ja", "plot", "pe", "--len", "20", "--dim", "16", "-o", ja, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    size_t ne, nj;
    char *a = read_file(en, &ne), *b = read_file(ja, &nj);
    cr_assert(a && b);
    cr_expect(nj > 8 && memcmp(b, "\x89PNG\r\n\x1a\n", 8) == 0, "not a PNG");
    cr_expect(ne != nj || memcmp(a, b, ne) != 0, "the Japanese figure has the English labels");
    free(a), free(b), free(en), free(ja), free(dir);
}

/* LANG names a Japanese locale this machine may not have (ja_JP.UTF-8 is not installed on a
 * fresh Debian): the system's own part of a message (strerror) must still be readable
 * UTF-8, never glibc's '?' for every character it cannot convert to ASCII. In English, the
 * same message is the C library's English. */
Test(i18n, system_messages_in_a_missing_japanese_locale)
{
    char *const args[] = {"--weights", "/nonexistent/gpt2.safetensors", "Hello", NULL};
    run_result r = run_env((char *[]){"LANG=ja_JP.UTF-8", NULL}, args);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "??") == NULL, "unconverted characters: %s", r.err);
    cr_expect(has_japanese(r.err), "%s", r.err);
    run_free(&r);
    r = run_env((char *[]){"LANG=C.UTF-8", NULL}, args);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "No such file or directory") != NULL, "%s", r.err);
    run_free(&r);
}
