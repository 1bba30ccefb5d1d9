/* SPDX-License-Identifier: MIT */
/* cli.h — what every subcommand of the program shares: messages and number parsing.
 * Only the program wing (src/cli) prints or exits; the library wing never does. */
#ifndef G2E_CLI_H
#define G2E_CLI_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

/* Exit statuses of the program. */
enum { EXIT_OK = 0, EXIT_ERR = 1, EXIT_USAGE = 2 };

/* G2E_VERSION comes from the Makefile's VERSION (-DG2E_VERSION), the one place it is written. */
#ifndef G2E_VERSION
#error "G2E_VERSION is not defined: build with the Makefile (VERSION), or pass -DG2E_VERSION=..."
#endif

/* The first thing main does:
 *   - a closed descriptor 0, 1 or 2 is reserved by opening /dev/null on it the wrong way
 *     round (stdin write-only, stdout/stderr read-only): files the program opens later
 *     (a -o temporary, a socket) can then never become a standard stream, while reads and
 *     writes on the closed stream still fail (EBADF) as they would have;
 *   - SIGXFSZ is ignored, so that a write over the file size limit (ulimit -f) fails with
 *     EFBIG and is reported like any other write error, instead of killing the process
 *     with a half-written temporary;
 *   - at exit (atexit), standard output is flushed and closed, and a failure that no
 *     message has reported yet (--help > /dev/full, a closed stdout) becomes one line on
 *     stderr and exit status 1: every failed write is reported (gnulib's close_stdout idea). */
void cli_start(void);

/* Flushes standard output; on a write error (now or earlier) prints one line "writing
 * standard output failed: REASON" (once per run) and returns -1, else 0. */
int cli_flush_stdout(void);

/* Prints "gpt2-embed: <message>\n" on stderr: one line, whatever the arguments hold (control
 * bytes, bidi controls and ill-formed UTF-8 are escaped as text.h's text_escape does, so a
 * file name or file content quoted in a message cannot drive the terminal). After the
 * first, the exit check of cli_start no longer adds its own line (the run already failed
 * visibly). fmt is translated (gettext) before use, so every call site's literal is a
 * message of po/gpt2-embed.pot (xgettext --keyword=cli_error); arguments are not translated. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "gpt2-embed CMD: <message>\n" on stderr (msg already translated: the option layer's one
 * wording goes through here), escaped and counted as cli_error's line for the exit check. */
void cli_verror(const char *cmd, const char *msg, va_list ap) __attribute__((format(printf, 2, 0)));
/* Prints "gpt2-embed: note: <message>\n" on stderr; fmt translated and the whole escaped as
 * cli_error's. */
void cli_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Opens path for reading as an input of the command (registered with out_add_input, so no
 * -o may replace it): a regular file of at most CLI_MAX_INPUT bytes, or a pipe/device only
 * when it is our own standard input (-f /dev/stdin); a FIFO is refused at once, never
 * waited on. Returns the descriptor (blocking, the caller closes it), or -1 after one
 * error line. */
int cli_open_file(const char *path, const char *what);

/* All of the file at path in a new buffer (caller frees), NUL-terminated for convenience
 * (*len does not count the NUL). "-" is standard input. Only a regular file is read, or
 * our own standard input under another name (/dev/stdin): a FIFO, device or directory is
 * refused at once (opened O_NONBLOCK and fstat'ed first, so a FIFO without a writer never
 * blocks, /dev/zero is never read without end). The file is registered as an input (out.h: no output may
 * replace it), what naming its role in that message ("text file"). On failure prints one
 * line naming path and returns NULL. */
char *cli_read_file(const char *path, const char *what, size_t *len);

/* The most a text input may hold: 1 GiB (a file, standard input). Beyond it the readers
 * below fail with EFBIG ("File too large") instead of reading until memory runs out. */
#define CLI_MAX_INPUT (1ULL << 30)

/* All of stream f in a new buffer (caller frees), NUL-terminated for convenience (*len does
 * not count the NUL); NULL with errno set on a read error, when out of memory, or (EFBIG)
 * when f holds more than CLI_MAX_INPUT bytes. */
char *cli_read_stream(FILE *f, size_t *len);

/* The text of path (NULL or "-": standard input) as textin.h gives it, the file opened by
 * cli_open_file, registered as an input and its mapping guarded (out.h). -1 after one error
 * line. cli_textin_close releases it (a zeroed textin accepted). */
struct textin;
int cli_textin_open(struct textin *in, const char *path, const char *what);
void cli_textin_close(struct textin *in);

struct opt_cmd;
#define CMD(name, fn, summary) int fn(int argc, char **argv);
#define OPTS(name, spec) extern const struct opt_cmd *const spec;
#include "commands.def"
#undef CMD

#endif
