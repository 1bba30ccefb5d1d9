/* SPDX-License-Identifier: MIT */
/* test_safetensors.c — the strict safetensors reader: every fixture variant reads back
 * exactly, every malformed file is refused with its own status code and a message naming
 * the tensor and numbers, and F16/BF16 widen exactly (checked against bit patterns whose
 * values are known, and against an ldexp decoding of all 65,536 halves). */
#include "fixture.h"
#include "safetensors.h"
#include "st_ref_cjson.h"
#include "support.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/* 8-byte little-endian `prefix`, then hdr_len header bytes, then data_len zero bytes. */
static uint8_t *build(uint64_t prefix, const char *hdr, size_t hdr_len, size_t data_len,
                      size_t *len)
{
    *len = 8 + hdr_len + data_len;
    uint8_t *b = calloc(1, *len + 1);
    cr_assert(b != NULL);
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(prefix >> (8 * i));
    memcpy(b + 8, hdr, hdr_len);
    return b;
}

static uint32_t bits(float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    return u;
}

/* ------------------------------------------------------------------------------------ */

typedef struct bad_case {
    const char *what;
    const char *hdr;
    size_t hdr_len;          /* bytes of hdr used */
    size_t data_len;         /* zero bytes after the header */
    int raw;                 /* 1: the file is exactly `raw_len` bytes of hdr, no prefix added */
    size_t raw_len;
    int set_prefix;          /* 1: use `prefix` instead of hdr_len as the length prefix */
    uint64_t prefix;
    int code;
    const char *needle1, *needle2;   /* must appear in the message */
} bad_case;

#define H(s) s, sizeof(s) - 1
#define T1 "\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]"

static const bad_case BAD[] = {
    {"empty file", "", 0, 0, 1, 0, 0, 0, ST_E_TOO_SHORT, "0 bytes", "8-byte"},
    {"seven bytes", "\x01\x00\x00\x00\x00\x00\x00", 7, 0, 1, 7, 0, 0, ST_E_TOO_SHORT, "7 bytes", NULL},
    {"header length just over the limit", H("{}"), 0, 0, 0, 1, 100000001, ST_E_HEADER_TOO_LARGE, "100000001", "100000000"},
    {"header length 2^64-1", H("{}"), 0, 0, 0, 1, UINT64_MAX, ST_E_HEADER_TOO_LARGE, "18446744073709551615", NULL},
    {"header length past the end", H("{}      "), 0, 0, 0, 1, 100, ST_E_HEADER_PAST_END, "100", "16 bytes"},
    {"header length one past the end", H("{}"), 0, 0, 0, 1, 3, ST_E_HEADER_PAST_END, "3", "room for 2"},
    {"invalid UTF-8 byte 0xff", H("{\"a\xff\":{}}"), 0, 0, 0, 0, 0, ST_E_HEADER_UTF8, "0xff", "offset 3"},
    {"overlong UTF-8 (C0 AF)", H("{\"\xc0\xaf\":1}"), 0, 0, 0, 0, 0, ST_E_HEADER_UTF8, "0xc0", "offset 2"},
    {"UTF-8 surrogate (ED A0 80)", H("{\"\xed\xa0\x80\":1}"), 0, 0, 0, 0, 0, ST_E_HEADER_UTF8, "0xed", NULL},
    {"UTF-8 above U+10FFFF", H("{\"\xf4\x90\x80\x80\":1}"), 0, 0, 0, 0, 0, ST_E_HEADER_UTF8, "0xf4", NULL},
    {"UTF-8 sequence cut at the end", H("{}\xe2\x82"), 0, 0, 0, 0, 0, ST_E_HEADER_UTF8, "0xe2", "offset 2"},
    {"not JSON", H("{"), 0, 0, 0, 0, 0, ST_E_HEADER_JSON, "not valid JSON", NULL},
    {"NUL padding", H("{}\0\0\0\0"), 0, 0, 0, 0, 0, ST_E_HEADER_JSON, "NUL", "offset 2"},
    {"control byte", H("{\x01}"), 0, 0, 0, 0, 0, ST_E_HEADER_JSON, "0x01", "offset 1"},
    {"raw newline inside a name", H("{\"a\nb\":{" T1 "}}"), 4, 0, 0, 0, 0, ST_E_HEADER_JSON, "0x0a", "inside a string"},
    {"escaped newline in a name, message stays one line", H("{\"a\\nb\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,4]}}"), 4, 0, 0, 0, 0, ST_E_SIZE_MISMATCH, "'a?b'", NULL},
    {"escaped NUL in a name", H("{\"a\\u0000b\":{" T1 "}}"), 4, 0, 0, 0, 0, ST_E_HEADER_JSON, "\\u0000", "offset 3"},
    {"trailing garbage", H("{} x"), 0, 0, 0, 0, 0, ST_E_HEADER_JSON, "0x78", "offset 3"},
    {"empty header", H(""), 0, 0, 0, 0, 0, ST_E_HEADER_JSON, "not valid JSON", NULL},
    {"byte order mark", H("\xef\xbb\xbf{}"), 0, 0, 0, 0, 0, ST_E_HEADER_JSON, "byte order mark", NULL},
    {"array header", H("[]"), 0, 0, 0, 0, 0, ST_E_HEADER_NOT_OBJECT, "not an object", NULL},
    {"string header", H("\"x\""), 0, 0, 0, 0, 0, ST_E_HEADER_NOT_OBJECT, "not an object", NULL},
    {"metadata not an object", H("{\"__metadata__\":5}"), 0, 0, 0, 0, 0, ST_E_METADATA, "__metadata__", NULL},
    {"metadata value not a string", H("{\"__metadata__\":{\"k\":1}}"), 0, 0, 0, 0, 0, ST_E_METADATA, "'k'", NULL},
    {"metadata value null", H("{\"__metadata__\":{\"k\":null}}"), 0, 0, 0, 0, 0, ST_E_METADATA, "'k'", NULL},
    {"tensor not an object", H("{\"t\":5}"), 0, 0, 0, 0, 0, ST_E_TENSOR_NOT_OBJECT, "'t'", NULL},
    {"tensor misses dtype", H("{\"t\":{\"shape\":[1],\"data_offsets\":[0,4]}}"), 4, 0, 0, 0, 0, ST_E_TENSOR_NOT_OBJECT, "'t'", "'dtype'"},
    {"tensor misses data_offsets", H("{\"t\":{\"dtype\":\"F32\",\"shape\":[1]}}"), 4, 0, 0, 0, 0, ST_E_TENSOR_NOT_OBJECT, "'t'", "'data_offsets'"},
    {"tensor with an extra key", H("{\"t\":{" T1 ",\"extra\":1}}"), 4, 0, 0, 0, 0, ST_E_TENSOR_NOT_OBJECT, "'t'", "'extra'"},
    {"tensor with a key twice", H("{\"t\":{" T1 ",\"dtype\":\"F32\"}}"), 4, 0, 0, 0, 0, ST_E_TENSOR_NOT_OBJECT, "'t'", "twice"},
    {"unknown dtype", H("{\"t\":{\"dtype\":\"F31\",\"shape\":[1],\"data_offsets\":[0,4]}}"), 4, 0, 0, 0, 0, ST_E_DTYPE, "'t'", "'F31'"},
    {"lowercase dtype", H("{\"t\":{\"dtype\":\"f32\",\"shape\":[1],\"data_offsets\":[0,4]}}"), 4, 0, 0, 0, 0, ST_E_DTYPE, "'f32'", NULL},
    {"dtype not a string", H("{\"t\":{\"dtype\":4,\"shape\":[1],\"data_offsets\":[0,4]}}"), 4, 0, 0, 0, 0, ST_E_DTYPE, "'t'", "not a string"},
    {"shape not an array", H("{\"t\":{\"dtype\":\"F32\",\"shape\":1,\"data_offsets\":[0,4]}}"), 4, 0, 0, 0, 0, ST_E_SHAPE, "'t'", "not an array"},
    {"negative dimension", H("{\"t\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}"), 4, 0, 0, 0, 0, ST_E_SHAPE, "'t'", "'-1'"},
    {"fractional dimension", H("{\"t\":{\"dtype\":\"F32\",\"shape\":[1.5],\"data_offsets\":[0,4]}}"), 4, 0, 0, 0, 0, ST_E_SHAPE, "'1.5'", NULL},
    {"dimension written 1.0", H("{\"t\":{\"dtype\":\"F32\",\"shape\":[1.0],\"data_offsets\":[0,4]}}"), 4, 0, 0, 0, 0, ST_E_SHAPE, "'1.0'", NULL},
    {"dimension with exponent", H("{\"t\":{\"dtype\":\"F32\",\"shape\":[1e0],\"data_offsets\":[0,4]}}"), 4, 0, 0, 0, 0, ST_E_SHAPE, "'1e0'", NULL},
    {"dimension with a leading zero", H("{\"t\":{\"dtype\":\"F32\",\"shape\":[01],\"data_offsets\":[0,4]}}"), 4, 0, 0, 0, 0, ST_E_SHAPE, "'01'", NULL},
    {"dimension a string", H("{\"t\":{\"dtype\":\"F32\",\"shape\":[\"1\"],\"data_offsets\":[0,4]}}"), 4, 0, 0, 0, 0, ST_E_SHAPE, "not a number", NULL},
    {"dimension 2^64", H("{\"t\":{\"dtype\":\"U8\",\"shape\":[18446744073709551616],\"data_offsets\":[0,0]}}"), 0, 0, 0, 0, 0, ST_E_SHAPE, "18446744073709551616", "2^64"},
    {"nine dimensions", H("{\"t\":{\"dtype\":\"F32\",\"shape\":[1,1,1,1,1,1,1,1,1],\"data_offsets\":[0,4]}}"), 4, 0, 0, 0, 0, ST_E_SHAPE, "9 dimensions", NULL},
    {"offsets with one number", H("{\"t\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4]}}"), 4, 0, 0, 0, 0, ST_E_OFFSETS, "'t'", NULL},
    {"offsets with three numbers", H("{\"t\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4,8]}}"), 4, 0, 0, 0, 0, ST_E_OFFSETS, "'t'", NULL},
    {"offsets not an array", H("{\"t\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":{}}}"), 4, 0, 0, 0, 0, ST_E_OFFSETS, "'t'", NULL},
    {"begin after end", H("{\"t\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,4]}}"), 8, 0, 0, 0, 0, ST_E_OFFSETS, "begin 8 > end 4", NULL},
    {"negative begin", H("{\"t\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[-4,0]}}"), 4, 0, 0, 0, 0, ST_E_OFFSETS, "'-4'", NULL},
    {"end 2^64", H("{\"t\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,18446744073709551616]}}"), 4, 0, 0, 0, 0, ST_E_OFFSETS, "18446744073709551616", NULL},
    {"shape product overflows", H("{\"t\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,4]}}"), 4, 0, 0, 0, 0, ST_E_OVERFLOW, "'t'", "dimension 1 (4294967296)"},
    {"bytes overflow", H("{\"t\":{\"dtype\":\"F32\",\"shape\":[4611686018427387904],\"data_offsets\":[0,4]}}"), 4, 0, 0, 0, 0, ST_E_OVERFLOW, "4611686018427387904 elements x 4 bytes", NULL},
    {"size mismatch", H("{\"t\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,12]}}"), 12, 0, 0, 0, 0, ST_E_SIZE_MISMATCH, "'t'", "span 12 bytes but 4 elements of F32 need 16"},
    {"size mismatch for F16", H("{\"t\":{\"dtype\":\"F16\",\"shape\":[3],\"data_offsets\":[0,4]}}"), 4, 0, 0, 0, 0, ST_E_SIZE_MISMATCH, "need 6", NULL},
    {"a hole", H("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]}}"), 12, 0, 0, 0, 0, ST_E_NOT_CONTIGUOUS, "'b' begins at 8", "'a' ends at 4 (a hole of 4 bytes)"},
    {"an overlap", H("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}"), 8, 0, 0, 0, 0, ST_E_NOT_CONTIGUOUS, "'b' begins at 4", "an overlap of 4 bytes"},
    {"first tensor not at 0", H("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}"), 8, 0, 0, 0, 0, ST_E_NOT_CONTIGUOUS, "'a'", "begins at 4, not 0"},
    {"trailing data bytes", H("{\"a\":{" T1 "}}"), 8, 0, 0, 0, 0, ST_E_DATA_LENGTH, "8 bytes", "4 trailing bytes"},
    {"truncated data", H("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}"), 5, 0, 0, 0, 0, ST_E_DATA_LENGTH, "5 bytes", "truncated by 3 bytes"},
    {"data but no tensors", H("{}"), 1, 0, 0, 0, 0, ST_E_DATA_LENGTH, "1 trailing", NULL},
    {"duplicate tensor", H("{\"a\":{" T1 "},\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}"), 8, 0, 0, 0, 0, ST_E_DUPLICATE, "'a'", "twice"},
    {"duplicate __metadata__", H("{\"__metadata__\":{},\"__metadata__\":{}}"), 0, 0, 0, 0, 0, ST_E_DUPLICATE, "__metadata__", NULL},
    {"duplicate metadata key", H("{\"__metadata__\":{\"k\":\"1\",\"k\":\"2\"}}"), 0, 0, 0, 0, 0, ST_E_DUPLICATE, "'k'", NULL},
};

/* One loop rather than Criterion's parameterized tests: their parameters travel to a
 * re-executed child where pointers to this table's strings are not valid. Every case is
 * checked (cr_expect) and named in the failure message. */
static void check_bad(const bad_case *c)
{
    size_t len;
    uint8_t *b;
    if (c->raw) {
        len = c->raw_len;
        b = malloc(len + 1);
        cr_assert(b != NULL);
        memcpy(b, c->hdr, len);
    } else {
        b = build(c->set_prefix ? c->prefix : c->hdr_len, c->hdr, c->hdr_len, c->data_len, &len);
    }
    st_file *f = (st_file *)1;
    g2e_err e;
    g2e_clear(&e);
    int rc = st_parse_buffer(&f, b, len, &e);
    cr_expect_eq(rc, c->code, "%s: status %d, expected %d (%s)", c->what, rc, c->code, e.msg);
    cr_expect_eq(e.code, rc, "%s: err.code %d", c->what, e.code);
    cr_expect_null(f, "%s: *out not NULL on error", c->what);
    cr_expect(strchr(e.msg, '\n') == NULL && e.msg[0], "%s: message '%s'", c->what, e.msg);
    if (c->needle1)
        cr_expect(strstr(e.msg, c->needle1) != NULL, "%s: '%s' not in '%s'", c->what, c->needle1, e.msg);
    if (c->needle2)
        cr_expect(strstr(e.msg, c->needle2) != NULL, "%s: '%s' not in '%s'", c->what, c->needle2, e.msg);
    /* the same bytes as a file: st_open_header (pread, nothing mapped) refuses them alike */
    char *dir = test_tmpdir("st-bad"), *path = path_join(dir, "bad.safetensors");
    write_file(path, b, len);
    f = (st_file *)1;
    int rc2 = st_open_header(&f, path, &e);
    cr_expect_eq(rc2, c->code, "%s (st_open_header): status %d, expected %d (%s)", c->what, rc2, c->code, e.msg);
    cr_expect_null(f, "%s: *out not NULL on error", c->what);
    if (c->needle1)
        cr_expect(strstr(e.msg, c->needle1) != NULL, "%s (st_open_header): '%s' not in '%s'", c->what, c->needle1, e.msg);
    unlink(path);
    rmdir(dir);
    free(path);
    free(dir);
    free(b);
}

Test(safetensors, malformed_files_each_get_their_own_status)
{
    size_t n = sizeof BAD / sizeof BAD[0];
    for (size_t i = 0; i < n; i++) check_bad(&BAD[i]);
    cr_expect_geq(n, 25);
    int seen[ST_E_DUPLICATE + 1] = {0};
    for (size_t i = 0; i < n; i++) seen[BAD[i].code] = 1;
    for (int c = ST_E_TOO_SHORT; c <= ST_E_DUPLICATE; c++)
        cr_expect(seen[c], "no malformed case for status %d", c);
}

Test(safetensors, deep_nesting_is_refused_not_a_crash)
{
    size_t depth = 5000, hl = 2 * depth + 20;
    char *h = malloc(hl + 1);
    cr_assert(h != NULL);
    size_t k = (size_t)sprintf(h, "{\"__metadata__\":");
    for (size_t i = 0; i < depth; i++) h[k++] = '[';
    for (size_t i = 0; i < depth; i++) h[k++] = ']';
    h[k++] = '}';
    size_t len;
    uint8_t *b = build(k, h, k, 0, &len);
    st_file *f = NULL;
    g2e_err e;
    int rc = st_parse_buffer(&f, b, len, &e);
    cr_expect(rc == ST_E_HEADER_JSON || rc == ST_E_METADATA, "rc %d: %s", rc, e.msg);
    free(b);
    free(h);
}

/* ------------------------------------------------------------------------------------ */

Test(safetensors, smallest_valid_files)
{
    static const struct { const char *hdr; size_t n_tensors, n_meta; } OK[] = {
        {"{}", 0, 0},
        {" \t\r\n{}\n   ", 0, 0},
        {"{\"__metadata__\":{}}", 0, 0},
        {"{\"__metadata__\":{\"format\":\"pt\",\"\xc3\xa9\":\"\xe2\x82\xac \\\" \\u0041\"}}", 0, 2},
        {"{\"s\":{\"dtype\":\"U8\",\"shape\":[],\"data_offsets\":[0,1]}}", 1, 0},
        {"{\"z\":{\"dtype\":\"F32\",\"shape\":[0,768],\"data_offsets\":[0,0]},"
         "\"s\":{\"dtype\":\"U8\",\"shape\":[],\"data_offsets\":[0,1]}}", 2, 0},
        /* dimensions beyond 2^53 (a double would round them) are fine when another is 0 */
        {"{\"z\":{\"dtype\":\"F64\",\"shape\":[18446744073709551615,0],\"data_offsets\":[0,0]},"
         "\"s\":{\"dtype\":\"U8\",\"shape\":[],\"data_offsets\":[0,1]}}", 2, 0},
    };
    for (size_t i = 0; i < sizeof OK / sizeof OK[0]; i++) {
        size_t hl = strlen(OK[i].hdr), len;
        uint8_t *b = build(hl, OK[i].hdr, hl, OK[i].n_tensors ? 1 : 0, &len);
        st_file *f = NULL;
        g2e_err e;
        g2e_clear(&e);
        int rc = st_parse_buffer(&f, b, len, &e);
        cr_expect_eq(rc, 0, "case %zu: %s", i, e.msg);
        if (!rc) {
            cr_expect_eq(f->n_tensors, OK[i].n_tensors, "case %zu", i);
            cr_expect_eq(f->n_meta, OK[i].n_meta, "case %zu", i);
            cr_expect_eq(f->header_len, hl);
            cr_expect_eq(f->data_start, 8 + hl);
        }
        if (i == 3 && !rc) {
            cr_expect_str_eq(st_meta_get(f, "format"), "pt");
            cr_expect_str_eq(st_meta_get(f, "\xc3\xa9"), "\xe2\x82\xac \" A");
            cr_expect_null(st_meta_get(f, "missing"));
        }
        if (i == 6 && !rc) {
            const st_tensor *z = st_find(f, "z");
            cr_assert_not_null(z);
            cr_expect_eq(z->shape[0], UINT64_MAX);
            cr_expect_eq(st_tensor_numel(z), 0);
            cr_expect_eq(f->tensors[0].begin, 0);
        }
        st_close(f);
        free(b);
    }
}

Test(safetensors, offsets_above_2_pow_53_are_exact)
{
    /* 2^53 + 1 cannot be a double: a reader going through cJSON's valuedouble would see
     * 2^53 and report a size mismatch; the header alone is enough (st_parse_header). */
    const char *h = "{\"big\":{\"dtype\":\"U8\",\"shape\":[9007199254740993],"
                    "\"data_offsets\":[0,9007199254740993]}}";
    st_file *f = NULL;
    g2e_err e;
    int rc = st_parse_header(&f, (const uint8_t *)h, strlen(h), 9007199254740993ull, &e);
    cr_assert_eq(rc, 0, "%s", e.msg);
    cr_expect_eq(f->tensors[0].end, 9007199254740993ull);
    cr_expect_eq(f->tensors[0].shape[0], 9007199254740993ull);
    cr_expect_null(f->data);
    float row[1];
    cr_expect_eq(st_read_row_f32(f, &f->tensors[0], 0, row, &e), G2E_EINVAL);
    st_close(f);
    rc = st_parse_header(&f, (const uint8_t *)h, strlen(h), 9007199254740992ull, &e);
    cr_expect_eq(rc, ST_E_DATA_LENGTH, "%s", e.msg);
    cr_expect(strstr(e.msg, "9007199254740993") != NULL, "%s", e.msg);
}

Test(safetensors, header_length_limit_is_exactly_100000000)
{
    /* A header of exactly ST_MAX_HEADER bytes is allowed: "{}" and spaces. */
    size_t hl = (size_t)ST_MAX_HEADER, len;
    char *h = malloc(hl);
    cr_assert(h != NULL);
    memset(h, ' ', hl);
    h[0] = '{';
    h[1] = '}';
    uint8_t *b = build(hl, h, hl, 0, &len);
    st_file *f = NULL;
    g2e_err e;
    cr_expect_eq(st_parse_buffer(&f, b, len, &e), 0, "%s", e.msg);
    st_close(f);
    free(b);
    free(h);
}

/* ------------------------------------------------------------------------------------ */

static void check_rows(const st_file *f, const fixture_opts *o, const char *what)
{
    const char *pre = o->prefix ? o->prefix : "";
    char nm[64];
    float *got = malloc(o->n_embd * sizeof *got), *want = malloc(o->n_embd * sizeof *want);
    cr_assert(got && want);
    for (int which = 0; which < 2; which++) {
        snprintf(nm, sizeof nm, "%s%s", pre, which == FIXTURE_WTE ? "wte.weight" : "wpe.weight");
        const st_tensor *t = st_find(f, nm);
        cr_assert_not_null(t, "%s: no %s", what, nm);
        uint64_t rows = which == FIXTURE_WTE ? o->n_vocab : o->n_ctx;
        cr_expect_eq(t->ndim, 2);
        cr_expect_eq(t->shape[0], rows);
        cr_expect_eq(t->shape[1], o->n_embd);
        cr_expect_eq(t->dtype, o->dtype);
        for (uint64_t r = 0; r < rows; r++) {
            /* every row of a small file; for a sparse big one, the written rows and a few others */
            if (rows > 64 && !(r < 3 || r + 1 >= rows || r == rows / 2 || r == 1023)) continue;
            g2e_err e;
            cr_assert_eq(st_read_row_f32(f, t, r, got, &e), 0, "%s: %s", what, e.msg);
            fixture_expected_row(o, which, r, want);
            for (uint64_t c = 0; c < o->n_embd; c++)
                if (bits(got[c]) != bits(want[c]))
                    cr_assert_fail("%s: %s[%llu][%llu] = %a, expected %a", what, nm,
                                   (unsigned long long)r, (unsigned long long)c, got[c], want[c]);
        }
    }
    free(got);
    free(want);
}

Test(safetensors, every_tiny_fixture_variant_reads_back_exactly)
{
    char *dir = test_tmpdir("st-tiny");
    static const st_dtype DT[] = {ST_F32, ST_F16, ST_BF16};
    int n = 0;
    for (int d = 0; d < 3; d++)
        for (int pre = 0; pre < 2; pre++)
            for (int full = 0; full < 2; full++)
                for (int al = 0; al < 2; al++)
                    for (int sp = 0; sp < 2; sp++) {
                        fixture_opts o;
                        fixture_tiny(&o);
                        o.dtype = DT[d];
                        o.prefix = pre ? "transformer." : NULL;
                        o.full_layout = full;
                        o.aligned = al;
                        static const uint64_t wr[] = {0, 7, 63}, pr[] = {15, 3};
                        o.sparse = sp;
                        o.wte_rows = wr;
                        o.n_wte_rows = 3;
                        o.wpe_rows = pr;
                        o.n_wpe_rows = 2;
                        char what[128], *path, err[256];
                        snprintf(what, sizeof what, "%s%s%s%s%s", st_dtype_name(o.dtype),
                                 pre ? " prefix" : "", full ? " full" : "", al ? " aligned" : "",
                                 sp ? " sparse" : "");
                        snprintf(err, sizeof err, "f%d.safetensors", n++);
                        path = path_join(dir, err);
                        cr_assert_eq(fixture_write(path, &o, err, sizeof err), 0, "%s", err);
                        st_file *f = NULL;
                        g2e_err e;
                        cr_assert_eq(st_open(&f, path, &e), 0, "%s: %s", what, e.msg);
                        cr_expect_eq(f->n_tensors, full ? 4 + 13 * o.n_layer : 2, "%s", what);
                        cr_expect_eq(f->data_start % 8, al ? 0 : 3, "%s", what);
                        struct stat sb;
                        cr_assert_eq(stat(path, &sb), 0);
                        cr_expect_eq((uint64_t)sb.st_size, f->data_start + f->data_len);
                        check_rows(f, &o, what);
                        st_close(f);
                        /* header only, then just the two embeddings mapped */
                        cr_assert_eq(st_open_header(&f, path, &e), 0, "%s: %s", what, e.msg);
                        cr_expect_null(f->map, "%s: st_open_header mapped the file", what);
                        float row[8];
                        const st_tensor *wte = &f->tensors[0];
                        cr_expect_null(wte->bytes);
                        cr_expect_eq(st_read_row_f32(f, wte, 0, row, &e), G2E_EINVAL, "%s: unmapped row read", what);
                        for (size_t i = 0; i < f->n_tensors; i++)
                            if (strstr(f->tensors[i].name, "wte.") || strstr(f->tensors[i].name, "wpe.")) {
                                cr_assert_eq(st_map(f, &f->tensors[i], &e), 0, "%s: %s", what, e.msg);
                                cr_assert_eq(st_map(f, &f->tensors[i], &e), 0, "%s: twice", what);
                            }
                        cr_expect_leq(f->n_ranges, 2, "%s: mapped %zu ranges", what, f->n_ranges);
                        check_rows(f, &o, what);
                        st_close(f);
                        free(path);
                    }
    free(dir);
}

static void gpt2_variant(st_dtype dt, const char *prefix)
{
    char *dir = test_tmpdir("st-gpt2");
    char *path = path_join(dir, "model.safetensors"), err[256];
    fixture_opts o;
    fixture_gpt2(&o, dt, prefix);
    cr_assert_eq(fixture_write(path, &o, err, sizeof err), 0, "%s", err);
    st_file *f = NULL;
    g2e_err e;
    cr_assert_eq(st_open(&f, path, &e), 0, "%s", e.msg);
    cr_expect_eq(f->n_tensors, FIXTURE_GPT2_N_TENSORS);
    /* independent arithmetic: 124,439,808 parameters (GPT-2 small, with attn.bias masks) */
    uint64_t params = 50257ull * 768 + 1024ull * 768 + 2 * 768 +
                      12 * (4 * 768 + 1024ull * 1024 + 768ull * 2304 + 2304 + 768ull * 768 + 768 +
                            768ull * 3072 + 3072 + 3072ull * 768 + 768);
    cr_expect_eq(f->data_len, params * (dt == ST_F32 ? 4 : 2));
    if (dt == ST_F32 && !prefix) {
        cr_expect_eq(f->header_len, FIXTURE_GPT2_HEADER_LEN);
        cr_expect_eq(f->data_start, 14291);
        cr_expect_eq(f->data_start + f->data_len, FIXTURE_GPT2_FILE_SIZE);
    }
    cr_expect_neq(f->data_start % 4, 0, "data start %llu is aligned", (unsigned long long)f->data_start);
    cr_expect_str_eq(st_meta_get(f, "format"), "pt");
    int name_order = 1;
    for (size_t i = 1; i < f->n_tensors; i++)
        if (strcmp(f->tensors[i - 1].name, f->tensors[i].name) > 0) name_order = 0;
    cr_expect(!name_order, "tensors are stored in name order");
    char nm[64];
    snprintf(nm, sizeof nm, "%sh.11.attn.bias", prefix ? prefix : "");
    const st_tensor *ab = st_find(f, nm);
    cr_assert_not_null(ab, "%s missing", nm);
    cr_expect(ab->ndim == 4 && ab->shape[0] == 1 && ab->shape[1] == 1 && ab->shape[2] == 1024 &&
              ab->shape[3] == 1024);
    snprintf(nm, sizeof nm, "%sh.3.mlp.c_proj.weight", prefix ? prefix : "");
    const st_tensor *cp = st_find(f, nm);
    cr_assert_not_null(cp);
    cr_expect(cp->ndim == 2 && cp->shape[0] == 3072 && cp->shape[1] == 768);
    snprintf(nm, sizeof nm, "%sln_f.bias", prefix ? prefix : "");
    cr_expect_not_null(st_find(f, nm));
    check_rows(f, &o, st_dtype_name(dt));
    st_close(f);
    unlink(path);
    rmdir(dir);
    free(path);
    free(dir);
}

/* "Opening a 548 MB file must not read it": count the page faults st_open causes. Reading
 * the data section would touch 548,090,880 / 4096 = 133,812 pages; the header is 4. The
 * bound leaves room for the allocator (and ASan's shadow memory). Not a timing. */
Test(safetensors, open_touches_only_the_header_pages)
{
    char *dir = test_tmpdir("st-faults");
    char *path = path_join(dir, "model.safetensors"), err[256];
    fixture_opts o;
    fixture_gpt2(&o, ST_F32, NULL);
    cr_assert_eq(fixture_write(path, &o, err, sizeof err), 0, "%s", err);
    struct rusage a, b;
    st_file *f = NULL;
    g2e_err e;
    getrusage(RUSAGE_SELF, &a);
    int rc = st_open(&f, path, &e);
    getrusage(RUSAGE_SELF, &b);
    cr_assert_eq(rc, 0, "%s", e.msg);
    long faults = (b.ru_minflt - a.ru_minflt) + (b.ru_majflt - a.ru_majflt);
    cr_expect_lt(faults, 5000, "st_open caused %ld page faults", faults);
    st_close(f);
    unlink(path);
    rmdir(dir);
    free(path);
    free(dir);
}

Test(safetensors, real_shape_f32) { gpt2_variant(ST_F32, NULL); }
Test(safetensors, real_shape_f32_prefixed) { gpt2_variant(ST_F32, "transformer."); }
Test(safetensors, real_shape_f16) { gpt2_variant(ST_F16, NULL); }
Test(safetensors, real_shape_bf16_prefixed) { gpt2_variant(ST_BF16, "transformer."); }

/* ------------------------------------------------------------------------------------ */

/* Known half / bfloat16 bit patterns and their float32 bit patterns, worked out by hand. */
static const struct { uint16_t h; uint32_t f; } F16[] = {
    {0x0000, 0x00000000}, {0x8000, 0x80000000},
    {0x0001, 0x33800000},   /* smallest subnormal 2^-24 */
    {0x8001, 0xB3800000},
    {0x0002, 0x34000000},   /* 2^-23 */
    {0x0003, 0x34400000},   /* 3 * 2^-24 */
    {0x0200, 0x38000000},   /* 2^-15 */
    {0x03FF, 0x387FC000},   /* largest subnormal 1023 * 2^-24 */
    {0x0400, 0x38800000},   /* smallest normal 2^-14 */
    {0x3555, 0x3EAAA000},   /* 0.333251953125 */
    {0x3C00, 0x3F800000},   /* 1 */
    {0x3C01, 0x3F802000},   /* 1 + 2^-10 */
    {0xC000, 0xC0000000},   /* -2 */
    {0x4248, 0x40490000},   /* 3.140625 */
    {0x7BFF, 0x477FE000},   /* 65504 */
    {0x7C00, 0x7F800000},   /* +inf */
    {0xFC00, 0xFF800000},   /* -inf */
    {0x7E00, 0x7FC00000},   /* quiet NaN */
    {0x7C01, 0x7F802000},   /* signalling NaN, payload kept */
    {0xFFFF, 0xFFFFE000},   /* negative NaN, full payload */
};
static const struct { uint16_t h; uint32_t f; } BF16[] = {
    {0x0000, 0x00000000}, {0x8000, 0x80000000},
    {0x0001, 0x00010000},   /* float32 subnormal 2^-133 */
    {0x007F, 0x007F0000},   /* largest bf16 subnormal */
    {0x0080, 0x00800000},   /* smallest normal 2^-126 */
    {0x3F80, 0x3F800000}, {0xBF80, 0xBF800000},
    {0x4049, 0x40490000},   /* 3.140625 */
    {0x7F7F, 0x7F7F0000},   /* largest finite */
    {0x7F80, 0x7F800000}, {0xFF80, 0xFF800000},
    {0x7FC0, 0x7FC00000}, {0x7F81, 0x7F810000},
};

Test(safetensors, f16_bf16_known_patterns_direct_and_through_a_file)
{
    for (size_t i = 0; i < sizeof F16 / sizeof F16[0]; i++)
        cr_expect_eq(st_f16_to_f32_bits(F16[i].h), F16[i].f, "F16 %04x -> %08x, expected %08x",
                     F16[i].h, st_f16_to_f32_bits(F16[i].h), F16[i].f);
    for (size_t i = 0; i < sizeof BF16 / sizeof BF16[0]; i++)
        cr_expect_eq(st_bf16_to_f32_bits(BF16[i].h), BF16[i].f, "BF16 %04x", BF16[i].h);

    /* The same through st_read_row_f32 from an odd data offset (unaligned): one [1, n] F16
     * tensor and one [1, m] BF16 tensor. */
    size_t n = sizeof F16 / sizeof F16[0], m = sizeof BF16 / sizeof BF16[0];
    char h[256];
    int hl = snprintf(h, sizeof h,
                      "{\"a\":{\"dtype\":\"F16\",\"shape\":[1,%zu],\"data_offsets\":[0,%zu]},"
                      "\"b\":{\"dtype\":\"BF16\",\"shape\":[1,%zu],\"data_offsets\":[%zu,%zu]}}",
                      n, 2 * n, m, 2 * n, 2 * (n + m));
    while ((8 + hl) % 2 == 0) h[hl++] = ' ';
    size_t len;
    uint8_t *b = build((uint64_t)hl, h, (size_t)hl, 2 * (n + m), &len);
    uint8_t *d = b + 8 + hl;
    for (size_t i = 0; i < n; i++) { d[2 * i] = (uint8_t)F16[i].h; d[2 * i + 1] = (uint8_t)(F16[i].h >> 8); }
    d += 2 * n;
    for (size_t i = 0; i < m; i++) { d[2 * i] = (uint8_t)BF16[i].h; d[2 * i + 1] = (uint8_t)(BF16[i].h >> 8); }
    st_file *f = NULL;
    g2e_err e;
    cr_assert_eq(st_parse_buffer(&f, b, len, &e), 0, "%s", e.msg);
    cr_expect_eq(f->data_start % 2, 1);
    float out[32];
    cr_assert_eq(st_read_row_f32(f, st_find(f, "a"), 0, out, &e), 0, "%s", e.msg);
    for (size_t i = 0; i < n; i++) cr_expect_eq(bits(out[i]), F16[i].f, "F16 %04x via file", F16[i].h);
    cr_assert_eq(st_read_row_f32(f, st_find(f, "b"), 0, out, &e), 0, "%s", e.msg);
    for (size_t i = 0; i < m; i++) cr_expect_eq(bits(out[i]), BF16[i].f, "BF16 %04x via file", BF16[i].h);
    st_close(f);
    free(b);
}

Test(safetensors, all_65536_halves_match_an_ldexp_decoding)
{
    for (uint32_t h = 0; h < 65536; h++) {
        uint32_t got = st_f16_to_f32_bits((uint16_t)h);
        int s = h >> 15, ex = (h >> 10) & 31, man = h & 1023;
        float got_f;
        memcpy(&got_f, &got, 4);
        if (ex == 31) {
            if (man) cr_assert(isnan(got_f) && (got >> 31) == (uint32_t)s, "%04x", h);
            else cr_assert(isinf(got_f) && (got_f < 0) == s, "%04x", h);
            continue;
        }
        double v = ex ? ldexp(1024.0 + man, ex - 25) : ldexp((double)man, -24);
        if (s) v = -v;
        float want = (float)v; /* exact: every half is a float */
        cr_assert_eq(got, bits(want), "%04x -> %08x, expected %08x", h, got, bits(want));
    }
    for (uint32_t h = 0; h < 65536; h++) {
        uint32_t got = st_bf16_to_f32_bits((uint16_t)h);
        int ex = (h >> 7) & 255, man = h & 127;
        if (ex == 255) continue; /* inf/NaN: the table above */
        double v = ex ? ldexp(128.0 + man, ex - 134) : ldexp((double)man, -133);
        if (h >> 15) v = -v;
        float want = (float)v;
        cr_assert_eq(got, bits(want), "bf16 %04x", h);
    }
}

#ifdef __FLT16_MAX__
/* The fixture's own float32 -> half rounding (used to compute expected values) against the
 * compiler's _Float16 conversion, on random floats and on every tie near each half. */
Test(safetensors, fixture_f16_rounding_matches_the_compiler)
{
    uint64_t s = 12345;
    for (int i = 0; i < 2000000; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t u = (uint32_t)(s >> 32);
        if (i & 1) u = (u & 0x80000000u) | (0x33000000u + (u & 0x0FFFFFFFu)); /* near half range */
        float v;
        memcpy(&v, &u, 4);
        if (isnan(v)) continue;
        _Float16 c = (_Float16)v;
        uint16_t cb;
        memcpy(&cb, &c, 2);
        cr_assert_eq(fixture_f32_to_f16(v), cb, "%08x: %04x vs %04x", u, fixture_f32_to_f16(v), cb);
    }
}
#endif

Test(safetensors, fixture_bf16_rounding_ties_to_even)
{
    cr_expect_eq(fixture_f32_to_bf16(1.0f), 0x3F80);
    float v;
    uint32_t u = 0x3F808000; /* halfway between 0x3F80 and 0x3F81: to even 0x3F80 */
    memcpy(&v, &u, 4);
    cr_expect_eq(fixture_f32_to_bf16(v), 0x3F80);
    u = 0x3F818000;          /* halfway between 0x3F81 and 0x3F82: to even 0x3F82 */
    memcpy(&v, &u, 4);
    cr_expect_eq(fixture_f32_to_bf16(v), 0x3F82);
    u = 0x3F808001;
    memcpy(&v, &u, 4);
    cr_expect_eq(fixture_f32_to_bf16(v), 0x3F81);
    u = 0x7F7FFFFF;          /* FLT_MAX rounds up to inf */
    memcpy(&v, &u, 4);
    cr_expect_eq(fixture_f32_to_bf16(v), 0x7F80);
}

/* ------------------------------------------------------------------------------------ */

Test(safetensors, row_errors)
{
    const char *h = "{\"m\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24]},"
                    "\"v\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[24,36]},"
                    "\"i\":{\"dtype\":\"I32\",\"shape\":[1,1],\"data_offsets\":[36,40]},"
                    "\"e\":{\"dtype\":\"F16\",\"shape\":[2,0],\"data_offsets\":[40,40]}}";
    size_t len;
    uint8_t *b = build(strlen(h), h, strlen(h), 40, &len);
    st_file *f = NULL;
    g2e_err e;
    cr_assert_eq(st_parse_buffer(&f, b, len, &e), 0, "%s", e.msg);
    float out[3] = {7, 7, 7};
    cr_expect_eq(st_read_row_f32(f, st_find(f, "m"), 1, out, &e), 0);
    cr_expect_eq(st_read_row_f32(f, st_find(f, "m"), 2, out, &e), ST_E_RANGE);
    cr_expect(strstr(e.msg, "'m'") && strstr(e.msg, "row 2") && strstr(e.msg, "2 rows"), "%s", e.msg);
    cr_expect_eq(st_read_row_f32(f, st_find(f, "m"), UINT64_MAX, out, &e), ST_E_RANGE);
    cr_expect_eq(st_read_row_f32(f, st_find(f, "v"), 0, out, &e), ST_E_SHAPE);
    cr_expect(strstr(e.msg, "'v'") && strstr(e.msg, "1 dimensions"), "%s", e.msg);
    cr_expect_eq(st_read_row_f32(f, st_find(f, "i"), 0, out, &e), ST_E_DTYPE_UNSUPPORTED);
    cr_expect(strstr(e.msg, "'i'") && strstr(e.msg, "I32"), "%s", e.msg);
    cr_expect_eq(st_read_row_f32(f, st_find(f, "e"), 1, out, &e), 0); /* zero-width row */
    cr_expect_null(st_find(f, "nope"));
    cr_expect_eq(st_tensor_numel(st_find(f, "m")) * st_dtype_size(st_find(f, "m")->dtype), 24);
    cr_expect_eq(st_tensor_numel(st_find(f, "v")), 3);
    /* sorted by offset */
    cr_expect_str_eq(f->tensors[0].name, "m");
    cr_expect_str_eq(f->tensors[3].name, "e");
    st_close(f);
    st_close(NULL);
    free(b);
}

Test(safetensors, open_errors_name_the_path)
{
    char *dir = test_tmpdir("st-open");
    char *missing = path_join(dir, "missing.safetensors");
    char *empty = path_join(dir, "empty.safetensors");
    write_file(empty, "", 0);
    st_file *f = (st_file *)1;
    g2e_err e;
    cr_expect_eq(st_open(&f, missing, &e), ST_E_OPEN);
    cr_expect_null(f);
    cr_expect(strstr(e.msg, missing) != NULL, "%s", e.msg);
    cr_expect_eq(st_open(&f, dir, &e), ST_E_OPEN);
    cr_expect(strstr(e.msg, "not a regular file") != NULL, "%s", e.msg);
    cr_expect_eq(st_open(&f, empty, &e), ST_E_TOO_SHORT);
    cr_expect(strstr(e.msg, empty) != NULL && strstr(e.msg, "0 bytes"), "%s", e.msg);
    char *bad = path_join(dir, "bad.safetensors");
    write_file(bad, "\x02\0\0\0\0\0\0\0[]", 10);
    cr_expect_eq(st_open(&f, bad, &e), ST_E_HEADER_NOT_OBJECT);
    cr_expect(strstr(e.msg, bad) != NULL, "%s", e.msg);
    cr_expect_eq(st_open(NULL, bad, &e), G2E_EINVAL);
    cr_expect_eq(st_open(&f, bad, NULL), ST_E_HEADER_NOT_OBJECT); /* NULL err accepted */
    free(bad);
    free(missing);
    free(empty);
    free(dir);
}

Test(safetensors, dtype_names_and_sizes)
{
    static const struct { const char *n; size_t s; } D[] = {
        {"BOOL", 1}, {"U8", 1}, {"I8", 1}, {"F8_E5M2", 1}, {"F8_E4M3", 1}, {"I16", 2},
        {"U16", 2}, {"F16", 2}, {"BF16", 2}, {"I32", 4}, {"U32", 4}, {"F32", 4},
        {"F64", 8}, {"I64", 8}, {"U64", 8}};
    for (size_t i = 0; i < sizeof D / sizeof D[0]; i++) {
        int d = st_dtype_from_name(D[i].n);
        cr_assert_geq(d, 0, "%s", D[i].n);
        cr_expect_str_eq(st_dtype_name((st_dtype)d), D[i].n);
        cr_expect_eq(st_dtype_size((st_dtype)d), D[i].s, "%s", D[i].n);
    }
    cr_expect_eq(st_dtype_from_name("F128"), -1);
    cr_expect_eq(st_dtype_from_name(NULL), -1);
    cr_expect_str_eq(st_dtype_name(ST_DTYPE_COUNT), "?");
}

/* ------------------------------------------------------------------------------------
 * The header parser against the cJSON-based reader it replaced (tests/st_ref_cjson.c). */

/* The header bytes of a fixture file (written to a temp dir and read back). */
static uint8_t *fixture_header(const fixture_opts *o, size_t *hlen, uint64_t *data_len)
{
    char err[256], *dir = test_tmpdir("st-hdr"), *path = path_join(dir, "f.safetensors");
    cr_assert_eq(fixture_write(path, o, err, sizeof err), 0, "%s", err);
    FILE *fp = fopen(path, "rb");
    cr_assert(fp != NULL);
    uint8_t pre[8];
    cr_assert_eq(fread(pre, 1, 8, fp), 8);
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--) n = n << 8 | pre[i];
    uint8_t *h = malloc(n + 1);
    cr_assert(h != NULL);
    cr_assert_eq(fread(h, 1, n, fp), n);
    fseek(fp, 0, SEEK_END);
    *data_len = (uint64_t)ftell(fp) - 8 - n;
    fclose(fp);
    unlink(path);
    rmdir(dir);
    free(path);
    free(dir);
    *hlen = (size_t)n;
    return h;
}

/* Counts a disagreement (and shows the first few). */
static size_t agree(const uint8_t *h, size_t n, uint64_t data_len, const char *what)
{
    char why[1400];
    if (st_ref_agree(h, n, data_len, why, sizeof why)) return 0;
    static int shown;
    if (shown++ < 12)
        cr_log_error("%s (%zu bytes '%.*s'): %s", what, n, (int)(n < 120 ? n : 120), (const char *)h, why);
    return 1;
}

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Random edits of h: bytes replaced by ones that matter to JSON, deleted, inserted, or a
 * range repeated; each result compared. */
static size_t agree_mutations(const uint8_t *h, size_t n, uint64_t data_len, int rounds, uint64_t seed)
{
    static const char BYTES[] = "\"\\{}[],: 019-+.eEutrnfalsx/\t\n\r\x01\x7f\x80\xc3\xa9\xed\xef";
    size_t diffs = 0;
    uint8_t *m = malloc(2 * n + 16);
    cr_assert(m != NULL);
    for (int r = 0; r < rounds; r++) {
        memcpy(m, h, n);
        size_t len = n;
        int edits = 1 + (int)(rng_next(&seed) % 3);
        for (int k = 0; k < edits && len > 0; k++) {
            size_t at = (size_t)(rng_next(&seed) % len);
            uint8_t b = (uint8_t)BYTES[rng_next(&seed) % (sizeof BYTES - 1)];
            switch (rng_next(&seed) % 4) {
            case 0: m[at] = b; break;
            case 1: memmove(m + at, m + at + 1, len - at - 1); len--; break;
            case 2: memmove(m + at + 1, m + at, len - at); m[at] = b; len++; break;
            default: {
                size_t span = 1 + (size_t)(rng_next(&seed) % 8);
                if (at + span > len || len + span > 2 * n + 16) break;
                memmove(m + at + span, m + at, len - at);
                len += span;
            }
            }
        }
        diffs += agree(m, len, data_len, "mutation");
    }
    free(m);
    return diffs;
}

Test(safetensors, header_parser_agrees_with_the_cjson_reader)
{
    size_t diffs = 0, cases = 0;
    /* the fixtures' headers, every prefix of the small ones, and edits of them */
    for (int v = 0; v < 4; v++) {
        fixture_opts o;
        static const char *const META[] = {"format", "pt", "k\xc3\xa9y", "v\\\"al\n", NULL};
        if (v < 2) fixture_gpt2(&o, v ? ST_BF16 : ST_F32, v ? "transformer." : NULL);
        else fixture_tiny(&o);
        if (v == 3) o.meta = META;
        size_t n;
        uint64_t dl;
        uint8_t *h = fixture_header(&o, &n, &dl);
        diffs += agree(h, n, dl, "fixture"), cases++;
        for (size_t k = 0; k < n && v >= 2; k++)
            diffs += agree(h, k, dl, "prefix"), cases++;
        int rounds = v < 2 ? 200 : 20000;
        diffs += agree_mutations(h, n, dl, rounds, 0x9E3779B97F4A7C15ull + (uint64_t)v);
        cases += (size_t)rounds;
        free(h);
    }
    /* every malformed case of the table above */
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++, cases++)
        if (!BAD[i].raw) diffs += agree((const uint8_t *)BAD[i].hdr, BAD[i].hdr_len, BAD[i].data_len, BAD[i].what);
    /* the fuzz target's seeds: their header (when the prefix fits) and all their bytes */
    DIR *d = opendir(G2E_SRCDIR "/tests/fuzz/seeds-safetensors");
    cr_assert(d != NULL);
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char *path = path_join(G2E_SRCDIR "/tests/fuzz/seeds-safetensors", e->d_name);
        size_t len;
        uint8_t *b = (uint8_t *)read_file(path, &len);
        cr_assert(b != NULL, "%s", path);
        uint64_t n = 0;
        for (int i = 7; i >= 0 && len >= 8; i--) n = n << 8 | b[i];
        if (len >= 8 && n <= len - 8) diffs += agree(b + 8, (size_t)n, len - 8 - n, e->d_name), cases++;
        diffs += agree(b, len, 0, e->d_name), cases++;
        free(b);
        free(path);
    }
    closedir(d);
    cr_expect_eq(diffs, 0, "%zu of %zu headers parsed differently", diffs, cases);
}

/* ------------------------------------------------------------------------------------
 * The header parser's edges: RFC 8259 strings and numbers, nesting, truncation. */

/* Parses hdr (a header alone) against data_len bytes; the status, e's message. */
static int parse_hdr(const char *hdr, size_t len, uint64_t data_len, st_file **f, g2e_err *e)
{
    g2e_clear(e);
    *f = NULL;
    return st_parse_header(f, (const uint8_t *)hdr, len, data_len, e);
}

Test(safetensors, strings_decode_every_escape_and_surrogate_pair)
{
    /* a name with every escape, raw UTF-8, BMP and astral \u escapes; escaped keys and
     * dtype; metadata with escapes in key and value */
    static const char H[] =
        "{\"__metadata__\":{\"k\\u00e9y\":\"v\\/\\\"\\u20ac\"},"
        "\"a\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\u20AC\\ud83d\\ude00\xc3\xa9\xf0\x9f\x98\x80z\":"
        "{\"d\\u0074ype\":\"F\\u0033\\u0032\",\"sha\\u0070e\":[1],\"data_offsets\":[0,4]}}";
    static const char NAME[] = "a\"\\/\b\f\n\r\t\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xc3\xa9\xf0\x9f\x98\x80z";
    st_file *f;
    g2e_err e;
    cr_assert_eq(parse_hdr(H, sizeof H - 1, 4, &f, &e), 0, "%s", e.msg);
    cr_assert_eq(f->n_tensors, 1);
    cr_expect_str_eq(f->tensors[0].name, NAME);
    cr_expect_eq(f->tensors[0].dtype, ST_F32);
    cr_expect_str_eq(st_meta_get(f, "k\xc3\xa9y"), "v/\"\xe2\x82\xac");
    st_close(f);
    char why[1400];
    cr_expect(st_ref_agree((const uint8_t *)H, sizeof H - 1, 4, why, sizeof why), "%s", why);
}

/* A header {"<name>":{T1}}: the name's bytes start at offset 2. */
static char *named(const char *name)
{
    char *h = malloc(strlen(name) + sizeof T1 + 16);
    cr_assert(h != NULL);
    sprintf(h, "{\"%s\":{" T1 "}}", name);
    return h;
}

Test(safetensors, bad_escapes_and_lone_surrogates_are_refused_where_they_are)
{
    static const struct { const char *name; size_t at; } C[] = {
        {"\\ud83dx", 8},            /* high surrogate, then not an escape: at the 'x' */
        {"\\ud83d\\n", 9},          /* then another escape: at its 'n' */
        {"\\ude00", 2},             /* a low surrogate alone: at its backslash */
        {"\\ude00\\ud83d", 2},      /* a pair reversed */
        {"\\ud83d\\u0041", 8},      /* high, then not a low: at the second backslash */
        {"\\ud83d\\ud83d", 8},      /* high, then high */
        {"\\u00zz", 6},             /* not a hex digit: at it */
        {"\\u12", 6},               /* too few digits: at the quote */
        {"\\x", 3},                 /* no such escape: at the letter */
        {"\\U0041", 3},
        {"\\'", 3},
        {"\\0", 3},
    };
    for (size_t i = 0; i < sizeof C / sizeof C[0]; i++) {
        char *h = named(C[i].name), want[64];
        st_file *f;
        g2e_err e;
        int rc = parse_hdr(h, strlen(h), 4, &f, &e);
        cr_expect_eq(rc, ST_E_HEADER_JSON, "%s: %d %s", C[i].name, rc, e.msg);
        snprintf(want, sizeof want, "near header offset %zu of %zu", C[i].at, strlen(h));
        cr_expect(strstr(e.msg, want) != NULL, "%s: '%s' not in '%s'", C[i].name, want, e.msg);
        cr_expect_null(f);
        free(h);
    }
}

Test(safetensors, a_bad_hex_digit_no_longer_cuts_a_name_short)
{
    /* cJSON 1.7.15 reads \u00zz as U+0000, which ends the C string: the old reader accepted
     * this header with a tensor named "a". */
    char *h = named("a\\u00zzb");
    st_file *f;
    g2e_err e;
    cr_assert_eq(st_ref_parse_header(&f, (const uint8_t *)h, strlen(h), 4, &e), 0, "%s", e.msg);
    cr_expect_str_eq(f->tensors[0].name, "a");
    st_ref_close(f);
    cr_expect_eq(parse_hdr(h, strlen(h), 4, &f, &e), ST_E_HEADER_JSON, "%s", e.msg);
    cr_expect(strstr(e.msg, "offset 7 of") != NULL, "%s", e.msg);
    free(h);
}

/* {"t":{"dtype":"U8","shape":[<dim>,0],"data_offsets":[0,0]}}: the dimension at offset 28. */
static int parse_dim(const char *dim, st_file **f, g2e_err *e, size_t *len)
{
    char h[256];
    *len = (size_t)snprintf(h, sizeof h, "{\"t\":{\"dtype\":\"U8\",\"shape\":[%s,0],\"data_offsets\":[0,0]}}", dim);
    char why[1400];
    cr_expect(st_ref_agree((const uint8_t *)h, *len, 0, why, sizeof why), "%s: %s", dim, why);
    return parse_hdr(h, *len, 0, f, e);
}

Test(safetensors, numbers_are_rfc_8259_and_only_plain_integers_are_taken)
{
    static const char *const NOT_PLAIN[] = {"1.0", "1e3", "1E+3", "1e-0", "0.5e-2", "-0", "-1", "01", "-01", "00", "1.5"};
    for (size_t i = 0; i < sizeof NOT_PLAIN / sizeof NOT_PLAIN[0]; i++) {
        st_file *f;
        g2e_err e;
        size_t len;
        char want[64];
        cr_expect_eq(parse_dim(NOT_PLAIN[i], &f, &e, &len), ST_E_SHAPE, "%s: %s", NOT_PLAIN[i], e.msg);
        snprintf(want, sizeof want, "dimension 0 '%s' is not a plain non-negative integer", NOT_PLAIN[i]);
        cr_expect(strstr(e.msg, want) != NULL, "%s: %s", NOT_PLAIN[i], e.msg);
    }
    /* not JSON numbers at all: refused where the grammar breaks */
    static const struct { const char *dim; size_t at; } NOT_JSON[] = {
        {"1.", 30}, {"-", 29}, {"1e", 30}, {"1e+", 31}, {"--1", 29}, {"+1", 28}, {".5", 28},
        {"-.5", 29}, {"0x10", 29}, {"1.5.3", 31}, {"Infinity", 28}, {"NaN", 28}, {"1,", 30},
        {"tru", 31}, {"nul", 31},
    };
    for (size_t i = 0; i < sizeof NOT_JSON / sizeof NOT_JSON[0]; i++) {
        st_file *f;
        g2e_err e;
        size_t len;
        char want[64];
        cr_expect_eq(parse_dim(NOT_JSON[i].dim, &f, &e, &len), ST_E_HEADER_JSON, "%s: %s", NOT_JSON[i].dim, e.msg);
        snprintf(want, sizeof want, "near header offset %zu of %zu", NOT_JSON[i].at, len);
        cr_expect(strstr(e.msg, want) != NULL, "%s: '%s' not in '%s'", NOT_JSON[i].dim, want, e.msg);
    }
    /* 2^64-1 exactly; one more, and far more, are refused by name */
    st_file *f;
    g2e_err e;
    size_t len;
    cr_assert_eq(parse_dim("18446744073709551615", &f, &e, &len), 0, "%s", e.msg);
    cr_expect_eq(f->tensors[0].shape[0], UINT64_MAX);
    cr_expect_eq(f->tensors[0].shape[1], 0);
    st_close(f);
    cr_assert_eq(parse_dim("0", &f, &e, &len), 0, "%s", e.msg);
    cr_expect_eq(f->tensors[0].shape[0], 0);
    st_close(f);
    static const char *const HUGE[] = {"18446744073709551616", "99999999999999999999999",
                                       "1000000000000000000000000000000000000000000000000000000000",
                                       "1000000000000000000000000000000000000000000000000000000000000000000000"};
    for (size_t i = 0; i < sizeof HUGE / sizeof HUGE[0]; i++) {
        cr_expect_eq(parse_dim(HUGE[i], &f, &e, &len), ST_E_SHAPE, "%s: %s", HUGE[i], e.msg);
        cr_expect(strstr(e.msg, "larger than 2^64-1") != NULL, "%s", e.msg);
    }
}

/* {"__metadata__":{"k":[[[...]]]}} with `levels` arrays and objects open at the innermost
 * point, counting the header's own object. */
static char *nested(size_t levels, int in_tensor, size_t *len)
{
    char *h = malloc(2 * levels + 64);
    cr_assert(h != NULL);
    size_t k = (size_t)sprintf(h, in_tensor ? "{\"t\":" : "{\"__metadata__\":{\"k\":");
    size_t arrays = levels - (in_tensor ? 1 : 2);
    for (size_t i = 0; i < arrays; i++) h[k++] = '[';
    for (size_t i = 0; i < arrays; i++) h[k++] = ']';
    k += (size_t)sprintf(h + k, in_tensor ? "}" : "}}");
    *len = k;
    return h;
}

Test(safetensors, nesting_stops_at_1000_levels_without_recursion)
{
    for (int in_tensor = 0; in_tensor <= 1; in_tensor++) {
        size_t len;
        st_file *f;
        g2e_err e;
        char why[1400];
        /* 1000 levels: valid JSON, refused for what the value is */
        char *h = nested(1000, in_tensor, &len);
        int rc = parse_hdr(h, len, 0, &f, &e);
        cr_expect_eq(rc, in_tensor ? ST_E_TENSOR_NOT_OBJECT : ST_E_METADATA, "%s", e.msg);
        cr_expect(st_ref_agree((const uint8_t *)h, len, 0, why, sizeof why), "%s", why);
        free(h);
        /* 1001: refused as too deep, at the bracket that opens the 1001st level */
        h = nested(1001, in_tensor, &len);
        rc = parse_hdr(h, len, 0, &f, &e);
        cr_expect_eq(rc, ST_E_HEADER_JSON, "%s", e.msg);
        char want[96];
        snprintf(want, sizeof want, "more than 1000 deep (at header offset %zu)",
                 (in_tensor ? 5 : 21) + (size_t)(1001 - (in_tensor ? 1 : 2)) - 1);
        cr_expect(strstr(e.msg, want) != NULL, "'%s' not in '%s'", want, e.msg);
        cr_expect(st_ref_agree((const uint8_t *)h, len, 0, why, sizeof why), "%s", why);
        free(h);
        /* a million: the same, in constant stack */
        h = nested(1000000, in_tensor, &len);
        cr_expect_eq(parse_hdr(h, len, 0, &f, &e), ST_E_HEADER_JSON, "%s", e.msg);
        free(h);
    }
}

/* Every prefix of a valid header, cut before its object closes, is refused at its end
 * ("near header offset k of k"), or as cut UTF-8 when the cut splits a character. */
static void check_prefixes(const uint8_t *h, size_t n, uint64_t data_len, const char *what)
{
    size_t end = n;
    while (end > 0 && h[end - 1] != '}') end--;
    cr_assert_gt(end, 0);
    st_file *f;
    g2e_err e;
    cr_assert_eq(parse_hdr((const char *)h, end, data_len, &f, &e), 0, "%s: %s", what, e.msg);
    st_close(f);
    size_t bad = 0;
    for (size_t k = 0; k < end; k++) {
        char want[64];
        snprintf(want, sizeof want, "near header offset %zu of %zu)", k, k);
        int rc = parse_hdr((const char *)h, k, data_len, &f, &e);
        int ok = f == NULL && ((rc == ST_E_HEADER_JSON && strstr(e.msg, want)) ||
                               (rc == ST_E_HEADER_UTF8 && k > 0 && h[k] >= 0x80 && h[k] < 0xC0));
        if (!ok && bad++ < 5) cr_log_error("%s, first %zu bytes: %d %s", what, k, rc, e.msg);
    }
    cr_expect_eq(bad, 0, "%s: %zu of %zu prefixes", what, bad, end);
}

Test(safetensors, every_truncation_of_a_header_is_an_error_at_its_end)
{
    fixture_opts o;
    fixture_gpt2(&o, ST_F32, NULL);
    size_t n;
    uint64_t dl;
    uint8_t *h = fixture_header(&o, &n, &dl);
    check_prefixes(h, n, dl, "gpt2");
    free(h);
    static const char E[] =
        "{\"__metadata__\":{\"k\\u00e9y\":\"v\\/\\\"\\u20ac\", \"x\":\"\xf0\x9f\x98\x80\"} ,\n"
        "\"a\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\u20AC\\ud83d\\ude00\xc3\xa9z\" : "
        "{ \"dtype\" : \"F32\" , \"shape\" : [ 1 , 2 ] , \"data_offsets\" : [ 0 , 8 ] } ,"
        "\"e\":{\"dtype\":\"U8\",\"shape\":[],\"data_offsets\":[8,9]},"
        "\"z\":{\"dtype\":\"U8\",\"shape\":[0,5],\"data_offsets\":[9,9]}}";
    check_prefixes((const uint8_t *)E, sizeof E - 1, 9, "escapes and spaces");
}

/* Issue 38: a file people pass for weights that is another kind of file is named for what it
 * is (ST_E_FOREIGN), from its first bytes: PyTorch's zip and pickle checkpoints, GGUF, an
 * HTML page, text (with a byte order mark, Japanese, a character cut at 512 bytes). Bytes
 * that are none of these keep the length prefix's message. */
Test(safetensors, other_kinds_of_files_are_named)
{
    static const struct { const char *bytes; size_t n; const char *kind; } CASES[] = {
        {"PK\x03\x04\x14\x00\x00\x00\x08\x00", 10, "PyTorch checkpoint (a zip archive"},
        {"\x80\x02\x8a\x0alZ\xfc\x9c" "F\xf9 j\xa8P\x19.", 16, "PyTorch checkpoint (a Python pickle"},
        {"GGUF\x03\x00\x00\x00\x00\x00\x00\x00\x00", 13, "GGUF file"},
        {"\n  <!DOCTYPE html><html><body>Not Found</body></html>", 53, "HTML page"},
        {"<HTML><HEAD><TITLE>502</TITLE></HEAD></HTML>", 44, "HTML page"},
        {"# gpt2-embed\n\nGPT-2 embeddings.\n", 32, "text file"},
        {"\xEF\xBB\xBF" "犬が猫を追いかけた\n", 31, "text file"},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
        st_file *f = NULL;
        g2e_err e;
        cr_expect_eq(st_parse_buffer(&f, (const uint8_t *)CASES[i].bytes, CASES[i].n, &e), ST_E_FOREIGN,
                     "case %zu: %s", i, e.msg);
        cr_expect(strstr(e.msg, CASES[i].kind) && strstr(e.msg, "not a safetensors file"), "%s", e.msg);
        cr_expect(f == NULL);
    }
    /* a long text whose 512th byte falls inside a character is text too */
    char text[700];
    for (size_t k = 0; k + 3 <= sizeof text; k += 3)
        memcpy(text + k, "犬", 3);
    st_file *f = NULL;
    g2e_err e;
    cr_expect_eq(st_parse_buffer(&f, (const uint8_t *)text, 699, &e), ST_E_FOREIGN, "%s", e.msg);
    /* binary noise: the length prefix's own message */
    const uint8_t noise[16] = {0xff, 0xfe, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0, 0, 0, 0, 0, 0, 0, 0};
    cr_expect_eq(st_parse_buffer(&f, noise, 16, &e), ST_E_HEADER_TOO_LARGE, "%s", e.msg);
    /* the same from a file, mapped (st_open) and by its header alone (st_open_header) */
    char *dir = test_tmpdir("st-foreign"), *p = path_join(dir, "pytorch_model.bin");
    write_file(p, CASES[0].bytes, CASES[0].n);
    cr_expect_eq(st_open(&f, p, &e), ST_E_FOREIGN, "%s", e.msg);
    cr_expect(strstr(e.msg, "pytorch_model.bin: this is a PyTorch checkpoint"), "%s", e.msg);
    cr_expect_eq(st_open_header(&f, p, &e), ST_E_FOREIGN, "%s", e.msg);
    cr_expect(strstr(e.msg, "pytorch_model.bin: this is a PyTorch checkpoint"), "%s", e.msg);
    free(p), free(dir);
}
