/* SPDX-License-Identifier: MIT */
/* models.h — the one catalogue of the models gpt2-embed knows: their names, their
 * Hugging Face repositories and their shapes. The locator (which file belongs to a
 * --model name), the model view (which name a file's shapes mean) and the downloader
 * (which repository to fetch) all read it, so a new model is one row in models.c.
 *
 * Shapes are those of the published checkpoints' config.json (n_vocab = vocab_size,
 * n_ctx = n_positions, n_embd, n_layer, n_head); they are facts about the models, checked
 * against every file that is opened, never trusted over the file.
 *
 * Deliberately left out: anything about the transformer blocks beyond their count
 * (gpt2-embed reads only wte and wpe).
 */
#ifndef G2E_MODELS_H
#define G2E_MODELS_H

#include "../../gpt2embed.h"

#include <stddef.h>

/* An entry: name ("gpt2", the --model name), repo (the Hub repository), n_vocab (rows of
 * wte), n_ctx (rows of wpe), n_embd, n_layer (transformer blocks), n_head. The public
 * struct itself: gpt2embed_known_models hands out this very catalogue. */
typedef gpt2embed_model_info models_info;

/* The catalogue, in the order messages list it; *n receives its length. Static data. */
const models_info *models_all(size_t *n);

/* The entry called name (exact, case-sensitive), or NULL. */
const models_info *models_find(const char *name);

/* The names joined for a message, with no word of any language in it:
 * "gpt2, gpt2-medium, gpt2-large, gpt2-xl, distilgpt2" (static string). */
const char *models_names(void);

/* The sha256 of one tensor's bytes (as stored in the repository's model.safetensors) at
 * one commit of a model's repository: what an embeddings-only download checks the bytes it
 * fetched against (download.h), since the whole file's sha256 cannot be checked when only
 * two tensors are fetched. */
typedef struct models_pin {
    const char *repo;     /* "openai-community/gpt2" */
    const char *commit;   /* 40 hex digits */
    const char *tensor;   /* the name in the source file: "wte.weight" */
    const char *sha256;   /* 64 lowercase hex digits */
} models_pin;

/* The catalogue's pins; *n receives their count. Empty for now: the real checkpoints could
 * not be fetched where the catalogue was written, and a pin is only ever the hash of bytes
 * actually downloaded (models.c). */
const models_pin *models_pins(size_t *n);

/* The pin of tensor in repo at commit among pins[0..n) (pins NULL: the catalogue's), or NULL. */
const models_pin *models_pin_find(const models_pin *pins, size_t n, const char *repo,
                                  const char *commit, const char *tensor);

/* The name a file's shapes stand for, or NULL when they match no entry. n_layer is the
 * number of blocks the file holds (0: an embeddings-only file). gpt2 and distilgpt2 share
 * every embedding shape: with blocks their count decides; without, repo_hint (a "repo"
 * metadata value the downloader writes, may be NULL) naming distilgpt2 decides, else
 * "gpt2". With blocks present, a count that matches no entry of that width gives NULL. */
const char *models_match(size_t n_vocab, size_t n_ctx, size_t n_embd, size_t n_layer,
                         const char *repo_hint);

#endif
