/* SPDX-License-Identifier: MIT */
/* test_dl_local.c — what a download finds in place (download.h: dl_local_check,
 * dl_local_describe), mkdir -p, and the options taken from the model catalogue and the
 * test environment. The files are written by tests/fixture.c. */
#include "download.h"
#include "fixture.h"
#include "support.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *write_fx(const char *dir, const char *name, const char *const *meta, int full)
{
    static char path[4096];
    fixture_opts o;
    char e[256];
    fixture_tiny(&o);
    o.meta = meta;
    o.full_layout = full;
    o.n_layer = full ? 1 : 0;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    cr_assert_eq(fixture_write(path, &o, e, sizeof e), 0, "%s", e);
    return path;
}

Test(dl_local, states)
{
    char *dir = test_tmpdir("dl_local");
    char commit[64], p[4096];
    g2e_err e;
    snprintf(p, sizeof p, "%s/none.safetensors", dir);
    cr_expect_eq(dl_local_check(p, "r/x", "main", 0, commit, sizeof commit, &e), DL_LOCAL_NONE);

    /* from elsewhere (no source recorded): taken as it is, but not as a full checkpoint */
    snprintf(p, sizeof p, "%s", write_fx(dir, "plain.safetensors", NULL, 0));
    cr_expect_eq(dl_local_check(p, "r/x", "main", 0, commit, sizeof commit, &e), DL_LOCAL_GOOD);
    cr_expect_str_eq(commit, "");
    cr_expect_eq(dl_local_check(p, "r/x", "main", 1, commit, sizeof commit, &e), DL_LOCAL_OTHER);
    snprintf(p, sizeof p, "%s", write_fx(dir, "full.safetensors", NULL, 1));
    cr_expect_eq(dl_local_check(p, "r/x", "main", 1, commit, sizeof commit, &e), DL_LOCAL_GOOD);

    static const char *const SRC[] = {"source_repo", "r/x", "source_revision", "main",
                                      "source_commit", "0123456789abcdef0123456789abcdef01234567", NULL};
    snprintf(p, sizeof p, "%s", write_fx(dir, "src.safetensors", SRC, 0));
    cr_expect_eq(dl_local_check(p, "r/x", "main", 0, commit, sizeof commit, &e), DL_LOCAL_GOOD);
    cr_expect_str_eq(commit, "0123456789abcdef0123456789abcdef01234567");
    cr_expect_eq(dl_local_check(p, "r/x", "0123456789abcdef0123456789abcdef01234567", 0, commit,
                                sizeof commit, &e), DL_LOCAL_GOOD);
    cr_expect_eq(dl_local_check(p, "r/y", "main", 0, commit, sizeof commit, &e), DL_LOCAL_OTHER);
    cr_expect_eq(dl_local_check(p, "r/x", "v2", 0, commit, sizeof commit, &e), DL_LOCAL_OTHER);
    free(dir);
}

Test(dl_local, unusable_files_say_why)
{
    char *dir = test_tmpdir("dl_local_bad");
    char commit[64], p[4096];
    g2e_err e;
    static const char *const BAD[] = {"sha256.wte.weight",
                                      "0000000000000000000000000000000000000000000000000000000000000000", NULL};
    snprintf(p, sizeof p, "%s", write_fx(dir, "bad.safetensors", BAD, 0));
    cr_expect_eq(dl_local_check(p, "r/x", "main", 0, commit, sizeof commit, &e), DL_LOCAL_BAD);
    cr_expect_eq(e.code, DL_E_CHECKSUM);
    cr_expect_str_eq(e.msg, "the bytes of wte.weight do not match its recorded sha256");

    snprintf(p, sizeof p, "%s/junk.safetensors", dir);
    FILE *f = fopen(p, "w");
    cr_assert(f);
    fputs("not a safetensors file", f);
    fclose(f);
    cr_expect_eq(dl_local_check(p, "r/x", "main", 0, commit, sizeof commit, &e), DL_LOCAL_BAD);
    cr_expect_neq(e.code, 0);
    cr_expect(strlen(e.msg) > 0);
    free(dir);
}

Test(dl_local, describe)
{
    char *dir = test_tmpdir("dl_local_desc");
    char a[128] = "wte", b[128] = "wpe";
    cr_expect_eq(dl_local_describe(write_fx(dir, "d.safetensors", NULL, 0), a, b, sizeof a), 0);
    cr_expect_str_eq(a, "wte.weight (64 x 8, F32)");
    cr_expect_str_eq(b, "wpe.weight (16 x 8, F32)");
    strcpy(a, "wte");
    cr_expect_eq(dl_local_describe("/nonexistent/x.safetensors", a, b, sizeof a), -1);
    cr_expect_str_eq(a, "wte");
    free(dir);
}

Test(dl_local, mkdirs)
{
    char *dir = test_tmpdir("dl_local_mk");
    char p[4096];
    struct stat sb;
    snprintf(p, sizeof p, "%s/a/b/c/", dir);
    cr_expect_eq(dl_mkdirs(p), 0);
    cr_expect(stat(p, &sb) == 0 && S_ISDIR(sb.st_mode));
    cr_expect_eq(dl_mkdirs(p), 0);   /* already there */
    snprintf(p, sizeof p, "/proc/no/such");
    cr_expect_eq(dl_mkdirs(p), -1);
    cr_expect_neq(errno, 0);
    free(dir);
}

Test(dl_local, opts_from_catalogue_and_test_env)
{
    dl_opts d = {0};
    unsetenv("GPT2_EMBED_TEST_ANY_SHAPE");
    unsetenv("GPT2_EMBED_TEST_BACKOFF_MS");
    unsetenv("GPT2_EMBED_TEST_ATTEMPTS");
    dl_opts_model(&d, "gpt2-medium");
    cr_expect(d.n_vocab == 50257 && d.n_ctx == 1024 && d.n_embd == 1024 && d.n_layer == 24);
    cr_expect(d.backoff_ms == 0 && d.max_attempts == 0);
    dl_opts z = {0};
    dl_opts_model(&z, NULL);
    cr_expect(z.n_vocab == 0 && z.n_embd == 0);
    setenv("GPT2_EMBED_TEST_ANY_SHAPE", "1", 1);
    setenv("GPT2_EMBED_TEST_BACKOFF_MS", "0", 1);
    setenv("GPT2_EMBED_TEST_ATTEMPTS", "3", 1);
    dl_opts t = {0};
    dl_opts_model(&t, "gpt2");
    cr_expect(t.n_vocab == 0 && t.backoff_ms == 1 && t.backoff_max_ms == 1 && t.max_attempts == 3);
    setenv("GPT2_EMBED_TEST_ATTEMPTS", "x", 1);
    dl_opts u = {0};
    dl_opts_model(&u, "gpt2");
    cr_expect_eq(u.max_attempts, 0);
}
