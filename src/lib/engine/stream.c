/* SPDX-License-Identifier: MIT */
/* stream.c — a text of any length read as it comes, in documents, on the queue (engine.h). */
#define _GNU_SOURCE /* memmem */
#include "engine.h"

#include "bytebuf.h"
#include "text.h"
#include "tok_pretok.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One chunk in flight: its text (copied out of the reader's buffer), where it lies in the
 * input, its IDs and where documents start among them. */
typedef struct tchunk {
    _Alignas(TOK_LINE_PAIR) bytebuf in;
    uint64_t base;        /* the offset of in.p[0] in the input */
    int first, last;      /* the input's first / last chunk */
    obuf ids;
    size_t *starts, n_starts, cap_starts;
    uint64_t lits;        /* special TOK_SPECIAL_TEXT: <|endoftext|> read as text in its documents */
    int rc;
    uint64_t bad;         /* TOK_E_UTF8, TOK_E_SPECIAL: the byte in the input */
    char msg[G2E_ERR_MSG_MAX];
} tchunk;

typedef struct trun {
    eng_text *o;
    size_t size;          /* bytes per chunk, about */
    size_t input_size;    /* the first take's, or SIZE_MAX when the input goes on */
    eng_reader in;
    size_t scanned;       /* no cut before buf[off + scanned] (a long stretch read on) */
    uint64_t pos;         /* input offset of buf[off] */
    int rc;               /* a read's failure, ENG_E_LONG or G2E_ENOMEM, for after the chunks before it */
} trun;

/* Reads more (eng_reader_more): 0, or 1 with r->rc set. */
static int tr_read(trun *r)
{
    int rc = eng_reader_more(&r->in, ENG_MAX_RUN);
    r->o->sys_errno = r->in.sys_errno;
    return rc ? (r->rc = rc, 1) : 0;
}

/* 1 if an occurrence of the separator straddles s[c] (starts before c, ends after it). */
static int sep_straddles(const eng_text *o, const char *s, size_t n, size_t c)
{
    size_t L = o->sep_len, a = c >= L - 1 ? c - (L - 1) : 0, e = c + L - 1 < n ? c + L - 1 : n;
    for (const char *p = s + a; e - (size_t)(p - s) >= L && (p = memmem(p, e - (size_t)(p - s), o->sep, L)); p++)
        if ((size_t)(p - s) < c)
            return 1;
    return 0;
}

/* Where the chunk at s[0..n) ends: a safe cut from r->size on that no separator straddles,
 * with room after it to see; n at the end of the input; 0 when more must be read. */
static size_t tr_cut(trun *r, const char *s, size_t n)
{
    size_t look = r->o->sep_len + 4;
    if (n < r->size + look)
        return r->in.eof ? n : 0;
    size_t lim = n - look, c = r->scanned > r->size ? r->scanned : r->size;
    while ((c = tok_pretok_cut((const uint8_t *)s, lim, c)) < lim && r->o->sep_len && sep_straddles(r->o, s, n, c))
        c++;
    if (c >= lim && !r->in.eof)
        r->scanned = lim; /* (searched again from there once more is read: no quadratic rescans) */
    return c < lim ? c : r->in.eof ? n : 0;
}

/* Makes chunk k: reads until a cut is found (or the input ends), copies it into its slot.
 * 0, or 1 at the end of the input or on an error (r->rc). */
static int tr_take(eng_queue *q, size_t k)
{
    trun *r = q->job;
    tchunk *c = eng_slot(q, k);
    for (;;) {
        const char *s = r->in.buf + r->in.off;
        size_t n = r->in.have - r->in.off, end = r->rc ? 0 : tr_cut(r, s, n);
        if (!end && !r->in.eof && !r->rc) {
            if (tr_read(r))
                return 1;
            continue;
        }
        if (!end)
            return 1;
        if (k == 0) /* the input's size as far as the first take tells */
            r->input_size = r->in.eof ? end : SIZE_MAX;
        c->in.n = 0;
        bb_put(&c->in, s, end);
        if (c->in.oom)
            return r->rc = G2E_ENOMEM, 1;
        c->base = r->pos;
        c->first = k == 0;
        c->last = end == n && r->in.eof;
        r->in.off += end;
        r->pos += end;
        r->scanned = 0;
        return 0;
    }
}

/* A document starts before the chunk's next ID. 0, or -1 when out of memory. */
static int tc_start(tchunk *c)
{
    return eng_push_start(&c->starts, &c->n_starts, &c->cap_starts, 64, c->ids.n);
}

/* Tokenizes s[a..b) of the chunk; an error's message and byte with its offset in the input. */
static int tc_piece(tchunk *c, tok_tokenizer *t, const eng_text *o, size_t a, size_t b)
{
    g2e_err err;
    int rc = tok_encode_append(t, c->in.p + a, b - a, o->special, o->flags | TOK_NO_OFFSETS, &c->ids, &err);
    if (!rc && o->special == TOK_SPECIAL_TEXT) /* (a chunk's cuts never split one: it holds no space) */
        c->lits += text_occurrences(c->in.p + a, b - a, TOK_ENDOFTEXT_TEXT, sizeof TOK_ENDOFTEXT_TEXT - 1);
    if (rc == TOK_E_UTF8) {
        size_t bad = a + tok_utf8_check(c->in.p + a, b - a);
        c->bad = c->base + bad;
        g2e_fail(&err, rc, "invalid UTF-8 at byte offset %zu (byte 0x%02X)", (size_t)c->bad,
                 (unsigned)(uint8_t)c->in.p[bad]);
    } else if (rc == TOK_E_SPECIAL && o->special == TOK_SPECIAL_ERROR) {
        const char *hit = memmem(c->in.p + a, b - a, TOK_ENDOFTEXT_TEXT, sizeof TOK_ENDOFTEXT_TEXT - 1);
        c->bad = c->base + (uint64_t)(hit - c->in.p);
        g2e_fail(&err, rc, "the special token %s at byte offset %zu is not allowed here", TOK_ENDOFTEXT_TEXT,
                 (size_t)c->bad);
    }
    if (rc)
        snprintf(c->msg, sizeof c->msg, "%s", err.msg);
    return rc;
}

static void tr_work(eng_queue *q, size_t k, eng_member *w)
{
    trun *r = q->job;
    tchunk *c = eng_slot(q, k);
    const eng_text *o = r->o;
    tok_caches_huge(w->t, r->input_size);
    size_t n = c->in.n, at = 0;
    c->ids.n = c->n_starts = 0;
    c->lits = 0;
    c->rc = tok_ob_grow(&c->ids, eng_chunk_ids_room(n));
    if (!c->rc && c->first && tc_start(c))
        c->rc = G2E_ENOMEM;
    const char *hit;
    while (!c->rc && o->sep_len && (hit = memmem(c->in.p + at, n - at, o->sep, o->sep_len))) {
        size_t p = (size_t)(hit - c->in.p);
        if ((c->rc = tc_piece(c, w->t, o, at, p)))
            break;
        at = p + o->sep_len;
        if (!(c->last && at == n) && tc_start(c)) /* (a separator that ends the input starts nothing) */
            c->rc = G2E_ENOMEM;
    }
    if (!c->rc)
        c->rc = tc_piece(c, w->t, o, at, n);
}

static int tr_hand(eng_queue *q, size_t k)
{
    trun *r = q->job;
    tchunk *c = eng_slot(q, k);
    eng_text *o = r->o;
    if (c->rc) {
        if (c->rc != G2E_ENOMEM)
            memcpy(o->msg, c->msg, sizeof o->msg);
        if (c->rc == TOK_E_UTF8 || c->rc == TOK_E_SPECIAL)
            o->bad_offset = c->bad;
        return c->rc;
    }
    if (o->text)
        o->text(o->user, c->in.p, c->in.n);
    if (o->put(o->user, c->ids.ids, c->ids.n, c->starts, c->n_starts))
        return ENG_STOPPED;
    o->bytes += c->in.n;
    o->tokens += c->ids.n;
    o->docs += c->n_starts;
    o->eot_text += c->lits;
    if (o->progress)
        o->progress(o->progress_user, o->bytes, o->tokens);
    return 0;
}

int eng_stream(eng *e, unsigned threads, eng_text *o)
{
    o->bytes = o->tokens = o->docs = o->eot_text = 0;
    o->bad_offset = UINT64_MAX;
    o->sys_errno = 0;
    o->msg[0] = '\0';
    if (o->lines)
        o->sep = "\n", o->sep_len = 1;
    trun r = {.o = o, .size = eng_chunk(e), .in = {.read = o->read, .user = o->read_user, .cap = (size_t)1 << 18}};
    r.in.buf = malloc(r.in.cap);
    if (r.in.buf && !tr_read(&r) && r.in.eof && r.in.have < 2 * r.size)
        threads = 1; /* all of it at once, and small: no thread to start */
    eng_queue q = {.slot_size = sizeof(tchunk), .take = tr_take, .work = tr_work, .hand = tr_hand, .job = &r};
    int rc = !r.in.buf ? G2E_ENOMEM : r.rc && r.rc != ENG_E_READ && r.rc != ENG_CANCELED ? r.rc
                                                                                         : eng_run(e, &q, threads, SIZE_MAX);
    rc = rc ? rc : r.rc;
    g2e_err err;
    if (rc == ENG_E_READ)
        g2e_fail(&err, rc, "cannot read the input: %s", strerror(o->sys_errno));
    else if (rc == ENG_CANCELED)
        g2e_fail(&err, rc, "the read callback cancelled the stream");
    else if (rc == ENG_E_LONG)
        g2e_fail(&err, rc, "more than 64 MiB without a place to cut (a whitespace character after a "
                 "non-whitespace one)"); /* (ENG_MAX_RUN) */
    else if (rc == ENG_STOPPED)
        g2e_fail(&err, rc, "stopped by the caller");
    if (rc == ENG_E_READ || rc == ENG_CANCELED || rc == ENG_E_LONG || rc == ENG_STOPPED)
        memcpy(o->msg, err.msg, sizeof o->msg);
    size_t zero = 0;
    if (!rc && !o->bytes && !o->lines) { /* an empty input: one empty document */
        o->docs = 1;
        rc = o->put(o->user, NULL, 0, &zero, 1) ? ENG_STOPPED : 0;
    }
    for (size_t k = 0; q.slot && k < q.nslot; k++) {
        tchunk *c = eng_slot(&q, k);
        bb_free(&c->in);
        free(c->ids.ids);
        free(c->starts);
    }
    free(q.slot);
    free(r.in.buf);
    return rc;
}
