/* SPDX-License-Identifier: MIT */
/* rdbuf.h — an input read into one growable buffer as it is needed, through a read callback:
 * the library's stream and the program's JSON Lines reader both cut their input from it.
 * Part of the shared toolkit (src/common): it never prints. */
#ifndef G2E_RDBUF_H
#define G2E_RDBUF_H

#include <stddef.h>
#include <sys/types.h>

/* Fills buf with up to cap bytes: how many (0: the end), or -1 with errno set. */
typedef ssize_t (*rd_fn)(void *user, char *buf, size_t cap);

/* buf[off..have) is what has been read and not yet taken (the taker moves off). The caller
 * sets read and user, buf as a malloc'd block of cap bytes (off and have 0), and frees buf
 * after. */
typedef struct rdbuf {
    rd_fn read;
    void *user;
    int eof;            /* the last read returned nothing, or failed */
    char *buf;
    size_t cap, off, have;
    int sys_errno;      /* a failed read's errno */
} rdbuf;

/* rd_more's results besides 0 and G2E_ENOMEM (err.h's 1). */
enum {
    RD_FULL = -1,       /* the buffer is max bytes and full */
    RD_FAIL = -2,       /* the read returned -1 (r->sys_errno), or more than asked (EINVAL) */
    RD_CANCELED = -3,   /* the read returned -1 with errno ECANCELED */
};

/* Reads more after what is held: the held bytes moved to the front first, the buffer doubled
 * when it is full (to at most max bytes), then one read. A read that failed is never called
 * again (eof is set). */
int rd_more(rdbuf *r, size_t max);

/* rd_fn over a descriptor (user: an int *): read(2), EINTR retried. */
ssize_t rd_read_fd(void *user, char *buf, size_t cap);

/* rd_fn over a text in memory (user: an rd_mem, moved on as it is read). */
typedef struct rd_mem {
    const char *p;
    size_t left;
} rd_mem;
ssize_t rd_read_mem(void *user, char *buf, size_t cap);

#endif
