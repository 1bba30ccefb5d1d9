/* SPDX-License-Identifier: MIT */
/* study_out.h — the output shared by the study commands (pca, rope, stats --by-position, and
 * the report): one numeric table written as an aligned text table, JSON columns, CSV or npy,
 * so that every curve these commands print is available in every format the same way.
 *
 * A table is nrow × ncol doubles, row-major, with a name per column; columns flagged as
 * integers (positions, offsets, component numbers) print without a fraction.
 *   table: a header line, then one line per row ("%.6g"-style, integers as integers);
 *   csv:   a header line, then full precision ("%.17g", reads back to the same double);
 *   json:  the members "name": [v0, v1, ...] per column (no braces: the caller writes the
 *          object around them, with its own members first), full precision;
 *   npy:   float32 (nrow, ncols kept), or (nrow,) when one column is kept, in C order.
 * Program wing: writes to a FILE the caller opened with out_open (out.h).
 */
#ifndef G2E_STUDY_OUT_H
#define G2E_STUDY_OUT_H

#include <stddef.h>
#include <stdio.h>

enum { STUDY_TABLE = 0, STUDY_JSON, STUDY_CSV, STUDY_NPY };

typedef struct study_cols {
    const char *const *names;   /* ncol names */
    const unsigned char *is_int; /* ncol flags (NULL: none) */
    size_t ncol, nrow;
    const double *v;            /* (nrow, ncol) row-major */
    size_t npy_first, npy_count; /* npy holds columns [npy_first, npy_first + npy_count)
                                    (npy_count 0: all), e.g. without a position column */
} study_cols;

/* Writes c in format fmt (STUDY_*) to f; for STUDY_JSON only the members (see above).
 * Returns 0, or -1 after printing an error (npy: the writer's message). */
int study_write(FILE *f, int fmt, const study_cols *c);

/* Opens path (NULL or "-": stdout) with out.h for format fmt, writes, commits. For JSON the
 * object is "{" + pre (may be NULL: members written before the columns, each followed by
 * ", ") + columns + "}\n"; for the table, pre_table (may be NULL) is printed above it.
 * Returns 0, or -1 after printing an error (nothing left behind at path). */
int study_emit(const char *path, int fmt, const study_cols *c, const char *pre_json,
               const char *pre_table);

#endif
