/* SPDX-License-Identifier: MIT */
/* out.c — output destinations (atomic -o, stdout, devices) and shared formatting; see out.h.
 *
 * The temporary file is hidden (".NAME.XXXXXX") and lives next to the target so that
 * rename(2) is atomic (same filesystem). While one is open, every signal that would end
 * the process removes it first, so an interrupted run leaves nothing behind either.
 */
#define _GNU_SOURCE   /* fopencookie */
#include "out.h"

#include "cli.h"
#include "json.h"
#include "opt.h"
#include "text.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- cleaning up the temporary on a fatal signal ---- */

/* The temporaries to remove if a signal kills us (a few outputs may be open at once). */
#define N_PENDING 4
static char *volatile pending[N_PENDING];
static int n_guarded;

/* Async-signal-safe. */
static void unlink_pending(void)
{
    for (int i = 0; i < N_PENDING; i++) {
        char *t = pending[i];
        if (t)
            unlink(t);
    }
}

/* Every signal whose default action ends the process, but SIGKILL and SIGSTOP (which cannot
 * be caught), SIGBUS (its own handler below) and SIGXFSZ (ignored from the start, cli_start,
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
    unlink_pending();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void guard_tmp(char *tmp)
{
    int slot = 0;
    while (slot < N_PENDING && pending[slot])
        slot++;
    if (slot == N_PENDING)
        return;   /* more outputs than slots: this one is only removed by out_abort */
    pending[slot] = tmp;
    if (n_guarded++ > 0)
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

static void unguard_tmp(const char *tmp)
{
    int slot = 0;
    while (slot < N_PENDING && pending[slot] != tmp)
        slot++;
    if (!tmp || slot == N_PENDING)
        return;
    pending[slot] = NULL;
    if (--n_guarded > 0)
        return;
    for (size_t i = 0; i < N_SIGS; i++)
        if (installed[i])
            sigaction(SIGS[i], &old_act[i], NULL);
}

/* ---- inputs an output must never replace ---- */

typedef struct input {
    dev_t dev;
    ino_t ino;
    char *what, *path;
} input;
static input *inputs;
static size_t n_inputs;

int out_add_input(const char *what, const char *path, int fd)
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

void out_clear_inputs(void)
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
static int check_not_input(const struct stat *st, const char *name, int quote)
{
    for (size_t i = 0; i < n_inputs; i++) {
        if (inputs[i].dev != st->st_dev || inputs[i].ino != st->st_ino)
            continue;
        char *vis = out_piece_visible(inputs[i].path, strlen(inputs[i].path));
        cli_error("%s%s%s is the same file as the %s being read (%s): choose another output name",
                  quote ? "'" : "", name, quote ? "'" : "", inputs[i].what, vis ? vis : "?");
        free(vis);
        return -1;
    }
    return 0;
}

/* ---- SIGBUS in a mapped input: the file shrank ---- */

#define N_MAPS 8
static struct {
    const char *volatile lo, *volatile hi;   /* lo NULL: a free slot */
    char msg[320];
    size_t msg_len;
} maps[N_MAPS];
static int sigbus_installed;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    const char *a = si ? (const char *)si->si_addr : NULL;
    for (int i = 0; a && i < N_MAPS; i++) {
        if (maps[i].lo && a >= maps[i].lo && a < maps[i].hi) {
            unlink_pending();
            ssize_t w = write(STDERR_FILENO, maps[i].msg, maps[i].msg_len);
            (void)w;
            _exit(EXIT_ERR);
        }
    }
    /* not ours: the default action, when the faulting access runs again */
    unlink_pending();
    signal(sig, SIG_DFL);
}

int out_guard_mapping(const void *addr, size_t len, const char *path, const char *what)
{
    int i = 0;
    while (i < N_MAPS && maps[i].lo)
        i++;
    if (i == N_MAPS || !addr)
        return -1;
    char *vis = out_piece_visible(path, strlen(path));
    int k = snprintf(maps[i].msg, sizeof maps[i].msg,
                     "gpt2-embed: %.200s: %.40s changed size while in use "
                     "(another program truncated or rewrote it)\n", vis ? vis : "?", what);
    free(vis);
    maps[i].msg_len = k > 0 && (size_t)k < sizeof maps[i].msg ? (size_t)k : strlen(maps[i].msg);
    maps[i].hi = (const char *)addr + len;
    maps[i].lo = addr;   /* last: the handler only looks at complete entries */
    if (!sigbus_installed) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_sigbus;
        sa.sa_flags = SA_SIGINFO;
        sigemptyset(&sa.sa_mask);
        if (sigaction(SIGBUS, &sa, NULL) != 0)
            return -1;
        sigbus_installed = 1;
    }
    return 0;
}

void out_unguard_mapping(const void *addr)
{
    for (int i = 0; addr && i < N_MAPS; i++)
        if (maps[i].lo == addr)
            maps[i].lo = NULL;
}

/* ---- file streams that remember why a write failed ----
 * stdio keeps only an error flag: once a write fails (a full disk, EFBIG), the reason is
 * gone by the time out_commit looks, and later flushes may even succeed on an emptied
 * buffer. A cookie stream over the descriptor records the first errno itself. */

struct out_sink {
    int fd;
    int err;   /* errno of the first failed write or close, 0 if none */
};

static ssize_t sink_write(void *c, const char *buf, size_t n)
{
    struct out_sink *s = c;
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
    struct out_sink *s = c;
    int r = s->fd >= 0 ? close(s->fd) : 0;
    if (r != 0 && !s->err)
        s->err = errno;
    s->fd = -1;
    return r;
}

/* A buffered stream writing to fd, owned by o (o->f, o->sink); closes fd on failure. */
static int open_sink(out_file *o, int fd)
{
    o->sink = calloc(1, sizeof *o->sink);
    if (o->sink) {
        o->sink->fd = fd;
        cookie_io_functions_t io = {NULL, sink_write, NULL, sink_close};
        o->f = fopencookie(o->sink, "wb", io);
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
static const char *write_reason(const out_file *o, int e)
{
    if (o->sink && o->sink->err)
        return strerror(o->sink->err);
    return e ? strerror(e) : "I/O error";
}

static struct out_sink stdout_sink = {STDOUT_FILENO, 0};

int out_stdout_init(void)
{
    cookie_io_functions_t io = {NULL, sink_write, NULL, sink_close};
    FILE *f = fopencookie(&stdout_sink, "wb", io);
    if (!f)
        return -1;
    if (isatty(STDOUT_FILENO))
        setvbuf(f, NULL, _IOLBF, BUFSIZ);
    fflush(stdout);
    stdout = f;   /* glibc: the standard streams are assignable variables */
    return 0;
}

int out_stdout_errno(void)
{
    return stdout_sink.err;
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

/* out_open's first kind: "-" or no path is standard output, never a terminal for binary data
 * and never one of the inputs. */
static int open_stdout(out_file *o, int binary)
{
    if (binary && isatty(STDOUT_FILENO)) {
        cli_error("%s", refuse_tty);
        return -1;
    }
    struct stat so;
    if (fstat(STDOUT_FILENO, &so) == 0 && S_ISREG(so.st_mode) &&
        check_not_input(&so, "standard output", 0))
        return -1;
    o->f = stdout;
    o->direct = 1;
    o->name = "standard output";
    return 0;
}

/* out_open's second kind: a device, FIFO or socket is written in place, never replaced. */
static int open_in_place(out_file *o, const char *path, int binary)
{
    int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        cli_error("cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    if (binary && isatty(fd)) {
        close(fd);
        cli_error("'%s' is a terminal; %s", path, refuse_tty);
        return -1;
    }
    if (open_sink(o, fd) != 0) {
        cli_error("cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    o->direct = 1;
    o->own_f = 1;
    return 0;
}

/* The file out_commit will rename onto: path itself, or what its symbolic link resolves to
 * (so the link survives). -1 after an error message; 0 with *target NULL when out of memory. */
static int replace_target(const char *path, char **target)
{
    struct stat lst;
    if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
        *target = realpath(path, NULL);
        if (!*target) {
            cli_error("cannot write '%s': it is a symbolic link that cannot be resolved (%s)",
                      path, strerror(errno));
            return -1;
        }
    } else {
        *target = strdup(path);
    }
    return 0;
}

/* out_open's third kind: a regular file, or nothing yet, is built in a temporary beside the
 * target (with the existing file's mode, else 0666 less the umask) and renamed on commit.
 * exists/st: whether path exists and its stat. */
static int open_replace(out_file *o, const char *path, int exists, const struct stat *st)
{
    char *target = NULL, *dir = NULL, *tmp = NULL;
    int fd = -1;
    if (replace_target(path, &target) != 0)
        return -1;
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
            cli_error("cannot write '%s': directory '%s' does not exist", path, dir);
        else
            cli_error("cannot write '%s': cannot create a file in directory '%s': %s", path, dir,
                      strerror(e));
        goto fail;
    }
    if (fchmod(fd, mode) != 0) {
        cli_error("cannot write '%s': setting the mode failed: %s", path, strerror(errno));
        goto fail;
    }
    if (open_sink(o, fd) != 0) {
        fd = -1;   /* closed by open_sink */
        cli_error("cannot write '%s': %s", path, strerror(errno));
        unlink(tmp);
        unguard_tmp(tmp);
        goto fail;
    }
    free(dir);
    o->target = target;
    o->tmp = tmp;
    o->own_f = 1;
    return 0;

nomem:
    cli_error("out of memory");
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
    return -1;
}

int out_open(out_file *o, const char *path, int binary)
{
    memset(o, 0, sizeof *o);
    if (!path || strcmp(path, "-") == 0)
        return open_stdout(o, binary);
    o->name = path;
    if (*path == '\0') {
        cli_error("the output file name is empty");
        return -1;
    }
    struct stat st;
    int exists = stat(path, &st) == 0;
    if (!exists && errno != ENOENT) {
        cli_error("cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    if (exists && S_ISDIR(st.st_mode)) {
        cli_error("cannot write '%s': it is a directory", path);
        return -1;
    }
    if (exists && check_not_input(&st, path, 1))
        return -1;
    if (exists && !S_ISREG(st.st_mode))
        return open_in_place(o, path, binary);
    return open_replace(o, path, exists, &st);
}

static void finish(out_file *o)
{
    free(o->sink);
    free(o->target);
    free(o->tmp);
    memset(o, 0, sizeof *o);
}

int out_commit(out_file *o)
{
    if (!o->f) {
        cli_error("internal: output committed twice");
        return -1;
    }
    int rc = 0;
    errno = 0;
    if (o->f == stdout) {
        rc = cli_flush_stdout();   /* one wording, reported once per run */
    } else if (fflush(o->f) != 0 || ferror(o->f)) {
        cli_error("writing %s%s%s failed: %s", o->direct ? "" : "'", o->name,
                  o->direct ? "" : "'", write_reason(o, errno));
        rc = -1;
    }
    if (o->tmp) {
        if (rc == 0 && fsync(o->sink->fd) != 0) {
            cli_error("writing '%s' failed (fsync): %s", o->name, strerror(errno));
            rc = -1;
        }
        if (fclose(o->f) != 0 && rc == 0) {
            cli_error("writing '%s' failed (close): %s", o->name, write_reason(o, errno));
            rc = -1;
        }
        o->f = NULL;
        if (rc == 0 && rename(o->tmp, o->target) != 0) {
            cli_error("cannot replace '%s': %s", o->name, strerror(errno));
            rc = -1;
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
            cli_error("writing '%s' failed: %s", o->name, write_reason(o, errno));
            rc = -1;
        }
        o->f = NULL;
    }
    finish(o);
    return rc;
}

void out_abort(out_file *o)
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

/* ---- formatting ---- */

void out_f32(FILE *f, float v)
{
    fprintf(f, "%.9g", (double)v);
}

void out_f64(FILE *f, double v)
{
    fprintf(f, "%.17g", v);
}

char *out_piece_visible(const char *s, size_t n)
{
    return text_escape(s, n, TEXT_ESC_VISIBLE);
}

size_t out_display_width(const char *s)
{
    return text_width(s, strlen(s));
}

void out_pad(FILE *f, const char *s, size_t width)
{
    fputs(s, f);
    for (size_t w = out_display_width(s); w < width; w++)
        fputc(' ', f);
}

void out_rpad(FILE *f, const char *s, size_t width)
{
    for (size_t w = out_display_width(s); w < width; w++)
        fputc(' ', f);
    fputs(s, f);
}

void out_json_string(FILE *f, const char *s, size_t n)
{
    json_write_string(f, s, n);
}

void out_csv_field(FILE *f, const char *s, size_t n)
{
    int quote = n > 0 && (s[0] == ' ' || s[n - 1] == ' ');
    for (size_t i = 0; i < n && !quote; i++)
        if (s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n')
            quote = 1;
    if (!quote) {
        fwrite(s, 1, n, f);
        return;
    }
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            fputc('"', f);
        fputc(s[i], f);
    }
    fputc('"', f);
}

/* ---- the format from -o's file name ---- */

static int format_index(const char *const *names, const char *name)
{
    for (int k = 0; names[k]; k++)
        if (strcmp(names[k], name) == 0)
            return k;
    return -1;
}

/* The format an extension names, among names: its index, -1 if names lacks it (then *want
 * says which format the name asked for), -2 for an extension that names no format. */
static int format_of_extension(const char *path, const char *const *names, const char **want)
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

int out_pick_format(const struct opt_cmd *cmd, const char *path, const char *const *names,
                    int given, int *fmt)
{
    if (!path || strcmp(path, "-") == 0)
        return 0;
    const char *want = NULL;
    int k = format_of_extension(path, names, &want);
    if (k == -2)
        return 0;
    /* .txt says "text", not which text: an explicit json or csv there is no contradiction */
    int binary = given && (strcmp(names[*fmt], "npy") == 0 || strcmp(names[*fmt], "raw") == 0 ||
                           strcmp(names[*fmt], "png") == 0);
    if (strcmp(want, "text") == 0 && given && !binary)
        return 0;
    char list[256];
    opt_join(names, list, sizeof list);
    if (k == -1)
        return opt_usage_error(cmd, "-o %s means --format %s, which %s does not write here "
                               "(it writes %s; choose a file name to match)", path, want, cmd->name,
                               list);
    if (given && k != *fmt)
        return opt_usage_error(cmd, "-o %s means --format %s, but --format %s was given (drop "
                               "--format, or change the file name)", path, names[k], names[*fmt]);
    *fmt = k;
    return 0;
}
