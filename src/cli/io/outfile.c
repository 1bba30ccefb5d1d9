/* SPDX-License-Identifier: MIT */
/* outfile.c — atomic output files, streams that remember the first write error, the inputs
 * an output must never replace, and clean-up of temporaries on a fatal signal (outfile.h).
 *
 * The temporary is hidden (".NAME.XXXXXX") and lives next to the target so that rename(2)
 * is atomic (same filesystem).
 */
#define _GNU_SOURCE   /* fopencookie */
#include "outfile.h"

#include "text.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- cleaning up the temporary on a fatal signal ---- */

/* The temporaries to remove if a signal kills us (a few outputs may be open at once). */
#define N_PENDING 4
static char *volatile pending[N_PENDING];
static char *volatile pending_dir;   /* a directory being built (ofile_guard_dir) */
static int n_guarded, catching;

/* Every entry of the directory dir, then dir itself; with the raw getdents64 system call
 * (opendir allocates), so async-signal-safe. Entries that are directories stay (and so
 * does dir then): the directories guarded hold files only. */
static void remove_dir_now(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    char buf[4096];
    long n;
    while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
        for (long off = 0; off < n;) {
            struct { uint64_t ino; int64_t off; unsigned short reclen; unsigned char type; char name[]; } *e =
                (void *)(buf + off);
            const char *nm = e->name;
            if (!(nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2]))))
                unlinkat(fd, nm, 0);
            off += e->reclen;
        }
    }
    close(fd);
    rmdir(dir);
}

/* Async-signal-safe. */
void ofile_remove_pending(void)
{
    for (int i = 0; i < N_PENDING; i++) {
        char *t = pending[i];
        if (t)
            unlink(t);
    }
    char *d = pending_dir;
    if (d)
        remove_dir_now(d);
}

/* Every signal whose default action ends the process, but SIGKILL and SIGSTOP (which cannot
 * be caught), SIGBUS (a mapped input's, the program handles it) and SIGXFSZ (a program ignores it,
 * so that an over-large write fails with EFBIG and is reported). The crash signals are left
 * to the sanitizers in a sanitizer build, which report them. */
static const int SIGS[] = {
    SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM, SIGXCPU, SIGVTALRM,
    SIGPROF, SIGPOLL, SIGPWR, SIGSYS, SIGTRAP,
#if !defined(__SANITIZE_ADDRESS__)
    SIGABRT, SIGSEGV, SIGFPE, SIGILL,
#endif
};
#define N_SIGS (sizeof SIGS / sizeof SIGS[0])
static int installed[N_SIGS];
static struct sigaction old_act[N_SIGS];

/* Async-signal-safe: unlink the temporary, then die of the same signal by its default
 * action (re-raised; it stays blocked until the handler returns, then ends the process). */
static void on_signal(int sig)
{
    ofile_remove_pending();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_handlers(void)
{
    if (n_guarded++ > 0 || !catching)
        return;   /* the handlers are in place */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < N_SIGS; i++)
        sigaddset(&sa.sa_mask, SIGS[i]);   /* one clean-up at a time */
    for (size_t i = 0; i < N_SIGS; i++) {
        /* a signal the parent told us to ignore stays ignored */
        installed[i] = sigaction(SIGS[i], NULL, &old_act[i]) == 0 &&
                       old_act[i].sa_handler != SIG_IGN && sigaction(SIGS[i], &sa, NULL) == 0;
    }
}

static void guard_tmp(char *tmp)
{
    int slot = 0;
    while (slot < N_PENDING && pending[slot])
        slot++;
    if (slot == N_PENDING)
        return;   /* more outputs than slots: this one is only removed by out_abort */
    pending[slot] = tmp;
    install_handlers();
}

static void remove_handlers(void)
{
    if (--n_guarded > 0)
        return;
    for (size_t i = 0; i < N_SIGS; i++)
        if (installed[i]) {
            sigaction(SIGS[i], &old_act[i], NULL);
            installed[i] = 0;
        }
}

static void unguard_tmp(const char *tmp)
{
    int slot = 0;
    while (slot < N_PENDING && pending[slot] != tmp)
        slot++;
    if (!tmp || slot == N_PENDING)
        return;
    pending[slot] = NULL;
    remove_handlers();
}

int ofile_guard_dir(char *dir)
{
    if (pending_dir)
        return -1;
    pending_dir = dir;
    install_handlers();
    return 0;
}

void ofile_unguard_dir(const char *dir)
{
    if (!dir || pending_dir != dir)
        return;
    pending_dir = NULL;
    remove_handlers();
}

void ofile_catch_signals(int on)
{
    catching = on;
}

/* ---- inputs an output must never replace ---- */

typedef struct input {
    dev_t dev;
    ino_t ino;
    char *what, *path;
} input;
static input *inputs;
static size_t n_inputs;

int ofile_add_input(const char *what, const char *path, int fd)
{
    struct stat st;
    if ((fd >= 0 ? fstat(fd, &st) : path ? stat(path, &st) : -1) != 0 || !S_ISREG(st.st_mode))
        return 0;
    for (size_t i = 0; i < n_inputs; i++)
        if (inputs[i].dev == st.st_dev && inputs[i].ino == st.st_ino)
            return 0;
    input *n = realloc(inputs, (n_inputs + 1) * sizeof *n);
    if (!n)
        return -1;
    inputs = n;
    input *e = &inputs[n_inputs];
    e->dev = st.st_dev;
    e->ino = st.st_ino;
    e->what = strdup(what ? what : "input");
    e->path = strdup(path ? path : "?");
    if (!e->what || !e->path) {
        free(e->what);
        free(e->path);
        return -1;
    }
    n_inputs++;
    return 0;
}

void ofile_clear_inputs(void)
{
    for (size_t i = 0; i < n_inputs; i++) {
        free(inputs[i].what);
        free(inputs[i].path);
    }
    free(inputs);
    inputs = NULL;
    n_inputs = 0;
}

/* Refuses (one line, -1) when st is a registered input; name is how the output was given. */
static int check_not_input(const struct stat *st, const char *name, int quote, g2e_err *err)
{
    for (size_t i = 0; i < n_inputs; i++) {
        if (inputs[i].dev != st->st_dev || inputs[i].ino != st->st_ino)
            continue;
        char *vis = text_escape(inputs[i].path, strlen(inputs[i].path), TEXT_ESC_VISIBLE);
        g2e_fail(err, OFILE_E_INPUT, "%s%s%s is the same file as the %s being read (%s): choose another output name",
                  quote ? "'" : "", name, quote ? "'" : "", inputs[i].what, vis ? vis : "?");
        free(vis);
        return OFILE_E_INPUT;
    }
    return 0;
}

int ofile_check_not_input(const char *path, g2e_err *err)
{
    struct stat st;   /* the entry itself: a link is replaced, never what it points at */
    if (lstat(path, &st) != 0)
        return 0;
    return check_not_input(&st, path, 1, err);
}

/* ---- file streams that remember why a write failed ----
 * stdio keeps only an error flag: once a write fails (a full disk, EFBIG), the reason is
 * gone by the time ofile_commit looks, and later flushes may even succeed on an emptied
 * buffer. A cookie stream over the descriptor records the first errno itself. */

static ssize_t sink_write(void *c, const char *buf, size_t n)
{
    ofile_sink *s = c;
    size_t done = 0;
    while (done < n) {
        ssize_t k = write(s->fd, buf + done, n - done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            if (!s->err)
                s->err = k < 0 ? errno : EIO;
            return -1;
        }
        done += (size_t)k;
    }
    return (ssize_t)n;
}

static int sink_close(void *c)
{
    ofile_sink *s = c;
    int r = s->fd >= 0 ? close(s->fd) : 0;
    if (r != 0 && !s->err)
        s->err = errno;
    s->fd = -1;
    return r;
}

FILE *ofile_stream(ofile_sink *s)
{
    cookie_io_functions_t io = {NULL, sink_write, NULL, sink_close};
    return fopencookie(s, "wb", io);
}

/* A buffered stream writing to fd, owned by o (o->f, o->sink); closes fd on failure. */
static int open_sink(ofile *o, int fd)
{
    o->sink = calloc(1, sizeof *o->sink);
    if (o->sink) {
        o->sink->fd = fd;
        o->f = ofile_stream(o->sink);
    }
    if (!o->f) {
        free(o->sink);
        o->sink = NULL;
        close(fd);
        return -1;
    }
    return 0;
}

/* Why writing o failed: the first failed write's errno, else errno's, else a generic text. */
static const char *write_reason(const ofile *o, int e)
{
    if (o->sink && o->sink->err)
        return strerror(o->sink->err);
    return e ? strerror(e) : "I/O error";
}

/* ---- destinations ---- */

static const char *refuse_tty = "refusing to write binary output to a terminal: "
                                "use -o FILE or redirect standard output";

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

/* ".BASE.XXXXXX" beside the target; when that is longer than a name or path may be, BASE
 * is cut so the temporary is no longer than the target's own name: whatever final name
 * fits, its temporary fits too (a 255-byte name gets a 255-byte temporary). */
static char *tmp_name(const char *dir, const char *target)
{
    const char *base = strrchr(target, '/');
    base = base ? base + 1 : target;
    long name_max = pathconf(dir, _PC_NAME_MAX);
    size_t nmax = name_max > 0 ? (size_t)name_max : NAME_MAX;
    size_t len = strlen(base), dl = strlen(dir), keep = len;
    if (1 + len + 7 > nmax || dl + 1 + 1 + len + 7 >= PATH_MAX)
        keep = len > 8 ? len - 8 : 0;   /* "." + keep + ".XXXXXX" is then len bytes */
    size_t n = dl + keep + 16;
    char *tmp = malloc(n);
    if (tmp)
        snprintf(tmp, n, "%s/.%.*s.XXXXXX", dir, (int)keep, base);
    return tmp;
}

/* ofile_open's first kind: "-" or no path is standard output, never a terminal for binary data
 * and never one of the inputs. */
static int open_stdout(ofile *o, int binary, g2e_err *err)
{
    if (binary && isatty(STDOUT_FILENO))
        return g2e_fail(err, OFILE_E_TTY, "%s", refuse_tty);
    struct stat so;
    if (fstat(STDOUT_FILENO, &so) == 0 && S_ISREG(so.st_mode) &&
        check_not_input(&so, "standard output", 0, err))
        return OFILE_E_INPUT;
    o->f = stdout;
    o->direct = 1;
    o->name = "standard output";
    return 0;
}

/* ofile_open's second kind: a device, FIFO or socket is written in place, never replaced. */
static int open_in_place(ofile *o, const char *path, int binary, g2e_err *err)
{
    int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return g2e_fail(err, OFILE_E_OPEN, "cannot write '%s': %s", path, strerror(errno));
    if (binary && isatty(fd)) {
        close(fd);
        return g2e_fail(err, OFILE_E_TTY, "'%s' is a terminal; %s", path, refuse_tty);
    }
    if (open_sink(o, fd) != 0)
        return g2e_fail(err, OFILE_E_OPEN, "cannot write '%s': %s", path, strerror(errno));
    o->direct = 1;
    o->own_f = 1;
    return 0;
}

/* The file out_commit will rename onto: path itself, or what its symbolic link resolves to
 * (so the link survives; a made-up name's link is replaced instead). -1 after an error
 * message; 0 with *target NULL when out of memory. */
static int replace_target(const char *path, int made_up, char **target, g2e_err *err)
{
    struct stat lst;
    if (!made_up && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
        *target = realpath(path, NULL);
        if (!*target) {
            return g2e_fail(err, OFILE_E_OPEN, "cannot write '%s': it is a symbolic link that cannot "
                            "be resolved (%s)", path, strerror(errno));
        }
    } else {
        *target = strdup(path);
    }
    return 0;
}

/* ofile_open's third kind: a regular file, or nothing yet, is built in a temporary beside the
 * target (with the existing file's mode, else 0666 less the umask) and renamed on commit.
 * exists/st: whether path exists and its stat. */
static int open_replace(ofile *o, const char *path, int exists, const struct stat *st,
                        g2e_err *err)
{
    char *target = NULL, *dir = NULL, *tmp = NULL;
    int fd = -1, code = OFILE_E_OPEN, made_up = o->made_up;
    if (replace_target(path, made_up, &target, err) != 0)
        return OFILE_E_OPEN;
    if (!target)
        goto nomem;
    dir = dir_of(target);
    if (!dir)
        goto nomem;
    if (!(tmp = tmp_name(dir, target)))
        goto nomem;
    mode_t mode;
    if (exists) {
        mode = st->st_mode & 07777;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    guard_tmp(tmp);
    fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        unguard_tmp(tmp);
        struct stat dst;
        if (stat(dir, &dst) != 0)
            g2e_fail(err, OFILE_E_OPEN, "cannot write '%s': directory '%s' does not exist", path, dir);
        else
            g2e_fail(err, OFILE_E_OPEN, "cannot write '%s': cannot create a file in directory '%s': %s", path,
                     dir, strerror(e));
        goto fail;
    }
    if (fchmod(fd, mode) != 0) {
        g2e_fail(err, OFILE_E_OPEN, "cannot write '%s': setting the mode failed: %s", path, strerror(errno));
        goto fail;
    }
    if (open_sink(o, fd) != 0) {
        fd = -1;   /* closed by open_sink */
        g2e_fail(err, OFILE_E_OPEN, "cannot write '%s': %s", path, strerror(errno));
        unlink(tmp);
        unguard_tmp(tmp);
        goto fail;
    }
    free(dir);
    o->target = target;
    o->tmp = tmp;
    o->own_f = 1;
    o->made_up = made_up;
    return 0;

nomem:
    code = g2e_fail(err, G2E_ENOMEM, "out of memory");
fail:
    if (fd >= 0) {
        close(fd);
        unlink(tmp);
        unguard_tmp(tmp);
    }
    free(target);
    free(dir);
    free(tmp);
    memset(o, 0, sizeof *o);
    return code;
}

int ofile_open(ofile *o, const char *path, unsigned flags, g2e_err *err)
{
    memset(o, 0, sizeof *o);
    int binary = (flags & OFILE_BINARY) != 0, made_up = (flags & OFILE_MADE_UP) != 0;
    if (!path || strcmp(path, "-") == 0)
        return open_stdout(o, binary, err);
    o->name = path;
    if (*path == '\0')
        return g2e_fail(err, OFILE_E_OPEN, "the output file name is empty");
    struct stat st;
    int exists = (made_up ? lstat(path, &st) : stat(path, &st)) == 0; /* (a made-up name: the entry itself) */
    if (!exists && errno != ENOENT)
        return g2e_fail(err, OFILE_E_OPEN, "cannot write '%s': %s", path, strerror(errno));
    if (exists && S_ISDIR(st.st_mode))
        return g2e_fail(err, OFILE_E_OPEN, "cannot write '%s': it is a directory", path);
    if (exists && check_not_input(&st, path, 1, err))
        return OFILE_E_INPUT;
    if (exists && !S_ISREG(st.st_mode) && !made_up)
        return open_in_place(o, path, binary, err);
    o->made_up = made_up;
    return open_replace(o, path, exists && S_ISREG(st.st_mode), &st, err);
}

static void finish(ofile *o)
{
    free(o->sink);
    free(o->target);
    free(o->tmp);
    memset(o, 0, sizeof *o);
}

int ofile_commit(ofile *o, g2e_err *err)
{
    if (!o->f) {
        return g2e_fail(err, G2E_EINVAL, "internal: output committed twice");
    }
    int rc = 0;
    errno = 0;
    if (o->f == stdout) {
        fflush(stdout);   /* its errors are the caller's to report (outfile.h) */
    } else if (fflush(o->f) != 0 || ferror(o->f)) {
        g2e_fail(err, OFILE_E_WRITE, "writing %s%s%s failed: %s", o->direct ? "" : "'", o->name,
                  o->direct ? "" : "'", write_reason(o, errno));
        rc = OFILE_E_WRITE;
    }
    if (o->tmp) {
        if (rc == 0 && fsync(o->sink->fd) != 0) {
            g2e_fail(err, OFILE_E_WRITE, "writing '%s' failed (fsync): %s", o->name, strerror(errno));
            rc = OFILE_E_WRITE;
        }
        if (fclose(o->f) != 0 && rc == 0) {
            g2e_fail(err, OFILE_E_WRITE, "writing '%s' failed (close): %s", o->name, write_reason(o, errno));
            rc = OFILE_E_WRITE;
        }
        o->f = NULL;
        /* an input registered after the open (read later than the output was opened) is
         * protected too: the check belongs to the output, not to each command's order */
        struct stat st;
        if (rc == 0 && (o->made_up ? lstat(o->target, &st) : stat(o->target, &st)) == 0 &&
            check_not_input(&st, o->name, 1, err))
            rc = OFILE_E_INPUT;
        if (rc == 0 && rename(o->tmp, o->target) != 0) {
            g2e_fail(err, OFILE_E_WRITE, "cannot replace '%s': %s", o->name, strerror(errno));
            rc = OFILE_E_WRITE;
        }
        if (rc != 0) {
            unlink(o->tmp);
        } else {
            /* make the rename itself durable */
            char *dir = dir_of(o->target);
            int dfd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
            if (dfd >= 0) {
                fsync(dfd);
                close(dfd);
            }
            free(dir);
        }
        unguard_tmp(o->tmp);
    } else if (o->own_f) {
        if (fclose(o->f) != 0 && rc == 0) {
            g2e_fail(err, OFILE_E_WRITE, "writing '%s' failed: %s", o->name, write_reason(o, errno));
            rc = OFILE_E_WRITE;
        }
        o->f = NULL;
    }
    finish(o);
    return rc;
}

void ofile_abort(ofile *o)
{
    if (!o)
        return;
    if (o->f && o->own_f)
        fclose(o->f);
    else if (o->f)
        fflush(o->f);
    if (o->tmp) {
        unlink(o->tmp);
        unguard_tmp(o->tmp);
    }
    finish(o);
}


/* ---- the format a file name asks for ---- */

static int format_index(const char *const *names, const char *name)
{
    for (int k = 0; names[k]; k++)
        if (strcmp(names[k], name) == 0)
            return k;
    return -1;
}

int ofile_format_of_name(const char *path, const char *const *names, const char **want)
{
    static const char *const EXT[] = {"npy", "json", "jsonl", "csv", "raw", "png"};
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash + 1 : path, '.');
    if (!dot || dot == (slash ? slash + 1 : path))
        return -2; /* no extension, or a dot file such as ".npy" */
    for (size_t k = 0; k < sizeof EXT / sizeof EXT[0]; k++)
        if (strcasecmp(dot + 1, EXT[k]) == 0) {
            *want = EXT[k];
            return format_index(names, EXT[k]);
        }
    if (strcasecmp(dot + 1, "txt") != 0)
        return -2;
    *want = "text";
    static const char *const TEXTS[] = {"table", "text", "ids"};
    for (size_t k = 0; k < sizeof TEXTS / sizeof TEXTS[0]; k++)
        if (format_index(names, TEXTS[k]) >= 0)
            return format_index(names, TEXTS[k]);
    return -1;
}

