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
    int valid; /* "text" decoded so far is valid UTF-8 (checked when decoded: str_at) */
    int simd;  /* 0: the portable scan only (JSONL_PORTABLE) */
} jp;

static int fail_at(jsonl_error *e, size_t at, const char *why)
{
    e->why = why;
    e->at = at;
    return JSONL_E_SYNTAX;
}

static int fail(jp *p, size_t at, const char *why) { return fail_at(p->e, at, why); }

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
 * written at *o: always well-formed UTF-8 (a lone surrogate is an error, or U+FFFD). */
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

/* ---- the scan of a string's runs ----
 *
 * A run is the bytes of a string up to the next '"', '\\' or control byte (below 0x20):
 * copied as they are. Sixteen bytes a step with SSE2 (every x86-64 has it), else eight in a
 * word, then byte by byte near the end; each step stores its bytes whole at the output
 * before looking at them (the caller gives 16 bytes of room past the run). Bytes >= 0x80
 * are only noted (*high), not decoded here: a string that holds any is checked as UTF-8
 * once it is decoded, by text_validate (32 bytes a step with AVX2), which costs less than
 * decoding them here one character at a time (bench/PROGRAM.md). */

/* Copies the run at s[i..n) to *po and returns where it ends: at the first '"', '\\' or
 * control byte, or n; *po moves as far; *high is non-zero after a run with a byte >= 0x80. */
static inline __attribute__((always_inline)) size_t run(const char *s, size_t n, size_t i, char **po, unsigned *high,
                                                        int simd)
{
    char *o = *po;
#ifdef __SSE2__
    const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'), c1f = _mm_set1_epi8(0x1F);
    while (simd && i + 16 <= n) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        _mm_storeu_si128((__m128i *)(void *)o, v);
        __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs)),
                                   _mm_cmpeq_epi8(_mm_min_epu8(v, c1f), v)); /* (unsigned: v <= 0x1F) */
        unsigned m = (unsigned)_mm_movemask_epi8(hit), h = (unsigned)_mm_movemask_epi8(v);
        if (m) {
            unsigned k = (unsigned)__builtin_ctz(m);
            *high |= h & ((1u << k) - 1);
            *po = o + k;
            return i + k;
        }
        *high |= h;
        i += 16, o += 16;
    }
#endif
    const uint64_t lo = 0x0101010101010101ull, hi = 0x8080808080808080ull;
    while (i + 8 <= n) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        memcpy(o, &w, 8);
        /* per byte, its top bit: a '"', a '\\' or a control (the lowest flagged byte is
         * exact: a borrow only runs upwards from a true one); >= 0x80 (exact). Read
         * little-endian (on a big-endian machine the byte order is swapped first). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        w = __builtin_bswap64(w);
#endif
        uint64_t x = w ^ (lo * '"'), y = w ^ (lo * '\\');
        uint64_t stop = (((x - lo) & ~x) | ((y - lo) & ~y) | ((w - lo * 0x20) & ~w)) & hi;
        if (stop) {
            *high |= (w & hi & ((stop & -stop) - 1)) != 0;
            size_t k = (size_t)__builtin_ctzll(stop) >> 3;
            *po = o + k;
            return i + k;
        }
        *high |= (w & hi) != 0;
        i += 8, o += 8;
    }
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\' || c < 0x20)
            break;
        *high |= c >= 0x80;
        *o++ = (char)c;
        i++;
    }
    *po = o;
    return i;
}

/* What each one-letter escape stands for (0: not one). */
static const char SIMPLE[256] = {['"'] = '"', ['\\'] = '\\', ['/'] = '/', ['n'] = '\n', ['t'] = '\t',
                                 ['r'] = '\r', ['b'] = '\b', ['f'] = '\f'};

/* Decodes the JSON string at p->i onto out, leaving p->i after its closing quote. The
 * decoded bytes are never more than the encoded ones (an escape of 2, 6 or 12 bytes gives
 * 1 to 4), so room for the rest of the line (and the scan's 16 bytes) is made once and
 * filled without checks. */
static inline __attribute__((always_inline)) int str_at(const char *s, size_t n, size_t *pi, bytebuf *out,
                                                        int lossy, int simd, int *pvalid, jsonl_error *err)
{
    size_t i = *pi; /* (locals, kept in registers: stores through o may alias anything) */
    if (i >= n || s[i] != '"')
        return fail_at(err, i, "expected a string");
    size_t open = i++;
    if (bb_room(out, n - i + 16))
        return G2E_ENOMEM;
    char *o = out->p + out->n;
    int rc = 0;
    unsigned high = 0;
    for (;;) {
        /* (after an escape the next byte is another '\\' or the closing quote more often
         * than not: no scan for them) */
        if (i >= n || (s[i] != '"' && s[i] != '\\'))
            i = run(s, n, i, &o, &high, simd);
        if (i >= n) {
            rc = fail_at(err, open, "unterminated string");
            break;
        }
        char c = s[i];
        if (c == '"')
            break;
        if (c != '\\') {
            rc = fail_at(err, i, "control character in a string");
            break;
        }
        size_t esc = i;
        if (i + 1 >= n) {
            rc = fail_at(err, esc, "bad escape");
            break;
        }
        char e = s[i + 1];
        i += 2;
        char simple = SIMPLE[(unsigned char)e];
        if (simple) {
            *o++ = simple;
        } else if (e != 'u') {
            rc = fail_at(err, esc, "bad escape");
            break;
        } else {
            jp cold = {s, n, i, err, 0, 0}; /* (u_escape's position, off the hot path) */
            char *u = o;
            if ((rc = u_escape(&cold, esc, &u, lossy)))
                break;
            i = cold.i, o = u;
        }
    }
    if (rc)
        return rc;
    *pi = i + 1;
    size_t from = out->n;
    out->n = (size_t)(o - out->p);
    /* the decoded string (escapes give whole characters: bytes >= 0x80 only from runs) */
    if (high && *pvalid)
        *pvalid = text_validate(out->p + from, out->n - from) == out->n - from;
    return 0;
}

/* The JSON string at p->i (str_at on p's line). */
static inline __attribute__((always_inline)) int string_(jp *p, bytebuf *out, int lossy, int simd)
{
    return str_at(p->s, p->n, &p->i, out, lossy, simd, &p->valid, p->e);
}

/* string_ with the scan chosen once (the hot loop then has no test of it). */
static int string_simd(jp *p, bytebuf *out, int lossy) { return string_(p, out, lossy, 1); }
static int string_portable(jp *p, bytebuf *out, int lossy) { return string_(p, out, lossy, 0); }
static int string(jp *p, bytebuf *out, int lossy)
{
    return p->simd ? string_simd(p, out, lossy) : string_portable(p, out, lossy);
}

/* A copy of s[0..n) in which every lone surrogate \u escape reads \uFFFD (as long), or NULL
 * when there is none (or no memory). JSON's grammar allows them (Python's json.dumps writes
 * them for file names with surrogate-escaped bytes); cJSON refuses them, so it checks the
 * mended copy, whose values end where the line's do. */
static char *mend_surrogates(const char *s, size_t n)
{
    char *m = NULL;
    for (size_t i = 0; i + 1 < n; i++) {
        if (s[i] != '\\')
            continue;
        unsigned cp, lo;
        if (s[i + 1] != 'u' || hex4(s, n, i + 2, &cp) || cp < 0xD800 || cp >= 0xE000) {
            i++; /* (the escaped character: \\ is no start of an escape) */
            continue;
        }
        if (cp < 0xDC00 && i + 12 <= n && s[i + 6] == '\\' && s[i + 7] == 'u' && !hex4(s, n, i + 8, &lo) &&
            lo >= 0xDC00 && lo < 0xE000) {
            i += 11; /* a pair */
            continue;
        }
        if (!m && (m = malloc(n)))
            memcpy(m, s, n);
        if (!m)
            return NULL;
        memcpy(m + i + 2, "FFFD", 4);
        i += 5;
    }
    return m;
}

/* Skips the JSON value at p->i after checking it with cJSON (strict literals, numbers,
 * nesting), so that {"text": "x", "n": tru} is refused. */
static int skip_value(jp *p)
{
    const char *end = NULL;
    cJSON *v = cJSON_ParseWithLengthOpts(p->s + p->i, p->n - p->i, &end, 0);
    char *m = v ? NULL : mend_surrogates(p->s + p->i, p->n - p->i);
    if (m) { /* (lone surrogates: the mended copy checked, its end is the value's) */
        const char *me = NULL;
        if ((v = cJSON_ParseWithLengthOpts(m, p->n - p->i, &me, 0)))
            end = p->s + p->i + (me - m);
        free(m);
    }
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
        int valid = p->valid; /* (the name's bytes are no part of the text) */
        if ((rc = string(p, key, 1)))
            return rc;
        p->valid = valid;
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

/* json.dumps's own line, {"text": "..."}: straight to the string. */
#define USUAL "{\"text\": \""

static int parse(jp *p, unsigned flags, bytebuf *text, bytebuf *key)
{
    const char *s = p->s;
    size_t n = p->n;
    int found = 0, rc;
    if (n >= 12 && memcmp(s, USUAL, 10) == 0) {
        p->i = 9;
        if ((rc = string(p, text, flags & JSONL_LOSSY)))
            return rc;
        if (p->i + 1 == n && s[p->i] == '}')
            return 0;
        found = 1;
        goto after_member;
    }
    skip_ws(p);
    if (p->i >= n || s[p->i] != '{')
        return fail(p, p->i, "expected a JSON object {\"text\": \"...\"}");
    p->i++;
    skip_ws(p);
    if (p->i < n && s[p->i] == '}')
        return fail(p, p->i, "no \"text\" member");
    for (;;) {
        if ((rc = member(p, text, key, flags & JSONL_LOSSY, &found)))
            return rc;
    after_member:
        skip_ws(p);
        if (p->i < n && s[p->i] == ',') {
            p->i++;
            skip_ws(p);
            continue;
        }
        if (p->i < n && s[p->i] == '}')
            break;
        return fail(p, p->i, "expected ',' or '}'");
    }
    size_t close = p->i++;
    skip_ws(p);
    if (p->i != n)
        return fail(p, p->i, "trailing characters after the object");
    return found ? 0 : fail(p, close, "no \"text\" member");
}

int jsonl_text_utf8(const char *s, size_t n, unsigned flags, bytebuf *text, bytebuf *key, jsonl_error *e,
                    int *maybe_invalid)
{
    size_t start = text->n;
    jp p = {s, n, 0, e, 1, !(flags & JSONL_PORTABLE)};
    int rc = parse(&p, flags, text, key);
    *maybe_invalid = rc || !p.valid;
    if (rc)
        text->n = start; /* a "text" decoded before the error is taken back */
    return rc;
}

int jsonl_members(const char *s, size_t n, const char *const *keys, size_t nkeys, jsonl_value *v, bytebuf *key,
                  jsonl_error *e)
{
    jp p = {s, n, 0, e, 1, 1};
    int rc;
    for (size_t k = 0; k < nkeys; k++)
        v[k].at = v[k].n = 0, v[k].found = 0;
    skip_ws(&p);
    if (p.i >= n || s[p.i] != '{')
        return fail(&p, p.i, "expected a JSON object {\"text\": \"...\"}");
    p.i++;
    skip_ws(&p);
    while (p.i < n && s[p.i] != '}') {
        key->n = 0;
        if ((rc = string(&p, key, 1)))
            return rc;
        skip_ws(&p);
        if (p.i >= n || s[p.i] != ':')
            return fail(&p, p.i, "expected ':'");
        p.i++;
        skip_ws(&p);
        size_t at = p.i;
        if ((rc = skip_value(&p)))
            return rc;
        for (size_t k = 0; k < nkeys; k++)
            if (!v[k].found && strlen(keys[k]) == key->n && memcmp(keys[k], key->p ? key->p : "", key->n) == 0)
                v[k] = (jsonl_value){at, p.i - at, 1};
        skip_ws(&p);
        if (p.i < n && s[p.i] == ',') {
            p.i++;
            skip_ws(&p);
        } else if (p.i >= n || s[p.i] != '}') {
            return fail(&p, p.i, "expected ',' or '}'");
        }
    }
    return p.i < n ? 0 : fail(&p, p.i, "expected ',' or '}'");
}

int jsonl_text(const char *s, size_t n, unsigned flags, bytebuf *text, bytebuf *key, jsonl_error *e)
{
    int maybe_invalid;
    return jsonl_text_utf8(s, n, flags, text, key, e, &maybe_invalid);
}

static int blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
            return 0;
    return 1;
}

/* The usual line at s[0..n), read to its end without looking for the newline first: the
 * string's scan stops at it (a control byte). 0 (*len, *valid set), G2E_ENOMEM, or 1 when
 * the line is another one (text->n as it was), which is then read as a line of its own (so
 * that errors are those of jsonl_text_utf8). */
static inline __attribute__((always_inline)) int usual_line(const char *s, size_t n, unsigned flags, bytebuf *text,
                                                            jsonl_error *e, size_t *len, int *valid)
{
    if (n < 12 || memcmp(s, USUAL, 10) != 0)
        return 1;
    size_t start = text->n, i = 9, w = n < JSONL_WINDOW ? n : JSONL_WINDOW;
    int lossy = flags & JSONL_LOSSY, v = 1;
    int rc = flags & JSONL_PORTABLE ? str_at(s, w, &i, text, lossy, 0, &v, e) : str_at(s, w, &i, text, lossy, 1, &v, e);
    if (!rc && i < w && s[i] == '}' && (i + 1 == n || s[i + 1] == '\n')) {
        *len = i + 1;
        *valid = v;
        return 0;
    }
    if (rc == G2E_ENOMEM)
        return rc;
    text->n = start;
    return 1;
}

size_t jsonl_usual_lines(const char *s, size_t n, unsigned flags, bytebuf *text, jsonl_span *sp, size_t max,
                         size_t *used)
{
    jsonl_error e;
    size_t k = 0, pos = 0;
    for (; k < max && pos < n; k++) {
        size_t at = text->n, len;
        int valid;
        if (usual_line(s + pos, n - pos, flags, text, &e, &len, &valid))
            break;
        sp[k] = (jsonl_span){at, text->n - at, len, !valid};
        pos += len + 1;
    }
    *used = pos < n ? pos : n;
    return k;
}

int jsonl_line(const char *s, size_t n, unsigned flags, bytebuf *text, bytebuf *key, jsonl_error *e,
               size_t *len, int *maybe_invalid)
{
    int valid, rc = usual_line(s, n, flags, text, e, len, &valid);
    if (rc != 1) {
        *maybe_invalid = !valid;
        return rc;
    }
    const char *nl = memchr(s, '\n', n);
    *len = nl ? (size_t)(nl - s) : n;
    if (blank(s, *len))
        return *maybe_invalid = 0, JSONL_BLANK;
    return jsonl_text_utf8(s, *len, flags, text, key, e, maybe_invalid);
}
