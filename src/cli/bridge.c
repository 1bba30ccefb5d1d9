/* SPDX-License-Identifier: MIT */
/* bridge.c — the engine behind the door's tokenizer (see bridge.h). */
#include "bridge.h"

#include "api_internal.h"

eng *bridge_engine(const gpt2embed_tokenizer *t)
{
    return g2e_api_engine(t);
}
