/* SPDX-License-Identifier: MIT */
/* tok_bpe.c — BPE of one piece, exactly as tiktoken: the rank of two adjacent parts is the
 * ID of their concatenation (checked at load), and the leftmost pair of lowest rank is
 * merged first. Three paths give the same merges in the same order: a linear scan for short
 * pieces (tiktoken's own algorithm), a heap keyed by (rank, position), and from LONG_PIECE
 * bytes one bucket of positions per rank. tok_set_bpe_path forces one (tests).
 */
#include "tok_internal.h"

#include <stdlib.h>
#include <string.h>


static int scratch(tok_tokenizer *t, size_t n)
{
    if (n <= t->scratch_cap)
        return 0;
    size_t c = t->scratch_cap ? t->scratch_cap : 64;
    while (c < n)
        c *= 2;
    if (c > UINT32_MAX / 2)
        return TOK_E_TOO_LARGE;
    uint32_t *a = realloc(t->s_next, c * sizeof *a);
    if (a) t->s_next = a;
    uint32_t *b = realloc(t->s_prev, c * sizeof *b);
    if (b) t->s_prev = b;
    uint32_t *r = realloc(t->s_rank, c * sizeof *r);
    if (r) t->s_rank = r;
    uint32_t *d = realloc(t->s_id, c * sizeof *d);
    if (d) t->s_id = d;
    uint64_t *h = realloc(t->s_heap, 2 * c * sizeof *h);
    if (h) t->s_heap = h;
    if (!a || !b || !r || !d || !h)
        return G2E_ENOMEM;
    t->scratch_cap = c;
    return 0;
}

static inline void heap_push(uint64_t *h, size_t *n, uint64_t v)
{
    size_t i = (*n)++;
    while (i) {
        size_t p = (i - 1) / 2;
        if (h[p] <= v)
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = v;
}

static inline void heap_sift_down(uint64_t *h, size_t m, size_t i)
{
    uint64_t v = h[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= m)
            break;
        if (c + 1 < m && h[c + 1] < h[c])
            c++;
        if (h[c] >= v)
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = v;
}

static inline uint64_t heap_pop(uint64_t *h, size_t *n)
{
    uint64_t top = h[0];
    h[0] = h[--(*n)];
    heap_sift_down(h, *n, 0);
    return top;
}

#define SMALL_PIECE 64

/* Rank of the pair (token a, token b) whose bytes are p[0..n): a small direct-mapped memo
 * of recent pairs (IDs < 2^20, hence the MAX_VOCAB limit) in front of the vocabulary hash,
 * whose 2 MB would otherwise cost a cache miss per lookup. The memo only remembers what
 * vocab_find answered, so results are unchanged. */
static inline uint64_t *memo_slot(tok_tokenizer *t, uint32_t a, uint32_t b)
{
    return &t->memo[((uint64_t)a * 0x9E3779B1u ^ b * 0x85EBCA77u) >> 7 & (MEMO_SLOTS - 1)];
}

/* pair_rank's answer from its memo slot m, whose word e was read already (so that a caller
 * with two pairs has both slots' loads in flight before it needs either). */
static inline __attribute__((always_inline)) uint32_t pair_rank_at(tok_tokenizer *t, uint64_t *m, uint64_t e, uint32_t a,
                                                                    uint32_t b, const uint8_t *p, size_t n)
{
    uint64_t key = (uint64_t)a << 40 | (uint64_t)b << 20;
    uint32_t v = (uint32_t)(e & 0xFFFFF); /* 0: empty slot; 0xFFFFF: not a token */
    if ((e & ~(uint64_t)0xFFFFF) == key && v)
        return v == 0xFFFFF ? NONE : v - 1;
    uint32_t r = vocab_find(t, p, n);
    *m = key | (r == NONE ? 0xFFFFF : (uint64_t)r + 1);
    return r;
}

static inline __attribute__((always_inline)) uint32_t pair_rank(tok_tokenizer *t, uint32_t a, uint32_t b, const uint8_t *p, size_t n)
{
    uint64_t *m = memo_slot(t, a, b);
    return pair_rank_at(t, m, *m, a, b, p, n);
}

#define KEY_NONE INT32_MAX

/* 1 if the bytes a, b stand side by side in some token of the vocabulary (tok_bpe: where
 * they do not, no merge joins them). */
static inline int joined(const tok_tokenizer *t, uint8_t a, uint8_t b)
{
    unsigned ab = (unsigned)a << 8 | b;
    return (int)(t->joins[ab >> 6] >> (ab & 63) & 1);
}

/* The smaller of two keys, without a branch, in general registers: the compiler would
 * otherwise make the scan's search a vector one, whose 16-byte loads wait on the keys the
 * last merge stored one at a time (a store does not forward to a wider load). */
static inline int32_t key_min(int32_t a, int32_t b)
{
    __asm__("" : "+r"(a));
    return a < b ? a : b;
}

#define KEY_BLOCK 8

/* BPE of a short piece (2 <= n <= SMALL_PIECE) the way tiktoken does it: each step a
 * search of all pairs for the leftmost lowest rank. Parts are linked by `nx` (no moving of
 * arrays). Pair i (part i and the part after it) has the key rank << 6 | i, KEY_NONE when
 * it is no token or part i was absorbed: the smallest key is then tiktoken's leftmost
 * lowest pair, found by running minima over whole blocks of keys without a branch per pair,
 * whose outcome is random and would be mispredicted (ranks < MAX_VOCAB < 2^25, so keys fit
 * int32). With cut, the piece's parts between places where no merge can join (tok_bpe) are
 * done one after the other, each search looking at its part's pairs only; a part of one
 * byte is its byte's token and is not looked at. Writes the token IDs to ids and to dup
 * (which may be ids), their starts plus base to off unless it is NULL; returns the count. */
static size_t bpe_small(tok_tokenizer *t, const uint8_t *p, size_t n, int cut, uint32_t *ids, uint32_t *dup,
                        size_t *off, size_t base)
{
    uint8_t nx[SMALL_PIECE + 1], pv[SMALL_PIECE];
    uint32_t pid[SMALL_PIECE];
    /* a part's keys, then KEY_NONE up to its search's last block: the pair across the cut
     * (which no token holds) or the last part's, and the padding */
    int32_t key[SMALL_PIECE + KEY_BLOCK];
    const uint32_t *pair2p1 = t->pair2p1, *byte_id = t->byte_id;
    uint64_t cuts = 0; /* bit i: no merge joins byte i and byte i + 1 (a 2-byte token's pair never) */
    for (size_t i = 0; i + 1 < n; i++) {
        nx[i] = (uint8_t)(i + 1);
        pv[i] = (uint8_t)(i - 1); /* pv[0] is never read */
        pid[i] = byte_id[p[i]];
        cuts |= (uint64_t)!joined(t, p[i], p[i + 1]) << i;
    }
    nx[n - 1] = (uint8_t)n;
    pv[n - 1] = (uint8_t)(n - 2);
    pid[n - 1] = byte_id[p[n - 1]];
    if (!cut)
        cuts = 0;
    int cached = cuts != 0; /* a whole piece was looked for in the piece cache already */
    /* bit i of ends: a part ends at byte i; of firsts: one of two bytes or more begins there */
    uint64_t ends = cuts | (uint64_t)1 << (n - 1), firsts = (cuts << 1 | 1) & ~ends;
    while (firsts) {
        size_t lo = (size_t)__builtin_ctzll(firsts), hi = (size_t)__builtin_ctzll(ends >> lo) + lo + 1;
        firsts &= firsts - 1;
        part_entry *pe = NULL;
        uint64_t pk = 0;
        size_t len = hi - lo;
        if (cached && len <= PART_KEY) {
            pk = head_word(p + lo, len); /* the bytes, zero-padded */
            pe = &t->parts[((pk ^ len) * 0x9E3779B97F4A7C15ull) >> 53 & (PART_SLOTS - 1)];
            if (pe->len == len && pe->key == pk) { /* the part's tokens, linked as merges would */
                for (size_t k = 0; k < pe->n; k++) {
                    size_t at = lo + pe->starts[k];
                    pid[at] = pe->ids[k];
                    nx[at] = (uint8_t)(k + 1 < pe->n ? lo + pe->starts[k + 1] : hi);
                }
                continue;
            }
        }
        for (size_t i = lo; i + 1 < hi; i++) {
            uint32_t r = pair2p1[p[i] << 8 | p[i + 1]];
            key[i] = r ? (int32_t)((r - 1) << 6 | i) : KEY_NONE;
        }
        for (size_t k = 0; k < KEY_BLOCK; k++)
            key[hi - 1 + k] = KEY_NONE;
        for (size_t end = lo + ((len - 1 + KEY_BLOCK - 1) & ~(size_t)(KEY_BLOCK - 1));;) {
            int32_t b0 = KEY_NONE, b1 = KEY_NONE, b2 = KEY_NONE, b3 = KEY_NONE;
            for (size_t i = lo; i < end; i += KEY_BLOCK) {
                b0 = key_min(key_min(key[i], key[i + 4]), b0);
                b1 = key_min(key_min(key[i + 1], key[i + 5]), b1);
                b2 = key_min(key_min(key[i + 2], key[i + 6]), b2);
                b3 = key_min(key_min(key[i + 3], key[i + 7]), b3);
            }
            int32_t best = key_min(key_min(b0, b1), key_min(b2, b3));
            if (best == KEY_NONE)
                break;
            /* part bi absorbs the part j after it */
            size_t bi = (size_t)best & 63, j = nx[bi], k = nx[j];
            uint32_t id = (uint32_t)best >> 6;
            key[j] = KEY_NONE; /* j < hi - 1 when it has a pair, else its key is KEY_NONE already */
            nx[bi] = (uint8_t)k;
            pid[bi] = id;
            /* the new pairs on both sides, inside the part: both memo slots read before either
             * is resolved (their loads, each often a miss of the core's caches, then overlap) */
            size_t q = pv[bi];
            uint64_t *mr = k < hi ? memo_slot(t, id, pid[k]) : NULL, *ml = bi > lo ? memo_slot(t, pid[q], id) : NULL;
            uint64_t er = mr ? *mr : 0, el = ml ? *ml : 0;
            if (k < hi) {
                pv[k] = (uint8_t)bi;
                uint32_t r = pair_rank_at(t, mr, er, id, pid[k], p + bi, nx[k] - bi);
                key[bi] = r == NONE ? KEY_NONE : (int32_t)(r << 6 | bi);
            } else {
                key[bi] = KEY_NONE;
            }
            if (bi > lo) {
                if (mr == ml) /* the same slot: the first answer may have rewritten it */
                    el = *ml;
                uint32_t r = pair_rank_at(t, ml, el, pid[q], id, p + q, k - q);
                key[q] = r == NONE ? KEY_NONE : (int32_t)(r << 6 | q);
            }
        }
        if (pe) {
            part_entry e = {.key = pk, .len = (uint8_t)len};
            for (size_t i = lo; i < hi && e.n <= PART_IDS; i = nx[i], e.n++)
                if (e.n < PART_IDS) {
                    e.starts[e.n] = (uint8_t)(i - lo);
                    e.ids[e.n] = pid[i];
                }
            if (e.n <= PART_IDS)
                *pe = e;
        }
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i = nx[i], m++)
        ids[m] = dup[m] = pid[i];
    if (off)
        for (size_t i = 0, k = 0; i < n; i = nx[i])
            off[k++] = base + i;
    return m;
}

#define LONG_PIECE 1024

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void rheap_push(uint32_t *h, size_t *n, uint32_t v)
{
    size_t i = (*n)++;
    while (i) {
        size_t p = (i - 1) / 2;
        if (h[p] <= v)
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = v;
}

static void rheap_pop(uint32_t *h, size_t *n)
{
    uint32_t v = h[--(*n)];
    size_t i = 0, m = *n;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= m)
            break;
        if (c + 1 < m && h[c + 1] < h[c])
            c++;
        if (h[c] >= v)
            break;
        h[i] = h[c];
        i = c;
    }
    if (m)
        h[i] = v;
}

static int bucket_add(tok_tokenizer *t, size_t *hn, uint32_t r, uint32_t pos)
{
    rank_bucket *b = &t->buckets[r];
    if (b->n == b->cap) {
        uint32_t c = b->cap ? b->cap * 2 : 16;
        uint32_t *v = realloc(b->v, (size_t)c * sizeof *v);
        if (!v)
            return G2E_ENOMEM;
        b->v = v;
        b->cap = c;
    }
    if (b->n > b->cursor && b->v[b->n - 1] > pos)
        b->unsorted = 1;
    b->v[b->n++] = pos;
    if (!b->in_heap) {
        b->in_heap = 1;
        rheap_push(t->rheap, hn, r);
    }
    return 0;
}

/* BPE of a long piece (n >= LONG_PIECE), the same merges in the same order as the heap
 * version below, without its O(log n) cache-missing heap: pending pairs wait in one bucket
 * per rank (positions in increasing order, as merges happen left to right), and a small
 * heap holds only the distinct ranks pending. The next merge is the first position of the
 * lowest-ranked bucket: tiktoken's leftmost lowest pair. A merge never re-creates its own
 * rank (the new pairs span more bytes, hence are other tokens), so a bucket in progress only
 * ever gets lower-ranked buckets put before it, which the rank heap handles; a bucket whose
 * appends came out of order is sorted when it next comes up. */
static int bpe_long(tok_tokenizer *t, const uint8_t *p, size_t n, obuf *o, size_t base)
{
    int rc = scratch(t, n + 1);
    if (rc)
        return rc;
    if (!t->buckets) {
        t->buckets = calloc(t->n_vocab, sizeof *t->buckets);
        t->rheap = malloc(t->n_vocab * sizeof *t->rheap);
        if (!t->buckets || !t->rheap)
            return G2E_ENOMEM;
    }
    uint32_t *nx = t->s_next, *pv = t->s_prev, *rk = t->s_rank, *id = t->s_id;
    size_t hn = 0;
    for (size_t i = 0; i < n; i++) {
        nx[i] = (uint32_t)(i + 1);
        pv[i] = i ? (uint32_t)(i - 1) : NONE;
        id[i] = t->byte_id[p[i]];
    }
    rk[n - 1] = NONE;
    for (size_t i = 0; i + 1 < n; i++) {
        rk[i] = t->pair2p1[p[i] << 8 | p[i + 1]] - 1u;
        if (rk[i] != NONE && (rc = bucket_add(t, &hn, rk[i], (uint32_t)i)))
            goto done;
    }
    while (hn) {
        uint32_t r = t->rheap[0];
        rank_bucket *b = &t->buckets[r];
        if (b->unsorted) {
            qsort(b->v + b->cursor, b->n - b->cursor, sizeof *b->v, cmp_u32);
            b->unsorted = 0;
        }
        uint32_t i = b->v[b->cursor++];
        if (b->cursor == b->n) {
            b->n = b->cursor = 0;
            b->in_heap = 0;
            rheap_pop(t->rheap, &hn);
        }
        if (rk[i] != r)
            continue; /* stale: merged away or re-ranked */
        uint32_t j = nx[i], k = nx[j];
        id[i] = r;
        nx[i] = k;
        rk[j] = NONE;
        if (k < n) {
            pv[k] = i;
            rk[i] = pair_rank(t, r, id[k], p + i, nx[k] - i);
            if (rk[i] != NONE && (rc = bucket_add(t, &hn, rk[i], i)))
                goto done;
        } else {
            rk[i] = NONE;
        }
        if (pv[i] != NONE) {
            uint32_t q = pv[i];
            rk[q] = pair_rank(t, id[q], r, p + q, k - q);
            if (rk[q] != NONE && (rc = bucket_add(t, &hn, rk[q], q)))
                goto done;
        }
    }
    for (uint32_t i = 0; i < n; i = nx[i])
        if ((rc = ob_push(o, id[i], base + i)))
            break;
done:
    /* leave every bucket empty for the next piece (only after an error can any be pending) */
    while (hn) {
        rank_bucket *b = &t->buckets[t->rheap[0]];
        b->n = b->cursor = 0;
        b->in_heap = b->unsorted = 0;
        rheap_pop(t->rheap, &hn);
    }
    return rc;
}

/* bpe_small, appending to o (and copying the IDs to tmp_ids when asked): o has room made
 * for n IDs, as many as the piece has bytes, which bpe_small writes in place. */
static int bpe_scan(tok_tokenizer *t, const uint8_t *p, size_t n, obuf *o, size_t base, uint32_t *tmp_ids,
                    size_t *tmp_n)
{
    int rc = tok_ob_grow(o, n);
    if (rc)
        return rc;
    uint32_t *ids = o->ids + o->n;
    size_t m = bpe_small(t, p, n, !(t->bpe_path & TOK_BPE_WHOLE), ids, tmp_ids ? tmp_ids : ids,
                         o->keep_off ? o->off + o->n : NULL, base);
    o->n += m;
    if (tmp_n)
        *tmp_n = m;
    return 0;
}

/* BPE of piece p[0..n), n >= 2, appending IDs with offsets base + position. Parts are
 * identified by their first byte; next/prev link the live parts; rank[i] is the ID of
 * part i concatenated with its successor (NONE if not a token). The heap holds
 * rank << 32 | position: its minimum is tiktoken's leftmost lowest-ranked pair. Stale
 * entries (rank changed or part merged away) are skipped when popped. Pairs pushed and
 * popped: at most 3n, so O(n log n). */
static int bpe_heap(tok_tokenizer *t, const uint8_t *p, size_t n, obuf *o, size_t base, uint32_t *tmp_ids,
                    size_t *tmp_n)
{
    int rc = scratch(t, n + 1);
    if (rc)
        return rc;
    uint32_t *nx = t->s_next, *pv = t->s_prev, *rk = t->s_rank, *id = t->s_id;
    uint64_t *h = t->s_heap;
    size_t hn = 0;
    for (size_t i = 0; i < n; i++) {
        nx[i] = (uint32_t)(i + 1);
        pv[i] = i ? (uint32_t)(i - 1) : NONE;
        id[i] = t->byte_id[p[i]];
    }
    for (size_t i = 0; i + 1 < n; i++) {
        rk[i] = t->pair2p1[p[i] << 8 | p[i + 1]] - 1u;
        if (rk[i] != NONE)
            h[hn++] = (uint64_t)rk[i] << 32 | i;
    }
    rk[n - 1] = NONE;
    for (size_t i = hn / 2; i-- > 0;) /* heapify: O(n) */
        heap_sift_down(h, hn, i);
    while (hn) {
        uint64_t e = heap_pop(h, &hn);
        uint32_t r = (uint32_t)(e >> 32), i = (uint32_t)e;
        if (rk[i] != r)
            continue; /* stale: merged away (rank reset to NONE) or re-ranked */
        uint32_t j = nx[i], k = nx[j];
        id[i] = r;
        nx[i] = k;
        rk[j] = NONE;
        if (k < n) {
            pv[k] = i;
            rk[i] = pair_rank(t, r, id[k], p + i, nx[k] - i);
            if (rk[i] != NONE)
                heap_push(h, &hn, (uint64_t)rk[i] << 32 | i);
        } else {
            rk[i] = NONE;
        }
        if (pv[i] != NONE) {
            uint32_t q = pv[i];
            rk[q] = pair_rank(t, id[q], r, p + q, k - q);
            if (rk[q] != NONE)
                heap_push(h, &hn, (uint64_t)rk[q] << 32 | q);
        }
    }
    size_t cnt = 0;
    for (uint32_t i = 0; i < n; i = nx[i]) {
        if ((rc = ob_push(o, id[i], base + i)))
            return rc;
        if (tmp_ids)
            tmp_ids[cnt] = id[i];
        cnt++;
    }
    if (tmp_n)
        *tmp_n = cnt;
    return 0;
}


/* The path by length: the scan up to SMALL_PIECE bytes, the heap, the buckets from
 * LONG_PIECE bytes (when no copy of the IDs is asked for: the caches want one only for
 * pieces far shorter). A forced path applies where it can: the scan only to pieces of at
 * most SMALL_PIECE bytes (its arrays are sized for them; longer ones take the heap). A
 * single byte is its own token. */
static int bpe_path(tok_tokenizer *t, int path, const uint8_t *p, size_t n, obuf *o, size_t base,
                    uint32_t *tmp_ids, size_t *tmp_n)
{
    if (n == 1) {
        uint32_t id = t->byte_id[p[0]];
        if (tmp_ids)
            tmp_ids[0] = id;
        if (tmp_n)
            *tmp_n = 1;
        return ob_push(o, id, base);
    }
    if (path == TOK_BPE_AUTO)
        path = n <= SMALL_PIECE ? TOK_BPE_SCAN : n >= LONG_PIECE ? TOK_BPE_BUCKETS : TOK_BPE_HEAP;
    if (path == TOK_BPE_SCAN && n <= SMALL_PIECE)
        return bpe_scan(t, p, n, o, base, tmp_ids, tmp_n);
    if (path == TOK_BPE_BUCKETS && !tmp_ids && !tmp_n)
        return bpe_long(t, p, n, o, base);
    return bpe_heap(t, p, n, o, base, tmp_ids, tmp_n);
}

/* The piece cut where no merge can join, each part BPE'd alone. A merge joins two adjacent
 * parts only when their concatenation is a token, and that token holds the last byte of
 * the one and the first byte of the other side by side; between two bytes that stand side
 * by side in no token, no merge ever happens. Each part then gets, from BPE alone, the
 * merges it gets inside the whole piece and in the same order: the whole piece's leftmost
 * lowest pair is always the leftmost lowest pair of its own part. Only 2,693 of the 65,536
 * byte pairs stand side by side in GPT-2's tokens; most junctions between two CJK or two
 * Cyrillic characters are not among them, so a run of Japanese, BPE'd as one piece of up
 * to hundreds of bytes (every search of the scan looks at all its pairs), becomes parts of
 * one to a few characters. The scan cuts the pieces it is given itself (bpe_small); longer
 * ones are cut here, each part taking the path its length asks for (the corpus's figures:
 * bench/TOKENIZER_SIMD.md). TOK_BPE_WHOLE (tests) turns the cut off. */
/* bpe_path on p[a..b) of a cut piece, the IDs copied after those of the parts before it. */
static int bpe_group(tok_tokenizer *t, int path, const uint8_t *p, size_t a, size_t b, obuf *o, size_t base,
                     uint32_t *tmp_ids, size_t n0, size_t *tmp_n)
{
    size_t m;
    return bpe_path(t, path, p + a, b - a, o, base + a, tmp_ids ? tmp_ids + (o->n - n0) : NULL, tmp_n ? &m : NULL);
}

int tok_bpe(tok_tokenizer *t, const uint8_t *p, size_t n, obuf *o, size_t base, uint32_t *tmp_ids,
            size_t *tmp_n)
{
    int path = t->bpe_path & ~TOK_BPE_WHOLE;
    if (n <= SMALL_PIECE || (t->bpe_path & TOK_BPE_WHOLE))
        return bpe_path(t, path, p, n, o, base, tmp_ids, tmp_n);
    /* groups of whole parts of up to SMALL_PIECE bytes, which the scan cuts again (and finds
     * in the part cache); a part longer than that alone */
    size_t s = 0, c = 0, n0 = o->n; /* the group begins at s; c: its last cut so far, if > s */
    int rc = 0;
    for (size_t i = 1; i <= n && !rc; i++) {
        if (i < n && joined(t, p[i - 1], p[i]))
            continue;
        if (i - s > SMALL_PIECE && c > s) { /* the group ends at its last cut */
            rc = bpe_group(t, path, p, s, c, o, base, tmp_ids, n0, tmp_n);
            s = c;
        }
        if (i - s > SMALL_PIECE) { /* one long part */
            if (!rc)
                rc = bpe_group(t, path, p, s, i, o, base, tmp_ids, n0, tmp_n);
            s = i;
        }
        c = i;
    }
    if (!rc && s < n)
        rc = bpe_group(t, path, p, s, n, o, base, tmp_ids, n0, tmp_n);
    if (!rc && tmp_n)
        *tmp_n = o->n - n0;
    return rc;
}
