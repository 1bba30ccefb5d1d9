/* SPDX-License-Identifier: MIT */
/* nearest_out.h — what `gpt2-embed nearest` writes: the tokens nearest to a query
 * (gpt2embed_nearest), as an aligned table or one JSON object.
 *
 * Table: "nearest wte rows to QUERY by cosine:", headings (translated, gettext; aligned by
 * display width), then rank, ID, the piece made visible (text.h's TEXT_ESC_VISIBLE) and
 * the cosine at 4 decimals; when a piece (or the query's) holds only part of a UTF-8
 * character, one closing line says what its \xNN bytes mean.
 * JSON: {"query", "k", "nearest": [{"rank", "id", "piece", "bytes" (the exact bytes),
 * "utf8" (whether they are valid UTF-8 alone), "cos" (full precision)}]}.
 * A piece shown alone has no text around it to say which character a partial byte
 * belongs to; the commands that have the text show 犬 (1/3) instead (rows_out.h).
 */
#ifndef G2E_NEAREST_OUT_H
#define G2E_NEAREST_OUT_H

#include "gpt2embed.h"
#include "npy.h"

#include <stdio.h>

/* The query from an .npy array of n_embd = C values (shape (C,) or (1, C), float32 or float64,
 * float64 rounded to float32) into q[C]; G2E_EINVAL names path and the shape found. */
int nearest_query_vector(const npy_array *arr, const char *path, size_t C, float *q, g2e_err *err);
/* The query wte[id] (+ wpe[pos] when have_pos, one float32 addition per element) into
 * q[n_embd]; scratch holds n_embd floats. G2E_EINVAL for an id or position outside the
 * matrices (the message gives their range) or a row the model cannot read. */
int nearest_query_token(const gpt2embed_model *m, uint32_t id, int have_pos, uint64_t pos, float *q,
                        float *scratch, g2e_err *err);

/* 1 when token id's piece is not valid UTF-8 on its own (part of a character). */
int nearest_partial(const gpt2embed_tokenizer *tok, uint32_t id);

/* Writes hits[0..n) for the query described by query (English, one line); partial = 1 when
 * the query's own piece is partial (the closing line is then written in any case). */
void nearest_write(FILE *f, int json, const gpt2embed_tokenizer *tok, const char *query, int partial,
                   const gpt2embed_hit *hits, size_t n);

#endif
