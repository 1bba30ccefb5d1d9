/* SPDX-License-Identifier: MIT */
/* models.c — the catalogue of known models (see models.h). */
#include "models.h"

#include <string.h>

static const models_info MODELS[] = {
    {"gpt2", "openai-community/gpt2", 50257, 1024, 768, 12, 12},
    {"gpt2-medium", "openai-community/gpt2-medium", 50257, 1024, 1024, 24, 16},
    {"gpt2-large", "openai-community/gpt2-large", 50257, 1024, 1280, 36, 20},
    {"gpt2-xl", "openai-community/gpt2-xl", 50257, 1024, 1600, 48, 25},
    {"distilgpt2", "distilbert/distilgpt2", 50257, 1024, 768, 6, 12},
};
#define N_MODELS (sizeof MODELS / sizeof MODELS[0])

/* sha256 of wte's and wpe's bytes per repository and commit (models.h). None is known
 * yet: no real checkpoint could be downloaded where this table was written (loopback only),
 * and a value is added only from bytes actually fetched and hashed, never from elsewhere.
 * Until then every embeddings-only download says "not verified: unknown revision". An
 * entry: {"openai-community/gpt2", "<commit>", "wte.weight", "<sha256 of its bytes>"}. */
static const models_pin PINS[] = {{NULL, NULL, NULL, NULL}};
#define N_PINS ((size_t)0)

const models_pin *models_pins(size_t *n)
{
    if (n)
        *n = N_PINS;
    return PINS;
}

const models_pin *models_pin_find(const models_pin *pins, size_t n, const char *repo,
                                  const char *commit, const char *tensor)
{
    if (!pins)
        pins = models_pins(&n);
    for (size_t i = 0; repo && commit && tensor && i < n; i++)
        if (pins[i].repo && !strcmp(pins[i].repo, repo) && !strcmp(pins[i].commit, commit) &&
            !strcmp(pins[i].tensor, tensor))
            return &pins[i];
    return NULL;
}

const models_info *models_all(size_t *n)
{
    if (n)
        *n = N_MODELS;
    return MODELS;
}

const models_info *models_find(const char *name)
{
    for (size_t i = 0; name && i < N_MODELS; i++)
        if (strcmp(name, MODELS[i].name) == 0)
            return &MODELS[i];
    return NULL;
}

const char *models_names(void)
{
    return "gpt2, gpt2-medium, gpt2-large, gpt2-xl, distilgpt2";
}

const char *models_match(size_t n_vocab, size_t n_ctx, size_t n_embd, size_t n_layer,
                         const char *repo_hint)
{
    const models_info *first = NULL;   /* the first entry of these embedding shapes */
    for (size_t i = 0; i < N_MODELS; i++) {
        const models_info *m = &MODELS[i];
        if (m->n_vocab != n_vocab || m->n_ctx != n_ctx || m->n_embd != n_embd)
            continue;
        if (n_layer && m->n_layer == n_layer)
            return m->name;
        if (!n_layer && repo_hint && strstr(repo_hint, m->name) && strcmp(m->name, "gpt2") != 0)
            return m->name;
        if (!first)
            first = m;
    }
    return first && !n_layer ? first->name : NULL;
}
