/* SPDX-License-Identifier: MIT */
/* textin.h — the whole text behind a file descriptor, mapped or read.
 *
 * A regular file (standard input redirected from one included) is mapped read-only, or
 * from TEXTIN_HUGE_MIN to TEXTIN_HUGE_MAX bytes read into memory advised to huge pages
 * (textin.c says why); anything else (a pipe, a terminal, a device) is read to its end into
 * a buffer. Either way the text begins where the descriptor stands. At most
 * TEXTIN_MAX bytes: a bigger input (or /dev/zero) is a clear error, not an exhausted
 * memory. The caller opens and closes the descriptor, decides which files are acceptable
 * (FIFOs, -o clashes) and guards the mapping against truncation (SIGBUS) if it wants to;
 * this module only reads.
 *
 * Status codes: 2100..2199 (below), G2E_ENOMEM. Messages name the input as the caller
 * spelled it ("'a.txt'", "standard input").
 * Deliberately left out: streaming (tokwrite.h reads JSON lines block by block, engine.h texts), opening
 * paths, text checks (the tokenizer checks UTF-8).
 */
#ifndef G2E_TEXTIN_H
#define G2E_TEXTIN_H

#include "err.h"

#include <stddef.h>

#define TEXTIN_MAX ((size_t)1 << 30) /* 1 GiB */
#define TEXTIN_HUGE_MIN ((size_t)64 << 10)  /* regular files of this size ... */
#define TEXTIN_HUGE_MAX ((size_t)256 << 20) /* ... to this are read, not mapped */

enum {
    TEXTIN_E_TOO_LARGE = G2E_BASE(TEXTIN), /* more than TEXTIN_MAX bytes */
    TEXTIN_E_READ,             /* read(2) failed; the message has the errno text */
    TEXTIN_CODES_END_
};
G2E_CODES_END(TEXTIN, TEXTIN_CODES_END_);

typedef struct textin {
    const char *data; /* len bytes (not NUL-terminated when mapped; "" when empty) */
    size_t len;
    void *map;        /* the file's mapping (map_len bytes, data inside it), or NULL */
    size_t map_len;
    char *buf;        /* the read copy, or NULL */
    void *huge;       /* the read copy on huge pages: an anonymous mapping of huge_len bytes, or NULL */
    size_t huge_len;
} textin;

/* Reads all of fd from where it stands to its end into *in (fd stays open and is the
 * caller's, left at the end as by read(2)). name is how messages name the input. On error
 * *in is zeroed and nothing is held. */
int textin_fd(textin *in, int fd, const char *name, g2e_err *err);

/* Releases what in holds (a zeroed textin accepted) and zeroes it. */
void textin_close(textin *in);

#endif
