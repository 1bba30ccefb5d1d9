/* SPDX-License-Identifier: MIT */
/* utf8_simd.c — the UTF-8 check 32 bytes at a time with AVX2 (chosen at run time), for
 * text that is not ASCII.
 *
 * Why it is hand-written: the scalar check (text.c) skips ASCII 16 bytes at a time but
 * takes every other character one by one; on the benchmark corpus's Japanese lines that is
 * 353 MB/s, about 5 % of tokenizing them, and 4.9 ms of the whole corpus's check. This one
 * classifies every byte pair of a 32-byte block with three 16-entry table lookups (the
 * high nibble of the byte before, its low nibble, the high nibble of the byte itself: each
 * table gives the error classes that pair could belong to, and their AND is the pair's
 * errors) and checks that the third and fourth bytes of long characters are continuation
 * bytes with two saturating subtractions: the method of Keiser and Lemire, "Validating
 * UTF-8 In Less Than One Instruction Per Byte" (2021); bench_text measures it against the
 * scalar check (bench/README.md). No C library in Debian 12 offers it (simdutf is C++ and
 * not packaged).
 *
 * Only the yes/no answer comes from the blocks: when a block holds an error (or the text
 * ends inside a character), the scalar check runs from the start of the last character
 * before that block, all of which is known to be well-formed, so the offset returned is
 * always the scalar's own.
 */
#include "text.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2")))

/* Error classes of a byte pair (the byte before, this byte). */
enum {
    TOO_SHORT = 1 << 0,  /* a lead byte, then no continuation byte */
    TOO_LONG = 1 << 1,   /* ASCII, then a continuation byte */
    OVERLONG_3 = 1 << 2, /* E0, then 80..9F */
    TOO_LARGE = 1 << 3,  /* F4, then 90..BF; or F5..FF */
    SURROGATE = 1 << 4,  /* ED, then A0..BF */
    OVERLONG_2 = 1 << 5, /* C0 or C1 */
    TOO_LARGE_1000 = 1 << 6, /* F5..FF, then 80..8F */
    OVERLONG_4 = 1 << 6,     /* F0, then 80..8F (the same bit: the low nibble tells them apart) */
    TWO_CONTS = 1 << 7,  /* a continuation byte after a continuation byte (an error unless it
                            is the third or fourth byte of a character) */
    CARRY = TOO_SHORT | TOO_LONG | TWO_CONTS,
};

#define T16(...) _mm256_setr_epi8(__VA_ARGS__, __VA_ARGS__)

static inline __attribute__((always_inline)) AVX2 __m256i lookup(__m256i table, __m256i nibbles)
{
    return _mm256_shuffle_epi8(table, nibbles);
}

/* The errors of block `in` after block `prev` (its last three bytes come before in[0]). */
static inline __attribute__((always_inline)) AVX2 __m256i block_errors(__m256i in, __m256i prev)
{
    const __m256i first_high = T16(TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG,
                                   TOO_LONG, (char)TWO_CONTS, (char)TWO_CONTS, (char)TWO_CONTS, (char)TWO_CONTS, TOO_SHORT | OVERLONG_2,
                                   TOO_SHORT, TOO_SHORT | OVERLONG_3 | SURROGATE,
                                   TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4);
    const char big = (char)(CARRY | TOO_LARGE | TOO_LARGE_1000);
    const __m256i first_low = T16((char)(CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4), (char)(CARRY | OVERLONG_2),
                                  (char)CARRY, (char)CARRY, (char)(CARRY | TOO_LARGE), big, big, big, big, big, big,
                                  big, big, (char)(CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE), big, big);
    const char c89 = (char)(TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3), cAB = (char)(TOO_LONG | OVERLONG_2 | TWO_CONTS);
    const __m256i second_high = T16(TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
                                    TOO_SHORT, (char)(c89 | TOO_LARGE_1000 | OVERLONG_4), (char)(c89 | TOO_LARGE),
                                    (char)(cAB | SURROGATE | TOO_LARGE), (char)(cAB | SURROGATE | TOO_LARGE),
                                    TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT);
    const __m256i low4 = _mm256_set1_epi8(0x0F);
    __m256i joined = _mm256_permute2x128_si256(prev, in, 0x21); /* prev's high half, in's low half */
    __m256i prev1 = _mm256_alignr_epi8(in, joined, 15);
    __m256i prev2 = _mm256_alignr_epi8(in, joined, 14);
    __m256i prev3 = _mm256_alignr_epi8(in, joined, 13);
    __m256i special = _mm256_and_si256(
        _mm256_and_si256(lookup(first_high, _mm256_and_si256(_mm256_srli_epi16(prev1, 4), low4)),
                         lookup(first_low, _mm256_and_si256(prev1, low4))),
        lookup(second_high, _mm256_and_si256(_mm256_srli_epi16(in, 4), low4)));
    /* the third byte after E0..FF and the fourth after F0..FF must be continuation bytes */
    __m256i third = _mm256_subs_epu8(prev2, _mm256_set1_epi8((char)(0xE0 - 0x80)));
    __m256i fourth = _mm256_subs_epu8(prev3, _mm256_set1_epi8((char)(0xF0 - 0x80)));
    __m256i must = _mm256_and_si256(_mm256_or_si256(third, fourth), _mm256_set1_epi8((char)0x80));
    return _mm256_xor_si256(must, special);
}

/* Where the scalar check resumes when the block at i holds an error: the start of the
 * character that holds byte i - 1 (everything before it is well-formed). */
static size_t resume_at(const uint8_t *s, size_t i)
{
    if (i == 0)
        return 0;
    size_t p = i - 1;
    while (p > 0 && i - 1 - p < 3 && (s[p] & 0xC0) == 0x80)
        p--;
    return p;
}

static AVX2 size_t validate_avx2(const char *str, size_t n)
{
    const uint8_t *s = (const uint8_t *)str;
    /* a block whose last bytes start a character it does not finish: F0.. in the last
     * three, E0.. in the last two, C0.. in the last */
    const __m256i ends = _mm256_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                          -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, (char)(0xF0 - 1),
                                          (char)(0xE0 - 1), (char)(0xC0 - 1));
    __m256i prev = _mm256_setzero_si256(), open = _mm256_setzero_si256();
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i in = _mm256_loadu_si256((const __m256i *)(const void *)(s + i));
        __m256i err;
        if (!_mm256_movemask_epi8(in)) { /* ASCII: an error only if the block before left a character open */
            err = open;
            open = _mm256_setzero_si256();
        } else {
            err = block_errors(in, prev);
            open = _mm256_subs_epu8(in, ends);
        }
        if (!_mm256_testz_si256(err, err)) {
            size_t p = resume_at(s, i);
            return p + text_validate_scalar(str + p, n - p);
        }
        prev = in;
    }
    /* the rest, padded with zeros (ASCII): a character left open at the end is an error */
    uint8_t tail[32] = {0};
    memcpy(tail, s + i, n - i);
    __m256i in = _mm256_loadu_si256((const __m256i *)(const void *)tail);
    __m256i err = block_errors(in, prev); /* (a character the last block left open meets a zero) */
    if (!_mm256_testz_si256(err, err)) {
        size_t p = resume_at(s, i);
        return p + text_validate_scalar(str + p, n - p);
    }
    return n;
}

int text_validate_simd(void)
{
    static atomic_int have = -1; /* every thread that finds it unset computes the same answer */
    int h = atomic_load_explicit(&have, memory_order_relaxed);
    if (h < 0) {
        __builtin_cpu_init();
        h = __builtin_cpu_supports("avx2") ? 1 : 0;
        atomic_store_explicit(&have, h, memory_order_relaxed);
    }
    return h;
}

size_t text_validate(const char *s, size_t n)
{
    if (n >= 32 && text_validate_simd())
        return validate_avx2(s, n);
    return text_validate_scalar(s, n);
}

#else

int text_validate_simd(void) { return 0; }
size_t text_validate(const char *s, size_t n) { return text_validate_scalar(s, n); }

#endif
