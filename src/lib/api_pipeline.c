/* SPDX-License-Identifier: MIT */
/* api_pipeline.c — the public door to the engine's queue (src/gpt2embed.h: the ordered
 * pipeline, its workers' tokenize calls, the safe cuts of a text): the calls the program's
 * token writers run on, as any C user may. */
#define _GNU_SOURCE /* memmem */
#include "api_internal.h"

#include "engine.h"
#include "status.h"
#include "tokenizer.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A worker is the engine's member (its context, its index, its IDs): the public type is
 * only ever a pointer to one. */
static eng_member *member(gpt2embed_worker *w) { return (eng_member *)(void *)w; }

/* The caller's pipeline on an engine queue. */
typedef struct pipe_job {
    gpt2embed_pipeline *p;
    size_t n_items;
    int ended;   /* take said there are no more (it is not asked again) */
    size_t stopped_at;
} pipe_job;

static int pipe_take(eng_queue *q, size_t k)
{
    pipe_job *j = q->job;
    if (k == 0) /* (the first take: the run's shape is known) */
        j->p->n_slots = q->nslot, j->p->n_threads = q->members;
    if (j->ended || k >= j->n_items || j->p->take(j->p->user, k, q->slot ? eng_slot(q, k) : NULL))
        return j->ended = 1, 1;
    return 0;
}

static void pipe_work(eng_queue *q, size_t k, eng_member *w)
{
    pipe_job *j = q->job;
    j->p->work(j->p->user, k, q->slot ? eng_slot(q, k) : NULL, (gpt2embed_worker *)(void *)w);
}

static int pipe_hand(eng_queue *q, size_t k)
{
    pipe_job *j = q->job;
    if (!j->p->hand || !j->p->hand(j->p->user, k, q->slot ? eng_slot(q, k) : NULL))
        return 0;
    j->stopped_at = k;
    return ENG_STOPPED;
}

gpt2embed_status gpt2embed_pipeline_run(gpt2embed_tokenizer *t, gpt2embed_pipeline *p, size_t n_items,
                                        unsigned n_threads, gpt2embed_error *err)
{
    eng *e = g2e_api_engine(t);
    if (!e || !p || !p->take || !p->work)
        return g2e_api_say(GPT2EMBED_E_ARG, err, "gpt2embed_pipeline_run: NULL argument");
    if (p->slot_size > ((size_t)1 << 40))
        return g2e_api_say(GPT2EMBED_E_TOO_LARGE, err, "gpt2embed_pipeline_run: a slot larger than 2^40 bytes");
    pipe_job j = {.p = p, .n_items = n_items};
    eng_queue q = {.slot_size = p->slot_size, .take = pipe_take, .work = pipe_work, .hand = pipe_hand, .job = &j};
    p->n_slots = 0;
    p->n_threads = 0;
    int rc = eng_run(e, &q, n_threads, n_items);
    p->n_slots = q.nslot, p->n_threads = q.members;
    if (q.slot && p->release)
        for (size_t k = 0; k < q.nslot; k++)
            p->release(p->user, eng_slot(&q, k));
    free(q.slot);
    if (rc == ENG_STOPPED) {
        char msg[96];
        snprintf(msg, sizeof msg, "stopped by the caller's hand at item %zu", j.stopped_at);
        return g2e_api_detail(GPT2EMBED_E_STOPPED, err, msg, GPT2EMBED_NONE, j.stopped_at);
    }
    return rc ? g2e_api_say(GPT2EMBED_E_NOMEM, err, "out of memory") : GPT2EMBED_OK;
}

unsigned gpt2embed_worker_index(const gpt2embed_worker *w)
{
    return w ? ((const eng_member *)(const void *)w)->k : 0;
}

void gpt2embed_worker_expect(gpt2embed_worker *w, size_t bytes)
{
    if (w)
        tok_caches_huge(member(w)->t, bytes);
}

/* w's member with its IDs emptied, and the tokenizer's arguments of public flags; NULL when
 * the flags are unknown. */
static eng_member *worker_start(gpt2embed_worker *w, unsigned flags, tok_special *sp, unsigned *tf)
{
    int s = g2e_api_special(flags);
    *sp = (tok_special)s;
    *tf = TOK_NO_OFFSETS | (flags & GPT2EMBED_LOSSY ? TOK_LOSSY : 0);
    if (s < 0)
        return NULL;
    member(w)->ids.n = 0;
    return member(w);
}

#define WORKER_BAD_FLAGS(fn) \
    g2e_api_say(GPT2EMBED_E_ARG, err, fn ": unknown flags, or both SPECIAL_TEXT and SPECIAL_ERROR")

gpt2embed_status gpt2embed_worker_tokenize(gpt2embed_worker *w, const char *text, size_t len, unsigned flags,
                                           const uint32_t **ids, size_t *n, gpt2embed_error *err)
{
    if (ids)
        *ids = NULL;
    if (n)
        *n = 0;
    if (!w || !ids || !n || (len && !text))
        return g2e_api_say(GPT2EMBED_E_ARG, err, "gpt2embed_worker_tokenize: NULL argument");
    tok_special sp;
    unsigned tf;
    eng_member *m = worker_start(w, flags, &sp, &tf);
    if (!m)
        return WORKER_BAD_FLAGS("gpt2embed_worker_tokenize");
    g2e_err e;
    /* room once for the most a text can give: never grown by copies (eng_chunk_ids_room) */
    int rc = tok_ob_grow(&m->ids, eng_chunk_ids_room(len));
    rc = rc ? g2e_fail(&e, rc, "out of memory") : tok_encode_append(m->t, len ? text : "", len, sp, tf, &m->ids, &e);
    if (rc) {
        size_t bad = GPT2EMBED_NONE;
        if (rc == TOK_E_UTF8)
            bad = tok_utf8_check(text, len);
        else if (rc == TOK_E_SPECIAL)
            bad = (size_t)((const char *)memmem(text, len, TOK_ENDOFTEXT_TEXT, sizeof TOK_ENDOFTEXT_TEXT - 1) - text);
        return g2e_api_detail(g2e_status_of(rc), err, e.msg, bad, GPT2EMBED_NONE);
    }
    *ids = m->ids.ids;
    *n = m->ids.n;
    return GPT2EMBED_OK;
}

gpt2embed_status gpt2embed_worker_tokenize_many(gpt2embed_worker *w, const char *text, const size_t *ends,
                                                size_t n_texts, unsigned flags, const uint32_t **ids,
                                                size_t *counts, gpt2embed_status *statuses, gpt2embed_error *err)
{
    if (ids)
        *ids = NULL;
    if (!w || !ids || (n_texts && (!ends || !counts)) || (n_texts && ends[n_texts - 1] && !text))
        return g2e_api_say(GPT2EMBED_E_ARG, err, "gpt2embed_worker_tokenize_many: NULL argument");
    for (size_t k = 1; k < n_texts; k++)
        if (ends[k] < ends[k - 1])
            return g2e_api_detail(GPT2EMBED_E_ARG, err, "gpt2embed_worker_tokenize_many: ends decrease",
                                  GPT2EMBED_NONE, k);
    tok_special sp;
    unsigned tf;
    eng_member *m = worker_start(w, flags, &sp, &tf);
    if (!m)
        return WORKER_BAD_FLAGS("gpt2embed_worker_tokenize_many");
    enum { BATCH = 64 };
    int rcs[BATCH];
    /* in batches of texts (rcs on the stack), IDs appended one batch after another */
    for (size_t a = 0; a < n_texts; a += BATCH) {
        size_t k = n_texts - a < BATCH ? n_texts - a : BATCH, base = a ? ends[a - 1] : 0, rel[BATCH];
        for (size_t i = 0; i < k; i++)
            rel[i] = ends[a + i] - base;
        if (tok_encode_joined(m->t, text ? text + base : "", rel, k, sp, tf, &m->ids, counts + a, rcs))
            return g2e_api_say(GPT2EMBED_E_NOMEM, err, "out of memory");
        for (size_t i = 0; i < k; i++) {
            if (statuses)
                statuses[a + i] = g2e_status_of(rcs[i]);
            else if (rcs[i])
                return g2e_api_detail(g2e_status_of(rcs[i]), err,
                                      "gpt2embed_worker_tokenize_many: a text the tokenizer refuses (tokenize it "
                                      "alone for the reason)", GPT2EMBED_NONE, a + i);
        }
    }
    *ids = m->ids.ids;
    return GPT2EMBED_OK;
}

gpt2embed_status gpt2embed_text_cuts(const char *text, size_t len, size_t chunk_bytes, unsigned n_threads,
                                     size_t **cuts, size_t *n_chunks, gpt2embed_error *err)
{
    if (cuts)
        *cuts = NULL;
    if (n_chunks)
        *n_chunks = 0;
    if (!cuts || !n_chunks || (len && !text))
        return g2e_api_say(GPT2EMBED_E_ARG, err, "gpt2embed_text_cuts: NULL argument");
    size_t m;
    size_t *c = eng_cuts(len ? text : "", len, chunk_bytes ? chunk_bytes : GPT2EMBED_CHUNK,
                         g2e_threads_for(n_threads, SIZE_MAX), &m);
    if (!c)
        return g2e_api_say(GPT2EMBED_E_NOMEM, err, "out of memory");
    *cuts = c;
    *n_chunks = m;
    return GPT2EMBED_OK;
}
