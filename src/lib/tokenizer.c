/* tokenizer.c — GPT-2 byte-level BPE (see tokenizer.h for the contract and the design).
 *
 * Layout of a tok_tokenizer: token i's bytes are blob[off[i] .. off[i+1]); `slots` is an
 * open-addressing hash (linear probing) of those byte strings to ID+1 (0 = empty) over the
 * ordinary tokens (the special token is matched separately, never by BPE); a direct-mapped
 * cache remembers the BPE result of recent pieces that are not whole tokens.
 *
 * Left out: loading vocabularies whose merge order differs from their ID order (tiktoken
 * needs rank == ID; such files are rejected with TOK_E_MERGES).
 */
#define _GNU_SOURCE /* memmem */
#include "tokenizer.h"
#include "unicode.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef G2E_DATADIR
#define G2E_DATADIR "/usr/local/share/gpt2-embed"
#endif

#define MAX_VOCAB 1000000u
#define MAX_TOKEN_LEN 4096u
#define CACHE_SLOTS 16384u       /* power of two */
#define NONE UINT32_MAX
#define MEMO_SLOTS 65536u        /* power of two; 512 KB */

/* A vocabulary hash slot: the token's first 8 bytes inline, so that most lookups touch
 * only this slot (tokens of at most 8 bytes are most of the hits). */
typedef struct tok_slot {
    uint64_t head;     /* head_word of the token */
    uint32_t id1;      /* ID + 1; 0 = empty */
    uint32_t len;
} tok_slot;

/* A piece cache entry, one 64-byte line: pieces of at most 24 bytes giving at most 6
 * tokens are cached inline (no pointer to chase); longer ones are rare and recomputed. */
#define CACHE_KEY 24
#define CACHE_IDS 6
/* Pending pair positions of one rank, for long pieces: appended as merges create them,
 * consumed from `cursor`; `unsorted` when an append broke the increasing order. */
typedef struct rank_bucket {
    uint32_t *v;
    uint32_t n, cap, cursor;
    uint8_t in_heap, unsorted;
} rank_bucket;

typedef struct cache_entry {
    uint64_t hash;
    uint16_t len, nids;   /* len 0: empty */
    uint32_t pad;
    uint8_t key[CACHE_KEY];
    uint32_t ids[CACHE_IDS];
} cache_entry;

/* The cache for the rarer pieces that do not fit a cache_entry (long runs such as
 * "====...", indentation giving many tokens): key bytes then IDs in one allocation. */
#define LCACHE_SLOTS 4096u
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
    uint32_t *off;         /* (n_vocab + 1,) */
    tok_slot *slots;       /* (mask + 1,) */
    uint64_t mask;
    uint32_t byte_id[256];
    uint32_t *pair2;       /* (65536,) ID of each 2-byte token, NONE otherwise */
    int compiled;
    char *source;
    cache_entry *cache;    /* (CACHE_SLOTS,) */
    lcache_entry *lcache;  /* (LCACHE_SLOTS,) */
    uint64_t *memo;        /* (MEMO_SLOTS,) recent pair ranks: left << 40 | right << 20 | (rank + 1) */
    /* BPE scratch, grown on demand */
    size_t scratch_cap;
    uint32_t *s_next, *s_prev, *s_rank, *s_id;
    uint64_t *s_heap;
    /* long-piece BPE: one bucket of pending positions per rank (allocated on first use) */
    struct rank_bucket *buckets; /* (n_vocab,) */
    uint32_t *rheap;             /* (n_vocab,) min-heap of the ranks whose bucket is pending */
};

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

uint64_t tok_hash_bytes(const void *pv, size_t n)
{
    /* four independent lanes over 32-byte blocks (fast on 1.5 MB), then the tail */
    const uint8_t *p = pv;
    uint64_t a = 0x9E3779B97F4A7C15ull ^ n, b = 0xC2B2AE3D27D4EB4Full, c = 0x165667B19E3779F9ull,
             d = 0x27D4EB2F165667C5ull;
    const uint64_t K = 0xc4ceb9fe1a85ec53ull;
    while (n >= 32) {
        uint64_t w[4];
        memcpy(w, p, 32);
        a = (a ^ w[0]) * K;
        b = (b ^ w[1]) * K;
        c = (c ^ w[2]) * K;
        d = (d ^ w[3]) * K;
        a ^= a >> 29;
        b ^= b >> 29;
        c ^= c >> 29;
        d ^= d >> 29;
        p += 32;
        n -= 32;
    }
    uint64_t h = mix(a) ^ mix(b + 1) * 3 ^ mix(c + 2) * 5 ^ mix(d + 3) * 7;
    return hash_inline(p, n) ^ mix(h);
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

/* Hash of a token-sized byte string whose head word is w (internal: may change freely). */
static inline uint64_t key_hash(const uint8_t *p, size_t n, uint64_t w)
{
    uint64_t h = (w ^ ((uint64_t)n << 56)) * 0x9E3779B97F4A7C15ull;
    for (size_t i = 8; i < n; i += 8) {
        uint64_t x = head_word(p + i, n - i < 8 ? n - i : 8);
        h = (h ^ x) * 0xc4ceb9fe1a85ec53ull;
    }
    return mix(h);
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

/* ---------------------------------------------------------------- building */

/* Zeroed memory for the vocabulary hash, populated in one system call: the table is
 * written all over at load, and one fault per page would cost more than the building
 * itself (cold start). Released with table_free(p, bytes). */
static void *table_alloc(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void table_free(void *p, size_t bytes)
{
    if (p)
        munmap(p, bytes);
}

/* Builds the lookup tables over blob/off. check_dups: reject two tokens with the same
 * bytes (parsed files; the compiled form was checked when it was generated). */
static int build_index(tok_tokenizer *t, int check_dups, g2e_err *err)
{
    uint64_t cap = 1;
    while (cap < (uint64_t)t->n_vocab * 2 + 2)
        cap <<= 1;
    t->mask = cap - 1;
    t->slots = table_alloc(cap * sizeof *t->slots);
    t->cache = calloc(CACHE_SLOTS, sizeof *t->cache); /* lazily zeroed pages */
    t->pair2 = malloc(65536 * sizeof *t->pair2);
    t->memo = calloc(MEMO_SLOTS, sizeof *t->memo);
    t->lcache = calloc(LCACHE_SLOTS, sizeof *t->lcache);
    if (!t->slots || !t->cache || !t->pair2 || !t->memo || !t->lcache)
        return g2e_fail(err, G2E_ENOMEM, "out of memory for the tokenizer's tables");
    for (int b = 0; b < 256; b++)
        t->byte_id[b] = NONE;
    t->max_len = 0;
    for (uint32_t id = 0; id < t->n_vocab; id++) {
        uint32_t o = t->off[id], n = t->off[id + 1] - o;
        if (id == t->special_id)
            continue;
        if (n > t->max_len)
            t->max_len = n;
        if (n == 1 && t->byte_id[t->blob[o]] == NONE)
            t->byte_id[t->blob[o]] = id;
        if (check_dups && vocab_find(t, t->blob + o, n) != NONE)
            return g2e_fail(err, TOK_E_VOCAB, "tokens %u and %u have the same bytes",
                            vocab_find(t, t->blob + o, n), id);
        uint64_t w = head_word(t->blob + o, n);
        uint64_t i = key_hash(t->blob + o, n, w) & t->mask;
        while (t->slots[i].id1)
            i = (i + 1) & t->mask;
        t->slots[i] = (tok_slot){w, id + 1, n};
    }
    for (int b = 0; b < 256; b++)
        if (t->byte_id[b] == NONE)
            return g2e_fail(err, TOK_E_VOCAB, "the vocabulary has no token for byte 0x%02X", b);
    memset(t->pair2, 0xFF, 65536 * sizeof *t->pair2);
    for (uint32_t id = 0; id < t->n_vocab; id++) {
        uint32_t o = t->off[id];
        if (id != t->special_id && t->off[id + 1] - o == 2 && t->pair2[t->blob[o] << 8 | t->blob[o + 1]] == NONE)
            t->pair2[t->blob[o] << 8 | t->blob[o + 1]] = id;
    }
    return 0;
}

static tok_tokenizer *tok_new(void)
{
    tok_tokenizer *t = calloc(1, sizeof *t);
    if (t)
        t->special_id = NONE;
    return t;
}

void tok_close(tok_tokenizer *t)
{
    if (!t)
        return;
    free(t->cache);
    if (t->lcache)
        for (uint32_t i = 0; i < LCACHE_SLOTS; i++)
            free(t->lcache[i].data);
    free(t->lcache);
    free(t->owned_blob);
    free(t->off);
    table_free(t->slots, (t->mask + 1) * sizeof *t->slots);
    free(t->pair2);
    free(t->memo);
    free(t->source);
    free(t->s_next);
    free(t->s_prev);
    free(t->s_rank);
    free(t->s_id);
    free(t->s_heap);
    if (t->buckets)
        for (uint32_t r = 0; r < t->n_vocab; r++)
            free(t->buckets[r].v);
    free(t->buckets);
    free(t->rheap);
    free(t);
}

#ifndef TOK_NO_BUILTIN
static int load_builtin(tok_tokenizer *t, g2e_err *err)
{
    const tok_builtin_data *d = &tok_builtin;
    t->n_vocab = d->n_vocab;
    t->special_id = d->special_id;
    t->blob = (const uint8_t *)d->blob;
    t->off = malloc(((size_t)d->n_vocab + 1) * sizeof *t->off);
    if (!t->off)
        return g2e_fail(err, G2E_ENOMEM, "out of memory for the tokenizer");
    uint32_t o = 0;
    for (uint32_t i = 0; i < d->n_vocab; i++) {
        t->off[i] = o;
        o += d->lens[i];
    }
    t->off[d->n_vocab] = o;
    t->compiled = 1;
    return build_index(t, 0, err);
}
#endif

int tok_open_builtin(tok_tokenizer **out, g2e_err *err)
{
    *out = NULL;
#ifdef TOK_NO_BUILTIN
    return g2e_fail(err, TOK_E_NOT_FOUND, "this build has no compiled-in tokenizer");
#else
    tok_tokenizer *t = tok_new();
    if (!t)
        return g2e_fail(err, G2E_ENOMEM, "out of memory for the tokenizer");
    int rc = load_builtin(t, err);
    if (!rc && !(t->source = strdup("built-in")))
        rc = g2e_fail(err, G2E_ENOMEM, "out of memory");
    if (rc) {
        tok_close(t);
        return rc;
    }
    *out = t;
    return 0;
#endif
}

/* ---------------------------------------------------------------- parsing the files */

/* GPT-2 spells byte b in its files as the code point bytes_to_unicode(b): printable Latin-1
 * bytes as themselves, the other 68 as 256, 257, ... in byte order. -1: not a byte. */
static void byte_decoder(int dec[324])
{
    for (int i = 0; i < 324; i++)
        dec[i] = -1;
    int k = 0;
    for (int b = 0; b < 256; b++) {
        int printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174);
        if (printable)
            dec[b] = b;
        else
            dec[256 + k++] = b;
    }
}

/* Maps a whole file read-only (page-cache pages, no copy: cheaper than read() at every
 * start). *buf is NULL for an empty file. Release with unmap_file(*buf, *len). */
static int map_file(const char *path, char **buf, size_t *len, g2e_err *err)
{
    *buf = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);   /* a FIFO: refused, not waited on */
    if (fd < 0)
        return g2e_fail(err, errno == ENOENT ? TOK_E_NOT_FOUND : TOK_E_OPEN, "cannot open %s: %s",
                        path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (off_t)1 << 30) {
        close(fd);
        return g2e_fail(err, TOK_E_OPEN, "%s: not a regular file of at most 1 GiB", path);
    }
    size_t n = (size_t)st.st_size;
    if (n) {
        void *m = mmap(NULL, n, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
        if (m == MAP_FAILED) {
            int e = errno;
            close(fd);
            return g2e_fail(err, TOK_E_OPEN, "cannot map %s: %s", path, strerror(e));
        }
        *buf = m;
    }
    close(fd);
    *len = n;
    return 0;
}

static void unmap_file(char *buf, size_t len)
{
    if (buf)
        munmap(buf, len);
}

/* Decodes one UTF-8 code point of a JSON string at s[*i] (the file is trusted to be
 * UTF-8 only after this check). Returns the code point or -1. */
static long utf8_cp(const char *s, size_t n, size_t *i)
{
    const uint8_t *u = (const uint8_t *)s;
    size_t k = tok_utf8_check(s + *i, n - *i < 4 ? n - *i : 4);
    uint8_t c = u[*i];
    if (c < 0x80) {
        (*i)++;
        return c;
    }
    size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
    if (k < need)
        return -1;
    long cp = c & (0x3F >> (need - 1));
    for (size_t j = 1; j < need; j++)
        cp = cp << 6 | (u[*i + j] & 0x3F);
    *i += need;
    return cp;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Parses a JSON string starting at s[*i] == '"' into GPT-2 bytes appended to out (room
 * for MAX_TOKEN_LEN). Returns the byte count or -1 (malformed) / -2 (not a GPT-2 byte). */
static long json_key(const char *s, size_t n, size_t *i, const int dec[324], uint8_t *out)
{
    if (*i >= n || s[*i] != '"')
        return -1;
    (*i)++;
    long len = 0;
    for (;;) {
        if (*i >= n)
            return -1;
        long cp;
        char c = s[*i];
        if (c == '"') {
            (*i)++;
            return len;
        }
        if ((unsigned char)c < 0x20)
            return -1;
        if (c == '\\') {
            if (*i + 1 >= n)
                return -1;
            char e = s[*i + 1];
            *i += 2;
            switch (e) {
            case '"': cp = '"'; break;
            case '\\': cp = '\\'; break;
            case '/': cp = '/'; break;
            case 'b': cp = 8; break;
            case 'f': cp = 12; break;
            case 'n': cp = 10; break;
            case 'r': cp = 13; break;
            case 't': cp = 9; break;
            case 'u':
                if (*i + 4 > n)
                    return -1;
                cp = 0;
                for (int k = 0; k < 4; k++) {
                    int h = hexval(s[*i + k]);
                    if (h < 0)
                        return -1;
                    cp = cp << 4 | h;
                }
                *i += 4;
                break;
            default:
                return -1;
            }
        } else {
            cp = utf8_cp(s, n, i);
            if (cp < 0)
                return -1;
        }
        if (cp >= 324 || dec[cp] < 0)
            return -2;
        if (len >= (long)MAX_TOKEN_LEN)
            return -1;
        out[len++] = (uint8_t)dec[cp];
    }
}

static size_t skip_ws(const char *s, size_t n, size_t i)
{
    while (i < n && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t'))
        i++;
    return i;
}

static int parse_vocab(tok_tokenizer *t, const char *path, const char *s, size_t n, g2e_err *err)
{
    int dec[324];
    byte_decoder(dec);
    uint8_t key[MAX_TOKEN_LEN];
    size_t cap_ent = 65536, n_ent = 0, blob_len = 0;
    uint32_t *ent_id = malloc(cap_ent * sizeof *ent_id);
    uint64_t *ent_pos = malloc(cap_ent * sizeof *ent_pos); /* blob offset << 16 | length */
    uint8_t *blob = malloc(n + 1);                          /* keys never grow when decoded */
    int rc = 0;
    if (!ent_id || !ent_pos || !blob) {
        rc = g2e_fail(err, G2E_ENOMEM, "out of memory parsing %s", path);
        goto fail;
    }
    size_t i = skip_ws(s, n, 0);
    if (i >= n || s[i] != '{') {
        rc = g2e_fail(err, TOK_E_VOCAB, "%s: expected a JSON object at byte %zu", path, i);
        goto fail;
    }
    i = skip_ws(s, n, i + 1);
    if (i < n && s[i] == '}')
        i++;
    else
        for (;;) {
            size_t at = i;
            long kl = json_key(s, n, &i, dec, key);
            if (kl < 0) {
                rc = g2e_fail(err, TOK_E_VOCAB, "%s: %s at byte %zu", path,
                              kl == -2 ? "a key holds a character that is not a GPT-2 byte"
                                       : "malformed key string", at);
                goto fail;
            }
            i = skip_ws(s, n, i);
            if (i >= n || s[i] != ':') {
                rc = g2e_fail(err, TOK_E_VOCAB, "%s: expected ':' at byte %zu", path, i);
                goto fail;
            }
            i = skip_ws(s, n, i + 1);
            uint64_t v = 0;
            size_t d0 = i;
            while (i < n && s[i] >= '0' && s[i] <= '9' && v <= MAX_VOCAB)
                v = v * 10 + (uint64_t)(s[i++] - '0');
            if (i == d0 || v >= MAX_VOCAB) {
                rc = g2e_fail(err, TOK_E_VOCAB, "%s: expected a token ID below %u at byte %zu", path,
                              MAX_VOCAB, d0);
                goto fail;
            }
            if (n_ent == cap_ent) {
                cap_ent *= 2;
                uint32_t *a = realloc(ent_id, cap_ent * sizeof *ent_id);
                if (a)
                    ent_id = a;
                uint64_t *b = realloc(ent_pos, cap_ent * sizeof *ent_pos);
                if (b)
                    ent_pos = b;
                if (!a || !b) {
                    rc = g2e_fail(err, G2E_ENOMEM, "out of memory parsing %s", path);
                    goto fail;
                }
            }
            if (kl == 13 && memcmp(key, TOK_ENDOFTEXT_TEXT, 13) == 0)
                t->special_id = (uint32_t)v;
            memcpy(blob + blob_len, key, (size_t)kl);
            ent_id[n_ent] = (uint32_t)v;
            ent_pos[n_ent++] = (uint64_t)blob_len << 16 | (uint64_t)kl;
            blob_len += (size_t)kl;
            i = skip_ws(s, n, i);
            if (i < n && s[i] == ',') {
                i = skip_ws(s, n, i + 1);
                continue;
            }
            if (i < n && s[i] == '}') {
                i++;
                break;
            }
            rc = g2e_fail(err, TOK_E_VOCAB, "%s: expected ',' or '}' at byte %zu", path, i);
            goto fail;
        }
    if (skip_ws(s, n, i) != n) {
        rc = g2e_fail(err, TOK_E_VOCAB, "%s: trailing data at byte %zu", path, skip_ws(s, n, i));
        goto fail;
    }
    if (n_ent < 256) {
        rc = g2e_fail(err, TOK_E_VOCAB, "%s: %zu tokens, expected at least 256", path, n_ent);
        goto fail;
    }
    /* IDs must be exactly 0..n-1, each once. */
    t->n_vocab = (uint32_t)n_ent;
    t->off = malloc((n_ent + 1) * sizeof *t->off);
    uint64_t *by_id = malloc(n_ent * sizeof *by_id);
    if (!t->off || !by_id) {
        free(by_id);
        rc = g2e_fail(err, G2E_ENOMEM, "out of memory parsing %s", path);
        goto fail;
    }
    for (size_t k = 0; k < n_ent; k++)
        by_id[k] = UINT64_MAX;
    for (size_t k = 0; k < n_ent; k++) {
        if (ent_id[k] >= n_ent || by_id[ent_id[k]] != UINT64_MAX) {
            rc = g2e_fail(err, TOK_E_VOCAB, "%s: token ID %u is %s (IDs must be 0..%zu, each once)",
                          path, ent_id[k], ent_id[k] >= n_ent ? "out of range" : "repeated", n_ent - 1);
            free(by_id);
            goto fail;
        }
        by_id[ent_id[k]] = ent_pos[k];
    }
    t->owned_blob = malloc(blob_len + 1);
    if (!t->owned_blob) {
        free(by_id);
        rc = g2e_fail(err, G2E_ENOMEM, "out of memory parsing %s", path);
        goto fail;
    }
    uint32_t o = 0;
    for (size_t k = 0; k < n_ent; k++) {
        uint32_t len = (uint32_t)(by_id[k] & 0xFFFF);
        memcpy(t->owned_blob + o, blob + (by_id[k] >> 16), len);
        t->off[k] = o;
        o += len;
    }
    t->off[n_ent] = o;
    t->blob = t->owned_blob;
    free(by_id);
    rc = build_index(t, 1, err);
    if (rc && err) {
        char inner[G2E_ERR_MSG_MAX];
        memcpy(inner, err->msg, sizeof inner); /* g2e_fail must not read what it writes */
        g2e_fail(err, rc, "%s: %s", path, inner);
    }
fail:
    free(ent_id);
    free(ent_pos);
    free(blob);
    return rc;
}

/* Checks merges.txt against the vocabulary: tiktoken ranks pairs by the ID of their
 * concatenation, which equals GPT-2's merge rank only if merge i makes token 256 + i, the
 * first 256 IDs are single bytes, and both halves of each merge are tokens. */
static int check_merges(const tok_tokenizer *t, const char *path, const char *s, size_t n, g2e_err *err)
{
    int dec[324];
    byte_decoder(dec);
    for (uint32_t id = 0; id < 256; id++)
        if (t->off[id + 1] - t->off[id] != 1)
            return g2e_fail(err, TOK_E_MERGES, "%s: token %u is not a single byte (IDs 0..255 must be the bytes)",
                            path, id);
    size_t i = 0, line = 1;
    if (n >= 8 && memcmp(s, "#version", 8) == 0) {
        while (i < n && s[i] != '\n')
            i++;
        i++;
        line++;
    }
    uint32_t rank = 0;
    uint8_t buf[2 * MAX_TOKEN_LEN];
    while (i < n) {
        size_t e = i;
        while (e < n && s[e] != '\n')
            e++;
        size_t le = e;
        if (le > i && s[le - 1] == '\r')
            le--;
        if (le > i) {
            size_t sp = i;
            while (sp < le && s[sp] != ' ')
                sp++;
            if (sp == i || sp >= le - 1)
                return g2e_fail(err, TOK_E_MERGES, "%s:%zu: expected two tokens separated by one space", path, line);
            size_t half[2] = {0, 0};
            size_t bl = 0;
            for (int h = 0; h < 2; h++) {
                size_t a = h ? sp + 1 : i, z = h ? le : sp;
                while (a < z) {
                    long cp = utf8_cp(s, z, &a);
                    if (cp < 0 || cp >= 324 || dec[cp] < 0 || bl >= sizeof buf)
                        return g2e_fail(err, TOK_E_MERGES, "%s:%zu: not a sequence of GPT-2 byte characters", path, line);
                    buf[bl++] = (uint8_t)dec[cp];
                }
                half[h] = bl;
            }
            uint32_t want = 256 + rank;
            if (vocab_find(t, buf, half[0]) == NONE || vocab_find(t, buf + half[0], bl - half[0]) == NONE)
                return g2e_fail(err, TOK_E_MERGES, "%s:%zu: a half of the merge is not in the vocabulary", path, line);
            uint32_t got = vocab_find(t, buf, bl);
            if (got != want)
                return g2e_fail(err, TOK_E_MERGES, "%s:%zu: merge %u should make token %u, the vocabulary says %s%u",
                                path, line, rank, want, got == NONE ? "none " : "", got == NONE ? 0 : got);
            rank++;
        }
        i = e + 1;
        line++;
    }
    uint32_t ordinary = t->n_vocab - (t->special_id != NONE);
    if (256 + rank != ordinary)
        return g2e_fail(err, TOK_E_MERGES, "%s: %u merges for %u ordinary tokens (expected %u)", path, rank,
                        ordinary, ordinary - 256);
    return 0;
}

static char *join2(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *p = malloc(la + lb + 2);
    if (!p)
        return NULL;
    memcpy(p, a, la);
    p[la] = '/';
    memcpy(p + la + 1, b, lb + 1);
    return p;
}

static int pick_file(const char *dir, const char *a, const char *b, char **out, g2e_err *err)
{
    *out = NULL;
    char *pa = join2(dir, a), *pb = join2(dir, b);
    if (!pa || !pb) {
        free(pa);
        free(pb);
        return g2e_fail(err, G2E_ENOMEM, "out of memory");
    }
    if (access(pa, F_OK) == 0) {
        *out = pa;
        free(pb);
        return 0;
    }
    if (access(pb, F_OK) == 0) {
        *out = pb;
        free(pa);
        return 0;
    }
    free(pa);
    free(pb);
    return g2e_fail(err, TOK_E_NOT_FOUND, "tokenizer directory %s has neither %s nor %s", dir, a, b);
}

int tok_open(const char *dir, unsigned flags, tok_tokenizer **out, g2e_err *err)
{
    *out = NULL;
    char *vpath = NULL, *mpath = NULL, *vbuf = NULL, *mbuf = NULL;
    size_t vlen = 0, mlen = 0;
    tok_tokenizer *t = tok_new();
    int rc;
    if (!t)
        return g2e_fail(err, G2E_ENOMEM, "out of memory for the tokenizer");
    struct stat st;
    if (stat(dir, &st) != 0) {
        rc = g2e_fail(err, TOK_E_NOT_FOUND, "tokenizer directory %s: %s", dir, strerror(errno));
        goto fail;
    }
    if (!S_ISDIR(st.st_mode)) {
        rc = g2e_fail(err, TOK_E_NOT_FOUND, "tokenizer directory %s: not a directory", dir);
        goto fail;
    }
    if ((rc = pick_file(dir, "vocab.json", "encoder.json", &vpath, err)) ||
        (rc = pick_file(dir, "merges.txt", "vocab.bpe", &mpath, err)) ||
        (rc = map_file(vpath, &vbuf, &vlen, err)) ||
        (rc = map_file(mpath, &mbuf, &mlen, err)))
        goto fail;
#ifndef TOK_NO_BUILTIN
    if (!(flags & TOK_OPEN_PARSE) && vlen == tok_builtin.vocab_size && mlen == tok_builtin.merges_size &&
        tok_hash_bytes(vbuf, vlen) == tok_builtin.vocab_hash &&
        tok_hash_bytes(mbuf, mlen) == tok_builtin.merges_hash) {
        rc = load_builtin(t, err);
    } else
#endif
    {
        (void)flags;
        rc = parse_vocab(t, vpath, vbuf, vlen, err);
        if (!rc)
            rc = check_merges(t, mpath, mbuf, mlen, err);
    }
    if (rc)
        goto fail;
    if (!(t->source = strdup(dir))) {
        rc = g2e_fail(err, G2E_ENOMEM, "out of memory");
        goto fail;
    }
    free(vpath);
    free(mpath);
    unmap_file(vbuf, vlen);
    unmap_file(mbuf, mlen);
    *out = t;
    return 0;
fail:
    free(vpath);
    free(mpath);
    unmap_file(vbuf, vlen);
    unmap_file(mbuf, mlen);
    tok_close(t);
    return rc;
}

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int tok_locate(const char *dir, tok_tokenizer **out, g2e_err *err)
{
    *out = NULL;
    if (dir)
        return tok_open(dir, 0, out, err);
    const char *env = getenv(TOK_ENV);
    if (env && *env) {
        int rc = tok_open(env, 0, out, err);
        if (rc && err) {
            char inner[G2E_ERR_MSG_MAX];
            memcpy(inner, err->msg, sizeof inner); /* g2e_fail must not read what it writes */
            g2e_fail(err, rc, "$%s: %s", TOK_ENV, inner);
        }
        return rc;
    }
    char exe[PATH_MAX + 16], looked[3 * PATH_MAX] = "";
    ssize_t n = readlink("/proc/self/exe", exe, PATH_MAX);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            strcpy(slash + 1, "tokenizer");
            if (is_dir(exe))
                return tok_open(exe, 0, out, err);
            snprintf(looked, sizeof looked, "%s, ", exe);
        }
    }
    if (is_dir(G2E_DATADIR "/tokenizer"))
        return tok_open(G2E_DATADIR "/tokenizer", 0, out, err);
#ifndef TOK_NO_BUILTIN
    return tok_open_builtin(out, err);
#else
    return g2e_fail(err, TOK_E_NOT_FOUND,
                    "no tokenizer found: looked at --tokenizer (not given), $%s (not set), %s%s "
                    "(no compiled-in data in this build)",
                    TOK_ENV, looked, G2E_DATADIR "/tokenizer");
#endif
}

const char *tok_source(const tok_tokenizer *t) { return t->source; }
int tok_is_compiled(const tok_tokenizer *t) { return t->compiled; }
uint32_t tok_n_vocab(const tok_tokenizer *t) { return t->n_vocab; }

/* ---------------------------------------------------------------- UTF-8 */

/* Length of the well-formed sequence at s[0..n) (n >= 1), or 0 if ill-formed; then *sub
 * is the length of its maximal subpart (>= 1), which lossy mode replaces by one U+FFFD. */
static inline size_t utf8_seq(const uint8_t *s, size_t n, size_t *sub)
{
    uint8_t c = s[0];
    if (c < 0x80)
        return 1;
    size_t need;
    uint8_t lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF)
        need = 1;
    else if (c >= 0xE0 && c <= 0xEF) {
        need = 2;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 3;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else {
        *sub = 1;
        return 0;
    }
    if (n < 2 || s[1] < lo || s[1] > hi) {
        *sub = 1;
        return 0;
    }
    for (size_t k = 2; k <= need; k++)
        if (k >= n || (s[k] & 0xC0) != 0x80) {
            *sub = k;
            return 0;
        }
    return need + 1;
}

size_t tok_utf8_check(const char *str, size_t len)
{
    const uint8_t *s = (const uint8_t *)str;
    size_t i = 0;
    while (i < len) {
        if (i + 8 <= len) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            if (!(w & 0x8080808080808080ull)) {
                i += 8;
                continue;
            }
        }
        size_t sub, k = utf8_seq(s + i, len - i, &sub);
        if (!k)
            return i;
        i += k;
    }
    return len;
}

/* ---------------------------------------------------------------- output buffer */

typedef struct obuf {
    uint32_t *ids;
    size_t *off;      /* NULL with TOK_NO_OFFSETS */
    size_t n, cap;
    int keep_off;
} obuf;

static int ob_grow(obuf *o, size_t extra)
{
    if (o->n + extra <= o->cap)
        return 0;
    size_t nc = o->cap ? o->cap : 256;
    while (nc < o->n + extra + 1) {
        if (nc > SIZE_MAX / 2 / sizeof(size_t))
            return TOK_E_TOO_LARGE;
        nc *= 2;
    }
    uint32_t *a = realloc(o->ids, nc * sizeof *a);
    if (!a)
        return G2E_ENOMEM;
    o->ids = a;
    if (o->keep_off) {
        size_t *b = realloc(o->off, (nc + 1) * sizeof *b);
        if (!b)
            return G2E_ENOMEM;
        o->off = b;
    }
    o->cap = nc;
    return 0;
}

static inline int ob_push(obuf *o, uint32_t id, size_t off)
{
    if (o->n == o->cap) {
        int rc = ob_grow(o, 1);
        if (rc)
            return rc;
    }
    if (o->keep_off)
        o->off[o->n] = off;
    o->ids[o->n++] = id;
    return 0;
}

/* ---------------------------------------------------------------- BPE */

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
static inline uint32_t pair_rank(tok_tokenizer *t, uint32_t a, uint32_t b, const uint8_t *p, size_t n)
{
    uint64_t key = (uint64_t)a << 40 | (uint64_t)b << 20;
    uint64_t *m = &t->memo[((uint64_t)a * 0x9E3779B1u ^ b * 0x85EBCA77u) >> 7 & (MEMO_SLOTS - 1)];
    uint32_t v = (uint32_t)(*m & 0xFFFFF); /* 0: empty slot; 0xFFFFF: not a token */
    if ((*m & ~(uint64_t)0xFFFFF) == key && v)
        return v == 0xFFFFF ? NONE : v - 1;
    uint32_t r = vocab_find(t, p, n);
    *m = key | (r == NONE ? 0xFFFFF : (uint64_t)r + 1);
    return r;
}

/* BPE of a short piece (2 <= n <= SMALL_PIECE) the way tiktoken does it: each step a
 * linear scan of the parts for the leftmost lowest rank. Parts are linked by `nx` (no
 * moving of arrays). For such n this beats the heap. Writes the token IDs to ids and their
 * starts to starts; returns the count. */
static size_t bpe_small(tok_tokenizer *t, const uint8_t *p, size_t n, uint32_t *ids, uint8_t *starts)
{
    uint8_t nx[SMALL_PIECE + 1], pv[SMALL_PIECE];
    uint32_t rk[SMALL_PIECE], pid[SMALL_PIECE];
    for (size_t i = 0; i < n; i++) {
        nx[i] = (uint8_t)(i + 1);
        pv[i] = (uint8_t)(i - 1); /* pv[0] is never read */
        pid[i] = t->byte_id[p[i]];
    }
    for (size_t i = 0; i + 1 < n; i++)
        rk[i] = t->pair2[p[i] << 8 | p[i + 1]];
    rk[n - 1] = NONE;
    for (;;) {
        /* a plain scan of all n slots (absorbed parts hold NONE): no pointer chasing */
        uint32_t best = NONE;
        size_t bi = 0;
        for (size_t i = 0; i + 1 < n; i++)
            if (rk[i] < best) {
                best = rk[i];
                bi = i;
            }
        if (best == NONE)
            break;
        /* part bi absorbs the part j after it */
        size_t j = nx[bi], k = nx[j];
        rk[j] = NONE;
        nx[bi] = (uint8_t)k;
        pid[bi] = best;
        if (k < n) {
            pv[k] = (uint8_t)bi;
            rk[bi] = pair_rank(t, best, pid[k], p + bi, nx[k] - bi);
        } else {
            rk[bi] = NONE;
        }
        if (bi > 0) {
            size_t q = pv[bi];
            rk[q] = pair_rank(t, pid[q], best, p + q, k - q);
        }
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i = nx[i]) {
        ids[m] = pid[i];
        starts[m++] = (uint8_t)i;
    }
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
        rk[i] = t->pair2[p[i] << 8 | p[i + 1]];
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

/* BPE of piece p[0..n), n >= 2, appending IDs with offsets base + position. Parts are
 * identified by their first byte; next/prev link the live parts; rank[i] is the ID of
 * part i concatenated with its successor (NONE if not a token). The heap holds
 * rank << 32 | position: its minimum is tiktoken's leftmost lowest-ranked pair. Stale
 * entries (rank changed or part merged away) are skipped when popped. Pairs pushed and
 * popped: at most 3n, so O(n log n). */
static int bpe(tok_tokenizer *t, const uint8_t *p, size_t n, obuf *o, size_t base, uint32_t *tmp_ids,
               size_t *tmp_n)
{
    if (n <= SMALL_PIECE) {
        uint32_t ids[SMALL_PIECE];
        uint8_t starts[SMALL_PIECE];
        size_t m = bpe_small(t, p, n, ids, starts);
        int rc = ob_grow(o, m);
        if (rc)
            return rc;
        for (size_t k = 0; k < m; k++) {
            if (o->keep_off)
                o->off[o->n] = base + starts[k];
            o->ids[o->n++] = ids[k];
        }
        if (tmp_ids)
            memcpy(tmp_ids, ids, m * sizeof *ids);
        if (tmp_n)
            *tmp_n = m;
        return 0;
    }
    if (n >= LONG_PIECE && !tmp_ids && !tmp_n)
        return bpe_long(t, p, n, o, base);
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
        rk[i] = t->pair2[p[i] << 8 | p[i + 1]];
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

/* Appends IDs whose bytes follow each other from input offset base. */
static int emit_ids(tok_tokenizer *t, const uint32_t *ids, size_t cnt, obuf *o, size_t base)
{
    int rc = ob_grow(o, cnt);
    if (rc)
        return rc;
    size_t at = base;
    for (size_t k = 0; k < cnt; k++) {
        uint32_t id = ids[k];
        if (o->keep_off)
            o->off[o->n] = at;
        o->ids[o->n++] = id;
        at += t->off[id + 1] - t->off[id];
    }
    return 0;
}

static void lcache_put(tok_tokenizer *t, const uint8_t *p, size_t n, uint64_t h, const uint32_t *ids,
                       size_t cnt)
{
    lcache_entry *c = &t->lcache[(h >> 40) & (LCACHE_SLOTS - 1)];
    uint8_t *d = malloc(n + cnt * sizeof *ids);
    if (!d)
        return; /* a failed cache insert only costs speed */
    memcpy(d, p, n);
    memcpy(d + n, ids, cnt * sizeof *ids);
    free(c->data);
    *c = (lcache_entry){h, (uint32_t)n, (uint32_t)cnt, d};
}

/* A piece too long for the inline cache: the long cache, else BPE. */
static int encode_long(tok_tokenizer *t, const uint8_t *p, size_t n, obuf *o, size_t base)
{
    if (n > LCACHE_MAX_PIECE)
        return bpe(t, p, n, o, base, NULL, NULL);
    uint64_t h = hash_inline(p, n);
    lcache_entry *c = &t->lcache[(h >> 40) & (LCACHE_SLOTS - 1)];
    if (c->data && c->len == n && c->hash == h && memcmp(c->data, p, n) == 0) {
        uint32_t ids[LCACHE_MAX_PIECE];
        memcpy(ids, c->data + n, c->nids * sizeof *ids);
        return emit_ids(t, ids, c->nids, o, base);
    }
    uint32_t ids[LCACHE_MAX_PIECE];
    size_t cnt = 0;
    int rc = bpe(t, p, n, o, base, ids, &cnt);
    if (!rc)
        lcache_put(t, p, n, h, ids, cnt);
    return rc;
}

/* Encodes one piece (n >= 2) whose head word w and hash h were computed (and its slot
 * prefetched) by the batching pre-tokenizer; h is ignored when n > max_len. */
static int encode_piece(tok_tokenizer *t, const uint8_t *p, size_t n, uint64_t w, uint64_t h, obuf *o,
                        size_t base)
{
    uint32_t whole = n <= t->max_len ? vocab_find_hw(t, p, n, w, h) : NONE;
    if (whole != NONE)
        return ob_push(o, whole, base);
    if (n > CACHE_KEY)
        return encode_long(t, p, n, o, base);
    cache_entry *c = &t->cache[(h >> 40) & (CACHE_SLOTS - 1)];
    if (c->len == n && c->hash == h && bytes_eq(c->key, p, n))
        return emit_ids(t, c->ids, c->nids, o, base);
    uint32_t ids[CACHE_KEY];
    size_t cnt = 0;
    int rc = bpe(t, p, n, o, base, ids, &cnt);
    if (rc)
        return rc;
    if (cnt <= CACHE_IDS) {
        c->hash = h;
        c->len = (uint16_t)n;
        c->nids = (uint16_t)cnt;
        memcpy(c->key, p, n);
        memcpy(c->ids, ids, cnt * sizeof *ids);
    } else {
        lcache_put(t, p, n, h, ids, cnt);
    }
    return 0;
}

/* ---------------------------------------------------------------- pre-tokenizer */

/* Classes of ASCII bytes; for others the code point is decoded (the text is valid UTF-8). */
static const uint8_t ASCII_CLASS[128] = {
    ['\t'] = UNI_W, ['\n'] = UNI_W, [0x0B] = UNI_W, [0x0C] = UNI_W, ['\r'] = UNI_W, [' '] = UNI_W,
    ['0'] = UNI_N, ['1'] = UNI_N, ['2'] = UNI_N, ['3'] = UNI_N, ['4'] = UNI_N,
    ['5'] = UNI_N, ['6'] = UNI_N, ['7'] = UNI_N, ['8'] = UNI_N, ['9'] = UNI_N,
    ['A'] = UNI_L, ['B'] = UNI_L, ['C'] = UNI_L, ['D'] = UNI_L, ['E'] = UNI_L, ['F'] = UNI_L,
    ['G'] = UNI_L, ['H'] = UNI_L, ['I'] = UNI_L, ['J'] = UNI_L, ['K'] = UNI_L, ['L'] = UNI_L,
    ['M'] = UNI_L, ['N'] = UNI_L, ['O'] = UNI_L, ['P'] = UNI_L, ['Q'] = UNI_L, ['R'] = UNI_L,
    ['S'] = UNI_L, ['T'] = UNI_L, ['U'] = UNI_L, ['V'] = UNI_L, ['W'] = UNI_L, ['X'] = UNI_L,
    ['Y'] = UNI_L, ['Z'] = UNI_L,
    ['a'] = UNI_L, ['b'] = UNI_L, ['c'] = UNI_L, ['d'] = UNI_L, ['e'] = UNI_L, ['f'] = UNI_L,
    ['g'] = UNI_L, ['h'] = UNI_L, ['i'] = UNI_L, ['j'] = UNI_L, ['k'] = UNI_L, ['l'] = UNI_L,
    ['m'] = UNI_L, ['n'] = UNI_L, ['o'] = UNI_L, ['p'] = UNI_L, ['q'] = UNI_L, ['r'] = UNI_L,
    ['s'] = UNI_L, ['t'] = UNI_L, ['u'] = UNI_L, ['v'] = UNI_L, ['w'] = UNI_L, ['x'] = UNI_L,
    ['y'] = UNI_L, ['z'] = UNI_L,
};

/* Class of the (valid) character at s[i], and its length in *len. */
static inline int char_class(const uint8_t *s, size_t i, size_t *len)
{
    uint8_t c = s[i];
    if (c < 0x80) {
        *len = 1;
        return ASCII_CLASS[c];
    }
    uint32_t cp;
    if (c < 0xE0) {
        cp = (uint32_t)(c & 0x1F) << 6 | (s[i + 1] & 0x3F);
        *len = 2;
    } else if (c < 0xF0) {
        cp = (uint32_t)(c & 0x0F) << 12 | (uint32_t)(s[i + 1] & 0x3F) << 6 | (s[i + 2] & 0x3F);
        *len = 3;
    } else {
        cp = (uint32_t)(c & 0x07) << 18 | (uint32_t)(s[i + 1] & 0x3F) << 12 |
             (uint32_t)(s[i + 2] & 0x3F) << 6 | (s[i + 3] & 0x3F);
        *len = 4;
    }
    return uni_class(cp);
}

#define BATCH 64

/* Pieces are found BATCH at a time, their vocabulary slots prefetched, then encoded in
 * order: the slot loads (mostly cache misses on a 2 MB table) overlap instead of
 * stalling one after another. */
typedef struct batch {
    size_t start[BATCH];
    uint32_t len[BATCH];
    uint64_t w[BATCH], h[BATCH];
    unsigned n;
} batch;

static int flush(tok_tokenizer *t, const uint8_t *s, batch *b, obuf *o, size_t base)
{
    for (unsigned k = 0; k < b->n; k++) {
        size_t st = b->start[k], len = b->len[k];
        int rc = len == 1 ? ob_push(o, t->byte_id[s[st]], base + st)
                          : encode_piece(t, s + st, len, b->w[k], b->h[k], o, base + st);
        if (rc)
            return rc;
    }
    b->n = 0;
    return 0;
}

static inline int add_piece(tok_tokenizer *t, const uint8_t *s, size_t start, size_t len, batch *b,
                            obuf *o, size_t base)
{
    unsigned k = b->n;
    b->start[k] = start;
    b->len[k] = (uint32_t)len;
    b->w[k] = b->h[k] = 0;
    if (len > 1 && len <= t->max_len) {
        uint64_t w = head_word(s + start, len), h = key_hash(s + start, len, w);
        b->w[k] = w;
        b->h[k] = h;
        __builtin_prefetch(&t->slots[h & t->mask]);
        __builtin_prefetch(&t->cache[(h >> 40) & (CACHE_SLOTS - 1)]);
    }
    if (++b->n == BATCH)
        return flush(t, s, b, o, base);
    return 0;
}

static int encode_ordinary(tok_tokenizer *t, const uint8_t *s, size_t n, obuf *o, size_t base)
{
    if (n > UINT32_MAX)
        return TOK_E_TOO_LARGE; /* a piece length must fit the batch's uint32 */
    batch b;
    b.n = 0;
    size_t i = 0;
    while (i < n) {
        size_t start = i, cl_len;
        uint8_t c = s[i];
        if (c == '\'' && i + 1 < n) {
            uint8_t d = s[i + 1];
            size_t plen = 0;
            if (d == 's' || d == 't' || d == 'm' || d == 'd')
                plen = 2;
            else if (i + 2 < n && ((d == 'r' && s[i + 2] == 'e') || (d == 'v' && s[i + 2] == 'e') ||
                                   (d == 'l' && s[i + 2] == 'l')))
                plen = 3;
            if (plen) {
                int rc = add_piece(t, s, i, plen, &b, o, base);
                if (rc)
                    return rc;
                i += plen;
                continue;
            }
        }
        int cl = char_class(s, i, &cl_len);
        if (c == ' ' && i + 1 < n) {
            size_t l2;
            int c2 = char_class(s, i + 1, &l2);
            if (c2 != UNI_W) {
                cl = c2;
                i += 1;
                cl_len = l2;
            }
        }
        if (cl != UNI_W) {
            /* a run of one class (L, N or other), after an optional single space */
            i += cl_len;
            if (cl == UNI_L) {
                while (i < n) {
                    if (s[i] < 0x80) {
                        if (ASCII_CLASS[s[i]] != UNI_L)
                            break;
                        i++;
                        continue;
                    }
                    size_t l;
                    if (char_class(s, i, &l) != UNI_L)
                        break;
                    i += l;
                }
            } else {
                while (i < n) {
                    size_t l;
                    if (char_class(s, i, &l) != cl)
                        break;
                    i += l;
                }
            }
        } else {
            /* a whitespace run: \s+(?!\S) leaves its last character to what follows */
            size_t last = i, count = 0;
            while (i < n) {
                size_t l;
                if (char_class(s, i, &l) != UNI_W)
                    break;
                last = i;
                count++;
                i += l;
            }
            if (i < n && count >= 2)
                i = last;
        }
        int rc = add_piece(t, s, start, i - start, &b, o, base);
        if (rc)
            return rc;
    }
    return flush(t, s, &b, o, base);
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

int tok_encode(tok_tokenizer *t, const char *text, size_t len, tok_special special, unsigned flags,
               tok_ids *out, size_t *bad_offset, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    obuf o = {0};
    o.keep_off = !(flags & TOK_NO_OFFSETS);
    char *clean = NULL;
    size_t *map = NULL, n_rep = 0;
    const char *s = text;
    size_t n = len;
    int rc = 0;
    if (!text && len)
        return g2e_fail(err, G2E_EINVAL, "tok_encode: NULL text with length %zu", len);
    if (!text)
        text = s = ""; /* NULL with length 0 is the empty text */
    size_t bad = tok_utf8_check(text, len);
    if (bad < len) {
        if (!(flags & TOK_LOSSY)) {
            if (bad_offset)
                *bad_offset = bad;
            return g2e_fail(err, TOK_E_UTF8, "invalid UTF-8 at byte offset %zu (byte 0x%02X)", bad,
                            (unsigned)(uint8_t)text[bad]);
        }
        /* Each maximal subpart becomes EF BF BD: at most 3 bytes per input byte. */
        if (len > (SIZE_MAX - 1) / 3 / sizeof(size_t))
            return g2e_fail(err, TOK_E_TOO_LARGE, "input of %zu bytes is too large", len);
        clean = malloc(3 * len + 1);
        map = malloc((3 * len + 1) * sizeof *map);
        if (!clean || !map) {
            rc = g2e_fail(err, G2E_ENOMEM, "out of memory for the lossy copy of %zu bytes", len);
            goto fail;
        }
        const uint8_t *u = (const uint8_t *)text;
        size_t w = 0;
        for (size_t i = 0; i < len;) {
            size_t sub, k = utf8_seq(u + i, len - i, &sub);
            if (k) {
                for (size_t j = 0; j < k; j++) {
                    clean[w] = (char)u[i + j];
                    map[w++] = i + j;
                }
                i += k;
            } else {
                static const char fffd[3] = {'\xEF', '\xBF', '\xBD'};
                for (size_t j = 0; j < 3; j++) {
                    clean[w] = fffd[j];
                    map[w++] = i;
                }
                i += sub;
                n_rep++;
            }
        }
        s = clean;
        n = w;
    }
    if ((rc = ob_grow(&o, n / 4 + 16)))
        goto oom;
    size_t pos = 0;
    if (special != TOK_SPECIAL_TEXT) {
        const char *hit;
        while ((hit = find_special(s + pos, n - pos)) != NULL) {
            size_t at = (size_t)(hit - s);
            if (special == TOK_SPECIAL_ERROR) {
                size_t orig = map ? map[at] : at;
                if (bad_offset)
                    *bad_offset = orig;
                rc = g2e_fail(err, TOK_E_SPECIAL,
                              "the special token %s at byte offset %zu is not allowed here "
                              "(use --special token or --special text)", TOK_ENDOFTEXT_TEXT, orig);
                goto fail;
            }
            if ((rc = encode_ordinary(t, (const uint8_t *)s + pos, at - pos, &o, pos)))
                goto oom;
            if (t->special_id == NONE) {
                rc = g2e_fail(err, TOK_E_SPECIAL, "this vocabulary has no %s token", TOK_ENDOFTEXT_TEXT);
                goto fail;
            }
            if ((rc = ob_push(&o, t->special_id, at)))
                goto oom;
            pos = at + sizeof TOK_ENDOFTEXT_TEXT - 1;
        }
    }
    if ((rc = encode_ordinary(t, (const uint8_t *)s + pos, n - pos, &o, pos)))
        goto oom;
    if (o.keep_off) {
        if ((rc = ob_grow(&o, 1))) /* offsets has n + 1 entries: room for the end */
            goto oom;
        if (map)
            for (size_t k = 0; k < o.n; k++)
                o.off[k] = map[o.off[k]];
        o.off[o.n] = len;
    }
    out->ids = o.ids;
    out->offsets = o.off;
    out->n = o.n;
    out->n_replaced = n_rep;
    free(clean);
    free(map);
    return 0;
oom:
    rc = rc == TOK_E_TOO_LARGE ? g2e_fail(err, rc, "input too large to tokenize")
                               : g2e_fail(err, G2E_ENOMEM, "out of memory tokenizing %zu bytes", len);
fail:
    free(o.ids);
    free(o.off);
    free(clean);
    free(map);
    return rc;
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
