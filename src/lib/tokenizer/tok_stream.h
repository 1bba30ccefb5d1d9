/* SPDX-License-Identifier: MIT */
/* tok_stream.h — the tokenizer at the speed a program needs it: counts of large texts over
 * threads, and texts of any length read as they come, tokenized over threads, in documents.
 *
 * Everything here gives exactly what tok_encode gives on one thread; only the work is
 * spread, on the engine of tok_run.h with the tokenizer and its workers (tok_worker) as the
 * members. A text is cut where GPT-2's pre-tokenizer is guaranteed to cut (tok_pretok_cut:
 * a whitespace character after a non-whitespace one; the proof is in tok_pretok.c) into
 * chunks of TOKS_CHUNK bytes (smaller towards the end: toks_chunk_cuts). A count needs no
 * order: each thread counts a stretch of chunks of its own and then takes chunks from the
 * others' ends (regions.h), each chunk's tokens and characters kept in arrays. A text read
 * as it comes goes through the engine's ordered queue (toks_text_run, below).
 * The program's writers of IDs as text, `--format json` and JSON Lines run on the same
 * chunks and engine from src/cli/io/tokwrite.h.
 *
 * Threads: the tokenizer's own count (tok_set_threads); chunks of its split size when that
 * is below TOKS_CHUNK (tok_set_split_min: tests cut small texts); during a call its thread
 * count is set to 1 and restored, the workers being the calls' own. Not thread-safe (one
 * call on a tokenizer at a time). The library never prints: errors are codes plus a message
 * in a g2e_err (or the call's own struct).
 *
 * Status codes: 2300..2399 (below; TOKS_E_WRITE and TOKS_STOPPED are the program's writers'),
 * tokenizer.h's, G2E_ENOMEM.
 * Deliberately left out: offsets in the threaded paths (tok_encode gives them), reordering
 * for speed (the output order is the input's).
 */
#ifndef G2E_TOK_STREAM_H
#define G2E_TOK_STREAM_H

#include "tokenizer.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Status codes of this module and the public status each is reported as (err.h). */
#define TOKS_CODES(X) \
    X(TOKS_E_WRITE, IO) /* the write or flush callback failed: msg "cannot write the output: ..." */ \
    X(TOKS_E_READ, IO) /* read(2) on the JSON Lines input failed (toks_jsonl.sys_errno) */ \
    X(TOKS_STOPPED, STOPPED) /* toks_jsonl: a bad line ended the run; every earlier line was written */ \
    X(TOKS_E_PUT, STOPPED) /* toks_text_run: the IDs callback failed (its own message is the caller's) */ \
    X(TOKS_E_LONG, TOO_LARGE) /* toks_text_run: more than TOKS_TEXT_MAX_RUN bytes without a place to cut */ \
    X(TOK_READER_FULL, TOO_LARGE) /* tok_reader_more: the buffer is max bytes, full, and was not grown */
G2E_CODES(TOKS, TOKS_CODES);

/* ---- the input, read in pieces ---- */

/* An input read into one buffer as it is needed: buf[off..have) is what has been read and
 * not yet taken (the taker moves off). The JSON Lines writer (src/cli/io/tokwrite.c) and
 * toks_text_run read through it. The caller sets fd (or in_memory, with mem[0..mem_left):
 * a text in memory, copied in as if read), buf as a malloc'd block of cap bytes (and off,
 * have 0), and frees buf after. */
typedef struct tok_reader {
    int fd, eof;        /* eof: the last read returned nothing */
    int in_memory;
    const char *mem;
    size_t mem_left;
    char *buf;
    size_t cap, off, have;
    int sys_errno;      /* TOKS_E_READ's errno */
} tok_reader;

/* Reads more after what is held: the held bytes moved to the front first, the buffer
 * doubled when it is full (to at most max bytes), then one read(2) (EINTR retried). 0;
 * TOK_READER_FULL; G2E_ENOMEM (doubling failed); TOKS_E_READ (r->sys_errno set). */
int tok_reader_more(tok_reader *r, size_t max);

/* Appends v to the growable array *a (*n used, *cap allocated; the first allocation holds
 * `first`, then it doubles): where documents start among a chunk's IDs, here and in the JSON
 * Lines writer. 0, or -1 when out of memory (*a as it was). */
static inline int toks_push_start(size_t **a, size_t *n, size_t *cap, size_t first, size_t v)
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

/* ---- chunks ---- */

#define TOKS_CHUNK ((size_t)1 << 16)      /* 64 KB: why, in tok_stream.c */
#define TOKS_CHUNK_LAST ((size_t)1 << 15) /* 32 KB: the smallest a tapered chunk gets */
#define TOKS_CHUNK_BIG ((size_t)1 << 20)  /* a chunk past this is a long run with no place to cut */

/* The cuts of s[0..n) into chunks of about TOKS_CHUNK bytes (t's split size when smaller;
 * smaller towards the end on several threads, so that the threads' last chunks end closer
 * together): a new array of *m + 1 offsets, chunk k being [cut[k], cut[k + 1]), or NULL
 * (out of memory). */
size_t *toks_chunk_cuts(const tok_tokenizer *t, const char *s, size_t n, unsigned threads, size_t *m);
/* IDs room to reserve once for a chunk of len bytes (tok_ob_grow). */
size_t toks_chunk_ids_room(size_t len);

/* ---- counts ---- */

/* The counts of a text, from one pass over threads (strict UTF-8, <|endoftext|> as the
 * special token): tokens; characters (code points); and, when tokens > ctx, cut: the byte
 * where the first ctx tokens end. */
typedef struct toks_counts {
    size_t tokens, chars, cut;
} toks_counts;

/* Fills *c for text[0..len). Returns 0 or tok_encode's code and message (G2E_ENOMEM). */
int toks_count(tok_tokenizer *t, const char *text, size_t len, size_t ctx, toks_counts *c, g2e_err *err);

/* ---- plain text of any length, as IDs, in documents ----
 *
 * toks_text_run reads a text from a descriptor (or memory) as it comes and never holds it
 * whole: the reader (one thread at a time, the queue's take) cuts chunks of about 64 KB at
 * the pre-tokenizer's safe cuts (tok_pretok_cut) into the slots' own buffers; the threads
 * tokenize them; the chunks' IDs are handed to the caller in input order. Memory: the
 * reader's buffer (256 KB, more only for a stretch without a cut point: at most
 * TOKS_TEXT_MAX_RUN bytes) and TOK_RUN_SLOTS slots per thread (a chunk's text and IDs,
 * about 0.3 MB each): some 1.5 MB per thread, whatever the input's length.
 *
 * Documents: the whole text is one; with a separator (sep, sep_len > 0) the pieces between
 * its occurrences (found left to right, not overlapping; removed from the text) are, each
 * tokenized alone; a separator that ends the input starts no document. A chunk is cut only
 * where no occurrence of the separator straddles the cut, so the occurrences each chunk
 * finds are the whole text's. The first chunk holds the start of the first document; an
 * empty input is one empty document (none when `lines`: then the separator is "\n" and a
 * line per document, an empty line an empty document).
 *
 * Errors (invalid UTF-8, a refused special token) stop the run when their chunk's turn
 * comes: every chunk before it has been handed on; msg is tok_encode's with the offset in
 * the whole input. --lossy is not offered here (tok_encode reads a lossy text whole).
 */
#define TOKS_TEXT_MAX_RUN ((size_t)64 << 20) /* 64 MiB: memory stays bounded on a text with no cut (/dev/zero) */

/* The IDs of the next stretch of input, in order: ids[0..n) follow the ones before; a new
 * document starts before ids[starts[i]] for each i < n_starts (increasing; starts[i] may be
 * n: the next stretch's first ID starts it). Returns 0, or non-zero to stop the run. */
typedef int (*toks_ids_fn)(void *user, const uint32_t *ids, size_t n, const size_t *starts, size_t n_starts);

typedef struct toks_text {
    /* in */
    tok_special special;
    const char *sep;          /* the document separator, or NULL */
    size_t sep_len;
    int lines;                /* sep is "\n" and an empty input holds no document */
    const char *mem;          /* fd < 0: the text in memory, mem_len bytes */
    size_t mem_len;
    toks_ids_fn put;
    void *user;
    /* each stretch's text (separators included), in order, just before its IDs; or NULL */
    void (*text)(void *user, const char *s, size_t n);
    /* after each stretch handed on, bytes and tokens so far (in order), or NULL */
    void (*progress)(void *progress_user, uint64_t bytes, uint64_t tokens);
    void *progress_user;
    /* out */
    uint64_t bytes, tokens, docs;
    int sys_errno;            /* TOKS_E_READ */
    char msg[G2E_ERR_MSG_MAX]; /* tok_encode's code: its message, offsets in the whole input */
} toks_text;

/* Tokenizes fd's text (or o->mem when fd < 0) to its end over t's threads, handing the IDs
 * to o->put in order. Returns 0, tok_encode's code (TOK_E_UTF8, TOK_E_SPECIAL: o->msg),
 * TOKS_E_READ, TOKS_E_PUT, TOKS_E_LONG or G2E_ENOMEM. */
int toks_text_run(tok_tokenizer *t, int fd, toks_text *o);

#endif
