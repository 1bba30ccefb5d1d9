/* SPDX-License-Identifier: MIT */
/* tok_pretok.c — GPT-2's pre-tokenizer as a state machine (see tok_pretok.h).
 *
 * At each piece start, in the pattern's order of alternatives:
 *   1. an apostrophe followed by s, t, m, d, re, ve or ll: that contraction;
 *   2. an optional single ' ' then a run of one class (L, N or "other": not \s, L, N);
 *      the ' ' is taken only when the character after it is not whitespace;
 *   3. otherwise a whitespace run: \s+(?!\S) leaves the run's last character to what
 *      follows when the run is followed by a non-space (and is longer than one), else
 *      \s+ takes it all.
 *
 * Where pieces start, told from neighbours alone. Write W for white space, c[j] for the
 * character at j, a piece starting at 0 (the caller's invariant). From the rules above:
 *   (a) c[j] W, c[j-1] not: starts (no alternative that holds a non-space goes on over a
 *       space, and \s+ cannot hold c[j-1]);
 *   (b) c[j] W, c[j-1] W: starts exactly when c[j+1] exists and is not W (the run, longer
 *       than one, gives up its last character, which starts the next piece);
 *   (c) c[j] not W, c[j-1] W: starts unless c[j-1] is ' ' (a ' ' before a non-space
 *       always starts the piece that holds both, by (a) or (b));
 *   (d) c[j], c[j-1] both not W: starts exactly when their classes (L, N, other) differ,
 *       every run being greedy;
 * except after a contraction: an apostrophe where (a)-(d) start a piece, followed by one
 * of s t m d re ve ll, makes that a piece of its own (the letters inside start none, the
 * character after it starts one). Contractions can neither start inside one another nor
 * change (a)-(d) elsewhere: they end in a letter, and their apostrophe starts by (d) or (c).
 *
 * Most text is ASCII, so tok_pretok works on blocks of 64 bytes (block_pieces): SSE2
 * compares (or a portable byte loop) give a 64-bit mask per class of ASCII byte, the
 * non-ASCII characters are decoded and each of their bytes is given the character's class
 * (so that inside a character (d) finds no start), (a)-(d) become a few shifts and ands,
 * contractions patch the few apostrophes, and the lengths come from the set bits. A block
 * knows nothing from its first character that is non-ASCII white space (its bytes would
 * look like a run of W), nor at its last byte (rule (b) needs c[j+1]); a piece is emitted
 * only when the start after it is known. The text's last bytes (fewer than 64) are a
 * block too, copied with zeros after them (tail_pieces), where the end of the text
 * starts a piece. What a block cannot tell (a piece longer than it, white space beyond
 * ASCII) is done by one_piece, which follows rules 1-3 one character at a time, decoding the
 * non-ASCII ones (the input is valid UTF-8, checked by the caller).
 * tests/test_tok_pretok.c compares both paths with a character-by-character reference of
 * the pattern (tests/pretok_ref.c), and so does tests/fuzz/fuzz_tokenizer.c.
 */
#include "tok_pretok.h"
#include "unicode.h"

#include <string.h>

/* Classes of bytes: ASCII as the pattern sees them; DECODE for lead and continuation bytes
 * of multi-byte characters (the character is decoded to find its class). */
#define DECODE 4
static const uint8_t BYTE_CLASS[256] = {
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
#define D4(b) [b] = DECODE, [b + 1] = DECODE, [b + 2] = DECODE, [b + 3] = DECODE
#define D16(b) D4(b), D4(b + 4), D4(b + 8), D4(b + 12)
    D16(0x80), D16(0x90), D16(0xA0), D16(0xB0), D16(0xC0), D16(0xD0), D16(0xE0), D16(0xF0),
#undef D16
#undef D4
};

/* Class of the multi-byte character starting at s[i] (valid UTF-8), its length in *len. */
static inline int wide_class(const uint8_t *s, size_t i, size_t *len)
{
    uint8_t c = s[i];
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

/* Class of the character at s[i], its length in *len. */
static inline int char_class(const uint8_t *s, size_t i, size_t *len)
{
    int cl = BYTE_CLASS[s[i]];
    if (cl != DECODE) {
        *len = 1;
        return cl;
    }
    return wide_class(s, i, len);
}

/* Bit 7 of each byte of w set where that byte is an ASCII letter (A-Z, a-z): eight bytes
 * tested at once without carries between them (every sum below stays under 0x100). */
static inline uint64_t ascii_letters(uint64_t w)
{
    const uint64_t hi = 0x8080808080808080ull;
    uint64_t y = (w | 0x2020202020202020ull) & 0x7F7F7F7F7F7F7F7Full; /* A-Z -> a-z */
    uint64_t ge_a = y + 0x1F1F1F1F1F1F1F1Full;  /* bit 7: y >= 0x61 */
    uint64_t gt_z = y + 0x0505050505050505ull;  /* bit 7: y >= 0x7B */
    return ge_a & ~gt_z & ~w & hi;              /* ~w: the byte itself is ASCII */
}

/* End of the run of class cl (not whitespace) that continues at s[i]. */
static inline size_t run_end(const uint8_t *s, size_t n, size_t i, int cl)
{
    if (cl == UNI_L) /* ASCII letters eight at a time */
        while (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            uint64_t other = ~ascii_letters(w) & 0x8080808080808080ull;
            if (!other) {
                i += 8;
                continue;
            }
            i += (size_t)__builtin_ctzll(other) >> 3; /* little-endian: the first such byte */
            break;
        }
    while (i < n) {
        int b = BYTE_CLASS[s[i]];
        if (b == cl) {
            i++;
            continue;
        }
        size_t l;
        if (b != DECODE || wide_class(s, i, &l) != cl)
            break;
        i += l;
    }
    return i;
}

/* Length of a contraction at s[i] == '\'' ('s 't 'm 'd 're 've 'll), or 0. */
static inline size_t contraction(const uint8_t *s, size_t n, size_t i)
{
    if (i + 1 >= n)
        return 0;
    uint8_t d = s[i + 1];
    if (d == 's' || d == 't' || d == 'm' || d == 'd')
        return 2;
    if (i + 2 < n && ((d == 'r' && s[i + 2] == 'e') || (d == 'v' && s[i + 2] == 'e') ||
                      (d == 'l' && s[i + 2] == 'l')))
        return 3;
    return 0;
}

/* The end of the piece that starts at s[i] (i < n): the pattern followed one character at
 * a time (for text the blocks below cannot take). */
static size_t one_piece(const uint8_t *s, size_t n, size_t i)
{
    size_t cl_len;
    uint8_t c = s[i];
    /* the commonest pieces first: "word" and " word" in ASCII letters */
    if (BYTE_CLASS[c] == UNI_L || (c == ' ' && i + 1 < n && BYTE_CLASS[s[i + 1]] == UNI_L))
        return run_end(s, n, i + 1 + (c == ' '), UNI_L);
    if (c == '\'') {
        size_t pl = contraction(s, n, i);
        if (pl)
            return i + pl;
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
    if (cl != UNI_W)
        return run_end(s, n, i + cl_len, cl);
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
    return i < n && count >= 2 ? last : i;
}

/* ------------------------------------------------------------ 64 bytes at once */

/* Bit j of each mask is byte j of a block of 64: ASCII letters, ASCII digits, ASCII white
 * space (\t \n \v \f \r ' '), ' ', bytes >= 0x80. */
typedef struct {
    uint64_t l, d, ws, sp, ap, hi;
} block_masks;

#if defined(__SSE2__) && !defined(G2E_PRETOK_PORTABLE)
#include <emmintrin.h>

/* The 64-bit mask of the four 16-byte compare results a, b, c, d (bytes 0 or 0xFF). */
static inline uint64_t mask64(__m128i a, __m128i b, __m128i c, __m128i d)
{
    return (uint64_t)(uint32_t)_mm_movemask_epi8(a) | (uint64_t)(uint32_t)_mm_movemask_epi8(b) << 16 |
           (uint64_t)(uint32_t)_mm_movemask_epi8(c) << 32 | (uint64_t)(uint32_t)_mm_movemask_epi8(d) << 48;
}

/* Bytes in lo..lo+count-1: a signed compare after an offset, x + (0x80 - lo) < -128 + count. */
#define IN_RANGE(x, lo, count) \
    _mm_cmplt_epi8(_mm_add_epi8((x), _mm_set1_epi8((char)(0x80 - (lo)))), _mm_set1_epi8((char)(-128 + (count))))
#define LETTER(x) IN_RANGE(_mm_or_si128((x), _mm_set1_epi8(0x20)), 'a', 26) /* A-Z: a-z with 0x20 */
#define DIGIT(x) IN_RANGE((x), '0', 10)
#define IS(x, c) _mm_cmpeq_epi8((x), _mm_set1_epi8(c))
#define WHITE(x) _mm_or_si128(IS((x), ' '), IN_RANGE((x), '\t', 5))

static inline void classify(const uint8_t *s, block_masks *m)
{
    /* class by class over the four 16-byte parts (which keeps them all in registers) */
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)s);
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
    __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + 32));
    __m128i d = _mm_loadu_si128((const __m128i *)(const void *)(s + 48));
    m->hi = mask64(a, b, c, d);
    m->l = mask64(LETTER(a), LETTER(b), LETTER(c), LETTER(d));
    m->d = mask64(DIGIT(a), DIGIT(b), DIGIT(c), DIGIT(d));
    m->ws = mask64(WHITE(a), WHITE(b), WHITE(c), WHITE(d));
    m->sp = mask64(IS(a, ' '), IS(b, ' '), IS(c, ' '), IS(d, ' '));
    m->ap = mask64(IS(a, '\''), IS(b, '\''), IS(c, '\''), IS(d, '\''));
}
#undef IN_RANGE
#undef LETTER
#undef DIGIT
#undef IS
#undef WHITE
#else
/* Portable: a byte at a time through BYTE_CLASS. */
static inline void classify(const uint8_t *s, block_masks *m)
{
    *m = (block_masks){0};
    for (unsigned j = 0; j < 64; j++) {
        uint64_t b = 1ull << j;
        int cl = BYTE_CLASS[s[j]];
        m->l |= cl == UNI_L ? b : 0;
        m->d |= cl == UNI_N ? b : 0;
        m->ws |= cl == UNI_W ? b : 0;
        m->sp |= s[j] == ' ' ? b : 0;
        m->ap |= s[j] == '\'' ? b : 0;
        m->hi |= cl == DECODE ? b : 0;
    }
}
#endif

/* The pieces of the block s[i..i+64) (a piece starts at i) that can be told from the block
 * alone, their lengths into len[0..max); returns how many, and in *end where the last of
 * them ends (0 pieces: the first one goes beyond what the block knows). With v == 64 the
 * block is inside the text (i + 64 <= n); with v < 64 it is the text's last v bytes
 * (i + v == n) followed by bytes that are read but not the text's (zero padding, or the
 * buffer's next text): the text's end starts a piece there, rule (b) sees no c[j+1]
 * before it, and no other rule for a byte before the end looks at a byte after it. Bits
 * of bnd are where other texts of the buffer start inside the block (tok_pretok_texts):
 * each is such an end as well as a start, and no contraction reaches over it. *cuts (if
 * cuts is not NULL): the block's bits where the pieces given end. */
static inline __attribute__((always_inline)) size_t block_pieces_in(const uint8_t *s, size_t n, size_t i, unsigned v,
                                                                    uint64_t bnd, uint32_t *len, size_t max,
                                                                    size_t *end, uint64_t *cuts)
{
    block_masks m;
    classify(s + i, &m);
    uint64_t past = v < 64 ? ~0ull << v : 0; /* the bytes after the text's end */
    m.hi &= ~past;                           /* (they are not decoded) */
    /* the characters of bytes >= 0x80 decoded (one that goes on past the block is whole in
     * s: valid UTF-8), each of their bytes given its class, up to the first that is white
     * space (its bytes would look like a run of W): from there on nothing is known */
    uint64_t wide[3] = {0, 0, 0}, unk = 0; /* UNI_O, UNI_L, UNI_N */
    for (uint64_t rest = m.hi; rest;) {
        unsigned at = (unsigned)__builtin_ctzll(rest);
        size_t w;
        int cl = wide_class(s, i + at, &w);
        if (cl == UNI_W) {
            unk = ~0ull << at;
            break;
        }
        uint64_t bits = ((1ull << w) - 1) << at;
        wide[cl] |= bits;
        rest &= ~bits;
    }
    uint64_t ws = m.ws, pws = ws << 1, l = m.l | wide[UNI_L], d = m.d | wide[UNI_N];
    uint64_t o = ~(m.l | m.d | ws | m.hi) | wide[UNI_O]; /* neither letter, digit nor white space */
    uint64_t same = (l & l << 1) | (d & d << 1) | (o & o << 1);
    /* piece starts, by the rules at the top: (a) and (b) for white space (an unknown byte
     * after a W run counted as W: that start is not known, see below; the end of the text
     * counted as W too: \s+ takes the run to the end), (c) and (d) for the rest (same is 0
     * after W), and byte 0 */
    uint64_t st = (ws & ~(pws & (ws | unk | past | bnd) >> 1)) | (~ws & ~same & ~(m.sp << 1)) | 1 | bnd;
    /* what is known: the starts before the first unknown byte, but at the one before it
     * only if that start does not depend on its class; at the text's end, all of them and
     * the end itself */
    unsigned h = unk ? (unsigned)__builtin_ctzll(unk) : 64;
    if (h == 0)
        return 0;
    unsigned lim = h < 63 ? h - 1 : 62;
    if (h < 64 && h >= 2 && (ws & pws) >> (h - 1) & 1)
        lim = h - 2;
    if (h == 64 && v < 64) {
        st |= 1ull << v;
        lim = v;
    }
    uint64_t known = (2ull << lim) - 1;
    /* contractions: an apostrophe where a piece starts, then s t m d (the next start two
     * on) or re ve ll (three on); contraction() reads at most s[n-1] */
    for (uint64_t a = st & known & m.ap; a; a &= a - 1) {
        unsigned j = (unsigned)__builtin_ctzll(a);
        size_t c = contraction(s, n, i + j);
        if (bnd && c && (bnd >> (j + 1) & ((1ull << (c - 1)) - 1)))
            c = 0; /* its letters would be the next text's: no contraction ('r 'v 'l are none) */
        if (c == 2)
            st = (st & ~(2ull << j)) | 4ull << j;
        else if (c == 3)
            st = (st & ~(6ull << j)) | 8ull << j;
    }
    uint64_t cut = st & known & ~1ull; /* where the known pieces end */
    if (!cut)
        return 0;
    uint32_t *p = len, *stop = len + max;
    unsigned last = 0;
    do {
        unsigned b = (unsigned)__builtin_ctzll(cut);
        *p++ = b - last;
        last = b;
        cut &= cut - 1;
    } while (cut && p < stop);
    *end = i + last;
    if (cuts)
        *cuts = st & known & ~1ull & ((2ull << last) - 1); /* the ends of the pieces given */
    return (size_t)(p - len);
}

/* One text's block: no other text's start inside it. */
static inline __attribute__((always_inline)) size_t block_pieces(const uint8_t *s, size_t n, size_t i, unsigned v,
                                                                 uint32_t *len, size_t max, size_t *end)
{
    return block_pieces_in(s, n, i, v, 0, len, max, end, NULL);
}

/* The text's last v < 64 bytes s[i..i+v) as a block, through a zero-padded copy (nothing
 * past the text is read): block_pieces's result for it, *end in s's offsets. */
static __attribute__((noinline)) size_t tail_pieces(const uint8_t *s, size_t i, unsigned v, uint32_t *len, size_t max,
                                                    size_t *end)
{
    uint8_t b[64] __attribute__((aligned(16)));
    memset(b, 0, sizeof b);
    memcpy(b, s + i, v);
    size_t m = block_pieces(b, v, 0, v, len, max, end);
    *end += i;
    return m;
}

/* tok_pretok, and tok_pretok_texts for one text: s[0..readable) may be read, the text is
 * s[0..n); in *at where the last piece ends. */
static inline __attribute__((always_inline)) size_t pretok_run(const uint8_t *s, size_t n, size_t readable, size_t i,
                                                           uint32_t *len, size_t max, size_t *at)
{
    size_t k = 0;
    while (k < max && i < n) {
        size_t end, m;
        if (i + 64 <= n)
            m = block_pieces(s, n, i, 64, len + k, max - k, &end);
        else if (i + 64 <= readable)
            m = block_pieces(s, n, i, (unsigned)(n - i), len + k, max - k, &end);
        else
            m = tail_pieces(s, i, (unsigned)(n - i), len + k, max - k, &end);
        if (m) {
            k += m;
            i = end;
            continue;
        }
        size_t e = one_piece(s, n, i);
        len[k++] = (uint32_t)(e - i);
        i = e;
    }
    *at = i;
    return k;
}

size_t tok_pretok(const uint8_t *s, size_t n, size_t i, uint32_t *len, size_t max)
{
    size_t at;
    return pretok_run(s, n, n, i, len, max, &at);
}

/* The set bits of x: inline, where __builtin_popcountll is a call into libgcc on the
 * baseline x86-64 this is built for (no POPCNT): 6.1 M instructions of --jsonl's 794 M. */
static inline unsigned bits_set(uint64_t x)
{
    x -= (x >> 1) & 0x5555555555555555ull;
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return (unsigned)((x * 0x0101010101010101ull) >> 56);
}

size_t tok_pretok_texts(const uint8_t *s, const size_t *ends, size_t nt, size_t *text, size_t *pos, uint32_t *len,
                        size_t max, uint32_t *marks, size_t *n_marks, size_t max_marks)
{
    size_t total = nt ? ends[nt - 1] : 0, k = *text, i = *pos, np = 0, nm = 0;
    while (k < nt && np < max) {
        if (i == ends[k]) {
            if (nm == max_marks)
                break;
            marks[nm++] = (uint32_t)np;
            k++;
            continue;
        }
        /* a block that holds the starts of the next texts, when the marks have room */
        size_t q = k, room = max_marks - nm;
        uint64_t bnd = 0;
        while (q < nt && ends[q] < i + 64 && q - k < room)
            bnd |= 1ull << (ends[q++] - i);
        size_t end, m;
        uint64_t cuts;
        if (bnd && i + 64 <= total && (q == nt || ends[q] >= i + 64)) {
            m = block_pieces_in(s, total, i, 64, bnd, len + np, max - np, &end, &cuts);
            if (m) {
                /* the texts that end inside the pieces given: how many pieces before each */
                for (; k < nt && ends[k] <= end; k++)
                    marks[nm++] = (uint32_t)(np + (size_t)bits_set(cuts & ((2ull << (ends[k] - i)) - 1)));
                np += m;
                i = end;
                continue;
            }
        }
        /* else text k alone, up to its end or the pieces' room */
        m = pretok_run(s, ends[k], total, i, len + np, max - np, &end);
        np += m;
        i = end;
    }
    *text = k;
    *pos = i;
    *n_marks = nm;
    return np;
}

/* Why a cut at p is safe when s[p] is whitespace and the character before it, c, is not
 * (with S = s[0..n), A = s[0..p), B = s[p..n)):
 *
 * (1) S has a piece boundary at p. Take the piece of S that holds c. No alternative of the
 *     pattern that can match a non-space character can go on over a space: the
 *     contractions are letters and an apostrophe; " ?\p{L}+", " ?\p{N}+" and
 *     " ?[^\s\p{L}\p{N}]+" allow a space only as their first character, and c, which is
 *     before s[p], is in the piece; the \s alternatives cannot hold c at all. So that
 *     piece ends exactly at p.
 * (2) A alone gives the pieces of S before p. Pieces are matched one after the other,
 *     each from where the last ended. At a start q < p, every alternative without
 *     look-ahead that fails on S fails on its prefix A too (a match in A would be one in
 *     S), and an alternative that matched in S within [q, p) matches the same in A: the
 *     greedy runs stop at the same character (one before p, or at p, where S has a space
 *     that ends every run of (1) and A ends). The one look-ahead, \s+(?!\S), could match
 *     differently only if its run reached the end of A, which needs s[p-1] = c to be
 *     whitespace: it is not.
 * (3) B alone gives the pieces of S after p: the pattern has no look-behind, so matching
 *     from p reads only s[p..n), and by (1) S starts a piece at p.
 * Special tokens: "<|endoftext|>" holds no whitespace, so no occurrence contains a cut
 * (nor starts at one); it cannot overlap itself, so each part finds the same occurrences.
 *
 * Only ASCII whitespace is looked for at p (enough for cut points every few bytes in
 * most text); c may be any character, decoded backwards. */
size_t tok_pretok_cut(const uint8_t *s, size_t n, size_t from)
{
    for (size_t p = from; p < n; p++) {
        if (BYTE_CLASS[s[p]] != UNI_W || p == 0)
            continue;
        size_t q = p - 1, l;
        while (q > 0 && (s[q] & 0xC0) == 0x80 && p - q < 4)
            q--;
        if (char_class(s, q, &l) != UNI_W && q + l == p)
            return p;
    }
    return n;
}
