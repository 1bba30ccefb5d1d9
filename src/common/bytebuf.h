/* SPDX-License-Identifier: MIT */
/* bytebuf.h — a growable byte buffer (shared toolkit: the engine's stream, the program's JSON
 * Lines reader and token writers).
 *
 * p[0..n) holds the bytes (not NUL-terminated), cap is the allocation. A failed growth
 * sets oom and makes every later put a no-op, so a caller checks once at the end instead
 * of after every put. Zero-initialise to start; bb_free releases.
 */
#ifndef G2E_BYTEBUF_H
#define G2E_BYTEBUF_H

#include <stdlib.h>
#include <string.h>

typedef struct bytebuf {
    char *p;
    size_t n, cap;
    int oom;
} bytebuf;

/* Room for `extra` more bytes at p + n: 0, or -1 (oom set, nothing changed). */
static inline int bb_room(bytebuf *b, size_t extra)
{
    if (b->n + extra <= b->cap && !b->oom)
        return 0;
    if (b->oom || extra > ((size_t)-1) / 4 - b->n)
        return b->oom = -1;
    size_t c = b->cap ? b->cap : 256;
    while (c < b->n + extra)
        c *= 2;
    char *q = realloc(b->p, c);
    if (!q)
        return b->oom = -1;
    b->p = q;
    b->cap = c;
    return 0;
}

static inline void bb_put(bytebuf *b, const void *s, size_t n)
{
    if (n && !bb_room(b, n)) {
        memcpy(b->p + b->n, s, n);
        b->n += n;
    }
}

static inline void bb_str(bytebuf *b, const char *s) { bb_put(b, s, strlen(s)); }

static inline void bb_free(bytebuf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

#endif
