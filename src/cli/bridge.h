/* SPDX-License-Identifier: MIT */
/* bridge.h — the library's internals behind the door's objects, for the program files that
 * do not reach the library through gpt2embed.h alone yet. The weights and the tokenizer are
 * always opened through the door (load.h); a file not yet on the door takes from here the
 * internal view of what was opened. This file, bridge.c and every file that includes it are
 * listed in the Makefile (INC of the program's folders) as the ones that still see every
 * folder: the list is what is left of moving the program onto the door, and this file goes
 * with its last entry. */
#ifndef G2E_BRIDGE_H
#define G2E_BRIDGE_H

#include "gpt2embed.h"

#include "engine.h"
#include "model.h"
#include "tokenizer.h"

/* The model inside m (owned by m: valid until gpt2embed_model_close). */
const g2e_model *bridge_model(const gpt2embed_model *m);

/* The engine inside t (owned by t), and its tables for calls that only read them. */
eng *bridge_engine(const gpt2embed_tokenizer *t);
const tok_tokenizer *bridge_tables(const gpt2embed_tokenizer *t);

/* A context of t for the calling thread (eng_take: never waits; NULL when out of memory),
 * given back with bridge_give before t is closed. */
tok_tokenizer *bridge_take(gpt2embed_tokenizer *t);
void bridge_give(gpt2embed_tokenizer *t, tok_tokenizer *c);

#endif
