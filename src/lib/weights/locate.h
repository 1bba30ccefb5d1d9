/* SPDX-License-Identifier: MIT */
/* locate.h — where GPT-2's weights are on this machine.
 *
 * Lookup order (first hit wins):
 *   1. an explicit path (the program's --weights, the API's path): must exist, no fallback;
 *   2. $GPT2_EMBED_WEIGHTS: must exist, no fallback;
 *   3. weights/<model>.safetensors in the working directory;
 *   4. <G2E_DATADIR>/weights/<model>.safetensors (the installed data directory);
 *   5. the Hugging Face hub cache, found as huggingface_hub finds it: $HF_HUB_CACHE, else
 *      $HUGGINGFACE_HUB_CACHE, else <HF home>/hub, where the HF home is $HF_HOME, else
 *      $XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface (a leading "~/" in any of
 *      them is $HOME; empty means unset); folder models--<org>--<name> of the model's repo
 *      (or the legacy models--<name>); refs/<revision> (default main) names the snapshot
 *      commit, and snapshots/<commit>/model.safetensors is the file.
 * Nothing here opens the weights: existence as a regular file is all that is checked.
 */
#ifndef G2E_LOCATE_H
#define G2E_LOCATE_H

#include <stddef.h>

#include "err.h"

/* Status codes of this module and the public status each is reported as (err.h). */
#define LOCATE_CODES(X) \
    X(LOCATE_E_UNKNOWN_MODEL, UNKNOWN_MODEL) /* not one of the known model names */ \
    X(LOCATE_E_MISSING, NOT_FOUND) /* an explicit path or $GPT2_EMBED_WEIGHTS names no file */ \
    X(LOCATE_E_NOT_FOUND, NOT_FOUND) /* nothing found anywhere; msg lists every place looked */ \
    X(LOCATE_E_TOO_LONG, ARG) /* a path would not fit the caller's buffer */
G2E_CODES(LOCATE, LOCATE_CODES);

/* The Hub repository of a known model ("openai-community/gpt2", "distilbert/distilgpt2"),
 * or NULL for an unknown name (the catalogue: models.h). */
const char *locate_default_repo(const char *model);

/* Which step of the order above found the file (the public gpt2embed_weights_from's values). */
typedef enum locate_from {
    LOCATE_FROM_PATH = 0,      /* 1: the explicit path */
    LOCATE_FROM_ENV = 1,       /* 2: $GPT2_EMBED_WEIGHTS */
    LOCATE_FROM_WORKDIR = 2,   /* 3: weights/ in the working directory */
    LOCATE_FROM_DATADIR = 3,   /* 4: the installed data directory */
    LOCATE_FROM_HF_CACHE = 4,  /* 5: the Hugging Face cache */
} locate_from;

/* Finds the weights of model (NULL means "gpt2") following the order above; explicit may be
 * NULL. On success writes the path into out[outlen] and, if source is non-NULL, which step
 * found it. On LOCATE_E_NOT_FOUND the message lists every place looked; the messages name no
 * option or command of the program (a caller adds its own advice: the program names
 * --weights and its download command). */
int locate_weights(const char *model, const char *explicit_path, char *out, size_t outlen,
                   locate_from *source, g2e_err *err);

/* locate_weights with the revision (NULL: "main") looked for in the Hugging Face cache. */
int locate_weights_at(const char *model, const char *revision, const char *explicit_path,
                      char *out, size_t outlen, locate_from *source, g2e_err *err);

/* Only step 5: the file of repo at revision (NULL: "main") in the Hugging Face cache.
 * Returns 0 and fills out when it exists as a regular file, LOCATE_E_NOT_FOUND otherwise
 * (message names the snapshot path tried). Used by the downloader too. */
int locate_hf_cache(const char *repo, const char *revision, char *out, size_t outlen,
                    g2e_err *err);

/* The hub cache directory that applies now (see the order above) into out. */
int locate_hf_hub_dir(char *out, size_t outlen, g2e_err *err);

/* The HF home ($HF_HOME, else $XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface). */
int locate_hf_home(char *out, size_t outlen, g2e_err *err);

/* The token file: $HF_TOKEN_PATH, else <HF home>/token. */
int locate_hf_token_path(char *out, size_t outlen, g2e_err *err);

/* The cache folder of a model repo: <hub cache>/models--<org>--<name>. */
int locate_hf_repo_dir(const char *repo, char *out, size_t outlen, g2e_err *err);

#endif
