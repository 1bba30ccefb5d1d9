/* SPDX-License-Identifier: MIT */
/* readin.c — reading a whole input file or stream, safely (see readin.h). */
#include "readin.h"

#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *readin_stream(FILE *f, size_t *len)
{
    if (f == stdin)
        ofile_add_input("standard input", "standard input", STDIN_FILENO);
    /* room for one byte over the limit, to tell "exactly the limit" from "more" */
    const size_t most = (size_t)READIN_MAX + 2;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    for (;;) {
        if (cap - n < 2) {
            size_t nc = cap < most / 2 ? cap * 2 : most;
            char *b = nc > cap ? realloc(buf, nc) : NULL;
            if (!b) {
                free(buf);
                errno = nc > cap ? ENOMEM : EFBIG;
                return NULL;
            }
            buf = b;
            cap = nc;
        }
        size_t k = fread(buf + n, 1, cap - n - 1, f);
        n += k;
        if (n > READIN_MAX) {
            free(buf);
            errno = EFBIG;
            return NULL;
        }
        if (k == 0) {
            if (ferror(f)) {
                int e = errno ? errno : EIO;
                free(buf);
                errno = e;
                return NULL;
            }
            break;
        }
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* What kind of file st is, for the refusal. */
static const char *kind_of(const struct stat *st)
{
    if (S_ISFIFO(st->st_mode)) return g2e_tr("a FIFO");
    if (S_ISCHR(st->st_mode)) return g2e_tr("a character device");
    if (S_ISBLK(st->st_mode)) return g2e_tr("a block device");
    if (S_ISSOCK(st->st_mode)) return g2e_tr("a socket");
    if (S_ISDIR(st->st_mode)) return g2e_tr("a directory");
    return g2e_tr("not a regular file");
}

static int open_checked(const char *path, const char *what, uint64_t max, g2e_err *err)
{
    /* O_NONBLOCK: opening a FIFO nobody writes to must not wait; fstat decides first */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        g2e_fail(err, G2E_EIO, "cannot open '%s': %s", path, strerror(errno));
        return -1;
    }
    struct stat st, in;
    if (fstat(fd, &st) != 0) {
        g2e_fail(err, G2E_EIO, "cannot read '%s': %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    /* a pipe or terminal is read only when it is our own standard input (-f /dev/stdin) */
    int is_stdin = fstat(STDIN_FILENO, &in) == 0 && in.st_dev == st.st_dev && in.st_ino == st.st_ino;
    if (!S_ISREG(st.st_mode) && !is_stdin) {
        int pipe_like = S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISSOCK(st.st_mode);
        g2e_fail(err, READIN_E_KIND, "cannot read '%s': not a regular file (%s)%s", path, kind_of(&st),
                  pipe_like ? "; to read a pipe or device, give it as standard input ('-f -' < it)" : "");
        close(fd);
        return -1;
    }
    if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > max) {
        g2e_fail(err, READIN_E_SIZE, "cannot read '%s': it is %llu bytes, over the input limit of %llu (1 GiB)",
                 path, (unsigned long long)st.st_size, (unsigned long long)READIN_MAX);
        close(fd);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        g2e_fail(err, G2E_EIO, "cannot read '%s': %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    ofile_add_input(what, path, fd);
    return fd;
}

int readin_open(const char *path, const char *what, g2e_err *err)
{
    return open_checked(path, what, READIN_MAX, err);
}

int readin_open_stream(const char *path, const char *what, g2e_err *err)
{
    return open_checked(path, what, UINT64_MAX, err);
}

char *readin_file(const char *path, const char *what, size_t *len, g2e_err *err)
{
    if (*path == '\0') {
        g2e_fail(err, G2E_EINVAL, "the %s name is empty", what);
        return NULL;
    }
    if (strcmp(path, "-") == 0) {
        char *buf = readin_stream(stdin, len);
        if (!buf)
            g2e_fail(err, G2E_EIO, "cannot read standard input: %s", strerror(errno));
        return buf;
    }
    int fd = readin_open(path, what, err);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        g2e_fail(err, G2E_EIO, "cannot read '%s': %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    char *buf = readin_stream(f, len);
    int e = errno;
    fclose(f);
    if (!buf && e == EFBIG)
        g2e_fail(err, READIN_E_SIZE, "cannot read '%s': it grew over the input limit of %llu bytes (1 GiB)",
                 path, (unsigned long long)READIN_MAX);
    else if (!buf)
        g2e_fail(err, G2E_EIO, "cannot read '%s': %s", path, strerror(e));
    return buf;
}
