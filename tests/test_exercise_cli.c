/* SPDX-License-Identifier: MIT */
/* test_exercise_cli.c — exercise's interpretation lines follow the weights (a fixture whose
 * wpe[500] is a copy of wpe[0] gets the opposite sentence), and --code prints Python that
 * compiles. */
#include "fixture.h"
#include "model.h"
#include "support.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A fixture with GPT-2's vocabulary and context (n_embd 8); with flip, wpe row 500 is
 * overwritten with row 0, so cos(wpe[0], wpe[500]) = 1 > cos(wpe[0], wpe[1]). */
static char *weights(const char *tag, int flip)
{
    fixture_opts o;
    fixture_tiny(&o);
    o.n_vocab = 50257, o.n_ctx = 1024, o.n_embd = 8;
    char *dir = test_tmpdir(tag), *p = path_join(dir, "w.safetensors"), e[256];
    free(dir);
    cr_assert_eq(fixture_write(p, &o, e, sizeof e), 0, "%s", e);
    if (flip) {
        g2e_model *m;
        g2e_err err;
        cr_assert_eq(model_open(&m, p, &err), 0, "%s", err.msg);
        off_t at = (off_t)(m->st->data_start + m->wpe->begin);
        model_close(m);
        float row[8];
        int fd = open(p, O_RDWR);
        cr_assert(fd >= 0);
        cr_assert_eq(pread(fd, row, sizeof row, at), (ssize_t)sizeof row);
        cr_assert_eq(pwrite(fd, row, sizeof row, at + 500 * (off_t)sizeof row), (ssize_t)sizeof row);
        close(fd);
    }
    return p;
}

Test(exercise_cli, interpretation_follows_the_weights)
{
    char *w = weights("exint", 0);
    run_result r = run_g2e("exercise", "2", "--weights", w, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    /* fixture values are hash noise: whichever way they fall, the sentence must match them */
    double c01 = 0, c0500 = 0;
    const char *a = strstr(r.out, "cos(wpe[0], wpe[1]):"), *b = strstr(r.out, "cos(wpe[0], wpe[500]):");
    cr_assert(a && b, "%s", r.out);
    sscanf(a + strlen("cos(wpe[0], wpe[1]):"), "%lf", &c01);
    sscanf(b + strlen("cos(wpe[0], wpe[500]):"), "%lf", &c0500);
    cr_expect(strstr(r.out, c01 > c0500 ? "as the chapter expects" : "the opposite of what the chapter"),
              "%s", r.out);
    cr_expect(strstr(r.out, "'␣cat' at positions 0 and 5"), "%s", r.out);
    cr_expect(strstr(r.out, "median over 1000 random token pairs"), "%s", r.out);
    run_free(&r);
    free(w);

    w = weights("exflip", 1);
    r = run_g2e("exercise", "2", "--weights", w, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "cos(wpe[0], wpe[500]):                       1.0000"), "%s", r.out);
    cr_expect(strstr(r.out, "the opposite of what the chapter expects"), "%s", r.out);
    cr_expect(!strstr(r.out, "as the chapter expects"), "%s", r.out);
    run_free(&r);
    free(w);
}

/* Issue 38: a weights file the user named that cannot be used is an error (exit 1, one line,
 * nothing on stdout), with --weights and with $GPT2_EMBED_WEIGHTS; not finding weights
 * where the program looks by itself stays a note after exercise 1. */
Test(exercise_cli, a_named_weights_file_that_cannot_be_used_is_an_error)
{
    char *dir = test_tmpdir("exnamed"), *missing = path_join(dir, "missing.safetensors");
    char *text = path_join(dir, "notes.md");
    write_file(text, "# my notes\n\nnot weights at all\n", 32);
    const char *bad[2] = {missing, text};
    for (int i = 0; i < 2; i++) {
        run_result r = run_g2e("exercise", "--weights", bad[i], NULL);
        cr_expect_eq(r.status, 1, "%s: %s", bad[i], r.err);
        cr_expect_eq(r.out_len, 0, "%s", r.out);
        cr_expect(r.err_len > 0 && strchr(r.err, '\n') == r.err + r.err_len - 1, "%s", r.err);
        run_free(&r);
    }
    char env[4200];
    snprintf(env, sizeof env, "GPT2_EMBED_WEIGHTS=%s", missing);
    run_result r = run_argv((char *[]){G2E_TEST_BIN, "exercise", NULL}, NULL, 0, (char *[]){env, NULL}, NULL);
    cr_expect_eq(r.status, 1, "%s", r.err);
    run_free(&r);
    free(missing), free(text), free(dir);
}

Test(exercise_cli, code_is_python_that_compiles)
{
    run_result r = run_g2e("exercise", "--code", "--model", "distilgpt2", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "GPT2Model.from_pretrained(\"distilbert/distilgpt2\")"), "%s", r.out);
    cr_expect(strstr(r.out, "hidden_states[0]"), "%s", r.out);
    char *dir = test_tmpdir("excode"), *py = path_join(dir, "ex.py");
    write_file(py, r.out, r.out_len);
    run_free(&r);
    r = run_argv((char *[]){"/usr/bin/python3", "-m", "py_compile", py, NULL}, NULL, 0, NULL, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    free(py);
    free(dir);
}

/* issue 23: --code reads the same weights file (numpy, safetensors by hand), so its printed
 * numbers are the command's own; the Hub's version is there as an alternative */
Test(exercise_cli, code_reads_the_same_file_and_prints_the_same_numbers)
{
    char *w = weights("excodew", 0);
    run_result r = run_g2e("exercise", "--code", "--weights", w, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, w), "the code names the file: %s", r.out);
    cr_expect(strstr(r.out, "def hub():") && strstr(r.out, "from_pretrained(\"openai-community/gpt2\")"),
              "%s", r.out);
    char *dir = test_tmpdir("excode2"), *py = path_join(dir, "ex.py");
    write_file(py, r.out, r.out_len);
    run_free(&r);
    r = run_argv((char *[]){"/usr/bin/python3", py, NULL}, NULL, 0, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_result c = run_g2e("exercise", "2", "--weights", w, NULL);
    cr_assert_eq(c.status, 0, "%s", c.err);
    static const char *const KEYS[] = {"cos(wpe[0], wpe[1]):", "cos(wpe[0], wpe[500]):",
                                       "cos(wte[cat] + wpe[0], wte[cat] + wpe[5]):"};
    for (size_t k = 0; k < 3; k++) {
        const char *a = strstr(r.out, KEYS[k]), *b = strstr(c.out, KEYS[k]);
        cr_assert(a && b, "%s / %s", r.out, c.out);
        double x, y;
        cr_assert_eq(sscanf(a + strlen(KEYS[k]), "%lf", &x), 1);
        cr_assert_eq(sscanf(b + strlen(KEYS[k]), "%lf", &y), 1);
        cr_expect_eq(x, y, "%s python %.4f, gpt2-embed %.4f", KEYS[k], x, y);
    }
    run_free(&c);
    run_free(&r);
    /* comments in the chosen language */
    r = run_g2e("--lang", "ja", "exercise", "--code", "--weights", w, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "# 演習 2"), "%s", r.out);
    run_free(&r);
    free(py), free(dir), free(w);
}

/* issue 23: without weights, exercise 1 and, on stdout, what exercise 2 needs (exit 0);
 * --format table is a table, not the text again */
Test(exercise_cli, without_weights_says_what_2_needs_and_table_is_a_table)
{
    char *home = test_tmpdir("exnow");
    char *h = malloc(strlen(home) + 8), *wd = test_tmpdir("exnowd");
    sprintf(h, "HOME=%s", home);
    run_result r = run_argv((char *[]){G2E_TEST_BIN, "exercise", NULL}, NULL, 0,
                            (char *[]){h, "-GPT2_EMBED_WEIGHTS", "-HF_HOME", "-HF_HUB_CACHE", NULL}, wd);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "Exercise 1:"), "%s", r.out);
    cr_expect(strstr(r.out, "Exercise 2 is not computed: it needs GPT-2's weights"), "%s", r.out);
    run_free(&r);
    free(h), free(home), free(wd);
    char *w = weights("extab", 0);
    run_result t = run_g2e("exercise", "--format", "table", "--weights", w, NULL);
    run_result x = run_g2e("exercise", "--weights", w, NULL);
    cr_assert_eq(t.status, 0, "%s", t.err);
    cr_expect(strcmp(t.out, x.out) != 0, "table == text");
    cr_expect(strncmp(t.out, "exercise  quantity", 18) == 0, "%s", t.out);
    cr_expect(strstr(t.out, "\n2         cos(wpe[0], wpe[1])"), "%s", t.out);
    run_free(&t), run_free(&x);
    free(w);
}

Test(exercise_cli, similarity_pairs_are_interpreted_text_only)
{
    char *w = weights("simint", 1);   /* wpe[500] == wpe[0]: their cosine is 1 */
    run_result r = run_g2e("similarity", "--pos", "0", "500", "--weights", w, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "cos 1.0000: the same direction (1.0)"), "%s", r.out);
    run_free(&r);
    r = run_g2e("similarity", "--tokens", " cat", " dog", "--weights", w, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "random pairs of tokens"), "%s", r.out);
    run_free(&r);
    r = run_g2e("similarity", "--at", " cat", "0", "5", "--weights", w, "--format", "json", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(!strstr(r.out, "random"), "JSON stays one object: %s", r.out);
    run_free(&r);
    free(w);
}
