/* SPDX-License-Identifier: MIT */
/* tok_pool.c — one tokenizer shared by threads; batches and streams (see tok_pool.h). */
#include "tok_pool.h"

#include "cpus.h"
#include "tok_pretok.h"
#include "tok_run.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct tok_pool {
    pthread_mutex_t mu;
    tok_tokenizer *t;             /* owned; context 0 */
    tok_ctx ctx[TOK_POOL_MAX];
    unsigned made;                /* contexts made: ctx[0..made) */
    unsigned free_[TOK_POOL_MAX]; /* the indices of the idle ones (a stack) */
    unsigned n_free;
};

int tok_pool_new(tok_pool **out, tok_tokenizer *t, g2e_err *err)
{
    *out = NULL;
    tok_pool *p = calloc(1, sizeof *p);
    if (!p || pthread_mutex_init(&p->mu, NULL) != 0) {
        free(p);
        tok_close(t);
        return g2e_fail(err, G2E_ENOMEM, "out of memory");
    }
    p->t = t;
    *out = p;
    return 0;
}

static void ctx_free_buffers(tok_ctx *c)
{
    free(c->ids.ids);
    free(c->ids_off.ids);
    free(c->ids_off.off);
}

void tok_pool_free(tok_pool *p)
{
    if (!p)
        return;
    for (unsigned k = 0; k < p->made; k++)
        ctx_free_buffers(&p->ctx[k]);
    tok_close(p->t); /* the workers with it */
    pthread_mutex_destroy(&p->mu);
    free(p);
}

const tok_tokenizer *tok_pool_tables(const tok_pool *p)
{
    return p->t;
}

/* An idle context, else a new one while fewer than TOK_POOL_MAX exist; NULL when neither
 * (or out of memory). mu held. */
static tok_ctx *take_kept(tok_pool *p)
{
    if (p->n_free)
        return &p->ctx[p->free_[--p->n_free]];
    if (p->made == TOK_POOL_MAX)
        return NULL;
    /* a worker shares the tables; making it touches only the pool's own fields of t */
    tok_tokenizer *w = tok_worker(p->t, p->made);
    if (!w)
        return NULL;
    tok_ctx *c = &p->ctx[p->made];
    *c = (tok_ctx){.t = w, .ids_off = {.keep_off = 1}, .slot = p->made};
    p->made++;
    return c;
}

/* A context made for one call when every kept one is out, freed when it is given back. */
static tok_ctx *take_spare(tok_pool *p)
{
    tok_ctx *c = malloc(sizeof *c);
    tok_tokenizer *w = c ? tok_worker_new(p->t) : NULL;
    if (!w) {
        free(c);
        return NULL;
    }
    *c = (tok_ctx){.t = w, .ids_off = {.keep_off = 1}, .slot = TOK_POOL_SPARE};
    return c;
}

tok_ctx *tok_pool_take(tok_pool *p)
{
    pthread_mutex_lock(&p->mu);
    tok_ctx *c = take_kept(p);
    pthread_mutex_unlock(&p->mu);
    return c ? c : take_spare(p);
}

void tok_pool_give(tok_pool *p, tok_ctx *c)
{
    if (!c)
        return;
    if (c->slot == TOK_POOL_SPARE) {
        ctx_free_buffers(c);
        tok_close(c->t);
        free(c);
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->free_[p->n_free++] = c->slot;
    pthread_mutex_unlock(&p->mu);
}

/* Up to `want` contexts at once, never waiting: the first as tok_pool_take gives it, the
 * others only while kept ones are idle or can be made (a call runs on fewer threads rather
 * than wait for contexts other calls hold, or make many of its own). Returns how many (0:
 * out of memory). */
static unsigned take_some(tok_pool *p, tok_ctx **c, unsigned want)
{
    if (!want || !(c[0] = tok_pool_take(p)))
        return 0;
    unsigned got = 1;
    pthread_mutex_lock(&p->mu);
    while (got < want && (c[got] = take_kept(p)))
        got++;
    pthread_mutex_unlock(&p->mu);
    return got;
}

static void give_all(tok_pool *p, tok_ctx **c, unsigned n)
{
    for (unsigned k = 0; k < n; k++)
        tok_pool_give(p, c[k]);
}

static unsigned threads_of(unsigned threads)
{
    return g2e_threads_for(threads, TOK_POOL_MAX);
}

/* ---- batches ---- */

/* The first failing text's error, from tokenizing it again alone (its message and offset). */
static int batch_error(tok_pool *p, size_t n, const char *const *texts, const size_t *lens, tok_special special,
                       unsigned flags, const int *rc, size_t *bad_text, size_t *bad_offset, g2e_err *err)
{
    size_t i = 0;
    while (i < n && !rc[i])
        i++;
    *bad_text = i;
    tok_ctx *c = tok_pool_take(p);
    size_t n_rep;
    int code = c ? tok_encode_ob(c->t, texts[i], lens[i], special, flags | TOK_NO_OFFSETS, &c->ids, &n_rep,
                                 bad_offset, err)
                 : G2E_ENOMEM;
    tok_pool_give(p, c);
    if (!c)
        g2e_fail(err, G2E_ENOMEM, "out of memory");
    return code ? code : g2e_fail(err, rc[i], "text %zu could not be tokenized", i);
}

int tok_pool_batch(tok_pool *p, size_t n, const char *const *texts, const size_t *lens, tok_special special,
                   unsigned flags, unsigned threads, uint32_t **ids, size_t *counts, size_t *bad_text,
                   size_t *bad_offset, g2e_err *err)
{
    *ids = NULL;
    *bad_text = *bad_offset = SIZE_MAX;
    if (!n)
        return 0;
    int *rc = calloc(n, sizeof *rc);
    tok_ctx *c[TOK_POOL_MAX];
    tok_tokenizer *ts[TOK_POOL_MAX];
    unsigned got = rc ? take_some(p, c, tok_batch_parts(n, lens, threads_of(threads))) : 0;
    if (!got) {
        free(rc);
        return g2e_fail(err, G2E_ENOMEM, "out of memory");
    }
    for (unsigned k = 0; k < got; k++)
        ts[k] = c[k]->t;
    int code = tok_run_batch(ts, got, n, texts, lens, special, flags, ids, counts, rc);
    give_all(p, c, got);
    if (code)
        code = g2e_fail(err, code, "out of memory tokenizing %zu texts", n);
    for (size_t i = 0; !code && i < n; i++)
        if (rc[i])
            code = batch_error(p, n, texts, lens, special, flags, rc, bad_text, bad_offset, err);
    if (code) {
        free(*ids);
        *ids = NULL;
    }
    free(rc);
    return code;
}

/* ---- streams ----
 *
 * On the queue (tok_run.h): the reader takes chunks in order (one member at a time, the
 * take), each member tokenizes the chunk it took into the chunk's slot, and the chunks' IDs
 * are handed to emit in order as they finish. Two slots per thread: a thread that finishes
 * its chunk takes the next one while the one before it is still being tokenized (the
 * rounds this replaced waited for every chunk of a round). The caller's read and emit
 * callbacks are called one at a time (a mutex around each call), but from whichever of the
 * call's threads takes or hands on: gpt2embed.h says so. */

#define STREAM_SLOTS 2

typedef struct chunk {
    _Alignas(TOK_LINE_PAIR) char *buf; /* (slots worked on at once by two threads share no line) */
    size_t n, cap;
    size_t base;        /* stream offset of buf[0] */
    obuf ids;
    int rc;
    size_t bad;         /* offset in buf of a bad byte */
    g2e_err e;
} chunk;

typedef struct stream {
    tok_queue q;        /* (first: a tok_queue * is a stream *) */
    chunk *ks;          /* (q.nslot,) */
    tok_special special;
    unsigned flags;
    tok_emit_fn emit;
    void *emit_user;
    size_t *bad_offset;
    g2e_err *err;
    pthread_mutex_t cb; /* held around every call of rd and emit: never two at once */
    /* the reader */
    tok_read_fn rd;
    void *rd_user;
    int eof, sys_errno;
    int rc;             /* TOKP_E_READ or a memory code, for after the chunks before it */
    int said;           /* stream_hand has put a failure's message in err */
    size_t offset;      /* stream offset of the next byte read */
    char *carry;        /* bytes read past the last cut, for the next chunk */
    size_t n_carry, cap_carry;
} stream;

static int room(char **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap : TOK_POOL_CHUNK;
    while (nc < need) {
        if (nc > SIZE_MAX / 2)
            return TOK_E_TOO_LARGE;
        nc *= 2;
    }
    char *b = realloc(*buf, nc);
    if (!b)
        return G2E_ENOMEM;
    *buf = b;
    *cap = nc;
    return 0;
}

/* Reads into k->buf until it holds `want` bytes or the input ends: 0, TOKP_E_READ, or a
 * memory code. */
static int fill(stream *s, chunk *k, size_t want)
{
    int rc = room(&k->buf, &k->cap, want);
    while (!rc && !s->eof && k->n < want) {
        ssize_t got = s->rd(s->rd_user, k->buf + k->n, want - k->n);
        if (got < 0 || (size_t)got > want - k->n) { /* (never called again: -1 ends the stream) */
            s->sys_errno = got < 0 ? errno : EINVAL;
            return got < 0 && errno == ECANCELED ? TOKP_CANCELED : TOKP_E_READ;
        }
        s->eof = got == 0;
        k->n += (size_t)got;
        s->offset += (size_t)got;
    }
    return rc;
}

/* The next chunk: the carried bytes, then input up to a cut point (or the end). */
static int next_chunk(stream *s, chunk *k)
{
    k->n = 0;
    int rc = room(&k->buf, &k->cap, s->n_carry > TOK_POOL_CHUNK ? s->n_carry : TOK_POOL_CHUNK);
    if (rc)
        return rc;
    if (s->n_carry)
        memcpy(k->buf, s->carry, s->n_carry);
    k->n = s->n_carry;
    k->base = s->offset - s->n_carry;
    s->n_carry = 0;
    size_t want = TOK_POOL_CHUNK, cut = 0;
    while (!(rc = fill(s, k, want)) && !s->eof) {
        /* the cut nearest the end: from the last quarter, else anywhere */
        size_t from = k->n - k->n / 4;
        cut = tok_pretok_cut((const uint8_t *)k->buf, k->n, from ? from : 1);
        if (cut == k->n)
            cut = tok_pretok_cut((const uint8_t *)k->buf, k->n, 1);
        if (cut < k->n)
            break;
        want = k->n * 2; /* no cut point yet: read on */
    }
    if (rc || s->eof)
        return rc;
    if ((rc = room(&s->carry, &s->cap_carry, k->n - cut)))
        return rc;
    s->n_carry = k->n - cut;
    memcpy(s->carry, k->buf + cut, s->n_carry);
    k->n = cut;
    return 0;
}

/* Takes chunk k (the reader, in order): 0, or 1 at the end of the input or on a read error
 * (s->rc, reported after the chunks before it). */
static int stream_take(tok_queue *q, size_t k)
{
    stream *s = (stream *)q;
    if (s->eof)
        return 1;
    pthread_mutex_lock(&s->cb);
    int rc = next_chunk(s, &s->ks[k % q->nslot]);
    pthread_mutex_unlock(&s->cb);
    return rc ? (s->rc = rc, 1) : 0;
}

static void stream_work(tok_queue *q, size_t k, tok_crew *w)
{
    stream *s = (stream *)q;
    chunk *c = &s->ks[k % q->nslot];
    size_t n_rep;
    c->bad = SIZE_MAX;
    c->rc = tok_encode_ob(w->t, c->buf, c->n, s->special, s->flags | TOK_NO_OFFSETS, &c->ids, &n_rep, &c->bad,
                          &c->e);
}

/* Emits chunk k's IDs, or says why it failed: 0 or that error (its message in s->err). */
static int stream_hand(tok_queue *q, size_t k)
{
    stream *s = (stream *)q;
    chunk *c = &s->ks[k % q->nslot];
    if (c->rc) {
        s->said = 1;
        if (c->bad == SIZE_MAX) {
            if (s->err)
                *s->err = c->e;
            return c->rc;
        }
        *s->bad_offset = c->base + c->bad; /* the message names the stream's offset, not the chunk's */
        if (c->rc == TOK_E_UTF8)
            return g2e_fail(s->err, c->rc, "invalid UTF-8 at byte offset %zu (byte 0x%02X)", *s->bad_offset,
                            (unsigned)(uint8_t)c->buf[c->bad]);
        return g2e_fail(s->err, c->rc, "the special token %s at byte offset %zu is not allowed here",
                        TOK_ENDOFTEXT_TEXT, *s->bad_offset);
    }
    pthread_mutex_lock(&s->cb);
    int stop = c->ids.n && s->emit(s->emit_user, c->ids.ids, c->ids.n);
    pthread_mutex_unlock(&s->cb);
    if (stop) {
        s->said = 1;
        return g2e_fail(s->err, TOKP_STOPPED, "stopped by the caller");
    }
    return 0;
}

int tok_pool_stream(tok_pool *p, tok_read_fn rd, void *rd_user, tok_special special, unsigned flags,
                    unsigned threads, tok_emit_fn emit, void *emit_user, size_t *bad_offset, int *sys_errno,
                    g2e_err *err)
{
    *bad_offset = SIZE_MAX;
    *sys_errno = 0;
    tok_ctx *c[TOK_POOL_MAX];
    tok_tokenizer *ts[TOK_POOL_MAX];
    unsigned m = take_some(p, c, threads_of(threads));
    if (!m)
        return g2e_fail(err, G2E_ENOMEM, "out of memory");
    for (unsigned j = 0; j < m; j++)
        ts[j] = c[j]->t;
    stream s = {.q = {.nslot = m > 1 ? (size_t)m * STREAM_SLOTS : 1, .take = stream_take, .work = stream_work,
                      .hand = stream_hand},
                .special = special, .flags = flags, .emit = emit, .emit_user = emit_user,
                .bad_offset = bad_offset, .err = err, .rd = rd, .rd_user = rd_user};
    s.ks = aligned_alloc(TOK_LINE_PAIR, s.q.nslot * sizeof *s.ks); /* (sizeof is a multiple of it) */
    int rc = s.ks ? 0 : G2E_ENOMEM;
    if (s.ks) {
        memset(s.ks, 0, s.q.nslot * sizeof *s.ks);
        pthread_mutex_init(&s.cb, NULL);
        rc = tok_queue_run(&s.q, ts, m, SIZE_MAX);
        pthread_mutex_destroy(&s.cb);
    }
    if (!rc && s.rc == TOKP_E_READ)
        rc = g2e_fail(err, s.rc, "reading the input failed: %s", strerror(s.sys_errno));
    else if (!rc && s.rc == TOKP_CANCELED)
        rc = g2e_fail(err, s.rc, "the read callback cancelled the stream");
    else if (!rc && s.rc)
        rc = g2e_fail(err, s.rc, "out of memory reading the input");
    else if (rc && !s.said)
        g2e_fail(err, rc, "out of memory"); /* (no room for the slots or the queue) */
    *sys_errno = s.sys_errno;
    for (size_t j = 0; s.ks && j < s.q.nslot; j++) {
        free(s.ks[j].buf);
        free(s.ks[j].ids.ids);
    }
    free(s.ks);
    free(s.carry);
    give_all(p, c, m);
    return rc;
}
