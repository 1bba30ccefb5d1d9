/* SPDX-License-Identifier: MIT */
/* outdir.c — a directory of output files replaced as a whole (outdir.h). */
#define _GNU_SOURCE   /* renameat2 */
#include "outdir.h"

#include "outfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* dir part and last part of path ("a/b" -> "a", "b"; "b" -> ".", "b"); new strings. */
static int split(const char *path, char **dir, char **base)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    const char *s = memrchr(path, '/', n);
    *dir = s ? strndup(path, s == path ? 1 : (size_t)(s - path)) : strdup(".");
    *base = s ? strndup(s + 1, n - (size_t)(s + 1 - path)) : strndup(path, n);
    if (*dir && *base)
        return 0;
    free(*dir), free(*base);
    return -1;
}

/* 0 when every entry of dir is ours (a regular file or a link), else the refusal. */
static int check_entries(const char *dir, int (*ours)(const char *), g2e_err *err)
{
    DIR *dd = opendir(dir);
    if (!dd)
        return g2e_fail(err, ODIR_E_OPEN, "cannot read the directory %s: %s", dir, strerror(errno));
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(dd))) {
        const char *nm = e->d_name;
        if (!strcmp(nm, ".") || !strcmp(nm, ".."))
            continue;
        struct stat st;
        int kind_ok = fstatat(dirfd(dd), nm, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                      (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode));
        char p[PATH_MAX];
        if (kind_ok && ours(nm) && snprintf(p, sizeof p, "%s/%s", dir, nm) < (int)sizeof p)
            rc = ofile_check_not_input(p, err);   /* replaced with the directory */
        else if (!kind_ok || !ours(nm))
            rc = g2e_fail(err, ODIR_E_FOREIGN, "%s holds '%s', which is not an earlier report's: give a "
                          "new or empty directory (the whole directory is replaced; nothing was changed)",
                          dir, nm);
    }
    closedir(dd);
    return rc;
}

/* The target as it will be replaced: a link to a directory resolved; *exists, *mode set. */
static int resolve_target(odir *d, const char *target, g2e_err *err)
{
    struct stat st;
    mode_t um = umask(0);
    umask(um);
    d->mode = 0777 & ~um;
    if (lstat(target, &st) != 0) {
        if (errno != ENOENT)
            return g2e_fail(err, ODIR_E_OPEN, "cannot use %s: %s", target, strerror(errno));
        d->target = strdup(target);
        return d->target ? 0 : g2e_fail(err, G2E_ENOMEM, "out of memory");
    }
    if (stat(target, &st) != 0 || !S_ISDIR(st.st_mode))
        return g2e_fail(err, ODIR_E_FOREIGN, "%s exists and is not a directory (give a directory, or a "
                        "name ending in .html for one self-contained file)", target);
    d->exists = 1;
    d->mode = st.st_mode & 07777;
    if (!(d->target = realpath(target, NULL)))
        return g2e_fail(err, ODIR_E_OPEN, "cannot use %s: %s", target, strerror(errno));
    if (!strcmp(d->target, "/"))
        return g2e_fail(err, ODIR_E_OPEN, "%s is the root directory: give a directory of its own", target);
    return check_entries(d->target, d->ours, err);
}

int odir_open(odir *d, const char *target, int (*ours)(const char *name), g2e_err *err)
{
    memset(d, 0, sizeof *d);
    d->ours = ours;
    char *dir = NULL, *base = NULL;
    int rc = split(target, &dir, &base) != 0 ? g2e_fail(err, G2E_ENOMEM, "out of memory") : 0;
    if (!rc && (!strcmp(base, ".") || !strcmp(base, "..") || !*base || !strcmp(base, "/")))
        rc = g2e_fail(err, ODIR_E_OPEN, "give the directory by its name, not '%s' (it is replaced as a whole)",
                      target);
    free(dir), free(base);
    dir = base = NULL;
    if (!rc)
        rc = resolve_target(d, target, err);
    if (!rc && split(d->target, &dir, &base) != 0)
        rc = g2e_fail(err, G2E_ENOMEM, "out of memory");
    size_t n = rc ? 0 : strlen(dir) + strlen(base) + 16;
    if (!rc && (d->tmp = malloc(n)) == NULL)
        rc = g2e_fail(err, G2E_ENOMEM, "out of memory");
    if (!rc) {
        snprintf(d->tmp, n, "%s/.%.200s.XXXXXX", dir, base);
        if (!mkdtemp(d->tmp))
            rc = g2e_fail(err, ODIR_E_OPEN, "cannot create a directory beside %s: %s", target, strerror(errno));
        else
            ofile_guard_dir(d->tmp);
    }
    free(dir), free(base);
    if (rc) {
        free(d->target), free(d->tmp);
        memset(d, 0, sizeof *d);
    }
    return rc;
}

char *odir_path(const odir *d, const char *name)
{
    size_t n = strlen(d->tmp) + strlen(name) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", d->tmp, name);
    return p;
}

/* Removes dir's entries (of ours() kind when ours is non-NULL: never followed) and dir. */
static void remove_dir(const char *dir, int (*ours)(const char *))
{
    DIR *dd = opendir(dir);
    if (dd) {
        struct dirent *e;
        while ((e = readdir(dd)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && (!ours || ours(e->d_name)))
                unlinkat(dirfd(dd), e->d_name, 0);
        closedir(dd);
    }
    rmdir(dir);
}

static void finish(odir *d)
{
    ofile_unguard_dir(d->tmp);
    free(d->target), free(d->tmp);
    memset(d, 0, sizeof *d);
}

void odir_abort(odir *d)
{
    if (!d || !d->tmp)
        return;
    remove_dir(d->tmp, NULL);
    finish(d);
}

static void sync_dir(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* The swap: a new target by rename, an existing one by exchange (or, where the file system
 * cannot exchange, moved aside first: a moment without it, never a mixture). */
static int put_in_place(odir *d, g2e_err *err)
{
    if (!d->exists && rename(d->tmp, d->target) == 0)
        return 0;
    if (renameat2(AT_FDCWD, d->tmp, AT_FDCWD, d->target, RENAME_EXCHANGE) == 0)
        return 1;   /* d->tmp now names the old directory */
    if (errno != EINVAL && errno != ENOSYS)
        return g2e_fail(err, ODIR_E_COMMIT, "cannot put the new %s in place: %s", d->target, strerror(errno)), -1;
    size_t n = strlen(d->tmp) + 8;
    char *old = malloc(n);
    if (!old)
        return g2e_fail(err, G2E_ENOMEM, "out of memory"), -1;
    snprintf(old, n, "%s.old", d->tmp);
    int rc = -1;
    if (rename(d->target, old) != 0)
        g2e_fail(err, ODIR_E_COMMIT, "cannot move the old %s aside: %s", d->target, strerror(errno));
    else if (rename(d->tmp, d->target) != 0) {
        g2e_fail(err, ODIR_E_COMMIT, "cannot put the new %s in place: %s", d->target, strerror(errno));
        rename(old, d->target);
    } else {
        remove_dir(old, d->ours);
        rc = 0;
    }
    free(old);
    return rc;
}

int odir_commit(odir *d, g2e_err *err)
{
    if (!d->tmp)
        return g2e_fail(err, G2E_EINVAL, "internal: directory committed twice");
    char *dir = NULL, *base = NULL;
    chmod(d->tmp, d->mode);
    sync_dir(d->tmp);
    int r = put_in_place(d, err);
    if (r < 0) {
        remove_dir(d->tmp, NULL);
    } else {
        if (r == 1)
            remove_dir(d->tmp, d->ours);   /* the old directory, under the temporary name */
        if (split(d->target, &dir, &base) == 0)
            sync_dir(dir);
    }
    free(dir), free(base);
    finish(d);
    return r < 0 ? ODIR_E_COMMIT : 0;
}
