/* SPDX-License-Identifier: MIT */
/* st_describe.c — a safetensors file and its GPT-2 model described as a table (see
 * st_describe.h). */
#include "st_describe.h"
#include "err.h"
#include "text.h"
#include "textfmt.h"

#include <cjson/cJSON.h>
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

static unsigned long long uint_of(const cJSON *o, const char *key)
{
    const cJSON *v = key ? cJSON_GetObjectItem(o, key) : o;
    return cJSON_IsNumber(v) ? (unsigned long long)v->valuedouble : 0;
}

static const char *str_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static void shape_str(const cJSON *t, char *buf, size_t len)
{
    const cJSON *d;
    size_t k = (size_t)snprintf(buf, len, "[");
    int i = 0;
    cJSON_ArrayForEach(d, cJSON_GetObjectItem(t, "shape"))
        if (k < len)
            k += (size_t)snprintf(buf + k, len - k, "%s%llu", i++ ? ", " : "", uint_of(d, NULL));
    if (k < len) snprintf(buf + k, len - k, "]");
}

/* A line's label (translated), padded to 10 display columns. */
static void label(FILE *f, const char *s)
{
    textfmt_pad(f, s, 9, 0);
    fputc(' ', f);
}

static void tensors(FILE *f, const cJSON *ts)
{
    const cJSON *t;
    int wn = 4, ws = 5;
    char sh[8 * 22 + 4];
    cJSON_ArrayForEach(t, ts) {
        int n = (int)strlen(str_of(t, "name"));
        shape_str(t, sh, sizeof sh);
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
    cJSON_ArrayForEach(t, ts) {
        const char *name = str_of(t, "name");
        shape_str(t, sh, sizeof sh);
        fputs("  ", f);
        put_escaped(f, name);
        int pad = wn - (int)strlen(name);
        fprintf(f, "%*s  %-7s  %-*s  %15llu  %15llu\n", pad > 0 ? pad : 0, "", str_of(t, "dtype"), ws, sh,
                uint_of(t, "bytes"), uint_of(t, "offset"));
    }
}

int st_describe_table(FILE *f, const cJSON *doc)
{
    label(f, g2e_tr("file"));
    put_escaped(f, str_of(doc, "file"));
    fputc('\n', f);
    label(f, g2e_tr("size"));
    fprintf(f, g2e_tr("%llu bytes\n"), uint_of(doc, "file_size"));
    label(f, g2e_tr("header"));
    unsigned long long start = uint_of(doc, "data_start");
    fprintf(f, g2e_tr("%llu bytes; data section at byte %llu (%s), %llu bytes\n"), uint_of(doc, "header_len"), start,
            start % 8 == 0 ? g2e_tr("8-byte aligned") : g2e_tr("unaligned"), uint_of(doc, "data_len"));
    const cJSON *meta = cJSON_GetObjectItem(doc, "metadata"), *kv;
    label(f, g2e_tr("metadata"));
    fprintf(f, "%d\n", cJSON_GetArraySize(meta));
    cJSON_ArrayForEach(kv, meta) {
        fputs("  ", f);
        put_escaped(f, kv->string);
        fputs(" = ", f);
        put_escaped(f, cJSON_IsString(kv) ? kv->valuestring : "");
        fputc('\n', f);
    }
    const cJSON *ts = cJSON_GetObjectItem(doc, "tensors");
    label(f, g2e_tr("tensors"));
    fprintf(f, g2e_tr("%zu (storage order)\n"), (size_t)cJSON_GetArraySize(ts));
    if (cJSON_GetArraySize(ts))
        tensors(f, ts);
    const cJSON *m = cJSON_GetObjectItem(doc, "model");
    label(f, g2e_tr("model"));
    if (!cJSON_IsObject(m)) {
        fprintf(f, g2e_tr("none: %s\n"), str_of(doc, "model_error"));
        return 0;
    }
    const cJSON *size = cJSON_GetObjectItem(m, "size");
    fprintf(f, "%s\n", cJSON_IsString(size) ? size->valuestring : g2e_tr("unknown size"));
    fprintf(f, "  n_vocab %llu\n  n_ctx   %llu\n  n_embd  %llu\n  n_layer %llu\n", uint_of(m, "n_vocab"),
            uint_of(m, "n_ctx"), uint_of(m, "n_embd"), uint_of(m, "n_layer"));
    fputs("  ", f);
    textfmt_pad(f, g2e_tr("prefix"), 7, 0);
    fprintf(f, " %s\n", *str_of(m, "prefix") ? str_of(m, "prefix") : g2e_tr("(none)"));
    /* wte's dtype is the document's; wpe's is its tensor's, found by name */
    const char *wpe = str_of(m, "wpe"), *wpe_dtype = "?";
    const cJSON *t;
    cJSON_ArrayForEach(t, ts)
        if (strcmp(str_of(t, "name"), wpe) == 0)
            wpe_dtype = str_of(t, "dtype");
    fprintf(f, "  dtype   wte %s, wpe %s\n", str_of(m, "dtype"), wpe_dtype);
    return 0;
}

char *st_describe_text(const cJSON *doc)
{
    char *out = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&out, &len);
    if (!mem)
        return NULL;
    st_describe_table(mem, doc);
    if (fclose(mem) != 0) {
        free(out);
        return NULL;
    }
    return out;
}
