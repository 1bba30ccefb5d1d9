/* SPDX-License-Identifier: MIT */
/* table_out.h — a result table (src/cli/fmt/table.h) written to -o or standard output, the way
 * every command that prints curves or matrices writes them: out.h's destination (atomic -o,
 * npy never to a terminal), then, for json, "{" + the command's own members + the table's
 * members + "}\n", for the text table the command's lines above it, for csv and npy the
 * table alone. Program wing: prints one error line and returns -1 on failure (nothing is left
 * at the -o path then).
 */
#ifndef G2E_TABLE_OUT_H
#define G2E_TABLE_OUT_H

#include <stdio.h>

#include "table.h"

/* Writes what goes before the table in format fmt (TBL_TABLE: lines of text; TBL_JSON: members,
 * each followed by ", " or the table's separator). */
typedef void (*table_head_fn)(FILE *f, int fmt, const void *user);

/* t in format fmt (TBL_*) to path (NULL or "-": standard output); head may be NULL. */
int table_emit(const char *path, int fmt, const tbl *t, table_head_fn head, const void *user);

#endif
