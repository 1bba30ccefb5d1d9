/* SPDX-License-Identifier: MIT */
/* gpt2embed.h — the public C API of libgpt2embed: GPT-2's embedding stage as a library.
 *
 *     gpt2embed_model *m;  gpt2embed_tokenizer *tk;  gpt2embed_error err;
 *     if (gpt2embed_model_open(&m, NULL, "gpt2", &err)) { puts(err.message); ... }
 *     if (gpt2embed_tokenizer_open(&tk, NULL, &err)) { ... }
 *     uint32_t ids[1024]; size_t T;
 *     gpt2embed_tokenize_into(tk, "The dog chased the cat", 22, 0, ids, NULL, 1024, &T, &err);
 *     float *x = malloc(T * gpt2embed_n_embd(m) * sizeof *x);
 *     gpt2embed_embed(m, ids, T, 0, x, &err);   // x[t] = wte[ids[t]] + wpe[t]
 *     free(x); gpt2embed_tokenizer_close(tk); gpt2embed_model_close(m);
 *
 * Build with `pkg-config --cflags --libs gpt2embed` (shared library libgpt2embed.so.1), or
 * `pkg-config --static --cflags --libs gpt2embed` with libgpt2embed.a. Only gpt2embed_*
 * names are exported; the static archive holds no other global symbol but g2e_*.
 *
 * Errors: every function that can fail returns a gpt2embed_status (GPT2EMBED_OK == 0) and
 * fills the caller's gpt2embed_error (err may be NULL): the status, the byte offset or index
 * the error is about (GPT2EMBED_NONE when none applies), and a one-line English message
 * that names the specifics (path, offset, numbers); the library never translates it itself
 * (a host may install its translation: gpt2embed_set_translator, at the end).
 * gpt2embed_strerror() gives the status's generic text. A NULL object or out-pointer is
 * GPT2EMBED_E_ARG, never a crash. On success err is left as it was.
 *
 * What the library does to its host: it never prints, exits, installs signal handlers,
 * changes or reads the locale, or translates; it reads only the environment variables named
 * in this header (GPT2_EMBED_WEIGHTS, GPT2_EMBED_TOKENIZER, and the Hugging Face cache's
 * HF_HUB_CACHE, HUGGINGFACE_HUB_CACHE, HF_HOME, XDG_CACHE_HOME, HOME); it starts threads
 * only in the calls that take a thread count, and joins them before returning.
 *
 * Threads: a tokenizer may be used by any number of threads at once (each call takes a
 * context of its own from the tokenizer's pool: caches and scratch, about 2 MB each, made
 * on first use and kept until close, at most GPT2EMBED_THREADS_MAX of them); a model is only
 * read and may be shared freely. Only the _close functions must not overlap other calls on
 * the same object. No call ever waits for another: when the kept contexts are all in use, a
 * call gets a spare one made for it (freed when it returns), and a call asked for several
 * threads runs on as many as are free then (at least one). So any number of callers may ask
 * for any number of threads at once, and a stream's callbacks may call the library on the
 * same tokenizer (re-entry is safe); none of it can deadlock.
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
    GPT2EMBED_E_BUFFER,         /* the caller's buffer is too small; the size needed was stored */
    GPT2EMBED_E_STOPPED,        /* a callback asked to stop (emit or a pipeline's hand returned
                                   non-zero, or read returned -1 with errno ECANCELED) */
    GPT2EMBED_E_UNAVAILABLE,    /* a system library the call loads cannot be loaded (LAPACK for
                                   gpt2embed_pca): the message names it and its Debian package */
} gpt2embed_status;

#define GPT2EMBED_NONE ((size_t)-1)   /* no offset / no index */
#define GPT2EMBED_ERROR_MAX 512

/* What went wrong, filled by a failing call (the caller's; may be reused for every call). */
typedef struct gpt2embed_error {
    gpt2embed_status status;         /* as returned */
    size_t offset;                   /* E_UTF8, E_SPECIAL: byte offset in the text (streams:
                                        from the start of the stream); else GPT2EMBED_NONE */
    size_t index;                    /* E_TOKEN_ID: index of the bad ID; batch calls: index of
                                        the failing text; else GPT2EMBED_NONE */
    int errno_value;                 /* E_IO (a failed read included), E_STOPPED by a read: the
                                        errno; else 0 */
    char message[GPT2EMBED_ERROR_MAX]; /* one line, English, NUL-terminated */
} gpt2embed_error;

/* The generic text of a status ("token ID outside the vocabulary"); a static string, also
 * for values outside the enum ("unknown status"). */
GPT2EMBED_API const char *gpt2embed_strerror(gpt2embed_status s);

/* The library's version at run time ("0.3.0"); compare with GPT2EMBED_VERSION_STRING. */
GPT2EMBED_API const char *gpt2embed_version(void);

typedef struct gpt2embed_model gpt2embed_model;
typedef struct gpt2embed_tokenizer gpt2embed_tokenizer;

/* ---- weights ---------------------------------------------------------------------------- */

/* Opens GPT-2 weights (a safetensors file with wte/wpe). path NULL: look for model_name
 * (NULL: "gpt2") as the program does: $GPT2_EMBED_WEIGHTS, weights/<model>.safetensors, the
 * installed data directory, the Hugging Face cache. The file is mapped, not read. *out is the
 * caller's (gpt2embed_model_close); on error *out is NULL. */
GPT2EMBED_API gpt2embed_status gpt2embed_model_open(gpt2embed_model **out, const char *path,
                                                    const char *model_name, gpt2embed_error *err);
GPT2EMBED_API void gpt2embed_model_close(gpt2embed_model *m);   /* accepts NULL */

/* What a safetensors file holds, as `gpt2-embed inspect FILE --format json` prints it: one
 * JSON object on one line, then a newline: {"file", "file_size", "header_len", "data_start",
 * "data_len" (bytes, exact integers), "metadata" (the header's __metadata__, key: value),
 * "tensors" (in storage order, each {"name", "dtype" ("F32", "BF16", "I64"...), "shape",
 * "bytes", "offset" (in the data section), "data_offsets" [begin, end]}), "model" (the
 * GPT-2 model in it: {"size" (a gpt2embed_known_models name, or null), "n_vocab", "n_ctx",
 * "n_embd", "n_layer" (the blocks the file holds, 0 for embeddings only), "prefix" ("" or
 * "transformer."), "wte", "wpe" (the tensors' names), "dtype"}; null, with "model_error"
 * saying why, for a valid file that holds no usable GPT-2 embeddings)}. The file is checked
 * as gpt2embed_model_open checks it; no tensor's values are read. *json is a new string
 * (gpt2embed_free). Errors: GPT2EMBED_E_IO (cannot be opened or read), GPT2EMBED_E_FORMAT (not
 * a valid safetensors file: the message says where), GPT2EMBED_E_NOMEM; then *json is NULL. */
GPT2EMBED_API gpt2embed_status gpt2embed_describe_file(const char *path, char **json, gpt2embed_error *err);

/* Which place gpt2embed_locate_weights found the weights in. */
typedef enum gpt2embed_weights_from {
    GPT2EMBED_FROM_PATH = 0,      /* the path given */
    GPT2EMBED_FROM_ENV = 1,       /* $GPT2_EMBED_WEIGHTS */
    GPT2EMBED_FROM_WORKDIR = 2,   /* weights/<model>.safetensors in the working directory */
    GPT2EMBED_FROM_DATADIR = 3,   /* <data directory>/weights/<model>.safetensors (installed) */
    GPT2EMBED_FROM_HF_CACHE = 4,  /* the Hugging Face hub cache, at the revision asked for */
} gpt2embed_weights_from;

/* Where the weights gpt2embed_model_open would open are, without opening them: path (may be
 * NULL: then $GPT2_EMBED_WEIGHTS, weights/<model>.safetensors, the installed data directory,
 * and the Hugging Face cache's snapshot of the model's repository at revision (NULL: "main";
 * a branch, tag or commit), in that order). A path given, or $GPT2_EMBED_WEIGHTS set, must
 * name a regular file: there is no falling back to the other places. On success *found is a
 * new string (gpt2embed_free) and *from (may be NULL) says which place it is. Errors:
 * GPT2EMBED_E_UNKNOWN_MODEL (model_name not in gpt2embed_known_models), GPT2EMBED_E_NOT_FOUND
 * (the path or $GPT2_EMBED_WEIGHTS names no file; or nothing anywhere: the message lists
 * every place looked), GPT2EMBED_E_ARG (an empty revision), GPT2EMBED_E_NOMEM; *found NULL. */
GPT2EMBED_API gpt2embed_status gpt2embed_locate_weights(const char *path, const char *model_name,
                                                        const char *revision, char **found,
                                                        gpt2embed_weights_from *from,
                                                        gpt2embed_error *err);

/* A model the library knows by name: its Hugging Face repository and the shapes of the
 * published checkpoint (config.json's vocab_size, n_positions, n_embd, n_layer, n_head). */
typedef struct gpt2embed_model_info {
    const char *name;        /* "gpt2": the model_name of gpt2embed_model_open */
    const char *repo;        /* "openai-community/gpt2" */
    size_t n_vocab, n_ctx, n_embd, n_layer, n_head;
} gpt2embed_model_info;

/* The catalogue: *models (may be NULL) points at the library's static array of entries, in
 * the order messages list them (gpt2, gpt2-medium, gpt2-large, gpt2-xl, distilgpt2); returns
 * their count. A file's shapes are checked against the file itself, never taken from here. */
GPT2EMBED_API size_t gpt2embed_known_models(const gpt2embed_model_info **models);

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
                                              size_t first, size_t n, float *out, gpt2embed_error *err);

/* The stored bytes of wte or wpe, without copying: *data points at row 0 inside the file's
 * read-only mapping (writing through it is a crash), rows are *cols elements of *dtype
 * apart, little-endian. The pointer is NOT necessarily aligned (GPT-2's data section starts
 * at byte 14,291): read elements with memcpy in C; numpy handles unaligned arrays. Valid
 * until gpt2embed_model_close; *rows, *cols and *dtype may be NULL. */
GPT2EMBED_API gpt2embed_status gpt2embed_table_data(const gpt2embed_model *m,
                                                    gpt2embed_table which, const void **data,
                                                    size_t *rows, size_t *cols,
                                                    gpt2embed_dtype *dtype, gpt2embed_error *err);

/* ---- tokenizer -------------------------------------------------------------------------- */

/* Opens the tokenizer: vocab.json + merges.txt (or OpenAI's encoder.json + vocab.bpe) in dir;
 * dir NULL looks in $GPT2_EMBED_TOKENIZER, tokenizer/ beside the running executable, the
 * installed data, then uses the copy compiled into the library (a place that holds a corrupt
 * tokenizer is an error, never skipped). *out is the caller's (gpt2embed_tokenizer_close); on
 * error *out is NULL. */
GPT2EMBED_API gpt2embed_status gpt2embed_tokenizer_open(gpt2embed_tokenizer **out,
                                                        const char *dir, gpt2embed_error *err);
GPT2EMBED_API void gpt2embed_tokenizer_close(gpt2embed_tokenizer *t);   /* accepts NULL */
/* Vocabulary size, special token included (50257); 0 if t is NULL. */
GPT2EMBED_API size_t gpt2embed_tokenizer_n_vocab(const gpt2embed_tokenizer *t);
/* Where the vocabulary was read from: the directory (as given or found), or "built-in" for the
 * copy compiled into the library. Valid until gpt2embed_tokenizer_close; NULL if t is NULL. */
GPT2EMBED_API const char *gpt2embed_tokenizer_source(const gpt2embed_tokenizer *t);

/* Tokenizes text[len] (UTF-8; invalid UTF-8 is GPT2EMBED_E_UTF8 naming the byte offset;
 * "<|endoftext|>" becomes ID 50256). On success *ids is a new array of *n IDs, freed with
 * gpt2embed_free (n may be 0, then *ids may be NULL). On error *ids is NULL and *n is 0. */
GPT2EMBED_API gpt2embed_status gpt2embed_tokenize(gpt2embed_tokenizer *t, const char *text,
                                                  size_t len, uint32_t **ids, size_t *n,
                                                  gpt2embed_error *err);

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
                                                     size_t **offsets, size_t *n, gpt2embed_error *err);

/* The bytes of ids[0..n) concatenated into a new buffer *text of *len bytes plus a NUL
 * (gpt2embed_free). The bytes need not be valid UTF-8: a token may end inside a character.
 * GPT2EMBED_E_TOKEN_ID names the first bad ID and its index (then *text is NULL). */
GPT2EMBED_API gpt2embed_status gpt2embed_decode(const gpt2embed_tokenizer *t,
                                                const uint32_t *ids, size_t n, char **text,
                                                size_t *len, gpt2embed_error *err);

/* Into the caller's buffer, allocating nothing once the tokenizer's context is warm:
 * *n = the number of tokens of text[len] (set on success and on GPT2EMBED_E_BUFFER), and
 * ids[0 .. min(cap, *n)) written; GPT2EMBED_E_BUFFER when *n > cap (call again with a
 * buffer of *n). offsets may be NULL, else it has room for cap + 1 values and receives the
 * byte offsets as gpt2embed_tokenize_ex gives them (offsets[*n] == len when *n <= cap).
 * flags as gpt2embed_tokenize_ex. ids may be NULL when cap is 0 (a count only). */
GPT2EMBED_API gpt2embed_status gpt2embed_tokenize_into(gpt2embed_tokenizer *t, const char *text,
                                                       size_t len, unsigned flags, uint32_t *ids,
                                                       size_t *offsets, size_t cap, size_t *n,
                                                       gpt2embed_error *err);

/* The n_texts texts texts[i][0 .. lens[i]) at once, over n_threads threads (0: as many as
 * gpt2embed_cpu_count(); never more than there are texts, nor than 64), each text tokenized
 * exactly as gpt2embed_tokenize_ex would (flags alike). On success *ids is one new array
 * (gpt2embed_free; NULL when there are no IDs) holding every text's IDs one after another,
 * and counts[i] (the caller's array of n_texts) how many are text i's. The first text that
 * fails fails the call: err->index names it (err->offset the byte in it), *ids is NULL. */
GPT2EMBED_API gpt2embed_status gpt2embed_tokenize_batch(gpt2embed_tokenizer *t, size_t n_texts,
                                                        const char *const *texts,
                                                        const size_t *lens, unsigned flags,
                                                        unsigned n_threads, uint32_t **ids,
                                                        size_t *counts, gpt2embed_error *err);

/* How a text stands against a context of n_ctx tokens (GPT-2's 1024). */
typedef struct gpt2embed_count_info {
    size_t n_tokens;            /* tokens of the text */
    size_t n_chars;             /* characters (code points; lossy: a replaced sequence is one) */
    size_t n_ctx;               /* the context asked about */
    size_t ctx_end_byte;        /* where token n_ctx ends (exclusive); len when it all fits */
    size_t ctx_end_char;        /* characters wholly before ctx_end_byte */
    int ctx_end_splits_char;    /* 1: token n_ctx ends inside a character (bytes of it on
                                   both sides, common in Japanese); else 0 */
} gpt2embed_count_info;

/* Counts text[len] (flags as gpt2embed_tokenize_ex: <|endoftext|> one token, text or
 * refused) against n_ctx (> 0) into *out. Bad UTF-8 or a refused special token: err->offset
 * is its byte. */
GPT2EMBED_API gpt2embed_status gpt2embed_count(gpt2embed_tokenizer *t, const char *text,
                                               size_t len, unsigned flags, size_t n_ctx,
                                               gpt2embed_count_info *out, gpt2embed_error *err);

/* What gpt2embed_count_ex and gpt2embed_count_stream add to gpt2embed_count_info: the bytes,
 * the repairs of lossy input, and where the context ends as a person finds it in the text. */
#define GPT2EMBED_SNIPPET_MAX 256
typedef struct gpt2embed_count_detail {
    size_t n_bytes;             /* the text's bytes (a stream's: all it read) */
    size_t n_replaced;          /* GPT2EMBED_LOSSY: ill-formed sequences read as U+FFFD; else 0 */
    size_t n_words;             /* its words, as gpt2embed_english_words counts them */
    int english;                /* gpt2embed_english_words's *english: 1 when they are English */
    /* when n_tokens > n_ctx (else 0, 0 and ""): the first character not wholly inside the
     * context, its 1-based line (lines end at '\n') and column (in characters) */
    size_t ctx_end_line, ctx_end_column;
    /* up to 24 characters before and 12 after ctx_end_byte, joined by '|', "…" where the text
     * goes on, a newline as "\n", other controls and bad bytes as "\xNN"; a character the cut
     * splits shown on both sides with its bytes on that side ("角 (1-2/3)|角 (3/3)");
     * NUL-terminated UTF-8 */
    char ctx_end_snippet[GPT2EMBED_SNIPPET_MAX];
} gpt2embed_count_detail;

/* gpt2embed_count on up to n_threads threads (gpt2embed_tokenize_batch's rule; a text shorter
 * than a few chunks of 64 KB runs on one), with *detail filled too when detail is not NULL.
 * The numbers never depend on the thread count. */
GPT2EMBED_API gpt2embed_status gpt2embed_count_ex(gpt2embed_tokenizer *t, const char *text, size_t len,
                                                  unsigned flags, size_t n_ctx, unsigned n_threads,
                                                  gpt2embed_count_info *out,
                                                  gpt2embed_count_detail *detail,
                                                  gpt2embed_error *err);

/* What one distinct character of a text costs in tokens (gpt2embed_char_costs). */
typedef struct gpt2embed_char_cost {
    char bytes[4];              /* the character's bytes (n_bytes of them, not NUL-terminated) */
    uint8_t n_bytes;            /* 1..4 */
    int32_t code_point;         /* its code point, or -1 for an ill-formed sequence (lossy) */
    size_t first;               /* the byte offset of its first occurrence */
    size_t count;               /* occurrences */
    double tokens;              /* its cost in all: a token of b bytes gives 1/b to each of its
                                   bytes, a character costs what its bytes got (犬 as three
                                   one-byte tokens: 3 per occurrence) */
} gpt2embed_char_cost;

/* Which characters of text[len] cost the most tokens: text tokenized as gpt2embed_tokenize_ex
 * would (flags alike) on up to n_threads threads, then every distinct character's cost. The
 * costs of all characters add up to the number of tokens. *costs is a new array of *n rows
 * (gpt2embed_free; NULL for an empty text), costliest first (then by cost per occurrence,
 * then by first occurrence). Errors: the tokenizer's (E_UTF8 with err->offset ...),
 * GPT2EMBED_E_NOMEM; then *costs is NULL and *n 0. */
GPT2EMBED_API gpt2embed_status gpt2embed_char_costs(gpt2embed_tokenizer *t, const char *text, size_t len,
                                                    unsigned flags, unsigned n_threads,
                                                    gpt2embed_char_cost **costs, size_t *n,
                                                    gpt2embed_error *err);

/* Streaming: read(read_user, buf, cap) fills buf with up to cap bytes of the input and returns
 * how many (0: the end). A read that returns -1 ends the stream and is not called again:
 * GPT2EMBED_E_STOPPED when it set errno to ECANCELED (how a read callback cancels), else
 * GPT2EMBED_E_IO (EINTR included: retrying is the callback's choice), with errno_value.
 * emit(emit_user, ids, n) receives the IDs in order, in pieces (ids valid during the call
 * only); a non-zero return stops the run with GPT2EMBED_E_STOPPED. The input is cut where GPT-2's pre-tokenizer is sure to cut, so the IDs
 * are exactly those of the whole input tokenized at once. Memory: about n_threads x 2 MB plus
 * the longest run of text without such a cut point (a text with no whitespace at all is held
 * whole, as its BPE needs it). n_threads as gpt2embed_tokenize_batch's. Errors in the text
 * (E_UTF8, E_SPECIAL) have err->offset from the start of the stream; IDs of the text before
 * the error may already have been emitted. read and emit are never called at the same time
 * (one call of either at a time, emit in input order), but with n_threads > 1 they may be
 * called from the threads the call starts rather than from the calling thread. */
typedef ptrdiff_t (*gpt2embed_read_fn)(void *read_user, char *buf, size_t cap);
typedef int (*gpt2embed_emit_fn)(void *emit_user, const uint32_t *ids, size_t n);
GPT2EMBED_API gpt2embed_status gpt2embed_tokenize_stream(gpt2embed_tokenizer *t,
                                                         gpt2embed_read_fn read, void *read_user,
                                                         unsigned flags, unsigned n_threads,
                                                         gpt2embed_emit_fn emit, void *emit_user,
                                                         gpt2embed_error *err);

/* gpt2embed_count_ex for a text of any length read through read (gpt2embed_tokenize_stream's callback
 * and rules: -1 with errno ECANCELED cancels), strict UTF-8 with <|endoftext|> the special
 * token (flags must be 0): memory stays bounded (the stream's, and the text up to a little
 * past where the context ends). Offsets are from the start of the stream. Errors as
 * gpt2embed_tokenize_stream's, and gpt2embed_count's. */
GPT2EMBED_API gpt2embed_status gpt2embed_count_stream(gpt2embed_tokenizer *t, gpt2embed_read_fn read,
                                                      void *read_user, unsigned flags, size_t n_ctx,
                                                      unsigned n_threads, gpt2embed_count_info *out,
                                                      gpt2embed_count_detail *detail,
                                                      gpt2embed_error *err);

/* ---- the stream with its options: documents, progress, totals ----
 *
 * gpt2embed_tokenize_stream with more to say: documents cut at a separator, the IDs handed
 * on with where each document starts, a progress callback, and totals. The input is read
 * and cut as gpt2embed_tokenize_stream reads it (its memory bound, its rules for read, its
 * errors); gpt2embed_tokenize_stream is this call with no separator.
 *
 * Documents: the whole input is one; with a separator (separator_len > 0) the pieces between
 * its occurrences (found left to right, not overlapping, removed from the text) are, each
 * tokenized alone; a separator that ends the input starts no document; an empty input is one
 * empty document. emit(emit_user, ids, n, starts, n_starts) receives the IDs in input order:
 * ids[0..n) follow the ones before, and a document starts before ids[starts[i]] for each
 * i < n_starts (increasing; starts[i] may be n: the next call's first ID starts it); the
 * arrays are valid during the call only; a non-zero return stops the run (E_STOPPED). read,
 * emit and progress are never called at the same time; with n_threads > 1 they may be
 * called from the threads the call starts. A callback may call the library on the same
 * tokenizer (re-entry is safe: nothing waits for a context). */
typedef int (*gpt2embed_docs_fn)(void *emit_user, const uint32_t *ids, size_t n, const size_t *starts,
                                 size_t n_starts);

typedef struct gpt2embed_stream_opts {
    /* in */
    gpt2embed_read_fn read;       /* the input (gpt2embed_tokenize_stream's callback) */
    void *read_user;
    unsigned flags;               /* GPT2EMBED_SPECIAL_TEXT / _ERROR, GPT2EMBED_LOSSY */
    unsigned n_threads;           /* as gpt2embed_tokenize_batch's */
    const char *separator;        /* documents' separator, or NULL (one document) */
    size_t separator_len;
    gpt2embed_docs_fn emit;
    void *emit_user;
    /* after each piece handed on: the input's bytes and the tokens so far; or NULL */
    void (*progress)(void *progress_user, uint64_t bytes, uint64_t tokens);
    void *progress_user;
    /* out (set on success, and as far as the run got on an error) */
    uint64_t n_bytes, n_tokens, n_docs;
    uint64_t n_eot_text;          /* GPT2EMBED_SPECIAL_TEXT: "<|endoftext|>" read as ordinary text
                                     inside the documents (not overlapping a separator); else 0 */
} gpt2embed_stream_opts;

/* Tokenizes o's input to its end. Errors: gpt2embed_tokenize_stream's, GPT2EMBED_E_ARG (NULL
 * read or emit, separator_len > 0 with a NULL separator), GPT2EMBED_E_TOO_LARGE (more than
 * 64 MiB without a place to cut). */
GPT2EMBED_API gpt2embed_status gpt2embed_tokenize_stream_ex(gpt2embed_tokenizer *t, gpt2embed_stream_opts *o,
                                                            gpt2embed_error *err);

/* ---- a large text on threads, whole ---- */

/* gpt2embed_tokenize_ex with a thread count and what a lossy reading repaired: a text of a
 * megabyte or more is cut at safe cuts (gpt2embed_text_cuts) into chunks that n_threads
 * threads tokenize (gpt2embed_tokenize_batch's rule), the IDs and offsets exactly those of
 * the text tokenized whole on one thread. *n_replaced (may be NULL): with GPT2EMBED_LOSSY the
 * ill-formed sequences read as U+FFFD, else 0. Errors and ownership as gpt2embed_tokenize_ex's;
 * gpt2embed_tokenize_ex is this call on one thread. */
GPT2EMBED_API gpt2embed_status gpt2embed_tokenize_threads(gpt2embed_tokenizer *t, const char *text, size_t len,
                                                          unsigned flags, unsigned n_threads, uint32_t **ids,
                                                          size_t **offsets, size_t *n, size_t *n_replaced,
                                                          gpt2embed_error *err);

/* Where text[len] may be cut so that its pieces, tokenized alone, give exactly the IDs of
 * the whole (a whitespace character after a non-whitespace one: GPT-2's pre-tokenizer always
 * cuts there), in chunks of about chunk_bytes (0: GPT2EMBED_CHUNK), smaller towards the end
 * when n_threads > 1 so that threads finish together. *cuts is a new array (gpt2embed_free) of
 * *n_chunks + 1 offsets, chunk k being text[(*cuts)[k] .. (*cuts)[k + 1]), (*cuts)[0] == 0 and
 * (*cuts)[*n_chunks] == len (an empty text: one empty chunk). Only the whitespace of valid
 * UTF-8 is looked for: invalid input still gets cuts, and its chunks fail as the whole would.
 * Errors: GPT2EMBED_E_ARG (NULL text with len > 0, NULL cuts or n_chunks), GPT2EMBED_E_NOMEM. */
#define GPT2EMBED_CHUNK ((size_t)64 << 10)
GPT2EMBED_API gpt2embed_status gpt2embed_text_cuts(const char *text, size_t len, size_t chunk_bytes,
                                                   unsigned n_threads, size_t **cuts, size_t *n_chunks,
                                                   gpt2embed_error *err);

/* ---- an ordered pipeline of the caller's items over one tokenizer ----
 *
 * What the program's writers run on: items taken one at a time in order (take), worked on by
 * several threads at once (work, each with a worker: a tokenizer context of its own), and
 * handed on strictly in order (hand), each as soon as the ones before it are, so output can
 * be written while later items are still being worked on. Memory stays bounded: at most
 * n_slots items are in flight, each in a slot of slot_size bytes that the call allocates
 * (zeroed, aligned to 128 bytes, reused for items k, k + n_slots, ...: what a slot's buffers
 * grew to stays for the next item). */
typedef struct gpt2embed_worker gpt2embed_worker;

typedef struct gpt2embed_pipeline {
    /* in */
    void *user;
    size_t slot_size;             /* bytes of a slot, or 0 (no slots: slot is NULL) */
    /* makes item k in slot (one call at a time, in order k = 0, 1, ...; it may block, e.g.
     * on a read): 0, or non-zero when there is no item k (the end of the input, or an error
     * the caller keeps: items before k are still worked on and handed on) */
    int (*take)(void *user, size_t k, void *slot);
    /* works on item k (on any of the run's threads, several items at once) */
    void (*work)(void *user, size_t k, void *slot, gpt2embed_worker *w);
    /* hands item k on (one call at a time, in order): 0, or non-zero to stop the run: no
     * later item is handed on, and the call returns GPT2EMBED_E_STOPPED; may be NULL */
    int (*hand)(void *user, size_t k, void *slot);
    /* each slot once when the run ends (free what its buffers hold), or NULL */
    void (*release)(void *user, void *slot);
    /* out: set before the first take */
    size_t n_slots;               /* items in flight at most: 4 per thread, 1 on one thread */
    unsigned n_threads;           /* the threads the run has (gpt2embed_threads_for, or fewer
                                     when the tokenizer's contexts are busy: never waits) */
} gpt2embed_pipeline;

/* Runs p's items 0 .. n_items - 1 (GPT2EMBED_NONE: until take says there are no more) on up
 * to n_threads threads (gpt2embed_threads_for(n_threads, n_items); the calling thread is one
 * of them), and returns when every item taken is handed on (or the run stopped). take and
 * hand are never called at the same time as themselves, but take, work and hand may run at
 * once on different threads. The callbacks may call the library on the same tokenizer,
 * a pipeline included (nothing waits for a context); they must not return by longjmp.
 * Errors: GPT2EMBED_E_ARG (NULL t, p, take or work), GPT2EMBED_E_STOPPED (hand returned
 * non-zero: err->index is the item), GPT2EMBED_E_NOMEM (nothing run). */
GPT2EMBED_API gpt2embed_status gpt2embed_pipeline_run(gpt2embed_tokenizer *t, gpt2embed_pipeline *p,
                                                      size_t n_items, unsigned n_threads, gpt2embed_error *err);

/* Which worker of the run w is: 0 (the calling thread) .. n_threads - 1. */
GPT2EMBED_API unsigned gpt2embed_worker_index(const gpt2embed_worker *w);

/* Tells w's context that the run tokenizes an input of about `bytes` bytes in all
 * (GPT2EMBED_NONE: unbounded): from a megabyte on, its caches are made large enough for a
 * whole corpus's vocabulary once, instead of growing as they fill. The IDs never change. */
GPT2EMBED_API void gpt2embed_worker_expect(gpt2embed_worker *w, size_t bytes);

/* text[len] tokenized on w's context, as gpt2embed_tokenize_ex would (flags alike, no
 * offsets): *ids points at w's own array of *n IDs, valid until w's next tokenize call or the
 * end of the work call (copy what must outlive it). Errors as gpt2embed_tokenize_ex's (then
 * *ids is NULL and *n 0). */
GPT2EMBED_API gpt2embed_status gpt2embed_worker_tokenize(gpt2embed_worker *w, const char *text, size_t len,
                                                         unsigned flags, const uint32_t **ids, size_t *n,
                                                         gpt2embed_error *err);

/* n_texts texts one after another in one buffer, text k being text[ends[k - 1] .. ends[k])
 * (ends[-1] is 0; ends never decrease), each tokenized alone as gpt2embed_worker_tokenize
 * would, at the per-text cost of small batches (JSON Lines' texts): their IDs one text after
 * another in w's array *ids (valid as gpt2embed_worker_tokenize's), counts[k] text k's
 * count, and statuses[k] (may be NULL) its status (GPT2EMBED_OK, or the text's error: then
 * counts[k] is 0; tokenize that text alone for its message). The bytes after a text are read
 * (all lie inside text[0 .. ends[n_texts - 1])). Errors: GPT2EMBED_E_ARG, GPT2EMBED_E_NOMEM;
 * a bad text is not the call's error: with statuses NULL, the call fails with the first bad
 * text's status (err->index names it; tokenize it alone for its message). */
GPT2EMBED_API gpt2embed_status gpt2embed_worker_tokenize_many(gpt2embed_worker *w, const char *text,
                                                              const size_t *ends, size_t n_texts, unsigned flags,
                                                              const uint32_t **ids, size_t *counts,
                                                              gpt2embed_status *statuses, gpt2embed_error *err);

#define GPT2EMBED_TOKEN_EOT 50256u  /* <|endoftext|>, GPT-2's only special token */

/* The bytes of token id without allocating: *bytes points into the tokenizer (valid until
 * gpt2embed_tokenizer_close), *len bytes (not NUL-terminated; "<|endoftext|>" for EOT).
 * GPT2EMBED_E_TOKEN_ID for id >= n_vocab. */
GPT2EMBED_API gpt2embed_status gpt2embed_token_bytes(const gpt2embed_tokenizer *t, uint32_t id,
                                                     const uint8_t **bytes, size_t *len,
                                                     gpt2embed_error *err);

/* The CPUs this process may run on: those of sched_getaffinity, capped by the cgroup v2
 * quota (cpu.max) of the process's cgroup, at least 1. */
GPT2EMBED_API unsigned gpt2embed_cpu_count(void);

#define GPT2EMBED_THREADS_MAX 64u   /* the most threads any call starts */

/* The one thread cap of every call that takes n_threads: the threads such a call runs
 * n_items items on (texts of a batch): n_threads (0: gpt2embed_cpu_count()), at most
 * GPT2EMBED_THREADS_MAX and n_items, at least 1. The Python module sizes its own helper
 * threads with it. */
GPT2EMBED_API unsigned gpt2embed_threads_for(unsigned n_threads, size_t n_items);

/* ---- the embedding stage ---------------------------------------------------------------- */

/* x[t] = wte[ids[t]] + wpe[start + t] for t < n, into out[n * n_embd] (the caller's).
 * GPT2EMBED_E_TOKEN_ID if an ID is >= n_vocab, GPT2EMBED_E_CONTEXT if start + n > n_ctx;
 * then nothing useful is written. */
GPT2EMBED_API gpt2embed_status gpt2embed_embed(const gpt2embed_model *m, const uint32_t *ids,
                                               size_t n, size_t start, float *out, gpt2embed_error *err);

typedef enum gpt2embed_pe {
    GPT2EMBED_PE_LEARNED = 0,     /* wpe rows from the weights (the model's own) */
    GPT2EMBED_PE_SINUSOIDAL = 1,  /* the original Transformer's encoding, width n_embd, base 10000 */
} gpt2embed_pe;

/* As gpt2embed_embed with a choice of position encoding: x[t] = wte[ids[t]] + P(start + t);
 * sinusoidal positions go up to 2^53 (no n_ctx limit), values as gpt2embed_sinusoidal. */
GPT2EMBED_API gpt2embed_status gpt2embed_embed_pe(const gpt2embed_model *m, const uint32_t *ids,
                                                  size_t n, size_t start, gpt2embed_pe pe,
                                                  float *out, gpt2embed_error *err);

#define GPT2EMBED_SINUSOIDAL_MAX_POS ((uint64_t)1 << 53) /* positions past it are not exact */
#define GPT2EMBED_PE_SCALE_MAX 1e6   /* the largest scale of the sinusoidal encoding */

/* The embedding stage with its parts: for t < n, tok[t] = wte[ids[t]], pos[t] = P(start + t)
 * and sum[t] = tok[t] + pos[t] (one float32 addition per element, as gpt2embed_embed_pe), into
 * the caller's arrays of n * n_embd floats each; any of them may be NULL (all three NULL: the
 * checks alone, nothing written). With GPT2EMBED_PE_SINUSOIDAL, P is the encoding times
 * pe_scale, each value computed in double (the sine or cosine times pe_scale) and rounded
 * once to float32 (numpy's np.float32(pe64 * s)); pe_scale 1.0 gives gpt2embed_sinusoidal's
 * bits. Learned positions take pe_scale 1.0 only (wpe's rows are the weights' own). Errors
 * as gpt2embed_embed_pe's (the IDs first, then the positions), GPT2EMBED_E_ARG for a scale
 * that is not finite, not > 0, above GPT2EMBED_PE_SCALE_MAX or given with learned positions;
 * then nothing useful is written. Rows are made one at a time: a caller that streams its
 * output asks for a few rows per call. */
GPT2EMBED_API gpt2embed_status gpt2embed_embed_ex(const gpt2embed_model *m, const uint32_t *ids, size_t n,
                                                  size_t start, gpt2embed_pe pe, double pe_scale,
                                                  float *sum, float *tok, float *pos,
                                                  gpt2embed_error *err);

/* Sliding windows over n_tokens tokens, for a text longer than the context: windows of at
 * most `window` tokens starting every `stride` tokens (overlap window - stride), each
 * embedded from position 0; window k covers tokens [k * stride, min(k * stride + window,
 * n_tokens)) and the last one ends at the last token. *n_windows (0 for no tokens, 1 when
 * n_tokens <= window) and *padding (may be NULL): the zero rows that bring the last window to
 * `window` rows, so that every window is a (window, n_embd) array. GPT2EMBED_E_ARG for a
 * stride outside 1..window, or more than 2^20 rows of padding (a window far longer than the
 * text: the message says so). */
GPT2EMBED_API gpt2embed_status gpt2embed_windows(size_t n_tokens, size_t window, size_t stride,
                                                 size_t *n_windows, size_t *padding,
                                                 gpt2embed_error *err);

/* The sinusoidal encoding of positions [start, start + n), width dim (even, > 0), into
 * out[n * dim] float32: PE(p, 2i) = sin(p / base^(2i/dim)), PE(p, 2i+1) = cos(...), computed
 * in double and rounded once (base 10000 is the paper's; base must be finite and > 1).
 * GPT2EMBED_E_ARG for an odd/zero dim or a bad base, GPT2EMBED_E_CONTEXT past 2^53. */
#define GPT2EMBED_SINUSOID_BASE 10000.0  /* the paper's base */
#define GPT2EMBED_SINUSOID_MAX_DIM ((size_t)1 << 20)  /* the widest encoding computed */
GPT2EMBED_API gpt2embed_status gpt2embed_sinusoidal(size_t start, size_t n, size_t dim,
                                                    double base, float *out, gpt2embed_error *err);

/* The article's dot curve of the sinusoidal encoding of width dim: out[j] = PE(0)·PE(from + j)
 * for j = 0 .. to - from (to inclusive), in double, into the caller's out[to - from + 1].
 * Errors: GPT2EMBED_E_ARG (dim, base as gpt2embed_sinusoidal's), GPT2EMBED_E_CONTEXT (from >
 * to, or to past 2^53), GPT2EMBED_E_TOO_LARGE ((to - from + 1) x dim above 2^32). */
GPT2EMBED_API gpt2embed_status gpt2embed_sinusoid_dot_curve(uint64_t from, uint64_t to, size_t dim,
                                                            double base, double *out,
                                                            gpt2embed_error *err);

/* The encoding's rotation property, measured: for every pos < n_pos, k < n_k and pair i of
 * width dim, (PE(pos, 2i), PE(pos, 2i+1)) rotated by the angle ω_i·k (ω_i = base^(-2i/dim)) is
 * compared with (PE(pos + k, 2i), PE(pos + k, 2i+1)); *max_err receives the largest absolute
 * difference of any component, and *at_pos, *at_k, *at_pair (each may be NULL) where it
 * occurred. Errors: as gpt2embed_sinusoidal's, GPT2EMBED_E_CONTEXT (n_pos or n_k 0, or pos +
 * k past 2^53), GPT2EMBED_E_TOO_LARGE (n_pos x n_k x dim/2 above 2^32), GPT2EMBED_E_NOMEM. */
GPT2EMBED_API gpt2embed_status gpt2embed_sinusoid_check_rotation(size_t dim, double base, uint64_t n_pos,
                                                                 uint64_t n_k, double *max_err,
                                                                 uint64_t *at_pos, uint64_t *at_k,
                                                                 size_t *at_pair, gpt2embed_error *err);

/* Similarity by distance: for d = 0 .. max_d, the mean over p in [0, len - d) of cos(P(p),
 * P(p + d)) of positions 0 .. len - 1, computed from the vectors themselves (in double), so
 * that the fixed and the learned encodings are measured the same way.
 *   gpt2embed_sinusoid_by_distance: P the sinusoidal encoding of width dim into out[max_d + 1];
 *     errors as gpt2embed_sinusoidal's, GPT2EMBED_E_CONTEXT (len 0, max_d >= len),
 *     GPT2EMBED_E_TOO_LARGE (len x (max_d + 1) x dim above 2^36 steps), GPT2EMBED_E_NOMEM.
 *   gpt2embed_wpe_by_distance: P the model's wpe rows (float32), 1 <= len <= n_ctx, into
 *     mean[max_d + 1] and, when sd is not NULL, the population standard deviations sd[max_d +
 *     1]; GPT2EMBED_E_ARG (len outside 1..n_ctx, max_d >= len), GPT2EMBED_E_ZERO_VECTOR (a zero
 *     row), GPT2EMBED_E_NOMEM (it holds the len x len cosine matrix). */
GPT2EMBED_API gpt2embed_status gpt2embed_sinusoid_by_distance(size_t len, size_t dim, double base,
                                                              size_t max_d, double *out,
                                                              gpt2embed_error *err);
GPT2EMBED_API gpt2embed_status gpt2embed_wpe_by_distance(const gpt2embed_model *m, size_t len,
                                                         size_t max_d, double *mean, double *sd,
                                                         gpt2embed_error *err);

/* cos(a, b) of two float32 vectors of length n, accumulated in double, into *out.
 * GPT2EMBED_E_ZERO_VECTOR if either is all zeros (never a silent NaN). */
GPT2EMBED_API gpt2embed_status gpt2embed_cosine(const float *a, const float *b, size_t n,
                                                double *out, gpt2embed_error *err);

/* The cosine matrix of the R rows of X (R, C) float32 into out (R, R) double (the caller's).
 * GPT2EMBED_E_ZERO_VECTOR names the first zero row. */
GPT2EMBED_API gpt2embed_status gpt2embed_cosine_matrix(const float *X, size_t R, size_t C,
                                                       double *out, gpt2embed_error *err);

/* The scale of wte or wpe (gpt2embed_table_stats). */
typedef struct gpt2embed_stats {
    size_t rows, cols;                      /* the table's shape */
    double norm_mean, norm_min, norm_max;   /* over the rows' L2 norms */
    size_t argmin, argmax;                  /* the rows of the smallest and largest norm */
    double mean_abs;                        /* mean |x| over all elements */
    double mean, std;                       /* over all elements (std: the population's) */
    size_t top[10];                         /* the rows of the largest norms, largest first */
    double top_norm[10];
    size_t n_top;                           /* min(10, rows) */
} gpt2embed_stats;

/* The scale of wte or wpe into *out, from one pass over the table's rows (read as float32,
 * summed in double). A table holding a NaN or an infinity gives NaN or infinite sums (its
 * norms' minimum and maximum then describe the other rows). Errors: GPT2EMBED_E_ARG (another
 * table value), GPT2EMBED_E_NOMEM. */
GPT2EMBED_API gpt2embed_status gpt2embed_table_stats(const gpt2embed_model *m, gpt2embed_table which,
                                                     gpt2embed_stats *out, gpt2embed_error *err);

/* A row of wte and its cosine with a query (gpt2embed_nearest). */
typedef struct gpt2embed_hit {
    uint32_t id;                /* the token (row of wte) */
    double cos;                 /* cos(query, wte[id]), accumulated in double */
} gpt2embed_hit;

#define GPT2EMBED_NO_ID UINT32_MAX  /* gpt2embed_nearest's exclude: leave no row out */

/* The k rows of wte nearest by cosine to q[n_embd] (float32), best first (ties: the lower
 * ID first), into hits[k] (the caller's); *n_hits = how many were filled (k, or fewer when
 * fewer rows have a cosine). Row `exclude` is left out (GPT2EMBED_NO_ID: none; the query's
 * own token, to ask for its neighbours). Rows of norm 0 or holding a NaN or an infinity have
 * no cosine and are skipped. One pass over wte (read as float32), nothing allocated but one
 * row. Errors: GPT2EMBED_E_ZERO_VECTOR (q is all zeros), GPT2EMBED_E_ARG (q holds a NaN or an
 * infinity; k is 0 or more than n_vocab). */
GPT2EMBED_API gpt2embed_status gpt2embed_nearest(const gpt2embed_model *m, const float *q, size_t k,
                                                 uint32_t exclude, gpt2embed_hit *hits, size_t *n_hits,
                                                 gpt2embed_error *err);

/* Frees memory the library returned (IDs, offsets, decoded text). Accepts NULL. */
GPT2EMBED_API void gpt2embed_free(void *p);

/* ---- the course: chapter 4 (position embeddings) as numbers ----------------------------
 *
 * The lessons of the Japanese Transformer course's chapter on position embeddings, as the
 * program teaches them and the Python module shows them (gpt2embed.course): each call
 * computes with the same library function as the program's command and returns the same
 * JSON document the command prints with --format json, written by the same code, so the
 * numbers are one set wherever they are read. Numbers are written at full precision
 * (%.17g: doubles read back bit for bit), with the C library's printf: a host that set
 * LC_NUMERIC to a locale whose decimal point is not '.' gets that character. On success
 * *json is a new NUL-terminated UTF-8 string (gpt2embed_free); on error it is NULL.
 *
 * With GPT2EMBED_COURSE_SAYS in flags the document ends with "says": an array of the lines
 * the program prints after the numbers, each chosen by the numbers (weights whose numbers say
 * the opposite get the opposite sentence), in the language of the translator installed with
 * gpt2embed_set_translator (English without one).
 *
 * Threads: as the rest of the library (a model and a tokenizer may be shared); the calls
 * start no thread. */
#define GPT2EMBED_COURSE_SAYS 1u

/* The host's translation of what the library writes for a person: error messages, and the
 * course's sentences. translate(msgid) receives an English msgid of the gettext catalogue
 * gpt2-embed (a printf format: the translation must keep its conversions, in order or
 * numbered as %2$s), or "CONTEXT\004msgid" for a word with a context (gettext's msgctxt),
 * and returns its translation, or msgid itself (or NULL) when there is none. The string it
 * returns must stay valid while the library may use it (a catalogue kept for the process's
 * life). NULL removes the translator. It may be called from any thread the library runs in,
 * at any time; gpt2embed_set_translator itself may be called at any time (a call in flight
 * keeps the translator it found). The library translates nothing by itself. */
typedef const char *(*gpt2embed_translate_fn)(const char *msgid);
GPT2EMBED_API void gpt2embed_set_translator(gpt2embed_translate_fn translate);

/* Which exercises gpt2embed_course_exercise computes (a bit set). */
#define GPT2EMBED_EXERCISE_1 1u   /* parameters of a position-embedding matrix */
#define GPT2EMBED_EXERCISE_2 2u   /* cosines of wpe rows and of " cat" at two positions */

/* The chapter's exercises, as `gpt2-embed exercise --format json` prints them:
 *   "exercise1": {gpt2_wpe_params (1024 x 768), wpe_params (ctx x dim), ratio, ctx, dim,
 *                 file_wpe_params, file_wte_params (with a model)}
 *   "exercise2": {wpe_shape [n_ctx, n_embd], cos_pos0_pos1, cos_pos0_pos500 (when wpe has a
 *                 row 500), far_pos (500, or the last position of a shorter wpe),
 *                 cos_pos0_far, cat_token_id, cos_cat_pos0_pos5 (cos(wte[cat] + wpe[0],
 *                 wte[cat] + wpe[5])), median_random_token_pairs and random_pairs (the median
 *                 cosine of 1000 random token pairs drawn from a fixed seed, when any could be
 *                 drawn), weights (the file)}
 * Cosines are accumulated in double from float32 rows. which: GPT2EMBED_EXERCISE_* bits;
 * exercise 2 needs m and t (the ID of " cat"); exercise 1 uses m (may be NULL) for the file's
 * counts. ctx, dim: exercise 1's other model (the chapter's 4096 x 4096), 1 .. 2^31 each.
 * Errors: GPT2EMBED_E_ARG (which empty or unknown, exercise 2 without m or t, ctx or dim
 * out of range), GPT2EMBED_E_CONTEXT (a wpe of fewer than 6 positions), GPT2EMBED_E_ZERO_VECTOR
 * (a row without a cosine: the message names which), the model's errors. */
GPT2EMBED_API gpt2embed_status gpt2embed_course_exercise(const gpt2embed_model *m,
                                                         gpt2embed_tokenizer *t, unsigned which,
                                                         uint64_t ctx, uint64_t dim, unsigned flags,
                                                         char **json, gpt2embed_error *err);

/* The order puzzle (犬が猫を追いかけた / 猫が犬を追いかけた), as `gpt2-embed compare A B
 * --format json` prints it: "a" and "b" (text, ids, tokens with their byte offsets and the
 * characters they cover: "char_part" [first, last, of n] bytes of a split character, and
 * labels: each token as the tables show it, "犬 (1/3)"),
 * same_multiset, verdict ("same_sequence", "other_tokens", "indistinguishable",
 * "distinguishable": with positions), "views" {"without_positions" (wte rows),
 * "with_positions" (wte + wpe)}: each {rows_equal (rows of A with a bit-equal row of B, one
 * to one), "attention" (a toy layer softmax(X X^T / sqrt(d)) X, unmasked: perm (the row of
 * A's output that B's output row s equals, or null), outputs_equal, max_diff, gap),
 * "causal" (the same layer with GPT-2's causal mask, row t against row t: equal [n_pos
 * booleans], rows_equal, max_diff, gap)}, moved (a token of A at another place in B: id,
 * pos_a, pos_b, input_cos) or null, same_id, token_cos, input_cos (cos(wte[a_t] + wpe[t],
 * wte[b_t] + wpe[t])) and prefix_same (the same token at t and the same tokens before it),
 * n_pos = min(T_a, T_b) values each; positions_differ. The texts are UTF-8 (<|endoftext|>
 * is ordinary text, as in compare), at most n_ctx tokens each. Errors: GPT2EMBED_E_UTF8 (the
 * offset in err), GPT2EMBED_E_ARG (a text with no tokens), GPT2EMBED_E_CONTEXT,
 * GPT2EMBED_E_ZERO_VECTOR, GPT2EMBED_E_NOMEM. O(T^2 n_embd). */
GPT2EMBED_API gpt2embed_status gpt2embed_course_order(const gpt2embed_model *m,
                                                      gpt2embed_tokenizer *t, const char *a,
                                                      size_t a_len, const char *b, size_t b_len,
                                                      unsigned flags, char **json,
                                                      gpt2embed_error *err);

/* Learned against sinusoidal, as `gpt2-embed sinusoidal --compare-learned --format json`
 * prints it: model, weights, n_ctx, n_embd, len, max_distance, base, and per distance d =
 * 0..max_d ("distance") the mean cosine of positions d apart over positions 0..len-1, of wpe
 * ("learned") and of the sinusoidal encoding of width n_embd ("sinusoidal"). len: 1..n_ctx
 * (0: n_ctx); max_d < len; base finite and > 1 (10000: the paper's). Errors: GPT2EMBED_E_ARG,
 * GPT2EMBED_E_ZERO_VECTOR (a zero wpe row), GPT2EMBED_E_NOMEM. GPT2EMBED_COURSE_SAYS adds
 * nothing here. */
GPT2EMBED_API gpt2embed_status gpt2embed_course_by_distance(const gpt2embed_model *m, size_t len,
                                                            size_t max_d, double base,
                                                            unsigned flags, char **json,
                                                            gpt2embed_error *err);

/* What gpt2embed_course_pair compares. */
#define GPT2EMBED_PAIR_POSITIONS 1u  /* cos(wpe[positions[0]], wpe[positions[1]]) */
#define GPT2EMBED_PAIR_TOKENS 2u     /* cos(wte[tokens[0]], wte[tokens[1]]) */
#define GPT2EMBED_PAIR_AT 3u         /* one token at two positions: cos(wte[tokens[0]] +
                                        wpe[positions[0]], wte[tokens[0]] + wpe[positions[1]]) */

/* The cosine of a pair of the model's vectors, as `gpt2-embed similarity --pos/--tokens/--at
 * --format json` prints it: {"what": the pair in words ("cos(wte[3797 '␣cat'] + wpe[0], ...)":
 * a token by its ID and its piece made visible), "cos": the cosine (accumulated in double;
 * the inputs of GPT2EMBED_PAIR_AT summed in float32 as the embedding stage sums them)}. With
 * GPT2EMBED_COURSE_SAYS, "says" places it between the median cosine of 1000 random pairs of
 * the same matrix's rows (the course's fixed draw) and 1.0; a file too sparse for a reference
 * says nothing. t gives the tokens' pieces (may be NULL with GPT2EMBED_PAIR_POSITIONS).
 * Errors: GPT2EMBED_E_ARG (another kind, a position outside wpe or a token outside wte: the
 * message names it and the table's rows), GPT2EMBED_E_ZERO_VECTOR (a vector without a
 * cosine: the message begins with the pair), the model's errors. */
GPT2EMBED_API gpt2embed_status gpt2embed_course_pair(const gpt2embed_model *m, const gpt2embed_tokenizer *t,
                                                     unsigned kind, const uint32_t tokens[2],
                                                     const size_t positions[2], unsigned flags,
                                                     char **json, gpt2embed_error *err);

/* The rotation of the sinusoidal encoding: pair i (dimensions 2i, 2i+1) of width dim as the
 * position grows, x[p] = cos(p w_i) = PE(p, 2i+1), y[p] = sin(p w_i) = PE(p, 2i), p = 0..n-1,
 * in double, into the caller's x[n] and y[n]; *omega (may be NULL) = w_i = base^(-2i/dim),
 * the angle it turns per position. pair GPT2EMBED_PAIR_DEFAULT: dim/8, which turns
 * base^(-1/4) (0.1 rad at base 10000) per position, the pair the program draws by default.
 * Errors: GPT2EMBED_E_ARG (odd or zero dim, pair >= dim/2, n > 10^6, bad base). */
#define GPT2EMBED_PAIR_DEFAULT ((size_t)-1)
GPT2EMBED_API gpt2embed_status gpt2embed_sinusoid_pair(size_t n, size_t dim, size_t pair,
                                                       double base, double *x, double *y,
                                                       double *omega, gpt2embed_error *err);

/* Words of text[len] as a reader of English counts them: runs between white space holding an
 * ASCII letter; *english (may be NULL) 1 when ASCII letters are at least 90% of the letters.
 * With gpt2embed_count's tokens, how many words a context holds (`count` says it).
 * gpt2embed_count_ex and gpt2embed_count_stream give the same in their detail, counted on
 * their threads as they read. */
GPT2EMBED_API size_t gpt2embed_english_words(const char *text, size_t len, int *english);

/* ---- principal components of wpe, and RoPE (pca, stats --by-position, rope) -------------
 *
 * The numbers of the program's `pca`, `stats --by-position` and `rope` commands and of the
 * report's sections on them, computed here once: the program prints these structs and
 * arrays, the Python module (gpt2embed.course.pca, .wpe_norms, .rope) hands them over as
 * numpy arrays. Everything is double. Threads: as the rest of the library; the calls start
 * no thread (gpt2embed_pca's BLAS is whatever libblas.so.3 is: Debian's single-threaded
 * OpenBLAS by default). */

/* Whose rows gpt2embed_pca takes apart (gpt2embed_pca_source.of). */
#define GPT2EMBED_PCA_WPE 0         /* the model's wpe: positions skip .. n_ctx - 1 */
#define GPT2EMBED_PCA_WTE 1         /* wte: rows ids[0 .. n_ids), or every row when n_ids is 0 */
#define GPT2EMBED_PCA_SINUSOIDAL 2  /* the sinusoidal encoding: positions skip .. len - 1 of
                                       width dim (even), base (> 1; 10000 the paper's) */

typedef struct gpt2embed_pca_source {
    int of;                   /* GPT2EMBED_PCA_* */
    const uint32_t *ids;      /* GPT2EMBED_PCA_WTE: the rows, in this order (read during the call) */
    size_t n_ids;
    size_t len, dim;          /* GPT2EMBED_PCA_SINUSOIDAL: the (len, dim) matrix */
    double base;
    size_t skip;              /* WPE, SINUSOIDAL: leave out positions 0 .. skip - 1 (1: without
                                 GPT-2's outlier position 0) */
} gpt2embed_pca_source;

/* Principal components of n rows of width d: the rows centred (column means subtracted),
 * their covariance C = Xc^T Xc / (n - 1) (numpy.cov's, ddof 1) taken apart with LAPACK. */
typedef struct gpt2embed_pca_result {
    size_t n, d, k;           /* rows, width, components kept */
    double *row_id;           /* (n,) each row's position (WPE, SINUSOIDAL) or token ID (WTE) */
    double *mean;             /* (d,) the column means subtracted */
    double *variance;         /* (d,) the eigenvalues of C, largest first: the variance along
                                 each component (those below floor are rounding noise and may
                                 be slightly negative) */
    double *ratio;            /* (d,) variance / total: each component's share (0 if total is 0) */
    double *cumulative;       /* (d,) the running sum of ratio */
    double total;             /* trace(C), the total variance */
    double floor;             /* eps * d * the largest |variance|: below it is rounding noise */
    size_t n_signal;          /* leading components above floor (n centred rows have at most n - 1) */
    double *components;       /* (k, d) row-major: unit vectors, largest variance first, each
                                 signed so that its entry of largest magnitude is positive */
    double *proj;             /* (n, k) row-major: (row - mean) . component */
} gpt2embed_pca_result;

/* The principal components of src's rows, keeping k (0 .. d) components and the rows'
 * projections on them, into *out (the library's: gpt2embed_pca_free). m: the model (NULL for
 * GPT2EMBED_PCA_SINUSOIDAL). LAPACKE and BLAS (liblapacke.so.3, libblas.so.3) are loaded on
 * the first call and stay loaded. Errors (*out NULL): GPT2EMBED_E_ARG (an unknown source, k >
 * d, fewer than 2 rows left after skip (the message names the rows), a width or size past the limits: 2^14 columns, 2^28
 * values; a NaN or an infinity in the rows: the message names the row and column),
 * GPT2EMBED_E_TOKEN_ID (an ID >= n_vocab: err.index is its index in ids), GPT2EMBED_E_UNAVAILABLE
 * (LAPACKE or BLAS cannot be loaded: the message names the Debian package),
 * GPT2EMBED_E_NOMEM (also when the address-space limit, ulimit -v, leaves BLAS no room:
 * checked first, since OpenBLAS would otherwise spin for ever); a LAPACK routine that reports
 * a failure is GPT2EMBED_E_ARG naming the routine. */
GPT2EMBED_API gpt2embed_status gpt2embed_pca(const gpt2embed_model *m, const gpt2embed_pca_source *src,
                                             size_t k, gpt2embed_pca_result **out, gpt2embed_error *err);
GPT2EMBED_API void gpt2embed_pca_free(gpt2embed_pca_result *p);   /* accepts NULL */

/* The explained variance of r as `gpt2-embed pca --format json` prints it (the program prints
 * this document): {"of" ("wpe", "wte" or "sinusoidal"), "source" (m's file; "" for the
 * sinusoidal PE), "rows" (n), "cols" (d), "total_variance", "floor", then per component of all
 * d "component" (1..d), "variance", "ratio", "cumulative"}, written from r itself (the same
 * doubles, %.17g: they read back bit for bit). m and src: what r was computed from (m may be
 * NULL for GPT2EMBED_PCA_SINUSOIDAL). *json: a new string ending in a newline (gpt2embed_free;
 * NULL on error). Errors: GPT2EMBED_E_ARG (a NULL r, src, json, arrays of r, or m when src
 * needs it; an unknown source), GPT2EMBED_E_NOMEM. */
GPT2EMBED_API gpt2embed_status gpt2embed_pca_json(const gpt2embed_pca_result *r, const gpt2embed_model *m,
                                                  const gpt2embed_pca_source *src, char **json,
                                                  gpt2embed_error *err);

/* What a reader looks for in the norms of wpe's rows (gpt2embed_wpe_norms): row 0 against
 * the median of rows 1..n-1, the largest and smallest of those, and the spread (mean and
 * coefficient of variation, the population's) of rows 1..split-1 against rows split..n-1
 * (0 where a range is empty). */
#define GPT2EMBED_NORM_SPLIT 100   /* published analyses of GPT-2 small see flat norms after it */
typedef struct gpt2embed_norm_summary {
    size_t n, split;
    double first, median, first_vs_median;  /* norms[0], median of norms[1..n-1], their ratio
                                               (NaN when the median is 0: at least half of rows
                                               1..n-1 are zero vectors, and no ratio is defined) */
    size_t argmax, argmin;                  /* over rows 1..n-1 */
    double max, min;
    double mean_early, cv_early;            /* rows 1 .. split - 1 */
    double mean_late, cv_late;              /* rows split .. n - 1 */
} gpt2embed_norm_summary;

/* The L2 norm of every wpe row (float32 rows, summed in double) into norms[n_ctx] (the
 * caller's), and their summary (split at GPT2EMBED_NORM_SPLIT) into *summary (may be NULL).
 * Errors: GPT2EMBED_E_ARG (NULL m or norms; a wpe of fewer than 2 rows), GPT2EMBED_E_NOMEM. */
GPT2EMBED_API gpt2embed_status gpt2embed_wpe_norms(const gpt2embed_model *m, double *norms,
                                                   gpt2embed_norm_summary *summary,
                                                   gpt2embed_error *err);

/* The norms and their summary as `gpt2-embed stats --by-position --format json` prints them
 * (the program prints this document): {"weights" (the file), "positions" (n_ctx), "norm_0",
 * "median_norm_1_on", "norm_0_vs_median", "split", "mean_before_split", "cv_before_split",
 * "mean_from_split", "cv_from_split" (the summary's), then per position "position", "norm"
 * and "vs_median" (the norm over the median)}; the ratios are null when the median is 0. Numbers and *json as
 * the course's documents' (%.17g; a new string, gpt2embed_free; NULL on error). Errors:
 * gpt2embed_wpe_norms's (GPT2EMBED_E_ARG for a NULL m or json). */
GPT2EMBED_API gpt2embed_status gpt2embed_wpe_norms_json(const gpt2embed_model *m, char **json,
                                                        gpt2embed_error *err);

/* RoPE, the rotary position encoding of RoFormer: a query or key x of even width dim is not
 * added to a position vector; each pair (x[2i], x[2i+1]) is rotated by pos * theta_i,
 * theta_i = base^(-2i/dim) (the sinusoidal encoding's frequencies). Since rotations compose,
 * <R(m)q, R(n)k> = <R(m-n)q, k>. Random unit vectors come from a seeded splitmix64
 * generator: the same numbers on every platform. Errors of every RoPE call: GPT2EMBED_E_ARG
 * (dim zero, odd or past 2^20; base not finite or not > 1; an empty range or no samples;
 * positions past 2^53; a pair past dim/2), GPT2EMBED_E_TOO_LARGE (more than 2^32 rotations
 * asked), GPT2EMBED_E_NOMEM. */

/* The relative check (rope --check-relative): n_pairs random unit q, k with positions m, n
 * uniform in 0..max_pos. */
typedef struct gpt2embed_rope_check {
    size_t pairs;             /* how many (q, k, m, n) were tried */
    double max_dev;           /* the largest |<R(m)q, R(n)k> - <R(m-n)q, k>| */
    uint64_t at_m, at_n;      /* where it occurred */
    double mean_dev;          /* the mean deviation */
    double rounding_bound;    /* what rounding the angles explains: 16 eps (max_pos + 1) */
    int relative;             /* 1: max_dev <= rounding_bound, the score depends on m - n alone */
} gpt2embed_rope_check;
GPT2EMBED_API gpt2embed_status gpt2embed_rope_check_relative(size_t dim, double base, uint64_t max_pos,
                                                             size_t n_pairs, uint64_t seed,
                                                             gpt2embed_rope_check *out,
                                                             gpt2embed_error *err);

/* The dot curve (rope --dot-curve), k = from .. to inclusive into the caller's mean[to - from
 * + 1]: the mean over n_samples random unit q of <R(0)q, R(k)q>, by rotating; expected (may
 * be NULL) its expectation over all directions, (2/dim) sum_i cos(k theta_i). */
GPT2EMBED_API gpt2embed_status gpt2embed_rope_dot_curve(size_t dim, double base, uint64_t from, uint64_t to,
                                                        size_t n_samples, uint64_t seed, double *mean,
                                                        double *expected, gpt2embed_error *err);

/* One pair's path (rope --rotation): the pair (x0, y0) of pair index `pair` (GPT2EMBED_PAIR_DEFAULT:
 * dim/8, which turns about 0.1 rad per position at base 10000) rotated by pos * theta_pair for
 * pos = 0 .. n - 1 into the caller's x[n], y[n]; *theta (may be NULL) = theta_pair. n 1..2^53. */
GPT2EMBED_API gpt2embed_status gpt2embed_rope_rotation(size_t dim, double base, size_t pair, double x0,
                                                       double y0, size_t n, double *x, double *y,
                                                       double *theta, gpt2embed_error *err);

/* The three position schemes the chapter names (rope without a mode): a table of
 * GPT2EMBED_ROPE_SCHEME_ROWS x 4 cells; row 0 the names (column 0 empty), then how each enters,
 * its parameters, its length limit and what the attention score depends on (column 0 the
 * property). The cell's English text, a msgid of the catalogue gpt2-embed (a host shows it
 * translated; "" stays ""); NULL outside the table. A static string. */
#define GPT2EMBED_ROPE_SCHEME_ROWS 5
GPT2EMBED_API const char *gpt2embed_rope_scheme(size_t row, size_t col);

/* The four things `gpt2-embed rope` shows (gpt2embed_rope_params.mode). */
#define GPT2EMBED_ROPE_SCHEMES 0          /* rope without a mode: the schemes, dim, base */
#define GPT2EMBED_ROPE_CHECK_RELATIVE 1   /* rope --check-relative */
#define GPT2EMBED_ROPE_DOT_CURVE 2        /* rope --dot-curve */
#define GPT2EMBED_ROPE_ROTATION 3         /* rope --rotation */

/* What one of them is computed over; a mode reads only its own members (the program's
 * options of the same names; every mode reads dim and base). */
typedef struct gpt2embed_rope_params {
    int mode;                 /* GPT2EMBED_ROPE_* */
    size_t dim;               /* the width of q and k (even) */
    double base;              /* theta_i = base^(-2i/dim) */
    uint64_t max_pos;         /* CHECK_RELATIVE: positions m, n in 0..max_pos */
    size_t pairs;             /* CHECK_RELATIVE: how many (q, k, m, n) */
    uint64_t seed;            /* CHECK_RELATIVE, DOT_CURVE: the random generator's seed */
    uint64_t from, to;        /* DOT_CURVE: offsets from..to */
    size_t samples;           /* DOT_CURVE: random unit q averaged */
    size_t pair;              /* ROTATION: the pair (GPT2EMBED_PAIR_DEFAULT: dim/8) */
    size_t len;               /* ROTATION: positions 0..len-1 */
} gpt2embed_rope_params;

/* The mode's numbers (the calls above, with the unit vector (1, 0) for ROTATION) as
 * `gpt2-embed rope [--check-relative | --dot-curve | --rotation] --format json` prints them
 * (the program prints this document):
 *   SCHEMES: {"schemes": [{"name", "enters", "parameters", "length_limit",
 *            "score_depends_on"} for learned absolute, sinusoidal absolute, rotary relative
 *            (gpt2embed_rope_scheme's English cells)], "dim", "base", "longest_wavelength"
 *            (2 pi base^((dim-2)/dim), the slowest pair's, in positions)};
 *   CHECK_RELATIVE: {"dim", "base", "max_pos", "pairs", "seed", "max_deviation", "at_m",
 *            "at_n", "mean_deviation", "rounding_bound", "relative" (true/false)}
 *            (gpt2embed_rope_check's);
 *   DOT_CURVE: {"dim", "base", "samples", "seed", "k" (from..to), "mean_dot", "expected"};
 *   ROTATION: {"dim", "base", "pair" (the pair taken), "theta", "position" (0..len-1),
 *            "x_2i", "x_2i+1"}.
 * Doubles as %.17g (they read back bit for bit). *json: a new string ending in a newline
 * (gpt2embed_free; NULL on error). Errors: GPT2EMBED_E_ARG (NULL p or json, an unknown mode),
 * the mode's call's, GPT2EMBED_E_NOMEM. */
GPT2EMBED_API gpt2embed_status gpt2embed_rope_json(const gpt2embed_rope_params *p, char **json,
                                                   gpt2embed_error *err);

#ifdef __cplusplus
}
#endif

#endif
