/* out.c — output destinations (atomic -o, stdout, devices) and shared formatting; see out.h.
 *
 * The temporary file is hidden (".NAME.XXXXXX") and lives next to the target so that
 * rename(2) is atomic (same filesystem). While one is open, SIGINT/SIGTERM/SIGHUP
 * remove it before the process dies, so an interrupted run leaves nothing behind either.
 */
#include "out.h"

#include "cli.h"
#include "opt.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utf8proc.h>

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

/* Length of the valid UTF-8 character at s (n bytes left) and its code point, or 0. */
static size_t utf8_char(const char *s, size_t n, int32_t *cp)
{
    utf8proc_int32_t c;
    utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s,
                                          (utf8proc_ssize_t)(n > 4 ? 4 : n), &c);
    if (k <= 0 || c < 0)
        return 0;
    *cp = c;
    return (size_t)k;
}

char *out_piece_visible(const char *s, size_t n)
{
    /* worst case: every byte becomes "\xNN" (4 bytes) */
    if (n > (SIZE_MAX - 1) / 4)
        return NULL;
    char *r = malloc(4 * n + 1);
    if (!r)
        return NULL;
    size_t o = 0;
    static const char HEX[] = "0123456789ABCDEF";
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        int32_t cp = 0;
        size_t k = c < 0x80 ? 1 : utf8_char(s + i, n - i, &cp);
        if (c < 0x80)
            cp = c;
        if (c == ' ') {
            memcpy(r + o, "\xE2\x90\xA3", 3), o += 3;          /* ␣ */
        } else if (c == '\n') {
            memcpy(r + o, "\xE2\x86\xB5", 3), o += 3;          /* ↵ */
        } else if (c == '\t') {
            memcpy(r + o, "\xE2\x86\x92", 3), o += 3;          /* → */
        } else if (c == '\\') {
            r[o++] = '\\', r[o++] = '\\';
        } else if (k == 0 || cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f)) {
            /* an invalid byte, or a control character: escape each of its bytes */
            size_t m = k ? k : 1;
            for (size_t j = 0; j < m; j++) {
                unsigned char b = (unsigned char)s[i + j];
                r[o++] = '\\', r[o++] = 'x', r[o++] = HEX[b >> 4], r[o++] = HEX[b & 15];
            }
            i += m;
            continue;
        } else {
            memcpy(r + o, s + i, k), o += k;
        }
        i += k;
    }
    r[o] = '\0';
    return r;
}

size_t out_display_width(const char *s)
{
    size_t w = 0, n = strlen(s);
    for (size_t i = 0; i < n;) {
        int32_t cp;
        size_t k = utf8_char(s + i, n - i, &cp);
        if (k == 0) {
            w++;
            i++;
            continue;
        }
        int cw = utf8proc_charwidth(cp);
        w += cw > 0 ? (size_t)cw : 0;
        i += k;
    }
    return w;
}

void out_pad(FILE *f, const char *s, size_t width)
{
    fputs(s, f);
    for (size_t w = out_display_width(s); w < width; w++)
        fputc(' ', f);
}

void out_json_string(FILE *f, const char *s, size_t n)
{
    fputc('"', f);
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80) {
            switch (c) {
            case '"': fputs("\\\"", f); break;
            case '\\': fputs("\\\\", f); break;
            case '\n': fputs("\\n", f); break;
            case '\t': fputs("\\t", f); break;
            case '\r': fputs("\\r", f); break;
            case '\b': fputs("\\b", f); break;
            case '\f': fputs("\\f", f); break;
            default:
                if (c < 0x20 || c == 0x7f)
                    fprintf(f, "\\u%04x", c);
                else
                    fputc(c, f);
            }
            i++;
            continue;
        }
        int32_t cp;
        size_t k = utf8_char(s + i, n - i, &cp);
        if (k == 0) {
            fputs("\xEF\xBF\xBD", f);   /* U+FFFD */
            i++;
        } else {
            fwrite(s + i, 1, k, f);
            i += k;
        }
    }
    fputc('"', f);
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
