/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* memmem */
/* tok_load.c — loading a tokenizer: GPT-2's files (vocab.json + merges.txt, or
 * encoder.json + vocab.bpe) parsed and checked, or the compiled form (tokenizer_data.c)
 * when the files are byte for byte the ones it was made from; the vocabulary index; the
 * search order of tok_locate. See tokenizer.h for the contract.
 *
 * Left out: loading vocabularies whose merge order differs from their ID order (tiktoken
 * needs rank == ID; such files are rejected with TOK_E_MERGES).
 */
#include "tok_internal.h"
#include "text.h"

#include <cjson/cJSON.h>

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
    tok_slot *slots = table_alloc(cap * sizeof *slots);
    uint32_t *pair2p1 = calloc(65536, sizeof *pair2p1);
    uint64_t *joins = calloc(1024, sizeof *joins);
    t->slots = slots;
    t->pair2p1 = pair2p1;
    t->joins = joins;
    if (!slots || !pair2p1 || !joins || tok_alloc_caches(t))
        return g2e_fail(err, G2E_ENOMEM, "out of memory for the tokenizer's tables");
    for (int b = 0; b < 256; b++)
        t->byte_id[b] = NONE;
    t->max_len = 0;
    for (uint32_t id = 0; id < t->n_vocab; id++) {
        uint32_t o = t->off[id], n = t->off[id + 1] - o;
        for (uint32_t k = 0; k + 1 < n; k++) { /* the special token too: more joins cut less */
            unsigned ab = t->blob[o + k] << 8 | t->blob[o + k + 1];
            joins[ab >> 6] |= (uint64_t)1 << (ab & 63);
        }
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
        while (slots[i].id1)
            i = (i + 1) & t->mask;
        slots[i] = (tok_slot){w, id + 1, n};
        if (n == 2 && !pair2p1[t->blob[o] << 8 | t->blob[o + 1]])
            pair2p1[t->blob[o] << 8 | t->blob[o + 1]] = id + 1;
    }
    for (int b = 0; b < 256; b++)
        if (t->byte_id[b] == NONE)
            return g2e_fail(err, TOK_E_VOCAB, "the vocabulary has no token for byte 0x%02X", b);
    return 0;
}

#ifndef TOK_NO_BUILTIN
/* The compiled-in index, if it was made by this library's hash on a host of this byte
 * order: a few single-byte tokens and the last token found through it (a cheap check that
 * catches a stale table: another hash would place next to no entry where this one looks),
 * else 0 and the caller builds it. A few, not all 256: each lookup is a page of the 2 MB
 * index to fault in, and all 256 cost 13 of a cold start's 148 page faults. */
static int use_static_index(tok_tokenizer *t, const tok_builtin_data *d)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (d->index_version != TOK_INDEX_VERSION || !d->slots || !d->pair2p1 || !d->byte_id || !d->joins)
        return 0;
    t->slots = d->slots;
    t->mask = d->index_mask;
    t->pair2p1 = d->pair2p1;
    t->joins = d->joins;
    t->max_len = d->max_len;
    memcpy(t->byte_id, d->byte_id, sizeof t->byte_id);
    int ok = 1;
    static const uint8_t probe[] = {0x00, '\n', ' ', 'e', 0xFF};
    for (size_t k = 0; k < sizeof probe && ok; k++)
        ok = vocab_find(t, &probe[k], 1) == t->byte_id[probe[k]];
    uint32_t last = d->n_vocab - 1 == d->special_id ? d->n_vocab - 2 : d->n_vocab - 1;
    ok = ok && vocab_find(t, t->blob + t->off[last], t->off[last + 1] - t->off[last]) == last;
    if (ok)
        return t->static_index = 1;
    t->slots = NULL;
    t->pair2p1 = NULL;
    t->joins = NULL;
#else
    (void)t, (void)d;
#endif
    return 0;
}
#endif

/* The bytes of the mapping that holds a tokenizer's piece cache, then its pair memo. */
static size_t tok_caches_bytes(void)
{
    return tok_huge_round(CACHE_SLOTS * sizeof(cache_entry) + MEMO_SLOTS * sizeof(uint64_t) +
                          PART_SLOTS * sizeof(part_entry));
}

int tok_alloc_caches(tok_tokenizer *t)
{
    size_t bytes = tok_caches_bytes();
    /* (the long cache is made when a first long piece is met: lcache_put) */
    t->lcache = NULL;
    /* map one huge page more than needed and trim both ends to a TOK_HUGE_PAGE boundary */
    uint8_t *m = mmap(NULL, bytes + TOK_HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return G2E_ENOMEM;
    size_t head = tok_huge_round((uintptr_t)m) - (uintptr_t)m;
    if (head)
        munmap(m, head);
    munmap(m + head + bytes, TOK_HUGE_PAGE - head); /* head < TOK_HUGE_PAGE: never empty */
    m += head;
    t->cache = (cache_entry *)m; /* the kernel's zero pages: empty entries */
    t->memo = (uint64_t *)(m + CACHE_SLOTS * sizeof *t->cache);
    t->parts = (part_entry *)(t->memo + MEMO_SLOTS);
    t->caches_huge = 0;
    return 0;
}

void tok_free_caches(tok_tokenizer *t)
{
    if (t->lcache)
        for (uint32_t i = 0; i < LCACHE_SLOTS; i++)
            free(t->lcache[i].data);
    free(t->lcache);
    if (t->cache)
        munmap(t->cache, tok_caches_bytes());
    t->cache = NULL;
    t->memo = NULL;
    t->parts = NULL;
    t->lcache = NULL;
}

void tok_mem_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    uintptr_t a = tok_huge_round((uintptr_t)p);
    uintptr_t b = ((uintptr_t)p + bytes) & ~(uintptr_t)(TOK_HUGE_PAGE - 1);
    if (b > a)
        (void)madvise((void *)a, b - a, MADV_HUGEPAGE); /* advice only: a refusal changes nothing */
#else
    (void)p;
    (void)bytes;
#endif
}

void tok_caches_huge(tok_tokenizer *t, size_t bytes)
{
    if (bytes < TOK_CACHES_HUGE_MIN || t->caches_huge || !t->cache)
        return;
    tok_mem_huge(t->cache, tok_caches_bytes());
    t->caches_huge = 1;
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
    tok_free_caches(t);
    for (int k = 0; k < 2; k++) {
        struct obuf *o = k ? t->out_off : t->out_ids;
        if (o) {
            free(o->ids);
            free(o->off);
            free(o);
        }
    }
    if (!t->is_clone) {
        free(t->owned_blob);
        if (!t->compiled)
            free((void *)t->off);
        if (!t->static_index) {
            table_free((void *)t->slots, (t->mask + 1) * sizeof *t->slots);
            free((void *)t->pair2p1);
            free((void *)t->joins);
        }
    }
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
    t->off = d->offs;   /* stored by gen_tokdata: nothing to sum or allocate at start */
    t->compiled = 1;
    if (use_static_index(t, d))
        return tok_alloc_caches(t) ? g2e_fail(err, G2E_ENOMEM, "out of memory for the tokenizer") : 0;
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
    size_t k = text_validate(s + *i, n - *i < 4 ? n - *i : 4);
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

/* A key of vocab.json (UTF-8, as cJSON decoded it) into GPT-2 bytes: each character is one
 * byte (bytes_to_unicode). Returns the byte count, or -1 when a character is not a GPT-2
 * byte or the key is longer than MAX_TOKEN_LEN. */
static long vocab_key(const char *k, const int dec[324], uint8_t *out)
{
    size_t n = strlen(k), i = 0;
    long len = 0;
    while (i < n) {
        long cp = utf8_cp(k, n, &i);
        if (cp < 0 || cp >= 324 || dec[cp] < 0 || len >= (long)MAX_TOKEN_LEN)
            return -1;
        out[len++] = (uint8_t)dec[cp];
    }
    return len;
}

/* vocab.json's entries as read: entry k maps the key bytes blob[pos[k] >> 16 ..][len
 * pos[k] & 0xFFFF] to id[k]. */
typedef struct vocab_entries {
    size_t n, blob_len;
    uint32_t *id;
    uint64_t *pos;
    uint8_t *blob;
} vocab_entries;

/* Every entry of the object j, keys decoded from GPT-2's byte spelling (dec), IDs checked to
 * be integers below MAX_VOCAB; notes <|endoftext|>'s ID. */
static int read_entries(tok_tokenizer *t, const cJSON *j, const char *path, size_t n, vocab_entries *v,
                        g2e_err *err)
{
    int dec[324];
    byte_decoder(dec);
    const cJSON *e;
    cJSON_ArrayForEach(e, j) v->n++;
    v->id = malloc((v->n + 1) * sizeof *v->id);
    v->pos = malloc((v->n + 1) * sizeof *v->pos); /* blob offset << 16 | length */
    v->blob = malloc(n + 1);                      /* keys never grow when decoded */
    if (!v->id || !v->pos || !v->blob)
        return g2e_fail(err, G2E_ENOMEM, "out of memory parsing %s", path);
    size_t at = 0;
    cJSON_ArrayForEach(e, j) {
        long kl = vocab_key(e->string, dec, v->blob + v->blob_len);
        double d = cJSON_IsNumber(e) ? e->valuedouble : -1;
        if (kl < 0)
            return g2e_fail(err, TOK_E_VOCAB, "%s: the key of entry %zu holds a character that is not a GPT-2 byte",
                            path, at + 1);
        if (!(d >= 0 && d < MAX_VOCAB && d == (double)(uint32_t)d))
            return g2e_fail(err, TOK_E_VOCAB, "%s: entry %zu: expected a token ID below %u", path, at + 1, MAX_VOCAB);
        if (kl == 13 && memcmp(v->blob + v->blob_len, TOK_ENDOFTEXT_TEXT, 13) == 0)
            t->special_id = (uint32_t)d;
        v->id[at] = (uint32_t)d;
        v->pos[at++] = (uint64_t)v->blob_len << 16 | (uint64_t)kl;
        v->blob_len += (size_t)kl;
    }
    if (v->n < 256)
        return g2e_fail(err, TOK_E_VOCAB, "%s: %zu tokens, expected at least 256", path, v->n);
    return 0;
}

/* The tokens in ID order into t (off, owned_blob): IDs must be exactly 0..n-1, each once. */
static int lay_out_by_id(tok_tokenizer *t, const vocab_entries *v, const char *path, g2e_err *err)
{
    size_t n = v->n;
    t->n_vocab = (uint32_t)n;
    uint32_t *off = malloc((n + 1) * sizeof *off);
    t->off = off;
    uint64_t *by_id = malloc(n * sizeof *by_id);
    int rc = 0;
    if (!off || !by_id) {
        rc = g2e_fail(err, G2E_ENOMEM, "out of memory parsing %s", path);
        goto done;
    }
    for (size_t k = 0; k < n; k++)
        by_id[k] = UINT64_MAX;
    for (size_t k = 0; k < n; k++) {
        if (v->id[k] >= n || by_id[v->id[k]] != UINT64_MAX) {
            rc = g2e_fail(err, TOK_E_VOCAB, "%s: token ID %u is %s (IDs must be 0..%zu, each once)", path, v->id[k],
                          v->id[k] >= n ? "out of range" : "repeated", n - 1);
            goto done;
        }
        by_id[v->id[k]] = v->pos[k];
    }
    if (!(t->owned_blob = malloc(v->blob_len + 1))) {
        rc = g2e_fail(err, G2E_ENOMEM, "out of memory parsing %s", path);
        goto done;
    }
    uint32_t o = 0;
    for (size_t k = 0; k < n; k++) {
        uint32_t len = (uint32_t)(by_id[k] & 0xFFFF);
        memcpy(t->owned_blob + o, v->blob + (by_id[k] >> 16), len);
        off[k] = o;
        o += len;
    }
    off[n] = o;
    t->blob = t->owned_blob;
done:
    free(by_id);
    return rc;
}

/* Parses vocab.json with cJSON. Two things cJSON cannot tell are refused first: a NUL
 * (escaped or raw), since its strings end there and a key would be silently cut short —
 * no GPT-2 byte is spelled U+0000, so such a file is malformed anyway. */
static int parse_vocab(tok_tokenizer *t, const char *path, const char *s, size_t n, g2e_err *err)
{
    if (n == 0)   /* an empty file maps to no buffer: memchr(NULL, ...) is undefined */
        return g2e_fail(err, TOK_E_VOCAB, "%s: empty file (no vocabulary)", path);
    const char *nul = memchr(s, 0, n), *esc = memmem(s, n, "\\u0000", 6);
    if (nul || esc)
        return g2e_fail(err, TOK_E_VOCAB, "%s: a NUL character at byte %zu (no GPT-2 byte is spelled so)", path,
                        (size_t)((nul && (!esc || nul < esc) ? nul : esc) - s));
    cJSON *j = cJSON_ParseWithLength(s, n);
    if (!j) {
        const char *e = cJSON_GetErrorPtr();
        return g2e_fail(err, TOK_E_VOCAB, "%s: malformed JSON near byte %zu", path,
                        e && e >= s && e <= s + n ? (size_t)(e - s) : n);
    }
    vocab_entries v = {0};
    int rc = !cJSON_IsObject(j) ? g2e_fail(err, TOK_E_VOCAB, "%s: expected a JSON object of token -> ID", path)
                                : read_entries(t, j, path, n, &v, err);
    if (!rc)
        rc = lay_out_by_id(t, &v, path, err);
    if (!rc && (rc = build_index(t, 1, err)) && err) {
        char inner[G2E_ERR_MSG_MAX];
        memcpy(inner, err->msg, sizeof inner); /* g2e_fail must not read what it writes */
        g2e_fail(err, rc, "%s: %s", path, inner);
    }
    cJSON_Delete(j);
    free(v.id);
    free(v.pos);
    free(v.blob);
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
                    "no tokenizer found: looked at $%s (not set), %s%s "
                    "(no compiled-in data in this build)",
                    TOK_ENV, looked, G2E_DATADIR "/tokenizer");
#endif
}

const char *tok_source(const tok_tokenizer *t) { return t->source; }
int tok_is_compiled(const tok_tokenizer *t) { return t->compiled; }
uint32_t tok_n_vocab(const tok_tokenizer *t) { return t->n_vocab; }

