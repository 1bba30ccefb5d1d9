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
    cr_expect_eq(c.verdict, ORDER_DISTINGUISHABLE);
    /* without positions every row has its equal; with them only where the IDs agree (1, 2) */
    cr_expect_eq(c.view[ORDER_NOPOS].n_equal, 6);
    cr_expect_eq(c.view[ORDER_POS].n_equal, 2);
    /* B = A permuted: B's outputs are A's at 3 1 2 0 5 (4 or 1: 17 twice; the first unused) */
    static const size_t want_perm[6] = {3, 1, 2, 0, 5, 4};
    for (size_t s = 0; s < 6; s++)
        cr_expect_eq(c.view[ORDER_NOPOS].perm[s], want_perm[s], "s %zu", s);
    cr_expect_eq(c.view[ORDER_NOPOS].out_equal, 6);
    cr_expect(c.view[ORDER_NOPOS].out_maxdiff < 1e-12, "%g", c.view[ORDER_NOPOS].out_maxdiff);
    cr_expect(c.view[ORDER_POS].out_equal < 6);
    cr_expect(c.view[ORDER_POS].out_gap > 1e-6, "%g", c.view[ORDER_POS].out_gap);
    /* the moved token: 5 at A position 0, in B at 3 */
    cr_expect(c.moved && c.moved_id == 5 && c.moved_a == 0 && c.moved_b == 3);
    double d = 0, na = 0, nb = 0;
    for (size_t k = 0; k < 8; k++) {
        float x = fixture_expected(&o, FIXTURE_WTE, 5, k) + fixture_expected(&o, FIXTURE_WPE, 0, k);
        float y = fixture_expected(&o, FIXTURE_WTE, 5, k) + fixture_expected(&o, FIXTURE_WPE, 3, k);
        d += (double)x * y, na += (double)x * x, nb += (double)y * y;
    }
    cr_expect(fabs(c.moved_cos - d / (sqrt(na) * sqrt(nb))) < 1e-12, "%.17g", c.moved_cos);
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

/* The causal toy layer: row t of B against row t of A. Without positions a row is equal
 * exactly where the prefixes hold the same tokens with the same token at t (2, 3, 4 here),
 * with positions no row is (the first tokens differ and every row sees them). */
Test(order, causal_rows_follow_the_prefixes)
{
    fixture_opts o;
    fixture_tiny(&o);
    g2e_model *m = open_fixture_model(&o, "order_causal");
    uint32_t a[5] = {5, 17, 3, 40, 9}, b[5] = {17, 5, 3, 40, 9};
    order_cmp c;
    g2e_err e;
    cr_assert_eq(order_compare(m, a, 5, b, 5, &c, &e), 0, "%s", e.msg);
    static const uint8_t prefix[5] = {0, 0, 1, 1, 1};
    for (size_t t = 0; t < 5; t++) {
        cr_expect_eq(c.prefix_same[t], prefix[t], "t %zu", t);
        cr_expect_eq(c.view[ORDER_NOPOS].causal_equal[t], prefix[t], "t %zu", t);
        cr_expect_eq(c.view[ORDER_POS].causal_equal[t], 0, "t %zu", t);
    }
    cr_expect_eq(c.view[ORDER_NOPOS].causal_n_equal, 3);
    cr_expect(c.view[ORDER_NOPOS].causal_maxdiff < 1e-12);
    cr_expect(c.view[ORDER_NOPOS].causal_gap > 1e-6);
    cr_expect_eq(c.view[ORDER_POS].causal_n_equal, 0);
    /* unmasked, without positions: still A's outputs permuted */
    cr_expect_eq(c.view[ORDER_NOPOS].out_equal, 5);
    order_free(&c);
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
    cr_expect_eq(c.verdict, ORDER_OTHER_TOKENS);
    cr_expect_eq(c.view[ORDER_NOPOS].n_equal, 3);
    cr_expect_eq(c.view[ORDER_POS].n_equal, 3);
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

/* An all-zero wpe (a sparse fixture that writes every wte row and no wpe row): the same
 * reordering is then indistinguishable, with positions as without. */
Test(order, zero_wpe_is_indistinguishable)
{
    fixture_opts o;
    fixture_tiny(&o);
    uint64_t rows[64];
    for (uint64_t i = 0; i < 64; i++)
        rows[i] = i;
    o.sparse = 1, o.wte_rows = rows, o.n_wte_rows = 64, o.wpe_rows = NULL, o.n_wpe_rows = 0;
    g2e_model *m = open_fixture_model(&o, "order4");
    uint32_t a[6] = {5, 17, 3, 40, 17, 9}, b[6] = {40, 17, 3, 5, 9, 17};
    order_cmp c;
    g2e_err e;
    cr_assert_eq(order_compare(m, a, 6, b, 6, &c, &e), 0, "%s", e.msg);
    cr_expect_eq(c.verdict, ORDER_INDISTINGUISHABLE);
    cr_expect_eq(c.view[ORDER_POS].n_equal, 6);
    cr_expect_eq(c.view[ORDER_POS].out_equal, 6);
    cr_expect(c.moved && fabs(c.moved_cos - 1.0) < 1e-15, "%.17g", c.moved_cos);
    cr_expect(c.moved_cos <= 1.0, "clamped: %.17g", c.moved_cos);
    order_free(&c);
    uint32_t same[2] = {1, 2};
    cr_assert_eq(order_compare(m, same, 2, same, 2, &c, &e), 0, "%s", e.msg);
    cr_expect_eq(c.verdict, ORDER_SAME_SEQUENCE);
    cr_expect_eq(c.moved, 0);
    order_free(&c);
    model_close(m);
}

/* Cosines never leave [-1, 1], whatever the rounding (every one the module reports). */
Test(order, cosines_clamped)
{
    fixture_opts o;
    fixture_tiny(&o);
    g2e_model *m = open_fixture_model(&o, "order5");
    for (uint32_t id = 0; id < 64; id++) {
        uint32_t a[3] = {id, id, (id + 1) % 64}, b[3] = {id, (id + 1) % 64, id};
        order_cmp c;
        g2e_err e;
        cr_assert_eq(order_compare(m, a, 3, b, 3, &c, &e), 0, "%s", e.msg);
        for (size_t t = 0; t < 3; t++)
            cr_expect(fabs(c.tok_cos[t]) <= 1.0 && fabs(c.input_cos[t]) <= 1.0, "%u %zu", id, t);
        cr_expect(fabs(c.moved_cos) <= 1.0);
        order_free(&c);
    }
    model_close(m);
}

static size_t piece_test(const char *x, const char *y, size_t *i, int *in_y, size_t *j)
{
    /* spans by hand: one token per byte (every token a piece of one character) */
    static uint32_t ids[2][16];
    static tokchars_span sp[2][16];
    const char *s[2] = {x, y};
    order_text t[2];
    for (int k = 0; k < 2; k++) {
        size_t n = strlen(s[k]), off[17];
        for (size_t b = 0; b <= n; b++)
            off[b] = b;
        for (size_t b = 0; b < n; b++)
            ids[k][b] = (unsigned char)s[k][b];   /* the byte is the ID: equal bytes, equal IDs */
        cr_assert_eq(tokchars_spans(s[k], n, off, n, sp[k], NULL), 0);
        t[k] = (order_text){s[k], ids[k], sp[k], n, n};
    }
    return (size_t)order_shared_piece(&t[0], &t[1], i, in_y, j);
}

Test(order, shared_piece_from_bytes)
{
    size_t i, j;
    int in_y;
    /* 犬 E7 8A AC, 猫 E7 8C AB: the first bytes agree */
    cr_assert_eq(piece_test("犬", "猫", &i, &in_y, &j), 1);
    cr_expect(i == 0 && in_y == 1 && j == 0);
    /* 犬 and 犬: the same character, nothing to explain; あ E3 81 82 and 犬 share nothing */
    cr_expect_eq(piece_test("犬", "犬", &i, &in_y, &j), 0);
    cr_expect_eq(piece_test("あ", "犬", &i, &in_y, &j), 0);
    /* い E3 81 84 and あ E3 81 82, both in x: E3 at 1/3 */
    cr_assert_eq(piece_test("あい", "x", &i, &in_y, &j), 1);
    cr_expect(i == 0 && in_y == 0 && j == 3);
}
