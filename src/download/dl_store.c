/* SPDX-License-Identifier: MIT */
/* dl_store.c — where the bytes go: the part file and its sidecar (opened without following
 * links, created exclusively, locked, checked to still be the path), the free space, and the
 * Hugging Face cache's blobs/, snapshots/ and refs/ (see download.h).
 *
 * Deliberately left out: huggingface_hub's .locks folder (the part's flock stands in), copies
 * where symbolic links are not supported. */
#include "dl_internal.h"
#include "locate.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* The loop of dl_write_all_at and dl_read_all_at: pwrite (write) or pread until n bytes
 * are done, again after EINTR; -1 on an error or a short end. */
static int all_at(int fd, uint8_t *p, size_t n, uint64_t off, int writing)
{
    while (n) {
        ssize_t z = writing ? pwrite(fd, p, n, (off_t)off) : pread(fd, p, n, (off_t)off);
        if (z < 0 && errno == EINTR)
            continue;
        if (z <= 0)
            return -1;
        p += z;
        n -= (size_t)z;
        off += (uint64_t)z;
    }
    return 0;
}

int dl_write_all_at(int fd, const void *buf, size_t n, uint64_t off)
{
    return all_at(fd, (uint8_t *)(uintptr_t)buf, n, off, 1);   /* pwrite only reads it */
}

int dl_read_all_at(int fd, void *buf, size_t n, uint64_t off)
{
    return all_at(fd, buf, n, off, 0);
}

/* Why fd (open on path) is no file to write through, as an error; 0 if it is one:
 * a regular file with no other hard link. */
static int refuse_special(int fd, const char *path, g2e_err *err)
{
    struct stat sb;
    if (fstat(fd, &sb) != 0)
        return g2e_fail(err, DL_E_IO, "cannot stat %s: %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return g2e_fail(err, DL_E_IO, "%s is not a regular file (a FIFO, device or folder?): "
                        "refusing to use it; remove it and run again", path);
    if (sb.st_nlink > 1)
        return g2e_fail(err, DL_E_IO, "%s has other hard links: refusing to write through it "
                        "into another file; remove it and run again", path);
    return 0;
}

/* The error for an open(2) of path that failed with errno. */
int dl_open_error(const char *path, const char *verb, g2e_err *err)
{
    if (errno == ELOOP)
        return g2e_fail(err, DL_E_IO, "%s is a symbolic link: refusing to follow it; remove it "
                        "and run again", path);
    if (errno == EISDIR || errno == ENXIO)
        return g2e_fail(err, DL_E_IO, "%s is not a regular file (a FIFO, device or folder?): "
                        "refusing to use it; remove it and run again", path);
    return g2e_fail(err, DL_E_IO, "cannot %s %s: %s", verb, path, strerror(errno));
}

/* Opens path (flags O_RDWR or O_WRONLY) if it exists, else creates it exclusively; never
 * through a symbolic link, never anything but a regular file with one link (O_NONBLOCK:
 * a FIFO cannot block the open). 0 and *fd; 1 when another process created it between the
 * two opens (try again); else an error. */
static int open_regular(const char *path, int flags, int *fd, g2e_err *err)
{
    int base = flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
    *fd = open(path, base);
    if (*fd < 0 && errno == ENOENT) {
        *fd = open(path, base | O_CREAT | O_EXCL, 0644);
        if (*fd < 0 && errno == EEXIST)
            return 1;
    }
    if (*fd < 0)
        return dl_open_error(path, "create", err);
    int rc = refuse_special(*fd, path, err);
    if (rc) {
        close(*fd);
        *fd = -1;
        return rc;
    }
    fcntl(*fd, F_SETFL, fcntl(*fd, F_GETFL) & ~O_NONBLOCK);
    return 0;
}

/* *same = 1 if the sidecar at path holds exactly info. No sidecar: 0. A link or special
 * file there: an error (never read through or replaced). */
static int info_same(const char *path, const char *info, int *same, g2e_err *err)
{
    *same = 0;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0 : dl_open_error(path, "read", err);
    int rc = refuse_special(fd, path, err);
    if (rc) {
        close(fd);
        return rc;
    }
    size_t il = strlen(info), k = 0;
    char *old = malloc(il + 2);
    if (!old) {
        close(fd);
        return g2e_fail(err, G2E_ENOMEM, "out of memory");
    }
    while (k < il + 1) {
        ssize_t z = read(fd, old + k, il + 1 - k);
        if (z < 0 && errno == EINTR)
            continue;
        if (z <= 0)
            break;
        k += (size_t)z;
    }
    close(fd);
    *same = k == il && memcmp(old, info, il) == 0;
    free(old);
    return 0;
}

/* A new sidecar at path holding info: the old one (a regular file: info_same checked)
 * removed, the new one created exclusively. */
static int info_write(const char *path, const char *info, g2e_err *err)
{
    if (unlink(path) != 0 && errno != ENOENT)
        return g2e_fail(err, DL_E_IO, "cannot remove %s: %s", path, strerror(errno));
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return dl_open_error(path, "create", err);
    int bad = dl_write_all_at(fd, info, strlen(info), 0) != 0;
    if (close(fd) != 0 || bad)
        return g2e_fail(err, DL_E_IO, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

/* 1 if p->fd is still the file at p->path (dev + inode; *sb gets its fstat), 0 if that
 * path is gone or another file now, -1 on a failed fstat. */
static int part_is_path(const dl_part *p, struct stat *sb)
{
    struct stat at;
    if (fstat(p->fd, sb) != 0)
        return -1;
    if (lstat(p->path, &at) != 0)
        return 0;
    return at.st_dev == sb->st_dev && at.st_ino == sb->st_ino;
}

/* For the test suite only (documented in download.h; compiled in only with G2E_TEST_HOOKS): with $GPT2_EMBED_TEST_PART_GATE set
 * to a folder, a download that has just opened its part file creates <folder>/opened and
 * waits (at most 60 s) until <folder>/go exists, so that a test can run another download
 * in that window. */
static void test_gate(void)
{
#ifdef G2E_TEST_HOOKS
    const char *g = getenv("GPT2_EMBED_TEST_PART_GATE");
    char a[4096], b[4096];
    if (!g || !*g || snprintf(a, sizeof a, "%s/opened", g) >= (int)sizeof a ||
        snprintf(b, sizeof b, "%s/go", g) >= (int)sizeof b)
        return;
    int fd = open(a, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0)
        close(fd);
    for (int i = 0; i < 6000 && access(b, F_OK) != 0; i++)
        dl_sleep_ms(10);
#endif
}

/* Opens <out>.part (locked) and keeps what is in it when <out>.part.info equals info. */
int dl_part_open(dl_part *p, const char *out, const char *info, uint64_t max_size, g2e_err *err)
{
    size_t n = strlen(out);
    p->fd = -1;
    p->path = malloc(n + 6);
    p->info_path = malloc(n + 11);
    if (!p->path || !p->info_path)
        return g2e_fail(err, G2E_ENOMEM, "out of memory");
    snprintf(p->path, n + 6, "%s.part", out);
    snprintf(p->info_path, n + 11, "%s.part.info", out);
    struct stat sb;
    for (int tries = 0;; tries++) {
        /* an existing part, else a new one: never through a link, created exclusively */
        int rc = open_regular(p->path, O_RDWR, &p->fd, err);
        if (rc == 1 && tries < 20)
            continue;   /* created by someone else meanwhile: open that one */
        if (rc == 1)
            return g2e_fail(err, DL_E_BUSY, "%s keeps being replaced by another process while "
                            "being opened; stop the other download", p->path);
        if (rc)
            return rc;
        test_gate();
        if (flock(p->fd, LOCK_EX | LOCK_NB) != 0)
            return g2e_fail(err, DL_E_BUSY, "another download is writing %s; wait for it or stop it",
                            p->path);
        /* the lock is on an inode: another download may have renamed this very file into
         * place between our open and our lock. Only a descriptor that still is the part's
         * path may be truncated or written; otherwise open the path again. */
        int same = part_is_path(p, &sb);
        if (same < 0)
            return g2e_fail(err, DL_E_IO, "cannot stat %s: %s", p->path, strerror(errno));
        if (same)
            break;
        close(p->fd);
        p->fd = -1;
        if (tries >= 20)
            return g2e_fail(err, DL_E_BUSY, "%s keeps being replaced by another process while "
                            "being opened; stop the other download", p->path);
    }
    p->size = (uint64_t)sb.st_size;
    int same = 0, rc = info_same(p->info_path, info, &same, err);
    if (rc)
        return rc;
    if (!same || p->size > max_size) {
        if (ftruncate(p->fd, 0) != 0)
            return g2e_fail(err, DL_E_IO, "cannot truncate %s: %s", p->path, strerror(errno));
        p->size = 0;
        if ((rc = info_write(p->info_path, info, err)) != 0)
            return rc;
    }
    return 0;
}

/* After a transport failure: says that the part is kept and how to go on. */
int dl_part_kept(const dl_part *p, int rc, g2e_err *err)
{
    struct stat sb;
    if ((rc == DL_E_NETWORK || rc == DL_E_HTTP) && err && fstat(p->fd, &sb) == 0 && sb.st_size > 0) {
        char was[G2E_ERR_MSG_MAX];
        snprintf(was, sizeof was, "%s", err->msg);
        g2e_fail(err, rc, "%s; %s keeps %lld bytes: run again to resume", was, p->path,
                 (long long)sb.st_size);
    }
    return rc;
}

/* Removes the part and its sidecar (after a verdict that its bytes are wrong). */
void dl_part_discard(dl_part *p)
{
    if (p->path) unlink(p->path);
    if (p->info_path) unlink(p->info_path);
}

void dl_part_close(dl_part *p)
{
    if (p->fd >= 0)
        close(p->fd);
    free(p->path);
    free(p->info_path);
    p->fd = -1;
    p->path = p->info_path = NULL;
}

/* fsync, rename onto out, fsync the folder, drop the sidecar. */
int dl_part_commit(dl_part *p, const char *out, g2e_err *err)
{
    struct stat sb;
    if (fsync(p->fd) != 0)
        return g2e_fail(err, DL_E_IO, "cannot sync %s: %s", p->path, strerror(errno));
    if (part_is_path(p, &sb) != 1)   /* never rename what is not the part we wrote */
        return g2e_fail(err, DL_E_IO, "%s was replaced or removed by another process during "
                        "the download; nothing was renamed onto %s", p->path, out);
    if (rename(p->path, out) != 0)
        return g2e_fail(err, DL_E_IO, "cannot rename %s to %s: %s", p->path, out, strerror(errno));
    unlink(p->info_path);
    char *dir = strdup(out);
    if (dir) {
        char *sl = strrchr(dir, '/');
        const char *d = sl ? (sl == dir ? "/" : (*sl = '\0', dir)) : ".";
        int dfd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            fsync(dfd);
            close(dfd);
        }
        free(dir);
    }
    return 0;
}

/* Absorbs bytes [off, +len) of fd into h (what an earlier run left in the part);
 * progress under the current stage. */
int dl_hash_file_range(dl_ctx *c, int fd, uint64_t off, uint64_t len, sha256_ctx *h,
                           g2e_err *err, const char *path)
{
    enum { CHUNK = 1 << 20 };
    uint8_t *buf = malloc(CHUNK);
    if (!buf)
        return g2e_fail(err, G2E_ENOMEM, "out of memory");
    uint64_t done = 0;
    while (done < len) {
        size_t n = len - done < CHUNK ? (size_t)(len - done) : CHUNK;
        if (dl_read_all_at(fd, buf, n, off + done) != 0) {
            free(buf);
            return g2e_fail(err, DL_E_IO, "cannot read back %s: %s", path,
                            errno ? strerror(errno) : "file too short");
        }
        sha256_update(h, buf, n);
        done += n;
        c->pg.done += n;
        if ((c->pg.done & ((1u << 24) - 1)) < n && c->o->progress)
            c->o->progress(c->o->progress_user, &c->pg);
    }
    free(buf);
    return 0;
}

void dl_hash_hex(sha256_ctx *h, char hex[65])
{
    uint8_t dg[SHA256_DIGEST_LEN];
    sha256_final(h, dg);
    sha256_hex(dg, hex);
}

/* The folder of path has room for `need` more bytes (statvfs; unknown: assumed yes). */
int dl_check_space(const char *path, uint64_t need, g2e_err *err)
{
    char *d = strdup(path);
    if (!d)
        return g2e_fail(err, G2E_ENOMEM, "out of memory");
    char *sl = strrchr(d, '/');
    const char *folder = sl ? (sl == d ? "/" : (*sl = '\0', d)) : ".";
    struct statvfs v;
    int rc = 0;
    if (statvfs(folder, &v) == 0) {
        uint64_t avail = (uint64_t)v.f_bavail * (uint64_t)v.f_frsize;
        if (avail < need)
            rc = g2e_fail(err, DL_E_SPACE, "not enough free space in %s: the download needs "
                          "%" PRIu64 " more bytes, %" PRIu64 " are free", folder, need, avail);
    }
    free(d);
    return rc;
}

/* mkdir -p path (0755); every component must end up a folder. */
static int mkdirs(const char *path, g2e_err *err)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return g2e_fail(err, DL_E_IO, "path too long: %.120s", path);
    for (char *p = buf + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char keep = *p;
        *p = '\0';
        struct stat sb;
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return g2e_fail(err, DL_E_IO, "cannot create the folder %s: %s", buf, strerror(errno));
        if (stat(buf, &sb) != 0 || !S_ISDIR(sb.st_mode))
            return g2e_fail(err, DL_E_IO, "%s is not a folder", buf);
        *p = keep;
        if (!keep)
            return 0;
    }
}

/* 1 if s is a relative path of plain names: no "..", ".", empty part or leading '/'. */
static int plain_relative(const char *s)
{
    if (!*s || *s == '/')
        return 0;
    for (const char *p = s; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
            return 0;
        p += n;
        if (*p == '/')
            p++;
        if (*p == '\0' && p[-1] == '/')
            return 0;
    }
    return 1;
}

/* The blob's place, <repo dir>/blobs/<sha256> (huggingface_hub names a file kept in LFS by
 * its sha256); *reuse = 1 when a blob with those bytes is already there. */
int dl_cache_prepare(dl_ctx *c, int *reuse, g2e_err *err)
{
    const dl_opts *o = c->o;
    const char *rev = o->revision ? o->revision : "main";
    const char *file = o->filename ? o->filename : "model.safetensors";
    char blobs[4200];
    int rc;
    *reuse = 0;
    if (!plain_relative(rev) || !plain_relative(file))
        return g2e_fail(err, DL_E_ARG, "the revision '%s' or file '%s' cannot name a place in "
                        "the Hugging Face cache", rev, file);
    if (!dl_is_sha256_hex(c->etag))
        return g2e_fail(err, DL_E_PROTOCOL, "the Hub gives no sha256 for %s (ETag '%s'), so it "
                        "can be neither verified nor named in the cache", c->shown_url, c->etag);
    if ((rc = locate_hf_repo_dir(o->repo, c->repo_dir, sizeof c->repo_dir, err)) != 0)
        return rc == LOCATE_E_TOO_LONG ? DL_E_ARG : rc;
    snprintf(blobs, sizeof blobs, "%s/blobs", c->repo_dir);
    if ((rc = mkdirs(blobs, err)) != 0)
        return rc;
    if (snprintf(c->out_path, sizeof c->out_path, "%s/%s", blobs, c->etag) >= (int)sizeof c->out_path)
        return g2e_fail(err, DL_E_ARG, "the cache path is too long");
    /* a blob already there (another revision, an earlier run) is used once its bytes check */
    int fd = open(c->out_path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat sb;
    if (fd < 0)
        return 0;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && (uint64_t)sb.st_size == c->size) {
        sha256_ctx h;
        char hex[65];
        sha256_init(&h);
        dl_set_stage(c, DL_STAGE_VERIFY, 0, c->size);
        if (dl_hash_file_range(c, fd, 0, c->size, &h, err, c->out_path) == 0) {
            dl_hash_hex(&h, hex);
            *reuse = strcmp(hex, c->etag) == 0;
        }
    }
    close(fd);
    return 0;
}

/* Writes path (a new file) with bytes s, atomically: a temporary beside it, renamed. */
static int write_atomic(const char *path, const char *s, g2e_err *err)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.g2e-tmp", path);
    unlink(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return dl_open_error(tmp, "create", err);
    int bad = dl_write_all_at(fd, s, strlen(s), 0) != 0;
    if (close(fd) != 0 || bad || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return g2e_fail(err, DL_E_IO, "cannot write %s: %s", path, strerror(e));
    }
    return 0;
}

/* The verified blob made visible as huggingface_hub does: snapshots/<commit>/<file> a
 * relative symbolic link to ../../blobs/<sha256>, and refs/<revision> holding the commit
 * (no newline) unless the revision is the commit itself. */
int dl_cache_link(dl_ctx *c, g2e_err *err)
{
    const dl_opts *o = c->o;
    const char *rev = o->revision ? o->revision : "main";
    const char *file = o->filename ? o->filename : "model.safetensors";
    char dst[4400], target[4400], tmp[4500], dir[4400];
    int rc;
    if (snprintf(dst, sizeof dst, "%s/snapshots/%s/%s", c->repo_dir, c->commit, file) >=
        (int)sizeof dst)
        return g2e_fail(err, DL_E_ARG, "the cache path is too long");
    snprintf(dir, sizeof dir, "%s", dst);
    *strrchr(dir, '/') = '\0';
    if ((rc = mkdirs(dir, err)) != 0)
        return rc;
    size_t k = 0;
    for (const char *p = file; *p; p++)
        if (*p == '/')
            k += (size_t)snprintf(target + k, sizeof target - k, "../");
    snprintf(target + k, sizeof target - k, "../../blobs/%s", c->etag);
    snprintf(tmp, sizeof tmp, "%s.g2e-tmp", dst);
    unlink(tmp);
    if (symlink(target, tmp) != 0 || rename(tmp, dst) != 0) {
        int e = errno;
        unlink(tmp);
        return g2e_fail(err, DL_E_IO, "cannot link %s to the blob: %s", dst, strerror(e));
    }
    snprintf(c->res->path, sizeof c->res->path, "%s", dst);
    if (strcmp(rev, c->commit) == 0)
        return 0;
    char ref[4400];
    snprintf(ref, sizeof ref, "%s/refs/%s", c->repo_dir, rev);
    snprintf(dir, sizeof dir, "%s", ref);
    *strrchr(dir, '/') = '\0';
    if ((rc = mkdirs(dir, err)) != 0)
        return rc;
    return write_atomic(ref, c->commit, err);
}

int dl_in_cache(const char *repo, const char *revision, char *out, size_t cap)
{
    return locate_hf_cache(repo, revision, out, cap, NULL) == 0 ? 0 : -1;
}
