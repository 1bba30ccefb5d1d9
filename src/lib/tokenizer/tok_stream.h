/* SPDX-License-Identifier: MIT */
/* tok_stream.h — the tokenizer at the speed a program needs it: IDs as text, large texts
 * over threads with their output formatted in the threads, counts, and JSON Lines.
 *
 * Everything here gives exactly what tok_encode gives on one thread; only the work is
 * spread. A text is cut where GPT-2's pre-tokenizer is guaranteed to cut (tok_pretok_cut:
 * a whitespace character after a non-whitespace one; the proof is in tok_pretok.c) into
 * chunks of 64 KB (smaller towards the end). Every threaded path here runs on the engine of
 * tok_run.h, with the tokenizer and its workers (tok_worker) as the members. For IDs as text
 * the threads take the chunks in turn through its queue; each is tokenized and, in the same thread, turned into decimal IDs in a slot; the
 * chunks are handed on in order as they finish, and their slots reused, so that memory is
 * a few chunks per thread however long the text and nothing is allocated or freed in the
 * steady state. A count needs no order: each thread counts a stretch of chunks of its own
 * and then takes chunks from the others' ends (regions.h), each chunk's tokens and
 * characters kept in arrays.
 * Output goes through a write callback, in order; what can make a text fail (bad UTF-8, a
 * refused special token) is checked before the first write, so that such an error writes
 * nothing and gives tok_encode's own message (only running out of memory or a failed
 * write can stop the output part way).
 *
 * JSON Lines (toks_jsonl): input read from a descriptor as it comes (memory bounded by the
 * longest line) and cut into shares of complete lines (1 MB on one thread, 128 KB on more),
 * which the threads take in turn through the same queue as the chunks: each line's text
 * parsed (jsonl.h), tokenized and formatted one after the other in buffers kept for the
 * run, and the shares written in order, one answer per line (a blank or malformed line is
 * a bad line: an error, or with keep_going an error object in its place), each as soon
 * as the shares before it are; a flush callback after every share when asked (pipes). A
 * pipe's lines are never held back waiting for more input.
 *
 * Threads: the tokenizer's own count (tok_set_threads); chunks of its split size when that
 * is below 64 KB (tok_set_split_min: tests cut small texts); during a call its thread count is
 * set to 1 and restored, the workers being the calls' own. Not thread-safe (one call on a
 * tokenizer at a time). The library never prints: errors are codes plus a message in a
 * g2e_err, and for JSON Lines the line number.
 *
 * Status codes: 2300..2399 (below), tokenizer.h's, G2E_ENOMEM.
 * Deliberately left out: offsets in the threaded paths (tok_encode gives them), members
 * other than those asked for in the output, reordering for speed (the output order is the
 * input's).
 */
#ifndef G2E_TOK_STREAM_H
#define G2E_TOK_STREAM_H

#include "bytebuf.h"
#include "tokenizer.h"

#include <stdio.h>

enum {
    TOKS_E_WRITE = 2300, /* the write or flush callback failed: msg "cannot write the output: ..." */
    TOKS_E_READ,         /* read(2) on the JSON Lines input failed (toks_jsonl.sys_errno) */
    TOKS_STOPPED,        /* toks_jsonl: a bad line ended the run; every earlier line was written */
    TOKS_E_PUT,          /* toks_text_run: the IDs callback failed (its own message is the caller's) */
    TOKS_E_LONG,         /* toks_text_run: more than TOKS_TEXT_MAX_RUN bytes without a place to cut */
};

/* Writes p[0..n) somewhere: 0, or an errno value. */
typedef int (*toks_write_fn)(void *user, const void *p, size_t n);

/* ---- IDs as decimal text ---- */

/* The decimal text of every ID below n followed by the separator sep, 8 bytes each: up to
 * 6 digits and sep, their length in byte 7 (one copy per ID instead of divisions); n is a
 * power of two (four IDs are checked at once: their OR below n). A zeroed table is empty. */
typedef struct toks_idtext {
    char (*text)[8]; /* (n,) */
    uint32_t n;
    char sep;
} toks_idtext;

#define TOKS_IDTEXT_MAX ((uint32_t)1 << 19) /* the largest table: every ID in it has <= 6 digits */

/* Builds the table for IDs below n_vocab (rounded up to a power of two, at most
 * TOKS_IDTEXT_MAX: 64 Ki entries, 512 KB, for GPT-2) and separator sep. 0 or G2E_ENOMEM
 * (then empty: the IDs are converted one by one). */
int toks_idtext_init(toks_idtext *d, uint32_t n_vocab, char sep);
void toks_idtext_free(toks_idtext *d);

/* Appends ids[0..n) to b in decimal, separated by sep (none before the first or after the
 * last); IDs outside the table (d NULL, or made for another sep) are converted directly.
 * Failure: b->oom. */
void toks_put_ids(bytebuf *b, const toks_idtext *d, const uint32_t *ids, size_t n, char sep);
/* Appends v in decimal. */
void toks_put_u64(bytebuf *b, uint64_t v);

/* ---- whole texts ---- */

/* Tokenizes text[0..len) as tok_encode(t, ..., special, flags | TOK_NO_OFFSETS) and writes
 * its IDs in decimal separated by single spaces, then "\n", through write, chunk by chunk
 * (nothing is written when the text is invalid or holds a refused special token; lossy
 * input that needs repairs is tokenized whole first). *n_replaced: as tok_ids.n_replaced.
 * Returns 0, tok_encode's code and message, TOKS_E_WRITE, or G2E_ENOMEM. */
int toks_write_ids(tok_tokenizer *t, const char *text, size_t len, tok_special special, unsigned flags,
                   toks_write_fn write, void *user, size_t *n_replaced, g2e_err *err);

/* The counts of a text, from one pass over threads (strict UTF-8, <|endoftext|> as the
 * special token): tokens; characters (code points); and, when tokens > ctx, cut: the byte
 * where the first ctx tokens end. */
typedef struct toks_counts {
    size_t tokens, chars, cut;
} toks_counts;

/* Fills *c for text[0..len). Returns 0 or tok_encode's code and message (G2E_ENOMEM). */
int toks_count(tok_tokenizer *t, const char *text, size_t len, size_t ctx, toks_counts *c, g2e_err *err);

/* The spans of r's tokens in text[0..len) (tokchars.h; r with offsets) in a new array the
 * caller frees, or NULL when out of memory. */
struct tokchars_span *toks_spans(const char *text, size_t len, const tok_ids *r);

/* `tokenize --format json`'s object for text[0..len) and its tokens r (with offsets) onto f,
 * then "\n": {"n_tokens":N,"ids":[...],"offsets":[[s,e],...],"pieces":["...",...],
 * "tokens":[{"id": ..., tokchars.h's members}, ...]}. Returns 0, G2E_ENOMEM or G2E_EIO
 * (ferror(f); errno is the stream's). */
int toks_write_json(FILE *f, const tok_tokenizer *t, const char *text, size_t len, const tok_ids *r);

/* ---- JSON Lines ---- */

#define TOKS_JSONL_PARTS 16          /* most threads the lines are spread over */
#define TOKS_JSONL_PART_MIN (64u << 10) /* a first share this large (or more input) means a large input */
#define TOKS_JSONL_MAX_LINE ((size_t)1 << 30) /* the longest line read */
#define TOKS_JSONL_KEEP_MAX 16 /* most members copied into each answer */

typedef struct toks_jsonl {
    /* in: how */
    tok_special special;
    int lossy;            /* TOK_LOSSY for the texts, JSONL_LOSSY for their escapes */
    int keep_going;       /* a bad line becomes {"error": "...", "line": N} and the run goes on */
    int plain;            /* the lines are plain text, each a document (not JSON) */
    const char *const *keep; /* members copied from each line into its answer, before "ids" (raw
                                JSON, null when missing), at most TOKS_JSONL_KEEP_MAX */
    size_t n_keep;
    toks_write_fn write;  /* the output, in input order */
    /* or, when non-NULL, each good line's IDs as a document (toks_ids_fn, below; keep_going
     * is then not offered: a bad line stops the run); write is not called */
    int (*put)(void *user, const uint32_t *ids, size_t n, const size_t *starts, size_t n_starts);
    int (*flush)(void *user); /* called after every block when non-NULL: 0 or an errno value */
    void *user;
    /* out: what happened */
    size_t lines;         /* lines read */
    size_t bad;           /* bad lines written as error objects (keep_going) */
    size_t line;          /* TOKS_STOPPED: the bad line; G2E_ENOMEM: the line being worked on,
                             or 0 when reading a line of `pending` bytes */
    size_t pending;       /* bytes of the unfinished line held when reading failed */
    int sys_errno;        /* TOKS_E_READ / TOKS_E_WRITE: errno */
    char msg[G2E_ERR_MSG_MAX]; /* TOKS_STOPPED: why the line is bad (tok_encode's or jsonl.h's) */
} toks_jsonl;

/* Reads JSON lines from fd to its end and writes one {"ids":[...]} line per input line (a
 * blank line is a bad line), or hands its IDs to put. Returns 0 (every line good or, with keep_going, reported
 * in the output: j->bad), TOKS_STOPPED (j->line, j->msg; the lines before it written and
 * flushed), TOKS_E_READ, TOKS_E_WRITE, TOKS_E_PUT, or G2E_ENOMEM (j->line, j->pending). */
int toks_jsonl_run(tok_tokenizer *t, int fd, toks_jsonl *j);

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
