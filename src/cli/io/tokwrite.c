/* SPDX-License-Identifier: MIT */
/* tokwrite.c — IDs as text, texts over threads with their output, --format json and JSON
 * Lines (see tokwrite.h). */
#define _GNU_SOURCE /* memrchr, memmem */
#include "tokwrite.h"
#include "json.h"
#include "jsonl.h"
#include "rdbuf.h"
#include "tokchars.h"

#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK GPT2EMBED_CHUNK
#define CHUNK_BIG ((size_t)1 << 20) /* a chunk past this is a long run with no place to cut */
#define HUGE ((size_t)1 << 20)      /* a text this large is checked on several threads */
#define SLOT_ALIGN 128              /* two slots worked on at once share no cache line pair */

/* ------------------------------------------------------------ IDs as decimal text */

/* Decimal digits of v at d (room for 20), returning the end: the length first, then two
 * digits per step from the end, straight into place. */
static char *put_u64(char *d, uint64_t v)
{
    static const char pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536"
                                   "37383940414243444546474849505152535455565758596061626364656667686970717273"
                                   "7475767778798081828384858687888990919293949596979899";
    int n = 1;
    for (uint64_t x = v; x >= 10; x /= 10)
        n++;
    char *e = d + n, *q = e;
    for (; v >= 100; v /= 100) {
        q -= 2;
        memcpy(q, pairs + 2 * (v % 100), 2);
    }
    if (v >= 10)
        memcpy(q - 2, pairs + 2 * v, 2);
    else
        q[-1] = (char)('0' + v);
    return e;
}

void toks_put_u64(bytebuf *b, uint64_t v)
{
    if (!bb_room(b, 20))
        b->n = (size_t)(put_u64(b->p + b->n, v) - b->p);
}

int toks_idtext_init(toks_idtext *d, uint32_t n_vocab, char sep)
{
    uint32_t n = 1;
    while (n < n_vocab)
        n *= 2;
    memset(d, 0, sizeof *d);
    if (n > TOKS_IDTEXT_MAX || !(d->text = malloc((size_t)n * sizeof *d->text)))
        return G2E_ENOMEM;
    /* ten entries at a time: those of 10 hi + 0..9 are hi's digits (before its separator)
     * and one more digit (hi's entry is made before them: hi < 10 hi for hi >= 1) */
    for (uint32_t hi = 0; hi < (n + 9) / 10; hi++) {
        char pre[8] = {0};
        size_t pl = 0;
        if (hi) {
            memcpy(pre, d->text[hi], 8);
            pl = (size_t)pre[7] - 1;
        }
        pre[7] = (char)(pl + 2);
        for (uint32_t v = hi * 10, e = v + 10 < n ? v + 10 : n; v < e; v++) {
            pre[pl] = (char)('0' + v - hi * 10);
            pre[pl + 1] = sep;
            memcpy(d->text[v], pre, 8);
        }
    }
    d->n = n;
    d->sep = sep;
    return 0;
}

void toks_idtext_free(toks_idtext *d)
{
    free(d->text);
    memset(d, 0, sizeof *d);
}

/* Bytes put_ids may write for n IDs: 10 digits and a separator at most each, and the last
 * table entry's 8 bytes whole. */
#define ID_ROOM(n) ((n) * 11 + 16)

static inline uint64_t entry_word(const char *text, uint32_t v)
{
    uint64_t w;
    memcpy(&w, text + (size_t)v * 8, 8);
    return w;
}

/* Byte 7 of an entry read as a word (the byte order's: little-endian, the top byte). */
static inline size_t entry_len(uint64_t w)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return (size_t)(w & 0xFF);
#else
    return (size_t)(w >> 56);
#endif
}

/* ids[0..n) in decimal at o, each followed by sep; returns the end. IDs in the table (d's
 * size is a power of two: the eight IDs of a step are all in it when their OR is) are one
 * 8-byte copy each, their length in the entry's last byte; others converted. */
static inline __attribute__((always_inline)) char *put_ids(char *o, const toks_idtext *d, const uint32_t *ids, size_t n, char sep)
{
    const char *text = d ? (const char *)d->text : NULL; /* (locals: stores through o may alias *d) */
    uint32_t lim = d && d->sep == sep ? d->n : 0;
    const uint32_t *p = ids, *end = ids + n, *end8 = n >= 8 ? end - 7 : ids; /* (steps of 8 start before end8) */
/* An entry as one word, and its length (byte 7) from that word: no second load, which the
 * compiler would have to make after the store (o may alias the table, as far as it knows) */
#define ID_WORD(v) entry_word(text, v)
#define ID_STORE(w)                                                                                         \
    do {                                                                                                    \
        uint64_t w_ = (w);                                                                                  \
        memcpy(o, &w_, 8);                                                                                  \
        o += entry_len(w_);                                                                                 \
    } while (0)
#define ID_PUT(v) ID_STORE(ID_WORD(v))
    for (;;) {
        for (; p < end8; p += 8) {
            uint32_t a = p[0], b = p[1], c = p[2], e = p[3], f = p[4], g = p[5], h = p[6], k = p[7];
            if ((a | b | c | e | f | g | h | k) >= lim)
                break;
            /* the eight entries loaded before the first store: none waits for a store */
            uint64_t wa = ID_WORD(a), wb = ID_WORD(b), wc = ID_WORD(c), we = ID_WORD(e), wf = ID_WORD(f),
                     wg = ID_WORD(g), wh = ID_WORD(h), wk = ID_WORD(k);
            ID_STORE(wa); ID_STORE(wb); ID_STORE(wc); ID_STORE(we);
            ID_STORE(wf); ID_STORE(wg); ID_STORE(wh); ID_STORE(wk);
        }
        /* the rest (fewer than 8, or up to an ID outside the table): four, then one by one */
        if (end - p >= 4 && (p[0] | p[1] | p[2] | p[3]) < lim) {
            ID_PUT(p[0]); ID_PUT(p[1]); ID_PUT(p[2]); ID_PUT(p[3]);
            p += 4;
        }
        for (const uint32_t *stop = end - p > 8 ? p + 8 : end; p < stop && *p < lim; p++)
            ID_PUT(*p);
        if (p == end)
            return o;
        if (*p >= lim) {
            o = put_u64(o, *p++);
            *o++ = sep;
        }
    }
#undef ID_PUT
#undef ID_STORE
#undef ID_WORD
}

void toks_put_ids(bytebuf *b, const toks_idtext *d, const uint32_t *ids, size_t n, char sep)
{
    if (n && !bb_room(b, ID_ROOM(n)))
        b->n = (size_t)(put_ids(b->p + b->n, d, ids, n, sep) - b->p) - 1; /* (the last sep taken back) */
}

/* ------------------------------------------------------------ IDs as text over threads */

/* The text's chunks (gpt2embed_text_cuts) go through the pipeline: taken in turn, each
 * tokenized and made into text in the same thread, written in order. */
/* One chunk in flight: its IDs as text, its status. */
typedef struct slot {
    _Alignas(SLOT_ALIGN) bytebuf out;
    int rc;
} idslot;

typedef struct chunks chunks;
struct chunks {
    const char *s;
    size_t *cut, m;       /* chunk k is s[cut[k] .. cut[k + 1]) */
    unsigned flags;
    const toks_idtext *idt;
    toks_write_fn write;
    void *user;
    const gpt2embed_pipeline *pipe; /* (its n_slots) */
    int werr, rc;         /* rc: why hand stopped the run */
};

/* A chunk's IDs as text: a space before every chunk but the first (a chunk is never empty
 * of tokens), "\n" after the last. */
static void ids_work(chunks *c, idslot *sl, const uint32_t *ids, size_t n, size_t k)
{
    if (k)
        bb_put(&sl->out, " ", 1);
    toks_put_ids(&sl->out, c->idt, ids, n, ' ');
    if (k + 1 == c->m)
        bb_put(&sl->out, "\n", 1);
}

static int chunk_take(void *user, size_t k, void *slot)
{
    (void)user, (void)k, (void)slot; /* the cuts are made: chunk k is there */
    return 0;
}

static void chunk_work(void *user, size_t k, void *slt, gpt2embed_worker *w)
{
    chunks *c = user;
    idslot *sl = slt;
    size_t len = c->cut[k + 1] - c->cut[k];
    const uint32_t *ids;
    size_t n;
    gpt2embed_worker_expect(w, c->cut[c->m]); /* the whole text's size (chunks are smaller) */
    sl->out.n = 0;
    /* room once for the most a chunk can give (an ID and its separator at most 8 bytes):
     * never grown by copies, only touched pages faulted in */
    sl->rc = bb_room(&sl->out, (len > CHUNK_BIG ? 2 * len : 8 * len) + 64) ? G2E_ENOMEM : 0;
    if (!sl->rc && gpt2embed_worker_tokenize(w, c->s + c->cut[k], len, c->flags, &ids, &n, NULL))
        sl->rc = TOKS_E_TEXT; /* (the caller tokenizes the whole text again for the message) */
    if (!sl->rc)
        ids_work(c, sl, ids, n, k);
}

static int chunk_hand(void *user, size_t k, void *slt)
{
    chunks *c = user;
    idslot *sl = slt;
    int rc = sl->rc ? sl->rc : sl->out.oom ? G2E_ENOMEM : (c->werr = c->write(c->user, sl->out.p, sl->out.n)) ? TOKS_E_WRITE : 0;
    if (k + c->pipe->n_slots >= c->m) { /* no later chunk has this slot: freed now, while the others
                                   * still work, rather than all of them after the last */
        bb_free(&sl->out);
    }
    return c->rc = rc;
}

static void chunk_release(void *user, void *slt)
{
    (void)user;
    bb_free(&((idslot *)slt)->out);
}

/* Cuts s[0..n) and runs the chunks on up to `threads` workers. Returns 0, the first failing
 * chunk's code (TOKS_E_TEXT: the caller tokenizes the whole text again for the exact message;
 * TOKS_E_WRITE), or G2E_ENOMEM. */
static int chunks_run(gpt2embed_tokenizer *t, unsigned threads, size_t chunk, const char *s, size_t n, chunks *c)
{
    if (gpt2embed_text_cuts(s, n, chunk, threads, &c->cut, &c->m, NULL))
        return G2E_ENOMEM;
    c->s = s;
    gpt2embed_pipeline p = {.user = c, .slot_size = sizeof(idslot), .take = chunk_take, .work = chunk_work,
                            .hand = chunk_hand, .release = chunk_release};
    c->pipe = &p;
    gpt2embed_status st = gpt2embed_pipeline_run(t, &p, c->m, threads, NULL);
    gpt2embed_free(c->cut);
    return st == GPT2EMBED_E_STOPPED ? c->rc : st ? G2E_ENOMEM : 0;
}

static int write_err(g2e_err *err, int e)
{
    return g2e_fail(err, TOKS_E_WRITE, "cannot write the output: %s", strerror(e ? e : EIO));
}

#define EOT_TEXT "<|endoftext|>"
#define EOT_LEN (sizeof EOT_TEXT - 1)

static const char *find_special(const char *s, size_t n)
{
    return memmem(s, n, EOT_TEXT, EOT_LEN);
}

/* The check before the first write, spread over the threads for a large text: ranges of
 * `part` bytes (a pipeline's items, in any order), each starting and ending at a byte that
 * is no UTF-8 continuation byte (moved on by at most 3). The ranges tile the text, so it is
 * valid exactly when they all are: a valid text's characters start at such bytes (no more
 * than 3 continuation bytes follow each other), so each range of it is whole characters,
 * and valid ranges concatenate to a valid text. A special token is looked for from every
 * start in a range (the search runs on into the next range by the token's length). */
typedef struct precheck {
    const char *s;
    size_t n, part;
    int find;                 /* look for <|endoftext|> too */
    atomic_int bad, special;
    toks_idtext *idt;         /* the IDs' text, made by the calling thread (worker 0) while
                                 the others begin the check (NULL: not wanted) */
    uint32_t n_vocab;
    int idt_made;             /* (worker 0's) */
} precheck;

static size_t char_start(const char *s, size_t n, size_t at)
{
    for (int k = 0; k < 3 && at < n && ((unsigned char)s[at] & 0xC0) == 0x80; k++)
        at++;
    return at < n ? at : n;
}

static int precheck_take(void *job, size_t k, void *slot)
{
    (void)slot;
    return atomic_load(&((precheck *)job)->bad) || k * ((precheck *)job)->part >= ((precheck *)job)->n;
}

static void precheck_item(void *job, size_t k, void *slot, gpt2embed_worker *w)
{
    precheck *c = job;
    (void)slot;
    if (c->idt && gpt2embed_worker_index(w) == 0 && !c->idt_made) {
        toks_idtext_init(c->idt, c->n_vocab, ' ');
        c->idt_made = 1;
    }
    if (atomic_load(&c->bad))
        return;
    size_t a = char_start(c->s, c->n, k * c->part), b = char_start(c->s, c->n, (k + 1) * c->part);
    if (text_validate(c->s + a, b - a) < b - a)
        atomic_store(&c->bad, 1);
    size_t e = b + EOT_LEN - 1 < c->n ? b + EOT_LEN - 1 : c->n;
    if (c->find && !atomic_load(&c->special) && find_special(c->s + a, e - a))
        atomic_store(&c->special, 1);
}

/* 1 if t has the special token (an <|endoftext|> in a text is then ID 50256). */
static int has_special(gpt2embed_tokenizer *t)
{
    uint32_t id;
    size_t n;
    return gpt2embed_tokenize_into(t, EOT_TEXT, EOT_LEN, 0, &id, NULL, 1, &n, NULL) == GPT2EMBED_OK && n == 1;
}

/* Whether the text can be written chunk by chunk: known before any output to tokenize
 * (valid UTF-8; no special token refused), so that an error still writes nothing. Sets
 * *flags to what the chunks need (<|endoftext|> ordinary text when none occurs). Makes
 * *idt (toks_idtext_init with ' ') first when idt is not NULL: in this thread while the
 * others begin the check of a large text (0.7 ms for GPT-2's table, most of it page faults). */
static int streamable(gpt2embed_tokenizer *t, unsigned threads, const char *text, size_t len, unsigned *flags,
                      toks_idtext *idt)
{
    int bad, special;
    uint32_t n_vocab = (uint32_t)gpt2embed_tokenizer_n_vocab(t);
    precheck c = {.s = text, .n = len, .part = CHUNK, .find = !(*flags & GPT2EMBED_SPECIAL_TEXT), .idt = idt,
                  .n_vocab = n_vocab};
    atomic_init(&c.bad, 0);
    atomic_init(&c.special, 0);
    gpt2embed_pipeline p = {.user = &c, .take = precheck_take, .work = precheck_item};
    if (gpt2embed_threads_for(threads, SIZE_MAX) > 1 && len >= HUGE &&
        gpt2embed_pipeline_run(t, &p, (len + CHUNK - 1) / CHUNK, threads, NULL) == GPT2EMBED_OK) {
        if (idt && !c.idt_made) /* (worker 0 took no range) */
            toks_idtext_init(idt, n_vocab, ' ');
        bad = atomic_load(&c.bad), special = atomic_load(&c.special);
    } else {
        if (idt)
            toks_idtext_init(idt, n_vocab, ' ');
        bad = text_validate(text, len) < len;
        special = !bad && c.find && find_special(text, len);
    }
    if (bad)
        return 0; /* the tokenizer's message, or its lossy reading */
    if (!special)
        return *flags = (*flags & ~GPT2EMBED_SPECIAL_ERROR) | GPT2EMBED_SPECIAL_TEXT, 1;
    return !(*flags & GPT2EMBED_SPECIAL_ERROR) && has_special(t);
}

/* A failed tokenization's record: TOKS_E_TEXT for the text's own fault, with its message. */
static int text_err(g2e_err *err, gpt2embed_status st, const gpt2embed_error *e)
{
    int code = st == GPT2EMBED_E_UTF8 || st == GPT2EMBED_E_SPECIAL ? TOKS_E_TEXT : G2E_ENOMEM;
    return g2e_fail(err, code, "%s", e->message);
}

int toks_write_ids(gpt2embed_tokenizer *t, unsigned threads, size_t chunk, const char *text, size_t len,
                   unsigned flags, toks_write_fn write, void *user, size_t *n_replaced, g2e_err *err)
{
    toks_idtext idt = {0};
    int rc = 0;
    *n_replaced = 0;
    unsigned cf = flags;
    if (!text && len)
        return g2e_fail(err, G2E_EINVAL, "toks_write_ids: NULL text with length %zu", len);
    /* the IDs' text table from 64 KB of text, where it pays for its making (bench/PROGRAM.md);
     * without it, divisions */
    if (streamable(t, threads, text ? text : "", len, &cf, len >= (64u << 10) ? &idt : NULL)) {
        chunks c = {.flags = cf, .idt = &idt, .write = write, .user = user};
        rc = len ? chunks_run(t, threads, chunk, text, len, &c) : (c.werr = write(user, "\n", 1)) ? TOKS_E_WRITE : 0;
        if (rc == TOKS_E_WRITE)
            rc = write_err(err, c.werr);
        else if (rc)
            rc = g2e_fail(err, G2E_ENOMEM, "out of memory tokenizing %zu bytes", len);
    } else {
        /* an error (nothing written), or lossy input: the whole text at once */
        uint32_t *ids;
        size_t n;
        gpt2embed_error e;
        gpt2embed_status st = gpt2embed_tokenize_threads(t, text, len, flags, threads, &ids, NULL, &n, n_replaced, &e);
        if (st) {
            rc = text_err(err, st, &e);
        } else {
            bytebuf b = {0};
            int werr = 0;
            for (size_t i = 0; i < n && !werr && !b.oom; i += 65536) {
                b.n = 0;
                if (i)
                    bb_put(&b, " ", 1);
                toks_put_ids(&b, &idt, ids + i, n - i < 65536 ? n - i : 65536, ' ');
                werr = b.oom ? 0 : write(user, b.p, b.n);
            }
            werr = werr || b.oom ? werr : write(user, "\n", 1);
            if (b.oom)
                rc = g2e_fail(err, G2E_ENOMEM, "out of memory formatting the output");
            else if (werr)
                rc = write_err(err, werr);
            bb_free(&b);
            gpt2embed_free(ids);
        }
    }
    toks_idtext_free(&idt);
    return rc;
}

/* ------------------------------------------------------------ --format json */

/* Hands b to f when it holds `at_least` bytes. */
static void bb_spill(bytebuf *b, FILE *f, size_t at_least)
{
    if (b->n >= at_least && !b->oom && fwrite(b->p, 1, b->n, f) == b->n)
        b->n = 0;
}

tokchars_span *toks_spans(const char *text, size_t len, const toks_ids *r)
{
    tokchars_span *sp = malloc((r->n ? r->n : 1) * sizeof *sp);
    if (sp && tokchars_spans(text, len, r->offsets, r->n, sp, NULL)) {
        free(sp);
        return NULL;
    }
    return sp;
}

/* "tokens": one object per token with its ID and tokchars_json's members, written by the one
 * JSON writer straight onto f. */
static int json_tokens(FILE *f, const char *text, size_t len, const toks_ids *r)
{
    tokchars_span *sp = toks_spans(text, len, r);
    if (!sp)
        return G2E_ENOMEM;
    json_w w;
    json_init(&w, f);
    json_begin_array(&w);
    for (size_t i = 0; i < r->n; i++) {
        json_begin_object(&w);
        json_key(&w, "id");
        json_uint(&w, r->ids[i]);
        tokchars_json(&w, text, &sp[i]);
        json_end_object(&w);
    }
    json_end_array(&w);
    free(sp);
    return 0;
}

int toks_write_json(FILE *f, const gpt2embed_tokenizer *t, const char *text, size_t len, const toks_ids *r)
{
    bytebuf b = {0};
    int rc = 0;
    bb_str(&b, "{\"n_tokens\":");
    toks_put_u64(&b, r->n);
    bb_str(&b, ",\"ids\":[");
    toks_put_ids(&b, NULL, r->ids, r->n, ',');
    bb_str(&b, "],\"offsets\":[");
    for (size_t i = 0; i < r->n; i++, bb_spill(&b, f, 1 << 18)) {
        bb_str(&b, i ? ",[" : "[");
        toks_put_u64(&b, r->offsets[i]);
        bb_str(&b, ",");
        toks_put_u64(&b, r->offsets[i + 1]);
        bb_str(&b, "]");
    }
    bb_str(&b, "],\"pieces\":[");
    for (size_t i = 0; i < r->n && !b.oom; i++, bb_spill(&b, f, 1 << 18)) {
        const uint8_t *p = NULL;
        size_t pl = 0;
        gpt2embed_token_bytes(t, r->ids[i], &p, &pl, NULL); /* (the tokenizer's own IDs) */
        char *lit = json_string_alloc((const char *)p, pl);
        b.oom |= !lit;
        if (i)
            bb_str(&b, ",");
        bb_str(&b, lit ? lit : "");
        free(lit);
    }
    bb_str(&b, "],\"tokens\":");
    bb_spill(&b, f, 0);
    if (b.oom || (rc = json_tokens(f, text, len, r)))
        rc = G2E_ENOMEM;
    else if (fputs("}\n", f) < 0 || ferror(f))
        rc = G2E_EIO;
    bb_free(&b);
    return rc;
}

/* ------------------------------------------------------------ JSON Lines */

/* One share of lines in flight (a queue slot): its lines, parsed, tokenized by the thread's
 * tokenizer and written into its own buffer one line after the other (the line's text, IDs
 * and output while they are in the cache); the first bad line (unless keep_going) ends it.
 * The buffers are the slot's for the whole run: reused, never freed per share. */
typedef struct jpart {
    const toks_jsonl *o;
    const toks_idtext *idt;
    const char *s;
    size_t n, line0;  /* its lines s[0..n) (in `in`, or the reader's buffer on one thread);
                         the line number before them */
    size_t lines;     /* how many (a last one without its newline counts) */
    bytebuf in, text, key, out;
    bytebuf pre;      /* o->keep: the line's kept members, "\"id\":7," (empty otherwise) */
    gpt2embed_tokenizer *tk; /* (a refused line tokenized again for its message) */
    bytebuf bin;      /* o->put: the lines' IDs one after another (uint32_t) */
    bytebuf starts;   /* o->put: where each line's IDs start in bin (size_t) */
    size_t bad;       /* bad lines written as error objects */
    size_t lits;      /* <|endoftext|> read as text in its answered lines (special TEXT) */
    int too_long;     /* the share is one line too long to hold (n 0): a bad line */
    int stopped, oom; /* stopped: at line stop_line, for stop_msg */
    size_t stop_line;
    char stop_msg[G2E_ERR_MSG_MAX];
} jpart;

static size_t count_lines(const char *s, size_t n)
{
    size_t c = 0;
    for (const char *q = s, *e = s + n; (q = memchr(q, '\n', (size_t)(e - q))); q++)
        c++;
    return c;
}

/* Line `line`'s problem: an error object (keep_going), or the share stops there. */
static void jb_bad(jpart *p, size_t line, const char *msg)
{
    if (!p->o->keep_going) {
        p->stopped = 1;
        p->stop_line = line;
        snprintf(p->stop_msg, sizeof p->stop_msg, "%s", msg);
        return;
    }
    p->bad++;
    char *lit = json_string_alloc(msg, strlen(msg));
    bb_str(&p->out, "{");
    bb_put(&p->out, p->pre.p, p->pre.n);
    bb_str(&p->out, "\"error\":");
    bb_str(&p->out, lit ? lit : "\"out of memory\"");
    bb_str(&p->out, ",\"line\":");
    toks_put_u64(&p->out, line);
    bb_str(&p->out, "}\n");
    free(lit);
}

/* The answer {"ids":[...]} for ids[0..k). 0, or -1 when out of memory. */
static int jb_put(jpart *p, const uint32_t *ids, size_t k)
{
    size_t at = p->bin.n / sizeof *ids;
    bb_put(&p->starts, &at, sizeof at);
    bb_put(&p->bin, ids, k * sizeof *ids);
    return p->starts.oom || p->bin.oom ? -1 : 0;
}

/* The end of an answer at o, after its '{' and kept members: "ids":[...]} and the newline;
 * returns where it ends (room: 11 bytes and ID_ROOM(k)). */
static inline __attribute__((always_inline)) char *put_answer(char *o, const toks_idtext *idt, const uint32_t *ids,
                                                              size_t k)
{
    memcpy(o, "\"ids\":[", 7);
    o = put_ids(o + 7, idt, ids, k, ',') - (k ? 1 : 0); /* (the last ',' taken back) */
    memcpy(o, "]}\n", 3);
    return o + 3;
}

static inline __attribute__((always_inline)) int jb_ids(jpart *p, const toks_idtext *idt, const uint32_t *ids,
                                                        size_t k)
{
    if (p->o->put)
        return jb_put(p, ids, k);
    if (bb_room(&p->out, 1 + p->pre.n + ID_ROOM(k) + 10))
        return -1;
    char *o = p->out.p + p->out.n;
    *o++ = '{';
    if (p->pre.n) /* (kept members first) */
        memcpy(o, p->pre.p, p->pre.n), o += p->pre.n;
    p->out.n = (size_t)(put_answer(o, idt, ids, k) - p->out.p);
    return 0;
}

/* A refused line's message: its text tokenized again on its own (not on the worker, whose
 * IDs still hold the lines after it). 0, or -1 when out of memory. */
static int jb_refused(jpart *p, const char *text, size_t n, size_t line, unsigned flags)
{
    gpt2embed_error err;
    size_t count;
    gpt2embed_status st = gpt2embed_tokenize_into(p->tk, n ? text : "", n, flags, NULL, NULL, 0, &count, &err);
    if (st == GPT2EMBED_E_NOMEM)
        return -1;
    jb_bad(p, line, st && st != GPT2EMBED_E_BUFFER ? err.message : "refused by the tokenizer");
    return 0;
}

/* Line `line`'s text[0..n): tokenized on the worker and answered. 0, or -1 when out of
 * memory. */
static int jb_text(jpart *p, gpt2embed_worker *w, const toks_idtext *idt, const char *text, size_t n, size_t line,
                   unsigned flags)
{
    gpt2embed_error err;
    const uint32_t *ids;
    size_t k;
    gpt2embed_status st = gpt2embed_worker_tokenize(w, n ? text : "", n, flags, &ids, &k, &err);
    if (st == GPT2EMBED_E_NOMEM)
        return -1;
    if (st) {
        jb_bad(p, line, err.message);
        return 0;
    }
    if (p->o->special & GPT2EMBED_SPECIAL_TEXT)
        p->lits += toks_eot_literals(text, n);
    return jb_ids(p, idt, ids, k);
}

/* o->keep: the line's kept members into p->pre ("name":raw-value, in --keep's order; null
 * for a member it lacks, or for all of them when the line is no JSON object). 0 or -1. */
static int jb_keep(jpart *p, const char *s, size_t len)
{
    const toks_jsonl *o = p->o;
    jsonl_value v[TOKS_JSONL_KEEP_MAX];
    jsonl_error je;
    p->pre.n = 0;
    int rc = jsonl_members(s, len, o->keep, o->n_keep, v, &p->key, &je);
    for (size_t k = 0; k < o->n_keep; k++) {
        char *name = json_string_alloc(o->keep[k], strlen(o->keep[k]));
        if (!name)
            return -1;
        bb_str(&p->pre, name);
        bb_str(&p->pre, ":");
        if (!rc && v[k].found)
            bb_put(&p->pre, s + v[k].at, v[k].n);
        else
            bb_str(&p->pre, "null");
        bb_str(&p->pre, ",");
        free(name);
    }
    return p->pre.oom || rc == G2E_ENOMEM ? -1 : 0;
}

/* Any line at s[0..n) (n: to the share's end): parsed (a blank line is a bad line: every
 * input line has its answer), or taken as it is (o->plain), tokenized, formatted; *len its
 * length without the newline. 0, or -1 when out of memory. */
static int jb_line(jpart *p, gpt2embed_worker *w, const char *s, size_t n, size_t line, size_t *len, unsigned flags)
{
    jsonl_error je;
    int maybe_invalid = 1, rc = 0;
    p->text.n = 0;
    if (p->o->plain) {
        const char *nl = memchr(s, '\n', n);
        *len = nl ? (size_t)(nl - s) : n;
        return jb_text(p, w, p->idt, s, *len, line, flags);
    }
    rc = jsonl_line(s, n, p->o->lossy ? JSONL_LOSSY : 0, &p->text, &p->key, &je, len, &maybe_invalid);
    int blank = rc == JSONL_BLANK; /* (the same number as G2E_ENOMEM) */
    if ((!blank && rc == G2E_ENOMEM) || (p->o->n_keep && jb_keep(p, s, *len)))
        return -1;
    if (blank)
        jb_bad(p, line, "a blank line: expected a JSON object {\"text\": \"...\"}");
    else if (rc)
        jb_bad(p, line, je.why);
    return rc ? 0 : jb_text(p, w, p->idt, p->text.p, p->text.n, line, flags);
}

#define JB_BATCH 64 /* usual lines read in one call (jsonl_usual_lines) */

/* The k usual lines of sp (their texts one after another in p->text) tokenized together
 * (tok_encode_joined), then answered in order up to a stop; *line and *pos move past those
 * answered. A text the tokenizer refuses is tokenized alone again (jb_text), for its
 * message. 0, or -1 when out of memory. */
static int jb_usual(jpart *p, gpt2embed_worker *w, const toks_idtext *idt, const jsonl_span *sp, size_t k,
                    size_t *line, size_t *pos, unsigned flags)
{
    size_t ends[JB_BATCH], counts[JB_BATCH];
    gpt2embed_status rcs[JB_BATCH];
    for (size_t i = 0; i < k; i++) /* (sp[0].at is 0, and each text follows the one before) */
        ends[i] = sp[i].at + sp[i].n;
    const char *text = p->text.p ? p->text.p : "";
    const uint32_t *all;
    if (gpt2embed_worker_tokenize_many(w, text, ends, k, flags, &all, counts, rcs, NULL))
        return -1;
    size_t i = 0, at = 0;
    if (!p->o->put && !p->pre.n) {
        /* the plain answers, {"ids":[...]}, straight on up to a refused text: room made once,
         * the line and position counted in locals, no test of kept members or put per line
         * (jb_ids; bench/PROGRAM.md) */
        size_t total = 0;
        for (size_t j = 0; j < k; j++)
            total += counts[j];
        if (bb_room(&p->out, k * 11 + ID_ROOM(total)))
            return -1;
        char *o = p->out.p + p->out.n;
        size_t ln = *line, ps = *pos;
        for (; i < k && !rcs[i]; at += counts[i++]) {
            *o = '{';
            o = put_answer(o + 1, idt, all + at, counts[i]);
            ln++, ps += sp[i].len + 1;
        }
        p->out.n = (size_t)(o - p->out.p);
        *line = ln, *pos = ps;
    }
    for (; i < k && !p->stopped; at += counts[i++]) {
        ++*line;
        int rc;
        if (rcs[i]) /* alone again, for its message */
            rc = jb_refused(p, text + sp[i].at, sp[i].n, *line, flags);
        else
            rc = jb_ids(p, idt, all + at, counts[i]);
        if (rc)
            return -1;
        *pos += sp[i].len + 1;
    }
    /* the literals read as text in the lines answered here (the refused ones counted alone);
     * one search of the batch first, which finds none in nearly every batch */
    size_t total = k ? sp[k - 1].at + sp[k - 1].n : 0;
    if ((p->o->special & GPT2EMBED_SPECIAL_TEXT) && toks_eot_literals(text, total))
        for (size_t j = 0; j < i; j++)
            p->lits += rcs[j] ? 0 : toks_eot_literals(text + sp[j].at, sp[j].n);
    return 0;
}

/* --lines: up to max lines of plain text at the start of s[0..n) (a line ends at its '\n'
 * or at n), their bytes appended to text one after another and their spans in sp (each
 * maybe invalid: the tokenizer checks the batch at once), so that jb_usual tokenizes them
 * together as it does JSON's usual lines (on the corpus's 328,485 lines: 70 % of `--format
 * ids`'s speed one line at a time). Returns how many; text->oom when out of memory. */
static size_t plain_lines(const char *s, size_t n, bytebuf *text, jsonl_span *sp, size_t max)
{
    size_t k = 0;
    for (size_t pos = 0; k < max && pos < n; k++) {
        const char *nl = memchr(s + pos, '\n', n - pos);
        size_t len = nl ? (size_t)(nl - (s + pos)) : n - pos;
        sp[k] = (jsonl_span){text->n, len, len, 1};
        bb_put(text, s + pos, len);
        if (text->oom)
            return k;
        pos += len + 1;
    }
    return k;
}

/* A share: its lines in turn, the usual ones JB_BATCH at a time, any other one alone. */
static void jb_run(jpart *p, gpt2embed_worker *w)
{
    unsigned flags = p->o->special | (p->o->lossy ? GPT2EMBED_LOSSY : 0), jf = p->o->lossy ? JSONL_LOSSY : 0;
    size_t line = p->line0, pos = 0;
    jsonl_span sp[JB_BATCH];
    const toks_idtext idt = *p->idt; /* (a local: the stores of the output cannot alias it) */
    p->out.n = 0;
    p->bin.n = p->starts.n = 0;
    p->bad = p->lits = 0, p->stopped = p->oom = 0;
    if (p->too_long) { /* (its kept members: null, as for a line that is no JSON object) */
        static const char *const UNIT[] = {"bytes", "KiB", "MiB", "GiB"};
        size_t m = p->o->max_line;
        int u = 0;
        while (u < 3 && m % 1024 == 0)
            m /= 1024, u++;
        char msg[96];
        snprintf(msg, sizeof msg, "the line is %zu %s or longer, more than is read", m, UNIT[u]);
        if (p->o->n_keep && jb_keep(p, "", 0))
            goto oom;
        jb_bad(p, p->line0 + 1, msg);
        p->lines = 1;
        p->oom |= p->out.oom;
        return;
    }
    while (pos < p->n && !p->stopped) {
        size_t used, k = 0;
        p->text.n = 0;
        if (p->o->plain) /* (plain lines: each is usual) */
            k = plain_lines(p->s + pos, p->n - pos, &p->text, sp, JB_BATCH);
        else if (!p->o->n_keep) /* (usual lines have no other members) */
            k = jsonl_usual_lines(p->s + pos, p->n - pos, jf, &p->text, sp, JB_BATCH, &used);
        if (p->text.oom)
            goto oom;
        if (k && jb_usual(p, w, &idt, sp, k, &line, &pos, flags))
            goto oom;
        if (k < JB_BATCH && pos < p->n && !p->stopped) { /* a line of another kind */
            size_t len;
            if (jb_line(p, w, p->s + pos, p->n - pos, ++line, &len, flags))
                goto oom;
            pos += len + 1;
        }
    }
    /* its lines: those taken (a last one without its newline too), and those after a stop */
    p->lines = line - p->line0 + (pos < p->n ? count_lines(p->s + pos, p->n - pos) : 0);
    p->oom |= p->out.oom;
    return;
oom:
    p->oom = 1;
}

/* The run: the queue of shares, and the reader that cuts them from the input (take: one
 * thread at a time). */
typedef struct jrun {
    gpt2embed_tokenizer *t;
    const gpt2embed_pipeline *pipe; /* (its n_slots) */
    toks_jsonl *o;
    toks_idtext idt;
    size_t share;     /* bytes of lines per share, about */
    size_t input_size; /* the first take's, or SIZE_MAX when the input goes on (gpt2embed_worker_expect) */
    int fd;
    rdbuf in;
    int regular;
    size_t lines;     /* newlines taken (and a last line without one) */
    size_t scanned;   /* bytes after in.off known to hold no newline (searched once only) */
    int rc;           /* TOKS_E_READ or G2E_ENOMEM, for after the shares before it */
    int hand_rc;      /* why jr_hand stopped the run */
} jrun;

/* Reads more input after what is held (rd_more): 0; 2 when the unfinished line has reached
 * o->max_line bytes; or 1 with j->rc set. */
static int jr_read(jrun *j)
{
    int rc = rd_more(&j->in, j->o->max_line);
    if (rc == RD_FULL)
        return 2;
    if (rc == RD_FAIL || rc == RD_CANCELED)
        j->o->sys_errno = j->in.sys_errno, rc = TOKS_E_READ;
    else if (rc) /* no memory to grow the buffer */
        j->o->line = 0, j->o->pending = j->in.have, rc = G2E_ENOMEM;
    return rc ? (j->rc = rc, 1) : 0;
}

/* The rest of a line too long to hold, read and dropped up to its newline (the bytes after
 * it stay) or the input's end: each byte looked at once. 0, or 1 with j->rc set. */
static int jr_skip_line(jrun *j)
{
    for (;;) {
        j->in.off = j->in.have = j->scanned = 0;
        int rc = rd_more(&j->in, j->o->max_line);
        if (rc == RD_FAIL || rc == RD_CANCELED)
            j->o->sys_errno = j->in.sys_errno;
        if (rc)
            return j->rc = rc == G2E_ENOMEM ? G2E_ENOMEM : TOKS_E_READ, 1;
        const char *nl = memchr(j->in.buf, '\n', j->in.have);
        if (nl || j->in.eof) {
            j->in.off = nl ? (size_t)(nl - j->in.buf) + 1 : j->in.have;
            return 0;
        }
    }
}

/* Where a share of s[0..n) ends: after the last newline in its first j->share bytes, or
 * after the first one past them (a long line); at n at the end of the input; 0 when no
 * line is complete yet. The bytes searched in vain are not searched again (j->scanned):
 * a line read in many pieces costs time linear in its length. */
static size_t jr_cut(jrun *j, const char *s, size_t n)
{
    size_t w = n < j->share ? n : j->share;
    const char *nl = j->scanned < w ? memrchr(s, '\n', w) : NULL;
    size_t from = j->scanned > w ? j->scanned : w;
    if (!nl && n > from)
        nl = memchr(s + from, '\n', n - from);
    if (!nl)
        j->scanned = n;
    return nl ? (size_t)(nl - s) + 1 : j->in.eof ? n : 0;
}

/* Makes share k: complete lines only, as many as there are up to j->share bytes; more is
 * read first when it is there (a file) or has arrived already (a pipe: lines are never
 * held back waiting for more). 0, or 1 at the end of the input or on an error (j->rc). */
static int jr_take(void *job, size_t k, void *slot)
{
    jrun *j = job;
    jpart *p = slot;
    size_t nslot = j->pipe->n_slots;
    for (;;) {
        const char *s = j->in.buf + j->in.off;
        size_t n = j->in.have - j->in.off, end = jr_cut(j, s, n);
        struct pollfd pf = {.fd = j->fd, .events = POLLIN};
        if (!j->in.eof &&
            (!end || (n < j->share && (j->regular || (poll(&pf, 1, 0) == 1 && (pf.revents & POLLIN)))))) {
            int r = jr_read(j); /* (2 only without a line end: with one, fewer than share <= cap bytes are held) */
            if (r == 1)
                return 1;
            if (r == 2) { /* a line too long to hold: a share of its own, a bad line */
                if (jr_skip_line(j))
                    return 1;
                if (k == 0)
                    j->input_size = SIZE_MAX;
                p->o = j->o, p->idt = &j->idt, p->line0 = j->lines, p->s = "", p->n = 0, p->too_long = 1;
                j->lines += nslot > 1; /* (on one thread the share counts its own) */
                return 0;
            }
            continue;
        }
        if (!end)
            return 1;
        if (k == 0 && (end >= TOKS_JSONL_PART_MIN || !j->in.eof)) /* a large input: read-only from here on */
            toks_idtext_init(&j->idt, (uint32_t)gpt2embed_tokenizer_n_vocab(j->t), ',');
        if (k == 0) /* the input's size as far as the first take tells (a batch of lines is smaller) */
            j->input_size = j->in.eof ? end : SIZE_MAX;
        p->o = j->o, p->tk = j->t, p->idt = &j->idt, p->line0 = j->lines, p->n = end, p->too_long = 0;
        j->scanned = 0;
        if (nslot == 1) {
            p->s = s; /* one thread: handed on before the next take touches the buffer */
        } else {
            p->in.n = 0;
            bb_put(&p->in, s, end);
            if (p->in.oom) {
                j->o->line = j->lines + 1;
                return j->rc = G2E_ENOMEM, 1;
            }
            p->s = p->in.p;
        }
        if (nslot > 1) /* (on one thread the share counts its own, before the next take) */
            j->lines += count_lines(s, end) + (s[end - 1] != '\n'); /* (a last line without its newline) */
        j->in.off += end;
        return 0;
    }
}

static void jr_work(void *job, size_t k, void *slot, gpt2embed_worker *w)
{
    jrun *j = job;
    (void)k;
    gpt2embed_worker_expect(w, j->input_size);
    jb_run(slot, w);
}

/* Writes share k and says how it ended; flushes when asked (pipes). */
static int jr_hand_share(jrun *j, jpart *p)
{
    size_t nslot = j->pipe->n_slots;
    int rc = 0;
    j->o->bad += p->bad;
    j->o->eot_text += p->lits;
    if (nslot == 1)
        j->lines += p->lines;
    if (p->oom) {
        j->o->line = p->line0 + 1;
        return G2E_ENOMEM;
    }
    if (p->out.n && (j->o->sys_errno = j->o->write(j->o->user, p->out.p, p->out.n)))
        return TOKS_E_WRITE;
    if (p->starts.n && j->o->put(j->o->user, (const uint32_t *)(void *)p->bin.p, p->bin.n / sizeof(uint32_t),
                                 (const size_t *)(void *)p->starts.p, p->starts.n / sizeof(size_t)))
        return TOKS_E_PUT;
    if (p->stopped) {
        j->o->line = p->stop_line;
        memcpy(j->o->msg, p->stop_msg, sizeof j->o->msg);
        rc = TOKS_STOPPED;
    }
    int e = j->o->flush ? j->o->flush(j->o->user) : 0;
    if (e) {
        j->o->sys_errno = e;
        rc = TOKS_E_WRITE;
    }
    return rc;
}

static int jr_hand(void *job, size_t k, void *slot)
{
    jrun *j = job;
    (void)k;
    return j->hand_rc = jr_hand_share(j, slot);
}

static void jr_release(void *job, void *slot)
{
    jpart *p = slot;
    (void)job;
    bb_free(&p->in), bb_free(&p->text), bb_free(&p->key), bb_free(&p->out), bb_free(&p->pre);
    bb_free(&p->bin), bb_free(&p->starts);
}

int toks_jsonl_run(gpt2embed_tokenizer *t, unsigned threads, int fd, toks_jsonl *o)
{
    o->lines = o->bad = o->line = o->pending = o->eot_text = 0;
    o->sys_errno = 0;
    o->msg[0] = '\0';
    o->max_line = o->max_line ? o->max_line : TOKS_JSONL_MAX_LINE;
    threads = gpt2embed_threads_for(threads, TOKS_JSONL_PARTS);
    jrun j = {.t = t, .o = o, .fd = fd,
              .in = {.read = rd_read_fd, .cap = o->max_line < (1 << 17) ? o->max_line : 1 << 17}};
    j.in.user = &j.fd;
    struct stat st;
    j.regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    j.in.buf = malloc(j.in.cap);
    if (j.in.buf && !jr_read(&j) && j.in.have < TOKS_JSONL_PART_MIN) {
        /* all the input at once, and small: no thread to start */
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        int all = j.regular ? (off_t)j.in.have >= st.st_size
                            : j.in.eof || (poll(&pf, 1, 0) == 1 && !(pf.revents & POLLIN) && (pf.revents & POLLHUP));
        threads = all ? 1 : threads;
    }
    /* one thread: shares of 128 KB (the buffer, grown only for a longer line) read in place,
     * so that the lines read, their texts and answers stay in the core's cache beside the
     * tokenizer's tables (1 MB shares: 3 % more CPU time in 81 alternating runs); more: 128 KB
     * copied into the slots, taken in turn (a thread with easy lines takes more) */
    j.share = threads > 1 && j.in.cap >= (size_t)128 << 10 ? (size_t)128 << 10 : j.in.cap;
    gpt2embed_pipeline p = {.user = &j, .slot_size = sizeof(jpart), .take = jr_take, .work = jr_work,
                            .hand = jr_hand, .release = jr_release};
    j.pipe = &p;
    int rc = !j.in.buf ? G2E_ENOMEM : j.rc;
    if (!rc) {
        gpt2embed_status ps = gpt2embed_pipeline_run(t, &p, GPT2EMBED_NONE, threads, NULL);
        rc = ps == GPT2EMBED_E_STOPPED ? j.hand_rc : ps ? G2E_ENOMEM : 0;
    }
    rc = rc ? rc : j.rc;
    o->lines = j.lines;
    free(j.in.buf);
    toks_idtext_free(&j.idt);
    return rc;
}
