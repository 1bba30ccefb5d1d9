/* SPDX-License-Identifier: MIT */
/* tok_run.h — the one way the tokenizer runs over threads: a crew of threads, each with a
 * tokenizer of its own, and a queue of items that they take in order, work on at once and
 * hand on in order.
 *
 * Every parallel tokenization of the library runs here: the batches and streams of the
 * shared tokenizer (tok_pool.h), tok_encode_batch, and the program's writers (tok_stream.h:
 * IDs as text, JSON Lines, texts in documents). Work whose results need no order while
 * they are made (tok_encode's split of a large text, toks_count) runs on the same crew but
 * takes its items in regions (regions.h) instead of through the queue: measured faster
 * there (regions.h, bench/THREADS.md).
 *
 * Contexts: a member's tokenizer is ctx[k] (distinct tokenizers sharing one set of tables,
 * none used by another thread meanwhile: a tok_pool's contexts, or a tokenizer's workers,
 * tok_worker). Member 0 runs in the calling thread; member k >= 1 in a thread of its own
 * started on another CPU (spread.h), or not at all when ctx[k] is NULL or its thread cannot
 * be started: items are shared through the queue, so the others do its share. Every
 * thread is joined before a call returns.
 *
 * The queue: item k lives in slot k % nslot while it is in flight. A member takes the next
 * item once its slot is free (take: in order, one member at a time, allowed to block, e.g.
 * on a read), works on it (work: in parallel), then hands on every finished item that is
 * next in order (hand: one member at a time, in order), which frees their slots. Nothing
 * waits for more than the items it needs: a finished item is handed on as soon as the
 * ones before it are, whoever finished them. Memory is the slots': nslot items whatever
 * the input's length. The slots' contents are the caller's (a queue is embedded first in a
 * struct of the caller's, which the callbacks cast back to).
 *
 * Errors: take reports the end of the items (or an error the caller keeps for after the
 * items before it) by returning 1; hand returns a code that stops the queue (no later item
 * is taken or handed on). Nothing is printed; the codes are the callbacks' own, or
 * G2E_ENOMEM (no message: the callers word it).
 */
#ifndef G2E_TOK_RUN_H
#define G2E_TOK_RUN_H

#include "tok_internal.h"

#include <pthread.h>
#include <stddef.h>

#define TOK_RUN_MAX 64      /* the most members (tokenizer.c's limit of tok_set_threads) */
/* Slots per member that tok_stream's queues use: 3 or 2 instead of 4 took 1.011x / 1.016x
 * the time (bench/THREADS.md, 61 rounds). */
#define TOK_RUN_SLOTS 4

/* One member: the job it shares, its tokenizer, and IDs of its own (for work whose IDs are
 * done with before the item is handed on: one buffer a thread, not a slot). */
typedef struct tok_crew {
    _Alignas(TOK_LINE_PAIR) void *job; /* (a member's own lines: its ids.n is written all the time) */
    tok_tokenizer *t;
    unsigned k;                    /* which member: 0 is the calling thread */
    obuf ids;
} tok_crew;

/* Runs fn(&member) for the n (<= TOK_RUN_MAX) members over ctx[0..n) as above; returns when
 * all are done (their ids freed). */
void tok_crew_run(tok_tokenizer *const *ctx, unsigned n, void *job, void *(*fn)(void *));

typedef struct tok_queue tok_queue;
struct tok_queue {
    /* set by the caller */
    size_t nslot;
    /* makes item k: 0, or 1 when there is none (no more input, or an error kept by the
     * caller for after the items before it) */
    int (*take)(tok_queue *q, size_t k);
    void (*work)(tok_queue *q, size_t k, tok_crew *w);
    int (*hand)(tok_queue *q, size_t k);         /* 0 or a code, which stops the queue */
    void (*start)(tok_queue *q, tok_tokenizer *t); /* once per member before its first item, or NULL */
    /* the engine's */
    unsigned char *done; /* (nslot,) the slot's item is finished */
    pthread_mutex_t mu, take_mu;
    pthread_cond_t cv;
    size_t next, handed, m; /* the next item to take; items handed on; items in all (SIZE_MAX: not known yet) */
    int handing, rc;        /* a member is handing on; the first failure */
};

/* Runs q (m items, or SIZE_MAX when take tells the end) over the members ctx[0..n). Returns
 * 0 or q's first failure in order (hand's code), or G2E_ENOMEM (no room for the queue, or
 * no member ran an item that was taken). */
int tok_queue_run(tok_queue *q, tok_tokenizer *const *ctx, unsigned n, size_t m);

/* The same over t and its workers (tok_worker(t, k) for member k; t's thread count is 1
 * meanwhile, as tok_worker asks, and restored after). For one caller at a time on t. */
int tok_queue_run_on(tok_queue *q, tok_tokenizer *t, unsigned n, size_t m);
void tok_crew_run_on(tok_tokenizer *t, unsigned n, void *job, void *(*fn)(void *));

/* ---- many texts at once, on the queue ---- */

/* tok_encode_batch's work (tokenizer.h) over the members ctx[0..n): the texts in items of
 * consecutive texts, TOK_RUN_BATCH_PER_THREAD items per thread but at least
 * TOK_RUN_BATCH_ITEM bytes each (and at least one text; ctx[0]'s split size when smaller,
 * tok_set_split_min: tests cut small batches), taken in turn; each item's IDs are appended
 * to the result in order. Few large items rather than many small ones keep each thread's
 * piece cache on a stretch of the texts (as the split of one text does, 16 parts a
 * thread: tokenizer.c). One member (or a batch below
 * 4 KB, not worth a thread) works in the calling thread, straight into the result. */
#define TOK_RUN_BATCH_ITEM ((size_t)64 << 10)
#define TOK_RUN_BATCH_PER_THREAD 16
int tok_run_batch(tok_tokenizer *const *ctx, unsigned n, size_t n_texts, const char *const *texts,
                  const size_t *lens, tok_special special, unsigned flags, uint32_t **ids, size_t *counts,
                  int *rc);

#endif
