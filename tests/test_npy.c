/* SPDX-License-Identifier: MIT */
/* test_npy.c — the .npy writer and reader against NumPy itself (Debian's python3-numpy,
 * run as /usr/bin/python3) and against the format's spec, byte by byte. */
#include "npy.h"
#include "support.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PY "/usr/bin/python3"

/* Runs python -c script with extra arguments; returns the result (caller frees). */
static run_result py(const char *script, const char *a1, const char *a2, const char *a3)
{
    char *argv[] = {PY, "-c", (char *)script, (char *)a1, (char *)a2, (char *)a3, NULL};
    return run_argv(argv, NULL, 0, NULL, NULL);
}

/* ---- the header, byte by byte ---- */

/* The header numpy itself writes for a float32 C-order array of this shape (a Python
 * tuple literal), through its public write_array_header_1_0. */
static unsigned char *numpy_header(const char *shape_literal, size_t *len)
{
    const char *script =
        "import sys, io, ast, numpy.lib.format as f\n"
        "b = io.BytesIO()\n"
        "f.write_array_header_1_0(b, {'descr': '<f4', 'fortran_order': False,"
        " 'shape': ast.literal_eval(sys.argv[1])})\n"
        "sys.stdout.write(b.getvalue().hex())\n";
    run_result r = py(script, shape_literal, NULL, NULL);
    cr_assert_eq(r.status, 0, "python failed: %s", r.err);
    size_t n = r.out_len / 2;
    unsigned char *h = malloc(n);
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        sscanf(r.out + 2 * i, "%2x", &v);
        h[i] = (unsigned char)v;
    }
    run_free(&r);
    *len = n;
    return h;
}

static void check_header(const size_t *shape, int ndim, const char *literal)
{
    unsigned char ours[NPY_HEADER_MAX];
    size_t len = 0;
    g2e_err e;
    cr_assert_eq(npy_header_f32(shape, ndim, ours, sizeof ours, &len, &e), 0, "%s", e.msg);
    size_t ref_len;
    unsigned char *ref = numpy_header(literal, &ref_len);
    cr_expect_eq(len, ref_len, "shape %s: %zu header bytes, numpy writes %zu", literal, len, ref_len);
    cr_expect(len == ref_len && memcmp(ours, ref, len) == 0, "shape %s: header differs from numpy's",
              literal);
    /* the spec's own rules, independently of numpy's version */
    cr_expect(memcmp(ours, "\x93NUMPY\x01\x00", 8) == 0);
    cr_expect_eq((size_t)(ours[8] | ours[9] << 8), len - 10);
    cr_expect_eq(len % 64, 0);
    cr_expect_eq(ours[len - 1], '\n');
    free(ref);
}

Test(npy, header_matches_numpy_byte_by_byte)
{
    check_header((size_t[]){3, 4}, 2, "(3, 4)");
    check_header((size_t[]){5}, 1, "(5,)");
    check_header((size_t[]){0}, 1, "(0,)");
    check_header((size_t[]){1024, 768}, 2, "(1024, 768)");
    check_header((size_t[]){2, 3, 4, 5}, 4, "(2, 3, 4, 5)");
    check_header((size_t[]){3, 1024, 768}, 3, "(3, 1024, 768)");
    check_header((size_t[]){123456789012, 0}, 2, "(123456789012, 0)");
    check_header((size_t[]){18446744073709551615u / 8, 1}, 2, "(2305843009213693951, 1)");
}

Test(npy, header_alignment_edge_where_numpy_adds_a_whole_block)
{
    /* Find a shape whose dict lands exactly on a 64-byte boundary, where numpy pads a
     * full extra 64 bytes; check that one too. */
    int found = 0;
    /* (1, 0, c, d): numpy's growth room makes the first dimension's digits cancel out,
     * the zero keeps the size finite, and c, d of 1..19 digits sweep the length */
    for (int dc = 1; dc <= 19 && !found; dc++) {
        for (int dd = 1; dd <= 19 && !found; dd++) {
            size_t c = 1, d = 1;
            for (int k = 1; k < dc; k++) c *= 10;
            for (int k = 1; k < dd; k++) d *= 10;
            char lit[96];
            snprintf(lit, sizeof lit, "(1, 0, %zu, %zu)", c, d);
            size_t dict = strlen("{'descr': '<f4', 'fortran_order': False, 'shape': ") +
                          strlen(lit) + 3 + 20;
            if ((10 + dict + 1) % 64 == 0) {
                check_header((size_t[]){1, 0, c, d}, 4, lit);
                unsigned char h[NPY_HEADER_MAX];
                size_t len;
                npy_header_f32((size_t[]){1, 0, c, d}, 4, h, sizeof h, &len, NULL);
                cr_expect_eq(len, 10 + dict + 1 + 64);
                found = 1;
            }
        }
    }
    cr_expect(found, "no aligned shape found to test");
}

Test(npy, header_errors)
{
    unsigned char h[NPY_HEADER_MAX];
    size_t len;
    g2e_err e;
    cr_expect_eq(npy_header_f32((size_t[]){1}, 0, h, sizeof h, &len, &e), NPY_E_SHAPE);
    cr_expect_eq(npy_header_f32((size_t[]){1, 1, 1, 1, 1}, 5, h, sizeof h, &len, &e), NPY_E_SHAPE);
    cr_expect_eq(npy_header_f32((size_t[]){SIZE_MAX / 2, 3}, 2, h, sizeof h, &len, &e), NPY_E_SHAPE);
    cr_expect(strstr(e.msg, "overflow") != NULL, "%s", e.msg);
    cr_expect_eq(npy_header_f32((size_t[]){3, 4}, 2, h, 100, &len, &e), G2E_EINVAL);
}

/* ---- writing, loaded back by numpy ---- */

Test(npy, written_file_loads_in_numpy_bit_exact)
{
    char *dir = test_tmpdir("npy");
    char *npy = path_join(dir, "a.npy"), *raw = path_join(dir, "a.raw");
    enum { T = 7, C = 5 };
    float v[T * C];
    uint32_t bits[T * C] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x00000001u,
                            0x7f7fffffu, 0x3f800000u, 0xbf800000u, 0x3dcccccdu, 0x7fc00000u};
    for (int i = 10; i < T * C; i++)
        bits[i] = (uint32_t)i * 2654435761u;   /* spread-out bit patterns */
    memcpy(v, bits, sizeof v);
    /* the raw bytes, little-endian, written independently of npy.c */
    FILE *f = fopen(raw, "wb");
    for (int i = 0; i < T * C; i++) {
        unsigned char b[4] = {(unsigned char)bits[i], (unsigned char)(bits[i] >> 8),
                              (unsigned char)(bits[i] >> 16), (unsigned char)(bits[i] >> 24)};
        fwrite(b, 1, 4, f);
    }
    fclose(f);
    /* the npy, streamed row by row */
    f = fopen(npy, "wb");
    npy_writer w;
    g2e_err e;
    cr_assert_eq(npy_writer_begin(&w, f, (size_t[]){T, C}, 2, &e), 0, "%s", e.msg);
    for (int t = 0; t < T; t++)
        cr_assert_eq(npy_writer_put(&w, v + t * C, C, &e), 0, "%s", e.msg);
    cr_assert_eq(npy_writer_end(&w, &e), 0, "%s", e.msg);
    cr_assert_eq(fclose(f), 0);

    const char *script =
        "import sys, numpy as np\n"
        "a = np.load(sys.argv[1])\n"
        "b = np.fromfile(sys.argv[2], dtype='<u4').reshape(7, 5)\n"
        "assert a.dtype == np.float32, a.dtype\n"
        "assert a.shape == (7, 5), a.shape\n"
        "assert a.flags['C_CONTIGUOUS']\n"
        "assert (a.view('<u4') == b).all()\n"
        "print('ok')\n";
    run_result r = py(script, npy, raw, NULL);
    cr_expect_eq(r.status, 0, "numpy check failed: %s", r.err);
    cr_expect_str_eq(r.out, "ok\n");
    run_free(&r);
    free(npy), free(raw), free(dir);
}

Test(npy, every_rank_and_empty_arrays_load_in_numpy)
{
    char *dir = test_tmpdir("npy-ranks");
    static const size_t shapes[][4] = {{6}, {2, 3}, {2, 1, 3}, {1, 2, 1, 3}, {0}, {4, 0}};
    static const int ndims[] = {1, 2, 3, 4, 1, 2};
    static const char *lits[] = {"(6,)", "(2, 3)", "(2, 1, 3)", "(1, 2, 1, 3)", "(0,)", "(4, 0)"};
    float v[6] = {0.5f, -1.25f, 3.0f, 1e-3f, -0.0f, 65504.0f};
    for (int k = 0; k < 6; k++) {
        char name[16];
        snprintf(name, sizeof name, "r%d.npy", k);
        char *p = path_join(dir, name);
        FILE *f = fopen(p, "wb");
        g2e_err e;
        cr_assert_eq(npy_write_f32(f, v, shapes[k], ndims[k], &e), 0, "%s", e.msg);
        fclose(f);
        const char *script =
            "import sys, ast, numpy as np\n"
            "a = np.load(sys.argv[1])\n"
            "s = ast.literal_eval(sys.argv[2])\n"
            "assert a.shape == s and a.dtype == np.float32, (a.shape, a.dtype)\n"
            "ref = np.array([0.5, -1.25, 3.0, 1e-3, -0.0, 65504.0], dtype=np.float32)\n"
            "assert (a.ravel() == ref[:a.size]).all()\n";
        run_result r = py(script, p, lits[k], NULL);
        cr_expect_eq(r.status, 0, "shape %s: %s", lits[k], r.err);
        run_free(&r);
        free(p);
    }
    free(dir);
}

Test(npy, writer_counts_values)
{
    char *dir = test_tmpdir("npy-count");
    char *p = path_join(dir, "c.npy");
    FILE *f = fopen(p, "wb");
    npy_writer w;
    g2e_err e;
    float row[3] = {1, 2, 3};
    cr_assert_eq(npy_writer_begin(&w, f, (size_t[]){2, 3}, 2, &e), 0);
    cr_expect_eq(npy_writer_put(&w, row, 3, &e), 0);
    cr_expect_eq(npy_writer_end(&w, &e), NPY_E_STATE, "end after 3 of 6 values must fail");
    cr_expect(strstr(e.msg, "3 values written") != NULL, "%s", e.msg);
    cr_expect_eq(npy_writer_put(&w, row, 3, &e), 0);
    cr_expect_eq(npy_writer_put(&w, row, 1, &e), NPY_E_STATE, "a 7th value must be refused");
    cr_expect_eq(npy_writer_end(&w, &e), 0);
    fclose(f);
    npy_writer z = {0};
    cr_expect_eq(npy_writer_put(&z, row, 1, &e), NPY_E_STATE);
    free(p), free(dir);
}

Test(npy, write_error_is_reported)
{
    FILE *f = fopen("/dev/full", "wb");
    cr_assert(f != NULL);
    setvbuf(f, NULL, _IONBF, 0);
    g2e_err e;
    float v[2] = {1, 2};
    cr_expect_eq(npy_write_f32(f, v, (size_t[]){2}, 1, &e), NPY_E_IO);
    fclose(f);
}

/* ---- reading ---- */

/* A .npy in memory: the standard preamble around `dict` (padded to 64, '\n'), then data. */
static unsigned char *make_npy(const char *dict, int major, const void *data, size_t dlen,
                               size_t *len)
{
    size_t lsize = major == 1 ? 2 : 4, pre = 8 + lsize, dl = strlen(dict);
    size_t hlen = dl + 1;
    while ((pre + hlen) % 64)
        hlen++;
    *len = pre + hlen + dlen;
    unsigned char *b = malloc(*len);
    memcpy(b, "\x93NUMPY", 6);
    b[6] = (unsigned char)major, b[7] = 0;
    for (size_t i = 0; i < lsize; i++)
        b[8 + i] = (unsigned char)(hlen >> (8 * i));
    memcpy(b + pre, dict, dl);
    memset(b + pre + dl, ' ', hlen - dl - 1);
    b[pre + hlen - 1] = '\n';
    if (dlen)
        memcpy(b + pre + hlen, data, dlen);
    return b;
}

Test(npy, reads_numpy_written_f4_and_f8)
{
    char *dir = test_tmpdir("npy-read");
    char *p4 = path_join(dir, "f4.npy"), *p8 = path_join(dir, "f8.npy"), *pv2 = path_join(dir, "v2.npy");
    const char *script =
        "import sys, numpy as np\n"
        "a = (np.arange(24, dtype=np.float64).reshape(2, 3, 4) - 7.5) / 3\n"
        "np.save(sys.argv[1], a.astype(np.float32))\n"
        "np.save(sys.argv[2], a)\n"
        "with open(sys.argv[3], 'wb') as f:\n"
        "    np.lib.format.write_array(f, a[0], version=(2, 0))\n";
    run_result r = py(script, p4, p8, pv2);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    npy_array a;
    g2e_err e;
    cr_assert_eq(npy_read_file(p4, &a, &e), 0, "%s", e.msg);
    cr_expect_eq(a.ndim, 3);
    cr_expect(a.shape[0] == 2 && a.shape[1] == 3 && a.shape[2] == 4);
    cr_expect_eq(a.count, 24);
    cr_expect_eq(a.dtype, NPY_F4);
    for (int i = 0; i < 24; i++)
        cr_expect_eq(a.data[i], (double)(float)((i - 7.5) / 3), "f4[%d]", i);
    npy_array_free(&a);
    cr_assert_eq(npy_read_file(p8, &a, &e), 0, "%s", e.msg);
    cr_expect_eq(a.dtype, NPY_F8);
    for (int i = 0; i < 24; i++)
        cr_expect_eq(a.data[i], (i - 7.5) / 3, "f8[%d]", i);
    npy_array_free(&a);
    cr_assert_eq(npy_read_file(pv2, &a, &e), 0, "version 2.0: %s", e.msg);
    cr_expect(a.ndim == 2 && a.shape[0] == 3 && a.shape[1] == 4);
    cr_expect_eq(a.data[5], (5 - 7.5) / 3);
    npy_array_free(&a);
    npy_array_free(&a);   /* twice is harmless */
    npy_array_free(NULL);
    free(p4), free(p8), free(pv2), free(dir);
}

Test(npy, reads_its_own_output_and_other_key_orders)
{
    float v[4] = {1.5f, -2.0f, 0.25f, 8.0f};
    size_t len;
    unsigned char *b = make_npy("{'shape': (2, 2), 'fortran_order': False, 'descr': '<f4'}", 1,
                                v, sizeof v, &len);
    npy_array a;
    g2e_err e;
    cr_assert_eq(npy_parse(b, len, &a, &e), 0, "%s", e.msg);
    cr_expect(a.ndim == 2 && a.shape[0] == 2 && a.shape[1] == 2 && a.data[3] == 8.0);
    npy_array_free(&a);
    free(b);
    b = make_npy("{\"descr\":\"<f4\",\"fortran_order\":False,\"shape\":(4,)}", 1, v, sizeof v, &len);
    cr_expect_eq(npy_parse(b, len, &a, &e), 0, "double quotes: %s", e.msg);
    npy_array_free(&a);
    free(b);
}

struct bad_case {
    const char *dict;
    size_t dlen;
    int code;
    const char *why;
};

Test(npy, malformed_headers_are_rejected)
{
    static const unsigned char data[64] = {0};
    static const struct bad_case cases[] = {
        {"{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", 8, NPY_E_DTYPE, "big endian"},
        {"{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", 8, NPY_E_DTYPE, "int"},
        {"{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }", 4, NPY_E_DTYPE, "half"},
        {"{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", 16, NPY_E_ORDER, "fortran"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2), }", 8, NPY_E_HEADER, "(2) is no tuple"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (), }", 0, NPY_E_SHAPE, "0-d"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1), }", 4, NPY_E_SHAPE, "5-d"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", 8, NPY_E_HEADER, "negative"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,), }", 8,
         NPY_E_SHAPE, "huge dimension"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 8), }", 8,
         NPY_E_SHAPE, "size overflow"},
        {"{'descr': '<f4', 'fortran_order': False}", 8, NPY_E_HEADER, "no shape"},
        {"{'descr': '<f4', 'shape': (2,)}", 8, NPY_E_HEADER, "no fortran_order"},
        {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", 8,
         NPY_E_HEADER, "duplicate"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", 8, NPY_E_HEADER, "extra key"},
        {"{'descr': '<f4', 'fortran_order': false, 'shape': (2,)}", 8, NPY_E_HEADER, "false"},
        {"{'descr': '<f4' 'fortran_order': False, 'shape': (2,)}", 8, NPY_E_HEADER, "missing comma"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x", 8, NPY_E_HEADER, "junk after }"},
        {"['descr', '<f4']", 8, NPY_E_HEADER, "a list"},
        {"{'descr': '<f4, 'fortran_order': False, 'shape': (2,)}", 8, NPY_E_HEADER, "bad quote"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 4, NPY_E_TRUNCATED, "short data"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 12, NPY_E_TRAILING, "extra data"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", 47, NPY_E_TRUNCATED, "f8 short"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        size_t len;
        unsigned char *b = make_npy(cases[k].dict, 1, data, cases[k].dlen, &len);
        npy_array a;
        g2e_err e;
        g2e_clear(&e);
        int rc = npy_parse(b, len, &a, &e);
        cr_expect_eq(rc, cases[k].code, "%s: got %d (%s), want %d", cases[k].why, rc, e.msg,
                     cases[k].code);
        cr_expect(a.data == NULL, "%s: no data after an error", cases[k].why);
        cr_expect(rc == 0 || strlen(e.msg) > 0, "%s: a message", cases[k].why);
        free(b);
    }
}

Test(npy, malformed_preambles_are_rejected)
{
    float v[2] = {1, 2};
    size_t len;
    unsigned char *good = make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 1,
                                   v, sizeof v, &len);
    npy_array a;
    g2e_err e;
    cr_assert_eq(npy_parse(good, len, &a, &e), 0, "%s", e.msg);
    npy_array_free(&a);
    unsigned char *b = malloc(len);
    /* every truncation of a good file fails cleanly */
    for (size_t n = 0; n < len; n++) {
        memcpy(b, good, n);
        cr_expect_neq(npy_parse(b, n, &a, &e), 0, "prefix of %zu bytes accepted", n);
    }
    memcpy(b, good, len);
    b[1] = 'n';
    cr_expect_eq(npy_parse(b, len, &a, &e), NPY_E_MAGIC);
    memcpy(b, good, len);
    b[6] = 4;
    cr_expect_eq(npy_parse(b, len, &a, &e), NPY_E_VERSION);
    memcpy(b, good, len);
    b[7] = 1;
    cr_expect_eq(npy_parse(b, len, &a, &e), NPY_E_VERSION);
    memcpy(b, good, len);
    b[8] = 0xff, b[9] = 0xff;   /* header longer than the file */
    cr_expect_eq(npy_parse(b, len, &a, &e), NPY_E_HEADER);
    memcpy(b, good, len);
    b[8] = 0, b[9] = 0;
    cr_expect_eq(npy_parse(b, len, &a, &e), NPY_E_HEADER);
    memcpy(b, good, len);
    b[10 + (b[8] | b[9] << 8) - 1] = ' ';   /* no final newline */
    cr_expect_eq(npy_parse(b, len, &a, &e), NPY_E_HEADER);
    cr_expect(strstr(e.msg, "'\\n'") != NULL, "%s", e.msg);
    free(b);
    free(good);
    cr_expect_eq(npy_read_file("/nonexistent/x.npy", &a, &e), NPY_E_IO);
    cr_expect(strstr(e.msg, "/nonexistent/x.npy") != NULL, "%s", e.msg);
}
