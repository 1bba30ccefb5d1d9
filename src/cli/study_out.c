/* SPDX-License-Identifier: MIT */
/* study_out.c — one numeric table in four formats (see study_out.h). */
#include "study_out.h"

#include "cli.h"
#include "json.h"
#include "npy.h"
#include "out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int is_int(const study_cols *c, size_t j)
{
    return c->is_int && c->is_int[j];
}

static void table(FILE *f, const study_cols *c)
{
    for (size_t j = 0; j < c->ncol; j++)
        fprintf(f, j ? " %14s" : "%10s", c->names[j]);
    fputc('\n', f);
    for (size_t r = 0; r < c->nrow; r++) {
        for (size_t j = 0; j < c->ncol; j++) {
            double v = c->v[r * c->ncol + j];
            if (is_int(c, j))
                fprintf(f, j ? " %14.0f" : "%10.0f", v);
            else
                fprintf(f, j ? " %14.6g" : "%10.6g", v);
        }
        fputc('\n', f);
    }
}

static void csv(FILE *f, const study_cols *c)
{
    for (size_t j = 0; j < c->ncol; j++) {
        if (j)
            fputc(',', f);
        out_csv_field(f, c->names[j], strlen(c->names[j]));
    }
    fputc('\n', f);
    for (size_t r = 0; r < c->nrow; r++) {
        for (size_t j = 0; j < c->ncol; j++) {
            double v = c->v[r * c->ncol + j];
            if (j)
                fputc(',', f);
            if (is_int(c, j))
                fprintf(f, "%.0f", v);
            else
                out_f64(f, v);
        }
        fputc('\n', f);
    }
}

static void json(FILE *f, const study_cols *c)
{
    for (size_t j = 0; j < c->ncol; j++) {
        fprintf(f, "%s", j ? ", " : "");
        json_write_string(f, c->names[j], strlen(c->names[j]));
        fputs(": [", f);
        for (size_t r = 0; r < c->nrow; r++) {
            double v = c->v[r * c->ncol + j];
            if (r)
                fputs(", ", f);
            if (!isfinite(v))
                fputs("null", f);
            else if (is_int(c, j))
                fprintf(f, "%.0f", v);
            else
                json_write_f64(f, v);
        }
        fputc(']', f);
    }
}

static int npy(FILE *f, const study_cols *c)
{
    size_t a = c->npy_count ? c->npy_first : 0, k = c->npy_count ? c->npy_count : c->ncol;
    size_t shape[2] = {c->nrow, k};
    npy_writer w;
    g2e_err e;
    if (npy_writer_begin(&w, f, shape, k == 1 ? 1 : 2, &e))
        goto fail;
    for (size_t r = 0; r < c->nrow; r++)
        for (size_t j = a; j < a + k; j++) {
            float x = (float)c->v[r * c->ncol + j];
            if (npy_writer_put(&w, &x, 1, &e))
                goto fail;
        }
    if (npy_writer_end(&w, &e))
        goto fail;
    return 0;
fail:
    cli_error("%s", e.msg);
    return -1;
}

int study_write(FILE *f, int fmt, const study_cols *c)
{
    switch (fmt) {
    case STUDY_TABLE: table(f, c); return 0;
    case STUDY_CSV: csv(f, c); return 0;
    case STUDY_JSON: json(f, c); return 0;
    default: return npy(f, c);
    }
}

int study_emit(const char *path, int fmt, const study_cols *c, const char *pre_json,
               const char *pre_table)
{
    out_file o;
    if (out_open(&o, path, fmt == STUDY_NPY))
        return -1;
    if (fmt == STUDY_JSON)
        fprintf(o.f, "{%s", pre_json ? pre_json : "");
    else if (fmt == STUDY_TABLE && pre_table)
        fputs(pre_table, o.f);
    if (study_write(o.f, fmt, c)) {
        out_abort(&o);
        return -1;
    }
    if (fmt == STUDY_JSON)
        fputs("}\n", o.f);
    return out_commit(&o);
}
