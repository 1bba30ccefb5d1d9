/* gpt2embed.h — the public C API of libgpt2embed: GPT-2's embedding stage as a library.
 *
 *     gpt2embed_model *m;  gpt2embed_tokenizer *tk;  char err[512];
 *     if (gpt2embed_model_open(&m, NULL, "gpt2", err, sizeof err)) { puts(err); ... }
 *     if (gpt2embed_tokenizer_open(&tk, NULL, err, sizeof err)) { ... }
 *     uint32_t *ids; size_t T;
 *     gpt2embed_tokenize(tk, "The dog chased the cat", 22, &ids, &T, err, sizeof err);
 *     float *x = malloc(T * gpt2embed_n_embd(m) * sizeof *x);
 *     gpt2embed_embed(m, ids, T, 0, x, err, sizeof err);   // x[t] = wte[ids[t]] + wpe[t]
 *     free(x); gpt2embed_free(ids); gpt2embed_tokenizer_close(tk); gpt2embed_model_close(m);
 *
 * Build with `pkg-config --cflags --libs gpt2embed`. Every function returns 0 on success
 * or a non-zero status, and then writes a one-line message into err[errlen] (err may be
 * NULL). The library never prints and never exits. Nothing here is thread-safe on the
 * same object; separate objects may be used from separate threads.
 *
 * Token IDs are exactly tiktoken's `gpt2` encoding; embeddings are float32, row-major,
 * bit-identical to numpy's wte[ids] + wpe[arange(start, start + T)] (F16/BF16 weights are
 * upcast first).
 */
#ifndef GPT2EMBED_H
#define GPT2EMBED_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpt2embed_model gpt2embed_model;
typedef struct gpt2embed_tokenizer gpt2embed_tokenizer;

/* Opens GPT-2 weights (a safetensors file with wte/wpe). path NULL: look for model_name
 * (NULL: "gpt2") in $GPT2_EMBED_WEIGHTS, weights/<model>.safetensors, the installed data
 * directory and the Hugging Face cache. The file is mapped, not read. *out is the caller's
 * (gpt2embed_model_close); on error *out is NULL. */
int gpt2embed_model_open(gpt2embed_model **out, const char *path, const char *model_name,
                         char *err, size_t errlen);
void gpt2embed_model_close(gpt2embed_model *m);           /* accepts NULL */

size_t gpt2embed_n_vocab(const gpt2embed_model *m);       /* wte rows: 50257 for GPT-2 */
size_t gpt2embed_n_ctx(const gpt2embed_model *m);         /* wpe rows: 1024 */
size_t gpt2embed_n_embd(const gpt2embed_model *m);        /* 768, 1024, 1280, 1600 */
/* "gpt2", "gpt2-medium", "gpt2-large", "gpt2-xl", "distilgpt2", or NULL if unrecognised. */
const char *gpt2embed_model_name(const gpt2embed_model *m);

/* Opens the tokenizer: dir NULL looks in $GPT2_EMBED_TOKENIZER, the installed data, then
 * uses the copy compiled into the library. *out is the caller's (gpt2embed_tokenizer_close). */
int gpt2embed_tokenizer_open(gpt2embed_tokenizer **out, const char *dir, char *err,
                             size_t errlen);
void gpt2embed_tokenizer_close(gpt2embed_tokenizer *t);   /* accepts NULL */

/* Tokenizes text[len] (UTF-8; invalid UTF-8 is an error naming the byte offset;
 * "<|endoftext|>" becomes ID 50256). On success *ids is a new array of *n IDs, freed with
 * gpt2embed_free (n may be 0, then *ids may be NULL). */
int gpt2embed_tokenize(gpt2embed_tokenizer *t, const char *text, size_t len, uint32_t **ids,
                       size_t *n, char *err, size_t errlen);

/* x[t] = wte[ids[t]] + wpe[start + t] for t < n, into out[n * n_embd] (the caller's).
 * Fails, writing nothing useful, if an ID is >= n_vocab or start + n > n_ctx. */
int gpt2embed_embed(const gpt2embed_model *m, const uint32_t *ids, size_t n, size_t start,
                    float *out, char *err, size_t errlen);

/* Frees memory the library returned (gpt2embed_tokenize's IDs). */
void gpt2embed_free(void *p);

#ifdef __cplusplus
}
#endif

#endif
