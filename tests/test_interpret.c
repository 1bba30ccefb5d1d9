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
