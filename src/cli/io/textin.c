/* SPDX-License-Identifier: MIT */
/* textin.c — a file descriptor's text, mapped or read (see textin.h).
 *
 * Why a regular file of TEXTIN_HUGE_MIN (64 KB) or more is read into huge pages rather
 * than mapped: a file's mapping is made of 4 KB pages, and every one the process touches
 * first costs a fault or, on VMs that shadow the guest's page tables, a trap to the host
 * even once mapped; read into memory advised to 2 MB pages, the text costs a copy and a few
 * faults, and tokenizing a large file takes less CPU time for a little more memory (the
 * last huge page's rounding; the figures: bench/PROGRAM.md). Where the memory cannot be
 * had, the file is mapped. The copy
 * also holds the text as it was read: another program truncating the file cannot pull it
 * away. Above TEXTIN_HUGE_MAX (256 MB) the file is mapped all the same: its pages then stay
 * the page cache's, which the kernel can drop under memory pressure, where a copy would be
 * memory of the process's own that it cannot. */
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

/* Reads up to want bytes of fd to p, fewer only at the end of the input: their count in
 * *got. A read error releases in and is TEXTIN_E_READ with its message. */
static int read_upto(int fd, char *p, size_t want, size_t *got, textin *in, const char *name, g2e_err *err)
{
    size_t n = 0;
    while (n < want) {
        ssize_t k = read(fd, p + n, want - n);
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
    *got = n;
    return 0;
}

/* Reads fd to its end into in->buf (at most TEXTIN_MAX bytes). */
static int read_all(int fd, textin *in, const char *name, g2e_err *err)
{
    size_t cap = 1 << 16, n = 0;
    in->buf = malloc(cap);
    for (;;) {
        if (!in->buf)
            return g2e_fail(err, G2E_ENOMEM, "out of memory reading %s", name);
        size_t k;
        int rc = read_upto(fd, in->buf + n, cap - n, &k, in, name, err);
        if (rc)
            return rc;
        if ((n += k) < cap)
            break; /* the end */
        if (cap >= TEXTIN_MAX)
            return too_large(in, name, err);
        char *c = realloc(in->buf, cap *= 2);
        if (!c)
            textin_close(in);
        in->buf = c;
    }
    if (!n)
        textin_close(in); /* empty: "" below */
    in->data = in->buf;
    in->len = n;
    return 0;
}

#define HUGE_PAGE ((size_t)2 << 20)

/* Reads the n bytes of regular file fd into an anonymous mapping advised to huge pages.
 * Returns 0 (read: in->data, fewer bytes if the file shrank meanwhile), 1 (no memory for
 * it: map the file instead) or TEXTIN_E_READ. */
static int read_huge(int fd, size_t n, textin *in, const char *name, g2e_err *err)
{
    size_t cap = (n + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1), len = cap + HUGE_PAGE; /* room to align */
    char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return 1;
    char *a = (char *)(((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
#ifdef MADV_HUGEPAGE
    (void)madvise(a, cap, MADV_HUGEPAGE); /* advice only: refused, 4 KB pages do the same job */
#endif
    in->huge = m;
    in->huge_len = len;
    size_t got;
    int rc = read_upto(fd, a, n, &got, in, name, err); /* (fewer: shrunk since fstat) */
    if (rc)
        return rc;
    in->data = got ? a : "";
    in->len = got;
    return 0;
}

int textin_fd(textin *in, int fd, const char *name, g2e_err *err)
{
    memset(in, 0, sizeof *in);
    struct stat st;
    int rc = 0;
    off_t at = lseek(fd, 0, SEEK_CUR); /* the text begins where the descriptor stands (a shell's
                                          `head` before us may have read some of it) */
    if (at < 0)
        at = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > at) { /* (size 0: /proc's, read) */
        size_t n = (size_t)(st.st_size - at);
        if (n > TEXTIN_MAX)
            return too_large(in, name, err);
        if (n >= TEXTIN_HUGE_MIN && n <= TEXTIN_HUGE_MAX && (rc = read_huge(fd, n, in, name, err)) != 1)
            return rc;
        rc = 0;
        /* the page cache's pages, no copy, mapped as they are first read: a fault maps the
         * pages around it (large folios at a time where the file has them), and the threads
         * that read a large text take its faults in parallel, where MAP_POPULATE would map
         * it all in the calling thread before any work began, which takes longer
         * (bench/PROGRAM.md). */
        size_t skip = (size_t)at % (size_t)sysconf(_SC_PAGESIZE); /* (mappings start on a page) */
        char *m = mmap(NULL, skip + n, PROT_READ, MAP_PRIVATE, fd, at - (off_t)skip);
        if (m == MAP_FAILED)
            return read_all(fd, in, name, err);
        in->map = m;
        in->map_len = skip + n;
        in->data = m + skip;
        in->len = n;
        (void)lseek(fd, at + (off_t)n, SEEK_SET); /* read to its end, as by read(2) */
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
        munmap(in->map, in->map_len);
    if (in->huge)
        munmap(in->huge, in->huge_len);
    free(in->buf);
    memset(in, 0, sizeof *in);
}
