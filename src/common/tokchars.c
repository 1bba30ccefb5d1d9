/* SPDX-License-Identifier: MIT */
/* tokchars.c — which characters each byte-level token overlaps (see tokchars.h).
 *
 * One walk over the text's characters for all tokens: tokens come in order, so a cursor
 * that sits on the character holding a token's last byte is where the next token's search
 * begins (the next token may start inside that same character). */
#include "tokchars.h"
#include "json.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The character the cursor stands on: text[pos, pos + len), index idx. */
typedef struct cursor {
    size_t pos, len, idx;
} cursor;

static void cur_next(cursor *c, const char *text, size_t n)
{
    c->pos += c->len;
    c->idx++;
    c->len = 0;
    if (c->pos < n)
        text_step(text + c->pos, n - c->pos, &c->len);
}

static tokchars_part part_of(const cursor *c, size_t start, size_t end)
{
    tokchars_part p = {0, 0, 0};
    size_t lo = start > c->pos ? start - c->pos : 0;
    size_t hi = end < c->pos + c->len ? end - c->pos : c->len;
    if (lo != 0 || hi != c->len) {
        p.lo = (uint8_t)(lo + 1);
        p.hi = (uint8_t)hi;
        p.n = (uint8_t)c->len;
    }
    return p;
}

int tokchars_spans(const char *text, size_t len, const size_t *offsets, size_t n,
                   tokchars_span *out, g2e_err *err)
{
    if (n && (!offsets || !out || (!text && len)))
        return g2e_fail(err, G2E_EINVAL, "tokchars_spans: NULL argument for %zu tokens", n);
    cursor c = {0, 0, 0};
    if (len)
        text_step(text, len, &c.len);
    for (size_t i = 0; i < n; i++) {
        size_t a = offsets[i], b = offsets[i + 1];
        if (a > b || b > len || (i && a < offsets[i - 1]))
            return g2e_fail(err, G2E_EINVAL,
                            "token %zu covers bytes %zu..%zu of a %zu-byte text: offsets must "
                            "not decrease nor pass the end", i, a, b, len);
        tokchars_span *s = &out[i];
        memset(s, 0, sizeof *s);
        s->start = a, s->end = b;
        while (c.pos < len && c.pos + c.len <= a)
            cur_next(&c, text, len);
        s->char_index = c.idx;
        s->cstart = s->cend = a;
        if (a == b)
            continue;
        s->cstart = c.pos;
        s->head = part_of(&c, a, b);
        s->n_chars = 1;
        while (c.pos + c.len < b) {
            cur_next(&c, text, len);
            s->n_chars++;
        }
        if (s->n_chars > 1)
            s->tail = part_of(&c, a, b);
        s->cend = c.pos + c.len;
    }
    return 0;
}

/* Appends src[0..m) to dst as text_escape_buf does (whole or not at all). */
static void put(char *dst, size_t cap, size_t *o, int *full, const char *src, size_t m)
{
    if (!*full && *o + m < cap) {
        memcpy(dst + *o, src, m);
        dst[*o + m] = '\0';
    } else {
        *full = 1;
    }
    *o += m;
}

/* Appends text[a, b) made visible. */
static void put_visible(char *dst, size_t cap, size_t *o, int *full, const char *text, size_t a,
                        size_t b)
{
    char *v = text_escape(text + a, b - a, TEXT_ESC_VISIBLE);
    char tmp[64];
    const char *src = v;
    size_t m;
    if (v) {
        m = strlen(v);
    } else {   /* out of memory: keep the length right, mark the result as cut */
        m = text_escape_buf(tmp, sizeof tmp, text + a, b - a, TEXT_ESC_VISIBLE);
        src = tmp;
        *full = 1;
    }
    put(dst, cap, o, full, src, m);
    free(v);
}

static void put_partial(char *dst, size_t cap, size_t *o, int *full, const char *text,
                        size_t cpos, tokchars_part p)
{
    char share[32];
    put_visible(dst, cap, o, full, text, cpos, cpos + p.n);
    int m = p.lo == p.hi ? snprintf(share, sizeof share, " (%u/%u)", p.lo, p.n)
                         : snprintf(share, sizeof share, " (%u-%u/%u)", p.lo, p.hi, p.n);
    put(dst, cap, o, full, share, (size_t)m);
}

size_t tokchars_display(const char *text, const tokchars_span *sp, char *dst, size_t cap)
{
    size_t o = 0;
    int full = 0;
    if (cap > 0)
        dst[0] = '\0';
    if (sp->n_chars == 0)
        return 0;
    size_t from = sp->cstart, to = sp->cend;   /* the whole characters between the partials */
    int pieces = 0;
    if (sp->head.n) {
        put_partial(dst, cap, &o, &full, text, sp->cstart, sp->head);
        from += sp->head.n;
        pieces++;
    }
    size_t tail_pos = sp->tail.n ? sp->cend - sp->tail.n : to;
    if (sp->tail.n)
        to = tail_pos;
    if (from < to) {
        if (pieces)
            put(dst, cap, &o, &full, " + ", 3);
        put_visible(dst, cap, &o, &full, text, from, to);
        pieces++;
    }
    if (sp->tail.n) {
        if (pieces)
            put(dst, cap, &o, &full, " + ", 3);
        put_partial(dst, cap, &o, &full, text, tail_pos, sp->tail);
    }
    return o;
}

char *tokchars_display_alloc(const char *text, const tokchars_span *sp)
{
    size_t need = tokchars_display(text, sp, NULL, 0);
    char *r = malloc(need + 1);
    if (r)
        tokchars_display(text, sp, r, need + 1);
    return r;
}

void tokchars_json(json_w *w, const char *text, const tokchars_span *sp)
{
    json_key(w, "offset");
    json_begin_array(w);
    json_uint(w, sp->start);
    json_uint(w, sp->end);
    json_end_array(w);
    json_key(w, "chars");
    json_str(w, text + sp->cstart, sp->cend - sp->cstart);
    json_key(w, "char_index");
    json_uint(w, sp->char_index);
    json_key(w, "char_part");
    json_begin_array(w);
    const tokchars_part *parts[2] = {&sp->head, &sp->tail};
    for (int i = 0; i < 2; i++) {
        if (!parts[i]->n)
            continue;
        json_begin_array(w);
        json_uint(w, parts[i]->lo);
        json_uint(w, parts[i]->hi);
        json_uint(w, parts[i]->n);
        json_end_array(w);
    }
    json_end_array(w);
}
