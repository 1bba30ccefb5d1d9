/* SPDX-License-Identifier: MIT */
/* textin.h — the whole text a command reads from a file or standard input, without a
 * copy where possible: a regular file (standard input redirected from one included) is
 * mapped read-only; anything else (a pipe, a terminal, a device) is read to its end.
 * At most TEXTIN_MAX bytes: a bigger input (or /dev/zero) is a clear error, not an
 * exhausted memory. Files are registered with out_add_input, so that -o cannot name them.
 * Program wing: on failure one line is printed and -1 returned.
 * Deliberately left out: streaming (see tokenize --jsonl for line-by-line input).
 */
#ifndef G2E_TEXTIN_H
#define G2E_TEXTIN_H

#include <stddef.h>

#define TEXTIN_MAX ((size_t)1 << 30) /* 1 GiB */

typedef struct textin {
    const char *data; /* len bytes (not NUL-terminated when mapped) */
    size_t len;
    void *map;        /* the mapping, or NULL */
    char *buf;        /* the read copy, or NULL */
} textin;

/* Reads path (NULL or "-": standard input); `what` names it in messages ("text file"). */
int textin_open(textin *in, const char *path, const char *what);

/* Releases in (a zeroed textin accepted). */
void textin_close(textin *in);

#endif
