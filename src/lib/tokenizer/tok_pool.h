/* SPDX-License-Identifier: MIT */
/* tok_pool.h — one tokenizer shared by any number of threads, and the calls of the public API
 * that need more than tok_encode: many texts at once, and streams of any size.
 *
 * A tok_tokenizer holds caches and scratch, so one may be used by one thread at a time. A
 * pool owns a tokenizer and hands out contexts: the tokenizer itself first, then its workers
 * (tok_worker: the same tables, caches of their own, about 2 MB each), each made on the
 * first call that finds every other context busy and kept until the pool is freed, at most
 * TOK_POOL_MAX. No call ever waits for a context: beyond TOK_POOL_MAX, a call gets a spare
 * one made for it and freed when it is given back, and a call that would use several
 * threads takes only the kept contexts that are idle or can still be made (at least one),
 * running on fewer threads rather than waiting for others to give theirs back. So callers
 * may ask for any number of threads at once, and a callback (a stream's emit) may
 * tokenize on the same pool, without a deadlock. Measured against one mutex held for the
 * whole call: the pool's cost is a lock and an unlock per call (about 40 ns uncontended),
 * and threads tokenize at once instead of in turn.
 *
 * Both run on the one engine of threads (tok_run.h), with the pool's contexts as its members.
 * Batch: the texts in items of consecutive texts (about 64 KB each) taken in turn by the
 * threads, each with a context of its own (tok_run_batch: texts one after another in memory
 * are tokenized together), the items' IDs joined in order.
 * Stream: the input is read into chunks of TOK_POOL_CHUNK bytes cut where GPT-2's
 * pre-tokenizer is sure to cut (tok_pretok_cut: whatever follows), in order, by whichever
 * thread takes the next chunk; each thread tokenizes its chunk, and the IDs are handed out
 * in order as soon as the chunks before them are. Two chunks in flight per thread (one on
 * one thread). read and emit are called one at a time, from any of the call's threads. A stretch with no cut point (no ASCII whitespace after a non-space) is read
 * whole: its BPE needs it.
 *
 * Status codes: tokenizer.h's, G2E_ENOMEM, and TOKP_E_* below. Thread-safe: every call but
 * tok_pool_free.
 */
#ifndef G2E_TOK_POOL_H
#define G2E_TOK_POOL_H

#include "cpus.h"
#include "tok_internal.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define TOK_POOL_MAX G2E_THREADS_MAX
#define TOK_POOL_SPARE UINT32_MAX /* tok_ctx.slot of a context made for one call */
#define TOK_POOL_CHUNK ((size_t)1 << 19) /* 512 KB: two in flight per thread (tok_pool.c) */

/* Status codes of this module and the public status each is reported as (err.h). */
#define TOKP_CODES(X) \
    X(TOKP_E_READ, IO) /* the read callback failed (errno in sys_errno) */ \
    X(TOKP_STOPPED, STOPPED) /* the emit callback asked to stop */ \
    X(TOKP_CANCELED, STOPPED) /* the read callback returned -1 with errno ECANCELED */
G2E_CODES(TOKP, TOKP_CODES);

/* A context: a tokenizer one thread may use, and output buffers it keeps between calls. */
typedef struct tok_ctx {
    tok_tokenizer *t;
    obuf ids;       /* IDs only */
    obuf ids_off;   /* IDs and offsets */
    unsigned slot;
} tok_ctx;

typedef struct tok_pool tok_pool;

/* A pool over t, which it owns from now on (also on failure: then t is closed). */
int tok_pool_new(tok_pool **out, tok_tokenizer *t, g2e_err *err);
/* Frees the pool, its contexts and its tokenizer. Accepts NULL. No call may be running. */
void tok_pool_free(tok_pool *p);
/* The tokenizer's tables, for the calls that only read them (tok_piece, tok_decode,
 * tok_n_vocab): safe from any thread. */
const tok_tokenizer *tok_pool_tables(const tok_pool *p);

/* A context for the calling thread, never waiting (a spare one when TOK_POOL_MAX are out);
 * NULL when a new one cannot be made (out of memory). Give it back with tok_pool_give. */
tok_ctx *tok_pool_take(tok_pool *p);
void tok_pool_give(tok_pool *p, tok_ctx *c);

/* The n texts over `threads` threads (0: g2e_cpu_count()). *ids: every text's IDs one after
 * another (a new array, caller frees; NULL when none), counts[i] text i's count. On a text's
 * error: its status, *bad_text its index, *bad_offset the byte in it (or SIZE_MAX), the
 * message in err, *ids NULL. */
int tok_pool_batch(tok_pool *p, size_t n, const char *const *texts, const size_t *lens, tok_special special,
                   unsigned flags, unsigned threads, uint32_t **ids, size_t *counts, size_t *bad_text,
                   size_t *bad_offset, g2e_err *err);

typedef ssize_t (*tok_read_fn)(void *user, char *buf, size_t cap);
typedef int (*tok_emit_fn)(void *user, const uint32_t *ids, size_t n);

/* Reads the input through rd until it returns 0, and hands every ID to emit in order (see
 * above). *bad_offset: the stream offset of a bad byte (TOK_E_UTF8, TOK_E_SPECIAL);
 * *sys_errno: errno of a failed read (TOKP_E_READ). */
int tok_pool_stream(tok_pool *p, tok_read_fn rd, void *rd_user, tok_special special, unsigned flags,
                    unsigned threads, tok_emit_fn emit, void *emit_user, size_t *bad_offset, int *sys_errno,
                    g2e_err *err);

#endif
