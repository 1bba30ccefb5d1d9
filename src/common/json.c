/* SPDX-License-Identifier: MIT */
/* json.c — the streaming JSON writer (see json.h). */
#include "json.h"
#include "text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void json_write_string(FILE *f, const char *s, size_t n)
{
    static const char HEX[] = "0123456789abcdef";
    fputc('"', f);
    size_t run = 0;   /* bytes s[i - run, i) to copy as they are */
    size_t i = 0, k;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        int32_t cp;
        if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') {
            i++, run++;
            continue;
        }
        cp = text_step(s + i, n - i, &k);
        if (cp >= 0xA0 && cp != 0x2028 && cp != 0x2029) {
            i += k, run += k;
            continue;
        }
        fwrite(s + i - run, 1, run, f);
        run = 0;
        switch (cp) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\t': fputs("\\t", f); break;
        case '\r': fputs("\\r", f); break;
        case '\b': fputs("\\b", f); break;
        case '\f': fputs("\\f", f); break;
        case TEXT_BAD: fputs("\\ufffd", f); break;
        default: {
            char e[7] = {'\\', 'u', HEX[cp >> 12 & 15], HEX[cp >> 8 & 15], HEX[cp >> 4 & 15],
                         HEX[cp & 15], 0};
            fputs(e, f);
        }
        }
        i += k;
    }
    fwrite(s + i - run, 1, run, f);
    fputc('"', f);
}

char *json_string_alloc(const char *s, size_t n)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    json_write_string(f, s, n);
    if (ferror(f)) {
        fclose(f);
        free(buf);
        return NULL;
    }
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

void json_write_f32(FILE *f, float v)
{
    if (v == 0 && signbit(v))
        fputs("-0.0", f);   /* "-0" would be read as the integer 0 by many readers */
    else if (isfinite(v))
        fprintf(f, "%.9g", (double)v);
    else
        fputs("null", f);
}

void json_write_f64(FILE *f, double v)
{
    if (v == 0 && signbit(v))
        fputs("-0.0", f);
    else if (isfinite(v))
        fprintf(f, "%.17g", v);
    else
        fputs("null", f);
}

void json_init(json_w *w, FILE *f)
{
    memset(w, 0, sizeof *w);
    w->f = f;
}

/* Before a value: the separator it needs; 0 if a value is not allowed here. */
static int before_value(json_w *w)
{
    if (w->err)
        return 0;
    if (w->depth == 0) {
        if (w->n[0]) {   /* a second top-level value */
            w->err = 1;
            return 0;
        }
        w->n[0] = 1;
        return 1;
    }
    int d = w->depth;
    if (w->kind[d] == '{') {
        if (!w->want_value) {
            w->err = 1;
            return 0;
        }
        w->want_value = 0;
        return 1;
    }
    if (w->n[d])
        fputs(", ", w->f);
    w->n[d] = 1;
    return 1;
}

static void begin(json_w *w, char kind)
{
    if (w->depth + 1 >= JSON_MAX_DEPTH) {
        w->err = 1;
        return;
    }
    if (!before_value(w))
        return;
    w->depth++;
    w->kind[w->depth] = kind;
    w->n[w->depth] = 0;
    fputc(kind, w->f);
}

static void end(json_w *w, char kind)
{
    if (w->err || w->depth == 0 || w->kind[w->depth] != kind || w->want_value) {
        w->err = 1;
        return;
    }
    w->depth--;
    fputc(kind == '{' ? '}' : ']', w->f);
}

void json_begin_object(json_w *w) { begin(w, '{'); }
void json_end_object(json_w *w) { end(w, '{'); }
void json_begin_array(json_w *w) { begin(w, '['); }
void json_end_array(json_w *w) { end(w, '['); }

void json_key(json_w *w, const char *key)
{
    int d = w->depth;
    if (w->err || d == 0 || w->kind[d] != '{' || w->want_value || !key) {
        w->err = 1;
        return;
    }
    if (w->n[d])
        fputs(", ", w->f);
    w->n[d] = 1;
    json_write_string(w->f, key, strlen(key));
    fputs(": ", w->f);
    w->want_value = 1;
}

void json_str(json_w *w, const char *s, size_t n)
{
    if (before_value(w))
        json_write_string(w->f, s ? s : "", s ? n : 0);
}

void json_cstr(json_w *w, const char *s)
{
    if (!s)
        json_null(w);
    else if (before_value(w))
        json_write_string(w->f, s, strlen(s));
}

void json_f64(json_w *w, double v)
{
    if (before_value(w))
        json_write_f64(w->f, v);
}

void json_uint(json_w *w, unsigned long long v)
{
    if (before_value(w))
        fprintf(w->f, "%llu", v);
}

void json_bool(json_w *w, int v)
{
    if (before_value(w))
        fputs(v ? "true" : "false", w->f);
}

void json_null(json_w *w)
{
    if (before_value(w))
        fputs("null", w->f);
}

void json_resume_object(json_w *w, FILE *f, int members)
{
    json_init(w, f);
    w->n[0] = 1;
    w->depth = 1;
    w->kind[1] = '{';
    w->n[1] = members > 0;
}

int json_done(const json_w *w)
{
    return !w->err && w->depth == 0 && w->n[0];
}
