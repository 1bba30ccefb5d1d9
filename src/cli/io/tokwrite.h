/* SPDX-License-Identifier: MIT */
/* tokwrite.h — the program's token writers: IDs as decimal text, large texts over threads
 * with their output formatted in the threads, `tokenize --format json`, and JSON Lines.
 *
 * Everything here gives exactly what gpt2embed_tokenize_ex gives on one thread; only the work is
 * spread, on the library's ordered pipeline (gpt2embed_pipeline_run) over the text's safe
 * cuts (gpt2embed_text_cuts). For IDs as text the threads
 * take the chunks in turn; each is tokenized and, in the same thread,
 * turned into decimal IDs in a slot; the chunks are handed on in order as they finish, and
 * their slots reused, so that memory is a few chunks per thread however long the text and
 * nothing is allocated or freed in the steady state.
 * Output goes through a write callback, in order; what can make a text fail (bad UTF-8, a
 * refused special token) is checked before the first write, so that such an error writes
 * nothing and gives the tokenizer's own message (only running out of memory or a failed
 * write can stop the output part way).
 *
 * JSON Lines (toks_jsonl): input read from a descriptor as it comes (memory bounded by the
 * longest line) and cut into shares of complete lines (1 MB on one thread, 128 KB on more),
 * which the threads take in turn through the pipeline: each line's text parsed
 * (jsonl.h), tokenized and formatted one after the other in buffers kept for the run, and
 * the shares written in order, one answer per line (a blank or malformed line is a bad
 * line: an error, or with keep_going an error object in its place), each as soon as the
 * shares before it are; a flush callback after every share when asked (pipes). A pipe's
 * lines are never held back waiting for more input. The search for a line's end never
 * reads the same bytes twice, so a long line arriving in pieces costs time linear in its
 * length; a line of max_line bytes or more is a bad line in its place (its bytes read and
 * dropped, never held), so the rows stay aligned with the input's lines.
 *
 * Threads: up to the count given (gpt2embed_threads_for), on the pipeline's workers. Nothing here
 * prints: errors are codes plus a message in a g2e_err, and for JSON Lines the line number;
 * the commands word them.
 * Status codes: TOKS_* (below), G2E_ENOMEM.
 * Deliberately left out: offsets in the threaded paths (gpt2embed_tokenize_threads gives them), members
 * other than those asked for in the output.
 */
#ifndef G2E_TOKWRITE_H
#define G2E_TOKWRITE_H

#include "gpt2embed.h"

#include "bytebuf.h"
#include "err.h"
#include "text.h"

#include <stdio.h>

enum {
    TOKS_E_WRITE = G2E_BASE(TOKS), /* the write or flush callback failed: msg "cannot write the output: ..." */
    TOKS_E_READ,         /* read(2) on the JSON Lines input failed (toks_jsonl.sys_errno) */
    TOKS_STOPPED,        /* toks_jsonl: a bad line ended the run; every earlier line was written */
    TOKS_E_PUT,          /* toks_jsonl: the IDs callback failed (its own message is the caller's) */
    TOKS_E_TEXT,         /* the text is refused (bad UTF-8, a refused special token): the
                            tokenizer's message, with the byte offset */
    TOKS_CODES_END_
};
G2E_CODES_END(TOKS, TOKS_CODES_END_);

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

/* A whole text's tokens (gpt2embed_tokenize_threads's arrays: gpt2embed_free). */
typedef struct toks_ids {
    uint32_t *ids;
    size_t *offsets;      /* n + 1 of them */
    size_t n, n_replaced;
} toks_ids;

/* Tokenizes text[0..len) as gpt2embed_tokenize_ex(t, ..., flags) and writes its IDs in decimal
 * separated by single spaces, then "\n", through write, chunk by chunk (chunks of about
 * `chunk` bytes, 0: GPT2EMBED_CHUNK, cut by gpt2embed_text_cuts, on the pipeline's threads;
 * nothing is written when the text is invalid or holds a refused special token; lossy input
 * that needs repairs is tokenized whole first). *n_replaced: the lossy repairs. Returns 0,
 * TOKS_E_TEXT (the tokenizer's message), TOKS_E_WRITE, or G2E_ENOMEM. */
int toks_write_ids(gpt2embed_tokenizer *t, unsigned threads, size_t chunk, const char *text, size_t len,
                   unsigned flags, toks_write_fn write, void *user, size_t *n_replaced, g2e_err *err);

/* The spans of r's tokens in text[0..len) (tokchars.h; r with offsets) in a new array the
 * caller frees, or NULL when out of memory. */
struct tokchars_span *toks_spans(const char *text, size_t len, const toks_ids *r);

/* `tokenize --format json`'s object for text[0..len) and its tokens r (with offsets) onto f,
 * then "\n": {"n_tokens":N,"ids":[...],"offsets":[[s,e],...],"pieces":["...",...],
 * "tokens":[{"id": ..., tokchars.h's members}, ...]}. Returns 0, G2E_ENOMEM or G2E_EIO
 * (ferror(f); errno is the stream's). */
int toks_write_json(FILE *f, const gpt2embed_tokenizer *t, const char *text, size_t len, const toks_ids *r);

/* ---- JSON Lines ---- */

#define TOKS_JSONL_PARTS 16          /* most threads the lines are spread over */
#define TOKS_JSONL_PART_MIN (64u << 10) /* a first share this large (or more input) means a large input */
#define TOKS_JSONL_MAX_LINE ((size_t)1 << 30) /* a line this long or longer is refused (max_line 0) */
#define TOKS_JSONL_KEEP_MAX 16 /* most members copied into each answer */

typedef struct toks_jsonl {
    /* in: how */
    unsigned special;     /* 0 (<|endoftext|> the token), GPT2EMBED_SPECIAL_TEXT or _ERROR */
    int lossy;            /* GPT2EMBED_LOSSY for the texts, JSONL_LOSSY for their escapes */
    int keep_going;       /* a bad line becomes {"error": "...", "line": N} and the run goes on */
    int plain;            /* the lines are plain text, each a document (not JSON) */
    const char *const *keep; /* members copied from each line into its answer, before "ids" (raw
                                JSON, null when missing), at most TOKS_JSONL_KEEP_MAX */
    size_t n_keep;
    toks_write_fn write;  /* the output, in input order */
    /* or, when non-NULL, each good line's IDs as a document (gpt2embed_docs_fn; keep_going
     * is then not offered: a bad line stops the run); write is not called */
    gpt2embed_docs_fn put;
    int (*flush)(void *user); /* called after every block when non-NULL: 0 or an errno value */
    void *user;
    size_t max_line;      /* bytes a line must stay below, its newline excluded (0: TOKS_JSONL_MAX_LINE) */
    /* out: what happened */
    size_t lines;         /* lines read */
    size_t eot_text;      /* GPT2EMBED_SPECIAL_TEXT: <|endoftext|> read as ordinary text in
                             the lines answered (toks_eot_literals) */
    size_t bad;           /* bad lines written as error objects (keep_going) */
    size_t line;          /* TOKS_STOPPED: the bad line; G2E_ENOMEM: the line being worked on,
                             or 0 when reading a line of `pending` bytes */
    size_t pending;       /* bytes of the unfinished line held when reading failed */
    int sys_errno;        /* TOKS_E_READ / TOKS_E_WRITE: errno */
    char msg[G2E_ERR_MSG_MAX]; /* TOKS_STOPPED: why the line is bad (the tokenizer's or jsonl.h's) */
} toks_jsonl;

/* How many times "<|endoftext|>" occurs in s[0..n) (non-overlapping): what --special text
 * reads as ordinary text and the commands report. */
static inline size_t toks_eot_literals(const char *s, size_t n)
{
    return text_occurrences(s, n, "<|endoftext|>", 13);
}

/* Reads JSON lines from fd to its end and writes one {"ids":[...]} line per input line (a
 * blank line is a bad line), or hands its IDs to put. Returns 0 (every line good or, with keep_going, reported
 * in the output: j->bad), TOKS_STOPPED (j->line, j->msg; the lines before it written and
 * flushed), TOKS_E_READ, TOKS_E_WRITE, TOKS_E_PUT, or G2E_ENOMEM (j->line, j->pending). */
int toks_jsonl_run(gpt2embed_tokenizer *t, unsigned threads, int fd, toks_jsonl *j);

#endif
