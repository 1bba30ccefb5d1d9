/* SPDX-License-Identifier: MIT */
/* outfile.h — writing a file so that it is complete or not there: the atomic -o of the
 * program, usable by any caller that writes data (an .npy, a JSON document).
 *
 * Destinations (ofile_open):
 *   - path NULL or "-": standard output;
 *   - a path naming a regular file or nothing yet: written to a temporary ".NAME.XXXXXX"
 *     made with mkstemp in the target's directory (rename(2) is then atomic), renamed over
 *     the target by ofile_commit after fflush and fsync, then the directory is fsync'ed.
 *     Until then the target is untouched; on any failure (or ofile_abort) the temporary is
 *     removed and the target keeps its content. A symbolic link is followed: its target is
 *     replaced, the link stays. The new file gets the mode of the file it replaces, or
 *     0666 & ~umask for a new one (mkstemp's 0600 would surprise). A name too long to take
 *     the temporary's 8 extra bytes gets a shortened temporary name (255-byte names work);
 *   - a path naming something that exists and is not a regular file (/dev/null, a FIFO, a
 *     terminal): written in place, never replaced or removed.
 * Flags: OFILE_BINARY refuses a terminal, whichever way it is reached. OFILE_MADE_UP is for
 * names the program made up (shards): whatever entry is at the name is never followed nor
 * written in place: a symbolic link, a FIFO or a device node there is replaced by the new
 * file (its temporary renamed over the entry), a directory refused; the rules above are for
 * names the user typed.
 *
 * Writes go through a stdio stream over the descriptor that records the errno of the
 * first failed write (stdio keeps only a flag): the commit's message gives the reason
 * ("No space left on device") even when the failure happened long before.
 *
 * Inputs an output must never replace: ofile_add_input registers a file being read (by
 * device and inode); ofile_open refuses an output that is the same file, and ofile_commit
 * checks again before its rename, so an input registered after the output was opened (a
 * command that reads its text once the output is open) is never replaced either.
 *
 * Process-wide state (a program's concern, kept here beside the temporaries it protects):
 * the registry of inputs, and, only after ofile_catch_signals(1), handlers for the signals
 * that end a process, which remove every open temporary and then die of the signal as
 * before. A library user who does not call it gets no handler.
 *
 * Errors: 0 or a code below, the message in *err (the wording the program prints).
 * Deliberately left out: appending, compression, printing anything.
 */
#ifndef G2E_OUTFILE_H
#define G2E_OUTFILE_H

#include "err.h"

#include <stddef.h>
#include <stdio.h>

enum {
    OFILE_E_OPEN = G2E_BASE(OFILE),   /* the destination cannot be opened or created (msg names it) */
    OFILE_E_TTY,           /* binary output to a terminal */
    OFILE_E_INPUT,         /* the destination is a registered input */
    OFILE_E_WRITE,         /* a write, flush, fsync, close or rename failed */
    OFILE_CODES_END_
};
G2E_CODES_END(OFILE, OFILE_CODES_END_);

/* A descriptor and the errno of its first failed write or close (0: none). */
typedef struct ofile_sink {
    int fd;
    int err;
} ofile_sink;

/* A fully buffered stdio stream writing to s->fd (s borrowed, must outlive the stream;
 * fclose closes the descriptor). NULL if out of memory. */
FILE *ofile_stream(ofile_sink *s);

#define OFILE_BINARY 1u
#define OFILE_MADE_UP 2u

typedef struct ofile {
    FILE *f;            /* write here between ofile_open and ofile_commit/ofile_abort */
    const char *name;   /* for messages: the path given, or "standard output" */
    char *target;       /* the path replaced atomically (owned), or NULL */
    char *tmp;          /* the temporary's path (owned), or NULL */
    int direct;         /* 1: f is stdout or a non-regular file opened in place */
    int own_f;          /* 1: f must be fclose'd (not stdout) */
    ofile_sink *sink;   /* own_f: f's descriptor and its first write error (owned) */
    int made_up;        /* OFILE_MADE_UP: the target's entry is replaced, never followed */
} ofile;

/* Opens the destination (above; flags OFILE_*). On success *o must be finished by ofile_commit or
 * ofile_abort; on failure nothing was created and *o needs no clean-up. path must stay
 * valid until *o is finished (o->name points at it). */
int ofile_open(ofile *o, const char *path, unsigned flags, g2e_err *err);

/* Finishes a file destination: flushes, checks for write errors, fsyncs, renames, fsyncs
 * the directory. On error the temporary is removed, the target untouched. For standard
 * output only flushes (the caller reports stdout's errors its own way) and returns 0.
 * *o is finished either way. */
int ofile_commit(ofile *o, g2e_err *err);

/* Abandons: closes, removes the temporary (never a target or a device). Accepts NULL, a
 * zeroed or a finished ofile. */
void ofile_abort(ofile *o);

/* Registers the file open on fd (fd >= 0) or else at path as an input; what names its role
 * ("weights") and path names it in the refusal (both copied). Files that cannot be stat'ed
 * and non-regular ones are ignored. 0, or -1 when out of memory. */
int ofile_add_input(const char *what, const char *path, int fd);
/* OFILE_E_INPUT (the refusal in *err) when the entry at path (a link itself, not followed)
 * is a registered input, else 0: for outputs made another way (outdir.h). */
int ofile_check_not_input(const char *path, g2e_err *err);
/* Forgets every registered input. */
void ofile_clear_inputs(void);

/* on = 1: from now on, while a temporary is open, every signal whose default action ends
 * the process (but SIGKILL, SIGSTOP, SIGBUS and SIGXFSZ; the crash signals not under
 * AddressSanitizer) removes the temporaries first. Ignored signals stay ignored. */
void ofile_catch_signals(int on);

/* A directory of temporaries (outdir.h: a directory being built) that a fatal signal removes
 * with its files, as the temporaries above (one at a time; dir borrowed until unguarded).
 * 0, or -1 when another is guarded. */
int ofile_guard_dir(char *dir);
void ofile_unguard_dir(const char *dir);

/* Removes every open temporary; async-signal-safe (for a caller's own fatal handler). */
void ofile_remove_pending(void);

/* The format path's extension names (case-insensitive), among the NULL-terminated names:
 * .npy .json .jsonl .csv .raw .png name the format of the same name, .txt the first of
 * "table", "text" or "ids" in names ("text" is then *want). Returns its index in names;
 * -1 when names lacks it (*want: the format asked for); -2 for no extension (a dot file
 * such as ".npy" has none) or one that names no format (*want untouched). */
int ofile_format_of_name(const char *path, const char *const *names, const char **want);

#endif
