/* SPDX-License-Identifier: MIT */
/* table.c — one numeric table in four formats (see table.h). */
#include "table.h"

#include "json.h"
#include "npy.h"
#include "text.h"

#include <stdlib.h>
#include <string.h>

/* Column j of t, flattened: its spec and its number within a counted column (or -1). */
typedef struct flat {
    const tbl_col *c;
    long idx;
} flat;

int tbl_format_of(const char *name)
{
    static const char *const NAMES[] = {"table", "json", "csv", "npy"};   /* TBL_* order */
    for (int k = 0; k < 4; k++)
        if (strcmp(name, NAMES[k]) == 0)
            return k;
    return -1;
}

size_t tbl_width(const tbl *t)
{
    size_t n = 0;
    for (size_t i = 0; i < t->ncols; i++)
        n += t->cols[i].count ? t->cols[i].count : 1;
    return n;
}

int tbl_series_row(void *user, size_t r, double *out, g2e_err *err)
{
    const tbl_series *s = user;
    (void)err;
    out[0] = s->first + (double)r;
    for (size_t k = 0; k < 4 && s->col[k]; k++)
        out[1 + k] = s->col[k][r];
    return 0;
}

static flat *flatten(const tbl *t, size_t n)
{
    flat *f = malloc((n ? n : 1) * sizeof *f);
    size_t k = 0;
    for (size_t i = 0; f && i < t->ncols; i++)
        for (size_t r = 0; r < (t->cols[i].count ? t->cols[i].count : 1); r++)
            f[k++] = (flat){&t->cols[i], t->cols[i].count ? (long)(t->cols[i].from + r) : -1};
    return f;
}

/* The key (or the table's heading) of column c, numbered when it is one of a counted set. */
static const char *key_of(const flat *c, int table, char buf[512])
{
    const char *s = table && c->c->head ? c->c->head : c->c->key;
    if (c->idx < 0)
        return s;
    snprintf(buf, 512, "%s%ld", s, c->idx);
    return buf;
}

static void put_key(FILE *f, const flat *c, int table)
{
    char buf[512];
    const char *s = key_of(c, table, buf);
    if (table)
        for (size_t w = text_width(s, strlen(s)); w < (size_t)c->c->width; w++)
            fputc(' ', f);
    fputs(s, f);
}

static void put_value(FILE *f, int fmt, const tbl_col *c, double v)
{
    if (c->prec < 0)
        fprintf(f, "%*llu", fmt == TBL_TABLE ? c->width : 0, (unsigned long long)v);
    else if (fmt == TBL_TABLE)
        fprintf(f, c->g ? "%*.*g" : "%*.*f", c->width, c->prec, v);
    else if (fmt == TBL_CSV)
        fprintf(f, c->csv == TBL_CSV_G9 ? "%.9g" : "%.17g", v);
    else
        json_write_f64(f, v);
}

/* Row r into buf (from v or row()). */
static int get_row(const tbl *t, size_t r, size_t n, double *buf, const double **row, g2e_err *e)
{
    if (t->v) {
        *row = t->v + r * n;
        return 0;
    }
    *row = buf;
    return t->row(t->user, r, buf, e);
}

static int text_rows(FILE *f, int fmt, const tbl *t, const flat *c, size_t n, double *buf, g2e_err *e)
{
    const char *sep = fmt == TBL_CSV ? "," : t->sep ? t->sep : " ";
    for (size_t j = 0; j < n && !t->no_header; j++) {
        fputs(j ? sep : "", f);
        put_key(f, &c[j], fmt == TBL_TABLE);
    }
    if (!t->no_header)
        fputc('\n', f);
    for (size_t r = 0; r < t->nrow && !ferror(f); r++) {
        const double *v;
        int rc = get_row(t, r, n, buf, &v, e);
        if (rc)
            return rc;
        for (size_t j = 0; j < n; j++) {
            if (j)
                fputs(sep, f);
            put_value(f, fmt, c[j].c, v[j]);
        }
        fputc('\n', f);
    }
    return 0;
}

static void col_key(FILE *f, const flat *c)
{
    char buf[512];
    const char *s = c->c->jkey ? c->c->jkey : key_of(c, 0, buf);
    json_write_string(f, s, strlen(s));
    fputs(": ", f);
}

static int json_out(FILE *f, const tbl *t, const flat *c, size_t n, double *buf, g2e_err *e)
{
    const double *v;
    int rc;
    if (t->json_rows) {
        fputc('[', f);
        for (size_t r = 0; r < t->nrow; r++) {
            if ((rc = get_row(t, r, n, buf, &v, e)))
                return rc;
            fputs(r ? ", {" : "{", f);
            for (size_t j = 0; j < n; j++) {
                fputs(j ? ", " : "", f);
                col_key(f, &c[j]);
                put_value(f, TBL_JSON, c[j].c, v[j]);
            }
            fputc('}', f);
        }
        fputc(']', f);
        return 0;
    }
    for (size_t j = 0; j < n; j++) {   /* column by column: from v, or row() once per value */
        fputs(j ? (t->json_sep ? t->json_sep : ", ") : "", f);
        col_key(f, &c[j]);
        fputc('[', f);
        for (size_t r = 0; r < t->nrow; r++) {
            if ((rc = get_row(t, r, n, buf, &v, e)))
                return rc;
            fputs(r ? ", " : "", f);
            put_value(f, TBL_JSON, c[j].c, v[j]);
        }
        fputc(']', f);
    }
    return 0;
}

static int npy_out(FILE *f, const tbl *t, size_t n, double *buf, g2e_err *e)
{
    size_t a = t->npy_count ? t->npy_first : 0, k = t->npy_count ? t->npy_count : n;
    size_t shape[2] = {t->nrow, k};
    float *x = malloc((k ? k : 1) * sizeof *x);
    npy_writer w;
    int rc = x ? npy_writer_begin(&w, f, shape, t->npy_count == 1 ? 1 : 2, e)
               : g2e_fail(e, G2E_ENOMEM, "out of memory for a row of %zu", k);
    for (size_t r = 0; rc == 0 && r < t->nrow && !ferror(f); r++) {
        const double *v;
        if ((rc = get_row(t, r, n, buf, &v, e)))
            break;
        for (size_t j = 0; j < k; j++)
            x[j] = (float)v[a + j];
        rc = npy_writer_put(&w, x, k, e);
    }
    if (rc == 0 && !ferror(f))
        rc = npy_writer_end(&w, e);
    free(x);
    return rc;
}

int tbl_write(FILE *f, int fmt, const tbl *t, g2e_err *err)
{
    size_t n = tbl_width(t);
    flat *c = flatten(t, n);
    double *buf = t->v ? NULL : malloc((n ? n : 1) * sizeof *buf);
    int rc;
    if (!c || (!t->v && !buf))
        rc = g2e_fail(err, G2E_ENOMEM, "out of memory for a table of %zu columns", n);
    else if (fmt == TBL_NPY)
        rc = npy_out(f, t, n, buf, err);
    else if (fmt == TBL_JSON)
        rc = json_out(f, t, c, n, buf, err);
    else
        rc = text_rows(f, fmt, t, c, n, buf, err);
    free(c);
    free(buf);
    return rc;
}
