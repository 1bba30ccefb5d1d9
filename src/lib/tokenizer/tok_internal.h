/* SPDX-License-Identifier: MIT */
/* tok_internal.h — what the tokenizer's own files share (not installed, not an API):
 * the layout of a tok_tokenizer, the vocabulary hash and its lookups, the output buffer of
 * tok_encode, and the entry points between the files, each using only those above it here:
 *   tok_load.c    reading vocab.json + merges.txt (or the compiled form), building the index
 *   tok_obuf.c    the growing arrays of IDs and offsets (obuf) every path appends to
 *   tok_pretok.c  GPT-2's pre-tokenizer (pieces; safe cut points for threads), see tok_pretok.h
 *   tok_bpe.c     BPE of one piece by rank: three paths (linear scan, heap, rank buckets)
 *   tokenizer.c   the API of tokenizer.h: UTF-8 check, special tokens, piece caches
 * None of them knows of threads: src/lib/engine runs them on threads, with clones.
 *
 * Layout of a tok_tokenizer: token i's bytes are blob[off[i] .. off[i+1]); `slots` is an
 * open-addressing hash (linear probing) of those byte strings to ID+1 (0 = empty) over the
 * ordinary tokens (the special token is matched separately, never by BPE); a direct-mapped
 * cache remembers the BPE result of recent pieces that are not whole tokens.
 */
#ifndef G2E_TOK_INTERNAL_H
#define G2E_TOK_INTERNAL_H

#include "tokenizer.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MAX_VOCAB 1000000u
#define MAX_TOKEN_LEN 4096u
#define CACHE_SLOTS 65536u       /* power of two */
#define NONE UINT32_MAX
#define MEMO_SLOTS 65536u        /* power of two; 512 KB */

/* tok_slot (tokenizer.h): the token's first 8 bytes inline, so that most lookups touch
 * only the slot (tokens of at most 8 bytes are most of the hits). */

/* Bump when key_hash, head_word or the slot layout change: the compiled-in index of
 * tokenizer_data.c is then ignored (rebuilt at load) until it is regenerated. */
#define TOK_INDEX_VERSION 2u

/* A piece cache entry, one 64-byte line: pieces of at most 24 bytes giving at most 6
 * tokens are cached inline (no pointer to chase); longer ones are rare and recomputed. */
#define CACHE_KEY 24
#define CACHE_IDS 6
#define CACHE_IN_LCACHE 0xFFFFu /* nids of an entry whose IDs are in the long cache */
#define CACHE_NO_STARTS UINT32_MAX
/* Pending pair positions of one rank, for long pieces: appended as merges create them,
 * consumed from `cursor`; `unsorted` when an append broke the increasing order. */
typedef struct rank_bucket {
    uint32_t *v;
    uint32_t n, cap, cursor;
    uint8_t in_heap, unsorted;
} rank_bucket;

/* The cache of BPE's parts (tok_bpe.c: a piece cut where no merge can join): parts of at
 * most PART_KEY bytes giving at most PART_IDS tokens, such as one CJK character, which
 * recur in pieces that do not. Direct-mapped, in the caches' mapping (zero: empty). */
#define PART_SLOTS 2048u
#define PART_KEY 8
#define PART_IDS 3
typedef struct part_entry {
    uint64_t key;        /* the part's bytes, zero-padded */
    uint8_t len, n;      /* len 0: empty */
    uint8_t starts[PART_IDS];
    uint32_t ids[PART_IDS];
} part_entry;

typedef struct cache_entry {
    uint64_t hash;
    uint16_t len, nids;   /* len 0: empty */
    uint32_t starts;      /* token k starts at byte (starts >> 5k) & 31 of the piece, or
                           * CACHE_NO_STARTS (put by an encoding without offsets) */
    uint8_t key[CACHE_KEY];
    uint32_t ids[CACHE_IDS];
} cache_entry;

/* The cache for the rarer pieces that do not fit a cache_entry (long runs such as
 * "====...", indentation giving many tokens): key bytes then IDs in one allocation. */
#define LCACHE_SLOTS 8192u
#define LCACHE_MAX_PIECE 256u
typedef struct lcache_entry {
    uint64_t hash;
    uint32_t len, nids;
    uint8_t *data;
} lcache_entry;

struct tok_tokenizer {
    uint32_t n_vocab, special_id, max_len;
    const uint8_t *blob;   /* points into owned_blob or the compiled data */
    uint8_t *owned_blob;
    const uint32_t *off;   /* (n_vocab + 1,); the compiled-in table, or owned (freed) when
                              the files were parsed (compiled == 0) */
    const tok_slot *slots; /* (mask + 1,) */
    uint64_t mask;
    uint32_t byte_id[256];
    const uint32_t *pair2p1; /* (65536,) ID + 1 of each 2-byte token, 0 otherwise (- 1u: NONE) */
    const uint64_t *joins; /* (1024,) bit a << 8 | b set: bytes a, b stand side by side in some
                              token (where they do not, BPE cuts the piece: tok_bpe.c) */
    int static_index;      /* slots, pair2p1, joins point into the compiled-in data (not freed) */
    int compiled;
    char *source;
    /* (a clone copies the fields above, the shared tables, and no others: tok_clone) */
    /* cache and memo share one anonymous mapping of tok_caches_bytes() (tok_alloc_caches) */
    cache_entry *cache;    /* (CACHE_SLOTS,) */
    lcache_entry *lcache;  /* (LCACHE_SLOTS,), or NULL before a first long piece (lcache_put) */
    uint64_t *memo;        /* (MEMO_SLOTS,) recent pair ranks: left << 40 | right << 20 | (rank + 1) */
    part_entry *parts;     /* (PART_SLOTS,) BPE's parts */
    int caches_huge;       /* tok_caches_huge was called */
    /* BPE scratch, grown on demand */
    size_t scratch_cap;
    uint32_t *s_next, *s_prev, *s_rank, *s_id;
    uint64_t *s_heap;
    /* long-piece BPE: one bucket of pending positions per rank (allocated on first use) */
    struct rank_bucket *buckets; /* (n_vocab,) */
    uint32_t *rheap;             /* (n_vocab,) min-heap of the ranks whose bucket is pending */
    /* a clone (tok_clone) shares the tables above (blob .. pair2p1) and owns its caches and
     * scratch: it has is_clone = 1 and frees only what it owns */
    int is_clone;
    int bpe_path;
    /* output arrays kept between calls for whoever uses this context (IDs only; IDs and
     * offsets): a caller that reuses them allocates nothing once they are large enough */
    struct obuf *out_ids, *out_off;                /* TOK_BPE_AUTO or the path forced by tok_set_bpe_path */
};

/* A tokenizer of its own over t's tables (shared, read-only), with its own caches and
 * scratch, owned by the caller (tok_close frees only what it owns, and t must outlive it);
 * t may be encoding in another thread meanwhile. NULL when out of memory. */
tok_tokenizer *tok_clone(const tok_tokenizer *t);

/* Creates the caches of a fresh tokenizer (or worker): 0 or G2E_ENOMEM (no message). They
 * are one mapping aligned to TOK_HUGE_PAGE whose pages the kernel zero-fills when first
 * touched; tok_free_caches releases it. */
int tok_alloc_caches(tok_tokenizer *t);
void tok_free_caches(tok_tokenizer *t);

/* Transparent huge pages for large inputs. A large input touches nearly every page of the
 * caches (6 MB) and of the output buffer (4 bytes per ID): one fault per 4 KB page was about
 * a sixth of an encode of the 13 MB corpus (7,500 faults, 27 ms of system time against
 * 155 ms in all). With MADV_HUGEPAGE the kernel fills them 2 MB at a time where it can (an
 * advice: without THP, or with it disabled, nothing changes). */
#define TOK_HUGE_PAGE ((size_t)2 << 20)
#define TOK_HUGE_MIN ((size_t)1 << 20) /* a large input: output arrays, threads' checks */
/* Texts from which the caches ask for huge pages: from a few KB, a text touches a page of
 * the caches for most of its distinct pieces. 16 KB of the corpus made 1,050 page faults
 * (14.3 ms) with 4 KB pages and 203 (6.7 ms) with huge ones, 64 KB 1,653 (22.5 ms) and 233
 * (7.9 ms) where a fault costs about 10 us (bench/TOKENIZER_SIMD.md).
 * Smaller texts keep 4 KB pages: zeroing 2 MB for "Hello world" would cost the cold start
 * more than it saves. */
#define TOK_CACHES_HUGE_MIN ((size_t)4 << 10)
/* What one thread's hot fields are aligned to when other threads work beside them (parts,
 * slots, crew members), so that no other thread's writes share their cache line or the line
 * the adjacent-line prefetcher pairs it with. */
#define TOK_LINE_PAIR 128
/* x rounded up to a multiple of TOK_HUGE_PAGE. */
static inline size_t tok_huge_round(size_t x) { return (x + TOK_HUGE_PAGE - 1) & ~(TOK_HUGE_PAGE - 1); }
/* Advises huge pages for the TOK_HUGE_PAGE-aligned part of p[0..bytes) (none: no call). */
void tok_mem_huge(void *p, size_t bytes);
/* t's caches are to serve a text (or an input) of `bytes`: from TOK_CACHES_HUGE_MIN on,
 * tok_mem_huge over them, once per tokenizer (or worker). Callers pass the size of the whole
 * input, even when t sees it in smaller parts (chunks, batches, lines). */
void tok_caches_huge(tok_tokenizer *t, size_t bytes);

/* ---------------------------------------------------------------- hashing */

static inline uint64_t mix(uint64_t h)
{
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ull;
    h ^= h >> 32;
    return h;
}

static inline uint64_t hash_inline(const uint8_t *p, size_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15ull ^ ((uint64_t)n * 0xff51afd7ed558ccdull);
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
        h ^= h >> 29;
        p += 8;
        n -= 8;
    }
    /* the 0..7 tail as one little-endian word, with overlapping fixed-size loads */
    uint64_t w = 0;
    if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, p, 4);
        memcpy(&b, p + n - 4, 4);
        w = (uint64_t)a | (uint64_t)b << (8 * (n - 4));
    } else if (n) {
        w = (uint64_t)p[0] | (uint64_t)p[n / 2] << (8 * (n / 2)) | (uint64_t)p[n - 1] << (8 * (n - 1));
    }
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    return mix(h);
}


/* The first min(n, 8) bytes of p as a little-endian word, zero-padded, without reading
 * outside p[0..n) (overlapping fixed-size loads). */
static inline uint64_t head_word(const uint8_t *p, size_t n)
{
    uint64_t w;
    if (n >= 8) {
        memcpy(&w, p, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, p, 4);
        memcpy(&b, p + n - 4, 4);
        w = (uint64_t)a | (uint64_t)b << (8 * (n - 4));
    } else if (n) {
        w = (uint64_t)p[0] | (uint64_t)p[n / 2] << (8 * (n / 2)) | (uint64_t)p[n - 1] << (8 * (n - 1));
    } else {
        w = 0;
    }
    return w;
}

/* a[0..n) == b[0..n) for short strings, 8 bytes at a time (no library call). */
static inline int bytes_eq(const uint8_t *a, const uint8_t *b, size_t n)
{
    while (n >= 8) {
        uint64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        if (x != y)
            return 0;
        a += 8;
        b += 8;
        n -= 8;
    }
    return head_word(a, n) == head_word(b, n);
}

/* The 128-bit product of a and b folded to 64 bits (high half ^ low half): each bit of the
 * result depends on every bit of both (the mixing step of wyhash). mum_32 computes it from
 * 32-bit halves, for compilers without 128-bit integers: the same value (the compiled-in
 * index is built with it; tests compare the two). */
static inline uint64_t mum_32(uint64_t a, uint64_t b)
{
    uint64_t al = a & 0xFFFFFFFFu, ah = a >> 32, bl = b & 0xFFFFFFFFu, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (lh & 0xFFFFFFFFu) + (hl & 0xFFFFFFFFu);
    uint64_t lo = (ll & 0xFFFFFFFFu) | mid << 32, hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    return hi ^ lo;
}

static inline uint64_t mum(uint64_t a, uint64_t b)
{
#ifdef __SIZEOF_INT128__
    unsigned __int128 r = (unsigned __int128)a * b;
    return (uint64_t)(r >> 64) ^ (uint64_t)r;
#else
    return mum_32(a, b);
#endif
}

#define KEY_S0 0xa0761d6478bd642full
#define KEY_S1 0xe7037ed1a0b428dbull
#define KEY_S2 0x8ebc6af09c88c6e3ull

/* Hash of a token-sized byte string whose head word is w (bump TOK_INDEX_VERSION when it
 * changes: the compiled-in index is built with it): one mum of its first two words (the
 * second zero-padded, zero for n <= 8) and its length, one more per further 16 bytes.
 * hash_batch (tokenizer.c) computes the first round without branches for pieces of at
 * most 16 bytes: change both or neither. */
static inline uint64_t key_hash(const uint8_t *p, size_t n, uint64_t w)
{
    uint64_t w1 = n > 8 ? head_word(p + 8, n - 8 < 8 ? n - 8 : 8) : 0;
    uint64_t h = mum(w ^ KEY_S0, w1 ^ KEY_S1 ^ n);
    for (size_t i = 16; i < n; i += 16) {
        uint64_t a = head_word(p + i, n - i < 8 ? n - i : 8);
        uint64_t b = n - i > 8 ? head_word(p + i + 8, n - i - 8 < 8 ? n - i - 8 : 8) : 0;
        h = mum(a ^ h ^ KEY_S2, b ^ KEY_S1);
    }
    return h;
}

/* Lookup with the head word w and the hash h of p[0..n) already computed. */
static inline uint32_t vocab_find_hw(const tok_tokenizer *t, const uint8_t *p, size_t n, uint64_t w, uint64_t h)
{
    uint64_t i = h & t->mask;
    for (;;) {
        const tok_slot *e = &t->slots[i];
        if (e->id1 == 0)
            return NONE;
        if (e->len == n && e->head == w &&
            (n <= 8 || bytes_eq(t->blob + t->off[e->id1 - 1] + 8, p + 8, n - 8)))
            return e->id1 - 1;
        i = (i + 1) & t->mask;
    }
}

static inline uint32_t vocab_find(const tok_tokenizer *t, const uint8_t *p, size_t n)
{
    if (n > t->max_len)
        return NONE;
    uint64_t w = head_word(p, n);
    return vocab_find_hw(t, p, n, w, key_hash(p, n, w));
}

/* ---------------------------------------------------------------- UTF-8 */

/* ---------------------------------------------------------------- output buffer */

typedef struct obuf {
    uint32_t *ids;
    size_t *off;      /* NULL with TOK_NO_OFFSETS */
    size_t n, cap;
    int keep_off;
} obuf;
/* Grows o for `extra` more IDs: 0, G2E_ENOMEM or TOK_E_TOO_LARGE (no message). */
int tok_ob_grow(obuf *o, size_t extra);

/* Room in o (empty) for the IDs of a text of n bytes, made before the work: 0, or
 * tok_ob_grow's code. */
int tok_ob_room_for_text(obuf *o, size_t n);

/* tok_encode in three steps, for work divided between threads (src/lib/engine): the checks
 * and the lossy copy; the IDs of parts of the checked text (any cut of it at safe cuts,
 * tok_pretok_cut); the offsets mapped back. A checked text: */
typedef struct tok_text {
    const char *s;  /* the text to encode (the lossy copy when one was made) */
    size_t n;
    char *clean;    /* the lossy copy, or NULL */
    size_t *map;    /* each byte of the copy's offset in the original, or NULL */
    size_t n_rep;   /* replaced subparts */
    int specials;   /* <|endoftext|> is the special token */
} tok_text;
/* tok_encode's checks of text[len] (UTF-8, lossy copy, refused special tokens) into *x:
 * 0, or tok_encode's code and message (*bad_offset set as tok_encode sets it; x holds
 * nothing). */
int tok_text_begin(const tok_tokenizer *t, const char *text, size_t len, tok_special special, unsigned flags,
                   tok_text *x, size_t *bad_offset, g2e_err *err);
/* The IDs of x->s[from..to) appended to o, offsets (if kept) from the start of x->s: 0,
 * G2E_ENOMEM or TOK_E_TOO_LARGE (no message: tok_work_fail words it). */
int tok_encode_part(tok_tokenizer *t, const tok_text *x, size_t from, size_t to, obuf *o);
int tok_work_fail(g2e_err *err, int work, size_t len);
/* Maps the offsets of o's IDs from `start` back to the original text (o may be NULL) and
 * frees what x holds. */
void tok_text_end(tok_text *x, obuf *o, size_t start);

/* tok_encode into o, whose arrays are reused (o->keep_off chooses offsets and must not
 * change between calls on the same o; o->n is set, offsets get n + 1 entries): a caller that
 * keeps o allocates nothing once it is large enough. On error o->n is 0. */
int tok_encode_ob(tok_tokenizer *t, const char *text, size_t len, tok_special special, unsigned flags,
                  obuf *o, size_t *n_rep, size_t *bad_offset, g2e_err *err);

static inline int ob_push(obuf *o, uint32_t id, size_t off)
{
    if (o->n == o->cap) {
        int rc = tok_ob_grow(o, 1);
        if (rc)
            return rc;
    }
    if (o->keep_off)
        o->off[o->n] = off;
    o->ids[o->n++] = id;
    return 0;
}


/* BPE of piece p[0..n) (n >= 2) with the path t->bpe_path selects (auto: by length),
 * appending IDs with offsets base + position to o; when tmp_ids is non-NULL the IDs are
 * also copied there (room for n) and their count stored in *tmp_n. 0, G2E_ENOMEM or
 * TOK_E_TOO_LARGE (no message). */
int tok_bpe(tok_tokenizer *t, const uint8_t *p, size_t n, obuf *o, size_t base, uint32_t *tmp_ids,
            size_t *tmp_n);

/* ---------------------------------------------------------------- for the engine and its callers */

/* An internal tok_encode flag: the caller has checked that the text is valid UTF-8 (the
 * check is then not repeated). Passing it with an unchecked text is a caller bug. */
#define TOK_VALID_UTF8 (1u << 30)

/* tok_encode's work on one thread, IDs only (o->keep_off is cleared), appending the IDs of
 * text[0..len) to o (o->n counts them; o's buffers, owned by the caller and freed with
 * free(), are reused and grown as needed, so that a stream of texts allocates nothing in
 * the steady state). On failure o->n is unchanged and the code and message are
 * tok_encode's (err may be NULL). */
int tok_encode_append(tok_tokenizer *t, const char *text, size_t len, tok_special special, unsigned flags,
                      obuf *o, g2e_err *err);

/* The nt texts text[ends[k-1]..ends[k]) (ends[-1] being 0; ends never decreasing), one
 * after another in one buffer, tokenized as tok_encode_append tokenizes each (same special
 * and flags, IDs only): their IDs appended to o one text after another, counts[k] how many
 * are text k's and rcs[k] its status (0, or tok_encode's code, then counts[k] is 0). The
 * pieces of a text never reach past its end, but the bytes after it are read: the
 * pre-tokenizer takes a text's last bytes in place, and the per-text costs of
 * tok_encode_append are paid once per batch of pieces. Returns 0, or G2E_ENOMEM or
 * TOK_E_TOO_LARGE with o->n unchanged (no message). */
int tok_encode_joined(tok_tokenizer *t, const char *text, const size_t *ends, size_t nt, tok_special special,
                      unsigned flags, obuf *o, size_t *counts, int *rcs);

#endif
