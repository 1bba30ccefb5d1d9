/* SPDX-License-Identifier: MIT */
/* tok_stream.c — chunks, counts over threads, texts in documents (see tok_stream.h). */
#define _GNU_SOURCE /* memmem */
#include "tok_stream.h"
#include "bytebuf.h"
#include "regions.h"
#include "textpos.h"
#include "tok_internal.h"
#include "tok_pretok.h"
#include "tok_run.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------ texts over threads */

/* A text is cut (tok_pretok_cut) into chunks of about CHUNK bytes, which the threads take
 * in turn (tok_run.h's queue); each chunk is tokenized (into the thread's own IDs when it
 * becomes text at once, else its slot's) and, in the same thread, turned into its slot's
 * output (the program's IDs as text: src/cli/io/tokwrite.c); the chunks are
 * then handed on in order (written, or added up) by whichever thread finishes the oldest
 * one. A slot is reused once its chunk is handed on, so memory stays that of
 * TOK_RUN_SLOTS chunks per thread whatever the text's length, and nothing is freed or
 * mapped while the threads run (no page faults, no TLB shootdowns between the threads in
 * the steady state; a slot no later chunk uses is freed as it retires). Small chunks taken
 * in turn also keep the threads equally busy: the corpus mixes English with Japanese and
 * Chinese, three times slower per byte. 64 KB rather than 128 KB: a slot's touched memory
 * (IDs, their text) halves with it, 8 slots on 2 threads took 1,929 page faults in all
 * against 1,565 (4 ms less system time on the corpus), and a chunk's IDs and text (~240 KB)
 * stay in L2 beside the tokenizer's tables (cachegrind's misses of a 1 MB L2, one thread:
 * 1.90 M -> 1.46 M); one thread takes the same time (41 alternating runs: 0.99 [0.92-1.12]
 * of 128 KB's). */
#define CHUNK TOKS_CHUNK
#define CHUNK_LAST TOKS_CHUNK_LAST
#define CHUNK_BIG TOKS_CHUNK_BIG

/* ---- a text in chunks ---- */

/* IDs room for a chunk of len bytes, reserved once: one a byte (a token has at least one
 * byte), or past CHUNK_BIG the usual guess, grown as needed instead of 4 bytes a byte. */
size_t toks_chunk_ids_room(size_t len)
{
    return len > CHUNK_BIG ? len / 4 + 16 : len + 1;
}

/* The size of the next chunk when `left` bytes are left: `size`, or on several threads a
 * quarter of what is left per thread once that is less, but no less than CHUNK_LAST (or
 * size, when smaller): the threads' last chunks then end closer together. */
static size_t taper(size_t size, size_t left, unsigned threads)
{
    size_t q = threads > 1 ? left / (4 * (size_t)threads) : size;
    return q >= size ? size : q > CHUNK_LAST ? q : size < CHUNK_LAST ? size : CHUNK_LAST;
}

/* The cuts of s[0..n) into chunks of about CHUNK bytes (t's split size when smaller: tests
 * cut small texts; smaller towards the end on several threads, taper): a new array of
 * *m + 1 offsets, chunk k being [cut[k], cut[k + 1]), or NULL (out of memory). The cuts are
 * searched in s[0..n-3) so that a lead byte of invalid input before a candidate is never
 * decoded past the end; whether the chunks are valid is then the tokenizer's check (valid
 * chunks concatenate to a valid text and back). */
size_t *toks_chunk_cuts(const tok_tokenizer *t, const char *s, size_t n, unsigned threads, size_t *m_out)
{
    size_t size = t->split_min < CHUNK ? t->split_min : CHUNK;
    size = size < 8 ? 8 : size;
    size_t most = n / (size < CHUNK_LAST ? size : CHUNK_LAST) + 2, m = 0, lim = n - 3; /* (no chunk is smaller) */
    size_t *cut = malloc(most * sizeof *cut);
    if (!cut)
        return NULL;
    cut[0] = 0;
    for (size_t from = size; n >= 8 && from < lim; from = cut[m] + taper(size, n - cut[m], threads)) {
        size_t c = tok_pretok_cut((const uint8_t *)s, lim, from);
        if (c >= lim)
            break;
        cut[++m] = c;
    }
    cut[++m] = n;
    *m_out = m;
    return cut;
}

static const char *find_special(const char *s, size_t n)
{
    return memmem(s, n, TOK_ENDOFTEXT_TEXT, sizeof TOK_ENDOFTEXT_TEXT - 1);
}


/* Bytes of the first n tokens of ids (strict input: the tokens' bytes are the text's). */
static size_t piece_bytes(const tok_tokenizer *t, const uint32_t *ids, size_t n)
{
    size_t b = 0;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *p;
        size_t l;
        tok_piece(t, ids[i], &p, &l, NULL);
        b += l;
    }
    return b;
}

/* ---- counting: a stretch of chunks for each thread ----
 *
 * A count needs no order, so the chunks are not taken in turn but in regions (regions.h):
 * each thread counts a stretch of its own and then takes chunks from the back of the
 * others', so its cache learns the pieces of one part of the text rather than of all of it
 * (2 threads, the corpus, 41 alternating runs: CPU 0.906 [0.859-0.953], wall 0.915 of the
 * chunks taken in turn). Each chunk's tokens and characters go into arrays; the byte where
 * the ctx-th token ends is then found from their sums, in the one chunk it falls in,
 * tokenized again. */
typedef struct counting {
    const char *s;
    const size_t *cut;
    size_t m;
    regions rs;
    size_t *tokens, *chars; /* (m,) each chunk's */
    atomic_int failed;      /* a chunk failed: the threads stop */
} counting;

static void *count_loop(void *arg)
{
    tok_crew *w = arg;
    counting *c = w->job;
    tok_caches_huge(w->t, c->cut[c->m]); /* the whole text's size (chunks are smaller) */
    for (size_t k; !atomic_load(&c->failed) && regions_next(&c->rs, w->k, &k);) {
        size_t len = c->cut[k + 1] - c->cut[k];
        w->ids.n = 0;
        int rc = tok_ob_grow(&w->ids, toks_chunk_ids_room(len));
        rc = rc ? rc : tok_encode_append(w->t, c->s + c->cut[k], len, TOK_SPECIAL_TOKEN, 0, &w->ids, NULL);
        if (rc) {
            atomic_store(&c->failed, 1);
            break;
        }
        c->tokens[k] = w->ids.n;
        c->chars[k] = textpos_chars_valid(c->s + c->cut[k], len); /* (checked by the tokenizer) */
    }
    return NULL;
}

/* Counts text[0..len) over t's threads into r: 0, 1 when a chunk failed (the caller takes
 * the whole text for the message; also for 2^32 chunks or more, which a region's word
 * cannot hold: a text of 32 GiB), or G2E_ENOMEM. */
static int count_chunks(tok_tokenizer *t, const char *text, size_t len, size_t ctx, toks_counts *r)
{
    unsigned threads = t->threads ? t->threads : 1;
    counting c = {.s = text};
    size_t *cut = toks_chunk_cuts(t, text, len, threads, &c.m);
    if (!cut)
        return G2E_ENOMEM;
    c.cut = cut;
    threads = threads > c.m ? (unsigned)c.m : threads;
    if (c.m > REGIONS_MAX_ITEMS) {
        free(cut);
        return 1;
    }
    c.tokens = malloc(c.m * sizeof *c.tokens);
    c.chars = malloc(c.m * sizeof *c.chars);
    int rc = c.tokens && c.chars && !regions_init(&c.rs, c.m, threads) ? 0 : G2E_ENOMEM;
    atomic_init(&c.failed, 0);
    if (!rc)
        tok_crew_run_on(t, threads, &c, count_loop);
    rc = rc ? rc : atomic_load(&c.failed) ? 1 : 0;
    for (size_t k = 0; !rc && k < c.m; k++) {
        if (r->tokens <= ctx && r->tokens + c.tokens[k] > ctx) { /* the ctx-th token ends in chunk k */
            obuf o = {0};
            rc = tok_encode_append(t, text + cut[k], cut[k + 1] - cut[k], TOK_SPECIAL_TOKEN, 0, &o, NULL);
            r->cut = rc ? 0 : cut[k] + piece_bytes(t, o.ids, ctx - r->tokens);
            free(o.ids);
            rc = rc == G2E_ENOMEM ? rc : rc ? 1 : 0;
        }
        r->tokens += c.tokens[k];
        r->chars += c.chars[k];
    }
    regions_free(&c.rs);
    free(c.tokens);
    free(c.chars);
    free(cut);
    return rc;
}

int toks_count(tok_tokenizer *t, const char *text, size_t len, size_t ctx, toks_counts *r, g2e_err *err)
{
    memset(r, 0, sizeof *r);
    if (!len || (text && !count_chunks(t, text, len, ctx, r)))
        return 0;
    /* a chunk failed: tok_encode on the whole text gives the message (or runs out of memory) */
    memset(r, 0, sizeof *r);
    tok_ids ids;
    int rc = tok_encode(t, text, len, TOK_SPECIAL_TOKEN, TOK_NO_OFFSETS, &ids, NULL, err);
    if (rc)
        return rc;
    r->tokens = ids.n;
    r->chars = textpos_chars_valid(text, len); /* tok_encode has just checked the UTF-8 */
    r->cut = ids.n > ctx ? piece_bytes(t, ids.ids, ctx) : 0;
    tok_ids_free(&ids);
    return 0;
}

/* ------------------------------------------------------------ plain text in documents */

/* One chunk in flight: its text (copied out of the reader's buffer), where it lies in the
 * input, its IDs and where documents start among them. */
typedef struct tchunk {
    _Alignas(TOK_LINE_PAIR) bytebuf in;
    uint64_t base;        /* the offset of in.p[0] in the input */
    int first, last;      /* the input's first / last chunk */
    obuf ids;
    size_t *starts, n_starts, cap_starts;
    int rc;
    char msg[G2E_ERR_MSG_MAX];
} tchunk;

typedef struct trun {
    tok_queue q;              /* (first: a tok_queue * is a trun *) */
    toks_text *o;
    tchunk *slot;         /* (q.nslot,) */
    size_t size;          /* bytes per chunk, about */
    size_t input_size;    /* the first take's, or SIZE_MAX when the input goes on */
    tok_reader in;
    size_t scanned;       /* no cut before buf[off + scanned] (a long stretch read on) */
    uint64_t pos;         /* input offset of buf[off] */
    int rc;               /* TOKS_E_READ, TOKS_E_LONG or G2E_ENOMEM, for after the chunks before it */
} trun;

int tok_reader_more(tok_reader *r, size_t max)
{
    if (r->off) {
        memmove(r->buf, r->buf + r->off, r->have - r->off);
        r->have -= r->off;
        r->off = 0;
    }
    if (r->have == r->cap) { /* full: what is held has no place to cut, or no line end */
        if (r->cap >= max)
            return TOK_READER_FULL;
        size_t cap = r->cap > max / 2 ? max : r->cap * 2;
        char *nb = realloc(r->buf, cap);
        if (!nb)
            return G2E_ENOMEM;
        r->buf = nb, r->cap = cap;
    }
    size_t want = r->cap - r->have;
    ssize_t k;
    if (r->in_memory) {
        k = (ssize_t)(want < r->mem_left ? want : r->mem_left);
        memcpy(r->buf + r->have, r->mem, (size_t)k);
        r->mem += k, r->mem_left -= (size_t)k;
    } else {
        do
            k = read(r->fd, r->buf + r->have, want);
        while (k < 0 && errno == EINTR);
    }
    if (k < 0) {
        r->sys_errno = errno;
        return TOKS_E_READ;
    }
    r->eof = k == 0;
    r->have += (size_t)k;
    return 0;
}

/* Reads more (tok_reader_more): 0, or 1 with r->rc set. */
static int tr_read(trun *r)
{
    int rc = tok_reader_more(&r->in, TOKS_TEXT_MAX_RUN);
    if (rc == TOKS_E_READ)
        r->o->sys_errno = r->in.sys_errno;
    return rc ? (r->rc = rc == TOK_READER_FULL ? TOKS_E_LONG : rc, 1) : 0;
}

/* 1 if an occurrence of the separator straddles s[c] (starts before c, ends after it). */
static int sep_straddles(const toks_text *o, const char *s, size_t n, size_t c)
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
static int tr_take(tok_queue *q, size_t k)
{
    trun *r = (trun *)q;
    tchunk *c = &r->slot[k % q->nslot];
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
    return toks_push_start(&c->starts, &c->n_starts, &c->cap_starts, 64, c->ids.n);
}

/* Tokenizes s[a..b) of the chunk; an error's message with its offset in the input. */
static int tc_piece(tchunk *c, tok_tokenizer *t, const toks_text *o, size_t a, size_t b)
{
    g2e_err err;
    int rc = tok_encode_append(t, c->in.p + a, b - a, o->special, TOK_NO_OFFSETS, &c->ids, &err);
    if (rc == TOK_E_UTF8) {
        size_t bad = a + tok_utf8_check(c->in.p + a, b - a);
        g2e_fail(&err, rc, "invalid UTF-8 at byte offset %zu (byte 0x%02X)", (size_t)c->base + bad,
                 (unsigned)(uint8_t)c->in.p[bad]);
    } else if (rc == TOK_E_SPECIAL && o->special == TOK_SPECIAL_ERROR) {
        const char *hit = find_special(c->in.p + a, b - a);
        g2e_fail(&err, rc, "the special token %s at byte offset %zu is not allowed here", TOK_ENDOFTEXT_TEXT,
                 (size_t)c->base + (size_t)(hit - c->in.p));
    }
    if (rc)
        snprintf(c->msg, sizeof c->msg, "%s", err.msg);
    return rc;
}

static void tr_work(tok_queue *q, size_t k, tok_crew *w)
{
    trun *r = (trun *)q;
    tchunk *c = &r->slot[k % q->nslot];
    const toks_text *o = r->o;
    tok_caches_huge(w->t, r->input_size);
    size_t n = c->in.n, at = 0;
    c->ids.n = c->n_starts = 0;
    c->rc = tok_ob_grow(&c->ids, toks_chunk_ids_room(n));
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

static int tr_hand(tok_queue *q, size_t k)
{
    trun *r = (trun *)q;
    tchunk *c = &r->slot[k % q->nslot];
    toks_text *o = r->o;
    if (c->rc) {
        if (c->rc != G2E_ENOMEM)
            memcpy(o->msg, c->msg, sizeof o->msg);
        return c->rc;
    }
    if (o->text)
        o->text(o->user, c->in.p, c->in.n);
    if (o->put(o->user, c->ids.ids, c->ids.n, c->starts, c->n_starts))
        return TOKS_E_PUT;
    o->bytes += c->in.n;
    o->tokens += c->ids.n;
    o->docs += c->n_starts;
    if (o->progress)
        o->progress(o->progress_user, o->bytes, o->tokens);
    return 0;
}

int toks_text_run(tok_tokenizer *t, int fd, toks_text *o)
{
    o->bytes = o->tokens = o->docs = 0;
    o->sys_errno = 0;
    o->msg[0] = '\0';
    if (o->lines)
        o->sep = "\n", o->sep_len = 1;
    unsigned threads = tok_threads(t);
    threads = threads ? threads : 1;
    trun r = {.o = o,
              .in = {.fd = fd, .in_memory = fd < 0, .mem = o->mem, .mem_left = fd < 0 ? o->mem_len : 0,
                     .cap = (size_t)1 << 18}};
    r.size = t->split_min < CHUNK ? t->split_min : CHUNK;
    r.size = r.size < 8 ? 8 : r.size;
    r.in.buf = malloc(r.in.cap);
    if (r.in.buf && !tr_read(&r) && r.in.eof && r.in.have < 2 * r.size)
        threads = 1; /* all of it at once, and small: no thread to start */
    r.q = (tok_queue){.nslot = threads > 1 ? threads * TOK_RUN_SLOTS : 1, .take = tr_take, .work = tr_work,
                  .hand = tr_hand};
    r.slot = aligned_alloc(TOK_LINE_PAIR, r.q.nslot * sizeof *r.slot); /* (sizeof is a multiple of it) */
    if (r.slot)
        memset(r.slot, 0, r.q.nslot * sizeof *r.slot);
    int rc = !r.in.buf || !r.slot ? G2E_ENOMEM : r.rc ? r.rc : tok_queue_run_on(&r.q, t, threads, SIZE_MAX);
    rc = rc ? rc : r.rc;
    size_t zero = 0;
    if (!rc && !o->bytes && !o->lines) { /* an empty input: one empty document */
        o->docs = 1;
        rc = o->put(o->user, NULL, 0, &zero, 1) ? TOKS_E_PUT : 0;
    }
    for (size_t k = 0; r.slot && k < r.q.nslot; k++) {
        bb_free(&r.slot[k].in);
        free(r.slot[k].ids.ids);
        free(r.slot[k].starts);
    }
    free(r.slot);
    free(r.in.buf);
    return rc;
}
