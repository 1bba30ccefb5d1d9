/* SPDX-License-Identifier: MIT */
/* tok_pretok_blocks.h — the block path of tok_pretok.c (64 bytes at a time), included there
 * once per instruction set it is built for, not by anything else. Before each inclusion:
 *   PT(name)      the name of this instance's copy of a function (a suffix per instance);
 *   PT_ATTR       the attributes of its functions (the target of the AVX2 instance);
 *   PT_CLASSIFY   the classifier giving a block's masks (block_masks);
 *   PT_BITS       the number of set bits of a 64-bit word.
 * The functions use tok_pretok.c's byte classes, contraction(), wide_class() and
 * one_piece(), which are the same in every instance.
 */
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
static inline __attribute__((always_inline)) PT_ATTR size_t PT(block_pieces_in)(const uint8_t *s, size_t n, size_t i, unsigned v,
                                                                    uint64_t bnd, uint32_t *len, size_t max,
                                                                    size_t *end, uint64_t *cuts)
{
    block_masks m;
    PT_CLASSIFY(s + i, &m);
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
    /* as many as there is room for (the last ones dropped), and where the last ends: told
     * from the mask, not from the loop below, so that the next block (whose address it is)
     * need not wait for that loop */
    size_t cnt = PT_BITS(cut);
    for (; cnt > max; cnt--)
        cut &= ~(1ull << (63 - __builtin_clzll(cut)));
    unsigned top = 63 - (unsigned)__builtin_clzll(cut), last = 0;
    *end = i + top;
    if (cuts)
        *cuts = cut; /* the ends of the pieces given */
    for (size_t k = 0; k < cnt; k++) {
        unsigned b = (unsigned)__builtin_ctzll(cut);
        len[k] = b - last;
        last = b;
        cut &= cut - 1;
    }
    return cnt;
}

/* One text's block: no other text's start inside it. */
static inline __attribute__((always_inline)) PT_ATTR size_t PT(block_pieces)(const uint8_t *s, size_t n, size_t i, unsigned v,
                                                                 uint32_t *len, size_t max, size_t *end)
{
    return PT(block_pieces_in)(s, n, i, v, 0, len, max, end, NULL);
}

/* The text's last v < 64 bytes s[i..i+v) as a block, through a zero-padded copy (nothing
 * past the text is read): block_pieces's result for it, *end in s's offsets. */
static __attribute__((noinline)) PT_ATTR size_t PT(tail_pieces)(const uint8_t *s, size_t i, unsigned v, uint32_t *len, size_t max,
                                                    size_t *end)
{
    uint8_t b[64] __attribute__((aligned(16)));
    memset(b, 0, sizeof b);
    memcpy(b, s + i, v);
    size_t m = PT(block_pieces)(b, v, 0, v, len, max, end);
    *end += i;
    return m;
}

/* tok_pretok, and tok_pretok_texts for one text: s[0..readable) may be read, the text is
 * s[0..n); in *at where the last piece ends. */
static inline __attribute__((always_inline)) PT_ATTR size_t PT(pretok_run)(const uint8_t *s, size_t n, size_t readable, size_t i,
                                                           uint32_t *len, size_t max, size_t *at)
{
    size_t k = 0;
    while (k < max && i < n) {
        size_t end, m;
        if (i + 64 <= n)
            m = PT(block_pieces)(s, n, i, 64, len + k, max - k, &end);
        else if (i + 64 <= readable)
            m = PT(block_pieces)(s, n, i, (unsigned)(n - i), len + k, max - k, &end);
        else
            m = PT(tail_pieces)(s, i, (unsigned)(n - i), len + k, max - k, &end);
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

static PT_ATTR size_t PT(pretok)(const uint8_t *s, size_t n, size_t i, uint32_t *len, size_t max)
{
    size_t at;
    return PT(pretok_run)(s, n, n, i, len, max, &at);
}

static PT_ATTR size_t PT(pretok_texts)(const uint8_t *s, const size_t *ends, size_t nt, size_t *text, size_t *pos, uint32_t *len,
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
            m = PT(block_pieces_in)(s, total, i, 64, bnd, len + np, max - np, &end, &cuts);
            if (m) {
                /* the texts that end inside the pieces given: how many pieces before each */
                for (; k < nt && ends[k] <= end; k++)
                    marks[nm++] = (uint32_t)(np + (size_t)PT_BITS(cuts & ((2ull << (ends[k] - i)) - 1)));
                np += m;
                i = end;
                continue;
            }
        }
        /* else text k alone, up to its end or the pieces' room */
        m = PT(pretok_run)(s, ends[k], total, i, len + np, max - np, &end);
        np += m;
        i = end;
    }
    *text = k;
    *pos = i;
    *n_marks = nm;
    return np;
}
