/* SPDX-License-Identifier: MIT */
/* tokenizer.c — the API of tokenizer.h, on the calling thread: the UTF-8 check and lossy
 * copy, special tokens, pieces found in batches and looked up (vocabulary, piece caches),
 * BPE for the rest. Loading is in tok_load.c, the pre-tokenizer in tok_pretok.c, BPE in
 * tok_bpe.c (tok_internal.h says what they share); threads are src/lib/engine's.
 */
#define _GNU_SOURCE /* memmem */
#include "tok_internal.h"
#include "text.h"
#include "tok_pretok.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

size_t tok_utf8_check(const char *str, size_t len) { return text_validate(str, len); }

/* Appends IDs whose bytes follow each other from input offset base. */
static int emit_ids(tok_tokenizer *t, const uint32_t *ids, size_t cnt, obuf *o, size_t base)
{
    int rc = tok_ob_grow(o, cnt);
    if (rc)
        return rc;
    if (o->keep_off)
        for (size_t k = 0, at = base; k < cnt; k++) {
            o->off[o->n + k] = at;
            at += t->off[ids[k] + 1] - t->off[ids[k]];
        }
    memcpy(o->ids + o->n, ids, cnt * sizeof *ids);
    o->n += cnt;
    return 0;
}

static void lcache_put(tok_tokenizer *t, const uint8_t *p, size_t n, uint64_t h, const uint32_t *ids,
                       size_t cnt)
{
    /* made at the first long piece, not with the tokenizer: a short text's run then neither
     * maps its 192 KB nor reads them all to free it (45 of a cold start's 193 page faults).
     * Its entries hold malloc'd pointers, so it is malloc'd memory, where LeakSanitizer looks
     * for pointers (it does not scan anonymous mappings). */
    if (!t->lcache) {
        if (!(t->lcache = malloc(LCACHE_SLOTS * sizeof *t->lcache)))
            return; /* a failed cache insert only costs speed */
        /* Written now, not calloc'd (nor memset, which gcc turns back into calloc): a fresh
         * page calloc leaves untouched is first read by lcache_get, which maps the shared
         * zero page, and the first write then replaces it, a TLB flush that with a second
         * thread running is an interrupt to its CPU: 3/4 of the 113 such interrupts of
         * `tokenize --threads 2` on the corpus. */
        explicit_bzero(t->lcache, LCACHE_SLOTS * sizeof *t->lcache);
    }
    lcache_entry *c = &t->lcache[(h >> 40) & (LCACHE_SLOTS - 1)];
    uint8_t *d = malloc(n + cnt * sizeof *ids);
    if (!d)
        return; /* a failed cache insert only costs speed */
    memcpy(d, p, n);
    memcpy(d + n, ids, cnt * sizeof *ids);
    free(c->data);
    *c = (lcache_entry){h, (uint32_t)n, (uint32_t)cnt, d};
}

/* The long cache's IDs for p[0..n) (hash h), appended to o: 1 if it had them, else 0
 * (*rc: 0 or the error of appending). */
static int lcache_get(tok_tokenizer *t, const uint8_t *p, size_t n, uint64_t h, obuf *o, size_t base, int *rc)
{
    if (!t->lcache)
        return 0;
    lcache_entry *c = &t->lcache[(h >> 40) & (LCACHE_SLOTS - 1)];
    if (!c->data || c->len != n || c->hash != h || memcmp(c->data, p, n) != 0)
        return 0;
    uint32_t ids[LCACHE_MAX_PIECE];
    memcpy(ids, c->data + n, c->nids * sizeof *ids);
    *rc = emit_ids(t, ids, c->nids, o, base);
    return 1;
}

/* A piece too long for the inline cache: the long cache, else BPE. */
static int encode_long(tok_tokenizer *t, const uint8_t *p, size_t n, obuf *o, size_t base)
{
    if (n > LCACHE_MAX_PIECE)
        return tok_bpe(t, p, n, o, base, NULL, NULL);
    uint64_t h = hash_inline(p, n);
    int rc;
    if (lcache_get(t, p, n, h, o, base, &rc))
        return rc;
    uint32_t ids[LCACHE_MAX_PIECE];
    size_t cnt = 0;
    rc = tok_bpe(t, p, n, o, base, ids, &cnt);
    if (!rc)
        lcache_put(t, p, n, h, ids, cnt);
    return rc;
}

/* An entry's key is the piece's bytes, zero-padded: its first word is then the piece's
 * head word (head_word), compared without looking at the length. */
static inline void cache_key_put(cache_entry *c, const uint8_t *p, size_t n)
{
    memset(c->key, 0, CACHE_KEY);
    memcpy(c->key, p, n);
}

/* c's key is p[0..n) (n <= CACHE_KEY; w: head_word(p, n)). */
static inline int cache_key_eq(const cache_entry *c, const uint8_t *p, size_t n, uint64_t w)
{
    uint64_t k;
    memcpy(&k, c->key, 8);
    return k == w && (n <= 8 || bytes_eq(c->key + 8, p + 8, n - 8));
}

/* Encodes one piece (n >= 2) that is not a whole token, whose hash h was computed (and
 * its cache line prefetched) by hash_batch; h is 0 when n is more than both max_len and
 * CACHE_KEY, and then unused. */
static int encode_piece(tok_tokenizer *t, const uint8_t *p, size_t n, uint64_t h, obuf *o, size_t base)
{
    if (t->bpe_path != TOK_BPE_AUTO)
        return tok_bpe(t, p, n, o, base, NULL, NULL); /* a forced path: no cache */
    if (n > CACHE_KEY)
        return encode_long(t, p, n, o, base);
    cache_entry *c = &t->cache[(h >> 40) & (CACHE_SLOTS - 1)];
    int rc;
    if (c->len == n && c->hash == h && bytes_eq(c->key, p, n)) { /* (w unknown here) */
        if (c->nids <= CACHE_IDS)
            return emit_ids(t, c->ids, c->nids, o, base);
        if (lcache_get(t, p, n, h, o, base, &rc)) /* marked: more than CACHE_IDS tokens */
            return rc;
    }
    uint32_t ids[CACHE_KEY];
    size_t cnt = 0;
    rc = tok_bpe(t, p, n, o, base, ids, &cnt);
    if (rc)
        return rc;
    if (cnt <= CACHE_IDS) {
        uint32_t starts = CACHE_NO_STARTS, at = 0; /* IDs only: no token lengths looked up */
        if (o->keep_off)
            for (size_t k = starts = 0; k < cnt; k++) {
                starts |= at << (5 * k); /* at < n <= CACHE_KEY < 32 */
                at += t->off[ids[k] + 1] - t->off[ids[k]];
            }
        c->hash = h;
        c->len = (uint16_t)n;
        c->nids = (uint16_t)cnt;
        c->starts = starts;
        cache_key_put(c, p, n);
        memcpy(c->ids, ids, cnt * sizeof *ids);
    } else {
        /* the entry marks the piece as one of the long cache's (no probe of that cache for
         * a piece seen for the first time) */
        c->hash = h;
        c->len = (uint16_t)n;
        c->nids = CACHE_IN_LCACHE;
        cache_key_put(c, p, n);
        lcache_put(t, p, n, h, ids, cnt);
    }
    return 0;
}

/* ---------------------------------------------------------------- pieces in batches */

#define BATCH 64

/* A batch of pieces: their lengths (from tok_pretok), head words and hashes (hash_batch).
 * One pointer for the loops below (fewer arguments, fewer spilled registers). */
typedef struct piece_batch {
    uint32_t len[BATCH];
    uint64_t w[BATCH], h[BATCH];
} piece_batch;

/* A piece that is neither in its home slot nor in the piece cache: a whole token found by
 * probing the vocabulary, else encode_piece (BPE). */
static __attribute__((noinline)) int encode_probe(tok_tokenizer *t, const uint8_t *p, size_t l, uint64_t w,
                                                  uint64_t h, obuf *o, size_t at)
{
    uint32_t id = l <= t->max_len ? vocab_find_hw(t, p, l, w, h) : NONE;
    if (id == NONE)
        return encode_piece(t, p, l, h, o, at);
    if (o->keep_off)
        o->off[o->n] = at;
    o->ids[o->n++] = id;
    return 0;
}

/* A piece that its home slot did not resolve (see encode_batch), appended to o (room for
 * CACHE_IDS IDs more than it gives): a 1- or 2-byte piece (byte_id, pair2p1; two bytes
 * without a token are two tokens), a cached piece, else encode_probe. The cache is looked
 * at first: only pieces that are no token are put there, so a hit needs no probe of the
 * vocabulary. Out of line, and calling out only at its end (a leaf that saves next to no
 * registers): the hot loop keeps its registers. */
static __attribute__((noinline)) int encode_other(tok_tokenizer *t, const uint8_t *p, size_t l, uint64_t w,
                                                  uint64_t h, obuf *o, size_t at, int fast)
{
    uint32_t id;
    if (l == 1) {
        id = t->byte_id[p[0]];
    } else if (l == 2 && fast) {
        id = t->pair2p1[p[0] << 8 | p[1]] - 1u;
        if (id == NONE) {
            if (o->keep_off) {
                o->off[o->n] = at;
                o->off[o->n + 1] = at + 1;
            }
            o->ids[o->n] = t->byte_id[p[0]];
            o->ids[o->n + 1] = t->byte_id[p[1]];
            o->n += 2;
            return 0;
        }
    } else {
        const cache_entry *c = &t->cache[(h >> 40) & (CACHE_SLOTS - 1)];
        if (fast && l <= CACHE_KEY && c->len == l && c->hash == h && c->nids <= CACHE_IDS &&
            (!o->keep_off || c->starts != CACHE_NO_STARTS) && cache_key_eq(c, p, l, w)) {
            if (o->keep_off)
                for (size_t j = 0; j < c->nids; j++)
                    o->off[o->n + j] = at + (c->starts >> (5 * j) & 31);
            memcpy(o->ids + o->n, c->ids, sizeof c->ids); /* all CACHE_IDS: one fixed copy */
            o->n += c->nids;
            return 0;
        }
        return encode_probe(t, p, l, w, h, o, at);
    }
    if (o->keep_off)
        o->off[o->n] = at;
    o->ids[o->n++] = id;
    return 0;
}

/* Pieces 0..m-1 of a batch (lengths len[], the first from s + pos), with the head words
 * w[] and hashes h[] of each: appended to o, whose room was grown for one ID per byte (a
 * piece gives at most one token per byte), so the common cases write without a check. keep_off is a
 * constant where this is inlined (one loop with offsets, one without). pcur (if not NULL):
 * o->n before each piece k into pcur[k], and after the last into pcur[m], so that
 * tok_encode_joined can tell where each text's IDs end (one call for a batch of many short
 * texts instead of one a text, and a store a piece instead of a loop a text: fewer
 * instructions and mispredicted loop exits, bench/TOKENIZER_SIMD.md). Most pieces are whole tokens of at
 * most 8 bytes in their home slot (the index is filled in ID order, so frequent tokens
 * have theirs): one test for every length, no branch on the length, which is random and
 * would be mispredicted. The others take encode_other; with a forced BPE
 * path (`fast` 0) that sends every piece that is not a whole token to encode_piece. */
static inline __attribute__((always_inline)) int
encode_batch(tok_tokenizer *t, const uint8_t *s, size_t pos, const piece_batch *b, size_t m, obuf *o, size_t base,
             size_t *pcur, int keep_off, int fast)
{
    uint32_t *ids = o->ids;
    size_t *off = o->off, cur = o->n;
    const tok_slot *slots = t->slots; /* in locals: the stores to ids[] could alias t */
    uint64_t mask = t->mask;
    for (size_t k = 0; k < m; k++) {
        size_t l = b->len[k];
        const tok_slot *e = &slots[b->h[k] & mask];
        if (pcur)
            pcur[k] = cur;
        if (__builtin_expect(e->head == b->w[k] && e->len == l && l <= 8, 1)) {
            if (keep_off)
                off[cur] = base + pos;
            ids[cur++] = e->id1 - 1;
        } else {
            o->n = cur;
            int rc = encode_other(t, s + pos, l, b->w[k], b->h[k], o, base + pos, fast);
            if (rc)
                return rc;
            ids = o->ids; /* o may have grown */
            off = o->off;
            cur = o->n;
        }
        pos += l;
    }
    if (pcur)
        pcur[m] = cur;
    o->n = cur;
    return 0;
}

/* The batch loop's variants, each compiled on its own (fewer registers to spill). */
static __attribute__((noinline)) int encode_batch_ids(tok_tokenizer *t, const uint8_t *s, size_t pos,
                                                      const piece_batch *b, size_t m, obuf *o, size_t base)
{
    return encode_batch(t, s, pos, b, m, o, base, NULL, 0, 1);
}

static __attribute__((noinline)) int encode_batch_texts(tok_tokenizer *t, const uint8_t *s, size_t pos,
                                                        const piece_batch *b, size_t m, obuf *o, size_t *pcur)
{
    if (!pcur)
        __builtin_unreachable(); /* (the loop stores without a test) */
    return encode_batch(t, s, pos, b, m, o, 0, pcur, 0, 1);
}

static __attribute__((noinline)) int encode_batch_off(tok_tokenizer *t, const uint8_t *s, size_t pos,
                                                      const piece_batch *b, size_t m, obuf *o, size_t base)
{
    return encode_batch(t, s, pos, b, m, o, base, NULL, 1, 1);
}

static __attribute__((noinline)) int encode_batch_forced(tok_tokenizer *t, const uint8_t *s, size_t pos,
                                                         const piece_batch *b, size_t m, obuf *o, size_t base,
                                                         size_t *pcur)
{
    return encode_batch(t, s, pos, b, m, o, base, pcur, o->keep_off, 0);
}

/* Pieces 0..m-1 of b through the variant for t's BPE path and o's offsets (pcur:
 * encode_batch's; only without offsets). */
static inline int encode_pieces(tok_tokenizer *t, const uint8_t *s, size_t pos, const piece_batch *b, size_t m,
                                obuf *o, size_t base, size_t *pcur)
{
    return t->bpe_path != TOK_BPE_AUTO ? encode_batch_forced(t, s, pos, b, m, o, base, pcur)
           : o->keep_off              ? encode_batch_off(t, s, pos, b, m, o, base)
           : pcur                     ? encode_batch_texts(t, s, pos, b, m, o, pcur)
                                      : encode_batch_ids(t, s, pos, b, m, o, base);
}

/* key_hash's masks for a piece of l <= 16 bytes read as two 8-byte words: [l][0] keeps
 * its first min(l, 8) bytes of the first, [l][1] its bytes 8..l of the second. */
#define HM(l) ((l) >= 8 ? ~0ull : (1ull << (8 * ((l) & 7))) - 1) /* (& 7: no shift of 64 or more, even unused) */
#define HM2(l) ((l) <= 8 ? 0 : HM((l) - 8))
#define HMS(l) {HM(l), HM2(l)}
static const uint64_t hash_mask[17][2] = {HMS(0),  HMS(1),  HMS(2),  HMS(3),  HMS(4),  HMS(5),
                                          HMS(6),  HMS(7),  HMS(8),  HMS(9),  HMS(10), HMS(11),
                                          HMS(12), HMS(13), HMS(14), HMS(15), HMS(16)};

/* The head words w[] and hashes h[] of the m pieces (lengths len[]) of s[0..n) from `at`,
 * their vocabulary slots and cache lines prefetched; returns where the last one ends. */
static __attribute__((noinline)) size_t hash_batch(const tok_tokenizer *t, const uint8_t *s, size_t n, size_t at,
                                                   piece_batch *b, size_t m)
{
    size_t hash_max = t->max_len > CACHE_KEY ? t->max_len : CACHE_KEY;
    const tok_slot *slots = t->slots;
    const cache_entry *cache = t->cache;
    uint64_t mask = t->mask;
    for (size_t k = 0; k < m; k++) {
        size_t l = b->len[k];
        uint64_t hw, hk;
        if (__builtin_expect(l <= 16 && at + 16 <= n, 1)) {
            /* key_hash without a branch on the length: two loads masked to the piece */
            uint64_t w1;
            memcpy(&hw, s + at, 8);
            memcpy(&w1, s + at + 8, 8);
            hw &= hash_mask[l][0];
            w1 &= hash_mask[l][1];
            hk = mum(hw ^ KEY_S0, w1 ^ KEY_S1 ^ l);
        } else if (l <= hash_max) {
            hw = head_word(s + at, l);
            hk = key_hash(s + at, l, hw);
        } else {
            hw = ~0ull; /* matches no slot (l > 8): too long for a token or the inline cache */
            hk = 0;
        }
        b->w[k] = hw;
        b->h[k] = hk;
        __builtin_prefetch(&slots[hk & mask]);
        __builtin_prefetch(&cache[(hk >> 40) & (CACHE_SLOTS - 1)]);
        at += l;
    }
    return at;
}

/* Pieces are found BATCH at a time (tok_pretok), hashed, their vocabulary slots and cache
 * lines prefetched, then encoded in order: the loads (mostly cache misses on tables of
 * megabytes) overlap instead of stalling one after another. */
static int encode_ordinary(tok_tokenizer *t, const uint8_t *s, size_t n, obuf *o, size_t base)
{
    if (n > UINT32_MAX)
        return TOK_E_TOO_LARGE; /* a piece length must fit uint32 */
    piece_batch b;
    size_t pos = 0;
    while (pos < n) {
        size_t m = tok_pretok(s, n, pos, b.len, BATCH);
        size_t at = hash_batch(t, s, n, pos, &b, m);
        int rc = tok_ob_grow(o, at - pos + CACHE_IDS); /* one ID per byte, and encode_other's copy */
        if (rc)
            return rc;
        if ((rc = encode_pieces(t, s, pos, &b, m, o, base, NULL)))
            return rc;
        pos = at;
    }
    return 0;
}

/* ---------------------------------------------------------------- encode / decode */

void tok_ids_free(tok_ids *r)
{
    if (!r)
        return;
    free(r->ids);
    free(r->offsets);
    memset(r, 0, sizeof *r);
}

static const char *find_special(const char *s, size_t n)
{
    return memmem(s, n, TOK_ENDOFTEXT_TEXT, sizeof TOK_ENDOFTEXT_TEXT - 1);
}

/* Encodes s[0..n) (valid UTF-8; special tokens already known to be allowed) into o, with
 * offsets from base; with `specials`, each <|endoftext|> is the special token. */
static int encode_range(tok_tokenizer *t, const char *s, size_t n, size_t base, int specials, obuf *o)
{
    size_t pos = 0;
    int rc;
    tok_caches_huge(t, n);
    if (specials) {
        const char *hit;
        while ((hit = find_special(s + pos, n - pos)) != NULL) {
            size_t at = (size_t)(hit - s);
            if ((rc = encode_ordinary(t, (const uint8_t *)s + pos, at - pos, o, base + pos)) ||
                (rc = ob_push(o, t->special_id, base + at)))
                return rc;
            pos = at + sizeof TOK_ENDOFTEXT_TEXT - 1;
        }
    }
    return encode_ordinary(t, (const uint8_t *)s + pos, n - pos, o, base + pos);
}

/* ---------------------------------------------------------------- settings and clones */

void tok_set_bpe_path(tok_tokenizer *t, int path)
{
    int p = path & ~TOK_BPE_WHOLE;
    t->bpe_path = p >= TOK_BPE_AUTO && p <= TOK_BPE_BUCKETS ? path : TOK_BPE_AUTO;
}

/* Only the tables are copied (the fields before `cache`): t may be encoding in another
 * thread meanwhile, growing its own scratch or making its long cache, and a copy of the
 * whole struct would read those fields as they are written (a data race). */
tok_tokenizer *tok_clone(const tok_tokenizer *t)
{
    tok_tokenizer *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    memcpy(w, t, offsetof(tok_tokenizer, cache));
    w->source = NULL;
    w->is_clone = 1;
    w->bpe_path = t->bpe_path;
    if (tok_alloc_caches(w)) {
        tok_close(w);
        return NULL;
    }
    return w;
}

/* ---------------------------------------------------------------- a text's checks */

/* The lossy copy of text[len]: each maximal ill-formed subpart becomes U+FFFD (EF BF BD);
 * *clean (n bytes) and *map (each byte's offset in text) are new; *n_rep counts the
 * replacements. */
static int lossy_copy(const char *text, size_t len, char **clean, size_t **map, size_t *n, size_t *n_rep,
                      g2e_err *err)
{
    /* at most 3 bytes per input byte */
    if (len > (SIZE_MAX - 1) / 3 / sizeof(size_t))
        return g2e_fail(err, TOK_E_TOO_LARGE, "input of %zu bytes is too large", len);
    char *c = *clean = malloc(3 * len + 1);
    size_t *m = *map = malloc((3 * len + 1) * sizeof *m);
    if (!c || !m)
        return g2e_fail(err, G2E_ENOMEM, "out of memory for the lossy copy of %zu bytes", len);
    const uint8_t *u = (const uint8_t *)text;
    size_t w = 0;
    for (size_t i = 0; i < len;) {
        size_t sub, k = text_step(text + i, len - i, &sub) == TEXT_BAD ? 0 : sub;
        if (k) {
            for (size_t j = 0; j < k; j++) {
                c[w] = (char)u[i + j];
                m[w++] = i + j;
            }
            i += k;
        } else {
            static const char fffd[3] = {'\xEF', '\xBF', '\xBD'};
            for (size_t j = 0; j < 3; j++) {
                c[w] = fffd[j];
                m[w++] = i;
            }
            i += sub;
            (*n_rep)++;
        }
    }
    *n = w;
    return 0;
}

/* The first special token of s[n] when `special` refuses it (TOK_E_SPECIAL, its offset in
 * the original text through map), else 0. */
static int refuse_special(const tok_tokenizer *t, const char *s, size_t n, const size_t *map, tok_special special,
                          size_t *bad_offset, g2e_err *err)
{
    if (special == TOK_SPECIAL_TEXT)
        return 0;
    const char *hit = find_special(s, n);
    if (!hit || (special != TOK_SPECIAL_ERROR && t->special_id != NONE))
        return 0;
    if (special != TOK_SPECIAL_ERROR)
        return g2e_fail(err, TOK_E_SPECIAL, "this vocabulary has no %s token", TOK_ENDOFTEXT_TEXT);
    size_t at = (size_t)(hit - s), orig = map ? map[at] : at;
    if (bad_offset)
        *bad_offset = orig;
    return g2e_fail(err, TOK_E_SPECIAL,
                    "the special token %s at byte offset %zu is not allowed here", TOK_ENDOFTEXT_TEXT, orig);
}

int tok_text_begin(const tok_tokenizer *t, const char *text, size_t len, tok_special special, unsigned flags,
                   tok_text *x, size_t *bad_offset, g2e_err *err)
{
    memset(x, 0, sizeof *x);
    if (!text && len)
        return g2e_fail(err, G2E_EINVAL, "tok_encode: NULL text with length %zu", len);
    x->s = text ? text : ""; /* NULL with length 0 is the empty text */
    x->n = len;
    size_t bad = flags & TOK_VALID_UTF8 ? len : tok_utf8_check(x->s, len);
    if (bad < len && !(flags & TOK_LOSSY)) {
        if (bad_offset)
            *bad_offset = bad;
        return g2e_fail(err, TOK_E_UTF8, "invalid UTF-8 at byte offset %zu (byte 0x%02X)", bad,
                        (unsigned)(uint8_t)x->s[bad]);
    }
    int rc = bad < len ? lossy_copy(x->s, len, &x->clean, &x->map, &x->n, &x->n_rep, err) : 0;
    if (x->clean && !rc)
        x->s = x->clean;
    if (!rc)
        rc = refuse_special(t, x->s, x->n, x->map, special, bad_offset, err);
    x->specials = special == TOK_SPECIAL_TOKEN;
    if (rc)
        tok_text_end(x, NULL, 0);
    return rc;
}

int tok_encode_part(tok_tokenizer *t, const tok_text *x, size_t from, size_t to, obuf *o)
{
    return encode_range(t, x->s + from, to - from, from, x->specials, o);
}

int tok_work_fail(g2e_err *err, int work, size_t len)
{
    return work == TOK_E_TOO_LARGE ? g2e_fail(err, work, "input too large to tokenize")
                                   : g2e_fail(err, G2E_ENOMEM, "out of memory tokenizing %zu bytes", len);
}

void tok_text_end(tok_text *x, obuf *o, size_t start)
{
    if (o && x->map && o->keep_off)
        for (size_t k = start; k < o->n; k++)
            o->off[k] = x->map[o->off[k]];
    free(x->clean);
    free(x->map);
    x->clean = NULL;
    x->map = NULL;
}

/* tok_encode's work, appending to o (offsets relative to this text); on failure o->n is
 * back where it was. *n_rep: replaced subparts (lossy). */
static int encode_into(tok_tokenizer *t, const char *text, size_t len, tok_special special, unsigned flags, obuf *o,
                       size_t *n_rep_out, size_t *bad_offset, g2e_err *err)
{
    size_t start = o->n;
    tok_text x;
    int rc = tok_text_begin(t, text, len, special, flags, &x, bad_offset, err);
    if (rc)
        return rc;
    int work = start == 0 ? tok_ob_room_for_text(o, x.n) : 0;
    work = work ? work : tok_encode_part(t, &x, 0, x.n, o);
    if (work) {
        rc = tok_work_fail(err, work, len);
        o->n = start;
    } else {
        *n_rep_out = x.n_rep;
    }
    tok_text_end(&x, rc ? NULL : o, start);
    return rc;
}

int tok_encode_ob(tok_tokenizer *t, const char *text, size_t len, tok_special special, unsigned flags,
                  obuf *o, size_t *n_rep, size_t *bad_offset, g2e_err *err)
{
    o->n = 0;
    *n_rep = 0;
    int rc = encode_into(t, text, len, special, flags, o, n_rep, bad_offset, err);
    if (!rc && o->keep_off && (rc = tok_ob_grow(o, 1))) /* offsets has n + 1 entries */
        rc = g2e_fail(err, G2E_ENOMEM, "out of memory tokenizing %zu bytes", len);
    if (!rc && o->keep_off)
        o->off[o->n] = len;
    return rc;
}

int tok_encode(tok_tokenizer *t, const char *text, size_t len, tok_special special, unsigned flags,
               tok_ids *out, size_t *bad_offset, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    obuf o = {0};
    o.keep_off = !(flags & TOK_NO_OFFSETS);
    size_t n_rep;
    int rc = tok_encode_ob(t, text, len, special, flags, &o, &n_rep, bad_offset, err);
    if (rc) {
        free(o.ids);
        free(o.off);
        return rc;
    }
    out->ids = o.ids;
    out->offsets = o.off;
    out->n = o.n;
    out->n_replaced = n_rep;
    return 0;
}

int tok_encode_append(tok_tokenizer *t, const char *text, size_t len, tok_special special, unsigned flags,
                      obuf *o, g2e_err *err)
{
    size_t n_rep, start = o->n;
    o->keep_off = 0;
    /* a checked text that no special token can make fail: straight to the work (a stream of
     * short texts pays encode_into's checks once per text otherwise) */
    if ((flags & TOK_VALID_UTF8) && text &&
        (special == TOK_SPECIAL_TEXT || (special == TOK_SPECIAL_TOKEN && t->special_id != NONE))) {
        int rc = encode_range(t, text, len, 0, special == TOK_SPECIAL_TOKEN, o);
        if (!rc)
            return 0;
        o->n = start;
        return tok_work_fail(err, rc, len);
    }
    return encode_into(t, text, len, special, flags | TOK_NO_OFFSETS, o, &n_rep, NULL, err);
}

/* ---------------------------------------------------------------- many texts at once */

/* tok_encode_joined's texts one by one through tok_encode_append (some text holds a special
 * token, a character cut by a text's end, bad UTF-8, or more than 4 GB). */
static int joined_each(tok_tokenizer *t, const char *s, const size_t *ends, size_t nt, tok_special special,
                       unsigned flags, obuf *o, size_t *counts, int *rcs)
{
    size_t start = o->n;
    for (size_t k = 0, from = 0; k < nt; from = ends[k++]) {
        size_t before = o->n;
        rcs[k] = tok_encode_append(t, s + from, ends[k] - from, special, flags, o, NULL);
        if (rcs[k] == G2E_ENOMEM) {
            o->n = start;
            return G2E_ENOMEM;
        }
        counts[k] = o->n - before;
    }
    return 0;
}

int tok_encode_joined(tok_tokenizer *t, const char *text, const size_t *ends, size_t nt, tok_special special,
                      unsigned flags, obuf *o, size_t *counts, int *rcs)
{
    const uint8_t *s = (const uint8_t *)text;
    size_t total = nt ? ends[nt - 1] : 0, start = o->n;
    o->keep_off = 0;
    /* one check over the whole buffer stands for every text's when no text's end cuts a
     * character (no continuation byte follows it) and no special token is anywhere */
    int valid = (flags & TOK_VALID_UTF8) || tok_utf8_check(text, total) == total;
    for (size_t k = 0; valid && k + 1 < nt; k++)
        valid = ends[k] == total || (s[ends[k]] & 0xC0) != 0x80;
    if (!valid || total > UINT32_MAX || (special != TOK_SPECIAL_TEXT && find_special(text, total)))
        return joined_each(t, text, ends, nt, special, flags, o, counts, rcs);
    tok_caches_huge(t, total);
    piece_batch b;
    uint32_t mark[BATCH]; /* where in the batch each text that ends in it ends */
    size_t cur[BATCH + 1]; /* o->n before each piece (encode_batch) */
    size_t k = 0, pos = 0, text_n = o->n;
    while (k < nt) {
        /* a batch of pieces from the texts in turn, each text's end marked */
        size_t nm, k0 = k, at = pos;
        size_t m = tok_pretok_texts(s, ends, nt, &k, &at, b.len, BATCH, mark, &nm, BATCH);
        if (m)
            hash_batch(t, s, total, pos, &b, m); /* (ends where the pieces do: at) */
        int rc = tok_ob_grow(o, at - pos + CACHE_IDS);
        /* the pieces of the texts that end here and of the one that goes on, in one call (a
         * text starts where the one before it ends: its pieces follow the last one's) */
        if (!rc)
            rc = encode_pieces(t, s, pos, &b, m, o, 0, cur);
        for (size_t j = 0; !rc && j < nm; j++) {
            counts[k0 + j] = cur[mark[j]] - text_n;
            rcs[k0 + j] = 0;
            text_n = cur[mark[j]];
        }
        if (rc) {
            o->n = start;
            return rc;
        }
        pos = at;
    }
    return 0;
}

int tok_piece(const tok_tokenizer *t, uint32_t id, const uint8_t **bytes, size_t *len, g2e_err *err)
{
    if (id >= t->n_vocab)
        return g2e_fail(err, TOK_E_ID, "token ID %u is outside the vocabulary (0..%u)", id, t->n_vocab - 1);
    *bytes = t->blob + t->off[id];
    *len = t->off[id + 1] - t->off[id];
    return 0;
}

int tok_decode(const tok_tokenizer *t, const uint32_t *ids, size_t n, char **out, size_t *out_len,
               g2e_err *err)
{
    *out = NULL;
    *out_len = 0;
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        if (ids[i] >= t->n_vocab)
            return g2e_fail(err, TOK_E_ID, "token ID %u (at index %zu) is outside the vocabulary (0..%u)",
                            ids[i], i, t->n_vocab - 1);
        total += t->off[ids[i] + 1] - t->off[ids[i]];
        if (total > SIZE_MAX / 2)
            return g2e_fail(err, TOK_E_TOO_LARGE, "decoded text too large");
    }
    char *b = malloc(total + 1);
    if (!b)
        return g2e_fail(err, G2E_ENOMEM, "out of memory decoding %zu IDs", n);
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t o = t->off[ids[i]], l = t->off[ids[i] + 1] - o;
        memcpy(b + w, t->blob + o, l);
        w += l;
    }
    b[w] = '\0';
    *out = b;
    *out_len = w;
    return 0;
}

