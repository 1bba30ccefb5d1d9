/* SPDX-License-Identifier: MIT */
/* jobs.c — batches, the split of one large text, and counts, on the engine (engine.h). */
#define _GNU_SOURCE /* memmem */
#include "engine.h"

#include "textpos.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ many texts at once */

/* Texts lo..hi-1 into o (IDs only), counts[i] and rc[i] each text's: texts one after another
 * in one buffer (lines of a file, say) together through tok_encode_joined, else one by one. */
static void batch_range(tok_tokenizer *t, size_t lo, size_t hi, const char *const *texts, const size_t *lens,
                        tok_special special, unsigned flags, obuf *o, size_t *counts, int *rc)
{
    size_t c = lo, nt = hi - lo;
    while (c + 1 < hi && texts[c] && texts[c] + lens[c] == texts[c + 1])
        c++;
    size_t *ends = nt > 1 && c + 1 == hi && texts[c] ? malloc(nt * sizeof *ends) : NULL;
    if (ends) {
        for (size_t k = 0, e = 0; k < nt; k++)
            ends[k] = e += lens[lo + k];
        int r = tok_encode_joined(t, texts[lo], ends, nt, special, flags, o, counts + lo, rc + lo);
        free(ends);
        if (r == 0)
            return;
    }
    for (size_t i = lo; i < hi; i++) {
        size_t before = o->n;
        rc[i] = tok_encode_append(t, texts[i], lens[i], special, flags, o, NULL);
        counts[i] = o->n - before;
    }
}

typedef struct batch_slot {
    _Alignas(TOK_LINE_PAIR) obuf o; /* (slots worked on at once by two threads share no line) */
} batch_slot;

typedef struct batch {
    const char *const *texts;
    const size_t *lens;
    tok_special special;
    unsigned flags;
    size_t total;         /* bytes of all the texts */
    size_t *counts;
    int *rc;
    size_t *lo;           /* (m + 1,) item k is texts lo[k] .. lo[k + 1] - 1 */
    obuf out;             /* the result, items appended in order */
} batch;

static int batch_take(eng_queue *q, size_t k)
{
    (void)q, (void)k; /* the items are made: item k is there */
    return 0;
}

static void batch_start(eng_queue *q, tok_tokenizer *t)
{
    const batch *b = q->job;
    tok_caches_huge(t, b->total); /* what one text of that size asks for (its texts may be short) */
}

static void batch_work(eng_queue *q, size_t k, eng_member *w)
{
    batch *b = q->job;
    obuf *o = &((batch_slot *)eng_slot(q, k))->o;
    o->n = 0;
    batch_range(w->t, b->lo[k], b->lo[k + 1], b->texts, b->lens, b->special, b->flags, o, b->counts, b->rc);
}

static int batch_hand(eng_queue *q, size_t k)
{
    batch *b = q->job;
    obuf *o = &((batch_slot *)eng_slot(q, k))->o;
    if (!o->n) /* (an item of empty texts: nothing to copy, and out may have no array yet) */
        return 0;
    if (tok_ob_grow(&b->out, o->n))
        return G2E_ENOMEM;
    memcpy(b->out.ids + b->out.n, o->ids, o->n * sizeof *o->ids);
    b->out.n += o->n;
    return 0;
}

/* The items: consecutive texts of about `size` bytes. A new array of *m + 1 starts, or NULL. */
static size_t *batch_items(size_t n, const size_t *lens, size_t size, size_t *m)
{
    size_t *lo = malloc((n + 1) * sizeof *lo), k = 0;
    if (!lo)
        return NULL;
    for (size_t i = 0; i < n;) {
        lo[k++] = i;
        for (size_t bytes = 0; i < n && (bytes == 0 || bytes + lens[i] <= size); i++)
            bytes += lens[i] ? lens[i] : 1;
    }
    lo[k] = n;
    *m = k;
    return lo;
}

/* The batch's IDs into b->out, on the queue; or in the calling thread, straight into the
 * result, for one member or a batch below 4 KB (not worth a thread). 0 or G2E_ENOMEM. */
static int batch_run(eng *e, unsigned threads, size_t n, batch *b)
{
    unsigned members = g2e_threads_for(threads, n);
    if (members < 2 || b->total < 4096) {
        tok_tokenizer *t = eng_take(e);
        if (!t)
            return G2E_ENOMEM;
        tok_caches_huge(t, b->total);
        batch_range(t, 0, n, b->texts, b->lens, b->special, b->flags, &b->out, b->counts, b->rc);
        eng_give(e, t);
        return 0;
    }
    size_t m;
    if (!(b->lo = batch_items(n, b->lens, eng_chunk(e), &m)))
        return G2E_ENOMEM;
    eng_queue q = {.slot_size = sizeof(batch_slot), .take = batch_take, .work = batch_work, .hand = batch_hand,
                   .start = batch_start, .job = b};
    int rc = eng_run(e, &q, threads, m);
    for (size_t k = 0; q.slot && k < q.nslot; k++)
        free(((batch_slot *)eng_slot(&q, k))->o.ids);
    free(q.slot);
    free(b->lo);
    return rc;
}

int eng_batch(eng *e, unsigned threads, size_t n, const char *const *texts, const size_t *lens,
              tok_special special, unsigned flags, uint32_t **ids, size_t *counts, int *rcs, size_t *bad_text,
              size_t *bad_offset, g2e_err *err)
{
    *ids = NULL;
    *bad_text = *bad_offset = SIZE_MAX;
    if (!n)
        return 0;
    batch b = {.texts = texts, .lens = lens, .special = special, .flags = flags | TOK_NO_OFFSETS,
               .counts = counts, .rc = rcs ? rcs : calloc(n, sizeof *b.rc)};
    for (size_t i = 0; i < n; i++)
        b.total += lens[i];
    int code = b.rc ? batch_run(e, threads, n, &b) : G2E_ENOMEM;
    if (code)
        code = g2e_fail(err, G2E_ENOMEM, "out of memory tokenizing %zu texts", n);
    for (size_t i = 0; !code && !rcs && i < n; i++)
        if (b.rc[i]) {
            /* the first failing text, tokenized again alone for its message and offset */
            *bad_text = i;
            tok_tokenizer *t = eng_take(e);
            obuf o = {0};
            size_t n_rep;
            code = t ? tok_encode_ob(t, texts[i], lens[i], special, flags | TOK_NO_OFFSETS, &o, &n_rep, bad_offset,
                                     err)
                     : g2e_fail(err, G2E_ENOMEM, "out of memory");
            eng_give(e, t);
            free(o.ids);
            if (!code)
                code = g2e_fail(err, b.rc[i], "text %zu could not be tokenized", i);
        }
    if (code)
        free(b.out.ids);
    else
        *ids = b.out.ids;
    if (!rcs)
        free(b.rc);
    return code;
}

/* ------------------------------------------------------------ one large text */

/* One chunk of the text: its IDs straight into the caller's output (`direct`) when member 0
 * took it and every chunk before it went there (half the IDs not copied once more at the
 * end on two threads), else appended to the buffer of the member that took it, at
 * [at, at + cnt). On lines of its own: neighbouring chunks are worked on by different
 * threads at once. */
typedef struct part {
    _Alignas(TOK_LINE_PAIR) size_t at;
    size_t cnt;
    unsigned member;
    int rc, direct;
} part;

/* A member's buffer for the chunks it takes that cannot go straight into the output: one
 * array for all of them, made for the member's share of the text when it takes its first,
 * on lines of its own (its n is written after every batch of pieces). */
typedef struct member_out {
    _Alignas(TOK_LINE_PAIR) obuf o;
} member_out;

typedef struct split {
    const tok_text *x;
    const size_t *cut;
    part *pt;
    obuf *out;          /* the caller's output: member 0's chunks in order from chunk 0 */
    size_t next_direct; /* the chunk that would go there next (member 0's only) */
    member_out *mo;     /* (G2E_THREADS_MAX,) */
    size_t share;       /* IDs a member's buffer is made for: its share of the text at 2 bytes
                         * a token (grown past that as need be) */
} split;

static void split_item(void *job, size_t k, eng_member *w)
{
    split *q = job;
    part *p = &q->pt[k];
    p->direct = w->k == 0 && k == q->next_direct;
    q->next_direct += (size_t)p->direct;
    obuf *o = p->direct ? q->out : &q->mo[w->k].o;
    p->member = w->k;
    p->at = o->n;
    if (!p->direct && !o->cap)
        (void)tok_ob_grow(o, q->share); /* only a hint: the work grows o as it needs */
    tok_caches_huge(w->t, q->x->n); /* the text's size, even when its chunks are smaller */
    p->rc = tok_encode_part(w->t, q->x, q->cut[k], q->cut[k + 1], o);
    p->cnt = o->n - p->at;
}

/* The IDs of the checked text x into o (empty) on up to `threads` members: 0 or a work code
 * (tok_encode_part's). */
static int encode_split(eng *e, unsigned threads, const tok_text *x, obuf *o)
{
    size_t m;
    size_t *cut = eng_cuts(x->s, x->n, eng_chunk(e), threads, &m);
    part *pt = cut ? aligned_alloc(_Alignof(part), m * sizeof *pt) : NULL; /* (sizeof is a multiple of it) */
    member_out *mo = aligned_alloc(_Alignof(member_out), G2E_THREADS_MAX * sizeof *mo);
    unsigned members = g2e_threads_for(threads, m);
    split q = {.x = x, .cut = cut, .pt = pt, .out = o, .mo = mo, .share = x->n / members / 2 + 16};
    unsigned ran = 0;
    if (pt && mo) {
        memset(pt, 0, m * sizeof *pt);
        for (unsigned k = 0; k < G2E_THREADS_MAX; k++)
            mo[k] = (member_out){.o = {.keep_off = o->keep_off}};
        ran = eng_each(e, threads, m, &q, split_item);
    }
    int rc = ran ? 0 : G2E_ENOMEM;
    for (size_t k = 0; !rc && k < m; k++) {
        const part *p = &pt[k];
        if ((rc = p->rc) || p->direct || !p->cnt || (rc = tok_ob_grow(o, p->cnt)))
            continue;
        const obuf *from = &mo[p->member].o;
        memcpy(o->ids + o->n, from->ids + p->at, p->cnt * sizeof *o->ids);
        if (o->keep_off)
            memcpy(o->off + o->n, from->off + p->at, p->cnt * sizeof *o->off);
        o->n += p->cnt;
    }
    for (unsigned k = 0; mo && k < ran; k++) {
        free(mo[k].o.ids);
        free(mo[k].o.off);
    }
    free(mo);
    free(pt);
    free(cut);
    return rc;
}

int eng_encode(eng *e, unsigned threads, const char *text, size_t len, tok_special special, unsigned flags,
               tok_ids *out, size_t *bad_offset, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    tok_tokenizer *t = eng_take(e);
    if (!t)
        return g2e_fail(err, G2E_ENOMEM, "out of memory");
    tok_text x;
    int rc = tok_text_begin(t, text, len, special, flags, &x, bad_offset, err);
    if (rc) {
        eng_give(e, t);
        return rc;
    }
    obuf o = {.keep_off = !(flags & TOK_NO_OFFSETS)};
    int work = tok_ob_room_for_text(&o, x.n);
    if (!work && (g2e_threads_for(threads, SIZE_MAX) < 2 || x.n / eng_chunk(e) < ENG_SPLIT_CHUNKS))
        work = tok_encode_part(t, &x, 0, x.n, &o);
    else if (!work) {
        eng_give(e, t); /* (member 0 takes it back) */
        t = NULL;
        work = encode_split(e, threads, &x, &o);
    }
    eng_give(e, t);
    if (!work && o.keep_off)
        work = tok_ob_grow(&o, 1); /* offsets has n + 1 entries */
    if (work) {
        rc = tok_work_fail(err, work, len);
        free(o.ids);
        free(o.off);
        tok_text_end(&x, NULL, 0);
        return rc;
    }
    tok_text_end(&x, &o, 0);
    if (o.keep_off)
        o.off[o.n] = len;
    *out = (tok_ids){.ids = o.ids, .offsets = o.off, .n = o.n, .n_replaced = x.n_rep};
    return 0;
}

/* ------------------------------------------------------------ counts */

/* A count needs no order: each member counts a stretch of chunks of its own (its caches
 * learn the pieces of one part of the text). Each chunk's tokens and characters go into
 * arrays; the byte where the ctx-th token ends is then found from their sums, in the one
 * chunk it falls in, tokenized again. */
typedef struct counting {
    const char *s;
    const size_t *cut;
    size_t m;
    size_t *tokens, *chars; /* (m,) each chunk's */
    text_words *words;      /* (m,) each chunk's, joined in order after; NULL: not asked for */
    atomic_int failed;      /* a chunk failed: the members stop */
} counting;

static void count_item(void *job, size_t k, eng_member *w)
{
    counting *c = job;
    if (atomic_load(&c->failed))
        return;
    tok_caches_huge(w->t, c->cut[c->m]); /* the whole text's size (chunks are smaller) */
    size_t len = c->cut[k + 1] - c->cut[k];
    w->ids.n = 0;
    int rc = tok_ob_grow(&w->ids, eng_chunk_ids_room(len));
    rc = rc ? rc : tok_encode_append(w->t, c->s + c->cut[k], len, TOK_SPECIAL_TOKEN, 0, &w->ids, NULL);
    if (rc) {
        atomic_store(&c->failed, 1);
        return;
    }
    c->tokens[k] = w->ids.n;
    c->chars[k] = textpos_chars_valid(c->s + c->cut[k], len); /* (checked by the tokenizer) */
    if (c->words)
        text_words_count(c->s + c->cut[k], len, &c->words[k]);
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

/* Counts text[0..len) into r: 0, 1 when a chunk failed (the caller takes the whole text for
 * the message), or G2E_ENOMEM. */
static int count_chunks(eng *e, unsigned threads, const char *text, size_t len, size_t ctx, int words,
                        eng_counts *r)
{
    counting c = {.s = text};
    size_t *cut = eng_cuts(text, len, eng_chunk(e), g2e_threads_for(threads, SIZE_MAX), &c.m);
    if (!cut)
        return G2E_ENOMEM;
    c.cut = cut;
    c.tokens = malloc(c.m * sizeof *c.tokens);
    c.chars = malloc(c.m * sizeof *c.chars);
    c.words = words ? malloc(c.m * sizeof *c.words) : NULL;
    atomic_init(&c.failed, 0);
    int rc = c.tokens && c.chars && (c.words || !words) && eng_each(e, threads, c.m, &c, count_item) ? 0 : G2E_ENOMEM;
    rc = rc ? rc : atomic_load(&c.failed) ? 1 : 0;
    tok_tokenizer *t = rc ? NULL : eng_take(e);
    for (size_t k = 0; !rc && k < c.m; k++) {
        if (r->tokens <= ctx && r->tokens + c.tokens[k] > ctx) { /* the ctx-th token ends in chunk k */
            obuf o = {0};
            rc = t ? tok_encode_append(t, text + cut[k], cut[k + 1] - cut[k], TOK_SPECIAL_TOKEN, 0, &o, NULL)
                   : G2E_ENOMEM;
            r->cut = rc ? 0 : cut[k] + piece_bytes(t, o.ids, ctx - r->tokens);
            free(o.ids);
            rc = rc == G2E_ENOMEM ? rc : rc ? 1 : 0;
        }
        r->tokens += c.tokens[k];
        r->chars += c.chars[k];
        if (words)
            text_words_join(&r->words, &c.words[k]);
    }
    eng_give(e, t);
    free(c.tokens);
    free(c.chars);
    free(c.words);
    free(cut);
    return rc;
}

int eng_count(eng *e, unsigned threads, const char *text, size_t len, size_t ctx, int words, eng_counts *r,
              g2e_err *err)
{
    memset(r, 0, sizeof *r);
    int rc = len && text ? count_chunks(e, threads, text, len, ctx, words, r) : 0;
    if (rc != 1)
        return rc ? g2e_fail(err, rc, "out of memory counting %llu bytes", (unsigned long long)len) : 0;
    /* a chunk failed: tok_encode on the whole text gives the message (or runs out of memory) */
    memset(r, 0, sizeof *r);
    tok_tokenizer *t = eng_take(e);
    if (!t)
        return g2e_fail(err, G2E_ENOMEM, "out of memory");
    tok_ids ids;
    rc = tok_encode(t, text, len, TOK_SPECIAL_TOKEN, TOK_NO_OFFSETS, &ids, NULL, err);
    if (!rc) {
        r->tokens = ids.n;
        r->chars = textpos_chars_valid(text, len); /* tok_encode has just checked the UTF-8 */
        if (words)
            text_words_count(text, len, &r->words);
        r->cut = ids.n > ctx ? piece_bytes(t, ids.ids, ctx) : 0;
        tok_ids_free(&ids);
    }
    eng_give(e, t);
    return rc;
}
