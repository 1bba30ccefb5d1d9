/* SPDX-License-Identifier: MIT */
/* test_compare_cli.c — `gpt2-embed compare` through the built program: the chapter's pair
 * checked against numpy (tests/compare_ref.py recomputes bags and cosines from the file),
 * the text conclusions, and the usage errors. */
#include "fixture.h"
#include "model.h"
#include "support.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A fixture with GPT-2's vocabulary and context (n_embd 8) in a fresh directory; *dir (if
 * non-NULL) receives that directory (caller frees). */
static char *weights_wpe(const char *tag, char **dir_out, int zero_wpe)
{
    fixture_opts o;
    fixture_tiny(&o);
    o.n_vocab = 50257, o.n_ctx = 1024, o.n_embd = 8;
    static uint64_t rows[50257];
    if (zero_wpe) {   /* every wte row written, no wpe row: wpe reads as zeros */
        for (uint64_t i = 0; i < 50257; i++)
            rows[i] = i;
        o.sparse = 1, o.wte_rows = rows, o.n_wte_rows = 50257, o.n_wpe_rows = 0;
    }
    char *dir = test_tmpdir(tag), *p = path_join(dir, "w.safetensors"), e[256];
    cr_assert_eq(fixture_write(p, &o, e, sizeof e), 0, "%s", e);
    if (dir_out)
        *dir_out = dir;
    else
        free(dir);
    return p;
}

static char *weights(const char *tag, char **dir_out)
{
    return weights_wpe(tag, dir_out, 0);
}

static void against_numpy_w(const char *a, const char *b, const char *want, int zero_wpe)
{
    char *dir, *w = weights_wpe("cmpnp", &dir, zero_wpe), *json = path_join(dir, "out.json");
    free(dir);
    run_result r = run_g2e("compare", a, b, "--weights", w, "-o", json, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    char *script = path_join(G2E_SRCDIR, "tests/compare_ref.py");
    r = run_argv((char *[]){"/usr/bin/python3", script, w, json, NULL}, NULL, 0, NULL, NULL);
    cr_expect_eq(r.status, 0, "compare_ref.py: %s%s", r.out, r.err);
    cr_expect(strstr(r.out, "OK"), "%s", r.out);
    run_free(&r);
    size_t n;
    char *got = read_file(json, &n);
    cr_assert(got);
    cr_expect(strstr(got, want), "want %s in %s", want, got);
    free(got);
    free(script);
    free(json);
    free(w);
}

static void against_numpy(const char *a, const char *b, const char *want)
{
    against_numpy_w(a, b, want, 0);
}

Test(compare_cli, chapter_pair_against_numpy)
{
    against_numpy("犬が猫を追いかけた", "猫が犬を追いかけた",
                  "\"same_multiset\": true, \"verdict\": \"distinguishable\"");
}

Test(compare_cli, english_pair_against_numpy)
{
    against_numpy("the dog bites the man", "the man bites the dog",
                  "\"same_multiset\": true, \"verdict\": \"distinguishable\"");
}

Test(compare_cli, different_tokens_against_numpy)
{
    /* "dog" at the start has no leading space: not the same tokens as " dog" */
    against_numpy("dog bites man", "man bites dog", "\"same_multiset\": false, \"verdict\": \"other_tokens\"");
}

/* issue 23: with an all-zero wpe the positions add nothing, and the conclusion says so */
Test(compare_cli, zero_wpe_against_numpy)
{
    against_numpy_w("犬が猫を追いかけた", "猫が犬を追いかけた",
                    "\"same_multiset\": true, \"verdict\": \"indistinguishable\"", 1);
}

Test(compare_cli, zero_wpe_conclusion)
{
    char *w = weights_wpe("cmpzero", NULL, 1);
    run_result r = run_g2e("compare", "犬が猫を追いかけた", "猫が犬を追いかけた", "--weights", w, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "with positions (wte + wpe):   15 of 15"), "%s", r.out);
    cr_expect(strstr(r.out, "conclusion: indistinguishable."), "%s", r.out);
    cr_expect(!strstr(r.out, "conclusion: distinguishable"), "%s", r.out);
    run_free(&r);
    r = run_g2e("--lang", "ja", "compare", "犬が猫を追いかけた", "猫が犬を追いかけた", "--weights", w, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "結論: 区別できない。"), "%s", r.out);
    run_free(&r);
    free(w);
}

Test(compare_cli, table_conclusions)
{
    char *w = weights("cmptab", NULL);
    run_result r = run_g2e("compare", "犬が猫を追いかけた", "猫が犬を追いかけた", "--weights", w, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "same multiset of tokens: yes"), "%s", r.out);
    cr_expect(strstr(r.out, "4 of 15 positions differ"), "%s", r.out);
    cr_expect(strstr(r.out, "without positions (wte):      15 of 15"), "%s", r.out);
    cr_expect(strstr(r.out, "with positions (wte + wpe):   11 of 15"), "%s", r.out);
    /* derived from the bytes: 犬 E7 8A AC and 猫 E7 8C AB */
    cr_expect(strstr(r.out, "犬 (1/3) and 猫 (1/3) are one token, 163: both characters begin with "
                            "the byte E7 (犬 = E7 8A AC, 猫 = E7 8C AB)"), "%s", r.out);
    cr_expect(strstr(r.out, "moved token 232 犬 (2/3): position 1 in A, 5 in B"), "%s", r.out);
    cr_expect(strstr(r.out, "p = 0 5 6 3 4 1 2 7 8 9 10 11 12 13 14; max difference"), "%s", r.out);
    cr_expect(strstr(r.out, "not GPT-2's trained attention"), "%s", r.out);
    cr_expect(strstr(r.out, "conclusion: distinguishable."), "%s", r.out);
    run_free(&r);
    r = run_g2e("--lang", "ja", "compare", "犬が猫を追いかけた", "猫が犬を追いかけた", "--weights", w, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "結論: 区別できる。"), "%s", r.out);
    cr_expect(strstr(r.out, "自己注意"), "%s", r.out);
    run_free(&r);
    r = run_g2e("compare", "same text", "same text", "--weights", w, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "the same token sequence; nothing tells them apart"), "%s", r.out);
    run_free(&r);
    free(w);
}

/* A fixture whose wte row 582 (" man") is a copy of row 3290 (" dog"): the two words are one
 * vector, so swapping them changes no input row, and every causal row stays equal although
 * the prefixes hold other token IDs: the sentences say so instead of the usual ones. */
Test(compare_cli, causal_rows_when_two_tokens_share_a_vector)
{
    char *dir, *w = weights("cmpsame", &dir), *json = path_join(dir, "out.json");
    g2e_model *m;
    g2e_err err;
    cr_assert_eq(model_open(&m, w, &err), 0, "%s", err.msg);
    off_t at = (off_t)(m->st->data_start + m->wte->begin);
    model_close(m);
    float row[8];
    int fd = open(w, O_RDWR);
    cr_assert(fd >= 0);
    cr_assert_eq(pread(fd, row, sizeof row, at + 3290 * (off_t)sizeof row), (ssize_t)sizeof row);
    cr_assert_eq(pwrite(fd, row, sizeof row, at + 582 * (off_t)sizeof row), (ssize_t)sizeof row);
    close(fd);
    const char *A = "the dog bites the man", *B = "the man bites the dog";
    run_result r = run_g2e("compare", A, B, "--weights", w, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "without positions: all 5 rows of B's output equal A's at the same position"), "%s", r.out);
    cr_expect(strstr(r.out, "without positions 4 causal rows are equal or differ against what their "
                            "prefixes' tokens predict"), "%s", r.out);
    cr_expect(!strstr(r.out, "equal exactly where"), "%s", r.out);
    cr_expect(strstr(r.out, "conclusion: indistinguishable."), "%s", r.out);
    run_free(&r);
    r = run_g2e("--lang", "ja", "compare", A, B, "--weights", w, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "B の出力の 5 行すべてが、同じ位置の A の行と等しくなります"), "%s", r.out);
    cr_expect(strstr(r.out, "4 行は、前までのトークンから予想されるのとは逆に"), "%s", r.out);
    cr_expect(!strstr(r.out, "位置なしの因果マスク付きの行が等しいのは"), "%s", r.out);
    run_free(&r);
    /* the ordinary fixture: the mask separates the rows whose prefixes differ */
    char *w2 = weights("cmpsame2", NULL);
    r = run_g2e("compare", A, B, "--weights", w2, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "without positions: 4 of 5 rows of B's output differ from A's at the same "
                            "position (at 1-4, each by at least"), "%s", r.out);
    cr_expect(strstr(r.out, "equal exactly where A and B hold the same token"), "%s", r.out);
    cr_expect(strstr(r.out, "GPT-2's causal mask already separates 4 of 5 rows without positions"), "%s", r.out);
    run_free(&r);
    r = run_g2e("--lang", "ja", "compare", A, B, "--weights", w2, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "位置なしの因果マスク付きの行が等しいのは"), "%s", r.out);
    cr_expect(strstr(r.out, "位置がなくても 4 / 5 行が区別されます"), "%s", r.out);
    cr_expect(strstr(r.out, "GPT-2 が各トークンの位置を知るのは位置埋め込みによってです"), "%s", r.out);
    run_free(&r);
    r = run_g2e("compare", A, B, "--weights", w, "-o", json, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    char *script = path_join(G2E_SRCDIR, "tests/compare_ref.py");
    r = run_argv((char *[]){"/usr/bin/python3", script, w, json, NULL}, NULL, 0, NULL, NULL);
    cr_expect(strstr(r.out, "OK"), "compare_ref.py: %s%s", r.out, r.err);
    run_free(&r);
    free(script), free(json), free(w2), free(w), free(dir);
}

Test(compare_cli, usage_and_errors)
{
    char *dir, *w = weights("cmperr", &dir);
    run_result r = run_g2e("compare", "only one", "--weights", w, NULL);
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect(r.out_len == 0);
    run_free(&r);
    r = run_g2e("compare", "", "x", "--weights", w, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "text A has no tokens"), "%s", r.err);
    run_free(&r);
    char *npy = path_join(dir, "x.npy");
    free(dir);
    r = run_g2e("compare", "a", "b", "--weights", w, "-o", npy, NULL);
    cr_expect_eq(r.status, 2, "%s", r.err);
    run_free(&r);
    free(npy);
    free(w);
}

/* The PNG's IHDR size; 0 when b is not a PNG. */
static int png_size(const char *b, size_t n, unsigned *w, unsigned *h)
{
    if (n < 24 || memcmp(b, "\x89PNG\r\n\x1a\n", 8) || memcmp(b + 12, "IHDR", 4))
        return 0;
    const unsigned char *u = (const unsigned char *)b;
    *w = (unsigned)u[16] << 24 | (unsigned)u[17] << 16 | (unsigned)u[18] << 8 | u[19];
    *h = (unsigned)u[20] << 24 | (unsigned)u[21] << 16 | (unsigned)u[22] << 8 | u[23];
    return 1;
}

/* issue 11.4: "a figure (--plot) that shows the two inputs' rows side by side" */
Test(compare_cli, plot_draws_both_inputs)
{
    char *dir, *w = weights("cmpplot", &dir);
    char *png = path_join(dir, "order.png"), *same = path_join(dir, "same.png");
    char *shortp = path_join(dir, "short.png");
    run_result r = run_g2e("compare", "犬が猫を追いかけた", "猫が犬を追いかけた", "--weights", w,
                           "--plot", png, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "4 of 15 positions differ"), "the table is still printed: %s", r.out);
    run_free(&r);
    r = run_g2e("compare", "犬が猫を追いかけた", "犬が猫を追いかけた", "--weights", w, "--plot", same, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    r = run_g2e("compare", "dog cat", "cat dog", "--weights", w, "--plot", shortp, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    size_t n1, n2, n3;
    char *b1 = read_file(png, &n1), *b2 = read_file(same, &n2), *b3 = read_file(shortp, &n3);
    cr_assert(b1 && b2 && b3);
    unsigned w1, h1, w2, h2, w3, h3;
    cr_assert(png_size(b1, n1, &w1, &h1) && png_size(b2, n2, &w2, &h2) && png_size(b3, n3, &w3, &h3));
    cr_expect(w1 >= 3 * 8 && w1 == w2, "%u %u", w1, w2);
    cr_expect(h1 == h2 && h1 > h3, "one row per position: 15 rows %u, 15 rows %u, 2 rows %u", h1, h2, h3);
    cr_expect(n1 != n2 || memcmp(b1, b2, n1), "A - B must differ between a reordered and an equal pair");
    free(b1), free(b2), free(b3);
    /* a figure that cannot be written: exit 1, one line, nothing on stdout */
    char *bad = path_join(dir, "no/such/dir/x.png");
    r = run_g2e("compare", "a b", "b a", "--weights", w, "--plot", bad, NULL);
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect_eq(r.out_len, 0, "%s", r.out);
    cr_expect(r.err_len > 0 && strchr(r.err, '\n') == r.err + r.err_len - 1, "%s", r.err);
    run_free(&r);
    free(bad), free(png), free(same), free(shortp), free(dir), free(w);
}
