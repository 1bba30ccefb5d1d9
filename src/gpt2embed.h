/* SPDX-License-Identifier: MIT */
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
 * Build with `pkg-config --cflags --libs gpt2embed` (shared library libgpt2embed.so.0), or
 * `pkg-config --static --cflags --libs gpt2embed` with libgpt2embed.a. Only gpt2embed_*
 * names are exported; the static archive holds no other global symbol but g2e_*.
 *
 * Errors: every function that can fail returns a gpt2embed_status (GPT2EMBED_OK == 0) and
 * then writes a one-line message into err[errlen] (err may be NULL; the message is cut to
 * errlen - 1 bytes). gpt2embed_strerror() gives the status's generic text; the message says
 * the specifics (path, offset, numbers). A NULL object or out-pointer is GPT2EMBED_E_ARG,
 * never a crash. The library never prints and never exits. Nothing is thread-safe on the
 * same object; separate objects may be used from separate threads (the model functions
 * only read, so one model may be shared by threads that each have their own tokenizer).
 *
 * Token IDs are exactly tiktoken's `gpt2` encoding; embeddings are float32, row-major,
 * bit-identical to numpy's wte[ids] + wpe[arange(start, start + T)] (F16/BF16 weights are
 * upcast exactly first). Arrays the library returns are freed with gpt2embed_free.
 */
#ifndef GPT2EMBED_H
#define GPT2EMBED_H

#include <stddef.h>
#include <stdint.h>

#include "gpt2embed_version.h"   /* GPT2EMBED_VERSION_{MAJOR,MINOR,PATCH,STRING}, generated */

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define GPT2EMBED_API __attribute__((visibility("default")))
#else
#define GPT2EMBED_API
#endif

/* Status codes. New codes may be added at the end; existing values never change. */
typedef enum gpt2embed_status {
    GPT2EMBED_OK = 0,
    GPT2EMBED_E_NOMEM,          /* an allocation failed */
    GPT2EMBED_E_IO,             /* a file exists but cannot be opened, read or mapped */
    GPT2EMBED_E_ARG,            /* an argument outside its documented range (NULL, odd width...) */
    GPT2EMBED_E_NOT_FOUND,      /* no weights / tokenizer where looked; the message lists the places */
    GPT2EMBED_E_UNKNOWN_MODEL,  /* a model name that is not gpt2, gpt2-medium/-large/-xl, distilgpt2 */
    GPT2EMBED_E_FORMAT,         /* not a valid safetensors file, or malformed tokenizer files */
    GPT2EMBED_E_NOT_GPT2,       /* valid safetensors without usable wte/wpe (missing, shape, dtype) */
    GPT2EMBED_E_UTF8,           /* text not valid UTF-8; the message gives the byte offset */
    GPT2EMBED_E_SPECIAL,        /* <|endoftext|> in text with GPT2EMBED_SPECIAL_ERROR */
    GPT2EMBED_E_TOKEN_ID,       /* a token ID (or wte row) >= n_vocab */
    GPT2EMBED_E_CONTEXT,        /* positions past n_ctx (learned) or 2^53 (sinusoidal) */
    GPT2EMBED_E_ZERO_VECTOR,    /* the cosine of a zero vector */
    GPT2EMBED_E_TOO_LARGE,      /* a size that does not fit in memory */
    GPT2EMBED_E_INTERNAL,       /* a failure the library could not classify (a bug: report it) */
} gpt2embed_status;

/* The generic text of a status ("token ID outside the vocabulary"); a static string, also
 * for values outside the enum ("unknown status"). */
GPT2EMBED_API const char *gpt2embed_strerror(gpt2embed_status s);

/* The library's version at run time ("0.2.0"); compare with GPT2EMBED_VERSION_STRING. */
GPT2EMBED_API const char *gpt2embed_version(void);

typedef struct gpt2embed_model gpt2embed_model;
typedef struct gpt2embed_tokenizer gpt2embed_tokenizer;

/* ---- weights ---------------------------------------------------------------------------- */

/* Opens GPT-2 weights (a safetensors file with wte/wpe). path NULL: look for model_name
 * (NULL: "gpt2") as the program does: $GPT2_EMBED_WEIGHTS, weights/<model>.safetensors, the
 * installed data directory, the Hugging Face cache. The file is mapped, not read. *out is the
 * caller's (gpt2embed_model_close); on error *out is NULL. */
GPT2EMBED_API gpt2embed_status gpt2embed_model_open(gpt2embed_model **out, const char *path,
                                                    const char *model_name, char *err,
                                                    size_t errlen);
GPT2EMBED_API void gpt2embed_model_close(gpt2embed_model *m);   /* accepts NULL */

GPT2EMBED_API size_t gpt2embed_n_vocab(const gpt2embed_model *m);  /* wte rows: 50257; 0 if m NULL */
GPT2EMBED_API size_t gpt2embed_n_ctx(const gpt2embed_model *m);    /* wpe rows: 1024 */
GPT2EMBED_API size_t gpt2embed_n_embd(const gpt2embed_model *m);   /* 768, 1024, 1280, 1600 */
/* "gpt2", "gpt2-medium", "gpt2-large", "gpt2-xl", "distilgpt2", or NULL if the shapes match
 * none of them. Static string. */
GPT2EMBED_API const char *gpt2embed_model_name(const gpt2embed_model *m);
/* The file that was opened (valid until gpt2embed_model_close). */
GPT2EMBED_API const char *gpt2embed_model_path(const gpt2embed_model *m);

typedef enum gpt2embed_table {
    GPT2EMBED_WTE = 0,          /* token embeddings (n_vocab, n_embd) */
    GPT2EMBED_WPE = 1,          /* learned position embeddings (n_ctx, n_embd) */
} gpt2embed_table;

typedef enum gpt2embed_dtype {
    GPT2EMBED_F32 = 0,          /* IEEE binary32, little-endian */
    GPT2EMBED_F16 = 1,          /* IEEE binary16, little-endian */
    GPT2EMBED_BF16 = 2,         /* bfloat16 (the top half of a binary32), little-endian */
} gpt2embed_dtype;

/* The dtype wte or wpe is stored in (-1 for a NULL model or another table value). */
GPT2EMBED_API int gpt2embed_table_dtype(const gpt2embed_model *m, gpt2embed_table which);
/* "F32", "F16", "BF16" (as in the safetensors header), or NULL outside the enum. */
GPT2EMBED_API const char *gpt2embed_dtype_name(int dtype);

/* Rows [first, first + n) of wte or wpe as float32 into out[n * n_embd] (the caller's): a
 * copy, widened exactly from F16/BF16. GPT2EMBED_E_TOKEN_ID / GPT2EMBED_E_CONTEXT when the
 * rows pass the end of wte / wpe (out untouched). */
GPT2EMBED_API gpt2embed_status gpt2embed_rows(const gpt2embed_model *m, gpt2embed_table which,
                                              size_t first, size_t n, float *out, char *err,
                                              size_t errlen);

/* The stored bytes of wte or wpe, without copying: *data points at row 0 inside the file's
 * read-only mapping (writing through it is a crash), rows are *cols elements of *dtype
 * apart, little-endian. The pointer is NOT necessarily aligned (GPT-2's data section starts
 * at byte 14,291): read elements with memcpy in C; numpy handles unaligned arrays. Valid
 * until gpt2embed_model_close; *rows, *cols and *dtype may be NULL. */
GPT2EMBED_API gpt2embed_status gpt2embed_table_data(const gpt2embed_model *m,
                                                    gpt2embed_table which, const void **data,
                                                    size_t *rows, size_t *cols,
                                                    gpt2embed_dtype *dtype, char *err,
                                                    size_t errlen);

/* ---- tokenizer -------------------------------------------------------------------------- */

/* Opens the tokenizer: dir NULL looks in $GPT2_EMBED_TOKENIZER, the installed data, then
 * uses the copy compiled into the library. *out is the caller's (gpt2embed_tokenizer_close);
 * on error *out is NULL. */
GPT2EMBED_API gpt2embed_status gpt2embed_tokenizer_open(gpt2embed_tokenizer **out,
                                                        const char *dir, char *err,
                                                        size_t errlen);
GPT2EMBED_API void gpt2embed_tokenizer_close(gpt2embed_tokenizer *t);   /* accepts NULL */
/* Vocabulary size, special token included (50257); 0 if t is NULL. */
GPT2EMBED_API size_t gpt2embed_tokenizer_n_vocab(const gpt2embed_tokenizer *t);

/* Tokenizes text[len] (UTF-8; invalid UTF-8 is GPT2EMBED_E_UTF8 naming the byte offset;
 * "<|endoftext|>" becomes ID 50256). On success *ids is a new array of *n IDs, freed with
 * gpt2embed_free (n may be 0, then *ids may be NULL). On error *ids is NULL and *n is 0. */
GPT2EMBED_API gpt2embed_status gpt2embed_tokenize(gpt2embed_tokenizer *t, const char *text,
                                                  size_t len, uint32_t **ids, size_t *n,
                                                  char *err, size_t errlen);

/* Flags of gpt2embed_tokenize_ex. */
#define GPT2EMBED_SPECIAL_TEXT 1u   /* <|endoftext|> is ordinary text (tiktoken's encode_ordinary) */
#define GPT2EMBED_SPECIAL_ERROR 2u  /* <|endoftext|> is GPT2EMBED_E_SPECIAL (tiktoken's encode) */
#define GPT2EMBED_LOSSY 4u          /* invalid UTF-8 becomes U+FFFD (Python's errors="replace") */

/* As gpt2embed_tokenize, with flags (0 = the defaults above) and byte offsets: if offsets is
 * non-NULL, *offsets is a new array of *n + 1 values (gpt2embed_free): token i covers
 * text[(*offsets)[i] .. (*offsets)[i + 1]) and (*offsets)[*n] == len (lossy mode: a token
 * starting inside a replaced sequence reports the start of that sequence). Both
 * SPECIAL flags at once, or an unknown flag, is GPT2EMBED_E_ARG. */
GPT2EMBED_API gpt2embed_status gpt2embed_tokenize_ex(gpt2embed_tokenizer *t, const char *text,
                                                     size_t len, unsigned flags, uint32_t **ids,
                                                     size_t **offsets, size_t *n, char *err,
                                                     size_t errlen);

/* The bytes of ids[0..n) concatenated into a new buffer *text of *len bytes plus a NUL
 * (gpt2embed_free). The bytes need not be valid UTF-8: a token may end inside a character.
 * GPT2EMBED_E_TOKEN_ID names the first bad ID and its index (then *text is NULL). */
GPT2EMBED_API gpt2embed_status gpt2embed_decode(const gpt2embed_tokenizer *t,
                                                const uint32_t *ids, size_t n, char **text,
                                                size_t *len, char *err, size_t errlen);

/* ---- the embedding stage ---------------------------------------------------------------- */

/* x[t] = wte[ids[t]] + wpe[start + t] for t < n, into out[n * n_embd] (the caller's).
 * GPT2EMBED_E_TOKEN_ID if an ID is >= n_vocab, GPT2EMBED_E_CONTEXT if start + n > n_ctx;
 * then nothing useful is written. */
GPT2EMBED_API gpt2embed_status gpt2embed_embed(const gpt2embed_model *m, const uint32_t *ids,
                                               size_t n, size_t start, float *out, char *err,
                                               size_t errlen);

typedef enum gpt2embed_pe {
    GPT2EMBED_PE_LEARNED = 0,     /* wpe rows from the weights (the model's own) */
    GPT2EMBED_PE_SINUSOIDAL = 1,  /* the original Transformer's encoding, width n_embd, base 10000 */
} gpt2embed_pe;

/* As gpt2embed_embed with a choice of position encoding: x[t] = wte[ids[t]] + P(start + t);
 * sinusoidal positions go up to 2^53 (no n_ctx limit), values as gpt2embed_sinusoidal. */
GPT2EMBED_API gpt2embed_status gpt2embed_embed_pe(const gpt2embed_model *m, const uint32_t *ids,
                                                  size_t n, size_t start, gpt2embed_pe pe,
                                                  float *out, char *err, size_t errlen);

/* The sinusoidal encoding of positions [start, start + n), width dim (even, > 0), into
 * out[n * dim] float32: PE(p, 2i) = sin(p / base^(2i/dim)), PE(p, 2i+1) = cos(...), computed
 * in double and rounded once (base 10000 is the paper's; base must be finite and > 1).
 * GPT2EMBED_E_ARG for an odd/zero dim or a bad base, GPT2EMBED_E_CONTEXT past 2^53. */
GPT2EMBED_API gpt2embed_status gpt2embed_sinusoidal(size_t start, size_t n, size_t dim,
                                                    double base, float *out, char *err,
                                                    size_t errlen);

/* cos(a, b) of two float32 vectors of length n, accumulated in double, into *out.
 * GPT2EMBED_E_ZERO_VECTOR if either is all zeros (never a silent NaN). */
GPT2EMBED_API gpt2embed_status gpt2embed_cosine(const float *a, const float *b, size_t n,
                                                double *out, char *err, size_t errlen);

/* The cosine matrix of the R rows of X (R, C) float32 into out (R, R) double (the caller's).
 * GPT2EMBED_E_ZERO_VECTOR names the first zero row. */
GPT2EMBED_API gpt2embed_status gpt2embed_cosine_matrix(const float *X, size_t R, size_t C,
                                                       double *out, char *err, size_t errlen);

/* Frees memory the library returned (IDs, offsets, decoded text). Accepts NULL. */
GPT2EMBED_API void gpt2embed_free(void *p);

#ifdef __cplusplus
}
#endif

#endif
