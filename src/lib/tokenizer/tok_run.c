/* SPDX-License-Identifier: MIT */
/* tok_run.c — the crew, the ordered queue and the batch on it (see tok_run.h).
 *
 * Measured reasons for the shape (bench/THREADS.md): threads are started on another CPU
 * (spread.h: on the 2-vCPU host a thread made with pthread_create waited 0.7-1.8 ms on its
 * creator's busy CPU); items are small and taken in turn so that a thread with easy text
 * (ASCII) takes more than one with hard text (CJK), and none waits long for the last; slots
 * are reused, so nothing is allocated or freed in the steady state. */
#include "tok_run.h"

#include "spread.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ the crew */

void tok_crew_run(tok_tokenizer *const *ctx, unsigned n, void *job, void *(*fn)(void *))
{
    tok_crew w[TOK_RUN_MAX];
    pthread_t th[TOK_RUN_MAX];
    int started[TOK_RUN_MAX] = {0};
    n = n > TOK_RUN_MAX ? TOK_RUN_MAX : n;
    for (unsigned k = 0; k < n; k++)
        w[k] = (tok_crew){job, ctx[k], k, {0}};
    for (unsigned k = 1; k < n; k++)
        started[k] = w[k].t && spread_create(&th[k], fn, &w[k], k - 1) == 0;
    if (n)
        fn(&w[0]);
    for (unsigned k = 1; k < n; k++)
        if (started[k])
            pthread_join(th[k], NULL);
    for (unsigned k = 0; k < n; k++)
        free(w[k].ids.ids);
}

/* t and its workers as contexts: n of them (t's thread count set to 1; the old one returned). */
static unsigned workers_as_ctx(tok_tokenizer *t, unsigned n, tok_tokenizer **ctx)
{
    unsigned threads = t->threads;
    tok_set_threads(t, 1);
    for (unsigned k = 0; k < n && k < TOK_RUN_MAX; k++)
        ctx[k] = tok_worker(t, k);
    return threads;
}

void tok_crew_run_on(tok_tokenizer *t, unsigned n, void *job, void *(*fn)(void *))
{
    tok_tokenizer *ctx[TOK_RUN_MAX];
    n = n > TOK_RUN_MAX ? TOK_RUN_MAX : n ? n : 1;
    unsigned threads = workers_as_ctx(t, n, ctx);
    tok_crew_run(ctx, n, job, fn);
    tok_set_threads(t, threads);
}

/* ------------------------------------------------------------ the queue */

/* Hands on every finished item that is next in order (mu held; released around hand). */
static void hand_on(tok_queue *q)
{
    while (!q->handing && !q->rc && q->handed < q->m && q->done[q->handed % q->nslot]) {
        size_t k = q->handed;
        q->handing = 1;
        pthread_mutex_unlock(&q->mu);
        int rc = q->hand(q, k);
        pthread_mutex_lock(&q->mu);
        q->handing = 0;
        q->done[k % q->nslot] = 0;
        q->handed++;
        q->rc = q->rc ? q->rc : rc;
        pthread_cond_broadcast(&q->cv);
    }
}

/* A member's loop: take, work, hand on, until the items or the queue (an error) end. */
static void *queue_loop(void *arg)
{
    tok_crew *w = arg;
    tok_queue *q = w->job;
    if (q->start)
        q->start(q, w->t);
    for (;;) {
        pthread_mutex_lock(&q->take_mu); /* the takers in turn; mu stays free for handing on */
        pthread_mutex_lock(&q->mu);
        while (!q->rc && q->next < q->m && q->next - q->handed >= q->nslot)
            pthread_cond_wait(&q->cv, &q->mu);
        size_t k = q->next;
        int stop = q->rc || k >= q->m;
        pthread_mutex_unlock(&q->mu);
        stop = stop || q->take(q, k);
        pthread_mutex_lock(&q->mu);
        if (stop && q->m == SIZE_MAX)
            q->m = k; /* no item k: the others stop waiting for it */
        q->next += !stop;
        pthread_cond_broadcast(&q->cv);
        pthread_mutex_unlock(&q->mu);
        pthread_mutex_unlock(&q->take_mu);
        if (stop)
            break;
        q->work(q, k, w);
        pthread_mutex_lock(&q->mu);
        q->done[k % q->nslot] = 1;
        hand_on(q);
        pthread_mutex_unlock(&q->mu);
    }
    return NULL;
}

int tok_queue_run(tok_queue *q, tok_tokenizer *const *ctx, unsigned n, size_t m)
{
    q->nslot = q->nslot ? q->nslot : 1;
    q->done = calloc(q->nslot, 1);
    if (!q->done)
        return G2E_ENOMEM;
    q->next = q->handed = 0;
    q->m = m;
    q->handing = q->rc = 0;
    pthread_mutex_init(&q->mu, NULL);
    pthread_mutex_init(&q->take_mu, NULL);
    pthread_cond_init(&q->cv, NULL);
    tok_crew_run(ctx, n, q, queue_loop);
    pthread_cond_destroy(&q->cv);
    pthread_mutex_destroy(&q->take_mu);
    pthread_mutex_destroy(&q->mu);
    free(q->done);
    q->done = NULL;
    return q->rc ? q->rc : q->handed < q->next ? G2E_ENOMEM : 0; /* (a member that never ran) */
}

int tok_queue_run_on(tok_queue *q, tok_tokenizer *t, unsigned n, size_t m)
{
    tok_tokenizer *ctx[TOK_RUN_MAX];
    n = n > TOK_RUN_MAX ? TOK_RUN_MAX : n ? n : 1;
    unsigned threads = workers_as_ctx(t, n, ctx);
    int rc = tok_queue_run(q, ctx, n, m);
    tok_set_threads(t, threads);
    return rc;
}

/* ------------------------------------------------------------ many texts at once */

/* Texts lo..hi-1 into o (IDs only), counts[i] and rc[i] each text's: texts one after another
 * in one buffer (lines of a file, say) together through tok_encode_joined, else one by one. */
static void batch_range(tok_tokenizer *t, size_t lo, size_t hi, const char *const *texts, const size_t *lens,
                        tok_special special, unsigned flags, obuf *o, size_t *counts, int *rc)
{
    size_t c = lo, nt = hi - lo;
    while (c + 1 < hi && texts[c] && texts[c] + lens[c] == texts[c + 1])
        c++;
    size_t *ends = nt > 1 && c + 1 == hi && texts[c] ? malloc(nt * sizeof *ends) : NULL;
    if (ends) {
        for (size_t k = 0, e = 0; k < nt; k++)
            ends[k] = e += lens[lo + k];
        int r = tok_encode_joined(t, texts[lo], ends, nt, special, flags, o, counts + lo, rc + lo);
        free(ends);
        if (r == 0)
            return;
    }
    for (size_t i = lo; i < hi; i++) {
        size_t before = o->n;
        rc[i] = tok_encode_append(t, texts[i], lens[i], special, flags, o, NULL);
        counts[i] = o->n - before;
    }
}

typedef struct batch_slot {
    _Alignas(TOK_LINE_PAIR) obuf o; /* (slots worked on at once by two threads share no line) */
} batch_slot;

typedef struct batch {
    tok_queue q;          /* (first: a tok_queue * is a batch *) */
    const char *const *texts;
    const size_t *lens;
    tok_special special;
    unsigned flags;
    size_t *counts;
    int *rc;
    size_t *lo;           /* (m + 1,) item k is texts lo[k] .. lo[k + 1] - 1 */
    batch_slot *slot;     /* (q.nslot,) */
    obuf out;             /* the result, items appended in order */
} batch;

static int batch_take(tok_queue *q, size_t k)
{
    (void)q, (void)k; /* the items are made: item k is there */
    return 0;
}

static void batch_work(tok_queue *q, size_t k, tok_crew *w)
{
    batch *b = (batch *)q;
    obuf *o = &b->slot[k % q->nslot].o;
    o->n = 0;
    batch_range(w->t, b->lo[k], b->lo[k + 1], b->texts, b->lens, b->special, b->flags, o, b->counts, b->rc);
}

static int batch_hand(tok_queue *q, size_t k)
{
    batch *b = (batch *)q;
    obuf *o = &b->slot[k % q->nslot].o;
    if (!o->n) /* (an item of empty texts: nothing to copy, and out may have no array yet) */
        return 0;
    if (tok_ob_grow(&b->out, o->n))
        return G2E_ENOMEM;
    memcpy(b->out.ids + b->out.n, o->ids, o->n * sizeof *o->ids);
    b->out.n += o->n;
    return 0;
}

/* The items: consecutive texts of about `size` bytes. A new array of *m + 1 starts, or NULL. */
static size_t *batch_items(size_t n, const size_t *lens, size_t size, size_t *m)
{
    size_t *lo = malloc((n + 1) * sizeof *lo), k = 0;
    if (!lo)
        return NULL;
    for (size_t i = 0; i < n;) {
        lo[k++] = i;
        for (size_t bytes = 0; i < n && (bytes == 0 || bytes + lens[i] <= size); i++)
            bytes += lens[i] ? lens[i] : 1;
    }
    lo[k] = n;
    *m = k;
    return lo;
}

static int batch_queue(batch *b, tok_tokenizer *const *ctx, unsigned n, size_t n_texts, size_t total)
{
    size_t m, size = total / ((size_t)n * TOK_RUN_BATCH_PER_THREAD);
    size = size > TOK_RUN_BATCH_ITEM ? size : TOK_RUN_BATCH_ITEM;
    size = ctx[0]->split_min < size ? ctx[0]->split_min : size;
    if (!(b->lo = batch_items(n_texts, b->lens, size, &m)))
        return G2E_ENOMEM;
    n = m < n ? (unsigned)m : n;
    b->q = (tok_queue){.nslot = (size_t)n * TOK_RUN_SLOTS, .take = batch_take, .work = batch_work,
                       .hand = batch_hand};
    b->slot = aligned_alloc(TOK_LINE_PAIR, b->q.nslot * sizeof *b->slot); /* (sizeof is a multiple of it) */
    int code = b->slot ? 0 : G2E_ENOMEM;
    if (b->slot) {
        memset(b->slot, 0, b->q.nslot * sizeof *b->slot);
        code = tok_queue_run(&b->q, ctx, n, m);
        for (size_t k = 0; k < b->q.nslot; k++)
            free(b->slot[k].o.ids);
    }
    free(b->slot);
    free(b->lo);
    return code;
}

int tok_run_batch(tok_tokenizer *const *ctx, unsigned n, size_t n_texts, const char *const *texts,
                  const size_t *lens, tok_special special, unsigned flags, uint32_t **ids, size_t *counts,
                  int *rc)
{
    *ids = NULL;
    size_t total = 0;
    for (size_t i = 0; i < n_texts; i++)
        total += lens[i];
    for (unsigned k = 0; k < n; k++)
        tok_caches_huge(ctx[k], total); /* what one text of that size asks for (its texts may be short) */
    batch b = {.texts = texts, .lens = lens, .special = special, .flags = flags | TOK_NO_OFFSETS,
               .counts = counts, .rc = rc};
    int code = 0;
    if (n < 2 || n_texts < 2 || total < 4096) /* (below 4 KB not worth a thread) */
        batch_range(ctx[0], 0, n_texts, texts, lens, b.special, b.flags, &b.out, counts, rc);
    else
        code = batch_queue(&b, ctx, n, n_texts, total);
    if (code) {
        free(b.out.ids);
        return G2E_ENOMEM;
    }
    *ids = b.out.ids;
    return 0;
}
