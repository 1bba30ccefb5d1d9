/* SPDX-License-Identifier: MIT */
/* describe.h — a safetensors file and the GPT-2 model in it as one JSON document: what
 * gpt2embed_describe_file returns and `gpt2-embed inspect --format json` prints.
 *
 * {"file", "file_size", "header_len", "data_start", "data_len", "metadata": {...}, "tensors":
 * [{"name", "dtype", "shape", "bytes", "offset", "data_offsets"}...] in storage order, "model":
 * {"size", "n_vocab", "n_ctx", "n_embd", "n_layer", "prefix", "wte", "wpe", "dtype"} or null
 * with "model_error"}: one line, the one JSON writer's (every size an exact integer, strings
 * escaped as everywhere), then a newline.
 * Deliberately left out: any tensor's values.
 */
#ifndef G2E_DESCRIBE_H
#define G2E_DESCRIBE_H

#include "model.h"
#include "safetensors.h"

#include <stdio.h>

/* The document of st (opened from path) onto f; m NULL: model_err says why there is no
 * model. 0, or -1 when the writer saw it incomplete. */
int st_describe_json(FILE *f, const char *path, const st_file *st, const g2e_model *m, const char *model_err);

#endif
