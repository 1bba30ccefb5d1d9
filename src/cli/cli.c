/* SPDX-License-Identifier: MIT */
/* cli.c — shared messages and number parsing for the subcommands (see cli.h). */
#include "cli.h"
#include "i18n.h"

#include "out.h"
#include "text.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int said;           /* an error line has been printed */
static int stdout_said;    /* the stdout write error has been reported */

/* Standard output at exit: flushed, closed, any failure reported (see cli.h). */
static void close_stdout(void)
{
    if (cli_flush_stdout() != 0) {
        _exit(EXIT_ERR);
    }
    if (fclose(stdout) != 0) {
        if (!said)
            cli_error("writing standard output failed: %s",
                      strerror(out_stdout_errno() ? out_stdout_errno() : errno));
        _exit(EXIT_ERR);
    }
    /* a message that could not be written is a failure too (nothing left to tell it) */
    if (ferror(stderr) || fflush(stderr) != 0)
        _exit(EXIT_ERR);
}

void cli_start(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        /* open returns the lowest free descriptor: fd itself (0..fd-1 are open by now) */
        int n = open("/dev/null", (fd == 0 ? O_WRONLY : O_RDONLY) | O_NOCTTY);
        if (n >= 0 && n != fd)
            close(n);
    }
    signal(SIGXFSZ, SIG_IGN);
    out_stdout_init();
    atexit(close_stdout);
}

int cli_flush_stdout(void)
{
    errno = 0;
    int bad = fflush(stdout) != 0;
    int e = out_stdout_errno() ? out_stdout_errno() : errno;
    if (!bad && !ferror(stdout))
        return 0;
    if (!stdout_said && !said)
        cli_error("writing standard output failed: %s",
                  e ? strerror(e) : "an earlier write failed");
    stdout_said = 1;
    return -1;
}

/* Writes prefix + the formatted message + newline to stderr, with every control byte, bidi
 * control and ill-formed UTF-8 byte of the message escaped (text.h): messages quote file
 * names, arguments and file contents, and none of that may drive the terminal or break
 * the message over several lines. Already-escaped text ("\\x1B", "␣") passes unchanged. */
__attribute__((format(printf, 3, 0)))
static void say(const char *prefix, const char *prefix2, const char *fmt, va_list ap)
{
    char stack[1024], *msg = stack;
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(stack, sizeof stack, fmt, ap);
    if (n >= (int)sizeof stack && (msg = malloc((size_t)n + 1)) != NULL)
        vsnprintf(msg, (size_t)n + 1, fmt, aq);
    va_end(aq);
    if (!msg)
        msg = stack;   /* out of memory: the truncated message */
    size_t len = n < 0 ? 0 : strnlen(msg, (size_t)n);
    char *esc = text_escape(msg, len, TEXT_ESC_BIDI);
    fputs(prefix, stderr);
    fputs(prefix2, stderr);
    fputs(esc ? esc : "(message lost: out of memory)", stderr);
    fputc('\n', stderr);
    free(esc);
    if (msg != stack)
        free(msg);
}

void cli_verror(const char *cmd, const char *msg, va_list ap)
{
    said = 1;
    char prefix[96];
    snprintf(prefix, sizeof prefix, "gpt2-embed %.64s: ", cmd);
    say(prefix, "", msg, ap);
}

void cli_error(const char *fmt, ...)
{
    said = 1;
    va_list ap;
    va_start(ap, fmt);
    say("gpt2-embed: ", "", *fmt ? gettext(fmt) : fmt, ap);
    va_end(ap);
}

void cli_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    /* TRANSLATORS: the start of a note on stderr: "gpt2-embed: note: ..." */
    say("gpt2-embed: ", _("note: "), *fmt ? gettext(fmt) : fmt, ap);
    va_end(ap);
}

char *cli_read_stream(FILE *f, size_t *len)
{
    if (f == stdin)
        out_add_input("standard input", "standard input", STDIN_FILENO);
    /* room for one byte over the limit, to tell "exactly the limit" from "more" */
    const size_t most = (size_t)CLI_MAX_INPUT + 2;
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
        if (n > CLI_MAX_INPUT) {
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
    if (S_ISFIFO(st->st_mode)) return _("a FIFO");
    if (S_ISCHR(st->st_mode)) return _("a character device");
    if (S_ISBLK(st->st_mode)) return _("a block device");
    if (S_ISSOCK(st->st_mode)) return _("a socket");
    if (S_ISDIR(st->st_mode)) return _("a directory");
    return _("not a regular file");
}

int cli_open_file(const char *path, const char *what)
{
    /* O_NONBLOCK: opening a FIFO nobody writes to must not wait; fstat decides first */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        cli_error("cannot open '%s': %s", path, strerror(errno));
        return -1;
    }
    struct stat st, in;
    if (fstat(fd, &st) != 0) {
        cli_error("cannot read '%s': %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    /* a pipe or terminal is read only when it is our own standard input (-f /dev/stdin) */
    int is_stdin = fstat(STDIN_FILENO, &in) == 0 && in.st_dev == st.st_dev && in.st_ino == st.st_ino;
    if (!S_ISREG(st.st_mode) && !is_stdin) {
        int pipe_like = S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISSOCK(st.st_mode);
        cli_error("cannot read '%s': not a regular file (%s)%s", path, kind_of(&st),
                  pipe_like ? "; to read a pipe or device, give it as standard input ('-f -' < it)" : "");
        close(fd);
        return -1;
    }
    if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > CLI_MAX_INPUT) {
        cli_error("cannot read '%s': it is %llu bytes, over the input limit of %llu (1 GiB)", path,
                  (unsigned long long)st.st_size, (unsigned long long)CLI_MAX_INPUT);
        close(fd);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        cli_error("cannot read '%s': %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    out_add_input(what, path, fd);
    return fd;
}

char *cli_read_file(const char *path, const char *what, size_t *len)
{
    if (*path == '\0') {
        cli_error("the %s name is empty", what);
        return NULL;
    }
    if (strcmp(path, "-") == 0) {
        char *buf = cli_read_stream(stdin, len);
        if (!buf)
            cli_error("cannot read standard input: %s", strerror(errno));
        return buf;
    }
    int fd = cli_open_file(path, what);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        cli_error("cannot read '%s': %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    char *buf = cli_read_stream(f, len);
    int e = errno;
    fclose(f);
    if (!buf && e == EFBIG)
        cli_error("cannot read '%s': it grew over the input limit of %llu bytes (1 GiB)", path,
                  (unsigned long long)CLI_MAX_INPUT);
    else if (!buf)
        cli_error("cannot read '%s': %s", path, strerror(e));
    return buf;
}
