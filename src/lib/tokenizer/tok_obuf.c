/* SPDX-License-Identifier: MIT */
/* tok_obuf.c — the growing arrays of IDs and offsets every tokenizing path writes into (obuf,
 * tok_internal.h). Below tok_bpe.c and tokenizer.c, which both append to them, so that
 * neither calls back into the other. */
#include "tok_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* realloc for an output array of `used` bytes in use, to `bytes`: arrays of a large input
 * (from 2 huge pages) move to memory aligned for huge pages and advised so (tok_internal.h),
 * copying what is in use; the caller frees either kind with free(). NULL when out of memory
 * (p untouched). Not realloc there: glibc would grow the mapping with mremap, which fails
 * once the advice has split it, and then copies the whole capacity. */
static void *grow_array(void *p, size_t used, size_t bytes)
{
    if (bytes < 2 * TOK_HUGE_PAGE)
        return realloc(p, bytes);
    size_t room = tok_huge_round(bytes);
    void *q = aligned_alloc(TOK_HUGE_PAGE, room);
    if (!q)
        return NULL;
    tok_mem_huge(q, room);
    if (used)
        memcpy(q, p, used);
    free(p);
    return q;
}

int tok_ob_grow(obuf *o, size_t extra)
{
    if (o->n + extra <= o->cap)
        return 0;
    size_t nc = o->cap ? o->cap : 256;
    while (nc < o->n + extra + 1) {
        if (nc > SIZE_MAX / 2 / sizeof(size_t))
            return TOK_E_TOO_LARGE;
        nc *= 2;
    }
    uint32_t *a = grow_array(o->ids, o->n * sizeof *a, nc * sizeof *a);
    if (!a)
        return G2E_ENOMEM;
    o->ids = a;
    if (o->keep_off) {
        size_t *b = grow_array(o->off, o->n * sizeof *b, (nc + 1) * sizeof *b);
        if (!b)
            return G2E_ENOMEM;
        o->off = b;
    }
    o->cap = nc;
    return 0;
}

int tok_ob_room_for_text(obuf *o, size_t n)
{
    /* 2 bytes a token (the corpus: 2.6): growing the array later copies every ID written so
     * far once more. Pages are touched only as IDs are written; where that much address
     * space cannot be had, 4 bytes a token. */
    if (n / 2 + 16 <= o->cap || !tok_ob_grow(o, n / 2 + 16) || n / 4 + 16 <= o->cap)
        return 0;
    return tok_ob_grow(o, n / 4 + 16);
}
