/* SPDX-License-Identifier: MIT */
/* st_describe.c — a safetensors file and its GPT-2 model described as text or JSON
 * (see st_describe.h). */
#include "st_describe.h"
#include "err.h"
#include "textfmt.h"

#include "json.h"
#include "text.h"

#include <stdlib.h>
#include <string.h>

/* Names and metadata from the file, escaped as every outside text shown to a person is
 * (text.h: C0/C1 controls, bidi controls, line separators, ill-formed UTF-8), so one entry
 * stays one line and cannot drive or reorder the terminal. */
static void put_escaped(FILE *f, const char *s)
{
    char *e = text_escape(s, strlen(s), TEXT_ESC_BIDI);
    fputs(e ? e : "?", f);
    free(e);
}

static void shape_str(const st_tensor *t, char *buf, size_t len)
{
    size_t k = (size_t)snprintf(buf, len, "[");
    for (int i = 0; i < t->ndim && k < len; i++)
        k += (size_t)snprintf(buf + k, len - k, "%s%llu", i ? ", " : "",
                              (unsigned long long)t->shape[i]);
    if (k < len) snprintf(buf + k, len - k, "]");
}

/* A line's label (translated), padded to 10 display columns. */
static void label(FILE *f, const char *s)
{
    textfmt_pad(f, s, 9, 0);
    fputc(' ', f);
}

int st_describe_table(FILE *f, const char *path, const st_file *st, const g2e_model *m,
                      const char *model_err)
{
    label(f, g2e_tr("file"));
    put_escaped(f, path);
    fputc('\n', f);
    label(f, g2e_tr("size"));
    fprintf(f, g2e_tr("%llu bytes\n"), (unsigned long long)(st->data_start + st->data_len));
    label(f, g2e_tr("header"));
    fprintf(f, g2e_tr("%llu bytes; data section at byte %llu (%s), %llu bytes\n"),
            (unsigned long long)st->header_len, (unsigned long long)st->data_start,
            st->data_start % 8 == 0 ? g2e_tr("8-byte aligned") : g2e_tr("unaligned"),
            (unsigned long long)st->data_len);
    label(f, g2e_tr("metadata"));
    fprintf(f, "%zu\n", st->n_meta);
    for (size_t i = 0; i < st->n_meta; i++) {
        fputs("  ", f);
        put_escaped(f, st->meta[i].key);
        fputs(" = ", f);
        put_escaped(f, st->meta[i].value);
        fputc('\n', f);
    }
    label(f, g2e_tr("tensors"));
    fprintf(f, g2e_tr("%zu (storage order)\n"), st->n_tensors);
    if (st->n_tensors) {
        int wn = 4, ws = 5;
        char sh[ST_MAX_NDIM * 22 + 4];
        for (size_t i = 0; i < st->n_tensors; i++) {
            int n = (int)strlen(st->tensors[i].name);
            shape_str(&st->tensors[i], sh, sizeof sh);
            int s = (int)strlen(sh);
            if (n > wn) wn = n < 80 ? n : 80;
            if (s > ws) ws = s;
        }
        fputs("  ", f);
        textfmt_pad(f, g2e_tr("name"), (size_t)wn, 0);
        fputs("  dtype    ", f);
        textfmt_pad(f, g2e_tr("shape"), (size_t)ws, 0);
        fputs("  ", f);
        textfmt_pad(f, g2e_tr("bytes"), 15, 1);
        fputs("  ", f);
        textfmt_pad(f, g2e_tr("offset"), 15, 1);
        fputc('\n', f);
        for (size_t i = 0; i < st->n_tensors; i++) {
            const st_tensor *t = &st->tensors[i];
            shape_str(t, sh, sizeof sh);
            fputs("  ", f);
            put_escaped(f, t->name);
            int pad = wn - (int)strlen(t->name);
            fprintf(f, "%*s  %-7s  %-*s  %15llu  %15llu\n", pad > 0 ? pad : 0, "",
                    st_dtype_name(t->dtype), ws, sh,
                    (unsigned long long)(t->end - t->begin), (unsigned long long)t->begin);
        }
    }
    label(f, g2e_tr("model"));
    if (!m) {
        fprintf(f, g2e_tr("none: %s\n"), model_err);
        return 0;
    }
    fprintf(f, "%s\n", m->size_name ? m->size_name : g2e_tr("unknown size"));
    fprintf(f, "  n_vocab %zu\n  n_ctx   %zu\n  n_embd  %zu\n  n_layer %zu\n", m->n_vocab,
            m->n_ctx, m->n_embd, m->n_layer);
    fputs("  ", f);
    textfmt_pad(f, g2e_tr("prefix"), 7, 0);
    fprintf(f, " %s\n", m->prefixed ? "transformer." : g2e_tr("(none)"));
    fprintf(f, "  dtype   wte %s, wpe %s\n", st_dtype_name(m->wte->dtype),
            st_dtype_name(m->wpe->dtype));
    return 0;
}

/* The JSON description onto w (the one JSON writer: integers exactly, strings escaped). */
static void json(json_w *w, const char *path, const st_file *st, const g2e_model *m, const char *model_err)
{
    json_begin_object(w);
    json_key(w, "file"), json_cstr(w, path);
    json_key(w, "file_size"), json_uint(w, st->data_start + st->data_len);
    json_key(w, "header_len"), json_uint(w, st->header_len);
    json_key(w, "data_start"), json_uint(w, st->data_start);
    json_key(w, "data_len"), json_uint(w, st->data_len);
    json_key(w, "metadata");
    json_begin_object(w);
    for (size_t i = 0; i < st->n_meta; i++)
        json_key(w, st->meta[i].key), json_cstr(w, st->meta[i].value);
    json_end_object(w);
    json_key(w, "tensors");
    json_begin_array(w);
    for (size_t i = 0; i < st->n_tensors; i++) {
        const st_tensor *t = &st->tensors[i];
        json_begin_object(w);
        json_key(w, "name"), json_cstr(w, t->name);
        json_key(w, "dtype"), json_cstr(w, st_dtype_name(t->dtype));
        json_key(w, "shape");
        json_begin_array(w);
        for (int d = 0; d < t->ndim; d++)
            json_uint(w, t->shape[d]);
        json_end_array(w);
        json_key(w, "bytes"), json_uint(w, t->end - t->begin);
        json_key(w, "offset"), json_uint(w, t->begin);
        json_key(w, "data_offsets");
        json_begin_array(w);
        json_uint(w, t->begin), json_uint(w, t->end);
        json_end_array(w);
        json_end_object(w);
    }
    json_end_array(w);
    json_key(w, "model");
    if (m) {
        json_begin_object(w);
        json_key(w, "size"), json_cstr(w, m->size_name);
        json_key(w, "n_vocab"), json_uint(w, m->n_vocab);
        json_key(w, "n_ctx"), json_uint(w, m->n_ctx);
        json_key(w, "n_embd"), json_uint(w, m->n_embd);
        json_key(w, "n_layer"), json_uint(w, m->n_layer);
        json_key(w, "prefix"), json_cstr(w, m->prefixed ? "transformer." : "");
        json_key(w, "wte"), json_cstr(w, m->wte->name);
        json_key(w, "wpe"), json_cstr(w, m->wpe->name);
        json_key(w, "dtype"), json_cstr(w, st_dtype_name(m->wte->dtype));
        json_end_object(w);
    } else {
        json_null(w);
        json_key(w, "model_error"), json_cstr(w, model_err);
    }
    json_end_object(w);
}

/* The JSON document onto f: 0, or -1 when the writer saw it incomplete. */
static int json_onto(FILE *f, const char *path, const st_file *st, const g2e_model *m, const char *model_err)
{
    json_w w;
    json_init(&w, f);
    json(&w, path, st, m, model_err);
    return json_done(&w) ? 0 : -1;
}

typedef int (*describe_fn)(FILE *f, const char *path, const st_file *st, const g2e_model *m,
                           const char *model_err);

/* What write puts on a stream, in a new string (caller frees); NULL when out of memory. */
static char *in_memory(describe_fn write, const char *path, const st_file *st, const g2e_model *m,
                       const char *model_err)
{
    char *out = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&out, &len);
    if (!mem)
        return NULL;
    int bad = write(mem, path, st, m, model_err) != 0;
    if (fclose(mem) != 0 || bad) {
        free(out);
        return NULL;
    }
    return out;
}

char *st_describe_json(const char *path, const st_file *st, const g2e_model *m,
                       const char *model_err)
{
    return in_memory(json_onto, path, st, m, model_err);
}

char *st_describe_text(const char *path, const st_file *st, const g2e_model *m,
                       const char *model_err)
{
    return in_memory(st_describe_table, path, st, m, model_err);
}
