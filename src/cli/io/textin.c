/* SPDX-License-Identifier: MIT */
/* textin.c — a file descriptor's text, mapped or read (see textin.h). */
#include "textin.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int too_large(textin *in, const char *name, g2e_err *err)
{
    textin_close(in);
    return g2e_fail(err, TEXTIN_E_TOO_LARGE, "%s is larger than 1 GiB, the most this command reads", name);
}

/* Reads fd to its end into in->buf (at most TEXTIN_MAX bytes). */
static int read_all(int fd, textin *in, const char *name, g2e_err *err)
{
    size_t cap = 1 << 16, n = 0;
    in->buf = malloc(cap);
    for (;;) {
        if (!in->buf)
            return g2e_fail(err, G2E_ENOMEM, "out of memory reading %s", name);
        if (n == cap) {
            if (cap >= TEXTIN_MAX)
                return too_large(in, name, err);
            char *c = realloc(in->buf, cap *= 2);
            if (!c)
                textin_close(in);
            in->buf = c;
            continue;
        }
        ssize_t k = read(fd, in->buf + n, cap - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            int e = errno;
            textin_close(in);
            return g2e_fail(err, TEXTIN_E_READ, "cannot read %s: %s", name, strerror(e));
        }
        if (k == 0)
            break;
        n += (size_t)k;
    }
    if (!n)
        textin_close(in); /* empty: "" below */
    in->data = in->buf;
    in->len = n;
    return 0;
}

int textin_fd(textin *in, int fd, const char *name, g2e_err *err)
{
    memset(in, 0, sizeof *in);
    struct stat st;
    int rc = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        if ((uint64_t)st.st_size > TEXTIN_MAX)
            return too_large(in, name, err);
        /* the page cache's pages, no copy, mapped as they are first read: a fault maps the
         * pages around it (large folios at a time where the file has them), and the threads
         * that read a large text take its faults in parallel. MAP_POPULATE mapped all 13 MB
         * of the corpus in the calling thread before any work began: 1.1-4.9 ms, against
         * 0.7-1.0 ms of faults in all (bench/THREADS.md, "the serial start"). */
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED)
            return read_all(fd, in, name, err);
        in->map = m;
        in->data = m;
        in->len = (size_t)st.st_size;
    } else {
        rc = read_all(fd, in, name, err);
    }
    if (!rc && !in->data)
        in->data = ""; /* an empty file */
    return rc;
}

void textin_close(textin *in)
{
    if (in->map)
        munmap(in->map, in->len);
    free(in->buf);
    memset(in, 0, sizeof *in);
}
