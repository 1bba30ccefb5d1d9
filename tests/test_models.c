/* SPDX-License-Identifier: MIT */
/* test_models.c — the model catalogue: its rows against the published config.json facts
 * (written here once more, independently of models.c), name lookup, the message list, the
 * shape -> name rule, and that the locator and the model view answer from it. */
#include "fixture.h"
#include "locate.h"
#include "model.h"
#include "models.h"
#include "support.h"

#include <criterion/criterion.h>
#include <string.h>

/* name, repository, n_embd, n_layer, n_head (Hugging Face config.json of each checkpoint) */
static const struct {
    const char *name, *repo;
    size_t n_embd, n_layer, n_head;
} FACTS[] = {
    {"gpt2", "openai-community/gpt2", 768, 12, 12},
    {"gpt2-medium", "openai-community/gpt2-medium", 1024, 24, 16},
    {"gpt2-large", "openai-community/gpt2-large", 1280, 36, 20},
    {"gpt2-xl", "openai-community/gpt2-xl", 1600, 48, 25},
    {"distilgpt2", "distilbert/distilgpt2", 768, 6, 12},
};

Test(models, catalogue_rows_are_the_published_shapes)
{
    size_t n;
    const models_info *all = models_all(&n);
    cr_assert_eq(n, sizeof FACTS / sizeof *FACTS);
    for (size_t i = 0; i < n; i++) {
        cr_expect_str_eq(all[i].name, FACTS[i].name);
        cr_expect_str_eq(all[i].repo, FACTS[i].repo);
        cr_expect_eq(all[i].n_vocab, 50257);
        cr_expect_eq(all[i].n_ctx, 1024);
        cr_expect_eq(all[i].n_embd, FACTS[i].n_embd, "%s", FACTS[i].name);
        cr_expect_eq(all[i].n_layer, FACTS[i].n_layer, "%s", FACTS[i].name);
        cr_expect_eq(all[i].n_head, FACTS[i].n_head, "%s", FACTS[i].name);
        cr_expect_eq(all[i].n_embd % all[i].n_head, 0, "heads divide the width");
        cr_expect(models_find(FACTS[i].name) == &all[i]);
        cr_expect_str_eq(locate_default_repo(FACTS[i].name), FACTS[i].repo);
        cr_expect(strstr(models_names(), FACTS[i].name) != NULL);
    }
    cr_expect_null(models_find("GPT2"));
    cr_expect_null(models_find("gpt5"));
    cr_expect_null(models_find(NULL));
    cr_expect_null(locate_default_repo("gpt2-small"));
    cr_expect_str_eq(models_names(), "gpt2, gpt2-medium, gpt2-large, gpt2-xl, distilgpt2");
}

Test(models, shapes_to_names)
{
    cr_expect_str_eq(models_match(50257, 1024, 768, 12, NULL), "gpt2");
    cr_expect_str_eq(models_match(50257, 1024, 768, 6, NULL), "distilgpt2");
    cr_expect_str_eq(models_match(50257, 1024, 768, 0, NULL), "gpt2", "embeddings only: gpt2");
    cr_expect_str_eq(models_match(50257, 1024, 768, 0, "distilbert/distilgpt2"), "distilgpt2");
    cr_expect_str_eq(models_match(50257, 1024, 768, 0, "openai-community/gpt2"), "gpt2");
    cr_expect_null(models_match(50257, 1024, 768, 7, NULL), "7 blocks of width 768: no known model");
    cr_expect_str_eq(models_match(50257, 1024, 1024, 0, NULL), "gpt2-medium");
    cr_expect_str_eq(models_match(50257, 1024, 1280, 36, NULL), "gpt2-large");
    cr_expect_null(models_match(50257, 1024, 1280, 12, NULL));
    cr_expect_str_eq(models_match(50257, 1024, 1600, 0, "whatever"), "gpt2-xl");
    cr_expect_null(models_match(50257, 2048, 768, 0, NULL));
    cr_expect_null(models_match(50000, 1024, 768, 0, NULL));
    cr_expect_null(models_match(50257, 1024, 64, 0, NULL));
}

Test(models, locator_names_the_catalogue_for_an_unknown_model)
{
    char path[512];
    g2e_err err;
    cr_expect_eq(locate_weights("gpt5", NULL, path, sizeof path, NULL, &err), LOCATE_E_UNKNOWN_MODEL);
    cr_expect(strstr(err.msg, models_names()) != NULL, "%s", err.msg);
}
