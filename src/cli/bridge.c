/* SPDX-License-Identifier: MIT */
/* bridge.c — the internal view of the door's objects (see bridge.h). */
#include "bridge.h"

#include "api_internal.h"

const g2e_model *bridge_model(const gpt2embed_model *m)
{
    return g2e_api_model(m);
}

eng *bridge_engine(const gpt2embed_tokenizer *t)
{
    return g2e_api_engine(t);
}

const tok_tokenizer *bridge_tables(const gpt2embed_tokenizer *t)
{
    return eng_tables(g2e_api_engine(t));
}

tok_tokenizer *bridge_take(gpt2embed_tokenizer *t)
{
    return eng_take(g2e_api_engine(t));
}

void bridge_give(gpt2embed_tokenizer *t, tok_tokenizer *c)
{
    if (c)
        eng_give(g2e_api_engine(t), c);
}
