/* SPDX-License-Identifier: MIT */
/* st_describe.c — a safetensors file and its GPT-2 model described as text or JSON
 * (see st_describe.h). */
#include "st_describe.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static char *u64s(char *buf, uint64_t v)
{
    snprintf(buf, 24, "%llu", (unsigned long long)v);
    return buf;
}

/* Control bytes of names and metadata are shown escaped so one entry stays one line. */
static void put_escaped(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == 0x7F) fprintf(f, "\\x%02x", c);
        else if (c == '\\') fputs("\\\\", f);
        else fputc(c, f);
    }
}

static void shape_str(const st_tensor *t, char *buf, size_t len)
{
    size_t k = (size_t)snprintf(buf, len, "[");
    for (int i = 0; i < t->ndim && k < len; i++)
        k += (size_t)snprintf(buf + k, len - k, "%s%llu", i ? ", " : "",
                              (unsigned long long)t->shape[i]);
    if (k < len) snprintf(buf + k, len - k, "]");
}

int st_describe_table(FILE *f, const char *path, const st_file *st, const g2e_model *m,
                      const char *model_err)
{
    fprintf(f, "file      ");
    put_escaped(f, path);
    fprintf(f, "\nsize      %llu bytes\n", (unsigned long long)(st->data_start + st->data_len));
    fprintf(f, "header    %llu bytes; data section at byte %llu (%s), %llu bytes\n",
            (unsigned long long)st->header_len, (unsigned long long)st->data_start,
            st->data_start % 8 == 0 ? "8-byte aligned" : "unaligned",
            (unsigned long long)st->data_len);
    fprintf(f, "metadata  %zu\n", st->n_meta);
    for (size_t i = 0; i < st->n_meta; i++) {
        fputs("  ", f);
        put_escaped(f, st->meta[i].key);
        fputs(" = ", f);
        put_escaped(f, st->meta[i].value);
        fputc('\n', f);
    }
    fprintf(f, "tensors   %zu (storage order)\n", st->n_tensors);
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
        fprintf(f, "  %-*s  %-7s  %-*s  %15s  %15s\n", wn, "name", "dtype", ws, "shape", "bytes",
                "offset");
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
    if (!m) {
        fprintf(f, "model     none: %s\n", model_err);
        return 0;
    }
    fprintf(f, "model     %s\n", m->size_name ? m->size_name : "unknown size");
    fprintf(f, "  n_vocab %zu\n  n_ctx   %zu\n  n_embd  %zu\n  n_layer %zu\n", m->n_vocab,
            m->n_ctx, m->n_embd, m->n_layer);
    fprintf(f, "  prefix  %s\n", m->prefixed ? "transformer." : "(none)");
    fprintf(f, "  dtype   wte %s, wpe %s\n", st_dtype_name(m->wte->dtype),
            st_dtype_name(m->wpe->dtype));
    return 0;
}

/* Numbers go in as raw decimal text: cJSON's doubles would round offsets above 2^53. */
static cJSON *json(const char *path, const st_file *st, const g2e_model *m, const char *model_err)
{
    char b[24], b2[24];
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    int ok = cJSON_AddStringToObject(o, "file", path) != NULL;
    ok &= cJSON_AddRawToObject(o, "file_size", u64s(b, st->data_start + st->data_len)) != NULL;
    ok &= cJSON_AddRawToObject(o, "header_len", u64s(b, st->header_len)) != NULL;
    ok &= cJSON_AddRawToObject(o, "data_start", u64s(b, st->data_start)) != NULL;
    ok &= cJSON_AddRawToObject(o, "data_len", u64s(b, st->data_len)) != NULL;
    cJSON *md = cJSON_AddObjectToObject(o, "metadata");
    ok &= md != NULL;
    for (size_t i = 0; ok && i < st->n_meta; i++)
        ok &= cJSON_AddStringToObject(md, st->meta[i].key, st->meta[i].value) != NULL;
    cJSON *ts = cJSON_AddArrayToObject(o, "tensors");
    ok &= ts != NULL;
    for (size_t i = 0; ok && i < st->n_tensors; i++) {
        const st_tensor *t = &st->tensors[i];
        cJSON *e = cJSON_CreateObject(), *sh = cJSON_CreateArray(), *off = cJSON_CreateArray();
        ok &= e && sh && off;
        if (e) cJSON_AddItemToArray(ts, e);
        if (!ok) {
            cJSON_Delete(sh);
            cJSON_Delete(off);
            break;
        }
        cJSON_AddItemToObject(e, "name", cJSON_CreateString(t->name));
        cJSON_AddItemToObject(e, "dtype", cJSON_CreateString(st_dtype_name(t->dtype)));
        for (int d = 0; d < t->ndim; d++)
            cJSON_AddItemToArray(sh, cJSON_CreateRaw(u64s(b, t->shape[d])));
        cJSON_AddItemToObject(e, "shape", sh);
        cJSON_AddItemToObject(e, "bytes", cJSON_CreateRaw(u64s(b, t->end - t->begin)));
        cJSON_AddItemToObject(e, "offset", cJSON_CreateRaw(u64s(b, t->begin)));
        cJSON_AddItemToArray(off, cJSON_CreateRaw(u64s(b, t->begin)));
        cJSON_AddItemToArray(off, cJSON_CreateRaw(u64s(b2, t->end)));
        cJSON_AddItemToObject(e, "data_offsets", off);
    }
    if (ok && m) {
        cJSON *mo = cJSON_AddObjectToObject(o, "model");
        ok &= mo != NULL;
        if (mo) {
            cJSON_AddItemToObject(mo, "size", m->size_name ? cJSON_CreateString(m->size_name)
                                                           : cJSON_CreateNull());
            cJSON_AddRawToObject(mo, "n_vocab", u64s(b, m->n_vocab));
            cJSON_AddRawToObject(mo, "n_ctx", u64s(b, m->n_ctx));
            cJSON_AddRawToObject(mo, "n_embd", u64s(b, m->n_embd));
            cJSON_AddRawToObject(mo, "n_layer", u64s(b, m->n_layer));
            cJSON_AddStringToObject(mo, "prefix", m->prefixed ? "transformer." : "");
            cJSON_AddStringToObject(mo, "wte", m->wte->name);
            cJSON_AddStringToObject(mo, "wpe", m->wpe->name);
            cJSON_AddStringToObject(mo, "dtype", st_dtype_name(m->wte->dtype));
        }
    } else if (ok) {
        ok &= cJSON_AddNullToObject(o, "model") != NULL;
        ok &= cJSON_AddStringToObject(o, "model_error", model_err) != NULL;
    }
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

char *st_describe_json(const char *path, const st_file *st, const g2e_model *m,
                       const char *model_err)
{
    cJSON *j = json(path, st, m, model_err);
    char *s = j ? cJSON_Print(j) : NULL;
    cJSON_Delete(j);
    return s;
}

char *st_describe_text(const char *path, const st_file *st, const g2e_model *m,
                       const char *model_err)
{
    char *out = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&out, &len);
    if (!mem)
        return NULL;
    st_describe_table(mem, path, st, m, model_err);
    if (fclose(mem) != 0) {
        free(out);
        return NULL;
    }
    return out;
}
