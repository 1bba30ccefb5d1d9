/* SPDX-License-Identifier: MIT */
/* jsonl.c — the "text" member of a JSON line (see jsonl.h). */
#include "jsonl.h"
#include "text.h"

#include <cjson/cJSON.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stdint.h>
#include <string.h>

/* A parse position: the line, where we are, and the first error (its reason and place). */
typedef struct jp {
    const char *s;
    size_t n, i;
    jsonl_error *e;
    unsigned high; /* non-zero once a byte >= 0x80 may have been copied as it is */
} jp;

static int fail(jp *p, size_t at, const char *why)
{
    p->e->why = why;
    p->e->at = at;
    return JSONL_E_SYNTAX;
}

static void skip_ws(jp *p)
{
    while (p->i < p->n && text_is_json_ws((unsigned char)p->s[p->i]))
        p->i++;
}

static int hex4(const char *s, size_t n, size_t i, unsigned *v)
{
    if (i + 4 > n)
        return -1;
    *v = 0;
    for (int k = 0; k < 4; k++) {
        char c = s[i + k];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        *v = *v << 4 | (unsigned)d;
    }
    return 0;
}

/* One \u escape at p->i (just after "\u", which starts at esc), a surrogate pair joined,
 * written at *o. */
static int u_escape(jp *p, size_t esc, char **o, int lossy)
{
    unsigned cp, lo;
    if (hex4(p->s, p->n, p->i, &cp))
        return fail(p, esc, "bad \\u escape");
    p->i += 4;
    if (cp >= 0xD800 && cp < 0xDC00 && p->i + 6 <= p->n && p->s[p->i] == '\\' && p->s[p->i + 1] == 'u' &&
        !hex4(p->s, p->n, p->i + 2, &lo) && lo >= 0xDC00 && lo < 0xE000) {
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        p->i += 6;
    } else if (cp >= 0xD800 && cp < 0xE000) {
        if (!lossy)
            return fail(p, esc, "lone surrogate \\u escape (use --lossy to replace it)");
        cp = 0xFFFD;
    }
    *o += text_encode((int32_t)cp, *o);
    return 0;
}

/* Copies the run at s[0..n) free of '"', '\\' and bytes below 0x20 to o (which has room
 * for n bytes; bytes of o past the run may be overwritten too) and returns its length:
 * sixteen bytes at a time with SSE2 (every x86-64 has it), copied whole as they are
 * scanned, the last sixteen of s overlapping the ones before so that the tail is one step
 * too; else eight in a word (the lowest flagged byte of a word is exact, the word read
 * little-endian), then byte by byte. Bytes >= 0x80 seen on the way set *high (also some
 * past the run: it may say yes for nothing, never no for something). */
static size_t copy_run(const char *s, size_t n, char *o, unsigned *high)
{
    size_t r = 0;
#ifdef __SSE2__
    const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'), c1f = _mm_set1_epi8(0x1F);
    if (n >= 16) {
        for (;;) {
            size_t at = r + 16 <= n ? r : n - 16; /* the last step overlaps the one before */
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + at));
            _mm_storeu_si128((__m128i *)(void *)(o + at), v);
            __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs)),
                                       _mm_cmpeq_epi8(_mm_min_epu8(v, c1f), v)); /* v <= 0x1F */
            *high |= (unsigned)_mm_movemask_epi8(v);
            unsigned mask = (unsigned)_mm_movemask_epi8(hit) >> (r - at); /* (the overlap's bytes before r) */
            if (mask)
                return r + (size_t)__builtin_ctz(mask);
            r = at + 16;
            if (r == n)
                return n;
        }
    }
#endif
    const uint64_t lo = 0x0101010101010101ull, hi = 0x8080808080808080ull;
    for (; r + 8 <= n; r += 8) {
        uint64_t w;
        memcpy(&w, s + r, 8);
        memcpy(o + r, &w, 8);
        *high |= (w & hi) != 0;
        uint64_t x = w ^ (lo * '"'), y = w ^ (lo * '\\');
        uint64_t hit = (((x - lo) & ~x) | ((y - lo) & ~y) | ((w - lo * 0x20) & ~w)) & hi;
        if (hit)
            return r + ((size_t)__builtin_ctzll(hit) >> 3);
    }
    for (; r < n && s[r] != '"' && s[r] != '\\' && (unsigned char)s[r] >= 0x20; r++) {
        o[r] = s[r];
        *high |= (unsigned char)s[r] >> 7;
    }
    return r;
}

/* What each one-letter escape stands for (0: not one). */
static const char SIMPLE[128] = {['"'] = '"', ['\\'] = '\\', ['/'] = '/', ['n'] = '\n', ['t'] = '\t',
                                 ['r'] = '\r', ['b'] = '\b', ['f'] = '\f'};

/* Decodes the JSON string at p->i onto out, leaving p->i after its closing quote. The
 * decoded bytes are never more than the encoded ones (an escape of 2, 6 or 12 bytes gives
 * 1 to 4), so room for the rest of the line is made once and filled without checks. */
static int string(jp *p, bytebuf *out, int lossy)
{
    if (p->i >= p->n || p->s[p->i] != '"')
        return fail(p, p->i, "expected a string");
    size_t open = p->i++;
    if (bb_room(out, p->n - p->i + 1)) /* (+1: a buffer even for an empty rest) */
        return G2E_ENOMEM;
    char *o = out->p + out->n;
    for (;;) {
        size_t r = copy_run(p->s + p->i, p->n - p->i, o, &p->high);
        o += r;
        p->i += r;
        if (p->i >= p->n)
            return fail(p, open, "unterminated string");
        char c = p->s[p->i];
        if (c == '"')
            break;
        if (c != '\\')
            return fail(p, p->i, "control character in a string");
        size_t esc = p->i;
        if (p->i + 1 >= p->n)
            return fail(p, esc, "bad escape");
        char e = p->s[p->i + 1];
        p->i += 2;
        char simple = (unsigned char)e < 128 ? SIMPLE[(unsigned char)e] : 0;
        if (simple)
            *o++ = simple;
        else if (e != 'u')
            return fail(p, esc, "bad escape");
        else if (u_escape(p, esc, &o, lossy))
            return JSONL_E_SYNTAX;
    }
    p->i++;
    out->n = (size_t)(o - out->p);
    return 0;
}

/* Skips the JSON value at p->i after checking it with cJSON (strict literals, numbers,
 * nesting), so that {"text": "x", "n": tru} is refused. */
static int skip_value(jp *p)
{
    const char *end = NULL;
    cJSON *v = cJSON_ParseWithLengthOpts(p->s + p->i, p->n - p->i, &end, 0);
    if (!v)
        return fail(p, p->i, "invalid JSON value");
    cJSON_Delete(v);
    p->i = (size_t)(end - p->s);
    return 0;
}

/* One member at p->i: its name, ':', and the value (decoded into text when it is "text"). */
static int member(jp *p, bytebuf *text, bytebuf *key, int lossy, int *found)
{
    size_t name_at = p->i;
    int is_text = p->n - p->i >= 6 && memcmp(p->s + p->i, "\"text\"", 6) == 0, rc; /* the usual spelling */
    if (is_text) {
        p->i += 6;
    } else {
        key->n = 0;
        if ((rc = string(p, key, 1)))
            return rc;
        is_text = key->n == 4 && memcmp(key->p, "text", 4) == 0;
    }
    skip_ws(p);
    if (p->i >= p->n || p->s[p->i] != ':')
        return fail(p, p->i, "expected ':'");
    p->i++;
    skip_ws(p);
    if (is_text && *found)
        return fail(p, name_at, "\"text\" given twice");
    *found |= is_text;
    return is_text ? string(p, text, lossy) : skip_value(p);
}

static int parse(const char *s, size_t n, unsigned flags, bytebuf *text, bytebuf *key, jsonl_error *e,
                 unsigned *high)
{
    jp p = {s, n, 0, e, 0};
    int found = 0, rc;
    /* json.dumps's own line, {"text": "..."}: straight to the string (a third of this
     * function's instructions on the corpus as JSON lines) */
    if (n >= 12 && memcmp(s, "{\"text\": \"", 10) == 0) {
        p.i = 9;
        if ((rc = string(&p, text, flags & JSONL_LOSSY)))
            return rc;
        if (p.i + 1 == n && s[p.i] == '}')
            return *high = p.high, 0;
        found = 1;
        goto after_member;
    }
    skip_ws(&p);
    if (p.i >= n || s[p.i] != '{')
        return fail(&p, p.i, "expected a JSON object {\"text\": \"...\"}");
    p.i++;
    skip_ws(&p);
    if (p.i < n && s[p.i] == '}')
        return fail(&p, p.i, "no \"text\" member");
    for (;;) {
        if ((rc = member(&p, text, key, flags & JSONL_LOSSY, &found)))
            return rc;
    after_member:
        skip_ws(&p);
        if (p.i < n && s[p.i] == ',') {
            p.i++;
            skip_ws(&p);
            continue;
        }
        if (p.i < n && s[p.i] == '}')
            break;
        return fail(&p, p.i, "expected ',' or '}'");
    }
    size_t close = p.i++;
    skip_ws(&p);
    if (p.i != n)
        return fail(&p, p.i, "trailing characters after the object");
    *high = p.high;
    return found ? 0 : fail(&p, close, "no \"text\" member");
}

int jsonl_text_utf8(const char *s, size_t n, unsigned flags, bytebuf *text, bytebuf *key, jsonl_error *e,
                    int *maybe_invalid)
{
    size_t start = text->n;
    unsigned high = 1;
    int rc = parse(s, n, flags, text, key, e, &high);
    *maybe_invalid = high != 0;
    if (rc)
        text->n = start; /* a "text" decoded before the error is taken back */
    return rc;
}

int jsonl_text(const char *s, size_t n, unsigned flags, bytebuf *text, bytebuf *key, jsonl_error *e)
{
    int maybe_invalid;
    return jsonl_text_utf8(s, n, flags, text, key, e, &maybe_invalid);
}
