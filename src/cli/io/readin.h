/* SPDX-License-Identifier: MIT */
/* readin.h — reading a whole input (a text file, standard input) without surprises: never
 * waiting on a FIFO nobody writes to, never reading /dev/zero without end, never more than
 * READIN_MAX bytes, and registering what was read as an input that no output may replace
 * (outfile.h's ofile_add_input).
 *
 * Errors: NULL or -1 with errno kept and the one-line message in *err (G2E_EIO, G2E_EINVAL,
 * or a code below). Deliberately left out: mapping (the weights, tokenizer files: their own
 * modules), decoding (text.h).
 */
#ifndef G2E_READIN_H
#define G2E_READIN_H

#include "err.h"

#include <stddef.h>
#include <stdio.h>

/* The most an input may hold: 1 GiB. Beyond it the readers fail with EFBIG. */
#define READIN_MAX (1ULL << 30)

enum {
    READIN_E_KIND = G2E_BASE(READIN),   /* not a regular file (a FIFO, device, directory, socket) */
    READIN_E_SIZE,          /* over READIN_MAX */
    READIN_CODES_END_
};
G2E_CODES_END(READIN, READIN_CODES_END_);

/* All of stream f in a new buffer (caller frees), NUL-terminated (*len does not count the
 * NUL); NULL with errno set on a read error, when out of memory, or (EFBIG) when f holds
 * more than READIN_MAX bytes. f == stdin is registered as an input. No message. */
char *readin_stream(FILE *f, size_t *len);

/* Opens path for reading: a regular file of at most READIN_MAX bytes, or a pipe/device only
 * when it is this process's standard input (-f /dev/stdin); a FIFO is refused at once
 * (opened O_NONBLOCK and fstat'ed first). Registered as an input, what naming its role.
 * Returns the blocking descriptor (the caller closes it), or -1. */
int readin_open(const char *path, const char *what, g2e_err *err);
/* readin_open for a reader that streams (engine.h's eng_stream): any size. */
int readin_open_stream(const char *path, const char *what, g2e_err *err);

/* All of the file at path, as readin_stream gives it; "-" is standard input. Only what
 * readin_open accepts is read. NULL on failure (the message names path). */
char *readin_file(const char *path, const char *what, size_t *len, g2e_err *err);

#endif
