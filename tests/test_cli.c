/* SPDX-License-Identifier: MIT */
/* test_cli.c — the program's command line as a user meets it: dispatch, help, bad usage. */
#include "fixture.h"
#include "support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

Test(cli, no_arguments_is_a_usage_error)
{
    run_result r = run_g2e(NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "usage:") != NULL, "stderr: %s", r.err);
    cr_expect_eq(r.out_len, 0);
    run_free(&r);
}

Test(cli, help_lists_commands_on_stdout)
{
    run_result r = run_g2e("--help", NULL);
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "usage: gpt2-embed") != NULL, "stdout: %s", r.out);
    run_free(&r);
}

Test(cli, version)
{
    run_result r = run_g2e("--version", NULL);
    cr_expect_eq(r.status, 0);
    cr_expect(strncmp(r.out, "gpt2-embed ", 11) == 0, "stdout: %s", r.out);
    run_free(&r);
}

Test(cli, help_for_unknown_command)
{
    run_result r = run_g2e("help", "no-such-command", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "unknown command 'no-such-command'") != NULL, "stderr: %s", r.err);
    run_free(&r);
}

/* ---- typos of commands are refused, texts still go to the main job ---- */

static const struct { const char *arg, *want; } TYPOS[] = {
    {"exercies", "gpt2-embed: unknown command 'exercies'; did you mean 'exercise'? "
                 "(to embed this text, use: gpt2-embed embed -- exercies)\n"},
    {"tokenise", "gpt2-embed: unknown command 'tokenise'; did you mean 'tokenize'? "
                 "(to embed this text, use: gpt2-embed embed -- tokenise)\n"},
    {"version", "gpt2-embed: unknown command 'version'; did you mean '--version'? "
                "(to embed this text, use: gpt2-embed embed -- version)\n"},
    {"similarty", "gpt2-embed: unknown command 'similarty'; did you mean 'similarity'? "
                  "(to embed this text, use: gpt2-embed embed -- similarty)\n"},
    {"inspcet", "gpt2-embed: unknown command 'inspcet'; did you mean 'inspect'? "
                "(to embed this text, use: gpt2-embed embed -- inspcet)\n"},
};

Test(cli, a_mistyped_command_is_refused_with_a_suggestion)
{
    for (size_t k = 0; k < sizeof TYPOS / sizeof TYPOS[0]; k++) {
        run_result r = run_g2e(TYPOS[k].arg, NULL);
        cr_expect_eq(r.status, 2, "%s: status %d", TYPOS[k].arg, r.status);
        cr_expect_str_eq(r.err, TYPOS[k].want);
        cr_expect_eq(r.out_len, 0, "%s printed on stdout", TYPOS[k].arg);
        run_free(&r);
    }
    /* with more arguments after it, the same (issue 10: `tokenise hello`, `similarty --pos 0 1`) */
    run_result r = run_g2e("tokenise", "hello", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "did you mean 'tokenize'?") != NULL, "%s", r.err);
    run_free(&r);
    r = run_g2e("similarty", "--pos", "0", "1", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "did you mean 'similarity'?") != NULL, "%s", r.err);
    run_free(&r);
    r = run_g2e("help", "exercies", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "gpt2-embed: unknown command 'exercies'; did you mean 'exercise'? "
                            "(see 'gpt2-embed --help')\n");
    run_free(&r);
}

/* Texts of several words, and words far from every command, go to embed: proven by embed's
 * own output, the table of a fixture's vectors. */
Test(cli, texts_and_far_words_still_go_to_the_main_job)
{
    char *dir = test_tmpdir("clitypo");
    char *w = path_join(dir, "w.safetensors");
    fixture_opts o;
    memset(&o, 0, sizeof o);
    o.n_vocab = 50257;
    o.n_ctx = 1024;
    o.n_embd = 4;
    o.dtype = ST_F32;
    char e[256];
    cr_assert_eq(fixture_write(w, &o, e, sizeof e), 0, "%s", e);
    const char *texts[] = {"exercies now", "The cat", "hello", "cat", "embedding"};
    for (size_t k = 0; k < sizeof texts / sizeof texts[0]; k++) {
        run_result r = run_g2e(texts[k], "--weights", w, NULL);
        cr_expect_eq(r.status, 0, "'%s': %s", texts[k], r.err);
        cr_expect(strstr(r.out, "pos") != NULL, "'%s' was not embedded: %s", texts[k], r.out);
        run_free(&r);
        r = run_g2e("embed", "--", texts[k], "--weights", w, NULL);
        run_free(&r);
    }
    /* the way out the message names works */
    run_result r = run_g2e("embed", "--weights", w, "--", "exercies", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    free(w);
    free(dir);
}

/* issue 23: after global options (the main job's, with their values) a typo is refused the
 * same way, and a command is that command, not a text to embed */
Test(cli, commands_and_typos_after_global_options)
{
    char *dir = test_tmpdir("cliglobal");
    char *w = path_join(dir, "w.safetensors");
    fixture_opts o;
    memset(&o, 0, sizeof o);
    o.n_vocab = 50257, o.n_ctx = 1024, o.n_embd = 4, o.dtype = ST_F32;
    char e[256];
    cr_assert_eq(fixture_write(w, &o, e, sizeof e), 0, "%s", e);
    char *wopt = malloc(strlen(w) + 16);
    sprintf(wopt, "--weights=%s", w);
    for (size_t k = 0; k < 3; k++) {
        run_result r = k == 0   ? run_g2e("--weights", w, "exercies", NULL)
                       : k == 1 ? run_g2e(wopt, "exercies", NULL)
                                : run_g2e("--weights", w, "--format", "json", "similarty", "--pos",
                                          "0", "1", NULL);
        cr_expect_eq(r.status, 2, "case %zu: %d %s", k, r.status, r.err);
        cr_expect(strstr(r.err, "did you mean '") != NULL, "case %zu: %s", k, r.err);
        cr_expect_eq(r.out_len, 0, "case %zu embedded: %s", k, r.out);
        run_free(&r);
    }
    run_result r = run_g2e("--weights", w, "exercise", "1", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "Exercise 1") != NULL, "%s", r.out);
    run_free(&r);
    /* texts still go to the main job, and `embed --` still embeds a command's name */
    r = run_g2e("--weights", w, "hello world", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "2 tokens") != NULL, "%s", r.out);
    run_free(&r);
    r = run_g2e("--weights", w, "--", "exercies", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    free(wopt), free(w), free(dir);
}

Test(cli, lang_before_the_command_is_accepted)
{
    run_result r = run_g2e("--lang", "en", "--version", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strncmp(r.out, "gpt2-embed ", 11) == 0, "stdout: %s", r.out);
    run_free(&r);
    r = run_g2e("--lang=ja", "help", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    r = run_g2e("--lang", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "gpt2-embed: --lang needs one of ja or en\n");
    run_free(&r);
}

/* issue 10: the offline failure of `make run` also says that GPT2_EMBED_WEIGHTS=FILE works;
 * and it does. The recipe runs the built program (RUN_BIN) without rebuilding (-o). */
Test(cli, make_run_offline_names_the_way_with_a_file)
{
    char *dir = test_tmpdir("makerun");
    char *w = path_join(dir, "w.safetensors"), home[4096], bin[4096], *none = path_join(dir, "none");
    fixture_opts o;
    memset(&o, 0, sizeof o);
    o.n_vocab = 50257;
    o.n_ctx = 1024;
    o.n_embd = 4;
    o.dtype = ST_F32;
    char e[256];
    cr_assert_eq(fixture_write(w, &o, e, sizeof e), 0, "%s", e);
    snprintf(home, sizeof home, "HOME=%s", dir);
    snprintf(bin, sizeof bin, "RUN_BIN=%s", G2E_TEST_BIN);
    char weights[4200], rw[4200];
    snprintf(rw, sizeof rw, "RUN_WEIGHTS=%s", none);
    char *argv[] = {"/usr/bin/make", "-s", "--no-print-directory", "-o", "gpt2-embed", "run", bin, rw,
                    "TEXT=hello there", NULL};
    char *env[] = {home, "HF_HUB_OFFLINE=1", "-GPT2_EMBED_WEIGHTS", "-HF_HOME", "-HF_HUB_CACHE", "-MAKEFLAGS",
                   "-MFLAGS", "-LANGUAGE", "-LC_ALL", "-LC_MESSAGES", "-LANG", NULL};
    run_result r = run_argv(argv, NULL, 0, env, G2E_SRCDIR);
    cr_expect_neq(r.status, 0);
    cr_expect(strstr(r.err, "make run: no weights, and the download failed; with a weights file you have: "
                            "GPT2_EMBED_WEIGHTS=FILE make run\n") != NULL, "%s", r.err);
    cr_expect_eq(r.out_len, 0, "%s", r.out);
    run_free(&r);
    /* in Japanese (issue 23): the recipe's own line follows LANGUAGE / LC_ALL / LANG too */
    const char *ja_env[] = {"LANGUAGE=ja", "LANG=ja_JP.UTF-8", "LC_ALL=ja_JP.UTF-8"};
    for (size_t i = 0; i < 3; i++) {
        char *envj[] = {home, "HF_HUB_OFFLINE=1", "-GPT2_EMBED_WEIGHTS", "-HF_HOME", "-HF_HUB_CACHE",
                        "-MAKEFLAGS", "-MFLAGS", "-LANGUAGE", "-LC_ALL", "-LC_MESSAGES", "-LANG",
                        (char *)ja_env[i], NULL};
        r = run_argv(argv, NULL, 0, envj, G2E_SRCDIR);
        cr_expect_neq(r.status, 0);
        cr_expect(strstr(r.err, "make run: 重みがなく、ダウンロードにも失敗しました。重みファイルがあれば: "
                                "GPT2_EMBED_WEIGHTS=FILE make run\n") != NULL, "%s: %s", ja_env[i], r.err);
        cr_expect(strstr(r.err, "no weights") == NULL, "%s: %s", ja_env[i], r.err);
        run_free(&r);
    }
    snprintf(weights, sizeof weights, "GPT2_EMBED_WEIGHTS=%s", w);
    char *env2[] = {home, "HF_HUB_OFFLINE=1", weights, "-MAKEFLAGS", "-MFLAGS", NULL};
    r = run_argv(argv, NULL, 0, env2, G2E_SRCDIR);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "there") != NULL && strstr(r.out, "2 tokens") != NULL, "%s", r.out);
    run_free(&r);
    free(w);
    free(none);
    free(dir);
}

/* issue 23: `make run` also builds the shared library the Python module loads (README.ja:
 * Python): with a library source touched, the recipe relinks it (dry run, nothing built) */
Test(cli, make_run_builds_the_python_modules_library)
{
    char *argv[] = {"/usr/bin/make", "--no-print-directory", "-o", "gpt2-embed", "-W", "src/lib/order.c",
                    "-n", "run", "RUN_BIN=true", "TEXT=x", NULL};
    char *env[] = {"-MAKEFLAGS", "-MFLAGS", "GPT2_EMBED_WEIGHTS=/dev/null", NULL};
    run_result r = run_argv(argv, NULL, 0, env, G2E_SRCDIR);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "-soname,libgpt2embed.so.") != NULL, "make run does not build the .so: %s", r.out);
    run_free(&r);
}

/* --lang is accepted by every command, anywhere before -- */
Test(cli, lang_anywhere_before_double_dash)
{
    run_result r = run_g2e("tokenize", "--format", "ids", "--lang", "en", "Hello", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.out, "15496\n");
    run_free(&r);
    r = run_g2e("decode", "--lang=ja", "15496", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.out, "Hello");
    run_free(&r);
    r = run_g2e("decode", "15496", "--lang", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "gpt2-embed: --lang needs one of ja or en\n");
    run_free(&r);
}
