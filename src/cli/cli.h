/* SPDX-License-Identifier: MIT */
/* cli.h — what every subcommand of the program shares: messages and number parsing.
 * Only the program wing (src/cli) prints or exits; the library wing never does. */
#ifndef G2E_CLI_H
#define G2E_CLI_H

#include "readin.h"

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

/* What follows an invalid-UTF-8 error where --lossy is an option: _(CLI_LOSSY_HINT). */
#define CLI_LOSSY_HINT N_(" (--lossy replaces invalid bytes with U+FFFD)")

/* readin.h's readers with their message printed (one error line; NULL or -1 on failure):
 * cli_open_file = readin_open, cli_read_file = readin_file ("-" is standard input),
 * cli_read_stream = readin_stream (no message: errno is set). */
int cli_open_file(const char *path, const char *what);
int cli_open_stream(const char *path, const char *what); /* readin_open_stream: any size */
char *cli_read_file(const char *path, const char *what, size_t *len);
char *cli_read_stream(FILE *f, size_t *len);
#define CLI_MAX_INPUT READIN_MAX

/* The text of path (NULL or "-": standard input) as textin.h gives it, the file opened by
 * cli_open_file, registered as an input and its mapping guarded (out.h). -1 after one error
 * line. cli_textin_close releases it (a zeroed textin accepted). */
struct textin;
int cli_textin_open(struct textin *in, const char *path, const char *what);
void cli_textin_close(struct textin *in);

/* A TEXT argument that names an existing regular file was most likely meant as one (README's
 * `count -f a.txt b.txt` counted the second *name*): a note on stderr saying so, with -f when
 * the command has it (has_f). Nothing for other texts. */
void cli_text_names_file(const char *text, int has_f);

struct opt_cmd;
#define CMD(name, fn, summary) int fn(int argc, char **argv);
#define OPTS(name, spec) extern const struct opt_cmd *const spec;
#include "commands.def"
#undef CMD

#endif
