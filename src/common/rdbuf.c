/* SPDX-License-Identifier: MIT */
/* rdbuf.c — an input read into one growable buffer (see rdbuf.h). */
#include "rdbuf.h"
#include "err.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int rd_more(rdbuf *r, size_t max)
{
    if (r->off) {
        memmove(r->buf, r->buf + r->off, r->have - r->off);
        r->have -= r->off;
        r->off = 0;
    }
    if (r->have == r->cap) { /* full: what is held has no place to cut, or no line end */
        if (r->cap >= max)
            return RD_FULL;
        size_t cap = r->cap > max / 2 ? max : r->cap * 2;
        char *nb = realloc(r->buf, cap);
        if (!nb)
            return G2E_ENOMEM;
        r->buf = nb, r->cap = cap;
    }
    size_t want = r->cap - r->have;
    ssize_t k = r->read(r->user, r->buf + r->have, want);
    if (k < 0 || (size_t)k > want) {
        r->sys_errno = k < 0 ? errno : EINVAL;
        r->eof = 1; /* (never called again) */
        return k < 0 && r->sys_errno == ECANCELED ? RD_CANCELED : RD_FAIL;
    }
    r->eof = k == 0;
    r->have += (size_t)k;
    return 0;
}

ssize_t rd_read_fd(void *user, char *buf, size_t cap)
{
    ssize_t k;
    do
        k = read(*(const int *)user, buf, cap);
    while (k < 0 && errno == EINTR);
    return k;
}

ssize_t rd_read_mem(void *user, char *buf, size_t cap)
{
    rd_mem *m = user;
    size_t k = cap < m->left ? cap : m->left;
    memcpy(buf, m->p, k);
    m->p += k, m->left -= k;
    return (ssize_t)k;
}
