/* SPDX-License-Identifier: MIT */
/* textin.c — mapped or read input text (see textin.h). */
#include "textin.h"
#include "cli.h"
#include "out.h"

#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* "'path'" or "standard input", for messages (one at a time). */
static const char *shown(const char *path)
{
    static char buf[4200];
    if (!path)
        return "standard input";
    snprintf(buf, sizeof buf, "'%s'", path);
    return buf;
}

/* Reads fd to its end into in->buf (at most TEXTIN_MAX bytes). */
static int read_all(int fd, textin *in, const char *path)
{
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    for (;;) {
        if (!b) {
            cli_error("out of memory reading %s", shown(path));
            return -1;
        }
        if (n == cap) {
            if (cap >= TEXTIN_MAX) {
                free(b);
                cli_error("%s is larger than 1 GiB, the most this command reads", shown(path));
                return -1;
            }
            char *c = realloc(b, cap *= 2);
            if (!c)
                free(b);
            b = c;
            continue;
        }
        ssize_t k = read(fd, b + n, cap - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            int e = errno;
            free(b);
            cli_error("cannot read %s: %s", shown(path), strerror(e));
            return -1;
        }
        if (k == 0)
            break;
        n += (size_t)k;
    }
    in->buf = b;
    in->data = b;
    in->len = n;
    return 0;
}

int textin_open(textin *in, const char *path, const char *what)
{
    memset(in, 0, sizeof *in);
    if (path && strcmp(path, "-") == 0)
        path = NULL;
    if (path && !*path) {
        cli_error("an empty file name was given for the %s", what);
        return -1;
    }
    /* a FIFO or device is refused, not waited on (cli_open_file); stdin may be a pipe */
    int fd = path ? cli_open_file(path, what) : STDIN_FILENO;
    if (fd < 0)
        return -1;
    struct stat st;
    int rc = 0;
    if (!path)
        out_add_input("standard input", "standard input", fd);
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        if ((uint64_t)st.st_size > TEXTIN_MAX) {
            cli_error("%s is larger than 1 GiB, the most this command reads", shown(path));
            rc = -1;
        } else {
            /* the page cache's pages, no copy; read ahead all of it at once */
            void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
            if (m == MAP_FAILED) {
                rc = read_all(fd, in, path);
            } else {
                in->map = m;
                in->data = m;
                in->len = (size_t)st.st_size;
                /* truncated by another program while read: one line, not "Bus error" */
                out_guard_mapping(m, in->len, path ? path : "standard input", "text file");
            }
        }
    } else {
        rc = read_all(fd, in, path);
    }
    if (path)
        close(fd);
    if (!in->data && !rc)
        in->data = ""; /* an empty file */
    return rc;
}

void textin_close(textin *in)
{
    if (in->map) {
        out_unguard_mapping(in->map);
        munmap(in->map, in->len);
    }
    free(in->buf);
    memset(in, 0, sizeof *in);
}
