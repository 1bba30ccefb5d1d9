/* SPDX-License-Identifier: MIT */
/* bench_wordcache.c — the hit rate of a word cache in front of the vocabulary (issue 27;
 * measured and not kept, bench/TOKENIZER_SIMD.md says why): a direct-mapped table of 16-byte
 * entries (head word, ID, length) for the pieces of at most 8 bytes that are whole tokens,
 * probed by one multiply of the piece's head word (Fibonacci hashing) and filled on a miss
 * when the piece's vocabulary home slot holds it, as the version that was tried ran in
 * tokenizer.c's hash_batch/encode_batch. The pieces of each file given (default: the
 * corpus) are replayed through it for 2^10..2^16 slots, one thread, fresh table. Pieces in
 * a text's last 16 bytes were not probed there (nor here).
 *   bench_wordcache [FILE...]   (bench/corpus_parts.py cuts the corpus into en/code/ja)
 */
#include "tok_internal.h"
#include "tok_pretok.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORD_BITS 12 /* the size that was tried: 4096 entries, 64 KB */
typedef struct word_entry {
    uint64_t key; /* head_word of the piece */
    uint32_t id, len;
} word_entry;

static char *slurp(const char *path, size_t *len)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : popen("gzip -dc " G2E_SRCDIR "/bench/data/corpus.txt.gz", "r");
    if (!f)
        return NULL;
    size_t cap = 1 << 20, n = 0, got;
    char *b = malloc(cap);
    while (b && (got = fread(b + n, 1, cap - n, f)) > 0)
        if ((n += got) == cap && !(b = realloc(b, cap *= 2)))
            break;
    if (strcmp(path, "-"))
        fclose(f);
    else
        pclose(f);
    *len = n;
    return b;
}

/* Hit rate of a word cache of 2^bits slots over the pieces of s[0..n); *eligible: the
 * share of pieces that are whole tokens of at most 8 bytes in their home slot. */
static double hit_rate(const tok_tokenizer *t, const uint8_t *s, size_t n, unsigned bits, double *eligible)
{
    size_t slots = (size_t)1 << bits, hits = 0, pieces = 0, ok = 0;
    word_entry *w = calloc(slots, sizeof *w);
    uint32_t len[64];
    for (size_t pos = 0; w && pos < n;) {
        size_t m = tok_pretok(s, n, pos, len, 64);
        for (size_t k = 0; k < m; pos += len[k++]) {
            size_t l = len[k];
            pieces++;
            if (l > 8 || pos + 16 > n)
                continue;
            uint64_t hw = head_word(s + pos, l);
            const tok_slot *e = &t->slots[key_hash(s + pos, l, hw) & t->mask];
            int home = e->head == hw && e->len == l;
            ok += home;
            word_entry *we = &w[(size_t)((hw * 0x9E3779B97F4A7C15ull) >> (64 - bits))];
            if (we->key == hw && we->len == l)
                hits++;
            else if (home)
                *we = (word_entry){hw, e->id1 - 1, (uint32_t)l};
        }
    }
    free(w);
    *eligible = pieces ? (double)ok / (double)pieces : 0;
    return pieces ? (double)hits / (double)pieces : 0;
}

int main(int argc, char **argv)
{
    g2e_err err;
    tok_tokenizer *t;
    if (tok_open_builtin(&t, &err)) {
        fprintf(stderr, "bench_wordcache: %s\n", err.msg);
        return 1;
    }
    char *dflt[] = {"-"};
    char **files = argc > 1 ? argv + 1 : dflt;
    int nf = argc > 1 ? argc - 1 : 1;
    printf("word cache hit rates (share of all pieces it answers), fresh table, by its size\n");
    for (int f = 0; f < nf; f++) {
        size_t n;
        char *s = slurp(files[f], &n);
        if (!s) {
            fprintf(stderr, "bench_wordcache: cannot read %s\n", files[f]);
            return 1;
        }
        double el = 0;
        printf("  %s (%zu bytes):", strcmp(files[f], "-") ? files[f] : "the corpus", n);
        for (unsigned bits = 10; bits <= 16; bits += 2)
            printf(" %u slots %.1f %%%s", 1u << bits, 100 * hit_rate(t, (const uint8_t *)s, n, bits, &el),
                   bits == WORD_BITS ? " (the size tried)" : "");
        printf("; whole tokens of <= 8 bytes in their home slot: %.1f %% of the pieces\n", 100 * el);
        free(s);
    }
    tok_close(t);
    return 0;
}
