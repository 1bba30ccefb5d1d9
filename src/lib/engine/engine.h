/* SPDX-License-Identifier: MIT */
/* engine.h — the one runner of tokenization on threads.
 *
 * The tokenizer's core (src/lib/tokenizer) works on the calling thread and knows nothing of
 * threads. Everything that runs it on several threads runs here, on four parts:
 *
 *   contexts  an eng is a tokenizer shared by threads: its tables once, and contexts (core
 *             tokenizers over those tables, each with caches and scratch of its own, about
 *             2 MB) handed out to calls. No call ever waits for one: eng_take gives an idle
 *             context, a new kept one while fewer than G2E_THREADS_MAX exist, else a spare
 *             one made for the call; a call that would use several threads takes only kept
 *             contexts that are idle or can be made (at least one), and runs on fewer
 *             threads rather than wait. So callers may ask for any number of threads at once
 *             and a callback may tokenize on the same eng: nothing can deadlock.
 *   the crew  member 0 is the calling thread, members 1.. threads of their own, each with a
 *             context; a member's thread starts on another CPU than its maker's (the
 *             scheduler may first queue a new thread on its maker's busy CPU:
 *             bench/THREADS.md), then may move freely. One thread cap: g2e_threads_for.
 *   the queue items taken in order (take: one member at a time, allowed to block, e.g. on a
 *             read), worked on at once (work), handed on in order (hand) by whichever member
 *             finishes the oldest; a slot per item in flight, ENG_SLOTS per member, reused,
 *             so memory does not grow with the input. Work whose results need no order while
 *             they are made runs on eng_each instead: each member takes the items of a
 *             stretch of its own, then items from the back of the others' stretches, so its
 *             caches learn one part of the text (bench/THREADS.md).
 *   chunks    where a text may be cut: tok_pretok_cut (a whitespace character after a
 *             non-whitespace one; the proof is in tok_pretok.c), in chunks of about
 *             eng_chunk bytes (ENG_CHUNK), smaller towards the end on several threads.
 *
 * The jobs on them give exactly the IDs of the text tokenized whole on one thread: batches
 * of texts (eng_batch), a text read as it comes, in documents (eng_stream), the split of one
 * large text (eng_encode), counts (eng_count); the program's writers bring their own take,
 * work and hand to eng_run.
 *
 * Thread safety: every call but eng_free may run on any number of threads at once. Nothing
 * is printed; errors are codes (tokenizer.h's, ENG_* below, G2E_ENOMEM) and a message.
 */
#ifndef G2E_ENGINE_H
#define G2E_ENGINE_H

#include "cpus.h"
#include "rdbuf.h"
#include "text.h"
#include "tok_internal.h"

#include <pthread.h>
#include <sched.h> /* cpu_set_t */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Status codes of this module and the public status each is reported as (err.h). */
#define ENG_CODES(X) \
    X(ENG_E_READ, IO) /* the input's read failed (errno in sys_errno) */ \
    X(ENG_CANCELED, STOPPED) /* the read callback returned -1 with errno ECANCELED */ \
    X(ENG_STOPPED, STOPPED) /* a callback (put, hand) asked to stop */ \
    X(ENG_E_LONG, TOO_LARGE) /* more than ENG_MAX_RUN bytes without a place to cut */
G2E_CODES(ENG, ENG_CODES);

#define ENG_CHUNK ((size_t)64 << 10)      /* bytes a chunk or a batch's item is made of, about */
#define ENG_CHUNK_LAST ((size_t)32 << 10) /* the smallest a tapered chunk gets */
#define ENG_CHUNK_BIG ((size_t)1 << 20)   /* a chunk past this is a long run with no place to cut */
#define ENG_SLOTS 4                       /* items in flight per member on the queue */
/* eng_encode splits a text of at least this many chunks (a smaller one is done before
 * other threads' cold caches would pay for themselves). */
#define ENG_SPLIT_CHUNKS 16
#define ENG_MAX_RUN ((size_t)64 << 20)    /* 64 MiB: a stream holds at most this without a cut */

typedef struct eng eng;

/* ---- contexts ---- */

/* A shared tokenizer over t, which it owns from now on (also on failure: then t is closed). */
int eng_new(eng **out, tok_tokenizer *t, g2e_err *err);
/* Frees e, its contexts and its tokenizer. Accepts NULL. No call may be running. */
void eng_free(eng *e);
/* The tables, for calls that only read them (tok_piece, tok_decode, tok_n_vocab). */
const tok_tokenizer *eng_tables(const eng *e);
/* A context for the calling thread, never waiting; NULL when out of memory. */
tok_tokenizer *eng_take(eng *e);
void eng_give(eng *e, tok_tokenizer *c);

/* The chunk size of e's jobs (ENG_CHUNK; tests set a few bytes to cut small texts
 * everywhere: the results never change, only where the work is divided). At least 1. */
void eng_set_chunk(eng *e, size_t bytes);
size_t eng_chunk(const eng *e);

/* ---- the crew and the queue ---- */

/* The CPU a member's thread k (0 for member 1) starts on: the k-th CPU (round robin) of
 * `all` after `me` other than me, or -1 when `all` holds no other. */
int eng_start_cpu(const cpu_set_t *all, int me, unsigned k);

/* A member of a run: its context, which member it is (0: the calling thread), the run's job,
 * and IDs of its own for work whose IDs are done with before its item is handed on. */
typedef struct eng_member {
    _Alignas(TOK_LINE_PAIR) void *job; /* (a member's own lines: its ids.n is written all the time) */
    tok_tokenizer *t;
    unsigned k;
    obuf ids;
} eng_member;

typedef struct eng_queue eng_queue;
struct eng_queue {
    /* set by the caller */
    size_t slot_size; /* bytes of one slot (eng_run rounds it up to a multiple of
                         TOK_LINE_PAIR), or 0: no slots */
    /* makes item k (in slot k % nslot): 0, or 1 when there is none (no more input, or an
     * error the caller keeps for after the items before it) */
    int (*take)(eng_queue *q, size_t k);
    void (*work)(eng_queue *q, size_t k, eng_member *w);
    int (*hand)(eng_queue *q, size_t k); /* 0 or a code, which stops the queue */
    void (*start)(eng_queue *q, tok_tokenizer *t); /* once per member before its first item, or NULL */
    void *job;    /* the caller's, for the callbacks */
    /* set by eng_run before the first take, and left for the caller after it returns: free
     * what the slots hold, then free(slot) */
    size_t nslot; /* items in flight: ENG_SLOTS per member, or 1 on one member */
    unsigned members; /* the members the run has */
    void *slot;   /* (nslot * slot_size) zeroed bytes aligned to TOK_LINE_PAIR, or NULL */
    /* the engine's */
    unsigned char *done;
    pthread_mutex_t mu, take_mu;
    pthread_cond_t cv;
    size_t next, handed, m;
    int handing, rc;
};

/* Slot k % q->nslot of q's slots. */
static inline void *eng_slot(const eng_queue *q, size_t k)
{
    return (char *)q->slot + (k % q->nslot) * q->slot_size;
}

/* Runs q (m items, or SIZE_MAX when take tells the end) on up to g2e_threads_for(threads,
 * m) members (fewer when contexts are busy). Returns 0, q's first failure in order (hand's
 * code), or G2E_ENOMEM. */
int eng_run(eng *e, eng_queue *q, unsigned threads, size_t m);

/* fn(job, k, member) for the items 0..m-1 on up to `threads` members, in stretches (above):
 * for work whose results need no order while they are made. Returns how many members ran
 * (at least 1), or 0 when out of memory (nothing run). fn may stop the others early through
 * a flag of the job's that it checks itself. */
unsigned eng_each(eng *e, unsigned threads, size_t m, void *job, void (*fn)(void *job, size_t k, eng_member *w));

/* ---- chunks ---- */

/* The cuts of s[0..n) into chunks of about `size` bytes (smaller towards the end on several
 * threads): a new array of *m + 1 offsets, chunk k being [cut[k], cut[k + 1]), or NULL (out
 * of memory). Cuts are searched in s[0..n-3), so a lead byte of invalid input is never
 * decoded past the end; whether the chunks are valid is the tokenizer's check (valid chunks
 * concatenate to a valid text and back). */
size_t *eng_cuts(const char *s, size_t n, size_t size, unsigned threads, size_t *m);
/* IDs room to reserve once for a chunk of len bytes (tok_ob_grow). */
size_t eng_chunk_ids_room(size_t len);

/* ---- the input, read in pieces (rdbuf.h) ---- */

typedef rd_fn eng_read_fn;
typedef rdbuf eng_reader;

/* rd_more with the engine's codes: 0; ENG_E_LONG (the buffer is max bytes and full);
 * G2E_ENOMEM; ENG_E_READ or ENG_CANCELED (r->sys_errno set; a read that returned -1 is never
 * called again). */
int eng_reader_more(eng_reader *r, size_t max);

/* ---- jobs ---- */

/* Appends v to the growable array *a (*n used, *cap allocated; the first allocation holds
 * `first`, then it doubles): where documents start among a chunk's IDs. 0, or -1 when out
 * of memory (*a as it was). */
int eng_push_start(size_t **a, size_t *n, size_t *cap, size_t first, size_t v);

/* The n texts texts[i][0 .. lens[i]) as tok_encode would each (special, flags; IDs only), on
 * up to `threads` members in items of consecutive texts (texts one after another in memory
 * are tokenized together: tok_encode_joined). *ids: every text's IDs one after another (a
 * new array, caller frees; NULL when none), counts[i] text i's count. With rcs (n of them)
 * each text's status goes there (0, or tok_encode's code; then its count is 0) and only
 * running out of memory fails the call; without, a text's error fails it: its code,
 * *bad_text its index, *bad_offset the byte in it (or SIZE_MAX), the message in err, *ids
 * NULL. */
int eng_batch(eng *e, unsigned threads, size_t n, const char *const *texts, const size_t *lens,
              tok_special special, unsigned flags, uint32_t **ids, size_t *counts, int *rcs, size_t *bad_text,
              size_t *bad_offset, g2e_err *err);

/* tok_encode of text[0..len) on up to `threads` members: a text of ENG_SPLIT_CHUNKS chunks
 * or more is cut into chunks that the members take in stretches, their IDs (and offsets)
 * joined in order; exactly tok_encode's result, errors and messages. */
int eng_encode(eng *e, unsigned threads, const char *text, size_t len, tok_special special, unsigned flags,
               tok_ids *out, size_t *bad_offset, g2e_err *err);

/* The counts of a text from one pass on up to `threads` members (strict UTF-8,
 * <|endoftext|> as the special token): tokens; characters (code points); with `words`, its
 * English words (text.h; else zero); and, when tokens > ctx, cut: the byte where the first
 * ctx tokens end. */
typedef struct eng_counts {
    size_t tokens, chars, cut;
    text_words words;
} eng_counts;
int eng_count(eng *e, unsigned threads, const char *text, size_t len, size_t ctx, int words, eng_counts *c,
              g2e_err *err);

/* ---- a text of any length read as it comes, in documents ----
 *
 * eng_stream reads its input through o->read and never holds it whole: the reader (the
 * queue's take, one member at a time) cuts chunks of about eng_chunk bytes at safe cuts
 * into the slots' own buffers; the members tokenize them; the chunks' IDs are handed to
 * o->put in input order. Memory: the reader's buffer (256 KB, more only for a stretch
 * without a cut point: at most ENG_MAX_RUN) and ENG_SLOTS slots per member (a chunk's text
 * and IDs), whatever the input's length.
 *
 * Documents: the whole text is one; with a separator (sep, sep_len > 0) the pieces between
 * its occurrences (found left to right, not overlapping; removed from the text) are, each
 * tokenized alone; a separator that ends the input starts no document. A chunk is cut only
 * where no occurrence of the separator straddles the cut, so the occurrences each chunk
 * finds are the whole text's. An empty input is one empty document (none when `lines`:
 * then the separator is "\n", a line per document, an empty line an empty document).
 *
 * Errors (invalid UTF-8, a refused special token) stop the run when their chunk's turn
 * comes: every chunk before it has been handed on; msg is tok_encode's with the offset in
 * the whole input, also in bad_offset.
 */

/* The IDs of the next stretch of input, in order: ids[0..n) follow the ones before; a new
 * document starts before ids[starts[i]] for each i < n_starts (increasing; starts[i] may be
 * n: the next stretch's first ID starts it). Returns 0, or non-zero to stop the run. */
typedef int (*eng_ids_fn)(void *user, const uint32_t *ids, size_t n, const size_t *starts, size_t n_starts);

typedef struct eng_text {
    /* in */
    tok_special special;
    unsigned flags;           /* TOK_LOSSY or 0 */
    const char *sep;          /* the document separator, or NULL */
    size_t sep_len;
    int lines;                /* sep is "\n" and an empty input holds no document */
    eng_read_fn read;
    void *read_user;
    eng_ids_fn put;
    void *user;
    /* each stretch's text (separators included), in order, just before its IDs; or NULL */
    void (*text)(void *user, const char *s, size_t n);
    /* after each stretch handed on, bytes and tokens so far (in order), or NULL */
    void (*progress)(void *progress_user, uint64_t bytes, uint64_t tokens);
    void *progress_user;
    /* out */
    uint64_t bytes, tokens, docs;
    uint64_t eot_text;        /* special TOK_SPECIAL_TEXT: <|endoftext|> read as ordinary text
                                 inside the documents (not overlapping a separator) */
    uint64_t bad_offset;      /* TOK_E_UTF8, TOK_E_SPECIAL: the byte in the input, else UINT64_MAX */
    int sys_errno;            /* ENG_E_READ, ENG_CANCELED */
    char msg[G2E_ERR_MSG_MAX]; /* the failure's message (for every code but G2E_ENOMEM) */
} eng_text;

/* Tokenizes o's input to its end on up to `threads` members, handing the IDs to o->put in
 * order. Returns 0, tok_encode's code (TOK_E_UTF8, TOK_E_SPECIAL), ENG_E_READ, ENG_CANCELED,
 * ENG_STOPPED (put asked to stop), ENG_E_LONG or G2E_ENOMEM. */
int eng_stream(eng *e, unsigned threads, eng_text *o);

#endif
