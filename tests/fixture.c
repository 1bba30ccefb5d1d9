/* SPDX-License-Identifier: MIT */
/* fixture.c — the GPT-2-layout safetensors writer for tests and benchmarks (see fixture.h).
 *
 * Written independently of src/lib/weights/safetensors.c on purpose: it builds the JSON by hand,
 * rounds to F16/BF16 with its own integer code and widens back through ldexp, so a bug in
 * the reader cannot hide behind the same bug here. No Criterion: benchmarks link it.
 */
#include "fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------------------
 * Values. */

static uint64_t mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

float fixture_value(int which, uint64_t row, uint64_t col)
{
    uint64_t h = mix64(mix64(mix64((uint64_t)(unsigned)which) ^ row) ^ col);
    int32_t x = (int32_t)(uint32_t)(h >> 32);
    float v = (float)((double)x * 0x1p-31); /* 31 random bits, rounded once to float */
    if (which == FIXTURE_WPE && row == 0) v *= 8.0f; /* exact: a power of two */
    return v;
}

static uint32_t f2u(float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    return u;
}

uint16_t fixture_f32_to_f16(float v)
{
    uint32_t u = f2u(v);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
    uint32_t exp = (u >> 23) & 0xFF, man = u & 0x7FFFFF;
    if (exp == 0xFF)
        return (uint16_t)(sign | 0x7C00 | (man ? 0x200 | (man >> 13) : 0));
    int e = (int)exp - 127 + 15;
    if (e >= 31) return (uint16_t)(sign | 0x7C00);
    uint32_t m, shift;
    if (e >= 1) {           /* normal half: keep 10 of 23 mantissa bits */
        m = man;
        shift = 13;
    } else {                /* subnormal half (or zero): units of 2^-24 */
        if (e < -10) return sign;
        m = man | 0x800000;
        shift = (uint32_t)(14 - e);
    }
    uint32_t q = m >> shift, rem = m & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (q & 1))) q++;
    /* For normals, adding the exponent field lets a mantissa carry roll into it (and
     * 65520 and up into infinity), which is exactly rounding's effect. */
    uint32_t h = e >= 1 ? ((uint32_t)e << 10) + q : q;
    return (uint16_t)(sign | h);
}

uint16_t fixture_f32_to_bf16(float v)
{
    uint32_t u = f2u(v);
    if ((u & 0x7F800000) == 0x7F800000 && (u & 0x7FFFFF))
        return (uint16_t)((u >> 16) | 0x40);
    u += 0x7FFF + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}

float fixture_f16_to_f32(uint16_t h)
{
    int exp = (h >> 10) & 0x1F, man = h & 0x3FF;
    float s = (h & 0x8000) ? -1.0f : 1.0f;
    if (exp == 0x1F) return man ? NAN : s * INFINITY;
    if (exp == 0) return s * ldexpf((float)man, -24);
    return s * ldexpf((float)(1024 + man), exp - 25);
}

float fixture_bf16_to_f32(uint16_t h)
{
    int exp = (h >> 7) & 0xFF, man = h & 0x7F;
    float s = (h & 0x8000) ? -1.0f : 1.0f;
    if (exp == 0xFF) return man ? NAN : s * INFINITY;
    if (exp == 0) return s * ldexpf((float)man, -133);
    return s * ldexpf((float)(128 + man), exp - 134);
}

static float round_to(st_dtype d, float v)
{
    if (d == ST_F16) return fixture_f16_to_f32(fixture_f32_to_f16(v));
    if (d == ST_BF16) return fixture_bf16_to_f32(fixture_f32_to_bf16(v));
    return v;
}

static int listed(const uint64_t *rows, size_t n, uint64_t row)
{
    for (size_t i = 0; i < n; i++)
        if (rows[i] == row) return 1;
    return 0;
}

float fixture_expected(const fixture_opts *o, int which, uint64_t row, uint64_t col)
{
    if (o->sparse && !(which == FIXTURE_WTE ? listed(o->wte_rows, o->n_wte_rows, row)
                                            : listed(o->wpe_rows, o->n_wpe_rows, row)))
        return 0.0f;
    return round_to(o->dtype, fixture_value(which, row, col));
}

void fixture_expected_row(const fixture_opts *o, int which, uint64_t row, float *out)
{
    for (uint64_t c = 0; c < o->n_embd; c++)
        out[c] = fixture_expected(o, which, row, c);
}

/* ---------------------------------------------------------------------------------------
 * Options. */

void fixture_tiny(fixture_opts *o)
{
    memset(o, 0, sizeof *o);
    o->n_vocab = 64;
    o->n_ctx = 16;
    o->n_embd = 8;
    o->dtype = ST_F32;
    o->n_layer = 2;
}

static const uint64_t GPT2_WTE_ROWS[] = {0, 1, 2, 50256};
static const uint64_t GPT2_WPE_ROWS[] = {0, 1, 1023};
static const char *const GPT2_META[] = {"format", "pt", NULL};

void fixture_gpt2(fixture_opts *o, st_dtype dtype, const char *prefix)
{
    memset(o, 0, sizeof *o);
    o->n_vocab = 50257;
    o->n_ctx = 1024;
    o->n_embd = 768;
    o->dtype = dtype;
    o->prefix = prefix;
    o->full_layout = 1;
    o->n_layer = 12;
    o->sparse = 1;
    o->wte_rows = GPT2_WTE_ROWS;
    o->n_wte_rows = sizeof GPT2_WTE_ROWS / sizeof GPT2_WTE_ROWS[0];
    o->wpe_rows = GPT2_WPE_ROWS;
    o->n_wpe_rows = sizeof GPT2_WPE_ROWS / sizeof GPT2_WPE_ROWS[0];
    o->meta = GPT2_META;
    if (dtype == ST_F32 && (!prefix || !*prefix)) o->header_len = FIXTURE_GPT2_HEADER_LEN;
}

/* ---------------------------------------------------------------------------------------
 * Writing. */

typedef struct ftensor {
    char name[96];
    int ndim;
    uint64_t shape[4];
    uint64_t numel, begin, end;
    int which;              /* FIXTURE_WTE, FIXTURE_WPE, or 2 + index in name order */
} ftensor;

typedef struct sbuf {
    char *p;
    size_t n, cap;
    int oom;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...)
{
    if (b->oom) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) { b->oom = 1; return; }
        if (b->p && b->n + (size_t)k < b->cap) { b->n += (size_t)k; return; }
        size_t nc = b->cap ? b->cap * 2 : 4096;
        while (nc < b->n + (size_t)k + 1) nc *= 2;
        char *np = realloc(b->p, nc);
        if (!np) { b->oom = 1; return; }
        b->p = np;
        b->cap = nc;
    }
}

static void sb_json_string(sbuf *b, const char *s)
{
    sb_printf(b, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') sb_printf(b, "\\%c", c);
        else if (c < 0x20) sb_printf(b, "\\u%04x", c);
        else sb_printf(b, "%c", c);
    }
    sb_printf(b, "\"");
}

static int add(ftensor *t, size_t *n, const char *prefix, const char *name, int ndim,
               uint64_t d0, uint64_t d1, uint64_t d2, uint64_t d3)
{
    ftensor *x = &t[(*n)++];
    memset(x, 0, sizeof *x);
    if ((size_t)snprintf(x->name, sizeof x->name, "%s%s", prefix, name) >= sizeof x->name)
        return -1;
    x->ndim = ndim;
    uint64_t d[4] = {d0, d1, d2, d3};
    x->numel = 1;
    for (int i = 0; i < ndim; i++) {
        x->shape[i] = d[i];
        if (__builtin_mul_overflow(x->numel, d[i], &x->numel)) return -1;
    }
    return 0;
}

static int cmp_ftensor(const void *a, const void *b)
{
    return strcmp(((const ftensor *)a)->name, ((const ftensor *)b)->name);
}

static size_t dsize(st_dtype d)
{
    return d == ST_F32 ? 4 : 2;
}

/* Little-endian bytes of v in dtype d at p. */
static void encode(st_dtype d, float v, uint8_t *p)
{
    if (d == ST_F32) {
        uint32_t u = f2u(v);
        p[0] = (uint8_t)u; p[1] = (uint8_t)(u >> 8); p[2] = (uint8_t)(u >> 16); p[3] = (uint8_t)(u >> 24);
        return;
    }
    uint16_t h = d == ST_F16 ? fixture_f32_to_f16(v) : fixture_f32_to_bf16(v);
    p[0] = (uint8_t)h;
    p[1] = (uint8_t)(h >> 8);
}

static int pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
{
    const uint8_t *p = buf;
    while (len) {
        ssize_t k = pwrite(fd, p, len, (off_t)off);
        if (k <= 0) return -1;
        p += k;
        len -= (size_t)k;
        off += (uint64_t)k;
    }
    return 0;
}

static int fail(char *errbuf, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *errbuf, size_t errlen, const char *fmt, ...)
{
    if (errbuf && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(errbuf, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int fixture_write(const char *path, const fixture_opts *o, char *errbuf, size_t errlen)
{
    int rc = -1, fd = -1;
    ftensor *t = NULL;
    sbuf hb = {0};
    uint8_t *row = NULL;
    size_t *order = NULL;
    char *tmp = NULL;

    if (!path || !o) return fail(errbuf, errlen, "fixture_write: NULL argument");
    if (o->dtype != ST_F32 && o->dtype != ST_F16 && o->dtype != ST_BF16)
        return fail(errbuf, errlen, "fixture_write: dtype must be F32, F16 or BF16");
    if (!o->n_vocab || !o->n_ctx || !o->n_embd || o->n_embd > (1u << 24))
        return fail(errbuf, errlen, "fixture_write: n_vocab, n_ctx, n_embd must be > 0");
    for (size_t i = 0; o->sparse && i < o->n_wte_rows; i++)
        if (o->wte_rows[i] >= o->n_vocab)
            return fail(errbuf, errlen, "fixture_write: wte row %llu >= n_vocab",
                        (unsigned long long)o->wte_rows[i]);
    for (size_t i = 0; o->sparse && i < o->n_wpe_rows; i++)
        if (o->wpe_rows[i] >= o->n_ctx)
            return fail(errbuf, errlen, "fixture_write: wpe row %llu >= n_ctx",
                        (unsigned long long)o->wpe_rows[i]);

    const char *pre = o->prefix ? o->prefix : "";
    uint64_t C = o->n_embd, L = o->full_layout ? o->n_layer : 0;
    size_t cap = 4 + 13 * (size_t)L, n = 0;
    t = calloc(cap, sizeof *t);
    order = calloc(cap, sizeof *order);
    if (!t || !order) { fail(errbuf, errlen, "fixture_write: out of memory"); goto out; }
    int bad = add(t, &n, pre, "wte.weight", 2, o->n_vocab, C, 0, 0);
    bad |= add(t, &n, pre, "wpe.weight", 2, o->n_ctx, C, 0, 0);
    if (o->full_layout) {
        bad |= add(t, &n, pre, "ln_f.weight", 1, C, 0, 0, 0);
        bad |= add(t, &n, pre, "ln_f.bias", 1, C, 0, 0, 0);
        for (uint64_t l = 0; l < L; l++) {
            static const struct { const char *s; int nd; int k0, k1; } B[] = {
                /* shapes in units: 0 = literal 1, -1 = n_ctx, k > 0 = k x n_embd */
                {"ln_1.weight", 1, 1, 0}, {"ln_1.bias", 1, 1, 0},
                {"attn.bias", 4, -1, -1},
                {"attn.c_attn.weight", 2, 1, 3}, {"attn.c_attn.bias", 1, 3, 0},
                {"attn.c_proj.weight", 2, 1, 1}, {"attn.c_proj.bias", 1, 1, 0},
                {"ln_2.weight", 1, 1, 0}, {"ln_2.bias", 1, 1, 0},
                {"mlp.c_fc.weight", 2, 1, 4}, {"mlp.c_fc.bias", 1, 4, 0},
                {"mlp.c_proj.weight", 2, 4, 1}, {"mlp.c_proj.bias", 1, 1, 0},
            };
            for (size_t i = 0; i < sizeof B / sizeof B[0]; i++) {
                char nm[64];
                snprintf(nm, sizeof nm, "h.%llu.%s", (unsigned long long)l, B[i].s);
                if (B[i].nd == 4)
                    bad |= add(t, &n, pre, nm, 4, 1, 1, o->n_ctx, o->n_ctx);
                else
                    bad |= add(t, &n, pre, nm, B[i].nd, (uint64_t)B[i].k0 * C,
                               (uint64_t)B[i].k1 * C, 0, 0);
            }
        }
    }
    if (bad) { fail(errbuf, errlen, "fixture_write: shape overflow or name too long"); goto out; }
    qsort(t, n, sizeof *t, cmp_ftensor);
    for (size_t i = 0, k = 0; i < n; i++) {
        const char *base = t[i].name + strlen(pre);
        t[i].which = strcmp(base, "wte.weight") == 0   ? FIXTURE_WTE
                     : strcmp(base, "wpe.weight") == 0 ? FIXTURE_WPE
                                                       : (int)(2 + k++);
    }

    /* Storage order: a fixed shuffle, never name order (real checkpoints are not in it). */
    for (size_t i = 0; i < n; i++) order[i] = i;
    uint64_t s = 0x5EED;
    for (size_t i = n; i > 1; i--) {
        s = mix64(s);
        size_t j = (size_t)(s % i), x = order[i - 1];
        order[i - 1] = order[j];
        order[j] = x;
    }
    /* Then smallest tensors first (stable over the shuffle): small offsets print short, which
     * keeps the full gpt2 header within the real file's 14,283 bytes. */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && t[order[j]].numel < t[order[j - 1]].numel; j--) {
            size_t x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
    int identity = 1;
    for (size_t i = 0; i < n; i++) identity &= order[i] == i;
    if (identity) { size_t x = order[0]; order[0] = order[1]; order[1] = x; }
    uint64_t at = 0, es = dsize(o->dtype);
    for (size_t i = 0; i < n; i++) {
        ftensor *x = &t[order[i]];
        uint64_t nb;
        if (__builtin_mul_overflow(x->numel, es, &nb) || __builtin_add_overflow(at, nb, &x->end)) {
            fail(errbuf, errlen, "fixture_write: data size overflows");
            goto out;
        }
        x->begin = at;
        at = x->end;
    }
    uint64_t data_len = at;

    static const char *const DN[] = {[ST_F32] = "F32", [ST_F16] = "F16", [ST_BF16] = "BF16"};
    sb_printf(&hb, "{");
    if (o->meta && o->meta[0]) {
        sb_printf(&hb, "\"__metadata__\":{");
        for (size_t i = 0; o->meta[i] && o->meta[i + 1]; i += 2) {
            if (i) sb_printf(&hb, ",");
            sb_json_string(&hb, o->meta[i]);
            sb_printf(&hb, ":");
            sb_json_string(&hb, o->meta[i + 1]);
        }
        sb_printf(&hb, "}%s", n ? "," : "");
    }
    for (size_t i = 0; i < n; i++) {
        sb_printf(&hb, "%s", i ? "," : "");
        sb_json_string(&hb, t[i].name);
        sb_printf(&hb, ":{\"dtype\":\"%s\",\"shape\":[", DN[o->dtype]);
        for (int d = 0; d < t[i].ndim; d++)
            sb_printf(&hb, "%s%llu", d ? "," : "", (unsigned long long)t[i].shape[d]);
        sb_printf(&hb, "],\"data_offsets\":[%llu,%llu]}", (unsigned long long)t[i].begin,
                  (unsigned long long)t[i].end);
    }
    sb_printf(&hb, "}");
    if (hb.oom) { fail(errbuf, errlen, "fixture_write: out of memory"); goto out; }
    uint64_t N = o->header_len;
    if (N && N < hb.n) {
        fail(errbuf, errlen, "fixture_write: the header needs %zu bytes, more than header_len %llu",
             hb.n, (unsigned long long)N);
        goto out;
    }
    if (!N) {
        N = hb.n;
        uint64_t want = o->aligned ? 0 : 3;
        while ((8 + N) % 8 != want) N++;
    }
    while (hb.n < N) sb_printf(&hb, " ");
    if (hb.oom) { fail(errbuf, errlen, "fixture_write: out of memory"); goto out; }

    size_t plen = strlen(path) + 32;
    tmp = malloc(plen);
    if (!tmp) { fail(errbuf, errlen, "fixture_write: out of memory"); goto out; }
    snprintf(tmp, plen, "%s.%ld.part", path, (long)getpid());
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) { fail(errbuf, errlen, "%s: %s", tmp, strerror(errno)); goto out; }
    uint8_t lenb[8];
    for (int i = 0; i < 8; i++) lenb[i] = (uint8_t)(N >> (8 * i));
    uint64_t start = 8 + N, total = start + data_len;
    if (pwrite_all(fd, lenb, 8, 0) || pwrite_all(fd, hb.p, N, 8) ||
        ftruncate(fd, (off_t)total) != 0) {
        fail(errbuf, errlen, "%s: %s", tmp, strerror(errno));
        goto out;
    }

    row = malloc((size_t)(C * es > 65536 * es ? C * es : 65536 * es));
    if (!row) { fail(errbuf, errlen, "fixture_write: out of memory"); goto out; }
    for (size_t i = 0; i < n; i++) {
        const ftensor *x = &t[i];
        if (x->which == FIXTURE_WTE || x->which == FIXTURE_WPE) {
            uint64_t rows = x->shape[0];
            const uint64_t *list = x->which == FIXTURE_WTE ? o->wte_rows : o->wpe_rows;
            size_t nl = x->which == FIXTURE_WTE ? o->n_wte_rows : o->n_wpe_rows;
            for (uint64_t k = 0; k < (o->sparse ? nl : rows); k++) {
                uint64_t r = o->sparse ? list[k] : k;
                for (uint64_t c = 0; c < C; c++)
                    encode(o->dtype, fixture_value(x->which, r, c), row + c * es);
                if (pwrite_all(fd, row, (size_t)(C * es), start + x->begin + r * C * es)) {
                    fail(errbuf, errlen, "%s: %s", tmp, strerror(errno));
                    goto out;
                }
            }
        } else if (!o->sparse) {
            for (uint64_t e0 = 0; e0 < x->numel; e0 += 65536) {
                uint64_t k = x->numel - e0 < 65536 ? x->numel - e0 : 65536;
                for (uint64_t e = 0; e < k; e++)
                    encode(o->dtype, fixture_value(x->which, 0, e0 + e), row + e * es);
                if (pwrite_all(fd, row, (size_t)(k * es), start + x->begin + e0 * es)) {
                    fail(errbuf, errlen, "%s: %s", tmp, strerror(errno));
                    goto out;
                }
            }
        }
    }
    if (close(fd) != 0) {
        fd = -1;
        fail(errbuf, errlen, "%s: %s", tmp, strerror(errno));
        goto out;
    }
    fd = -1;
    if (rename(tmp, path) != 0) { fail(errbuf, errlen, "%s: %s", path, strerror(errno)); goto out; }
    rc = 0;
out:
    if (fd >= 0) close(fd);
    if (rc && tmp) unlink(tmp);
    free(tmp);
    free(row);
    free(hb.p);
    free(order);
    free(t);
    return rc;
}
