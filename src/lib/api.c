/* SPDX-License-Identifier: MIT */
/* api.c — the public API (src/gpt2embed.h) over the internal modules.
 *
 * Each entry point checks its pointers (a NULL is GPT2EMBED_E_ARG, never a crash: the
 * Python module passes whatever the user gave it), calls the module, and turns the
 * module's status code into the one published enum (g2e_status_of, made from the modules'
 * lists of codes: status.h). The message is the module's, unchanged, so the program and
 * the library say the same thing.
 */
#include "status.h"
#include "api_internal.h"

#include "embed.h"
#include "describe.h"
#include "locate.h"
#include "model.h"
#include "models.h"
#include "safetensors.h"
#include "similarity.h"
#include "sinusoid.h"
#include "cpus.h"
#include "engine.h"
#include "tokcount.h"
#include "tokenizer.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gpt2embed_model {
    g2e_model *m;
    char *path;
};

struct gpt2embed_tokenizer {
    eng *e;   /* the tokenizer and its contexts, one per concurrent call and thread */
};

#define STATUS_CASE(code, status) case code: return GPT2EMBED_E_##status;

gpt2embed_status g2e_status_of(int code)
{
    switch (code) {
    case G2E_OK: return GPT2EMBED_OK;
    G2E_LIB_CODES(STATUS_CASE)
    default: return GPT2EMBED_E_INTERNAL;
    }
}

/* Fills *err (if any): status s, message msg, the offset and index given (GPT2EMBED_NONE). */
static gpt2embed_status detail(gpt2embed_status s, gpt2embed_error *err, const char *msg, size_t offset,
                               size_t index)
{
    if (err) {
        err->status = s;
        err->offset = offset;
        err->index = index;
        err->errno_value = 0;
        snprintf(err->message, sizeof err->message, "%s", msg);
    }
    return s;
}

static gpt2embed_status fail(const g2e_err *e, int rc, gpt2embed_error *err)
{
    return detail(g2e_status_of(rc), err, e->msg, GPT2EMBED_NONE, GPT2EMBED_NONE);
}

static gpt2embed_status say(gpt2embed_status s, gpt2embed_error *err, const char *msg)
{
    return detail(s, err, msg, GPT2EMBED_NONE, GPT2EMBED_NONE);
}

#define NULL_ARG(fn) say(GPT2EMBED_E_ARG, err, fn ": NULL argument")

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
    case GPT2EMBED_E_BUFFER: return "buffer too small";
    case GPT2EMBED_E_STOPPED: return "stopped by a callback";
    case GPT2EMBED_E_UNAVAILABLE: return "a system library it needs cannot be loaded";
    }
    return "unknown status";
}

const char *gpt2embed_version(void)
{
    return GPT2EMBED_VERSION_STRING;
}

/* ---- weights ---- */

gpt2embed_status gpt2embed_model_open(gpt2embed_model **out, const char *path,
                                      const char *model_name, gpt2embed_error *err)
{
    if (!out)
        return NULL_ARG("gpt2embed_model_open");
    g2e_err e;
    char found[4096];
    *out = NULL;
    int rc = locate_weights(model_name, path, found, sizeof found, NULL, &e);
    if (rc)
        return fail(&e, rc, err);
    gpt2embed_model *w = calloc(1, sizeof *w);
    if (!w || !(w->path = strdup(found))) {
        free(w);
        return say(GPT2EMBED_E_NOMEM, err, "out of memory");
    }
    if ((rc = model_open(&w->m, found, &e))) {
        free(w->path);
        free(w);
        return fail(&e, rc, err);
    }
    *out = w;
    return GPT2EMBED_OK;
}

gpt2embed_status gpt2embed_describe_file(const char *path, char **json, gpt2embed_error *err)
{
    if (json)
        *json = NULL;
    if (!path || !json)
        return NULL_ARG("gpt2embed_describe_file");
    g2e_err e, me;
    st_file *st = NULL, *view = NULL;
    g2e_model *m = NULL;
    int rc = st_open(&st, path, &e);
    if (rc)
        return fail(&e, rc, err);
    /* The model view gets its own, non-owning parse of the same mapping, because
     * model_from_st takes (and on error frees) the st_file it is given. */
    g2e_clear(&me);
    if (st_parse_buffer(&view, st->map, st->map_len, &me) == 0)
        model_from_st(&m, view, &me);
    size_t n = 0;
    FILE *f = open_memstream(json, &n);
    int bad = !f || st_describe_json(f, path, st, m, me.msg) != 0;
    if (f && fclose(f) != 0)
        bad = 1;
    model_close(m);
    st_close(st);
    if (bad) {
        free(*json);
        *json = NULL;
        return say(GPT2EMBED_E_NOMEM, err, "out of memory for a file's description");
    }
    return GPT2EMBED_OK;
}

gpt2embed_status gpt2embed_locate_weights(const char *path, const char *model_name, const char *revision,
                                          char **found, gpt2embed_weights_from *from, gpt2embed_error *err)
{
    if (!found)
        return NULL_ARG("gpt2embed_locate_weights");
    *found = NULL;
    g2e_err e;
    char p[4096];
    locate_from src;
    int rc = locate_weights_at(model_name, revision, path, p, sizeof p, &src, &e);
    if (rc)
        return fail(&e, rc, err);
    if (!(*found = strdup(p)))
        return say(GPT2EMBED_E_NOMEM, err, "out of memory");
    if (from)
        *from = (gpt2embed_weights_from)src;
    return GPT2EMBED_OK;
}

size_t gpt2embed_known_models(const gpt2embed_model_info **models)
{
    size_t n;
    const models_info *all = models_all(&n);
    if (models)
        *models = all;
    return n;
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
                                size_t n, float *out, gpt2embed_error *err)
{
    const st_tensor *t = table_of(m, which);
    if (m && !t)
        return say(GPT2EMBED_E_ARG, err, "gpt2embed_rows: no such table (GPT2EMBED_WTE or GPT2EMBED_WPE)");
    if (!t || (n && !out))
        return NULL_ARG("gpt2embed_rows");
    size_t rows = which == GPT2EMBED_WTE ? m->m->n_vocab : m->m->n_ctx;
    if (first > rows || n > rows - first) {
        char msg[256];
        snprintf(msg, sizeof msg, "rows %zu..%zu asked of %s, which has %zu rows (0..%zu)", first,
                 first + n - 1, which == GPT2EMBED_WTE ? "wte" : "wpe", rows, rows - 1);
        return say(which == GPT2EMBED_WTE ? GPT2EMBED_E_TOKEN_ID : GPT2EMBED_E_CONTEXT, err, msg);
    }
    g2e_err e;
    size_t C = m->m->n_embd;
    for (size_t i = 0; i < n; i++) {
        int rc = st_read_row_f32(m->m->st, t, first + i, out + i * C, &e);
        if (rc)
            return fail(&e, rc, err);
    }
    return GPT2EMBED_OK;
}

gpt2embed_status gpt2embed_table_data(const gpt2embed_model *m, gpt2embed_table which,
                                      const void **data, size_t *rows, size_t *cols,
                                      gpt2embed_dtype *dtype, gpt2embed_error *err)
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

gpt2embed_status gpt2embed_tokenizer_open(gpt2embed_tokenizer **out, const char *dir, gpt2embed_error *err)
{
    if (!out)
        return NULL_ARG("gpt2embed_tokenizer_open");
    g2e_err e;
    *out = NULL;
    gpt2embed_tokenizer *t = malloc(sizeof *t);
    if (!t)
        return say(GPT2EMBED_E_NOMEM, err, "out of memory");
    tok_tokenizer *tk;
    int rc = tok_locate(dir, &tk, &e);
    if (!rc)
        rc = eng_new(&t->e, tk, &e); /* (owns tk from here, also on failure) */
    if (rc) {
        free(t);
        return fail(&e, rc, err);
    }
    *out = t;
    return GPT2EMBED_OK;
}

void gpt2embed_tokenizer_close(gpt2embed_tokenizer *t)
{
    if (t) {
        eng_free(t->e);
        free(t);
    }
}

size_t gpt2embed_tokenizer_n_vocab(const gpt2embed_tokenizer *t)
{
    return t ? tok_n_vocab(eng_tables(t->e)) : 0;
}

const char *gpt2embed_tokenizer_source(const gpt2embed_tokenizer *t)
{
    return t ? tok_source(eng_tables(t->e)) : NULL;
}

/* The special-token mode of flags, or -1 for unknown or contradictory flags. */
static int special_of(unsigned flags)
{
    const unsigned known = GPT2EMBED_SPECIAL_TEXT | GPT2EMBED_SPECIAL_ERROR | GPT2EMBED_LOSSY;
    if ((flags & ~known) || (flags & GPT2EMBED_SPECIAL_TEXT && flags & GPT2EMBED_SPECIAL_ERROR))
        return -1;
    return flags & GPT2EMBED_SPECIAL_TEXT ? TOK_SPECIAL_TEXT : flags & GPT2EMBED_SPECIAL_ERROR ? TOK_SPECIAL_ERROR
                                                                                              : TOK_SPECIAL_TOKEN;
}

#define BAD_FLAGS(fn) say(GPT2EMBED_E_ARG, err, fn ": unknown flags, or both SPECIAL_TEXT and SPECIAL_ERROR")

/* A failed tokenization: the offset of the bad byte with the message. */
static gpt2embed_status text_fail(const g2e_err *e, int rc, size_t bad, gpt2embed_error *err)
{
    return detail(g2e_status_of(rc), err, e->msg, bad, GPT2EMBED_NONE);
}

/* Tokenizes text into the context's own output arrays (tok_internal.h), made on first use:
 * *o is the one used (IDs only, or IDs and offsets). */
static int encode_ctx(tok_tokenizer *c, const char *text, size_t len, unsigned flags, int offsets, obuf **o,
                      size_t *bad, g2e_err *e)
{
    size_t n_rep;
    *bad = GPT2EMBED_NONE;
    obuf **keep = offsets ? &c->out_off : &c->out_ids;
    if (!*keep && !(*keep = calloc(1, sizeof **keep)))
        return g2e_fail(e, G2E_ENOMEM, "out of memory");
    (*keep)->keep_off = offsets;
    *o = *keep;
    unsigned tf = (flags & GPT2EMBED_LOSSY ? TOK_LOSSY : 0) | (offsets ? 0 : TOK_NO_OFFSETS);
    return tok_encode_ob(c, len ? text : "", len, (tok_special)special_of(flags), tf, *o, &n_rep, bad, e);
}

gpt2embed_status gpt2embed_tokenize_into(gpt2embed_tokenizer *t, const char *text, size_t len, unsigned flags,
                                         uint32_t *ids, size_t *offsets, size_t cap, size_t *n,
                                         gpt2embed_error *err)
{
    if (n)
        *n = 0;
    if (!t || !n || (len && !text) || (cap && !ids))
        return NULL_ARG("gpt2embed_tokenize_into");
    if (special_of(flags) < 0)
        return BAD_FLAGS("gpt2embed_tokenize_into");
    tok_tokenizer *c = eng_take(t->e);
    if (!c)
        return say(GPT2EMBED_E_NOMEM, err, "out of memory");
    g2e_err e;
    size_t bad;
    obuf *o = NULL;
    int rc = encode_ctx(c, text, len, flags, offsets != NULL, &o, &bad, &e);
    if (!rc) {
        size_t k = o->n < cap ? o->n : cap;
        if (k)
            memcpy(ids, o->ids, k * sizeof *ids);
        size_t n_off = o->n <= cap ? k + 1 : k; /* offsets[n] too when every token fits */
        if (offsets && n_off)
            memcpy(offsets, o->off, n_off * sizeof *offsets);
        *n = o->n;
    }
    eng_give(t->e, c);
    if (rc)
        return text_fail(&e, rc, bad, err);
    if (*n > cap) {
        char msg[160];
        snprintf(msg, sizeof msg, "the text has %zu tokens, the buffer room for %zu", *n, cap);
        return say(GPT2EMBED_E_BUFFER, err, msg);
    }
    return GPT2EMBED_OK;
}

gpt2embed_status gpt2embed_tokenize_threads(gpt2embed_tokenizer *t, const char *text, size_t len, unsigned flags,
                                            unsigned n_threads, uint32_t **ids, size_t **offsets, size_t *n,
                                            size_t *n_replaced, gpt2embed_error *err)
{
    if (ids)
        *ids = NULL;
    if (offsets)
        *offsets = NULL;
    if (n)
        *n = 0;
    if (n_replaced)
        *n_replaced = 0;
    if (!t || !ids || !n || (len && !text))
        return NULL_ARG("gpt2embed_tokenize");
    if (special_of(flags) < 0)
        return BAD_FLAGS("gpt2embed_tokenize");
    unsigned tf = (flags & GPT2EMBED_LOSSY ? TOK_LOSSY : 0) | (offsets ? 0 : TOK_NO_OFFSETS);
    g2e_err e;
    tok_ids r;
    size_t bad = GPT2EMBED_NONE;
    int rc = eng_encode(t->e, n_threads, len ? text : "", len, (tok_special)special_of(flags), tf, &r, &bad, &e);
    if (rc)
        return text_fail(&e, rc, bad, err);
    *ids = r.ids;   /* ownership passes to the caller */
    if (offsets)
        *offsets = r.offsets;
    *n = r.n;
    if (n_replaced)
        *n_replaced = r.n_replaced;
    return GPT2EMBED_OK;
}

gpt2embed_status gpt2embed_tokenize_ex(gpt2embed_tokenizer *t, const char *text, size_t len, unsigned flags,
                                       uint32_t **ids, size_t **offsets, size_t *n, gpt2embed_error *err)
{
    return gpt2embed_tokenize_threads(t, text, len, flags, 1, ids, offsets, n, NULL, err);
}

gpt2embed_status gpt2embed_tokenize(gpt2embed_tokenizer *t, const char *text, size_t len, uint32_t **ids,
                                    size_t *n, gpt2embed_error *err)
{
    return gpt2embed_tokenize_ex(t, text, len, 0, ids, NULL, n, err);
}

gpt2embed_status gpt2embed_tokenize_batch(gpt2embed_tokenizer *t, size_t n_texts, const char *const *texts,
                                          const size_t *lens, unsigned flags, unsigned n_threads, uint32_t **ids,
                                          size_t *counts, gpt2embed_error *err)
{
    if (ids)
        *ids = NULL;
    if (!t || !ids || (n_texts && (!texts || !lens || !counts)))
        return NULL_ARG("gpt2embed_tokenize_batch");
    for (size_t i = 0; i < n_texts; i++)
        if (lens[i] && !texts[i])
            return detail(GPT2EMBED_E_ARG, err, "gpt2embed_tokenize_batch: NULL text with a length", GPT2EMBED_NONE, i);
    if (special_of(flags) < 0)
        return BAD_FLAGS("gpt2embed_tokenize_batch");
    g2e_err e;
    size_t bad_text, bad;
    int rc = eng_batch(t->e, n_threads, n_texts, texts, lens, (tok_special)special_of(flags),
                       flags & GPT2EMBED_LOSSY ? TOK_LOSSY : 0, ids, counts, NULL, &bad_text, &bad, &e);
    if (rc) {
        char msg[G2E_ERR_MSG_MAX + 32];
        if (bad_text != SIZE_MAX)
            snprintf(msg, sizeof msg, "text %zu: %s", bad_text, e.msg);
        return detail(g2e_status_of(rc), err, bad_text != SIZE_MAX ? msg : e.msg, bad, bad_text);
    }
    return GPT2EMBED_OK;
}

/* TOKCOUNT_* flags of the public ones (checked by special_of first). */
static unsigned count_flags(unsigned flags)
{
    return (flags & GPT2EMBED_LOSSY ? TOKCOUNT_LOSSY : 0) | (flags & GPT2EMBED_SPECIAL_TEXT ? TOKCOUNT_SPECIAL_TEXT : 0) |
           (flags & GPT2EMBED_SPECIAL_ERROR ? TOKCOUNT_SPECIAL_ERROR : 0);
}

/* The public count of r (a text of len bytes against n_ctx). */
static void count_out(const tokcount *r, size_t len, size_t n_ctx, gpt2embed_count_info *out,
                      gpt2embed_count_detail *more)
{
    *out = (gpt2embed_count_info){r->tokens, r->chars, n_ctx, r->fits ? len : r->cut_byte,
                                  r->fits ? r->chars : r->cut_chars, !r->fits && r->inside};
    if (more) {
        memset(more, 0, sizeof *more);
        more->n_bytes = r->bytes;
        more->n_replaced = r->replaced;
        more->n_words = r->words.words;
        more->english = text_words_english(&r->words);
        if (!r->fits) {
            more->ctx_end_line = r->line;
            more->ctx_end_column = r->col;
            snprintf(more->ctx_end_snippet, sizeof more->ctx_end_snippet, "%s", r->snippet);
        }
    }
}

gpt2embed_status gpt2embed_count_ex(gpt2embed_tokenizer *t, const char *text, size_t len, unsigned flags,
                                    size_t n_ctx, unsigned n_threads, gpt2embed_count_info *out,
                                    gpt2embed_count_detail *more, gpt2embed_error *err)
{
    if (!t || !out || (len && !text))
        return NULL_ARG("gpt2embed_count");
    if (special_of(flags) < 0)
        return BAD_FLAGS("gpt2embed_count");
    if (!n_ctx)
        return say(GPT2EMBED_E_ARG, err, "gpt2embed_count: n_ctx must be at least 1");
    g2e_err e;
    tokcount r;
    unsigned tf = count_flags(flags) | (more ? TOKCOUNT_WORDS : 0); /* (the words are detail's) */
    int rc = tokcount_text(t->e, n_threads, len ? text : "", len, n_ctx, tf, &r, &e);
    if (rc)
        return detail(g2e_status_of(rc), err, e.msg, r.bad_offset == SIZE_MAX ? GPT2EMBED_NONE : r.bad_offset,
                      GPT2EMBED_NONE);
    count_out(&r, len, n_ctx, out, more);
    tokcount_free(&r);
    return GPT2EMBED_OK;
}

gpt2embed_status gpt2embed_count(gpt2embed_tokenizer *t, const char *text, size_t len, unsigned flags,
                                 size_t n_ctx, gpt2embed_count_info *out, gpt2embed_error *err)
{
    return gpt2embed_count_ex(t, text, len, flags, n_ctx, 1, out, NULL, err);
}

gpt2embed_status gpt2embed_char_costs(gpt2embed_tokenizer *t, const char *text, size_t len, unsigned flags,
                                      unsigned n_threads, gpt2embed_char_cost **costs, size_t *n,
                                      gpt2embed_error *err)
{
    if (costs)
        *costs = NULL;
    if (n)
        *n = 0;
    if (!t || !costs || !n || (len && !text))
        return NULL_ARG("gpt2embed_char_costs");
    if (special_of(flags) < 0)
        return BAD_FLAGS("gpt2embed_char_costs");
    g2e_err e;
    tokcount r;
    int rc = tokcount_text(t->e, n_threads, len ? text : "", len, 1, count_flags(flags) | TOKCOUNT_PER_CHAR, &r, &e);
    if (rc)
        return detail(g2e_status_of(rc), err, e.msg, r.bad_offset == SIZE_MAX ? GPT2EMBED_NONE : r.bad_offset,
                      GPT2EMBED_NONE);
    *costs = r.cc;   /* ownership passes to the caller */
    *n = r.n_cc;
    r.cc = NULL;
    tokcount_free(&r);
    return GPT2EMBED_OK;
}

/* The caller's callbacks, never two at once (the header's promise: the engine may read the
 * next chunk in one thread while it hands on an earlier one in another). */
typedef struct stream_cb {
    gpt2embed_read_fn read;
    void *read_user;
    gpt2embed_docs_fn emit;
    void *emit_user;
    void (*progress)(void *progress_user, uint64_t bytes, uint64_t tokens);
    void *progress_user;
    pthread_mutex_t one;
} stream_cb;

static ssize_t stream_read(void *user, char *buf, size_t cap)
{
    stream_cb *s = user;
    pthread_mutex_lock(&s->one);
    ptrdiff_t got = s->read(s->read_user, buf, cap);
    int e = errno;
    pthread_mutex_unlock(&s->one);
    errno = e;
    return got < 0 ? -1 : (ssize_t)got;
}

static int stream_put(void *user, const uint32_t *ids, size_t n, const size_t *starts, size_t n_starts)
{
    stream_cb *s = user;
    pthread_mutex_lock(&s->one);
    int stop = s->emit(s->emit_user, ids, n, starts, n_starts);
    pthread_mutex_unlock(&s->one);
    return stop;
}

static void stream_progress(void *user, uint64_t bytes, uint64_t tokens)
{
    stream_cb *s = user;
    pthread_mutex_lock(&s->one);
    s->progress(s->progress_user, bytes, tokens);
    pthread_mutex_unlock(&s->one);
}

gpt2embed_status gpt2embed_tokenize_stream_ex(gpt2embed_tokenizer *t, gpt2embed_stream_opts *o, gpt2embed_error *err)
{
    if (!t || !o || !o->read || !o->emit || (o->separator_len && !o->separator))
        return NULL_ARG("gpt2embed_tokenize_stream");
    o->n_bytes = o->n_tokens = o->n_docs = o->n_eot_text = 0;
    if (special_of(o->flags) < 0)
        return BAD_FLAGS("gpt2embed_tokenize_stream");
    stream_cb cb = {o->read, o->read_user, o->emit, o->emit_user, o->progress, o->progress_user,
                    PTHREAD_MUTEX_INITIALIZER};
    eng_text x = {.special = (tok_special)special_of(o->flags), .flags = o->flags & GPT2EMBED_LOSSY ? TOK_LOSSY : 0,
                  .sep = o->separator_len ? o->separator : NULL, .sep_len = o->separator_len,
                  .read = stream_read, .read_user = &cb, .put = stream_put, .user = &cb,
                  .progress = o->progress ? stream_progress : NULL, .progress_user = &cb};
    int rc = eng_stream(t->e, o->n_threads, &x);
    o->n_bytes = x.bytes, o->n_tokens = x.tokens, o->n_docs = x.docs, o->n_eot_text = x.eot_text;
    if (!rc)
        return GPT2EMBED_OK;
    gpt2embed_status s = detail(g2e_status_of(rc), err, rc == G2E_ENOMEM ? "out of memory" : x.msg,
                                x.bad_offset == UINT64_MAX ? GPT2EMBED_NONE : (size_t)x.bad_offset, GPT2EMBED_NONE);
    if (err)
        err->errno_value = x.sys_errno;
    return s;
}

/* gpt2embed_tokenize_stream's emit, called with a document's pieces (one document). */
typedef struct emit_ids {
    gpt2embed_emit_fn emit;
    void *user;
} emit_ids;

static int emit_pieces(void *user, const uint32_t *ids, size_t n, const size_t *starts, size_t n_starts)
{
    emit_ids *e = user;
    (void)starts, (void)n_starts;
    return n ? e->emit(e->user, ids, n) : 0;
}

gpt2embed_status gpt2embed_tokenize_stream(gpt2embed_tokenizer *t, gpt2embed_read_fn read, void *read_user,
                                           unsigned flags, unsigned n_threads, gpt2embed_emit_fn emit,
                                           void *emit_user, gpt2embed_error *err)
{
    if (!emit)
        return NULL_ARG("gpt2embed_tokenize_stream");
    emit_ids e = {emit, emit_user};
    gpt2embed_stream_opts o = {.read = read, .read_user = read_user, .flags = flags, .n_threads = n_threads,
                               .emit = emit_pieces, .emit_user = &e};
    return gpt2embed_tokenize_stream_ex(t, &o, err);
}

gpt2embed_status gpt2embed_count_stream(gpt2embed_tokenizer *t, gpt2embed_read_fn read, void *read_user,
                                        unsigned flags, size_t n_ctx, unsigned n_threads, gpt2embed_count_info *out,
                                        gpt2embed_count_detail *more, gpt2embed_error *err)
{
    if (!t || !read || !out)
        return NULL_ARG("gpt2embed_count_stream");
    if (flags)
        return say(GPT2EMBED_E_ARG, err, "gpt2embed_count_stream: flags must be 0 (strict UTF-8, <|endoftext|> the "
                                         "special token)");
    if (!n_ctx)
        return say(GPT2EMBED_E_ARG, err, "gpt2embed_count_stream: n_ctx must be at least 1");
    stream_cb cb = {.read = read, .read_user = read_user, .one = PTHREAD_MUTEX_INITIALIZER};
    g2e_err e;
    tokcount r;
    int rc = tokcount_stream(t->e, n_threads, stream_read, &cb, n_ctx, more ? TOKCOUNT_WORDS : 0, &r, &e);
    if (rc) {
        gpt2embed_status st = detail(g2e_status_of(rc), err, e.msg,
                                     r.bad_offset == SIZE_MAX ? GPT2EMBED_NONE : r.bad_offset, GPT2EMBED_NONE);
        if (err)
            err->errno_value = r.sys_errno;
        return st;
    }
    count_out(&r, r.bytes, n_ctx, out, more);
    tokcount_free(&r);
    return GPT2EMBED_OK;
}

gpt2embed_status gpt2embed_token_bytes(const gpt2embed_tokenizer *t, uint32_t id, const uint8_t **bytes,
                                       size_t *len, gpt2embed_error *err)
{
    if (!t || !bytes || !len)
        return NULL_ARG("gpt2embed_token_bytes");
    g2e_err e;
    int rc = tok_piece(eng_tables(t->e), id, bytes, len, &e);
    return rc ? detail(g2e_status_of(rc), err, e.msg, GPT2EMBED_NONE, 0) : GPT2EMBED_OK;
}

unsigned gpt2embed_cpu_count(void)
{
    return g2e_cpu_count();
}

unsigned gpt2embed_threads_for(unsigned n_threads, size_t n_items)
{
    return g2e_threads_for(n_threads, n_items);
}

gpt2embed_status gpt2embed_decode(const gpt2embed_tokenizer *t, const uint32_t *ids, size_t n, char **text,
                                  size_t *len, gpt2embed_error *err)
{
    if (text)
        *text = NULL;
    if (len)
        *len = 0;
    if (!t || !text || !len || (n && !ids))
        return NULL_ARG("gpt2embed_decode");
    g2e_err e;
    const tok_tokenizer *tk = eng_tables(t->e);
    int rc = tok_decode(tk, ids, n, text, len, &e);
    if (!rc)
        return GPT2EMBED_OK;
    size_t bad = 0; /* the index of the first bad ID, for err->index */
    while (rc == TOK_E_ID && bad < n && ids[bad] < tok_n_vocab(tk))
        bad++;
    return detail(g2e_status_of(rc), err, e.msg, GPT2EMBED_NONE, rc == TOK_E_ID ? bad : GPT2EMBED_NONE);
}

/* ---- the embedding stage ---- */

gpt2embed_status gpt2embed_embed_pe(const gpt2embed_model *m, const uint32_t *ids, size_t n,
                                    size_t start, gpt2embed_pe pe, float *out, gpt2embed_error *err)
{
    if (!m || (n && (!ids || !out)))
        return NULL_ARG("gpt2embed_embed");
    if (pe != GPT2EMBED_PE_LEARNED && pe != GPT2EMBED_PE_SINUSOIDAL)
        return say(GPT2EMBED_E_ARG, err, "gpt2embed_embed: unknown position encoding");
    g2e_err e;
    int rc = embed_rows(m->m, pe == GPT2EMBED_PE_SINUSOIDAL ? EMBED_PE_SINUSOIDAL : EMBED_PE_LEARNED,
                        ids, n, start, out, NULL, NULL, &e);
    if (!rc)
        return GPT2EMBED_OK;
    size_t bad = 0; /* the index of the first bad ID, for err->index */
    while (rc == EMBED_E_ID && bad < n && ids[bad] < m->m->n_vocab)
        bad++;
    return detail(g2e_status_of(rc), err, e.msg, GPT2EMBED_NONE, rc == EMBED_E_ID ? bad : GPT2EMBED_NONE);
}

gpt2embed_status gpt2embed_embed_ex(const gpt2embed_model *m, const uint32_t *ids, size_t n, size_t start,
                                    gpt2embed_pe pe, double pe_scale, float *sum, float *tok, float *pos,
                                    gpt2embed_error *err)
{
    if (!m || (n && !ids))
        return NULL_ARG("gpt2embed_embed_ex");
    if (pe != GPT2EMBED_PE_LEARNED && pe != GPT2EMBED_PE_SINUSOIDAL)
        return say(GPT2EMBED_E_ARG, err, "gpt2embed_embed_ex: unknown position encoding");
    embed_pe ep = pe == GPT2EMBED_PE_SINUSOIDAL ? EMBED_PE_SINUSOIDAL : EMBED_PE_LEARNED;
    g2e_err e;
    embed_ctx c;
    int rc = embed_check(m->m, ep, ids, n, start, &e);
    if (rc)
        goto fail;
    if ((rc = embed_init(&c, m->m, ep, &e)))
        goto fail;
    if (pe_scale != 1.0 || ep == EMBED_PE_SINUSOIDAL)
        rc = embed_set_pe_scale(&c, pe_scale, &e);
    size_t C = m->m->n_embd;
    float *row = NULL;
    if (!rc && (sum || tok || pos) && !sum && !(row = malloc(C * sizeof *row)))
        rc = g2e_fail(&e, G2E_ENOMEM, "out of memory");
    for (size_t t = 0; t < n && !rc && (sum || tok || pos); t++)
        rc = embed_row(&c, ids[t], start + t, sum ? sum + t * C : row, tok ? tok + t * C : NULL,
                       pos ? pos + t * C : NULL, &e);
    free(row);
    embed_free(&c);
    if (!rc)
        return GPT2EMBED_OK;
fail:;
    size_t bad = 0; /* the index of the first bad ID, for err->index */
    while (rc == EMBED_E_ID && bad < n && ids[bad] < m->m->n_vocab)
        bad++;
    return detail(g2e_status_of(rc), err, e.msg, GPT2EMBED_NONE, rc == EMBED_E_ID ? bad : GPT2EMBED_NONE);
}

gpt2embed_status gpt2embed_windows(size_t n_tokens, size_t window, size_t stride, size_t *n_windows,
                                   size_t *padding, gpt2embed_error *err)
{
    if (!n_windows)
        return NULL_ARG("gpt2embed_windows");
    g2e_err e;
    size_t pad = 0;
    int rc = embed_windows(n_tokens, window, stride, n_windows, &e);
    if (!rc)
        rc = embed_window_padding(n_tokens, window, stride, &pad, &e);
    if (rc)
        return fail(&e, rc, err);
    if (padding)
        *padding = pad;
    return GPT2EMBED_OK;
}

gpt2embed_status gpt2embed_embed(const gpt2embed_model *m, const uint32_t *ids, size_t n,
                                 size_t start, float *out, gpt2embed_error *err)
{
    return gpt2embed_embed_pe(m, ids, n, start, GPT2EMBED_PE_LEARNED, out, err);
}

gpt2embed_status gpt2embed_sinusoidal(size_t start, size_t n, size_t dim, double base,
                                      float *out, gpt2embed_error *err)
{
    if (n && !out)
        return NULL_ARG("gpt2embed_sinusoidal");
    g2e_err e;
    sin_table tab;
    int rc = sin_table_init(&tab, dim, base, &e);
    if (rc)
        return fail(&e, rc, err);
    if (n && (start > SIN_MAX_POS || n - 1 > SIN_MAX_POS - start))
        rc = g2e_fail(&e, SIN_E_LEN, "positions %zu..%zu pass the sinusoidal encoding's limit 2^53",
                      start, start + (n - 1));
    for (size_t i = 0; i < n && !rc; i++)
        rc = sin_table_row_f32(&tab, (uint64_t)start + i, out + i * dim, &e);
    sin_table_free(&tab);
    return rc ? fail(&e, rc, err) : GPT2EMBED_OK;
}

gpt2embed_status gpt2embed_sinusoid_dot_curve(uint64_t from, uint64_t to, size_t dim, double base, double *out,
                                              gpt2embed_error *err)
{
    if (!out)
        return NULL_ARG("gpt2embed_sinusoid_dot_curve");
    g2e_err e;
    int rc = sin_dot_curve(from, to, dim, base, out, &e);
    return rc ? fail(&e, rc, err) : GPT2EMBED_OK;
}

gpt2embed_status gpt2embed_sinusoid_check_rotation(size_t dim, double base, uint64_t n_pos, uint64_t n_k,
                                                   double *max_err, uint64_t *at_pos, uint64_t *at_k,
                                                   size_t *at_pair, gpt2embed_error *err)
{
    if (!max_err)
        return NULL_ARG("gpt2embed_sinusoid_check_rotation");
    g2e_err e;
    int rc = sin_check_rotation(dim, base, n_pos, n_k, max_err, at_pos, at_k, at_pair, &e);
    return rc ? fail(&e, rc, err) : GPT2EMBED_OK;
}

gpt2embed_status gpt2embed_sinusoid_by_distance(size_t len, size_t dim, double base, size_t max_d, double *out,
                                                gpt2embed_error *err)
{
    if (!out)
        return NULL_ARG("gpt2embed_sinusoid_by_distance");
    g2e_err e;
    int rc = sin_by_distance(len, dim, base, max_d, out, &e);
    return rc ? fail(&e, rc, err) : GPT2EMBED_OK;
}

gpt2embed_status gpt2embed_wpe_by_distance(const gpt2embed_model *m, size_t len, size_t max_d, double *mean,
                                           double *sd, gpt2embed_error *err)
{
    if (!m || !mean)
        return NULL_ARG("gpt2embed_wpe_by_distance");
    g2e_err e;
    int rc = sim_learned_by_distance(m->m, len, max_d, mean, sd, &e);
    return rc ? fail(&e, rc, err) : GPT2EMBED_OK;
}

gpt2embed_status gpt2embed_cosine(const float *a, const float *b, size_t n, double *out,
                                  gpt2embed_error *err)
{
    if (!out || (n && (!a || !b)))
        return NULL_ARG("gpt2embed_cosine");
    g2e_err e;
    int rc = sim_cosine(a, b, n, out, &e);
    return rc ? fail(&e, rc, err) : GPT2EMBED_OK;
}

gpt2embed_status gpt2embed_cosine_matrix(const float *X, size_t R, size_t C, double *out,
                                         gpt2embed_error *err)
{
    if (R && (!X || !out))
        return NULL_ARG("gpt2embed_cosine_matrix");
    g2e_err e;
    int rc = R ? sim_cosine_matrix(X, R, C, out, &e) : 0;
    return rc ? fail(&e, rc, err) : GPT2EMBED_OK;
}

gpt2embed_status gpt2embed_table_stats(const gpt2embed_model *m, gpt2embed_table which, gpt2embed_stats *out,
                                       gpt2embed_error *err)
{
    if (!m || !out)
        return NULL_ARG("gpt2embed_table_stats");
    if (which != GPT2EMBED_WTE && which != GPT2EMBED_WPE)
        return say(GPT2EMBED_E_ARG, err, "gpt2embed_table_stats: no such table (GPT2EMBED_WTE or GPT2EMBED_WPE)");
    g2e_err e;
    int rc = sim_stats_of(m->m, which == GPT2EMBED_WPE, out, &e);
    return rc ? fail(&e, rc, err) : GPT2EMBED_OK;
}

gpt2embed_status gpt2embed_nearest(const gpt2embed_model *m, const float *q, size_t k, uint32_t exclude,
                                   gpt2embed_hit *hits, size_t *n_hits, gpt2embed_error *err)
{
    if (n_hits)
        *n_hits = 0;
    if (!m || !q || !n_hits || (k && !hits))
        return NULL_ARG("gpt2embed_nearest");
    g2e_err e;
    int rc = sim_nearest(m->m, q, k, exclude, hits, n_hits, &e);
    return rc ? fail(&e, rc, err) : GPT2EMBED_OK;
}

void gpt2embed_free(void *p)
{
    free(p);
}

/* ---- for the course's calls (api_study.c, api_internal.h) ---- */

const g2e_model *g2e_api_model(const gpt2embed_model *m)
{
    return m ? m->m : NULL;
}

int g2e_api_special(unsigned flags)
{
    return special_of(flags);
}

eng *g2e_api_engine(const gpt2embed_tokenizer *t)
{
    return t ? t->e : NULL;
}

const char *g2e_api_model_path(const gpt2embed_model *m)
{
    return m ? m->path : NULL;
}

gpt2embed_status g2e_api_fail(const g2e_err *e, int rc, gpt2embed_error *err)
{
    return fail(e, rc, err);
}

gpt2embed_status g2e_api_detail(gpt2embed_status s, gpt2embed_error *err, const char *msg, size_t offset,
                                size_t index)
{
    return detail(s, err, msg, offset, index);
}

gpt2embed_status g2e_api_say(gpt2embed_status s, gpt2embed_error *err, const char *msg)
{
    return say(s, err, msg);
}
