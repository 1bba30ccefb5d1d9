/* SPDX-License-Identifier: MIT */
/* cli.c — shared messages and number parsing for the subcommands (see cli.h). */
#include "cli.h"
#include "i18n.h"

#include "outfile.h"
#include "text.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int said;           /* an error line has been printed */
static int stdout_said;    /* the stdout write error has been reported */

/* Standard output as one of outfile.h's streams that remember why a write failed (stdio
 * keeps only a flag; the reason is gone by the time anyone looks): made once by cli_start,
 * line-buffered on a terminal, fully buffered otherwise, as stdio's own; stdout stays as it
 * was if the stream cannot be made. */
static ofile_sink stdout_sink = {STDOUT_FILENO, 0};

static void stdout_init(void)
{
    FILE *f = ofile_stream(&stdout_sink);
    if (!f)
        return;
    if (isatty(STDOUT_FILENO))
        setvbuf(f, NULL, _IOLBF, BUFSIZ);
    fflush(stdout);
    stdout = f;   /* glibc: the standard streams are assignable variables */
}

/* errno of standard output's first failed write since stdout_init, or 0. */
static int stdout_errno(void)
{
    return stdout_sink.err;
}

/* Standard output at exit: flushed, closed, any failure reported (see cli.h). */
static void close_stdout(void)
{
    if (cli_flush_stdout() != 0) {
        _exit(EXIT_ERR);
    }
    if (fclose(stdout) != 0) {
        if (!said)
            cli_error("writing standard output failed: %s",
                      strerror(stdout_errno() ? stdout_errno() : errno));
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
    stdout_init();
    atexit(close_stdout);
}

int cli_flush_stdout(void)
{
    errno = 0;
    int bad = fflush(stdout) != 0;
    int e = stdout_errno() ? stdout_errno() : errno;
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
    return readin_stream(f, len);
}

int cli_open_file(const char *path, const char *what)
{
    g2e_err e;
    int fd = readin_open(path, what, &e);
    if (fd < 0)
        cli_error("%s", e.msg);
    return fd;
}

int cli_open_stream(const char *path, const char *what)
{
    g2e_err e;
    int fd = readin_open_stream(path, what, &e);
    if (fd < 0)
        cli_error("%s", e.msg);
    return fd;
}

char *cli_read_file(const char *path, const char *what, size_t *len)
{
    g2e_err e;
    char *buf = readin_file(path, what, len, &e);
    if (!buf)
        cli_error("%s", e.msg);
    return buf;
}
