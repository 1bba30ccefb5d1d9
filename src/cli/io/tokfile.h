/* SPDX-License-Identifier: MIT */
/* tokfile.h — token IDs into the files training code reads, whole or in shards.
 *
 * Formats (all little-endian, IDs in input order):
 *   TOKF_NPY   numpy's .npy, version 1.0, 1-D, C order: '<u2' while every ID of the
 *              vocabulary fits 16 bits (n_vocab <= 65536), else '<u4'; a fixed 128-byte
 *              preamble (magic, version, header length, the dict padded with spaces and
 *              '\n': a multiple of 64, as numpy.save pads) written with a zero length first
 *              and filled in when the file is finished;
 *   TOKF_U16, TOKF_U32  raw IDs, no header (nanoGPT's np.memmap(dtype=np.uint16));
 *   TOKF_LLMC  llm.c's .bin (dev/data/data_common.py, "gpt-2" kind): 256 int32 — magic
 *              20240520, version 1, the token count, the rest zero — then uint16 IDs; the
 *              count is below 2^31 per file.
 * A file with a header (npy, llmc) is finished through its descriptor (pwrite at offset 0),
 * so those need a destination that is a new regular file (outfile.h's temporary): not
 * standard output.
 *
 * Documents: tokf_doc starts one (the first call starts the first; IDs put before any
 * belong to a first document it starts); tokf_put appends its IDs, any number at a time.
 * <|endoftext|> (eot) goes before every document (TOKF_EOT_BEFORE: llm.c's fineweb.py),
 * after every document (TOKF_EOT_AFTER: nanoGPT's openwebtext prepare.py) or nowhere, an
 * empty document being a lone eot; it counts as one of the document's tokens.
 * Shards (shard > 0): files PATH's stem + "_%06u" + PATH's extension, each holding at most
 * `shard` tokens; a document goes whole into one shard unless it is longer than a shard
 * (then it starts a shard of its own and fills as many as it needs). Until a document ends
 * its IDs are kept in memory when they may have to move to the next shard (at most `shard`
 * IDs, in the file's width); a document that starts a shard is written as it comes.
 * With shard_min > 0 no shard holds fewer than shard_min tokens when the input has that
 * many (llm.c's loader needs B*T + 1 in each): a document that does not fit beside fewer
 * than shard_min tokens is split across that shard and the next, and a last shard shorter
 * than shard_min is appended to the one before (which then holds up to shard + shard_min
 * - 1): a full shard stays a temporary until the next one holds shard_min tokens.
 * Every file goes through outfile.h: written to a temporary, renamed when complete (and
 * never over a registered input); the shards' names are made up here, so whatever is at
 * one (a symbolic link, a FIFO) is replaced, never followed (OFILE_MADE_UP). A failure
 * removes the file being written and leaves the complete ones (tokf.done, tokf.last). At
 * least one file is written (an empty one for no tokens). tokf_remove_stale removes what an
 * earlier run left under the same names beyond this run's shards.
 *
 * Status codes: 2700..2799 (below), outfile.h's, G2E_ENOMEM.
 * Deliberately left out: llm.c's llama-3 kind (uint32, magic 20240801), datatrove's .ds,
 * appending to existing files, compression, naming shards other than _NNNNNN.
 */
#ifndef G2E_TOKFILE_H
#define G2E_TOKFILE_H

#include "err.h"
#include "outfile.h"

#include <stddef.h>
#include <stdint.h>

enum { TOKF_NPY, TOKF_U16, TOKF_U32, TOKF_LLMC };
enum { TOKF_EOT_BEFORE, TOKF_EOT_AFTER, TOKF_EOT_NONE }; /* where eot goes around each document */

enum {
    TOKF_E_WIDTH = G2E_BASE(TOKF), /* the vocabulary has IDs the format's 16 bits cannot hold */
    TOKF_E_SEEK,         /* a format with a header to standard output or a device */
    TOKF_E_COUNT,        /* llmc: a file would hold 2^31 tokens or more */
    TOKF_E_ID,           /* an ID at or above n_vocab was put (a caller bug) */
    TOKF_E_STALE,        /* tokf_remove_stale could not remove an earlier run's shard */
    TOKF_CODES_END_
};
G2E_CODES_END(TOKF, TOKF_CODES_END_);

#define TOKF_LLMC_MAGIC 20240520
#define TOKF_LLMC_HEADER 1024          /* bytes: 256 int32 */
#define TOKF_LLMC_MAX 2147483647u      /* tokens per llm.c file */
#define TOKF_NPY_HEADER 128

/* How to write: the format, the vocabulary (n_vocab IDs, eot its end-of-text token), where
 * eot goes, and shards (0: one file) of at most `shard` tokens, none shorter than shard_min
 * (0: no minimum; at most shard). */
typedef struct tokf_opts {
    int fmt;
    uint32_t n_vocab, eot;
    int eot_at;
    uint64_t shard, shard_min;
} tokf_opts;

/* A file being written: a temporary until committed. */
typedef struct tokf_file {
    ofile f;
    char *name;            /* sharded: its name (owned); else NULL (the caller's path) */
    uint64_t n;            /* tokens in it */
    int open;
} tokf_file;

typedef struct tokf {
    tokf_opts o;
    unsigned width;        /* bytes per ID: 2 or 4 */
    char *stem, *ext;      /* sharded: the names' parts (ext with its dot, or "") */
    const char *path;      /* unsharded: the destination (the caller's) */
    /* the file being written, and (shard_min) the full one before it, held back until this
     * one holds shard_min tokens */
    tokf_file cur, prev;
    unsigned next;         /* the next shard's number */
    uint64_t committed;    /* tokens of cur from finished documents (sharded) */
    int doc_started;       /* the current document began in cur, or goes into it whatever it holds */
    /* the current document's IDs held back (sharded, while it may move) */
    unsigned char *held;
    size_t n_held, cap_held;
    unsigned char conv[8192]; /* IDs in the file's width on their way out */
    /* results */
    uint64_t tokens, docs; /* in all */
    unsigned done;         /* complete files */
    char *last;            /* the last complete file's name (owned), or NULL */
    uint64_t last_n;       /* its tokens */
    uint64_t folded;       /* tokens of a short last shard appended to the one before */
    /* called after each complete file (its name and tokens), or NULL */
    void (*on_file)(void *user, const char *name, uint64_t tokens);
    void *user;
    g2e_err err;           /* tokf_ids' failure */
} tokf;

/* Prepares writing to path (NULL or "-": standard output, unsharded raw formats only) as o
 * says. Nothing is created before the first file is needed. 0, TOKF_E_WIDTH, TOKF_E_SEEK,
 * G2E_EINVAL or G2E_ENOMEM. */
int tokf_open(tokf *w, const char *path, const tokf_opts *o, g2e_err *err);
/* Starts the next document (the previous one ended, eot written as o->eot_at says). */
int tokf_doc(tokf *w, g2e_err *err);
/* Appends ids[0..n) to the current document. */
int tokf_put(tokf *w, const uint32_t *ids, size_t n, g2e_err *err);
/* Ends the last document and finishes the last file(s). On error the files being written
 * are removed; either way *w holds only its results (tokf_free). */
int tokf_finish(tokf *w, g2e_err *err);
/* Abandons the file being written (removed) after a failure elsewhere; a complete shard
 * held back for shard_min is committed (it is complete). */
void tokf_abort(tokf *w);
/* Frees the results (last). */
void tokf_free(tokf *w);

/* What tokf_remove_stale found: how many earlier shards it removed, the lowest and highest
 * of their numbers. */
typedef struct tokf_stale {
    unsigned n, lo, hi;
} tokf_stale;

/* Sharded: removes the files named as this run's shards are (stem_NNNNNN.ext, the number as
 * "%06u" writes it) whose number is w->done or more: an earlier run's shards beyond this
 * run's, which a glob of the names would otherwise mix in. Entries are removed, never
 * followed; a directory stays (TOKF_E_STALE). 0 (*s filled; n = 0 when none), TOKF_E_STALE
 * (the message names the file; those before it removed) or G2E_ENOMEM. Nothing to do
 * unsharded. */
int tokf_remove_stale(tokf *w, tokf_stale *s, g2e_err *err);
/* The name of shard k of w (owned by the caller), or NULL when out of memory. */
char *tokf_shard_name(const tokf *w, unsigned k);

/* engine.h's eng_ids_fn over a tokf (user): each start a tokf_doc, the IDs tokf_put.
 * 0, or the code of the failure, its message in ((tokf *)user)->err. */
int tokf_ids(void *user, const uint32_t *ids, size_t n, const size_t *starts, size_t n_starts);

/* The .npy preamble for n IDs of width bytes: TOKF_NPY_HEADER bytes into buf. */
void tokf_npy_header(unsigned char buf[TOKF_NPY_HEADER], unsigned width, uint64_t n);
/* llm.c's header for n tokens: TOKF_LLMC_HEADER bytes into buf. */
void tokf_llmc_header(unsigned char buf[TOKF_LLMC_HEADER], uint32_t n);

#endif
