/* SPDX-License-Identifier: MIT */
/* test_interpret.c — each sentence follows the numbers: both orders of the exercise-2
 * comparison, and every band of the same-token cosine between random pairs and 1.0. */
#include "interpret.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static char *capture_near_far(double c_near, double c_far)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    interp_near_far(f, 0, 1, c_near, 500, c_far);
    fclose(f);
    return buf;
}

Test(interpret, near_far_follows_the_numbers)
{
    char *s = capture_near_far(0.93, -0.04);
    cr_expect(strstr(s, "cos(pos 0, pos 1) = 0.9300 > cos(pos 0, pos 500) = -0.0400"), "%s", s);
    cr_expect(strstr(s, "as the chapter expects"), "%s", s);
    free(s);
    s = capture_near_far(0.10, 0.80);
    cr_expect(strstr(s, "0.1000 < cos(pos 0, pos 500) = 0.8000"), "%s", s);
    cr_expect(strstr(s, "the opposite of what the chapter expects"), "%s", s);
    cr_expect(!strstr(s, "as the chapter expects"), "%s", s);
    free(s);
    s = capture_near_far(0.5, 0.5);
    cr_expect(strstr(s, "distance makes no difference"), "%s", s);
    free(s);
}

static char *capture_same(double c, double median)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    interp_same_token(f, "␣cat", 0, 5, c, median, 1000);
    fclose(f);
    return buf;
}

Test(interpret, same_token_bands)
{
    struct { double c, med; const char *want; } cases[] = {
        {1.0, 0.1, "the two inputs are the same"},
        {0.05, 0.1, "no more alike than two random tokens"},
        {0.1, 0.1, "no more alike than two random tokens"},
        {0.8, 0.1, "the token's meaning dominates"},
        {0.3, 0.1, "closer to a random pair than to the same vector"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *s = capture_same(cases[k].c, cases[k].med);
        cr_expect(strstr(s, cases[k].want), "case %zu: %s", k, s);
        cr_expect(strstr(s, "'␣cat' at positions 0 and 5"), "%s", s);
        cr_expect(strstr(s, "median over 1000 random token pairs is 0.1000"), "%s", s);
        free(s);
    }
}

Test(interpret, pair_against_median)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    interp_pair(f, "positions", 0.5, 0.2, 999);
    interp_pair(f, "positions", 0.1, 0.2, 999);
    fclose(f);
    cr_expect(strstr(buf, "cos 0.5000: more alike than the median of 999 random pairs of positions (0.2000)"),
              "%s", buf);
    cr_expect(strstr(buf, "cos 0.1000: not more alike"), "%s", buf);
    free(buf);
}

/* interp_order on numbers made up here (no weights): 4 tokens, the same multiset, told apart
 * with positions; nopos_causal/prefix: which causal rows without positions are equal, and
 * which prefixes hold the same tokens; nopos_out: unmasked output rows of B with an equal. */
static char *capture_order(const uint8_t nopos_causal[4], const uint8_t prefix[4], size_t nopos_out)
{
    static size_t perm[4] = {1, 0, 2, 3}, none[4] = {ORDER_NONE, ORDER_NONE, ORDER_NONE, ORDER_NONE};
    static uint8_t all_differ[4] = {0, 0, 0, 0};
    order_cmp c = {.n_a = 4, .n_b = 4, .n_embd = 8, .same_multiset = 1,
                   .verdict = ORDER_DISTINGUISHABLE, .n_pos = 4, .prefix_same = (uint8_t *)prefix};
    c.view[ORDER_NOPOS] = (order_view){.n_equal = 4, .perm = perm, .out_equal = nopos_out,
                                       .out_gap = nopos_out == 4 ? 0 : 0.5,
                                       .causal_equal = (uint8_t *)nopos_causal};
    for (int t = 0; t < 4; t++)
        c.view[ORDER_NOPOS].causal_n_equal += nopos_causal[t] != 0;
    c.view[ORDER_NOPOS].causal_gap = c.view[ORDER_NOPOS].causal_n_equal == 4 ? 0 : 0.25;
    c.view[ORDER_POS] = (order_view){.n_equal = 2, .perm = none, .out_gap = 0.1,
                                     .causal_equal = all_differ, .causal_gap = 0.1};
    order_text t[2] = {{"", NULL, NULL, 0, 0}, {"", NULL, NULL, 0, 0}};
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    interp_order(f, &c, t);
    fclose(f);
    return buf;
}

/* Issue 38: the sentence follows both the unmasked and the causal numbers. */
Test(interpret, order_follows_unmasked_and_causal_numbers)
{
    const uint8_t prefix[4] = {0, 0, 1, 1}, as_prefix[4] = {0, 0, 1, 1}, all_equal[4] = {1, 1, 1, 1};
    char *s = capture_order(as_prefix, prefix, 4);
    cr_expect(strstr(s, "attention gives B the outputs of A permuted: it cannot tell the orders apart"), "%s", s);
    cr_expect(strstr(s, "2 of 4 rows of B's output differ from A's at the same position (at 0-1, "
                        "each by at least 0.25); equal at 2-3"), "%s", s);
    cr_expect(strstr(s, "GPT-2's causal mask already separates 2 of 4 rows without positions"), "%s", s);
    cr_expect(strstr(s, "equal exactly where A and B hold the same token"), "%s", s);
    cr_expect(strstr(s, "Position embeddings are how GPT-2 knows where each token is."), "%s", s);
    cr_expect(!strstr(s, "adds nothing"), "%s", s);
    free(s);
    /* the opposite numbers: the mask separates no row, against what the prefixes say */
    s = capture_order(all_equal, prefix, 4);
    cr_expect(strstr(s, "all 4 rows of B's output equal A's at the same position"), "%s", s);
    cr_expect(strstr(s, "GPT-2's causal mask adds nothing here"), "%s", s);
    cr_expect(strstr(s, "without positions 2 causal rows are equal or differ against what their "
                        "prefixes' tokens predict"), "%s", s);
    cr_expect(!strstr(s, "already separates"), "%s", s);
    cr_expect(!strstr(s, "equal exactly where"), "%s", s);
    free(s);
    /* unmasked outputs that are not A's permuted */
    s = capture_order(as_prefix, prefix, 2);
    cr_expect(strstr(s, "2 of B's 4 output rows already have no equal among A's"), "%s", s);
    cr_expect(!strstr(s, "cannot tell the orders apart"), "%s", s);
    free(s);
}
