/* SPDX-License-Identifier: MIT */
/* safetensors.c — the strict safetensors reader (see safetensors.h).
 *
 * Validation happens once, at open: every number in the header is checked with
 * overflow-checked 64-bit arithmetic, so that st_read_row_f32 can then index the data
 * section without re-checking anything but the row.
 *
 * Why hand-written (the default would be cJSON with a strict pre-scan): the program's cold
 * start. `gpt2-embed "Hello world"` runs about 1 M instructions in all (bench_cold.sh:
 * within 3x /bin/true, doc/performance.md); the cJSON reader spent 2.46 M on the header
 * alone, which would more than triple the whole start and put it past 3x /bin/true.
 *
 * The JSON header is read by a parser of its own, in one pass, not by cJSON (the project's
 * JSON library elsewhere): the one place where the numbers require hand-written code. With
 * cJSON, opening GPT-2's header (14,283 bytes, 160 tensors) took 2.46 M of the 4.0 M
 * instructions of a whole `gpt2-embed "Hello world"` run (callgrind): a node allocated and
 * freed per value (cJSON_Parse 1.32 M, cJSON_Delete 0.55 M, malloc/free 0.85 M), strtod
 * and localeconv for every number, and three passes of ours around it (0.49 M), because
 * cJSON is too lenient for this format: it takes NUL and every control byte for
 * whitespace, skips a byte order mark, stops at the object's end, and keeps numbers only
 * as doubles, which cannot hold every 64-bit offset and read 1.0, 1e3 and 01 as integers.
 * This parser does it all at once in 0.43 M (the whole run: 1.84 M), with one allocation
 * for the tensors and one for the metadata (each grown geometrically) and one block for
 * every name, key and value.
 *
 * What it accepts is RFC 8259's grammar exactly, restricted to the safetensors structure;
 * the messages and status codes are those of the cJSON-based reader it replaced (kept in
 * tests/st_ref_cjson.c, against which the tests and the fuzz target compare it). To keep
 * them, errors are reported by kind in the order the old checks ran: a fault of the bytes
 * (UTF-8, NUL, control bytes, \u0000, byte order mark) before a syntax error, a syntax
 * error before any error of meaning (an unknown dtype, a bad shape), and errors of meaning
 * in document order. The parse records the first error of meaning and goes on checking
 * the syntax; only when the syntax fails does it look at the whole header's bytes again.
 * Deliberately left out: writing files; converting dtypes other than F32/F16/BF16; any
 * cache of converted rows (callers own their buffers).
 */
#include "safetensors.h"
#include "text.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <unistd.h>

static const struct {
    const char *name;
    size_t size;
} DTYPES[ST_DTYPE_COUNT] = {
    [ST_BOOL] = {"BOOL", 1}, [ST_U8] = {"U8", 1},   [ST_I8] = {"I8", 1},
    [ST_F8_E5M2] = {"F8_E5M2", 1}, [ST_F8_E4M3] = {"F8_E4M3", 1},
    [ST_I16] = {"I16", 2},   [ST_U16] = {"U16", 2}, [ST_F16] = {"F16", 2},
    [ST_BF16] = {"BF16", 2}, [ST_I32] = {"I32", 4}, [ST_U32] = {"U32", 4},
    [ST_F32] = {"F32", 4},   [ST_F64] = {"F64", 8}, [ST_I64] = {"I64", 8},
    [ST_U64] = {"U64", 8},
};

const char *st_dtype_name(st_dtype d)
{
    return (unsigned)d < ST_DTYPE_COUNT ? DTYPES[d].name : "?";
}

size_t st_dtype_size(st_dtype d)
{
    return (unsigned)d < ST_DTYPE_COUNT ? DTYPES[d].size : 0;
}

int st_dtype_from_name(const char *s)
{
    for (int i = 0; s && i < ST_DTYPE_COUNT; i++) {
        const char *d = DTYPES[i].name;     /* inline, first byte first: once per tensor at open */
        if (d[0] != s[0]) continue;
        size_t k = 1;
        while (d[k] && d[k] == s[k]) k++;
        if (!d[k] && !s[k]) return i;
    }
    return -1;
}

/* Validation guarantees both products fit in 64 bits for every tensor of an st_file. */
uint64_t st_tensor_numel(const st_tensor *t)
{
    uint64_t n = 1;
    for (int i = 0; i < t->ndim; i++)
        n *= t->shape[i];
    return n;
}

/* Tensor names may hold any character through JSON escapes ("a\\nb"), and messages must
 * stay one line: control bytes in a message become '?'. */
static void one_line(g2e_err *err)
{
    if (!err) return;
    for (char *p = err->msg; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7F) *p = '?';
}

/* ---------------------------------------------------------------------------------------
 * The header parser. */

/* cJSON's CJSON_NESTING_LIMIT, so that the verdicts stay those of the reader this one
 * replaced. No value of a valid header nests deeper than 3; deeper values are only ever
 * skipped (iteratively, one bit of state per level, no recursion). */
#define ST_MAX_DEPTH 1000

static int is_digit(uint8_t c)
{
    return c >= '0' && c <= '9';
}

enum { SYN_NONE, SYN_JSON, SYN_DEPTH, SYN_TRAILING };

typedef struct hp {
    const uint8_t *s;       /* the header bytes s[0..n) */
    size_t n, i;            /* their length, the position */
    int syn;                /* SYN_*: the first syntax error, found at offset `at` */
    size_t at;
    int sem;                /* the first error of meaning (its status; err holds its message) */
    g2e_err *err;
    st_file *f;
    char *str;              /* f->strings; str[0..used) holds the names, keys, values kept */
    size_t used;
    size_t cap_t, cap_m;    /* room in f->tensors, f->meta */
    int seen_meta;
} hp;

/* One number token: read exactly when it is a plain integer. */
typedef struct numtok {
    int is_num;             /* 0: the value there is not a number */
    int plain;              /* 1: a non-negative integer without sign, fraction, exponent or leading 0 */
    int overflow;           /* plain digits, but more than 64 bits */
    uint64_t value;
    size_t pos, len;        /* where in the header (for messages) */
} numtok;

/* What a tensor entry holds, collected before any of it is judged (the checks then run in
 * the order of the old reader: keys, dtype, shape, offsets, sizes). */
typedef struct entry {
    int seen[3];            /* dtype, shape, data_offsets */
    int dt_string;          /* dtype is a string: its first 47 decoded bytes in dt */
    char dt[48];
    int sh_array, off_array;
    size_t sh_n, off_n;     /* elements in the arrays (the first few kept) */
    numtok sh[ST_MAX_NDIM], off[2];
} entry;

static int syntax_at(hp *p, size_t at)
{
    if (!p->syn) {
        p->syn = SYN_JSON;
        p->at = at;
    }
    return -1;
}

static inline void skip_ws(hp *p)
{
    while (p->i < p->n && text_is_json_ws(p->s[p->i]))
        p->i++;
}

/* The byte at p->i after whitespace, or -1 (and a syntax error) at the end. */
static inline int peek(hp *p)
{
    skip_ws(p);
    if (p->i >= p->n) return syntax_at(p, p->n);
    return p->s[p->i];
}

static int expect(hp *p, uint8_t c)
{
    int b = peek(p);
    if (b < 0) return -1;
    if (b != c) return syntax_at(p, p->i);
    p->i++;
    return 0;
}

/* Four hex digits at s[at..at+4): their value, or -1 with the syntax error at the first
 * that is not one. */
static long hex4(hp *p, size_t at)
{
    long v = 0;
    for (size_t k = at; k < at + 4; k++) {
        uint8_t c = k < p->n ? p->s[k] : 0;
        int h = is_digit(c) ? c - '0' : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10 : -1;
        if (k >= p->n) return syntax_at(p, p->n);
        if (h < 0) return syntax_at(p, k);
        v = v << 4 | h;
    }
    return v;
}

/* The \u escape at s[i] ('\\'): its code point (a surrogate pair makes one), *next the
 * byte after it; -1 on a bad digit, a lone or reversed surrogate, or \u0000 (C strings
 * cannot hold it: reported by refuse_syntax with its own message). */
static long unicode_escape(hp *p, size_t i, size_t *next)
{
    long cp = hex4(p, i + 2);
    if (cp < 0) return -1;
    *next = i + 6;
    if (cp >= 0xDC00 && cp <= 0xDFFF) return syntax_at(p, i);
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        size_t j = i + 6;
        if (j >= p->n || p->s[j] != '\\') return syntax_at(p, j < p->n ? j : p->n);
        if (j + 1 >= p->n || p->s[j + 1] != 'u') return syntax_at(p, j + 1 < p->n ? j + 1 : p->n);
        long lo = hex4(p, j + 2);
        if (lo < 0) return -1;
        if (lo < 0xDC00 || lo > 0xDFFF) return syntax_at(p, j);
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        *next = j + 6;
    }
    if (cp == 0) return syntax_at(p, i);
    return cp;
}

/* The string whose opening quote is at p->i: checked, and decoded into out (when not NULL;
 * a string's decoded length never exceeds its raw length, which bounds the room needed),
 * NUL-terminated, with *len its decoded length. RFC 8259 strings: no raw control byte,
 * strict UTF-8 (RFC 3629), the escapes \" \\ \/ \b \f \n \r \t and \uXXXX with surrogates
 * only in pairs, decoded to UTF-8. 0, or -1 with the syntax error where it was found. */
/* 1 for the bytes a string's plain run stops at: control bytes, '"', '\\', non-ASCII. */
static const uint8_t STR_STOP[256] = {
    [0 ... 0x1F] = 1, ['"'] = 1, ['\\'] = 1, [0x80 ... 0xFF] = 1,
};

static int read_string(hp *p, char *out, size_t *len)
{
    const uint8_t *s = p->s;
    size_t n = p->n, i = p->i + 1, o = 0;
    for (;;) {
        /* the run of plain ASCII first: most names have no escape and no other byte */
        size_t r = i;
        while (r < n && !STR_STOP[s[r]])
            r++;
        if (out) memcpy(out + o, s + i, r - i);
        o += r - i;
        i = r;
        if (i >= n) return syntax_at(p, n);
        uint8_t c = s[i];
        if (c == '"') break;
        if (c < 0x20) return syntax_at(p, i);
        if (c >= 0x80) {
            size_t k;
            if (text_step((const char *)s + i, n - i, &k) < 0) return syntax_at(p, i);
            if (out) memcpy(out + o, s + i, k);
            o += k;
            i += k;
            continue;
        }
        /* a backslash */
        if (i + 1 >= n) return syntax_at(p, n);
        char one;
        switch (s[i + 1]) {
        case '"': case '\\': case '/': one = (char)s[i + 1]; break;
        case 'b': one = '\b'; break;
        case 'f': one = '\f'; break;
        case 'n': one = '\n'; break;
        case 'r': one = '\r'; break;
        case 't': one = '\t'; break;
        case 'u': {
            size_t next;
            long cp = unicode_escape(p, i, &next);
            if (cp < 0) return -1;
            char u[4];
            size_t k = text_encode((int32_t)cp, u);
            if (out) memcpy(out + o, u, k);
            o += k;
            i = next;
            continue;
        }
        default: return syntax_at(p, i + 1);
        }
        if (out) out[o] = one;
        o++;
        i += 2;
    }
    if (out) out[o] = '\0';
    *len = o;
    p->i = i + 1;
    return 0;
}

/* The number at p->i: RFC 8259's -?int(.digits)?([eE][+-]?digits)?, read exactly into
 * t->value when it is a plain non-negative integer. Digits after a leading zero ("01",
 * which RFC 8259 does not allow) are read too, as a number that is not plain: no place in
 * a header takes it, and it keeps the message every other non-plain number gets. */
static int read_number(hp *p, numtok *t)
{
    const uint8_t *s = p->s;
    size_t n = p->n, i = p->i;
    *t = (numtok){1, 1, 0, 0, i, 0};
    if (s[i] == '-') {
        t->plain = 0;
        i++;
    }
    if (i >= n || !is_digit(s[i])) return syntax_at(p, i < n ? i : n);
    if (s[i] == '0' && i + 1 < n && is_digit(s[i + 1])) t->plain = 0;
    /* 19 digits cannot overflow; only the digits after them are checked */
    for (size_t stop = n - i > 19 ? i + 19 : n; i < stop && is_digit(s[i]); i++)
        t->value = t->value * 10 + (unsigned)(s[i] - '0');
    for (; i < n && is_digit(s[i]); i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (t->value > (UINT64_MAX - d) / 10) t->overflow = 1;
        else t->value = t->value * 10 + d;
    }
    if (i < n && s[i] == '.') {
        t->plain = 0;
        if (++i >= n || !is_digit(s[i])) return syntax_at(p, i < n ? i : n);
        while (i < n && is_digit(s[i])) i++;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        t->plain = 0;
        if (++i < n && (s[i] == '+' || s[i] == '-')) i++;
        if (i >= n || !is_digit(s[i])) return syntax_at(p, i < n ? i : n);
        while (i < n && is_digit(s[i])) i++;
    }
    t->len = i - t->pos;
    p->i = i;
    return 0;
}

/* A string, number, true, false or null at p->i, checked and dropped. */
static int skip_scalar(hp *p)
{
    uint8_t c = p->s[p->i];
    if (c == '"') {
        size_t len;
        return read_string(p, NULL, &len);
    }
    if (c == '-' || is_digit(c)) {
        numtok t;
        return read_number(p, &t);
    }
    const char *w = c == 't' ? "true" : c == 'f' ? "false" : c == 'n' ? "null" : NULL;
    if (!w) return syntax_at(p, p->i);
    for (size_t k = 0; w[k]; k++) {
        if (p->i + k >= p->n) return syntax_at(p, p->n);
        if (p->s[p->i + k] != (uint8_t)w[k]) return syntax_at(p, p->i + k);
    }
    p->i += strlen(w);
    return 0;
}

/* An object member's key and colon, checked and dropped. */
static int skip_key(hp *p)
{
    size_t len;
    if (expect(p, '"')) return -1;
    p->i--;
    if (read_string(p, NULL, &len)) return -1;
    return expect(p, ':');
}

/* Checks the value at p->i (after whitespace), inside `depth` open arrays and objects,
 * keeping nothing: iteratively, a bit per level it opens (object or array). */
static int skip_value(hp *p, int depth)
{
    uint8_t is_obj[ST_MAX_DEPTH / 8 + 1];
    int top = 0;
    for (;;) {
        int c = peek(p);
        if (c < 0) return -1;
        if (c == '{' || c == '[') {
            if (depth + top >= ST_MAX_DEPTH) {
                syntax_at(p, p->i);
                p->syn = SYN_DEPTH;
                return -1;
            }
            if (c == '{') is_obj[top / 8] |= (uint8_t)(1u << top % 8);
            else is_obj[top / 8] &= (uint8_t)~(1u << top % 8);
            top++;
            p->i++;
            int b = peek(p);
            if (b < 0) return -1;
            if (b != (c == '{' ? '}' : ']')) {
                if (c == '{' && skip_key(p)) return -1;
                continue;
            }
            p->i++;
            top--;
        } else if (skip_scalar(p)) {
            return -1;
        }
        /* a value ended: close the levels it ends, up to the next element */
        while (top > 0) {
            int obj = is_obj[(top - 1) / 8] >> (top - 1) % 8 & 1;
            int b = peek(p);
            if (b < 0) return -1;
            if (b == ',') {
                p->i++;
                if (obj && skip_key(p)) return -1;
                break;
            }
            if (b != (obj ? '}' : ']')) return syntax_at(p, p->i);
            p->i++;
            top--;
        }
        if (top == 0) return 0;
    }
}

/* An array at p->i inside 2 levels (the header, a tensor entry): its elements counted in
 * *count, the first cap of them kept in v (a non-number as is_num 0). */
static int read_num_array(hp *p, numtok *v, size_t cap, size_t *count)
{
    size_t k = 0;
    p->i++;
    int c = peek(p);
    if (c < 0) return -1;
    if (c == ']') {
        p->i++;
        *count = 0;
        return 0;
    }
    for (;; k++) {
        c = peek(p);
        if (c < 0) return -1;
        numtok t = {0};
        if (c == '-' || is_digit((uint8_t)c)) {
            if (read_number(p, &t)) return -1;
        } else if (skip_value(p, 3)) {
            return -1;
        }
        if (k < cap) v[k] = t;
        if ((c = peek(p)) < 0) return -1;
        p->i++;
        if (c == ']') break;
        if (c != ',') return syntax_at(p, p->i - 1);
    }
    *count = k + 1;
    return 0;
}

/* Number t as an exact u64: 0, or 1 with *why saying why not and tok its text. */
static int num_u64(const hp *p, const numtok *t, uint64_t *v, const char **why, char *tok,
                   size_t toklen)
{
    tok[0] = '\0';
    if (!t->is_num) {
        *why = "not a number";
        return 1;
    }
    size_t shown = t->len < toklen - 1 ? t->len : toklen - 1;
    memcpy(tok, p->s + t->pos, shown);
    tok[shown] = '\0';
    if (!t->plain) {
        *why = "not a plain non-negative integer";
        return 1;
    }
    if (t->overflow) {
        *why = "larger than 2^64-1";
        return 1;
    }
    *v = t->value;
    return 0;
}

/* Judges a tensor entry collected in e, in the old reader's order; on success appends it
 * to f->tensors (the name, at p->str + p->used, is then kept). Returns the status. */
static int check_entry(hp *p, const char *name, size_t name_len, const entry *e)
{
    g2e_err *err = p->err;
    st_tensor t = {0};
    if (!e->seen[0] || !e->seen[1] || !e->seen[2])
        return g2e_fail(err, ST_E_TENSOR_NOT_OBJECT, "tensor '%s': missing key '%s'", name,
                        !e->seen[0] ? "dtype" : !e->seen[1] ? "shape" : "data_offsets");
    if (!e->dt_string) return g2e_fail(err, ST_E_DTYPE, "tensor '%s': dtype is not a string", name);
    int d = st_dtype_from_name(e->dt);
    if (d < 0)
        return g2e_fail(err, ST_E_DTYPE, "tensor '%s': unknown dtype '%.40s'", name, e->dt);
    t.dtype = (st_dtype)d;

    char tok[48];
    const char *why = NULL;
    if (!e->sh_array) return g2e_fail(err, ST_E_SHAPE, "tensor '%s': shape is not an array", name);
    if (e->sh_n > ST_MAX_NDIM)
        return g2e_fail(err, ST_E_SHAPE, "tensor '%s': shape has %d dimensions (at most %d)",
                        name, (int)e->sh_n, ST_MAX_NDIM);
    for (t.ndim = 0; (size_t)t.ndim < e->sh_n; t.ndim++)
        if (num_u64(p, &e->sh[t.ndim], &t.shape[t.ndim], &why, tok, sizeof tok))
            return g2e_fail(err, ST_E_SHAPE, "tensor '%s': shape dimension %d '%s' is %s", name,
                            t.ndim, tok, why);

    if (!e->off_array || e->off_n != 2)
        return g2e_fail(err, ST_E_OFFSETS, "tensor '%s': data_offsets is not [begin, end]", name);
    if (num_u64(p, &e->off[0], &t.begin, &why, tok, sizeof tok))
        return g2e_fail(err, ST_E_OFFSETS, "tensor '%s': data_offsets begin '%s' is %s", name,
                        tok, why);
    if (num_u64(p, &e->off[1], &t.end, &why, tok, sizeof tok))
        return g2e_fail(err, ST_E_OFFSETS, "tensor '%s': data_offsets end '%s' is %s", name, tok,
                        why);
    if (t.begin > t.end)
        return g2e_fail(err, ST_E_OFFSETS, "tensor '%s': data_offsets begin %llu > end %llu",
                        name, (unsigned long long)t.begin, (unsigned long long)t.end);

    uint64_t n = 1;
    for (int i = 0; i < t.ndim; i++)
        if (__builtin_mul_overflow(n, t.shape[i], &n))
            return g2e_fail(err, ST_E_OVERFLOW,
                            "tensor '%s': the product of its shape overflows 64 bits at dimension %d (%llu)",
                            name, i, (unsigned long long)t.shape[i]);
    uint64_t nbytes;
    if (__builtin_mul_overflow(n, (uint64_t)DTYPES[d].size, &nbytes))
        return g2e_fail(err, ST_E_OVERFLOW,
                        "tensor '%s': %llu elements x %zu bytes (%s) overflows 64 bits", name,
                        (unsigned long long)n, DTYPES[d].size, DTYPES[d].name);
    if (t.end - t.begin != nbytes)
        return g2e_fail(err, ST_E_SIZE_MISMATCH,
                        "tensor '%s': data_offsets [%llu, %llu] span %llu bytes but %llu elements of %s need %llu",
                        name, (unsigned long long)t.begin, (unsigned long long)t.end,
                        (unsigned long long)(t.end - t.begin), (unsigned long long)n,
                        DTYPES[d].name, (unsigned long long)nbytes);
    st_file *f = p->f;
    if (f->n_tensors == p->cap_t) {
        size_t cap = p->cap_t ? 2 * p->cap_t : 64;
        st_tensor *v = cap <= SIZE_MAX / sizeof *v ? realloc(f->tensors, cap * sizeof *v) : NULL;
        if (!v) return g2e_fail(err, G2E_ENOMEM, "out of memory");
        f->tensors = v;
        p->cap_t = cap;
    }
    t.name = p->str + p->used;
    p->used += name_len + 1;
    f->tensors[f->n_tensors++] = t;
    return 0;
}

/* The tensor entry at p->i, named name (decoded at p->str + p->used, name_len bytes). */
static int parse_entry(hp *p, const char *name, size_t name_len)
{
    if (p->s[p->i] != '{') {
        p->sem = g2e_fail(p->err, ST_E_TENSOR_NOT_OBJECT,
                          "tensor '%s': entry is not an object of dtype, shape, data_offsets", name);
        return skip_value(p, 1);
    }
    entry e;
    memset(&e, 0, offsetof(entry, sh));
    p->i++;
    int c = peek(p);
    if (c < 0) return -1;
    if (c == '}') {
        p->i++;
    } else {
        char *key = p->str + p->used + name_len + 1; /* after the name, dropped */
        for (;;) {
            size_t len;
            if (expect(p, '"')) return -1;
            p->i--;
            if (read_string(p, p->sem ? NULL : key, &len)) return -1;
            if (expect(p, ':') || peek(p) < 0) return -1;
            int slot = p->sem ? -1
                       : len == 5 && memcmp(key, "dtype", 5) == 0         ? 0
                       : len == 5 && memcmp(key, "shape", 5) == 0         ? 1
                       : len == 12 && memcmp(key, "data_offsets", 12) == 0 ? 2
                                                                           : -1;
            if (!p->sem && slot < 0)
                p->sem = g2e_fail(p->err, ST_E_TENSOR_NOT_OBJECT,
                                  "tensor '%s': unexpected key '%s' (allowed: dtype, shape, data_offsets)",
                                  name, key);
            else if (!p->sem && e.seen[slot])
                p->sem = g2e_fail(p->err, ST_E_TENSOR_NOT_OBJECT,
                                  "tensor '%s': key '%s' appears twice", name, key);
            if (p->sem) slot = -1;
            else e.seen[slot] = 1;
            uint8_t b = p->s[p->i];
            int rc;
            if (slot == 0 && b == '"') {
                /* the dtype, decoded over the key */
                rc = read_string(p, key, &len);
                size_t keep = len < sizeof e.dt - 1 ? len : sizeof e.dt - 1;
                memcpy(e.dt, key, keep);
                e.dt[keep] = '\0';
                e.dt_string = 1;
            } else if (slot == 1 && b == '[') {
                rc = read_num_array(p, e.sh, ST_MAX_NDIM, &e.sh_n);
                e.sh_array = 1;
            } else if (slot == 2 && b == '[') {
                rc = read_num_array(p, e.off, 2, &e.off_n);
                e.off_array = 1;
            } else {
                rc = skip_value(p, 2);
            }
            if (rc || (c = peek(p)) < 0) return -1;
            p->i++;
            if (c == '}') break;
            if (c != ',') return syntax_at(p, p->i - 1);
        }
    }
    if (!p->sem) p->sem = check_entry(p, name, name_len, &e);
    return 0;
}

typedef struct keyix {
    const char *key;
    size_t ix;
} keyix;

static int cmp_keyix(const void *a, const void *b)
{
    const keyix *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : x->ix < y->ix ? -1 : x->ix > y->ix;
}

/* The first of meta[0..n) (in order) whose key an earlier one has, or n. Sorted by (key,
 * position), each run of equal keys names its second entry; the earliest of those. */
static size_t first_repeated_key(const st_meta *meta, size_t n, int *nomem)
{
    size_t best = n;
    if (n <= 16) {
        for (size_t j = 1; j < n && best == n; j++)
            for (size_t i = 0; i < j; i++)
                if (strcmp(meta[i].key, meta[j].key) == 0) {
                    best = j;
                    break;
                }
        return best;
    }
    keyix *v = malloc(n * sizeof *v);
    if (!v) {
        *nomem = 1;
        return n;
    }
    for (size_t i = 0; i < n; i++) v[i] = (keyix){meta[i].key, i};
    qsort(v, n, sizeof *v, cmp_keyix);
    for (size_t i = 1; i < n; i++)
        if (strcmp(v[i - 1].key, v[i].key) == 0 && (i < 2 || strcmp(v[i - 2].key, v[i].key) != 0) &&
            v[i].ix < best)
            best = v[i].ix;
    free(v);
    return best;
}

/* A value found not to be a string at metadata key `key` (or the object's end, key NULL):
 * the old reader checked each entry in turn for both faults, so a repeated key before it
 * comes first. */
static int meta_fault(hp *p, const char *key)
{
    int nomem = 0;
    st_file *f = p->f;
    size_t j = first_repeated_key(f->meta, f->n_meta, &nomem);
    if (nomem) return g2e_fail(p->err, G2E_ENOMEM, "out of memory");
    if (j < f->n_meta)
        return g2e_fail(p->err, ST_E_DUPLICATE, "__metadata__ key '%s' appears twice",
                        f->meta[j].key);
    if (key)
        return g2e_fail(p->err, ST_E_METADATA, "__metadata__ value of '%s' is not a string", key);
    return 0;
}

/* The __metadata__ value at p->i. */
static int parse_meta(hp *p)
{
    if (p->seen_meta++) {
        p->sem = g2e_fail(p->err, ST_E_DUPLICATE, "'__metadata__' appears twice");
        return skip_value(p, 1);
    }
    if (p->s[p->i] != '{') {
        p->sem = g2e_fail(p->err, ST_E_METADATA, "__metadata__ is not an object of string values");
        return skip_value(p, 1);
    }
    st_file *f = p->f;
    p->i++;
    int c = peek(p);
    if (c < 0) return -1;
    if (c == '}') {
        p->i++;
        return 0;
    }
    for (;;) {
        size_t klen, vlen;
        char *key = p->sem ? NULL : p->str + p->used;
        if (expect(p, '"')) return -1;
        p->i--;
        if (read_string(p, key, &klen) || expect(p, ':') || (c = peek(p)) < 0) return -1;
        if (p->sem) {
            if (skip_value(p, 2)) return -1;
        } else if (c != '"') {
            p->sem = meta_fault(p, key);
            if (skip_value(p, 2)) return -1;
        } else {
            if (f->n_meta == p->cap_m) {
                size_t cap = p->cap_m ? 2 * p->cap_m : 4;
                st_meta *v = cap <= SIZE_MAX / sizeof *v ? realloc(f->meta, cap * sizeof *v) : NULL;
                if (!v) {
                    p->sem = g2e_fail(p->err, G2E_ENOMEM, "out of memory");
                    return skip_value(p, 2);
                }
                f->meta = v;
                p->cap_m = cap;
            }
            p->used += klen + 1;
            char *value = p->str + p->used;
            if (read_string(p, value, &vlen)) return -1;
            p->used += vlen + 1;
            f->meta[f->n_meta++] = (st_meta){key, value};
        }
        if ((c = peek(p)) < 0) return -1;
        p->i++;
        if (c == '}') break;
        if (c != ',') return syntax_at(p, p->i - 1);
    }
    if (!p->sem) p->sem = meta_fault(p, NULL);
    return 0;
}

/* The whole header: an object of tensor entries and at most one __metadata__, then only
 * whitespace. Returns -1 on a syntax error (p->syn), else 0 (p->sem may hold an error). */
static int parse_top(hp *p)
{
    int c = peek(p);
    if (c < 0) return -1;
    if (c != '{') {
        if (skip_value(p, 0)) return -1;
        p->sem = g2e_fail(p->err, ST_E_HEADER_NOT_OBJECT, "header JSON is not an object");
    } else {
        p->i++;
        if ((c = peek(p)) < 0) return -1;
        if (c == '}') p->i++;
        while (c != '}') {
            size_t len;
            char *name = p->sem ? NULL : p->str + p->used;
            if (expect(p, '"')) return -1;
            p->i--;
            if (read_string(p, name, &len) || expect(p, ':') || peek(p) < 0) return -1;
            int rc;
            if (p->sem) rc = skip_value(p, 1);
            else if (len == 12 && memcmp(name, "__metadata__", 12) == 0) rc = parse_meta(p);
            else rc = parse_entry(p, name, len);
            if (rc || (c = peek(p)) < 0) return -1;
            p->i++;
            if (c != ',' && c != '}') return syntax_at(p, p->i - 1);
        }
    }
    skip_ws(p);
    if (p->i < p->n) {
        syntax_at(p, p->i);
        p->syn = SYN_TRAILING;
        return -1;
    }
    return 0;
}

/* The message for a header that failed to parse. The bytes' own faults come first, over
 * the whole header (the order the old reader's checks ran in, so that a header with
 * several faults gets the message it got before); then the syntax error where it was
 * found. Runs only on refused headers: the parse already refused every such byte. */
static int refuse_syntax(const hp *p, g2e_err *err)
{
    const uint8_t *json = p->s;
    size_t json_len = p->n;
    size_t bad = text_validate((const char *)json, json_len);
    if (bad < json_len)
        return g2e_fail(err, ST_E_HEADER_UTF8,
                        "header is not valid UTF-8: byte 0x%02x at header offset %zu", json[bad],
                        bad);
    /* Lexing strings exactly as JSON does (a quote opens, a backslash escapes the next
     * byte, a quote closes), since outside strings valid JSON has quotes nowhere else. */
    int in_str = 0;
    for (size_t i = 0; i < json_len; i++) {
        uint8_t c = json[i];
        if (c == 0)
            return g2e_fail(err, ST_E_HEADER_JSON,
                            "header has a NUL byte at header offset %zu (of %zu): NUL padding is not allowed, pad with spaces",
                            i, json_len);
        if (c < 0x20 && (in_str || !text_is_json_ws(c)))
            return g2e_fail(err, ST_E_HEADER_JSON,
                            "header has control byte 0x%02x at header offset %zu%s: not JSON", c,
                            i, in_str ? " inside a string" : "");
        if (in_str && c == '\\' && json_len - i >= 6 && memcmp(json + i + 1, "u0000", 5) == 0)
            return g2e_fail(err, ST_E_HEADER_JSON,
                            "header has an escaped NUL (\\u0000) at header offset %zu: C strings cannot hold it",
                            i);
        if (in_str && c == '\\') i++;
        else if (c == '"') in_str = !in_str;
    }
    if (json_len >= 3 && json[0] == 0xEF && json[1] == 0xBB && json[2] == 0xBF)
        return g2e_fail(err, ST_E_HEADER_JSON,
                        "header is not valid JSON: it starts with a UTF-8 byte order mark");
    if (p->syn == SYN_TRAILING)
        return g2e_fail(err, ST_E_HEADER_JSON,
                        "header has non-whitespace byte 0x%02x at offset %zu after the JSON value",
                        json[p->at], p->at);
    if (p->syn == SYN_DEPTH)
        return g2e_fail(err, ST_E_HEADER_JSON,
                        "header nests arrays and objects more than %d deep (at header offset %zu): not a safetensors header",
                        ST_MAX_DEPTH, p->at);
    return g2e_fail(err, ST_E_HEADER_JSON, "header is not valid JSON (error near header offset %zu of %zu)",
                    p->at, json_len);
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(((const st_tensor *)a)->name, ((const st_tensor *)b)->name);
}

static int cmp_offset(const void *a, const void *b)
{
    const st_tensor *x = a, *y = b;
    if (x->begin != y->begin) return x->begin < y->begin ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* 1 when v[0..n) is in strictly increasing order by cmp (headers are usually written
 * sorted by name: then no sort is needed to find repeated names). */
static int sorted(const st_tensor *v, size_t n, int (*cmp)(const void *, const void *))
{
    for (size_t i = 1; i < n; i++)
        if (cmp(&v[i - 1], &v[i]) >= 0) return 0;
    return 1;
}

/* The checks over all tensors: names once each, then, sorted by offset, one contiguous
 * run from 0 to the end of the data section. */
static int check_layout(st_file *f, g2e_err *err)
{
    if (f->n_tensors > 1) {
        if (!sorted(f->tensors, f->n_tensors, cmp_name)) {
            qsort(f->tensors, f->n_tensors, sizeof *f->tensors, cmp_name);
            for (size_t i = 1; i < f->n_tensors; i++)
                if (strcmp(f->tensors[i - 1].name, f->tensors[i].name) == 0)
                    return g2e_fail(err, ST_E_DUPLICATE, "tensor '%s' appears twice in the header",
                                    f->tensors[i].name);
        }
        if (!sorted(f->tensors, f->n_tensors, cmp_offset))
            qsort(f->tensors, f->n_tensors, sizeof *f->tensors, cmp_offset);
    }

    uint64_t at = 0;
    for (size_t i = 0; i < f->n_tensors; i++) {
        const st_tensor *t = &f->tensors[i];
        if (t->begin == at) {
            at = t->end;
            continue;
        }
        if (i == 0)
            return g2e_fail(err, ST_E_NOT_CONTIGUOUS,
                            "tensor '%s' is the first in the data section but begins at %llu, not 0",
                            t->name, (unsigned long long)t->begin);
        const st_tensor *p = &f->tensors[i - 1];
        return g2e_fail(err, ST_E_NOT_CONTIGUOUS,
                        "tensor '%s' begins at %llu but the previous tensor '%s' ends at %llu (%s of %llu bytes)",
                        t->name, (unsigned long long)t->begin, p->name, (unsigned long long)at,
                        t->begin > at ? g2e_tr("a hole") : g2e_tr("an overlap"),
                        (unsigned long long)(t->begin > at ? t->begin - at : at - t->begin));
    }
    if (f->data_len != at) {
        if (f->data_len < at)
            return g2e_fail(err, ST_E_DATA_LENGTH,
                            "data section is %llu bytes but the tensors end at %llu (truncated by %llu bytes)",
                            (unsigned long long)f->data_len, (unsigned long long)at,
                            (unsigned long long)(at - f->data_len));
        return g2e_fail(err, ST_E_DATA_LENGTH,
                        "data section is %llu bytes but the tensors end at %llu (%llu trailing bytes)",
                        (unsigned long long)f->data_len, (unsigned long long)at,
                        (unsigned long long)(f->data_len - at));
    }
    return 0;
}

int st_parse_header(st_file **out, const uint8_t *json, size_t json_len, uint64_t data_len,
                    g2e_err *err)
{
    if (!out || (!json && json_len))
        return g2e_fail(err, G2E_EINVAL, "st_parse_header: NULL argument");
    *out = NULL;
    if (json_len > ST_MAX_HEADER)
        return g2e_fail(err, ST_E_HEADER_TOO_LARGE, "header length %zu is over the limit of %llu",
                        json_len, (unsigned long long)ST_MAX_HEADER);
    int rc = 0;
    st_file *f = calloc(1, sizeof *f);
    if (!f) return g2e_fail(err, G2E_ENOMEM, "out of memory");
    f->fd = -1;
    f->header_len = json_len;
    f->data_start = 8 + (uint64_t)json_len;
    f->data_len = data_len;
    /* every string kept decodes to at most its raw length, and takes its quotes' room for
     * its NUL: json_len + 1 bytes hold them all */
    f->strings = malloc(json_len + 1);
    if (!f->strings) {
        rc = g2e_fail(err, G2E_ENOMEM, "out of memory (header of %zu bytes)", json_len);
        goto fail;
    }
    hp p = {.s = json ? json : (const uint8_t *)"", .n = json_len, .err = err, .f = f,
            .str = f->strings};
    if (parse_top(&p)) {
        rc = refuse_syntax(&p, err);
        goto fail;
    }
    if ((rc = p.sem) || (rc = check_layout(f, err))) goto fail;
    *out = f;
    return 0;
fail:
    one_line(err);
    st_close(f);
    return rc;
}

/* A file whose length prefix makes no sense may be another kind of file that people pass for
 * weights: its first bytes say which (ST_E_FOREIGN with the kind in the message), else 0.
 * head: the first n bytes of the file. */
static int foreign(const uint8_t *head, size_t n, g2e_err *err)
{
    const char *s = (const char *)head;
    size_t k = 0;
    if (n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
        k = 3;   /* a UTF-8 byte order mark */
    while (k < n && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r' || s[k] == '\n'))
        k++;
    if (n >= 4 && memcmp(s, "PK\x03\x04", 4) == 0)
        return g2e_fail(err, ST_E_FOREIGN, "this is a PyTorch checkpoint (a zip archive, as "
                        "pytorch_model.bin), not a safetensors file");
    if (n >= 2 && head[0] == 0x80 && head[1] >= 2 && head[1] <= 5)
        return g2e_fail(err, ST_E_FOREIGN, "this is a PyTorch checkpoint (a Python pickle, as an "
                        "older pytorch_model.bin), not a safetensors file");
    if (n >= 4 && memcmp(s, "GGUF", 4) == 0)
        return g2e_fail(err, ST_E_FOREIGN, "this is a GGUF file (llama.cpp's format), not a "
                        "safetensors file");
    if ((n - k >= 9 && strncasecmp(s + k, "<!doctype", 9) == 0) ||
        (n - k >= 5 && strncasecmp(s + k, "<html", 5) == 0))
        return g2e_fail(err, ST_E_FOREIGN, "this is an HTML page (a web page saved in place of the "
                        "file?), not a safetensors file");
    size_t m = n < 512 ? n : 512, bad = 0;
    for (size_t i = 0; i < m; i++)
        bad += head[i] < 0x20 && head[i] != '\t' && head[i] != '\n' && head[i] != '\r';
    /* text: no control bytes, and valid UTF-8 but for a character cut at the end */
    if (m >= 8 && bad == 0 && text_validate((const char *)head, m) + 4 > m)
        return g2e_fail(err, ST_E_FOREIGN, "this is a text file, not a safetensors file");
    return 0;
}

int st_parse_buffer(st_file **out, const uint8_t *buf, size_t len, g2e_err *err)
{
    if (!out || (!buf && len))
        return g2e_fail(err, G2E_EINVAL, "st_parse_buffer: NULL argument");
    *out = NULL;
    if (len < 8)
        return g2e_fail(err, ST_E_TOO_SHORT,
                        "file is %zu bytes, shorter than the 8-byte header length", len);
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--)
        n = n << 8 | buf[i];
    int rc = n > ST_MAX_HEADER || n > len - 8 ? foreign(buf, len, err) : 0;
    if (rc)
        return rc;
    if (n > ST_MAX_HEADER)
        return g2e_fail(err, ST_E_HEADER_TOO_LARGE, "header length %llu is over the limit of %llu",
                        (unsigned long long)n, (unsigned long long)ST_MAX_HEADER);
    if (n > len - 8)
        return g2e_fail(err, ST_E_HEADER_PAST_END,
                        "header length %llu runs past the end of the file (%zu bytes, room for %zu)",
                        (unsigned long long)n, len, len - 8);
    st_file *f = NULL;
    rc = st_parse_header(&f, buf + 8, (size_t)n, (uint64_t)(len - 8 - (size_t)n), err);
    if (rc) return rc;
    f->data = buf + 8 + n;
    for (size_t i = 0; i < f->n_tensors; i++)
        f->tensors[i].bytes = f->data + f->tensors[i].begin;
    *out = f;
    return 0;
}

static int open_file(st_file **out, const char *path, g2e_err *err);

int st_open(st_file **out, const char *path, g2e_err *err)
{
    int rc = open_file(out, path, err);
    if (rc) one_line(err);
    return rc;
}

/* Opens path read-only as a regular file of at least 8 bytes; *fd and *size, or an error. */
static int open_regular(const char *path, int *fd, uint64_t *size, g2e_err *err)
{
    /* O_NONBLOCK: a FIFO must be refused below, not waited on at open */
    *fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (*fd < 0) return g2e_fail(err, ST_E_OPEN, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    int rc = 0;
    if (fstat(*fd, &sb) != 0)
        rc = g2e_fail(err, ST_E_OPEN, "%s: cannot stat: %s", path, strerror(errno));
    else if (!S_ISREG(sb.st_mode))
        rc = g2e_fail(err, ST_E_OPEN, "%s: not a regular file (%s)", path,
                      S_ISFIFO(sb.st_mode) ? g2e_tr("a FIFO") : S_ISDIR(sb.st_mode) ? g2e_tr("a directory")
                      : S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode) ? g2e_tr("a device") : g2e_tr("a socket"));
    else if (sb.st_size < 8)
        rc = g2e_fail(err, ST_E_TOO_SHORT,
                      "%s: file is %lld bytes, shorter than the 8-byte header length", path,
                      (long long)sb.st_size);
    else if ((uint64_t)sb.st_size > SIZE_MAX)
        rc = g2e_fail(err, ST_E_OPEN, "%s: file too large to map", path);
    if (rc) {
        close(*fd);
        *fd = -1;
        return rc;
    }
    *size = (uint64_t)sb.st_size;
    return 0;
}

/* Prefixes err's message with "path: " (st_parse_* messages do not name the file). */
static void name_path(g2e_err *err, int rc, const char *path)
{
    if (!err) return;
    char msg[G2E_ERR_MSG_MAX];
    memcpy(msg, err->msg, sizeof msg);
    g2e_fail(err, rc, "%s: %s", path, msg);
}

static int open_file(st_file **out, const char *path, g2e_err *err)
{
    if (!out || !path) return g2e_fail(err, G2E_EINVAL, "st_open: NULL argument");
    *out = NULL;
    int fd;
    uint64_t size;
    int rc = open_regular(path, &fd, &size, err);
    if (rc) return rc;
    size_t len = (size_t)size;
    void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    int e = errno;
    close(fd);
    if (map == MAP_FAILED)
        return g2e_fail(err, ST_E_OPEN, "%s: cannot map: %s", path, strerror(e));
    st_file *f = NULL;
    rc = st_parse_buffer(&f, map, len, err);
    if (rc) {
        munmap(map, len);
        name_path(err, rc, path);
        return rc;
    }
    f->map = map;
    f->map_len = len;
    *out = f;
    return 0;
}

/* pread of exactly n bytes at off; 0, or -1 with errno (EIO at an early end). */
static int pread_full(int fd, void *buf, size_t n, uint64_t off)
{
    for (size_t got = 0; got < n;) {
        ssize_t k = pread(fd, (uint8_t *)buf + got, n - got, (off_t)(off + got));
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            if (k == 0) errno = EIO;
            return -1;
        }
        got += (size_t)k;
    }
    return 0;
}

static int open_header(st_file **out, const char *path, g2e_err *err)
{
    if (!out || !path) return g2e_fail(err, G2E_EINVAL, "st_open_header: NULL argument");
    *out = NULL;
    int fd;
    uint64_t size;
    int rc = open_regular(path, &fd, &size, err);
    if (rc) return rc;
    uint8_t pre[512];
    uint8_t *json = NULL;
    size_t got = size < sizeof pre ? (size_t)size : sizeof pre;
    if (pread_full(fd, pre, got, 0) != 0) {
        rc = g2e_fail(err, ST_E_OPEN, "%s: cannot read: %s", path, strerror(errno));
        goto fail;
    }
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--)
        n = n << 8 | pre[i];
    /* the same checks, in the same order and words, as st_parse_buffer */
    if ((n > ST_MAX_HEADER || n > size - 8) && (rc = foreign(pre, got, err)) != 0) {
        name_path(err, rc, path);
        goto fail;
    }
    if (n > ST_MAX_HEADER) {
        rc = g2e_fail(err, ST_E_HEADER_TOO_LARGE, "%s: header length %llu is over the limit of %llu",
                      path, (unsigned long long)n, (unsigned long long)ST_MAX_HEADER);
        goto fail;
    }
    if (n > size - 8) {
        rc = g2e_fail(err, ST_E_HEADER_PAST_END,
                      "%s: header length %llu runs past the end of the file (%llu bytes, room for %llu)",
                      path, (unsigned long long)n, (unsigned long long)size,
                      (unsigned long long)(size - 8));
        goto fail;
    }
    json = malloc(n ? (size_t)n : 1);
    if (!json) {
        rc = g2e_fail(err, G2E_ENOMEM, "out of memory (header of %llu bytes)", (unsigned long long)n);
        goto fail;
    }
    if (pread_full(fd, json, (size_t)n, 8) != 0) {
        rc = g2e_fail(err, ST_E_OPEN, "%s: cannot read the header: %s", path, strerror(errno));
        goto fail;
    }
    st_file *f = NULL;
    rc = st_parse_header(&f, json, (size_t)n, size - 8 - n, err);
    if (rc) {
        name_path(err, rc, path);
        goto fail;
    }
    free(json);
    f->fd = fd;
    *out = f;
    return 0;
fail:
    free(json);
    close(fd);
    return rc;
}

int st_open_header(st_file **out, const char *path, g2e_err *err)
{
    int rc = open_header(out, path, err);
    if (rc) one_line(err);
    return rc;
}

int st_map(st_file *f, const st_tensor *t, g2e_err *err)
{
    if (!f || !t || t < f->tensors || t >= f->tensors + f->n_tensors)
        return g2e_fail(err, G2E_EINVAL, "st_map: not a tensor of this file");
    if (t->bytes) return 0;
    if (f->fd < 0)
        return g2e_fail(err, G2E_EINVAL, "tensor '%s': the file is not open (st_open_header)", t->name);
    long pg = sysconf(_SC_PAGESIZE);
    uint64_t page = pg > 0 ? (uint64_t)pg : 4096;
    /* validated at open: data_start + end <= file size, no overflow */
    uint64_t lo = f->data_start + t->begin, hi = f->data_start + t->end;
    uint64_t off = lo / page * page;
    size_t len = (size_t)(hi - off);
    struct st_range *r = realloc(f->ranges, (f->n_ranges + 1) * sizeof *r);
    if (!r) return g2e_fail(err, G2E_ENOMEM, "out of memory");
    f->ranges = r;
    void *m = mmap(NULL, len ? len : 1, PROT_READ, MAP_PRIVATE, f->fd, (off_t)off);
    if (m == MAP_FAILED) {
        int e = errno;
        g2e_fail(err, ST_E_OPEN, "tensor '%s': cannot map its %llu bytes: %s", t->name,
                 (unsigned long long)(hi - lo), strerror(e));
        one_line(err);
        return ST_E_OPEN;
    }
    f->ranges[f->n_ranges].addr = m;
    f->ranges[f->n_ranges].len = len ? len : 1;
    f->n_ranges++;
    f->tensors[t - f->tensors].bytes = (const uint8_t *)m + (lo - off);
    return 0;
}

void st_close(st_file *f)
{
    if (!f) return;
    free(f->tensors);
    free(f->meta);
    free(f->strings);
    if (f->map) munmap(f->map, f->map_len);
    for (size_t i = 0; i < f->n_ranges; i++)
        munmap(f->ranges[i].addr, f->ranges[i].len);
    free(f->ranges);
    if (f->fd >= 0) close(f->fd);
    free(f);
}

const st_tensor *st_find(const st_file *f, const char *name)
{
    if (!f || !name) return NULL;
    for (size_t i = 0; i < f->n_tensors; i++)
        if (strcmp(f->tensors[i].name, name) == 0)
            return &f->tensors[i];
    return NULL;
}

const char *st_meta_get(const st_file *f, const char *key)
{
    if (!f || !key) return NULL;
    for (size_t i = 0; i < f->n_meta; i++)
        if (strcmp(f->meta[i].key, key) == 0)
            return f->meta[i].value;
    return NULL;
}

/* ---------------------------------------------------------------------------------------
 * Conversion. */

uint32_t st_f16_to_f32_bits(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1F;
    uint32_t man = h & 0x3FF;
    if (exp == 0x1F) /* inf or NaN: keep the payload, top-aligned */
        return sign | 0x7F800000u | man << 13;
    if (exp != 0)
        return sign | (exp + (127 - 15)) << 23 | man << 13;
    if (man == 0)
        return sign;
    /* Subnormal half man * 2^-24: shift until the implicit bit appears; each shift
     * lowers the float exponent by one. 2^-24 is a normal float, so this is exact. */
    uint32_t e = 127 - 15 + 1;
    while (!(man & 0x400)) {
        man <<= 1;
        e--;
    }
    return sign | e << 23 | (man & 0x3FF) << 13;
}

uint32_t st_bf16_to_f32_bits(uint16_t h)
{
    return (uint32_t)h << 16;
}

static int read_row(const st_file *f, const st_tensor *t, uint64_t row, float *out, g2e_err *err);

int st_read_row_f32(const st_file *f, const st_tensor *t, uint64_t row, float *out, g2e_err *err)
{
    int rc = read_row(f, t, row, out, err);
    if (rc) one_line(err);
    return rc;
}

static int read_row(const st_file *f, const st_tensor *t, uint64_t row, float *out, g2e_err *err)
{
    if (!f || !t || !out) return g2e_fail(err, G2E_EINVAL, "st_read_row_f32: NULL argument");
    if (!t->bytes)
        return g2e_fail(err, G2E_EINVAL, "tensor '%s': no data mapped (header only)", t->name);
    if (t->ndim != 2)
        return g2e_fail(err, ST_E_SHAPE, "tensor '%s' has %d dimensions, rows need 2", t->name,
                        t->ndim);
    if (row >= t->shape[0])
        return g2e_fail(err, ST_E_RANGE, "tensor '%s': row %llu out of range (it has %llu rows)",
                        t->name, (unsigned long long)row, (unsigned long long)t->shape[0]);
    if (t->dtype != ST_F32 && t->dtype != ST_F16 && t->dtype != ST_BF16)
        return g2e_fail(err, ST_E_DTYPE_UNSUPPORTED,
                        "tensor '%s' is %s: only F32, F16 and BF16 convert to float32", t->name,
                        st_dtype_name(t->dtype));
    /* Validated at open: begin + rows*cols*size == end <= data_len, no overflow. */
    size_t cols = (size_t)t->shape[1];
    size_t es = DTYPES[t->dtype].size;
    const uint8_t *p = t->bytes + row * cols * es;
    if (t->dtype == ST_F32) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        memcpy(out, p, cols * 4);
#else
        for (size_t j = 0; j < cols; j++) {
            uint32_t b = (uint32_t)p[4 * j] | (uint32_t)p[4 * j + 1] << 8 |
                         (uint32_t)p[4 * j + 2] << 16 | (uint32_t)p[4 * j + 3] << 24;
            memcpy(&out[j], &b, 4);
        }
#endif
        return 0;
    }
    int half = t->dtype == ST_F16;
    for (size_t j = 0; j < cols; j++) {
        uint16_t h = (uint16_t)(p[2 * j] | p[2 * j + 1] << 8);
        uint32_t b = half ? st_f16_to_f32_bits(h) : st_bf16_to_f32_bits(h);
        memcpy(&out[j], &b, 4);
    }
    return 0;
}
