/* SPDX-License-Identifier: MIT */
/* tok_stream.c — IDs as text, texts over threads, counts and JSON Lines (see tok_stream.h). */
#define _GNU_SOURCE /* memrchr */
#include "tok_stream.h"
#include "json.h"
#include "jsonl.h"
#include "textpos.h"
#include "tok_internal.h"
#include "tok_pretok.h"
#include "tokchars.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

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
    d->n = 0;
    if (n_vocab > 1000000 || !(d->text = malloc(((size_t)n_vocab + 1) * sizeof *d->text)))
        return G2E_ENOMEM;
    char dig[7] = "000000"; /* v in decimal, counted up (no divisions: it is built serially) */
    for (uint32_t v = 0, len = 1; v < n_vocab; v++) {
        memset(d->text[v], 0, 8);
        memcpy(d->text[v], dig + 6 - len, len);
        d->text[v][len] = sep;
        d->text[v][7] = (char)(len + 1);
        int k = 5;
        while (k >= 0 && dig[k] == '9')
            dig[k--] = '0';
        if (k >= 0)
            dig[k]++;
        len = 6 - (uint32_t)k > len ? 6 - (uint32_t)k : len;
    }
    d->n = n_vocab;
    d->sep = sep;
    return 0;
}

void toks_idtext_free(toks_idtext *d)
{
    free(d->text);
    memset(d, 0, sizeof *d);
}

void toks_put_ids(bytebuf *b, const toks_idtext *d, const uint32_t *ids, size_t n, char sep)
{
    static const toks_idtext none = {0};
    d = d && d->sep == sep ? d : &none;
    /* each ID and its separator: one 8-byte copy from the table (7 bytes at most kept), or
     * up to 21 bytes converted; the last separator is taken back at the end */
    for (size_t i = 0; i < n;) {
        if (bb_room(b, (n - i) * 7 + 32))
            return;
        char *o = b->p + b->n, *room_end = b->p + b->cap - 22;
        const char(*text)[8] = d->text; /* locals: stores through o may alias d's members */
        uint32_t lim = d->n;
        for (; i < n; i++) {
            uint32_t id = ids[i];
            if (id < lim) {
                memcpy(o, text[id], 8);
                o += text[id][7];
            } else if (o <= room_end) {
                o = put_u64(o, id);
                *o++ = sep;
            } else {
                break; /* more room, then on */
            }
        }
        b->n = (size_t)(o - b->p);
    }
    b->n -= n ? 1 : 0;
}

/* ------------------------------------------------------------ texts over threads */

/* Small parts, taken in turn, so that no thread waits long for the last (the corpus mixes
 * English with Japanese and Chinese, three times slower per byte): on 2 threads, 8 parts
 * gave one thread 14 % more instructions than the other, 32 parts 1 % (callgrind). */
#define PARTS_PER_THREAD 16
#define PART_MIN ((size_t)1 << 17) /* a part of a large text is at least 128 KB */
#define MAX_PARTS 256
#define MAX_THREADS 64 /* tokenizer.c's limit of tok_set_threads */

/* One part of a text, tokenized and then (in the same thread) turned into its output. */
typedef struct part {
    const char *s;
    size_t n;
    int rc;
    tok_ids ids;
    bytebuf out;   /* toks_write_ids: the part's IDs as text */
    size_t chars;  /* toks_count: its characters */
} part;

typedef struct pjob pjob;
struct pjob {
    tok_special special;
    unsigned m;
    part *pt;
    atomic_uint next;
    void (*after)(pjob *j, part *p, unsigned k);
    const toks_idtext *idt;
};

/* One thread of a crew: the job it shares, its tokenizer. */
typedef struct crew {
    void *job;
    tok_tokenizer *t;
} crew;

/* Runs fn for n crew members on t and its workers (t's thread count 1 meanwhile, as
 * tok_worker asks): member 0 with t in this thread, member k >= 1 with tok_worker(t, k) in
 * a thread of its own, or not at all when that worker or thread cannot be made (fn takes
 * its items from a shared queue, so the others do them); then waits for all. */
static void crew_run(tok_tokenizer *t, unsigned n, void *job, void *(*fn)(void *))
{
    crew w[MAX_THREADS];
    pthread_t th[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    unsigned threads = t->threads;
    tok_set_threads(t, 1);
    for (unsigned k = 0; k < n; k++)
        w[k] = (crew){job, tok_worker(t, k)};
    for (unsigned k = 1; k < n; k++)
        started[k] = w[k].t && pthread_create(&th[k], NULL, fn, &w[k]) == 0;
    fn(&w[0]);
    for (unsigned k = 1; k < n; k++)
        if (started[k])
            pthread_join(th[k], NULL);
    tok_set_threads(t, threads);
}

/* Takes parts in order until none is left: a thread that got easy text takes more. */
static void *pjob_loop(void *arg)
{
    crew *w = arg;
    pjob *j = w->job;
    for (unsigned k; (k = atomic_fetch_add(&j->next, 1)) < j->m;) {
        part *p = &j->pt[k];
        p->rc = tok_encode(w->t, p->s, p->n, j->special, TOK_NO_OFFSETS, &p->ids, NULL, NULL);
        if (!p->rc)
            j->after(j, p, k);
    }
    return NULL;
}

static void parts_free(part *pt, unsigned m)
{
    for (unsigned k = 0; pt && k < m; k++) {
        tok_ids_free(&pt[k].ids);
        bb_free(&pt[k].out);
    }
    free(pt);
}

/* Cuts s[0..n) at safe places into parts and runs them (strict UTF-8) over t's threads.
 * On 0, *out holds the m parts (parts_free); otherwise the first failing part's code (the
 * caller tokenizes the whole text again for the exact message or the lossy reading). The
 * cuts are searched in s[0..n-3) so that a lead byte of invalid input before a candidate
 * is never decoded past the end; whether the parts are valid is then what the tokenizer
 * checks (valid parts concatenate to a valid text and back). */
static int parts_run(tok_tokenizer *t, const char *s, size_t n, unsigned threads, pjob *j, part **out)
{
    unsigned want = threads * PARTS_PER_THREAD, m = 0;
    if (want > n / PART_MIN)
        want = (unsigned)(n / PART_MIN);
    if (want < threads)
        want = threads;
    if (want > MAX_PARTS)
        want = MAX_PARTS;
    size_t cut[MAX_PARTS + 1] = {0}, lim = n - 3;
    for (unsigned k = 1; k < want; k++) {
        size_t from = n / want * k;
        from = from <= cut[m] ? cut[m] + 1 : from;
        size_t c = from < lim ? tok_pretok_cut((const uint8_t *)s, lim, from) : lim;
        if (c >= lim)
            break;
        cut[++m] = c;
    }
    cut[++m] = n;
    part *pt = calloc(m, sizeof *pt);
    if (!pt)
        return G2E_ENOMEM;
    for (unsigned k = 0; k < m; k++)
        pt[k] = (part){.s = s + cut[k], .n = cut[k + 1] - cut[k]};
    j->pt = pt, j->m = m;
    atomic_init(&j->next, 0);
    crew_run(t, threads < m ? threads : m, j, pjob_loop);
    int rc = 0;
    for (unsigned k = 0; k < m && !rc; k++)
        rc = pt[k].rc ? pt[k].rc : pt[k].out.oom ? G2E_ENOMEM : 0;
    if (rc)
        parts_free(pt, m);
    else
        *out = pt;
    return rc;
}

/* 1 when t splits texts of len bytes over threads. */
static int splits(const tok_tokenizer *t, size_t len)
{
    return t->threads >= 2 && len >= t->split_min && len >= 8;
}

static int write_err(g2e_err *err, int e)
{
    return g2e_fail(err, TOKS_E_WRITE, "cannot write the output: %s", strerror(e ? e : EIO));
}

static void ids_after(pjob *j, part *p, unsigned k)
{
    if (k && p->ids.n)
        bb_put(&p->out, " ", 1);
    toks_put_ids(&p->out, j->idt, p->ids.ids, p->ids.n, ' ');
    tok_ids_free(&p->ids);
}

/* The threaded path of toks_write_ids: 0 when written, or non-zero when the caller must
 * tokenize the whole text (an error, lossy input); *werr a write error. */
static int ids_split(tok_tokenizer *t, const char *text, size_t len, tok_special special, const toks_idtext *idt,
                     toks_write_fn write, void *user, int *werr)
{
    pjob j = {.special = special, .after = ids_after, .idt = idt};
    part *pt = NULL;
    if (parts_run(t, text, len, t->threads, &j, &pt))
        return -1;
    for (unsigned k = 0; k < j.m && !*werr; k++)
        *werr = pt[k].out.n ? write(user, pt[k].out.p, pt[k].out.n) : 0;
    *werr = *werr ? *werr : write(user, "\n", 1);
    parts_free(pt, j.m);
    return 0;
}

int toks_write_ids(tok_tokenizer *t, const char *text, size_t len, tok_special special, unsigned flags,
                   toks_write_fn write, void *user, size_t *n_replaced, g2e_err *err)
{
    toks_idtext idt = {0};
    if (len >= (64u << 10))
        toks_idtext_init(&idt, tok_n_vocab(t), ' '); /* pays from ~16k IDs; without it, divisions */
    int werr = 0, rc = 0;
    *n_replaced = 0;
    if (!splits(t, len) || ids_split(t, text, len, special, &idt, write, user, &werr)) {
        tok_ids r;
        if (!(rc = tok_encode(t, text, len, special, flags | TOK_NO_OFFSETS, &r, NULL, err))) {
            bytebuf b = {0};
            for (size_t i = 0; i < r.n && !werr && !b.oom; i += 65536) {
                b.n = 0;
                if (i)
                    bb_put(&b, " ", 1);
                toks_put_ids(&b, &idt, r.ids + i, r.n - i < 65536 ? r.n - i : 65536, ' ');
                werr = b.oom ? 0 : write(user, b.p, b.n);
            }
            werr = werr || b.oom ? werr : write(user, "\n", 1);
            if (b.oom)
                rc = g2e_fail(err, G2E_ENOMEM, "out of memory formatting the output");
            *n_replaced = r.n_replaced;
            bb_free(&b);
            tok_ids_free(&r);
        }
    }
    toks_idtext_free(&idt);
    return werr && !rc ? write_err(err, werr) : rc;
}

static void count_after(pjob *j, part *p, unsigned k)
{
    (void)j, (void)k;
    p->chars = textpos_chars_valid(p->s, p->n);
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

int toks_count(tok_tokenizer *t, const char *text, size_t len, size_t ctx, toks_counts *c, g2e_err *err)
{
    memset(c, 0, sizeof *c);
    pjob j = {.special = TOK_SPECIAL_TOKEN, .after = count_after};
    part *pt = NULL;
    if (splits(t, len) && !parts_run(t, text, len, t->threads, &j, &pt)) {
        for (unsigned k = 0; k < j.m; k++) {
            if (c->tokens <= ctx && c->tokens + pt[k].ids.n > ctx)
                c->cut = (size_t)(pt[k].s - text) + piece_bytes(t, pt[k].ids.ids, ctx - c->tokens);
            c->tokens += pt[k].ids.n;
            c->chars += pt[k].chars;
        }
        parts_free(pt, j.m);
        return 0;
    }
    tok_ids r;
    int rc = tok_encode(t, text, len, TOK_SPECIAL_TOKEN, TOK_NO_OFFSETS, &r, NULL, err);
    if (rc)
        return rc;
    c->tokens = r.n;
    c->chars = textpos_chars_valid(text, len); /* tok_encode has just checked the UTF-8 */
    c->cut = r.n > ctx ? piece_bytes(t, r.ids, ctx) : 0;
    tok_ids_free(&r);
    return 0;
}

/* ------------------------------------------------------------ --format json */

/* Hands b to f when it holds `at_least` bytes. */
static void bb_spill(bytebuf *b, FILE *f, size_t at_least)
{
    if (b->n >= at_least && !b->oom && fwrite(b->p, 1, b->n, f) == b->n)
        b->n = 0;
}

tokchars_span *toks_spans(const char *text, size_t len, const tok_ids *r)
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
static int json_tokens(FILE *f, const char *text, size_t len, const tok_ids *r)
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

int toks_write_json(FILE *f, const tok_tokenizer *t, const char *text, size_t len, const tok_ids *r)
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
        const uint8_t *p;
        size_t pl;
        tok_piece(t, r->ids[i], &p, &pl, NULL);
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

/* One block of complete lines: their decoded texts side by side in `arena`. */
typedef struct jblock {
    size_t n, cap;
    size_t *at, *len, *line; /* per kept (non-blank) line: offset in arena, length, number */
    const char **err;        /* parse error, or NULL */
    const char **texts;
    size_t *counts;
    int *rc;
    bytebuf arena;
} jblock;

static int jb_grow(jblock *b)
{
    if (b->n < b->cap)
        return 0;
    size_t c = b->cap ? b->cap * 2 : 1024;
    void *p[7] = {realloc(b->at, c * sizeof *b->at)};
    if (p[0]) b->at = p[0];
    if ((p[1] = realloc(b->len, c * sizeof *b->len))) b->len = p[1];
    if ((p[2] = realloc(b->line, c * sizeof *b->line))) b->line = p[2];
    if ((p[3] = realloc(b->err, c * sizeof *b->err))) b->err = p[3];
    if ((p[4] = realloc(b->texts, c * sizeof *b->texts))) b->texts = p[4];
    if ((p[5] = realloc(b->counts, c * sizeof *b->counts))) b->counts = p[5];
    if ((p[6] = realloc(b->rc, c * sizeof *b->rc))) b->rc = p[6];
    for (int k = 0; k < 7; k++)
        if (!p[k])
            return -1;
    b->cap = c;
    return 0;
}

static void jb_free(jblock *b)
{
    free(b->at), free(b->len), free(b->line), free(b->err), free(b->texts), free(b->counts), free(b->rc);
    bb_free(&b->arena);
}

/* One thread's share of a block: its lines parsed, tokenized by its own tokenizer and
 * written into its own buffer; the first bad line (unless keep_going) ends its share. */
typedef struct jpart {
    const toks_jsonl *o;
    const toks_idtext *idt;
    tok_tokenizer *t;
    const char *s;
    size_t n, line0;  /* its lines s[0..n); the line number before them */
    jblock b;
    bytebuf out, key;
    size_t bad;       /* bad lines written as error objects */
    int stopped, oom; /* stopped: at line stop_line, for stop_msg */
    size_t stop_line;
    char stop_msg[G2E_ERR_MSG_MAX];
} jpart;

static int blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
            return 0;
    return 1;
}

/* Parses the lines of p->s into p->b (blank lines are skipped). */
static int jb_parse(jpart *p)
{
    jblock *b = &p->b;
    size_t line = p->line0;
    unsigned flags = p->o->lossy ? JSONL_LOSSY : 0;
    b->n = 0;
    b->arena.n = 0;
    for (size_t pos = 0; pos < p->n; line++) {
        const char *nl = memchr(p->s + pos, '\n', p->n - pos);
        size_t e = nl ? (size_t)(nl - p->s) : p->n;
        if (!blank(p->s + pos, e - pos)) {
            if (jb_grow(b))
                return -1;
            size_t k = b->n++;
            jsonl_error je;
            b->at[k] = b->arena.n;
            b->line[k] = line + 1;
            int rc = jsonl_text(p->s + pos, e - pos, flags, &b->arena, &p->key, &je);
            if (rc == G2E_ENOMEM)
                return -1;
            b->err[k] = rc ? je.why : NULL;
            b->len[k] = rc ? 0 : b->arena.n - b->at[k];
        }
        pos = e + 1;
    }
    return 0;
}

/* Line k's problem: an error object (keep_going), or the share stops there. */
static void jb_bad(jpart *p, size_t k, const char *msg)
{
    if (!p->o->keep_going) {
        p->stopped = 1;
        p->stop_line = p->b.line[k];
        snprintf(p->stop_msg, sizeof p->stop_msg, "%s", msg);
        return;
    }
    p->bad++;
    char *lit = json_string_alloc(msg, strlen(msg));
    bb_str(&p->out, "{\"error\":");
    bb_str(&p->out, lit ? lit : "\"out of memory\"");
    bb_str(&p->out, ",\"line\":");
    toks_put_u64(&p->out, p->b.line[k]);
    bb_str(&p->out, "}\n");
    free(lit);
}

/* A share: parse, tokenize (one call for all its lines), format. */
static void *jb_run(void *arg)
{
    jpart *p = arg;
    jblock *b = &p->b;
    unsigned flags = TOK_NO_OFFSETS | (p->o->lossy ? TOK_LOSSY : 0);
    uint32_t *ids = NULL;
    p->out.n = 0;
    if (jb_parse(p)) {
        p->oom = 1;
        return NULL;
    }
    for (size_t k = 0; k < b->n; k++)
        b->texts[k] = !b->err[k] && b->arena.p ? b->arena.p + b->at[k] : "";
    if (tok_encode_batch(p->t, b->n, b->texts, b->len, p->o->special, flags, &ids, b->counts, b->rc)) {
        p->oom = 1;
        return NULL;
    }
    size_t at = 0;
    for (size_t k = 0; k < b->n && !p->stopped; k++) {
        if (b->err[k]) {
            jb_bad(p, k, b->err[k]);
        } else if (b->rc[k]) {
            g2e_err err;
            tok_ids again;
            tok_encode(p->t, b->texts[k], b->len[k], p->o->special, flags, &again, NULL, &err);
            tok_ids_free(&again);
            jb_bad(p, k, err.msg);
        } else {
            bb_put(&p->out, "{\"ids\":[", 8);
            toks_put_ids(&p->out, p->idt, ids ? ids + at : ids, b->counts[k], ',');
            bb_put(&p->out, "]}\n", 3);
            at += b->counts[k];
        }
    }
    free(ids);
    p->oom |= p->out.oom;
    return NULL;
}

typedef struct jrun {
    tok_tokenizer *t;
    toks_jsonl *o;
    unsigned threads; /* threads per block at most */
    toks_idtext idt;
    jpart part[TOKS_JSONL_PARTS];
    unsigned m;       /* this block's shares, taken in turn by the threads from next */
    atomic_uint next;
} jrun;

static void *jshares(void *arg)
{
    crew *w = arg;
    jrun *j = w->job;
    for (unsigned k; (k = atomic_fetch_add(&j->next, 1)) < j->m;) {
        j->part[k].t = w->t;
        jb_run(&j->part[k]);
    }
    return NULL;
}

static size_t count_lines(const char *s, size_t n)
{
    size_t c = 0;
    for (const char *q = s, *e = s + n; (q = memchr(q, '\n', (size_t)(e - q))); q++)
        c++;
    return c;
}

/* Splits the complete lines s[0..n) into shares (at line ends, about equal in bytes), runs
 * them over the threads and writes them in order. */
static int jsonl_block(jrun *j, const char *s, size_t n)
{
    /* shares of about equal bytes ending at line ends, four per thread (taken in turn, so
     * that a thread with easy lines takes more), each at least TOKS_JSONL_PART_MIN */
    unsigned parts = j->threads > 1 ? j->threads * 4 : 1, m = 0;
    parts = parts > TOKS_JSONL_PARTS ? TOKS_JSONL_PARTS : parts;
    parts = parts > n / TOKS_JSONL_PART_MIN ? (unsigned)(n / TOKS_JSONL_PART_MIN) : parts;
    parts = parts < 1 ? 1 : parts;
    size_t at = 0, line = j->o->lines;
    for (unsigned k = 0; k < parts && at < n; k++, m++) {
        jpart *p = &j->part[m];
        size_t want = (n - at) / (parts - k); /* this share's bytes, ending at a line end */
        want = want ? want : 1;
        const char *nl = k + 1 < parts ? memchr(s + at + want - 1, '\n', n - at - want + 1) : NULL;
        size_t end = nl ? (size_t)(nl - s) + 1 : n;
        p->o = j->o, p->idt = &j->idt, p->s = s + at, p->n = end - at, p->line0 = line;
        p->bad = 0, p->stopped = p->oom = 0;
        line += count_lines(p->s, p->n);
        at = end;
    }
    if (n >= TOKS_JSONL_PART_MIN && !j->idt.n)
        toks_idtext_init(&j->idt, tok_n_vocab(j->t), ','); /* read-only from here on */
    j->m = m;
    atomic_init(&j->next, 0);
    crew_run(j->t, j->threads < m ? j->threads : m, j, jshares);
    int rc = 0;
    for (unsigned k = 0; k < m && !rc; k++) {
        jpart *p = &j->part[k];
        j->o->bad += p->bad;
        if (p->oom) {
            j->o->line = p->line0 + 1;
            rc = G2E_ENOMEM;
        } else if (p->out.n && (j->o->sys_errno = j->o->write(j->o->user, p->out.p, p->out.n))) {
            rc = TOKS_E_WRITE;
        } else if (p->stopped) {
            j->o->line = p->stop_line;
            memcpy(j->o->msg, p->stop_msg, sizeof j->o->msg);
            rc = TOKS_STOPPED;
        }
    }
    j->o->lines = line + (n && s[n - 1] != '\n'); /* a last line without its newline (end of input) */
    if ((rc == 0 || rc == TOKS_STOPPED) && j->o->flush) {
        int e = j->o->flush(j->o->user);
        if (e) {
            j->o->sys_errno = e;
            rc = TOKS_E_WRITE;
        }
    }
    return rc;
}

/* Reads fd block by block; each block's complete lines are processed at once. A block is
 * what one read gives (up to 1 MB from a file: 4 MB blocks cost 2 % more instructions in
 * copies on the corpus), or from a pipe all that has already arrived: lines are never held
 * back waiting for more. */
static int jsonl_read(jrun *j, int fd)
{
    size_t cap = 1 << 20, have = 0;
    char *buf = malloc(cap);
    int rc = buf ? 0 : G2E_ENOMEM, eof = 0;
    struct stat st;
    int regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    while (!rc && !eof) {
        if (have == cap) { /* a line longer than the buffer */
            char *nb = cap < TOKS_JSONL_MAX_LINE ? realloc(buf, cap * 2) : NULL;
            if (!nb) {
                j->o->line = 0, j->o->pending = have;
                rc = G2E_ENOMEM;
                break;
            }
            buf = nb, cap *= 2;
        }
        ssize_t k = read(fd, buf + have, cap - have);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            j->o->sys_errno = errno;
            rc = TOKS_E_READ;
            break;
        }
        eof = k == 0;
        have += (size_t)k;
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        if (!eof && !regular && have < cap / 2 && poll(&pf, 1, 0) == 1 && (pf.revents & POLLIN))
            continue; /* more has arrived already: one larger block */
        char *last = eof ? buf + have : memrchr(buf, '\n', have);
        size_t done = last ? (size_t)(last - buf) + (eof ? 0 : 1) : 0;
        if (!done)
            continue;
        rc = jsonl_block(j, buf, done);
        memmove(buf, buf + done, have - done);
        have -= done;
    }
    free(buf);
    return rc;
}

int toks_jsonl_run(tok_tokenizer *t, int fd, toks_jsonl *o)
{
    jrun *j = calloc(1, sizeof *j);
    o->lines = o->bad = o->line = o->pending = 0;
    o->sys_errno = 0;
    o->msg[0] = '\0';
    if (!j)
        return G2E_ENOMEM;
    /* each share's tokenizer runs alone (tok_worker's contract): t's own thread count goes
     * to 1 and the threads are the shares' */
    unsigned threads = tok_threads(t);
    j->t = t, j->o = o, j->threads = threads > TOKS_JSONL_PARTS ? TOKS_JSONL_PARTS : threads;
    tok_set_threads(t, 1);
    int rc = jsonl_read(j, fd);
    tok_set_threads(t, threads);
    for (unsigned k = 0; k < TOKS_JSONL_PARTS; k++) {
        jb_free(&j->part[k].b);
        bb_free(&j->part[k].out);
        bb_free(&j->part[k].key);
    }
    toks_idtext_free(&j->idt);
    free(j);
    return rc;
}
