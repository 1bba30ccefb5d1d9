/* SPDX-License-Identifier: MIT */
/* tokcount.c — a text against a context (see tokcount.h). */
#include "tokcount.h"
#include "embed.h"
#include "bytebuf.h"

#include <errno.h>

#include <stdlib.h>
#include <string.h>

/* Where the cut at byte b lies: textpos counts a character the offset splits as one before
 * it, and gives the column after it; step back to name that character itself. */
static void fill_cut(tokcount *r, const char *text, size_t len, size_t b)
{
    textpos p;
    textpos_at(text, len, b, &p);
    r->cut_byte = b;
    r->inside = b < len && ((unsigned char)text[b] & 0xC0) == 0x80; /* a continuation byte */
    r->cut_chars = r->inside ? p.chr - 1 : p.chr;
    r->line = p.line;
    r->col = r->inside ? p.col - 1 : p.col;
    memcpy(r->snippet, p.snippet, sizeof r->snippet);
}

/* The slow path: offsets (lossy: they refer to the input, not the repaired copy; per char). */
static int count_offsets(eng *e, unsigned threads, const char *text, size_t len, size_t ctx, unsigned flags,
                         tokcount *r, g2e_err *err)
{
    tok_ids ids;
    tok_special sp = flags & TOKCOUNT_SPECIAL_TEXT    ? TOK_SPECIAL_TEXT
                     : flags & TOKCOUNT_SPECIAL_ERROR ? TOK_SPECIAL_ERROR
                                                      : TOK_SPECIAL_TOKEN;
    int rc = eng_encode(e, threads, text, len, sp, flags & TOKCOUNT_LOSSY ? TOK_LOSSY : 0, &ids, &r->bad_offset, err);
    if (rc)
        return rc;
    r->chars = flags & TOKCOUNT_LOSSY ? textpos_chars(text, len) : textpos_chars_valid(text, len);
    if (flags & TOKCOUNT_WORDS)
        text_words_count(text, len, &r->words);
    r->tokens = ids.n;
    r->replaced = ids.n_replaced;
    if (flags & TOKCOUNT_PER_CHAR)
        rc = charcost_compute(text, len, ids.offsets, ids.n, &r->cc, &r->n_cc, err);
    r->cut_byte = ids.n > ctx ? ids.offsets[ctx] : 0;
    tok_ids_free(&ids);
    return rc;
}

int tokcount_text(eng *e, unsigned threads, const char *text, size_t len, size_t ctx, unsigned flags, tokcount *r,
                  g2e_err *err)
{
    memset(r, 0, sizeof *r);
    r->bad_offset = SIZE_MAX;
    eng_counts c;
    int rc;
    if (flags & (TOKCOUNT_LOSSY | TOKCOUNT_PER_CHAR | TOKCOUNT_SPECIAL_TEXT | TOKCOUNT_SPECIAL_ERROR)) {
        rc = count_offsets(e, threads, text, len, ctx, flags, r, err);
    } else if (!(rc = eng_count(e, threads, text, len, ctx, !!(flags & TOKCOUNT_WORDS), &c, err))) {
        r->tokens = c.tokens, r->chars = c.chars, r->cut_byte = c.cut, r->words = c.words;
    } else if (rc == TOK_E_UTF8) { /* the threads' count gives no offset: tok_encode finds it */
        count_offsets(e, 1, text, len, ctx, flags, r, err);
    }
    r->bytes = len;
    r->fits = r->tokens <= ctx;
    if (!rc)
        rc = embed_windows(r->tokens, ctx, ctx, &r->windows, err);
    if (!rc && !r->fits)
        fill_cut(r, text, len, r->cut_byte);
    if (rc) {
        size_t bad = r->bad_offset;
        tokcount_free(r);
        r->bad_offset = bad;
    }
    return rc;
}

/* ---- a text of any length from a descriptor ---- */

#define KEEP_AFTER 256 /* bytes kept past the cut for the snippet (12 characters and more) */

typedef struct tc_stream {
    const tok_tokenizer *t; /* the tables */
    size_t ctx;
    uint64_t tokens, bytes, base, chars; /* base: the offset of the stretch being handed */
    int count_words;
    text_words words;
    uint64_t cut;      /* where the ctx-th token ends (once tokens > ctx) */
    int cut_known;
    bytebuf keep;      /* the text from its start to KEEP_AFTER bytes past the cut */
} tc_stream;

static void tc_text(void *user, const char *s, size_t n)
{
    tc_stream *c = user;
    c->base = c->bytes;
    c->bytes += n;
    c->chars += textpos_chars_valid(s, n); /* (checked by the tokenizer before it is handed on) */
    if (c->count_words) {
        text_words w;
        text_words_count(s, n, &w);
        text_words_join(&c->words, &w);
    }
    if (!c->cut_known || c->keep.n < c->cut + KEEP_AFTER)
        bb_put(&c->keep, s, n); /* (memory: the text of the first ctx tokens, and a stretch) */
}

static int tc_put(void *user, const uint32_t *ids, size_t n, const size_t *starts, size_t n_starts)
{
    tc_stream *c = user;
    (void)starts, (void)n_starts;
    if (!c->cut_known && c->tokens + n > c->ctx) {
        uint64_t b = c->base;
        for (size_t i = 0; i < c->ctx - c->tokens; i++) {
            const uint8_t *p;
            size_t l;
            tok_piece(c->t, ids[i], &p, &l, NULL);
            b += l;
        }
        c->cut = b, c->cut_known = 1;
    }
    c->tokens += n;
    return c->keep.oom; /* (out of memory: the run stops) */
}

int tokcount_stream(eng *e, unsigned threads, eng_read_fn read, void *user, size_t ctx, unsigned flags,
                    tokcount *r, g2e_err *err)
{
    memset(r, 0, sizeof *r);
    r->bad_offset = SIZE_MAX;
    tc_stream c = {.t = eng_tables(e), .ctx = ctx, .count_words = !!(flags & TOKCOUNT_WORDS)};
    eng_text o = {.special = TOK_SPECIAL_TOKEN, .read = read, .read_user = user, .put = tc_put,
                  .text = tc_text, .user = &c};
    int rc = eng_stream(e, threads, &o);
    if (rc == ENG_STOPPED || rc == G2E_ENOMEM) /* (tc_put stops only when out of memory) */
        rc = g2e_fail(err, G2E_ENOMEM, "out of memory counting %llu bytes", (unsigned long long)c.bytes);
    else if (rc)
        rc = g2e_fail(err, rc, "%s", o.msg);
    if (rc) {
        size_t bad = o.bad_offset == UINT64_MAX ? SIZE_MAX : (size_t)o.bad_offset;
        int sys = o.sys_errno;
        bb_free(&c.keep);
        r->bad_offset = bad, r->sys_errno = sys;
        return rc;
    }
    r->bytes = (size_t)c.bytes, r->chars = (size_t)c.chars, r->tokens = (size_t)c.tokens, r->words = c.words;
    r->fits = r->tokens <= ctx;
    if (!rc)
        rc = embed_windows(r->tokens, ctx, ctx, &r->windows, err);
    if (!rc && !r->fits)
        fill_cut(r, c.keep.p, c.keep.n, (size_t)c.cut);
    if (rc)
        tokcount_free(r);
    bb_free(&c.keep);
    return rc;
}

void tokcount_free(tokcount *r)
{
    free(r->cc);
    memset(r, 0, sizeof *r);
}
