/* load.h — opening the weights and the tokenizer for a command, with the messages a user
 * needs when they are missing (program wing: prints one line on failure). */
#ifndef G2E_LOAD_H
#define G2E_LOAD_H

#include "model.h"
#include "tokenizer.h"

/* Finds (locate.h: --weights, $GPT2_EMBED_WEIGHTS, weights/, installed, HF cache) and opens
 * the weights of model_name (NULL: gpt2). On success *m is owned by the caller and, if
 * path is non-NULL, *path receives a new string (caller frees) naming the file. On failure
 * prints one line (where it looked, how to download) and returns -1. */
int load_model(const char *weights, const char *model_name, g2e_model **m, char **path);

/* Finds and opens the tokenizer (tokenizer.h's order, dir = --tokenizer or NULL). Prints one
 * line and returns -1 on failure. */
int load_tokenizer(const char *dir, tok_tokenizer **t);

/* The one token of text (e.g. " cat"): prints an error showing its tokens and returns -1
 * when text is not exactly one token. */
int load_single_token(tok_tokenizer *t, const char *text, uint32_t *id);

#endif
