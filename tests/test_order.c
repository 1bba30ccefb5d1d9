/* SPDX-License-Identifier: MIT */
/* test_order.c — the order puzzle's numbers against sums made here from the fixture's own
 * values (fixture_expected never goes through the library). */
#include "embed.h"
#include "fixture.h"
#include "order.h"
#include "support.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The bag mean computed independently: each ID's row from fixture_expected, summed in double
 * over the IDs in ascending order (a counting pass over the vocabulary, not a sort). */
static void ref_bag(const fixture_opts *o, const uint32_t *ids, size_t n, float *bag)
{
    for (size_t c = 0; c < o->n_embd; c++) {
        double s = 0;
        for (uint32_t id = 0; id < o->n_vocab; id++)
            for (size_t t = 0; t < n; t++)
                if (ids[t] == id)
                    s += (double)fixture_expected(o, FIXTURE_WTE, id, c);
        bag[c] = (float)(s / (double)n);
    }
}

static double ref_cos_input(const fixture_opts *o, uint32_t a, uint32_t b, size_t t)
{
    double d = 0, na = 0, nb = 0;
    for (size_t c = 0; c < o->n_embd; c++) {
        float p = fixture_expected(o, FIXTURE_WPE, t, c);
        float x = fixture_expected(o, FIXTURE_WTE, a, c) + p;
        float y = fixture_expected(o, FIXTURE_WTE, b, c) + p;
        d += (double)x * y;
        na += (double)x * x;
        nb += (double)y * y;
    }
    return d / (sqrt(na) * sqrt(nb));
}

Test(order, permutation_same_bag_different_inputs)
{
    fixture_opts o;
    fixture_tiny(&o);
    g2e_model *m = open_fixture_model(&o, "order");
    uint32_t a[6] = {5, 17, 3, 40, 17, 9}, b[6] = {40, 17, 3, 5, 9, 17};
    order_cmp c;
    g2e_err e;
    cr_assert_eq(order_compare(m, a, 6, b, 6, &c, &e), 0, "%s", e.msg);
    cr_expect_eq(c.same_multiset, 1);
    cr_expect_eq(c.bags_identical, 1);
    float want[8];
    ref_bag(&o, a, 6, want);
    cr_expect(memcmp(c.bag_a, want, sizeof want) == 0, "bag_a differs from the reference");
    cr_expect(memcmp(c.bag_b, want, sizeof want) == 0, "bag_b differs from the reference");
    cr_expect(fabs(c.bag_cos - 1.0) < 1e-12, "bag cos %.17g", c.bag_cos);
    cr_assert_eq(c.n_pos, 6);
    size_t differ = 0;
    for (size_t t = 0; t < 6; t++) {
        cr_expect_eq(c.same_id[t], a[t] == b[t], "t %zu", t);
        double r = ref_cos_input(&o, a[t], b[t], t);
        cr_expect(fabs(c.input_cos[t] - r) < 1e-12, "t %zu: %.17g vs %.17g", t, c.input_cos[t], r);
        differ += a[t] != b[t];
    }
    cr_expect_eq(c.n_differ, differ);   /* positions 0, 3, 4, 5 */
    cr_expect_eq(differ, 4);
    order_free(&c);
    order_free(&c);   /* a freed struct is zeroed: freeing again is harmless */
    model_close(m);
}

Test(order, different_multisets)
{
    fixture_opts o;
    fixture_tiny(&o);
    g2e_model *m = open_fixture_model(&o, "order2");
    uint32_t a[3] = {1, 2, 3}, b[4] = {1, 2, 3, 3};
    order_cmp c;
    g2e_err e;
    cr_assert_eq(order_compare(m, a, 3, b, 4, &c, &e), 0, "%s", e.msg);
    cr_expect_eq(c.same_multiset, 0);
    cr_expect_eq(c.bags_identical, 0);
    cr_expect_eq(c.n_pos, 3);
    cr_expect_eq(c.n_differ, 0);        /* the first three tokens agree */
    order_free(&c);
    model_close(m);
}

Test(order, errors)
{
    fixture_opts o;
    fixture_tiny(&o);   /* n_vocab 64, n_ctx 16 */
    g2e_model *m = open_fixture_model(&o, "order3");
    uint32_t a[17] = {0}, bad[1] = {64};
    order_cmp c;
    g2e_err e;
    cr_expect_eq(order_compare(m, a, 0, a, 3, &c, &e), ORDER_E_EMPTY);
    cr_expect(strstr(e.msg, "text A"), "%s", e.msg);
    cr_expect_eq(order_compare(m, a, 3, bad, 1, &c, &e), EMBED_E_ID);
    cr_expect_eq(order_compare(m, a, 17, a, 3, &c, &e), EMBED_E_CONTEXT);
    order_free(&c);
    model_close(m);
}
