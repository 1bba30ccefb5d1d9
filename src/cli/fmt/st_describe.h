/* SPDX-License-Identifier: MIT */
/* st_describe.h — what `gpt2-embed inspect` prints as a table: a safetensors file (sizes,
 * header, data section and its alignment, metadata, every tensor in storage order with dtype,
 * shape, bytes and offset) and the GPT-2 model in it (n_vocab, n_ctx, n_embd, n_layer,
 * prefix, dtypes), or why there is none, from the library's description of the file
 * (gpt2embed_describe_file, whose JSON document `inspect --format json` prints as it is).
 *
 * Names and metadata with control bytes as \xNN and '\' doubled, so one entry stays one line.
 * Deliberately left out: any tensor's values.
 */
#ifndef G2E_ST_DESCRIBE_H
#define G2E_ST_DESCRIBE_H

#include <stdio.h>

struct cJSON;

/* Writes the table of doc (gpt2embed_describe_file's document, parsed) to f. Returns 0. */
int st_describe_table(FILE *f, const struct cJSON *doc);

/* The table in a new string (caller frees); NULL when out of memory. */
char *st_describe_text(const struct cJSON *doc);

#endif
