/* test_locate.c — the weights lookup order, the Hugging Face cache layout, and its errors.
 * Each test builds a fake cache tree in its own temp dir and points the environment at it. */
#include "locate.h"
#include "models.h"
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
    unsetenv("HF_HOME");
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

Test(locate, nothing_found_lists_places_and_download_command)
{
    char out[4096];
    g2e_err e;
    cr_assert_eq(locate_weights("gpt2-medium", NULL, out, sizeof out, NULL, &e), LOCATE_E_NOT_FOUND);
    cr_expect(strstr(e.msg, "weights/gpt2-medium.safetensors") != NULL, "%s", e.msg);
    cr_expect(strstr(e.msg, ".cache/huggingface/hub/models--openai-community--gpt2-medium") != NULL, "%s", e.msg);
    cr_expect(strstr(e.msg, "gpt2-embed download --model gpt2-medium") != NULL, "%s", e.msg);
    cr_expect(strchr(e.msg, '\n') == NULL, "one line: %s", e.msg);
}

Test(locate, explicit_path_must_exist_and_wins)
{
    char out[4096];
    g2e_err e;
    const char *src = NULL;
    cr_expect_eq(locate_weights(NULL, "nope.safetensors", out, sizeof out, NULL, &e), LOCATE_E_MISSING);
    cr_expect(strstr(e.msg, "nope.safetensors") != NULL, "%s", e.msg);
    mkdirs("weights");
    write_file("weights/gpt2.safetensors", "x", 1);
    write_file("mine.safetensors", "x", 1);
    cr_assert_eq(locate_weights(NULL, "mine.safetensors", out, sizeof out, &src, &e), 0, "%s", e.msg);
    cr_expect_str_eq(out, "mine.safetensors");
    cr_expect_str_eq(src, "--weights");
    cr_expect_eq(locate_weights(NULL, "weights", out, sizeof out, NULL, &e), LOCATE_E_MISSING);
    cr_expect(strstr(e.msg, "is a directory") != NULL, "%s", e.msg);
}

Test(locate, env_before_local_folder)
{
    char out[4096];
    g2e_err e;
    const char *src = NULL;
    mkdirs("weights");
    write_file("weights/gpt2.safetensors", "x", 1);
    write_file("env.safetensors", "x", 1);
    setenv("GPT2_EMBED_WEIGHTS", "env.safetensors", 1);
    cr_assert_eq(locate_weights("gpt2", NULL, out, sizeof out, &src, &e), 0, "%s", e.msg);
    cr_expect_str_eq(out, "env.safetensors");
    cr_expect_str_eq(src, "$GPT2_EMBED_WEIGHTS");
    setenv("GPT2_EMBED_WEIGHTS", "missing.safetensors", 1);
    cr_expect_eq(locate_weights("gpt2", NULL, out, sizeof out, NULL, &e), LOCATE_E_MISSING);
    unsetenv("GPT2_EMBED_WEIGHTS");
    cr_assert_eq(locate_weights("gpt2", NULL, out, sizeof out, &src, &e), 0, "%s", e.msg);
    cr_expect_str_eq(out, "weights/gpt2.safetensors");
    cr_expect_str_eq(src, "weights/");
}

Test(locate, hf_cache_default_home_and_org_folder)
{
    char out[4096], hub[4096], want[4096];
    g2e_err e;
    const char *src = NULL;
    snprintf(hub, sizeof hub, "%s/.cache/huggingface/hub", dir);
    make_cache(hub, "models--openai-community--gpt2", "abc123");
    cr_assert_eq(locate_weights("gpt2", NULL, out, sizeof out, &src, &e), 0, "%s", e.msg);
    snprintf(want, sizeof want, "%s/models--openai-community--gpt2/snapshots/abc123/model.safetensors", hub);
    cr_expect_str_eq(out, want);
    cr_expect_str_eq(src, "Hugging Face cache");
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
