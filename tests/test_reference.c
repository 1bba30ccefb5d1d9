/* SPDX-License-Identifier: MIT */
/* test_reference.c — the median cosine of random pairs against a recomputation (pairs_ref.h):
 * the same documented generator (splitmix64), cosines from the fixture's own values. */
#include "fixture.h"
#include "pairs_ref.h"
#include "reference.h"
#include "support.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

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
    double v[101];
    size_t k;
    pairs_ref_cosines(&o, which, 101, 42, v);
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
