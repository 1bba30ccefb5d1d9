/* SPDX-License-Identifier: MIT */
/* model.h — the GPT-2 view of a safetensors file: the token and position embeddings.
 *
 * Finds wte.weight and wpe.weight (or transformer.wte.weight / transformer.wpe.weight),
 * checks they are 2-D with the same width and a float dtype we convert (F32/F16/BF16),
 * and derives n_vocab (wte rows), n_ctx (wpe rows) and n_embd. Names the size when the
 * shapes match a known one. Rows are read as float32 through st_read_row_f32.
 */
#ifndef G2E_MODEL_H
#define G2E_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "safetensors.h"

/* Status codes of this module and the public status each is reported as (err.h). */
#define MODEL_CODES(X) \
    X(MODEL_E_NO_WTE, NOT_GPT2) /* no wte.weight / transformer.wte.weight */ \
    X(MODEL_E_NO_WPE, NOT_GPT2) /* no wpe.weight / transformer.wpe.weight */ \
    X(MODEL_E_SHAPE, NOT_GPT2) /* not 2-D, zero-sized, or widths differ */ \
    X(MODEL_E_DTYPE, NOT_GPT2) /* not F32/F16/BF16 */ \
    X(MODEL_E_RANGE, TOKEN_ID) /* token id >= n_vocab or position >= n_ctx */ \
    X(MODEL_E_NOT_FOUND, NOT_FOUND) /* model_locate found no weights */ \
    X(MODEL_E_AMBIGUOUS, NOT_GPT2) /* both wte.weight and transformer.wte.weight (or wpe), or wte and wpe with different prefixes */
G2E_CODES(MODEL, MODEL_CODES);

typedef struct g2e_model {
    st_file *st;                 /* owned */
    const st_tensor *wte, *wpe;  /* inside st */
    size_t n_vocab, n_ctx, n_embd;
    const char *size_name;       /* "gpt2", "gpt2-medium", "gpt2-large", "gpt2-xl",
                                    "distilgpt2" (ambiguous with gpt2 by shape: see model.c), or NULL */
    int prefixed;                /* 1 if names carry "transformer." */
    size_t n_layer;              /* transformer blocks present (h.N.*), 0 if none */
} g2e_model;

/* Size naming. gpt2 and distilgpt2 share wte [50257,768] and wpe [1024,768]: when block
 * tensors (prefix + "h.N.") are present the number of blocks decides (12 -> gpt2,
 * 6 -> distilgpt2, anything else -> NULL); otherwise a "repo" __metadata__ value containing
 * "distilgpt2" (the downloader records it) names distilgpt2, else gpt2. gpt2-medium/-large/-xl
 * are n_embd 1024/1280/1600 with 50257 rows and 1024 positions (NULL if blocks are present
 * and their count is not 24/36/48). Every other shape: NULL. n_layer below is the count of
 * blocks found (max N + 1), 0 when none.
 *
 * Opens and checks the weights at path. Only the header is read and only wte and wpe are
 * mapped (st_open_header + st_map): the rest of a full checkpoint costs no address space.
 * *out owned by the caller (model_close). On error *out is NULL and err names the path and
 * what is missing or inconsistent. */
int model_open(g2e_model **out, const char *path, g2e_err *err);
/* Wraps an already opened st_file (ownership passes to the model, also on error). */
int model_from_st(g2e_model **out, st_file *st, g2e_err *err);
void model_close(g2e_model *m);

/* wte[id] / wpe[pos] into out[n_embd] as float32 (exact for F16/BF16). MODEL_E_RANGE when
 * out of range (out untouched); G2E_EINVAL when the model has no data mapped (built by
 * model_from_st over st_parse_header). */
int model_wte_row(const g2e_model *m, uint64_t id, float *out, g2e_err *err);
int model_wpe_row(const g2e_model *m, uint64_t pos, float *out, g2e_err *err);

#endif
