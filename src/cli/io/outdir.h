/* SPDX-License-Identifier: MIT */
/* outdir.h — a directory of output files written as a whole (the report's -o DIR): the
 * files go into a temporary directory ".NAME.XXXXXX" beside the target, and the commit puts
 * it in the target's place with one rename (renameat2's RENAME_EXCHANGE over an existing
 * directory), so that the target is the old directory or the new one, never a mixture; an
 * interrupted run leaves the target as it was (a fatal signal removes the temporary
 * directory: outfile.h's ofile_guard_dir). Nothing is written through a symbolic link found
 * in the target: its entries are replaced as names, never followed.
 *
 * The target must be new, empty, or hold only entries the caller's ours() recognises as
 * its own kind (an earlier run's files: regular files or symbolic links), since the whole
 * directory is replaced: any other entry refuses the open before anything is written. A
 * target that is itself a symbolic link to a directory is resolved (the directory is
 * replaced where it is). The new directory gets the old one's mode, or 0777 & ~umask.
 *
 * Deliberately left out: subdirectories, merging with other files already in the target.
 */
#ifndef G2E_OUTDIR_H
#define G2E_OUTDIR_H

#include "err.h"

enum {
    ODIR_E_OPEN = G2E_BASE(ODIR),   /* the target or the temporary cannot be made (msg says why) */
    ODIR_E_FOREIGN,       /* the target holds something not of ours() kind, or is no directory */
    ODIR_E_COMMIT,        /* the rename into place failed (the target kept) */
    ODIR_CODES_END_
};
G2E_CODES_END(ODIR, ODIR_CODES_END_);

typedef struct odir {
    char *target;   /* the directory replaced (a link resolved); owned */
    char *tmp;      /* the temporary directory being filled; owned */
    int exists;     /* the target existed at the open */
    unsigned mode;  /* the mode the new directory gets */
    int (*ours)(const char *name);
} odir;

/* Checks the target (above) and makes the temporary directory beside it. On failure
 * nothing was made and *d needs no clean-up. */
int odir_open(odir *d, const char *target, int (*ours)(const char *name), g2e_err *err);

/* The path of name inside the temporary directory (a new string), NULL if out of memory. */
char *odir_path(const odir *d, const char *name);

/* Puts the temporary directory in the target's place, then removes the old directory's
 * entries of ours() kind and the old directory. On failure the target is untouched and
 * the temporary removed. *d is finished either way. */
int odir_commit(odir *d, g2e_err *err);

/* Removes the temporary directory and its files. Accepts a zeroed or finished odir. */
void odir_abort(odir *d);

#endif
