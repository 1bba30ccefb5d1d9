/* SPDX-License-Identifier: MIT */
/* table.h — one numeric result table (rows x named columns of doubles) written as an
 * aligned text table, CSV, JSON or npy, so that the commands that print curves and
 * matrices (sinusoidal, similarity, ...) share one writer instead of a copy each.
 *
 * Each column says how it reads as text:
 *   table: right-aligned in `width` display columns (headings too, which may be
 *          translated and hold wide characters), `prec` digits after the point ("%.*f"),
 *          `prec` significant digits with g ("%.*g"), or, with prec < 0, a whole number;
 *   csv:   whole numbers as such, others "%.17g" (reads back to the same double), or
 *          "%.9g" (TBL_CSV_G9: enough for a float32);
 *   json:  whole numbers as such, others as json.h's json_write_f64 (NaN and infinities
 *          as null); either one member per column ("key": [v0, v1, ...], the members
 *          separated by json_sep, no braces: the caller writes the object around them) or,
 *          with json_rows, one array of objects [{"key": v, ...}, ...];
 *   npy:   float32, columns [npy_first, npy_first + npy_count) (count 0: all), shape
 *          (nrow,) when npy_count is 1 (a curve), else (nrow, columns), C order.
 * A column with count > 0 stands for `count` columns keyed key0, key1, ... (the columns of a
 * matrix). The values come from v (row-major) or, row by row, from row(): a matrix too large
 * to hold twice is streamed (JSON's one-member-per-column layout calls row() once per column
 * and row: meant for curves, not for matrices).
 *
 * Writes to a FILE the caller opened; never prints otherwise. A failed write is left for the
 * caller's check of the stream (ferror; the rows stop at the first one); only the npy writer's
 * and row()'s errors are returned.
 */
#ifndef G2E_TABLE_H
#define G2E_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "err.h"

enum { TBL_TABLE = 0, TBL_JSON, TBL_CSV, TBL_NPY };
enum { TBL_CSV_G17 = 0, TBL_CSV_G9 };

typedef struct tbl_col {
    const char *key;     /* csv heading and JSON key */
    const char *jkey;    /* the JSON key when it differs from key (NULL: key) */
    const char *head;    /* table heading (NULL: key) */
    int width;           /* table: display columns */
    int prec;            /* table: digits after the point (with g: significant digits, "%.*g");
                            < 0: a whole number (all formats) */
    int g;               /* table: "%*.*g" instead of "%*.*f" */
    int csv;             /* TBL_CSV_G17 or TBL_CSV_G9 */
    size_t count;        /* 0: one column keyed key; else count columns keyed key<from>.. */
    size_t from;         /* the number of the first of those (pc1, pc2, ...: 1) */
} tbl_col;

typedef struct tbl {
    const tbl_col *cols;
    size_t ncols;        /* entries of cols (a column with count > 0 is one entry) */
    size_t nrow;
    const double *v;     /* (nrow, columns) row-major, or NULL: row() */
    int (*row)(void *user, size_t r, double *out, g2e_err *err);   /* row r into out[columns] */
    void *user;
    const char *sep;     /* table: between columns (NULL: " ") */
    int no_header;       /* table and csv: no heading line */
    int json_rows;       /* json: an array of objects instead of one member per column */
    const char *json_sep;   /* json members: between them (NULL: ", ") */
    size_t npy_first, npy_count;
} tbl;

/* The commonest rows: an index column (first, first + 1, ...) beside up to four arrays of
 * nrow values (col[k] NULL ends them). Pass tbl_series_row as row and the series as user. */
typedef struct tbl_series {
    double first;
    const double *col[4];
} tbl_series;
int tbl_series_row(void *user, size_t r, double *out, g2e_err *err);

/* The TBL_* format called name ("table", "json", "csv", "npy"), or -1. */
int tbl_format_of(const char *name);

/* The number of columns t stands for (counting each column's count). */
size_t tbl_width(const tbl *t);

/* Writes t to f in format fmt (TBL_*). Returns 0; or G2E_ENOMEM, the npy writer's code or
 * row()'s code, with err filled. */
int tbl_write(FILE *f, int fmt, const tbl *t, g2e_err *err);

#endif
