/* SPDX-License-Identifier: MIT */
/* api.c — the public API (src/gpt2embed.h) over the internal modules.
 *
 * Each entry point checks its pointers (a NULL is GPT2EMBED_E_ARG, never a crash: the
 * Python module passes whatever the user gave it), calls the module, and turns the
 * module's status code into the one published enum (status_of). The message is the
 * module's, unchanged, so the program and the library say the same thing.
 */
#include "../gpt2embed.h"

#include "embed.h"
#include "locate.h"
#include "model.h"
#include "safetensors.h"
#include "similarity.h"
#include "sinusoid.h"
#include "tokenizer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gpt2embed_model {
    g2e_model *m;
    char *path;
};

struct gpt2embed_tokenizer {
    tok_tokenizer *t;
};

/* The published status of a module code (each module's header lists its codes). */
static gpt2embed_status status_of(int code)
{
    switch (code) {
    case G2E_OK: return GPT2EMBED_OK;
    case G2E_ENOMEM: return GPT2EMBED_E_NOMEM;
    case G2E_EIO: case ST_E_OPEN: case TOK_E_OPEN: return GPT2EMBED_E_IO;
    case G2E_EINVAL: case LOCATE_E_TOO_LONG: case SIN_E_DIM: case SIN_E_BASE:
    case EMBED_E_WINDOW: case SIM_E_RANGE: case SIM_E_SHAPE: return GPT2EMBED_E_ARG;
    case LOCATE_E_MISSING: case LOCATE_E_NOT_FOUND: case MODEL_E_NOT_FOUND:
    case TOK_E_NOT_FOUND: return GPT2EMBED_E_NOT_FOUND;
    case LOCATE_E_UNKNOWN_MODEL: return GPT2EMBED_E_UNKNOWN_MODEL;
    case ST_E_NOT_FOUND: case ST_E_DTYPE_UNSUPPORTED: case MODEL_E_NO_WTE: case MODEL_E_NO_WPE:
    case MODEL_E_SHAPE: case MODEL_E_DTYPE: case MODEL_E_AMBIGUOUS: return GPT2EMBED_E_NOT_GPT2;
    case TOK_E_UTF8: return GPT2EMBED_E_UTF8;
    case TOK_E_SPECIAL: return GPT2EMBED_E_SPECIAL;
    case TOK_E_ID: case EMBED_E_ID: case MODEL_E_RANGE: case ST_E_RANGE: return GPT2EMBED_E_TOKEN_ID;
    case EMBED_E_CONTEXT: case SIN_E_LEN: return GPT2EMBED_E_CONTEXT;
    case SIM_E_ZERO: return GPT2EMBED_E_ZERO_VECTOR;
    case TOK_E_TOO_LARGE: case SIN_E_SIZE: return GPT2EMBED_E_TOO_LARGE;
    default:
        /* the remaining safetensors and tokenizer-file rules: the file is malformed */
        if ((code >= 100 && code < 200) || code == TOK_E_VOCAB || code == TOK_E_MERGES)
            return GPT2EMBED_E_FORMAT;
        return GPT2EMBED_E_INTERNAL;
    }
}

static gpt2embed_status fail(const g2e_err *e, int rc, char *err, size_t errlen)
{
    if (err && errlen)
        snprintf(err, errlen, "%s", e->msg);
    return status_of(rc);
}

static gpt2embed_status say(gpt2embed_status s, char *err, size_t errlen, const char *msg)
{
    if (err && errlen)
        snprintf(err, errlen, "%s", msg);
    return s;
}

#define NULL_ARG(fn) say(GPT2EMBED_E_ARG, err, errlen, fn ": NULL argument")

const char *gpt2embed_strerror(gpt2embed_status s)
{
    switch (s) {
    case GPT2EMBED_OK: return "success";
    case GPT2EMBED_E_NOMEM: return "out of memory";
    case GPT2EMBED_E_IO: return "file cannot be read";
    case GPT2EMBED_E_ARG: return "invalid argument";
    case GPT2EMBED_E_NOT_FOUND: return "not found";
    case GPT2EMBED_E_UNKNOWN_MODEL: return "unknown model name";
    case GPT2EMBED_E_FORMAT: return "malformed file";
    case GPT2EMBED_E_NOT_GPT2: return "no usable GPT-2 embeddings in the file";
    case GPT2EMBED_E_UTF8: return "text is not valid UTF-8";
    case GPT2EMBED_E_SPECIAL: return "special token in the text";
    case GPT2EMBED_E_TOKEN_ID: return "token ID outside the vocabulary";
    case GPT2EMBED_E_CONTEXT: return "position outside the context";
    case GPT2EMBED_E_ZERO_VECTOR: return "zero vector has no cosine";
    case GPT2EMBED_E_TOO_LARGE: return "too large";
    case GPT2EMBED_E_INTERNAL: return "internal error";
    }
    return "unknown status";
}

const char *gpt2embed_version(void)
{
    return GPT2EMBED_VERSION_STRING;
}

/* ---- weights ---- */

gpt2embed_status gpt2embed_model_open(gpt2embed_model **out, const char *path,
                                      const char *model_name, char *err, size_t errlen)
{
    if (!out)
        return NULL_ARG("gpt2embed_model_open");
    g2e_err e;
    char found[4096];
    *out = NULL;
    int rc = locate_weights(model_name, path, found, sizeof found, NULL, &e);
    if (rc)
        return fail(&e, rc, err, errlen);
    gpt2embed_model *w = calloc(1, sizeof *w);
    if (!w || !(w->path = strdup(found))) {
        free(w);
        return say(GPT2EMBED_E_NOMEM, err, errlen, "out of memory");
    }
    if ((rc = model_open(&w->m, found, &e))) {
        free(w->path);
        free(w);
        return fail(&e, rc, err, errlen);
    }
    *out = w;
    return GPT2EMBED_OK;
}

void gpt2embed_model_close(gpt2embed_model *m)
{
    if (m) {
        model_close(m->m);
        free(m->path);
        free(m);
    }
}

size_t gpt2embed_n_vocab(const gpt2embed_model *m) { return m ? m->m->n_vocab : 0; }
size_t gpt2embed_n_ctx(const gpt2embed_model *m) { return m ? m->m->n_ctx : 0; }
size_t gpt2embed_n_embd(const gpt2embed_model *m) { return m ? m->m->n_embd : 0; }
const char *gpt2embed_model_name(const gpt2embed_model *m) { return m ? m->m->size_name : NULL; }
const char *gpt2embed_model_path(const gpt2embed_model *m) { return m ? m->path : NULL; }

static const st_tensor *table_of(const gpt2embed_model *m, gpt2embed_table which)
{
    if (!m)
        return NULL;
    return which == GPT2EMBED_WTE ? m->m->wte : which == GPT2EMBED_WPE ? m->m->wpe : NULL;
}

static int dtype_of(st_dtype d)
{
    return d == ST_F32 ? GPT2EMBED_F32 : d == ST_F16 ? GPT2EMBED_F16 : d == ST_BF16 ? GPT2EMBED_BF16 : -1;
}

int gpt2embed_table_dtype(const gpt2embed_model *m, gpt2embed_table which)
{
    const st_tensor *t = table_of(m, which);
    return t ? dtype_of(t->dtype) : -1;
}

const char *gpt2embed_dtype_name(int dtype)
{
    switch (dtype) {
    case GPT2EMBED_F32: return "F32";
    case GPT2EMBED_F16: return "F16";
    case GPT2EMBED_BF16: return "BF16";
    default: return NULL;
    }
}

gpt2embed_status gpt2embed_rows(const gpt2embed_model *m, gpt2embed_table which, size_t first,
                                size_t n, float *out, char *err, size_t errlen)
{
    const st_tensor *t = table_of(m, which);
    if (m && !t)
        return say(GPT2EMBED_E_ARG, err, errlen, "gpt2embed_rows: no such table (GPT2EMBED_WTE or GPT2EMBED_WPE)");
    if (!t || (n && !out))
        return NULL_ARG("gpt2embed_rows");
    size_t rows = which == GPT2EMBED_WTE ? m->m->n_vocab : m->m->n_ctx;
    if (first > rows || n > rows - first) {
        char msg[256];
        snprintf(msg, sizeof msg, "rows %zu..%zu asked of %s, which has %zu rows (0..%zu)", first,
                 first + n - 1, which == GPT2EMBED_WTE ? "wte" : "wpe", rows, rows - 1);
        return say(which == GPT2EMBED_WTE ? GPT2EMBED_E_TOKEN_ID : GPT2EMBED_E_CONTEXT, err,
                   errlen, msg);
    }
    g2e_err e;
    size_t C = m->m->n_embd;
    for (size_t i = 0; i < n; i++) {
        int rc = st_read_row_f32(m->m->st, t, first + i, out + i * C, &e);
        if (rc)
            return fail(&e, rc, err, errlen);
    }
    return GPT2EMBED_OK;
}

gpt2embed_status gpt2embed_table_data(const gpt2embed_model *m, gpt2embed_table which,
                                      const void **data, size_t *rows, size_t *cols,
                                      gpt2embed_dtype *dtype, char *err, size_t errlen)
{
    const st_tensor *t = table_of(m, which);
    if (!t || !data)
        return NULL_ARG("gpt2embed_table_data");
    *data = t->bytes;   /* mapped by model_open (only wte and wpe are) */
    if (rows)
        *rows = (size_t)t->shape[0];
    if (cols)
        *cols = (size_t)t->shape[1];
    if (dtype)
        *dtype = (gpt2embed_dtype)dtype_of(t->dtype);
    return GPT2EMBED_OK;
}

/* ---- tokenizer ---- */

gpt2embed_status gpt2embed_tokenizer_open(gpt2embed_tokenizer **out, const char *dir, char *err,
                                          size_t errlen)
{
    if (!out)
        return NULL_ARG("gpt2embed_tokenizer_open");
    g2e_err e;
    *out = NULL;
    gpt2embed_tokenizer *t = malloc(sizeof *t);
    if (!t)
        return say(GPT2EMBED_E_NOMEM, err, errlen, "out of memory");
    int rc = tok_locate(dir, &t->t, &e);
    if (rc) {
        free(t);
        return fail(&e, rc, err, errlen);
    }
    *out = t;
    return GPT2EMBED_OK;
}

void gpt2embed_tokenizer_close(gpt2embed_tokenizer *t)
{
    if (t) {
        tok_close(t->t);
        free(t);
    }
}

size_t gpt2embed_tokenizer_n_vocab(const gpt2embed_tokenizer *t)
{
    return t ? tok_n_vocab(t->t) : 0;
}

gpt2embed_status gpt2embed_tokenize_ex(gpt2embed_tokenizer *t, const char *text, size_t len,
                                       unsigned flags, uint32_t **ids, size_t **offsets,
                                       size_t *n, char *err, size_t errlen)
{
    if (ids)
        *ids = NULL;
    if (offsets)
        *offsets = NULL;
    if (n)
        *n = 0;
    if (!t || !ids || !n || (len && !text))
        return NULL_ARG("gpt2embed_tokenize");
    const unsigned known = GPT2EMBED_SPECIAL_TEXT | GPT2EMBED_SPECIAL_ERROR | GPT2EMBED_LOSSY;
    if ((flags & ~known) || (flags & GPT2EMBED_SPECIAL_TEXT && flags & GPT2EMBED_SPECIAL_ERROR))
        return say(GPT2EMBED_E_ARG, err, errlen,
                   "gpt2embed_tokenize: unknown flags, or both SPECIAL_TEXT and SPECIAL_ERROR");
    tok_special sp = flags & GPT2EMBED_SPECIAL_TEXT    ? TOK_SPECIAL_TEXT
                     : flags & GPT2EMBED_SPECIAL_ERROR ? TOK_SPECIAL_ERROR
                                                       : TOK_SPECIAL_TOKEN;
    unsigned tf = (flags & GPT2EMBED_LOSSY ? TOK_LOSSY : 0) | (offsets ? 0 : TOK_NO_OFFSETS);
    g2e_err e;
    tok_ids r;
    int rc = tok_encode(t->t, len ? text : "", len, sp, tf, &r, NULL, &e);
    if (rc)
        return fail(&e, rc, err, errlen);
    *ids = r.ids;   /* ownership passes to the caller */
    if (offsets)
        *offsets = r.offsets;
    *n = r.n;
    return GPT2EMBED_OK;
}

gpt2embed_status gpt2embed_tokenize(gpt2embed_tokenizer *t, const char *text, size_t len,
                                    uint32_t **ids, size_t *n, char *err, size_t errlen)
{
    return gpt2embed_tokenize_ex(t, text, len, 0, ids, NULL, n, err, errlen);
}

gpt2embed_status gpt2embed_decode(const gpt2embed_tokenizer *t, const uint32_t *ids, size_t n,
                                  char **text, size_t *len, char *err, size_t errlen)
{
    if (text)
        *text = NULL;
    if (len)
        *len = 0;
    if (!t || !text || !len || (n && !ids))
        return NULL_ARG("gpt2embed_decode");
    g2e_err e;
    int rc = tok_decode(t->t, ids, n, text, len, &e);
    return rc ? fail(&e, rc, err, errlen) : GPT2EMBED_OK;
}

/* ---- the embedding stage ---- */

gpt2embed_status gpt2embed_embed_pe(const gpt2embed_model *m, const uint32_t *ids, size_t n,
                                    size_t start, gpt2embed_pe pe, float *out, char *err,
                                    size_t errlen)
{
    if (!m || (n && (!ids || !out)))
        return NULL_ARG("gpt2embed_embed");
    if (pe != GPT2EMBED_PE_LEARNED && pe != GPT2EMBED_PE_SINUSOIDAL)
        return say(GPT2EMBED_E_ARG, err, errlen, "gpt2embed_embed: unknown position encoding");
    g2e_err e;
    int rc = embed_rows(m->m, pe == GPT2EMBED_PE_SINUSOIDAL ? EMBED_PE_SINUSOIDAL : EMBED_PE_LEARNED,
                        ids, n, start, out, NULL, NULL, &e);
    return rc ? fail(&e, rc, err, errlen) : GPT2EMBED_OK;
}

gpt2embed_status gpt2embed_embed(const gpt2embed_model *m, const uint32_t *ids, size_t n,
                                 size_t start, float *out, char *err, size_t errlen)
{
    return gpt2embed_embed_pe(m, ids, n, start, GPT2EMBED_PE_LEARNED, out, err, errlen);
}

gpt2embed_status gpt2embed_sinusoidal(size_t start, size_t n, size_t dim, double base,
                                      float *out, char *err, size_t errlen)
{
    if (n && !out)
        return NULL_ARG("gpt2embed_sinusoidal");
    g2e_err e;
    sin_table tab;
    int rc = sin_table_init(&tab, dim, base, &e);
    if (rc)
        return fail(&e, rc, err, errlen);
    if (n && (start > SIN_MAX_POS || n - 1 > SIN_MAX_POS - start))
        rc = g2e_fail(&e, SIN_E_LEN, "positions %zu..%zu pass the sinusoidal encoding's limit 2^53",
                      start, start + (n - 1));
    for (size_t i = 0; i < n && !rc; i++)
        rc = sin_table_row_f32(&tab, (uint64_t)start + i, out + i * dim, &e);
    sin_table_free(&tab);
    return rc ? fail(&e, rc, err, errlen) : GPT2EMBED_OK;
}

gpt2embed_status gpt2embed_cosine(const float *a, const float *b, size_t n, double *out,
                                  char *err, size_t errlen)
{
    if (!out || (n && (!a || !b)))
        return NULL_ARG("gpt2embed_cosine");
    g2e_err e;
    int rc = sim_cosine(a, b, n, out, &e);
    return rc ? fail(&e, rc, err, errlen) : GPT2EMBED_OK;
}

gpt2embed_status gpt2embed_cosine_matrix(const float *X, size_t R, size_t C, double *out,
                                         char *err, size_t errlen)
{
    if (R && (!X || !out))
        return NULL_ARG("gpt2embed_cosine_matrix");
    g2e_err e;
    int rc = R ? sim_cosine_matrix(X, R, C, out, &e) : 0;
    return rc ? fail(&e, rc, err, errlen) : GPT2EMBED_OK;
}

void gpt2embed_free(void *p)
{
    free(p);
}
