/* SPDX-License-Identifier: MIT */
/* bridge.h — the library's engine behind the door's tokenizer, for the token writers
 * (cmd_tokenize.c, io/tokwrite.c), which run on the engine's queue and do not reach the
 * library through gpt2embed.h alone yet. The tokenizer is opened through the door (load.h);
 * the writers take from here the engine inside it. This file, bridge.c and the files that
 * use it are the Makefile's NOT_ON_DOOR list (they still see every folder): the list is what
 * is left of moving the program onto the door, and this file goes with its last entry. */
#ifndef G2E_BRIDGE_H
#define G2E_BRIDGE_H

#include "gpt2embed.h"

#include "engine.h"

/* The engine inside t (owned by t: valid until gpt2embed_tokenizer_close). */
eng *bridge_engine(const gpt2embed_tokenizer *t);

#endif
