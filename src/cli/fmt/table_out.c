/* SPDX-License-Identifier: MIT */
/* table_out.c — a result table to its destination (see table_out.h). */
#include "table_out.h"

#include "cli.h"
#include "out.h"

int table_emit(const char *path, int fmt, const tbl *t, table_head_fn head, const void *user)
{
    out_file o;
    g2e_err e;
    if (out_open(&o, path, fmt == TBL_NPY))
        return -1;
    if (fmt == TBL_JSON)
        fputc('{', o.f);
    if (head && (fmt == TBL_JSON || fmt == TBL_TABLE))
        head(o.f, fmt, user);
    if (tbl_write(o.f, fmt, t, &e)) {
        cli_error("%s", e.msg);
        out_abort(&o);
        return -1;
    }
    if (fmt == TBL_JSON)
        fputs("}\n", o.f);
    return out_commit(&o);
}
