/* SPDX-License-Identifier: MIT */
/* engine.c — contexts, the crew, the queue, stretches, chunks and the reader (engine.h).
 *
 * Measured reasons for the shape (bench/THREADS.md): a member's thread starts on another CPU
 * than its maker's; chunks are small and taken in turn, so a member with easy text (ASCII)
 * takes more than one with hard text (CJK) and none waits long for the last; slots are
 * reused, so nothing is allocated or freed in the steady state; unordered work goes in
 * stretches, so each member's caches learn one part of the text. */
#define _GNU_SOURCE /* sched_getcpu, pthread_attr_setaffinity_np */
#include "engine.h"

#include "tok_pretok.h"

#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------ contexts */

#define SPARE UINT32_MAX /* the slot of a context made for one call */

typedef struct ctx {
    tok_tokenizer *t;
    unsigned slot;
} ctx;

struct eng {
    pthread_mutex_t mu;
    tok_tokenizer *t;              /* owned: context 0 and the tables of every other */
    tok_tokenizer *kept[G2E_THREADS_MAX]; /* kept[0..made): kept[0] is t */
    unsigned made;
    unsigned idle[G2E_THREADS_MAX]; /* the indices of the idle ones (a stack) */
    unsigned n_idle;
    size_t chunk;
};

int eng_new(eng **out, tok_tokenizer *t, g2e_err *err)
{
    *out = NULL;
    eng *e = calloc(1, sizeof *e);
    if (!e || pthread_mutex_init(&e->mu, NULL) != 0) {
        free(e);
        tok_close(t);
        return g2e_fail(err, G2E_ENOMEM, "out of memory");
    }
    e->t = t;
    e->chunk = ENG_CHUNK;
    *out = e;
    return 0;
}

void eng_free(eng *e)
{
    if (!e)
        return;
    for (unsigned k = 1; k < e->made; k++)
        tok_close(e->kept[k]);
    tok_close(e->t);
    pthread_mutex_destroy(&e->mu);
    free(e);
}

const tok_tokenizer *eng_tables(const eng *e) { return e->t; }
void eng_set_chunk(eng *e, size_t bytes) { e->chunk = bytes ? bytes : 1; }
size_t eng_chunk(const eng *e) { return e->chunk; }

/* An idle kept context, else a new one while fewer than G2E_THREADS_MAX exist; -1 when
 * neither (or out of memory). mu held. */
static int take_kept(eng *e)
{
    if (e->n_idle)
        return (int)e->idle[--e->n_idle];
    if (e->made == G2E_THREADS_MAX)
        return -1;
    /* a clone shares the tables; making it reads only them */
    tok_tokenizer *c = e->made ? tok_clone(e->t) : e->t;
    if (!c)
        return -1;
    e->kept[e->made] = c;
    return (int)e->made++;
}

tok_tokenizer *eng_take(eng *e)
{
    pthread_mutex_lock(&e->mu);
    int k = take_kept(e);
    pthread_mutex_unlock(&e->mu);
    return k >= 0 ? e->kept[k] : tok_clone(e->t); /* (a spare: eng_give closes it) */
}

void eng_give(eng *e, tok_tokenizer *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&e->mu);
    unsigned k = 0;
    while (k < e->made && e->kept[k] != c)
        k++;
    int spare = k == e->made; /* decided under mu: another call may make a context after it */
    if (!spare)
        e->idle[e->n_idle++] = k;
    pthread_mutex_unlock(&e->mu);
    if (spare)
        tok_close(c);
}

/* Up to `want` contexts at once, never waiting: the first as eng_take gives it, the others
 * only while kept ones are idle or can be made. Returns how many (0: out of memory). */
static unsigned take_some(eng *e, tok_tokenizer **c, unsigned want)
{
    if (!want || !(c[0] = eng_take(e)))
        return 0;
    unsigned got = 1;
    pthread_mutex_lock(&e->mu);
    for (int k; got < want && (k = take_kept(e)) >= 0;)
        c[got++] = e->kept[k];
    pthread_mutex_unlock(&e->mu);
    return got;
}

static void give_all(eng *e, tok_tokenizer **c, unsigned n)
{
    for (unsigned k = 0; k < n; k++)
        eng_give(e, c[k]);
}

/* ------------------------------------------------------------ the crew */

/* A thread started on one CPU other than its maker's, which then takes back its maker's
 * whole allowed set: never pinned, but not first queued behind its busy maker. */
typedef struct start {
    void *(*fn)(void *);
    void *arg;
    cpu_set_t all;
} start;

static void *trampoline(void *p)
{
    start s = *(start *)p;
    free(p);
    /* (if this fails the thread stays on its one CPU, which still runs it) */
    pthread_setaffinity_np(pthread_self(), sizeof s.all, &s.all);
    return s.fn(s.arg);
}

int eng_start_cpu(const cpu_set_t *all, int me, unsigned k)
{
    int others = CPU_COUNT(all) - (CPU_ISSET(me, all) ? 1 : 0);
    if (others < 1)
        return -1;
    unsigned want = k % (unsigned)others;
    for (int i = 1; i < CPU_SETSIZE; i++) {
        int c = (me + i) % CPU_SETSIZE;
        if (CPU_ISSET(c, all) && want-- == 0)
            return c;
    }
    return -1;
}

/* pthread_create(th, NULL, fn, arg), the thread starting on the k-th CPU other than the
 * caller's (round robin); a plain pthread_create when there is none or the CPU set cannot
 * be read or set. 0 or pthread_create's error. */
static int start_thread(pthread_t *th, void *(*fn)(void *), void *arg, unsigned k)
{
    int me = sched_getcpu(), cpu = -1;
    start *s = malloc(sizeof *s);
    if (s && me >= 0 && me < CPU_SETSIZE && sched_getaffinity(0, sizeof s->all, &s->all) == 0)
        cpu = eng_start_cpu(&s->all, me, k);
    pthread_attr_t at;
    if (cpu >= 0 && pthread_attr_init(&at) == 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        s->fn = fn;
        s->arg = arg;
        int rc = pthread_attr_setaffinity_np(&at, sizeof one, &one) == 0 ? pthread_create(th, &at, trampoline, s) : -1;
        pthread_attr_destroy(&at);
        if (rc == 0)
            return 0; /* (s is the thread's to free) */
    }
    free(s);
    return pthread_create(th, NULL, fn, arg);
}

/* fn(&member) for the members over the contexts c[0..n): member 0 in the calling thread,
 * the others in threads of their own (a member whose thread cannot be started does not run:
 * the others take its items). Returns when all are done, their IDs freed. */
static void crew_run(tok_tokenizer *const *c, unsigned n, void *job, void *(*fn)(void *))
{
    eng_member w[G2E_THREADS_MAX];
    pthread_t th[G2E_THREADS_MAX];
    int started[G2E_THREADS_MAX] = {0};
    for (unsigned k = 0; k < n; k++)
        w[k] = (eng_member){.job = job, .t = c[k], .k = k};
    for (unsigned k = 1; k < n; k++)
        started[k] = start_thread(&th[k], fn, &w[k], k - 1) == 0;
    if (n)
        fn(&w[0]);
    for (unsigned k = 1; k < n; k++)
        if (started[k])
            pthread_join(th[k], NULL);
    for (unsigned k = 0; k < n; k++)
        free(w[k].ids.ids);
}

/* ------------------------------------------------------------ the queue */

/* Hands on every finished item that is next in order (mu held; released around hand). */
static void hand_on(eng_queue *q)
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
    eng_member *w = arg;
    eng_queue *q = w->job;
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

int eng_run(eng *e, eng_queue *q, unsigned threads, size_t m)
{
    tok_tokenizer *c[G2E_THREADS_MAX];
    q->nslot = 0;
    q->slot = NULL;
    q->done = NULL;
    unsigned n = take_some(e, c, g2e_threads_for(threads, m));
    if (!n)
        return G2E_ENOMEM;
    q->nslot = n > 1 ? (size_t)n * ENG_SLOTS : 1;
    q->members = n;
    q->done = calloc(q->nslot, 1);
    /* slots worked on at once by two threads share no line */
    q->slot_size = (q->slot_size + TOK_LINE_PAIR - 1) & ~(size_t)(TOK_LINE_PAIR - 1);
    if (q->slot_size)
        q->slot = aligned_alloc(TOK_LINE_PAIR, q->nslot * q->slot_size);
    if (!q->done || (q->slot_size && !q->slot)) {
        free(q->done);
        give_all(e, c, n);
        return G2E_ENOMEM;
    }
    if (q->slot)
        memset(q->slot, 0, q->nslot * q->slot_size);
    q->next = q->handed = 0;
    q->m = m;
    q->handing = q->rc = 0;
    pthread_mutex_init(&q->mu, NULL);
    pthread_mutex_init(&q->take_mu, NULL);
    pthread_cond_init(&q->cv, NULL);
    crew_run(c, n, q, queue_loop);
    pthread_cond_destroy(&q->cv);
    pthread_mutex_destroy(&q->take_mu);
    pthread_mutex_destroy(&q->mu);
    free(q->done);
    q->done = NULL;
    give_all(e, c, n);
    return q->rc ? q->rc : q->handed < q->next ? G2E_ENOMEM : 0; /* (a member that never ran) */
}

/* ------------------------------------------------------------ stretches */

/* The items left of a stretch, lo << 32 | hi, changed by compare-and-swap: its owner takes
 * lo (lo + 1), a thief hi - 1 (hi - 1); no item is taken twice or missed. */
typedef struct stretch {
    _Alignas(TOK_LINE_PAIR) _Atomic uint64_t left; /* (each on lines of its own: two members write it) */
} stretch;

typedef struct each {
    stretch *s; /* (n,) */
    unsigned n;
    void *job;
    void (*fn)(void *job, size_t k, eng_member *w);
} each;

static int stretch_take(stretch *r, int front, size_t *k)
{
    uint64_t v = atomic_load(&r->left);
    for (;;) {
        uint64_t lo = v >> 32, hi = v & 0xFFFFFFFFu;
        if (lo >= hi)
            return 0;
        uint64_t nv = front ? (lo + 1) << 32 | hi : lo << 32 | (hi - 1);
        if (atomic_compare_exchange_weak(&r->left, &v, nv)) {
            *k = front ? (size_t)lo : (size_t)(hi - 1);
            return 1;
        }
    }
}

/* The next item for member me: the front of its own stretch, else the back of the stretch
 * with the most left; 0 when every item has been taken. */
static int stretch_next(each *x, unsigned me, size_t *k)
{
    if (stretch_take(&x->s[me], 1, k))
        return 1;
    for (;;) {
        unsigned best = x->n;
        uint64_t most = 0;
        for (unsigned i = 0; i < x->n; i++) {
            uint64_t v = atomic_load(&x->s[i].left), lo = v >> 32, hi = v & 0xFFFFFFFFu;
            if (lo < hi && hi - lo > most)
                most = hi - lo, best = i;
        }
        if (best == x->n)
            return 0;
        if (stretch_take(&x->s[best], 0, k))
            return 1;
    }
}

static void *each_loop(void *arg)
{
    eng_member *w = arg;
    each *x = w->job;
    w->job = x->job;
    for (size_t k; stretch_next(x, w->k, &k);)
        x->fn(x->job, k, w);
    return NULL;
}

unsigned eng_each(eng *e, unsigned threads, size_t m, void *job, void (*fn)(void *job, size_t k, eng_member *w))
{
    tok_tokenizer *c[G2E_THREADS_MAX];
    if (m > 0xFFFFFFFFu) /* (a stretch's word holds two 32-bit indices) */
        return 0;
    unsigned n = take_some(e, c, g2e_threads_for(threads, m));
    each x = {.s = n ? aligned_alloc(_Alignof(stretch), n * sizeof *x.s) : NULL, .n = n, .job = job, .fn = fn};
    if (!x.s) {
        give_all(e, c, n);
        return 0;
    }
    for (unsigned i = 0; i < n; i++)
        atomic_init(&x.s[i].left, (uint64_t)(m * i / n) << 32 | (uint64_t)(m * (i + 1) / n));
    crew_run(c, n, &x, each_loop);
    free(x.s);
    give_all(e, c, n);
    return n;
}

/* ------------------------------------------------------------ chunks */

size_t eng_chunk_ids_room(size_t len)
{
    /* one a byte (a token has at least one byte), or past ENG_CHUNK_BIG the usual guess,
     * grown as needed */
    return len > ENG_CHUNK_BIG ? len / 4 + 16 : len + 1;
}

/* The size of the next chunk when `left` bytes are left: `size`, or on several threads a
 * quarter of what is left per thread once that is less, but no less than ENG_CHUNK_LAST (or
 * size, when smaller): the threads' last chunks then end closer together. */
static size_t taper(size_t size, size_t left, unsigned threads)
{
    size_t q = threads > 1 ? left / (4 * (size_t)threads) : size;
    return q >= size ? size : q > ENG_CHUNK_LAST ? q : size < ENG_CHUNK_LAST ? size : ENG_CHUNK_LAST;
}

size_t *eng_cuts(const char *s, size_t n, size_t size, unsigned threads, size_t *m_out)
{
    size = size ? size : 1;
    size_t most = n / (size < ENG_CHUNK_LAST ? size : ENG_CHUNK_LAST) + 2, m = 0, lim = n - 3; /* (no chunk is smaller) */
    size_t *cut = malloc(most * sizeof *cut);
    if (!cut)
        return NULL;
    cut[0] = 0;
    for (size_t from = size; n >= 8 && from < lim; from = cut[m] + taper(size, n - cut[m], threads)) {
        size_t c = tok_pretok_cut((const uint8_t *)s, lim, from);
        if (c >= lim)
            break;
        cut[++m] = c;
    }
    cut[++m] = n;
    *m_out = m;
    return cut;
}

/* ------------------------------------------------------------ the reader */

int eng_reader_more(eng_reader *r, size_t max)
{
    int rc = rd_more(r, max);
    return rc == RD_FULL ? ENG_E_LONG : rc == RD_FAIL ? ENG_E_READ : rc == RD_CANCELED ? ENG_CANCELED : rc;
}

int eng_push_start(size_t **a, size_t *n, size_t *cap, size_t first, size_t v)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : first;
        size_t *q = realloc(*a, c * sizeof *q);
        if (!q)
            return -1;
        *a = q, *cap = c;
    }
    (*a)[(*n)++] = v;
    return 0;
}
