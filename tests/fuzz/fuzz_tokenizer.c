/* SPDX-License-Identifier: MIT */
/* fuzz_tokenizer.c — libFuzzer target: tok_encode on arbitrary bytes, strict and lossy, in
 * each special-token mode; on valid input, decode(encode(x)) must give x back and the
 * offsets must tile the input; in lossy mode offsets must be in range and ordered; split
 * on the engine over 2..5 threads in chunks of a byte (eng_set_chunk) the IDs and offsets must be the
 * one-thread ones, and so must be those of a forced BPE path (no piece caches: scan, heap
 * or buckets by the input's first byte, each piece cut where no merge can join or, by a bit
 * of that byte, whole) and the IDs of an encoding without offsets (which
 * fills and reads the caches in their other mode); on valid input, the pre-tokenizer's
 * pieces (in batches of 1..64) must be those of the character-by-character reference
 * tests/pretok_ref.c; its lines as texts of one buffer (tok_encode_joined) are each
 * tokenized as alone.
 * Uses the compiled-in tokenizer (no files needed). */
#include "../pretok_ref.h"
#include "engine.h"
#include "tok_internal.h"
#include "tok_pretok.h"
#include "tokenizer.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static tok_tokenizer *T, *H;
static eng *P;

/* tok_pretok's pieces of valid UTF-8 data[0..size) are the reference's. */
static void check_pieces(const uint8_t *data, size_t size)
{
    uint32_t *want = malloc((size + 1) * sizeof *want), got[64];
    if (!want || pretok_ref(data, size, want) == (size_t)-1)
        abort();
    size_t batch = size ? 1 + data[size / 2] % 64 : 64, pos = 0, k = 0;
    while (pos < size) {
        size_t m = tok_pretok(data, size, pos, got, batch);
        if (m < 1 || m > batch)
            abort();
        for (size_t j = 0; j < m; j++, k++) {
            if (got[j] != want[k])
                abort();
            pos += got[j];
        }
    }
    if (pos != size)
        abort();
    free(want);
}

/* The input cut into lines (each with its newline) as texts of one buffer: each text's
 * status and IDs from tok_encode_joined are tok_encode's of that text alone. */
static void check_joined(const char *s, size_t size, tok_special sp)
{
    size_t nt = 0, *ends = malloc((size + 1) * sizeof *ends), *counts = malloc((size + 1) * sizeof *counts);
    int *rcs = malloc((size + 1) * sizeof *rcs);
    if (!ends || !counts || !rcs)
        abort();
    for (size_t i = 0; i < size; i++)
        if (s[i] == '\n' || i + 1 == size)
            ends[nt++] = i + 1;
    obuf o = {0};
    if (tok_encode_joined(T, s, ends, nt, sp, 0, &o, counts, rcs))
        abort();
    g2e_err err;
    for (size_t k = 0, at = 0; k < nt; at += counts[k++]) {
        size_t from = k ? ends[k - 1] : 0;
        tok_ids r;
        int rc = tok_encode(T, s + from, ends[k] - from, sp, TOK_NO_OFFSETS, &r, NULL, &err);
        if (rc != rcs[k] || (rc ? counts[k] != 0 : counts[k] != r.n || memcmp(o.ids + at, r.ids, r.n * sizeof *r.ids)))
            abort();
        tok_ids_free(&r);
    }
    free(o.ids);
    free(ends), free(counts), free(rcs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    g2e_err err;
    tok_tokenizer *p;
    if (!T && (tok_open_builtin(&T, &err) || tok_open_builtin(&p, &err) || eng_new(&P, p, &err) ||
               tok_open_builtin(&H, &err)))
        abort();
    eng_set_chunk(P, 1);
    const char *s = (const char *)data;
    size_t bad = tok_utf8_check(s, size);
    tok_special sp = size ? (tok_special)(data[0] % 3) : TOK_SPECIAL_TOKEN;
    tok_ids r;
    size_t off = 0;
    int rc = tok_encode(T, s, size, sp, 0, &r, &off, &err);
    if (bad == size)
        check_pieces(data, size);
    check_joined(s, size, sp);
    if (bad < size) {
        if (rc != TOK_E_UTF8 || off != bad)
            abort();
    } else if (rc == TOK_E_SPECIAL) {
        if (sp != TOK_SPECIAL_ERROR || off + 13 > size || memcmp(s + off, "<|endoftext|>", 13) != 0)
            abort();
    } else {
        if (rc)
            abort();
        char *back;
        size_t bl;
        if (tok_decode(T, r.ids, r.n, &back, &bl, &err) || bl != size || memcmp(back, s, size) != 0)
            abort();
        for (size_t k = 0; k < r.n; k++) {
            const uint8_t *p;
            size_t pl;
            if (tok_piece(T, r.ids[k], &p, &pl, &err) || r.offsets[k + 1] - r.offsets[k] != pl ||
                memcmp(s + r.offsets[k], p, pl) != 0)
                abort();
        }
        if (r.offsets[r.n] != size)
            abort();
        free(back);
        tok_ids_free(&r);
    }
    if (tok_encode(T, s, size, TOK_SPECIAL_TEXT, TOK_LOSSY, &r, NULL, &err))
        abort();
    if (r.offsets[r.n] != size || (r.n_replaced == 0) != (bad == size))
        abort();
    for (size_t k = 0; k < r.n; k++)
        if (r.offsets[k] > r.offsets[k + 1] || r.ids[k] >= tok_n_vocab(T))
            abort();
    tok_ids pr;
    if (eng_encode(P, 2 + (size ? data[size - 1] % 4 : 0), s, size, TOK_SPECIAL_TEXT, TOK_LOSSY, &pr, NULL, &err) ||
        pr.n != r.n ||
        memcmp(pr.ids, r.ids, r.n * sizeof *r.ids) != 0 ||
        memcmp(pr.offsets, r.offsets, (r.n + 1) * sizeof *r.offsets) != 0)
        abort();
    tok_ids_free(&pr);
    static const int paths[] = {TOK_BPE_SCAN, TOK_BPE_HEAP, TOK_BPE_BUCKETS};
    tok_set_bpe_path(H, paths[size ? data[0] % 3 : 0] | (size && data[0] & 8 ? TOK_BPE_WHOLE : 0));
    if (tok_encode(H, s, size, TOK_SPECIAL_TEXT, TOK_LOSSY, &pr, NULL, &err) || pr.n != r.n ||
        memcmp(pr.ids, r.ids, r.n * sizeof *r.ids) != 0 ||
        memcmp(pr.offsets, r.offsets, (r.n + 1) * sizeof *r.offsets) != 0)
        abort();
    tok_ids_free(&pr);
    if (tok_encode(T, s, size, TOK_SPECIAL_TEXT, TOK_LOSSY | TOK_NO_OFFSETS, &pr, NULL, &err) || pr.n != r.n ||
        memcmp(pr.ids, r.ids, r.n * sizeof *r.ids) != 0)
        abort();
    tok_ids_free(&pr);
    tok_ids_free(&r);
    return 0;
}
