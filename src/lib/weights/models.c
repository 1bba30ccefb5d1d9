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
