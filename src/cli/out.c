/* out.c — output destinations (atomic -o, stdout, devices) and shared formatting; see out.h.
 *
 * The temporary file is hidden (".NAME.XXXXXX") and lives next to the target so that
 * rename(2) is atomic (same filesystem). While one is open, SIGINT/SIGTERM/SIGHUP
 * remove it before the process dies, so an interrupted run leaves nothing behind either.
 */
#include "out.h"

#include "cli.h"
#include "json.h"
#include "text.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- cleaning up the temporary on a fatal signal ---- */

static char *volatile pending_tmp;   /* the temporary to remove if a signal kills us */
#define N_SIGS 3
static struct sigaction old_act[N_SIGS];
static int installed[N_SIGS];
static const int SIGS[N_SIGS] = {SIGINT, SIGTERM, SIGHUP};

static void on_signal(int sig)
{
    char *t = pending_tmp;
    if (t)
        unlink(t);
    for (int i = 0; i < N_SIGS; i++)
        if (SIGS[i] == sig)
            sigaction(sig, &old_act[i], NULL);
    raise(sig);
}

static void guard_tmp(char *tmp)
{
    pending_tmp = tmp;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < N_SIGS; i++) {
        /* a signal the parent told us to ignore stays ignored */
        installed[i] = sigaction(SIGS[i], NULL, &old_act[i]) == 0 &&
                       old_act[i].sa_handler != SIG_IGN && sigaction(SIGS[i], &sa, NULL) == 0;
    }
}

static void unguard_tmp(void)
{
    if (!pending_tmp)
        return;
    for (int i = 0; i < N_SIGS; i++)
        if (installed[i])
            sigaction(SIGS[i], &old_act[i], NULL);
    pending_tmp = NULL;
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

int out_open(out_file *o, const char *path, int binary)
{
    memset(o, 0, sizeof *o);
    if (!path || strcmp(path, "-") == 0) {
        if (binary && isatty(STDOUT_FILENO)) {
            cli_error("%s", refuse_tty);
            return -1;
        }
        o->f = stdout;
        o->direct = 1;
        o->name = "standard output";
        return 0;
    }
    o->name = path;
    if (*path == '\0') {
        cli_error("the output file name is empty");
        return -1;
    }
    struct stat st, lst;
    int exists = stat(path, &st) == 0;
    if (!exists && errno != ENOENT) {
        cli_error("cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    if (exists && S_ISDIR(st.st_mode)) {
        cli_error("cannot write '%s': it is a directory", path);
        return -1;
    }
    if (exists && !S_ISREG(st.st_mode)) {
        /* a device, FIFO or socket: write in place, never replace it */
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
        o->f = fdopen(fd, "wb");
        if (!o->f) {
            cli_error("cannot write '%s': %s", path, strerror(errno));
            close(fd);
            return -1;
        }
        o->direct = 1;
        o->own_f = 1;
        return 0;
    }

    /* a regular file, or nothing yet: build it beside the target and rename */
    char *target = NULL, *dir = NULL, *tmp = NULL;
    int fd = -1;
    if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
        target = realpath(path, NULL);
        if (!target) {
            cli_error("cannot write '%s': it is a symbolic link that cannot be resolved (%s)",
                      path, strerror(errno));
            return -1;
        }
    } else {
        target = strdup(path);
    }
    if (!target)
        goto nomem;
    dir = dir_of(target);
    if (!dir)
        goto nomem;
    const char *base = strrchr(target, '/');
    base = base ? base + 1 : target;
    size_t n = strlen(dir) + strlen(base) + 16;
    tmp = malloc(n);
    if (!tmp)
        goto nomem;
    snprintf(tmp, n, "%s/.%s.XXXXXX", dir, base);
    mode_t mode;
    if (exists) {
        mode = st.st_mode & 07777;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    guard_tmp(tmp);
    fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        unguard_tmp();
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
    o->f = fdopen(fd, "wb");
    if (!o->f) {
        cli_error("cannot write '%s': %s", path, strerror(errno));
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
        unguard_tmp();
    }
    free(target);
    free(dir);
    free(tmp);
    memset(o, 0, sizeof *o);
    return -1;
}

static void finish(out_file *o)
{
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
    if (fflush(o->f) != 0 || ferror(o->f)) {
        cli_error("writing %s%s%s failed: %s", o->direct ? "" : "'", o->name,
                  o->direct ? "" : "'", errno ? strerror(errno) : "I/O error");
        rc = -1;
    }
    if (o->tmp) {
        int fd = fileno(o->f);
        if (rc == 0 && fsync(fd) != 0) {
            cli_error("writing '%s' failed (fsync): %s", o->name, strerror(errno));
            rc = -1;
        }
        if (fclose(o->f) != 0 && rc == 0) {
            cli_error("writing '%s' failed (close): %s", o->name, strerror(errno));
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
        unguard_tmp();
    } else if (o->own_f) {
        if (fclose(o->f) != 0 && rc == 0) {
            cli_error("writing '%s' failed: %s", o->name, strerror(errno));
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
        unguard_tmp();
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
