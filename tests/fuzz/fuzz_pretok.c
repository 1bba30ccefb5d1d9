/* SPDX-License-Identifier: MIT */
/* fuzz_pretok.c — libFuzzer target, differential: on valid UTF-8 (other inputs are made
 * valid by keeping their ASCII bytes), every path of the pre-tokenizer (tok_pretok.h: the
 * state machine alone, SSE2 blocks, AVX2 blocks where the CPU has them) must give the
 * pieces of the character-by-character reference tests/pretok_ref.c, in batches of 1..64
 * pieces; and tok_pretok_texts over the input's lines (texts of one buffer, with random
 * room for pieces and marks) must give each line's pieces as alone. The input is also read
 * after a prefix of 0..63 bytes, so that its pieces start at every offset of the blocks.
 * And the UTF-8 check's two paths (text.h: AVX2 and scalar) must give the same offset on
 * the raw input. Any disagreement traps. */
#include "../pretok_ref.h"
#include "text.h"
#include "tok_pretok.h"
#include "tokenizer.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const int PATHS[] = {TOK_PRETOK_SCALAR, TOK_PRETOK_BLOCKS, TOK_PRETOK_AVX2};
#define N_PATHS (sizeof PATHS / sizeof PATHS[0])

/* The pieces of s[0..n) on the path in use, in batches of `batch`, equal want[0..nw). */
static void same_pieces(const uint8_t *s, size_t n, const uint32_t *want, size_t nw, size_t batch)
{
    uint32_t got[64];
    size_t pos = 0, k = 0;
    while (pos < n) {
        size_t m = tok_pretok(s, n, pos, got, batch);
        if (m < 1 || m > batch || k + m > nw)
            __builtin_trap();
        for (size_t j = 0; j < m; j++, k++) {
            if (got[j] != want[k])
                __builtin_trap();
            pos += got[j];
        }
    }
    if (pos != n || k != nw)
        __builtin_trap();
}

/* tok_pretok_texts over the lines of s[0..n): each line's pieces are the reference's. */
static void same_lines(const uint8_t *s, size_t n, unsigned seed)
{
    size_t nt = 0, *ends = malloc((n + 1) * sizeof *ends), *first = malloc((n + 2) * sizeof *first);
    uint32_t *got = malloc((n + 1) * sizeof *got), *want = malloc((n + 1) * sizeof *want);
    if (!ends || !first || !got || !want)
        abort();
    for (size_t i = 0; i < n; i++)
        if (s[i] == '\n' || i + 1 == n)
            ends[nt++] = i + 1;
    size_t text = 0, pos = 0, np = 0;
    first[0] = 0;
    while (text < nt) {
        uint32_t batch[64], marks[8];
        size_t max = 1 + (seed = seed * 1103515245u + 12345u) % 64, max_marks = 1 + (seed >> 8) % 8, nm;
        size_t t0 = text, m = tok_pretok_texts(s, ends, nt, &text, &pos, batch, max, marks, &nm, max_marks);
        if (m > max || nm > max_marks || (!m && !nm) || text != t0 + nm)
            __builtin_trap();
        for (size_t j = 0; j < nm; j++)
            first[t0 + j + 1] = np + marks[j];
        memcpy(got + np, batch, m * sizeof *got);
        np += m;
    }
    for (size_t k = 0, from = 0; k < nt; from = ends[k++]) {
        size_t nw = pretok_ref(s + from, ends[k] - from, want), ng = first[k + 1] - first[k];
        if (nw != ng || memcmp(got + first[k], want, nw * sizeof *want) != 0)
            __builtin_trap();
    }
    free(ends), free(first), free(got), free(want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char prefix[64] = "it's a  12 \t\n(x) don't 'll we've\r\n ..., the  end  of  it   ab";
    size_t skip = size ? data[0] % 64 : 0;
    uint8_t *s = malloc(skip + size + 1);
    uint32_t *want = malloc((skip + size + 1) * sizeof *want);
    if (!s || !want)
        abort();
    memcpy(s, prefix, skip);
    size_t n = skip;
    /* the UTF-8 check's AVX2 path gives the scalar one's offset on any bytes */
    if (text_validate((const char *)data, size) != text_validate_scalar((const char *)data, size))
        __builtin_trap();
    if (tok_utf8_check((const char *)data, size) == size) {
        memcpy(s + n, data, size);
        n += size;
    } else {
        for (size_t i = 0; i < size; i++)
            if (data[i] < 0x80)
                s[n++] = data[i];
    }
    uint8_t *t = malloc(n ? n : 1); /* exactly n bytes: ASan catches a read past the text */
    if (!t)
        abort();
    memcpy(t, s, n);
    size_t nw = pretok_ref(t, n, want);
    if (nw == (size_t)-1)
        __builtin_trap();
    for (size_t p = 0; p < N_PATHS; p++) {
        if (tok_pretok_use(PATHS[p]) != PATHS[p])
            continue; /* AVX2 on a CPU without it */
        same_pieces(t, n, want, nw, 64);
        same_pieces(t, n, want, nw, 1 + (size ? data[size - 1] : 0) % 64);
        same_lines(t, n, (unsigned)size * 2654435761u);
    }
    tok_pretok_use(TOK_PRETOK_AUTO);
    free(t), free(s), free(want);
    return 0;
}
