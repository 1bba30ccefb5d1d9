/* SPDX-License-Identifier: MIT */
/* test_locate.c — the weights lookup order, the Hugging Face cache layout, and its errors.
 * Each test builds a fake cache tree in its own temp dir and points the environment at it. */
#include "locate.h"
#include "models.h"
#include "fixture.h"
#include "support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *dir;

static void setup(void)
{
    dir = test_tmpdir("locate");
    cr_assert(chdir(dir) == 0);
    unsetenv("GPT2_EMBED_WEIGHTS");
    unsetenv("HF_HUB_CACHE");
    unsetenv("HUGGINGFACE_HUB_CACHE");
    unsetenv("HF_HOME");
    unsetenv("XDG_CACHE_HOME");
    unsetenv("HF_TOKEN_PATH");
    setenv("HOME", dir, 1);
}

static void mkdirs(const char *path)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(tmp, 0755);
            *p = '/';
        }
    mkdir(tmp, 0755);
}

/* A cache entry: <hub>/<folder>/refs/main = commit, snapshots/<commit>/model.safetensors. */
static void make_cache(const char *hub, const char *folder, const char *commit)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s/refs", hub, folder);
    mkdirs(p);
    snprintf(p, sizeof p, "%s/%s/refs/main", hub, folder);
    write_file(p, commit, strlen(commit));
    snprintf(p, sizeof p, "%s/%s/snapshots/%s", hub, folder, commit);
    mkdirs(p);
    snprintf(p, sizeof p, "%s/%s/snapshots/%s/model.safetensors", hub, folder, commit);
    write_file(p, "x", 1);
}

TestSuite(locate, .init = setup);

Test(locate, unknown_model)
{
    char out[4096];
    g2e_err e;
    cr_expect_eq(locate_weights("gpt3", NULL, out, sizeof out, NULL, &e), LOCATE_E_UNKNOWN_MODEL);
    cr_expect(strstr(e.msg, "gpt3") != NULL, "%s", e.msg);
}

Test(locate, nothing_found_lists_places_and_names_no_program_option)
{
    char out[4096];
    g2e_err e;
    cr_assert_eq(locate_weights("gpt2-medium", NULL, out, sizeof out, NULL, &e), LOCATE_E_NOT_FOUND);
    cr_expect(strstr(e.msg, "weights/gpt2-medium.safetensors") != NULL, "%s", e.msg);
    cr_expect(strstr(e.msg, ".cache/huggingface/hub/models--openai-community--gpt2-medium") != NULL, "%s", e.msg);
    /* the library speaks to C and Python callers too: the program adds its own advice */
    cr_expect(strstr(e.msg, " --") == NULL && strstr(e.msg, "gpt2-embed ") == NULL, "%s", e.msg);
    cr_expect(strchr(e.msg, '\n') == NULL, "one line: %s", e.msg);
    cr_assert_eq(locate_weights(NULL, "/nonexistent/w.safetensors", out, sizeof out, NULL, &e), LOCATE_E_MISSING);
    cr_expect_str_eq(e.msg, "/nonexistent/w.safetensors: No such file or directory");
}

Test(locate, explicit_path_must_exist_and_wins)
{
    char out[4096];
    g2e_err e;
    locate_from src = (locate_from)-1;
    cr_expect_eq(locate_weights(NULL, "nope.safetensors", out, sizeof out, NULL, &e), LOCATE_E_MISSING);
    cr_expect(strstr(e.msg, "nope.safetensors") != NULL, "%s", e.msg);
    mkdirs("weights");
    write_file("weights/gpt2.safetensors", "x", 1);
    write_file("mine.safetensors", "x", 1);
    cr_assert_eq(locate_weights(NULL, "mine.safetensors", out, sizeof out, &src, &e), 0, "%s", e.msg);
    cr_expect_str_eq(out, "mine.safetensors");
    cr_expect_eq(src, LOCATE_FROM_PATH);
    cr_expect_eq(locate_weights(NULL, "weights", out, sizeof out, NULL, &e), LOCATE_E_MISSING);
    cr_expect(strstr(e.msg, "is a directory") != NULL, "%s", e.msg);
}

Test(locate, env_before_local_folder)
{
    char out[4096];
    g2e_err e;
    locate_from src = (locate_from)-1;
    mkdirs("weights");
    write_file("weights/gpt2.safetensors", "x", 1);
    write_file("env.safetensors", "x", 1);
    setenv("GPT2_EMBED_WEIGHTS", "env.safetensors", 1);
    cr_assert_eq(locate_weights("gpt2", NULL, out, sizeof out, &src, &e), 0, "%s", e.msg);
    cr_expect_str_eq(out, "env.safetensors");
    cr_expect_eq(src, LOCATE_FROM_ENV);
    setenv("GPT2_EMBED_WEIGHTS", "missing.safetensors", 1);
    cr_expect_eq(locate_weights("gpt2", NULL, out, sizeof out, NULL, &e), LOCATE_E_MISSING);
    unsetenv("GPT2_EMBED_WEIGHTS");
    cr_assert_eq(locate_weights("gpt2", NULL, out, sizeof out, &src, &e), 0, "%s", e.msg);
    cr_expect_str_eq(out, "weights/gpt2.safetensors");
    cr_expect_eq(src, LOCATE_FROM_WORKDIR);
}

Test(locate, hf_cache_default_home_and_org_folder)
{
    char out[4096], hub[4096], want[4096];
    g2e_err e;
    locate_from src = (locate_from)-1;
    snprintf(hub, sizeof hub, "%s/.cache/huggingface/hub", dir);
    make_cache(hub, "models--openai-community--gpt2", "abc123");
    cr_assert_eq(locate_weights("gpt2", NULL, out, sizeof out, &src, &e), 0, "%s", e.msg);
    snprintf(want, sizeof want, "%s/models--openai-community--gpt2/snapshots/abc123/model.safetensors", hub);
    cr_expect_str_eq(out, want);
    cr_expect_eq(src, LOCATE_FROM_HF_CACHE);
}

Test(locate, hf_cache_legacy_folder_and_env_precedence)
{
    char out[4096], want[4096], hub1[4096], hub2[4096];
    g2e_err e;
    snprintf(hub1, sizeof hub1, "%s/hfhome/hub", dir);
    snprintf(hub2, sizeof hub2, "%s/hubcache", dir);
    make_cache(hub1, "models--distilgpt2", "d1");
    setenv("HF_HOME", "hfhome", 1);
    cr_assert_eq(locate_weights("distilgpt2", NULL, out, sizeof out, NULL, &e), 0, "%s", e.msg);
    cr_expect_str_eq(out, "hfhome/hub/models--distilgpt2/snapshots/d1/model.safetensors");
    make_cache(hub2, "models--distilbert--distilgpt2", "d2");
    setenv("HF_HUB_CACHE", hub2, 1);
    cr_assert_eq(locate_weights("distilgpt2", NULL, out, sizeof out, NULL, &e), 0, "%s", e.msg);
    snprintf(want, sizeof want, "%s/models--distilbert--distilgpt2/snapshots/d2/model.safetensors", hub2);
    cr_expect_str_eq(out, want);
}

Test(locate, hf_cache_bad_ref_is_not_followed)
{
    char out[4096], hub[4096], p[4096];
    g2e_err e;
    snprintf(hub, sizeof hub, "%s/hc", dir);
    make_cache(hub, "models--openai-community--gpt2", "good");
    snprintf(p, sizeof p, "%s/models--openai-community--gpt2/refs/main", hub);
    write_file(p, "../../evil\n", 11);
    setenv("HF_HUB_CACHE", hub, 1);
    cr_expect_eq(locate_hf_cache("openai-community/gpt2", "main", out, sizeof out, &e), LOCATE_E_NOT_FOUND);
}

Test(locate, too_small_buffer)
{
    char out[8];
    g2e_err e;
    write_file("a-rather-long-name.safetensors", "x", 1);
    cr_expect_eq(locate_weights(NULL, "a-rather-long-name.safetensors", out, sizeof out, NULL, &e),
                 LOCATE_E_TOO_LONG);
}

Test(locate, the_model_catalogue)
{
    /* the shapes of each model's config.json on the Hub */
    static const struct { const char *name, *repo; unsigned e, l; } want[] = {
        {"gpt2", "openai-community/gpt2", 768, 12},
        {"gpt2-medium", "openai-community/gpt2-medium", 1024, 24},
        {"gpt2-large", "openai-community/gpt2-large", 1280, 36},
        {"gpt2-xl", "openai-community/gpt2-xl", 1600, 48},
        {"distilgpt2", "distilbert/distilgpt2", 768, 6},
    };
    for (size_t i = 0; i < 5; i++) {
        const models_info *m = models_find(want[i].name);
        cr_assert(m, "%s", want[i].name);
        cr_expect_str_eq(m->repo, want[i].repo);
        cr_expect_str_eq(locate_default_repo(want[i].name), want[i].repo);
        cr_expect_eq(m->n_vocab, 50257);
        cr_expect_eq(m->n_ctx, 1024);
        cr_expect_eq(m->n_embd, want[i].e);
        cr_expect_eq(m->n_layer, want[i].l);
    }
    cr_expect_null(models_find("gpt3"));
    cr_expect_null(models_find(NULL));
}

/* The order huggingface_hub's constants.py gives: HF_HUB_CACHE, else HUGGINGFACE_HUB_CACHE,
 * else HF_HOME/hub, else XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub; a
 * leading ~/ is the home folder; the token file beside the hub folder, in the HF home. */
Test(locate, hf_home_and_hub_cache_as_huggingface_hub_finds_them)
{
    char out[4096], want[4096];
    g2e_err e;
    cr_assert_eq(locate_hf_hub_dir(out, sizeof out, &e), 0);
    snprintf(want, sizeof want, "%s/.cache/huggingface/hub", dir);
    cr_expect_str_eq(out, want);
    cr_assert_eq(locate_hf_token_path(out, sizeof out, &e), 0);
    snprintf(want, sizeof want, "%s/.cache/huggingface/token", dir);
    cr_expect_str_eq(out, want);
    setenv("XDG_CACHE_HOME", "/x/cache", 1);
    cr_assert_eq(locate_hf_hub_dir(out, sizeof out, &e), 0);
    cr_expect_str_eq(out, "/x/cache/huggingface/hub");
    cr_assert_eq(locate_hf_token_path(out, sizeof out, &e), 0);
    cr_expect_str_eq(out, "/x/cache/huggingface/token");
    setenv("XDG_CACHE_HOME", "", 1);   /* empty: unset, as the XDG specification says */
    cr_assert_eq(locate_hf_hub_dir(out, sizeof out, &e), 0);
    snprintf(want, sizeof want, "%s/.cache/huggingface/hub", dir);
    cr_expect_str_eq(out, want);
    setenv("XDG_CACHE_HOME", "/x/cache", 1);
    setenv("HF_HOME", "~/hf", 1);
    cr_assert_eq(locate_hf_hub_dir(out, sizeof out, &e), 0);
    snprintf(want, sizeof want, "%s/hf/hub", dir);
    cr_expect_str_eq(out, want);
    cr_assert_eq(locate_hf_token_path(out, sizeof out, &e), 0);
    snprintf(want, sizeof want, "%s/hf/token", dir);
    cr_expect_str_eq(out, want);
    setenv("HUGGINGFACE_HUB_CACHE", "/old/hub", 1);
    cr_assert_eq(locate_hf_hub_dir(out, sizeof out, &e), 0);
    cr_expect_str_eq(out, "/old/hub");
    setenv("HF_HUB_CACHE", "/new/hub", 1);
    cr_assert_eq(locate_hf_hub_dir(out, sizeof out, &e), 0);
    cr_expect_str_eq(out, "/new/hub");
    setenv("HF_TOKEN_PATH", "/t/token", 1);
    cr_assert_eq(locate_hf_token_path(out, sizeof out, &e), 0);
    cr_expect_str_eq(out, "/t/token");
    cr_assert_eq(locate_hf_repo_dir("openai-community/gpt2", out, sizeof out, &e), 0);
    cr_expect_str_eq(out, "/new/hub/models--openai-community--gpt2");
}

Test(locate, the_weights_lookup_follows_the_revision_asked_for)
{
    char out[4096], hub[4096], p[4096];
    g2e_err e;
    setenv("XDG_CACHE_HOME", dir, 1);
    snprintf(hub, sizeof hub, "%s/huggingface/hub", dir);
    make_cache(hub, "models--openai-community--gpt2", "c0ffee");
    snprintf(p, sizeof p, "%s/models--openai-community--gpt2/refs/v2", hub);
    write_file(p, "beef", 4);
    snprintf(p, sizeof p, "%s/models--openai-community--gpt2/snapshots/beef", hub);
    mkdirs(p);
    strcat(p, "/model.safetensors");
    write_file(p, "y", 1);
    cr_assert_eq(locate_weights_at("gpt2", NULL, NULL, out, sizeof out, NULL, &e), 0, "%s", e.msg);
    cr_expect(strstr(out, "/snapshots/c0ffee/") != NULL, "%s", out);
    cr_assert_eq(locate_weights_at("gpt2", "v2", NULL, out, sizeof out, NULL, &e), 0, "%s", e.msg);
    cr_expect_str_eq(out, p);
    cr_assert_eq(locate_weights_at("gpt2", "beef", NULL, out, sizeof out, NULL, &e), 0, "%s", e.msg);
    cr_expect_str_eq(out, p);
    cr_expect_eq(locate_weights_at("gpt2", "v3", NULL, out, sizeof out, NULL, &e), LOCATE_E_NOT_FOUND);
    cr_expect(strstr(e.msg, "refs/v3") != NULL, "%s", e.msg);
}

Test(locate, the_commands_take_revision_for_the_cache)
{
    char hub[4096], p[4096], xdg[4200], home[4200];
    snprintf(hub, sizeof hub, "%s/xdg/huggingface/hub/models--openai-community--gpt2", dir);
    snprintf(p, sizeof p, "%s/snapshots/0123abcd", hub);
    mkdirs(p);
    fixture_opts o;
    fixture_tiny(&o);
    char e[256];
    strcat(p, "/model.safetensors");
    cr_assert_eq(fixture_write(p, &o, e, sizeof e), 0, "%s", e);
    snprintf(p, sizeof p, "%s/refs", hub);
    mkdirs(p);
    strcat(p, "/v2");
    write_file(p, "0123abcd", 8);
    snprintf(xdg, sizeof xdg, "XDG_CACHE_HOME=%s/xdg", dir);
    snprintf(home, sizeof home, "HOME=%s", dir);
    char *env[] = {xdg, home, (char *)"-HF_HOME", (char *)"-HF_HUB_CACHE",
                   (char *)"-GPT2_EMBED_WEIGHTS", NULL};
    char *argv[] = {(char *)G2E_TEST_BIN, (char *)"similarity", (char *)"--pos", (char *)"0",
                    (char *)"1", (char *)"--revision", (char *)"v2", NULL};
    run_result r = run_argv(argv, NULL, 0, env, dir);
    cr_expect_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    argv[5] = NULL;   /* main: not in this cache */
    r = run_argv(argv, NULL, 0, env, dir);
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect(strstr(r.err, "refs/main") != NULL, "%s", r.err);
    run_free(&r);
}
