/* SPDX-License-Identifier: MIT */
/* test_table.c — the result-table writer (table.h): the text table and CSV spelled out by
 * hand for a small table, and a larger one read back by numpy (loadtxt, load) and Python's
 * json, compared with values Python computes on its own. */
#include "table.h"
#include "support.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What tbl_write wrote, as a string (caller frees). */
static char *written(int fmt, const tbl *t, int *rc)
{
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    cr_assert(f);
    g2e_err e;
    *rc = tbl_write(f, fmt, t, &e);
    fclose(f);
    return s;
}

static const double V[] = {0, 0.5, -1.25, 1, 1.0 / 3, 2e-20, 2, NAN, 7};
static const tbl_col COLS[] = {{.key = "d", .head = "\xE8\xB7\x9D\xE9\x9B\xA2", .width = 6, .prec = -1},
                               {.key = "mean_cos", .jkey = "mean", .width = 9, .prec = 4},
                               {.key = "x", .width = 8, .prec = 2, .csv = TBL_CSV_G9}};

Test(table, text_csv_and_json_by_hand)
{
    tbl t = {.cols = COLS, .ncols = 3, .nrow = 3, .v = V, .sep = "  "};
    int rc;
    char *s = written(TBL_TABLE, &t, &rc);
    cr_expect_eq(rc, 0);
    /* the heading 距離 is 4 columns wide: two spaces before it make 6 */
    cr_expect_str_eq(s, "  \xE8\xB7\x9D\xE9\x9B\xA2   mean_cos         x\n"
                        "     0     0.5000     -1.25\n"
                        "     1     0.3333      0.00\n"
                        "     2        nan      7.00\n");
    free(s);
    s = written(TBL_CSV, &t, &rc);
    cr_expect_str_eq(s, "d,mean_cos,x\n0,0.5,-1.25\n1,0.33333333333333331,2e-20\n2,nan,7\n");
    free(s);
    s = written(TBL_JSON, &t, &rc);
    cr_expect_str_eq(s, "\"d\": [0, 1, 2], \"mean\": [0.5, 0.33333333333333331, null], "
                        "\"x\": [-1.25, 1.9999999999999999e-20, 7]");
    free(s);
    t.json_rows = 1;
    t.nrow = 1;
    s = written(TBL_JSON, &t, &rc);
    cr_expect_str_eq(s, "[{\"d\": 0, \"mean\": 0.5, \"x\": -1.25}]");
    free(s);
    t.nrow = 0;
    s = written(TBL_JSON, &t, &rc);
    cr_expect_str_eq(s, "[]");
    free(s);
}

Test(table, counted_columns_and_no_header)
{
    const tbl_col c[] = {{.key = "pos", .width = 4, .prec = -1}, {.key = "d", .width = 5, .prec = 1, .count = 2}};
    tbl t = {.cols = c, .ncols = 2, .nrow = 2, .v = V};
    cr_expect_eq(tbl_width(&t), 3);
    int rc;
    char *s = written(TBL_TABLE, &t, &rc);
    cr_expect_str_eq(s, " pos    d0    d1\n   0   0.5  -1.2\n   1   0.3   0.0\n");
    free(s);
    t.no_header = 1;
    s = written(TBL_CSV, &t, &rc);
    cr_expect_str_eq(s, "0,0.5,-1.25\n1,0.33333333333333331,1.9999999999999999e-20\n");
    free(s);
}

/* Row r: r, then sin(0.37 r + j) * 10^(j - 2) for j = 0..4. */
static int gen_row(void *user, size_t r, double *out, g2e_err *err)
{
    (void)user, (void)err;
    out[0] = (double)r;
    for (int j = 0; j < 5; j++)
        out[1 + j] = sin(0.37 * (double)r + j) * pow(10.0, j - 2);
    return 0;
}

static int fail_row(void *user, size_t r, double *out, g2e_err *err)
{
    (void)user, (void)out;
    return r == 2 ? g2e_fail(err, 77, "row %zu failed", r) : 0;
}

static void write_to(const char *path, int fmt, const tbl *t)
{
    FILE *f = fopen(path, "wb");
    cr_assert(f);
    g2e_err e;
    cr_assert_eq(tbl_write(f, fmt, t, &e), 0, "%s", e.msg);
    cr_assert_eq(fclose(f), 0);
}

Test(table, numpy_reads_back_every_format)
{
    char *dir = test_tmpdir("table");
    char *csv = path_join(dir, "t.csv"), *npy = path_join(dir, "t.npy"), *npy1 = path_join(dir, "c.npy"),
         *js = path_join(dir, "t.json");
    const tbl_col c[] = {{.key = "r", .width = 5, .prec = -1}, {.key = "v", .width = 12, .prec = 6, .count = 5}};
    tbl t = {.cols = c, .ncols = 2, .nrow = 300, .row = gen_row, .npy_first = 1, .npy_count = 5};
    write_to(csv, TBL_CSV, &t);
    write_to(npy, TBL_NPY, &t);
    FILE *f = fopen(js, "w");
    cr_assert(f);
    fputc('{', f);
    cr_assert_eq(tbl_write(f, TBL_JSON, &t, NULL), 0);
    fputs("}\n", f);
    fclose(f);
    t.npy_first = 3, t.npy_count = 1;
    write_to(npy1, TBL_NPY, &t);
    const char *py =
        "import json, math, sys, numpy as np\n"
        "d = sys.argv[1]\n"
        "want = np.array([[r] + [math.sin(0.37 * r + j) * 10.0 ** (j - 2) for j in range(5)] for r in range(300)])\n"
        "c = np.loadtxt(d + '/t.csv', delimiter=',', skiprows=1)\n"
        "h = open(d + '/t.csv').readline().strip()\n"
        "n = np.load(d + '/t.npy'); n1 = np.load(d + '/c.npy')\n"
        "j = json.load(open(d + '/t.json'))\n"
        "ok = (h == 'r,v0,v1,v2,v3,v4' and np.array_equal(c, want)\n"
        "      and n.dtype == np.float32 and n.shape == (300, 5) and np.array_equal(n, want[:, 1:].astype(np.float32))\n"
        "      and n1.shape == (300,) and np.array_equal(n1, want[:, 3].astype(np.float32))\n"
        "      and j['r'] == list(range(300)) and all(j['v%d' % k] == list(want[:, k + 1]) for k in range(5)))\n"
        "print('OK' if ok else 'DIFFER')\n";
    char *const argv[] = {"/usr/bin/python3", "-c", (char *)py, dir, NULL};
    run_result r = run_argv(argv, NULL, 0, NULL, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.out, "OK\n", "%s", r.err);
    run_free(&r);
    free(csv), free(npy), free(npy1), free(js), free(dir);
}

Test(table, a_failing_row_is_returned)
{
    const tbl_col c[] = {{.key = "a", .width = 3, .prec = 0}};
    tbl t = {.cols = c, .ncols = 1, .nrow = 5, .row = fail_row};
    g2e_err e;
    for (int fmt = TBL_TABLE; fmt <= TBL_NPY; fmt++) {
        FILE *f = fopen("/dev/null", "w");
        cr_assert(f);
        cr_expect_eq(tbl_write(f, fmt, &t, &e), 77, "format %d", fmt);
        cr_expect_str_eq(e.msg, "row 2 failed");
        fclose(f);
    }
}

Test(table, format_names)
{
    cr_expect_eq(tbl_format_of("table"), TBL_TABLE);
    cr_expect_eq(tbl_format_of("json"), TBL_JSON);
    cr_expect_eq(tbl_format_of("csv"), TBL_CSV);
    cr_expect_eq(tbl_format_of("npy"), TBL_NPY);
    cr_expect_eq(tbl_format_of("text"), -1);
}

Test(table, series_rows)
{
    const double a[] = {1.5, 2.5}, b[] = {-1, -2};
    tbl_series s = {.first = 10, .col = {a, b}};
    double out[3];
    cr_expect_eq(tbl_series_row(&s, 1, out, NULL), 0);
    cr_expect(out[0] == 11 && out[1] == 2.5 && out[2] == -2);
}
