/* SPDX-License-Identifier: MIT */
/* st_describe.h — what `gpt2-embed inspect` prints: a safetensors file (sizes, header, data
 * section and its alignment, metadata, every tensor in storage order with dtype, shape,
 * bytes and offset) and the GPT-2 model in it (n_vocab, n_ctx, n_embd, n_layer, prefix,
 * dtypes), or why there is none.
 *
 * Table: aligned text; names and metadata with control bytes as \xNN and '\' doubled, so
 * one entry stays one line. JSON: one line by the one JSON writer (json.h: strings escaped
 * as everywhere, controls and U+2028/9 included); every size and offset as an exact decimal
 * integer; "model": null and "model_error" when the file holds no usable model.
 * Deliberately left out: any tensor's values.
 */
#ifndef G2E_ST_DESCRIBE_H
#define G2E_ST_DESCRIBE_H

#include "model.h"
#include "safetensors.h"

#include <stdio.h>

/* Writes the table to f. m NULL: model_err says why there is no model. Returns 0. */
int st_describe_table(FILE *f, const char *path, const st_file *st, const g2e_model *m,
                      const char *model_err);

/* The table in a new string (caller frees); NULL when out of memory. */
char *st_describe_text(const char *path, const st_file *st, const g2e_model *m,
                       const char *model_err);

/* The JSON document (no final newline) in a new string the caller frees with free();
 * NULL when out of memory. */
char *st_describe_json(const char *path, const st_file *st, const g2e_model *m,
                       const char *model_err);

#endif
