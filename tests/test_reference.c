/* SPDX-License-Identifier: MIT */
/* test_reference.c — the median cosine of random pairs against a recomputation here: the same
 * documented generator (splitmix64), cosines from the fixture's own values, its own sort. */
#include "fixture.h"
#include "reference.h"
#include "support.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

static uint64_t sm(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static double cos_rows(const fixture_opts *o, int which, uint64_t i, uint64_t j)
{
    double d = 0, a = 0, b = 0;
    for (size_t c = 0; c < o->n_embd; c++) {
        double x = fixture_expected(o, which, i, c), y = fixture_expected(o, which, j, c);
        d += x * y, a += x * x, b += y * y;
    }
    return d / (sqrt(a) * sqrt(b));
}

static void check(int which)
{
    fixture_opts o;
    fixture_tiny(&o);
    g2e_model *m = open_fixture_model(&o, which ? "refwpe" : "refwte");
    double med = 2;
    size_t used = 0;
    g2e_err e;
    cr_assert_eq(ref_median_cosine(m, which, 101, 42, &med, &used, &e), 0, "%s", e.msg);
    cr_expect_eq(used, 101);
    uint64_t s = 42, R = which ? o.n_ctx : o.n_vocab;
    double v[101];
    size_t k = 0;
    while (k < 101) {
        uint64_t i = sm(&s) % R, j = sm(&s) % R;
        if (i != j)
            v[k++] = cos_rows(&o, which, i, j);
    }
    /* The median of 101 values: at most 50 strictly below it, at most 50 strictly above, and
     * it is one of them (the same pair may be drawn twice, so ties happen). */
    size_t below = 0, above = 0, at = 0;
    for (k = 0; k < 101; k++) {
        below += v[k] < med - 1e-12, above += v[k] > med + 1e-12;
        at += fabs(v[k] - med) <= 1e-12;
    }
    cr_expect(below <= 50 && above <= 50 && at >= 1, "median %.17g: %zu below, %zu above, %zu at",
              med, below, above, at);
    model_close(m);
}

Test(reference, median_wte) { check(0); }
Test(reference, median_wpe) { check(1); }

Test(reference, zero_rows_and_bad_counts)
{
    fixture_opts o;
    fixture_tiny(&o);
    uint64_t rows[1] = {3};
    o.sparse = 1, o.wte_rows = rows, o.n_wte_rows = 1;   /* one non-zero wte row: no pair */
    g2e_model *m = open_fixture_model(&o, "refsparse");
    double med;
    size_t used;
    g2e_err e;
    cr_expect_eq(ref_median_cosine(m, 0, 10, 1, &med, &used, &e), REF_E_FEW_ROWS);
    cr_expect_eq(ref_median_cosine(m, 0, 0, 1, &med, &used, &e), G2E_EINVAL);
    model_close(m);
}
