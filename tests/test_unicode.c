/* SPDX-License-Identifier: MIT */
/* test_unicode.c — the committed class table against utf8proc (an independent reading of
 * the Unicode data, 15.0) plus the committed 15.0 -> 16.0 delta, for every code point, and
 * the named cases. */
#include "support.h"
#include "unicode.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <utf8proc.h>

/* A class's name for the failure messages. */
static const char *uni_class_name(int cls)
{
    return cls == UNI_L ? "L" : cls == UNI_N ? "N" : cls == UNI_W ? "W" : "O";
}

static unsigned char delta[UNI_MAX_CP + 1]; /* class + 1 where 16.0 differs from 15.0 */
static int n_delta_ranges;

static void load_delta(void)
{
    FILE *f = fopen(G2E_SRCDIR "/tools/unicode-16.0-delta.txt", "r");
    cr_assert(f != NULL, "tools/unicode-16.0-delta.txt missing");
    char line[256];
    memset(delta, 0, sizeof delta);
    n_delta_ranges = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned a, b;
        char c;
        if (line[0] == '#')
            continue;
        cr_assert_eq(sscanf(line, "%x %x %c", &a, &b, &c), 3, "bad delta line: %s", line);
        cr_assert(a <= b && b <= UNI_MAX_CP && strchr("OLNW", c));
        for (unsigned cp = a; cp <= b; cp++)
            delta[cp] = (unsigned char)(strchr("OLNW", c) - "OLNW" + 1);
        n_delta_ranges++;
    }
    fclose(f);
}

static int reference_class(int32_t cp)
{
    static const int32_t ws[] = {0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000,
                                 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008,
                                 0x2009, 0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000};
    for (size_t i = 0; i < sizeof ws / sizeof ws[0]; i++)
        if (ws[i] == cp)
            return UNI_W;
    const char *c = utf8proc_category_string(cp);
    if (c[0] == 'L')
        return UNI_L;
    if (c[0] == 'N')
        return UNI_N;
    return UNI_O;
}

Test(unicode, table_matches_utf8proc_plus_delta_for_every_code_point)
{
    cr_assert_str_eq(utf8proc_unicode_version(), UNI_BASE_VERSION);
    load_delta();
    cr_expect_eq(n_delta_ranges, 29);
    long bad = 0;
    for (int32_t cp = 0; cp <= UNI_MAX_CP; cp++) {
        int want = delta[cp] ? delta[cp] - 1 : reference_class(cp), got = uni_class((uint32_t)cp);
        /* the delta only adds code points that 15.0 had not assigned */
        if (delta[cp] && utf8proc_category(cp) != UTF8PROC_CATEGORY_CN && bad++ < 5)
            cr_log_error("U+%04X is in the delta but assigned in utf8proc", (unsigned)cp);
        if (want != got && bad++ < 5)
            cr_log_error("U+%04X: table %s, utf8proc %s", (unsigned)cp, uni_class_name(got),
                         uni_class_name(want));
    }
    cr_expect_eq(bad, 0, "%ld code points differ", bad);
}

Test(unicode, exactly_25_white_space_code_points)
{
    int n = 0;
    for (uint32_t cp = 0; cp <= UNI_MAX_CP; cp++)
        n += uni_class(cp) == UNI_W;
    cr_expect_eq(n, 25);
    const uint32_t not_ws[] = {0x180E, 0x200B, 0xFEFF, 0x1C, 0x1D, 0x1E, 0x1F};
    for (size_t i = 0; i < sizeof not_ws / sizeof not_ws[0]; i++)
        cr_expect_neq(uni_class(not_ws[i]), UNI_W, "U+%04X", (unsigned)not_ws[i]);
}

Test(unicode, named_cases)
{
    cr_expect_eq(uni_class(0xBD), UNI_N);    /* ½ */
    cr_expect_eq(uni_class(0xB2), UNI_N);    /* ² */
    cr_expect_eq(uni_class(0x216B), UNI_N);  /* Ⅻ */
    cr_expect_eq(uni_class('a'), UNI_L);
    cr_expect_eq(uni_class(0x65E5), UNI_L);  /* 日 */
    cr_expect_eq(uni_class(0x0301), UNI_O);  /* combining acute: a mark */
    cr_expect_eq(uni_class(0xD800), UNI_O);  /* surrogate */
    cr_expect_eq(uni_class(0x10FFFF), UNI_O);
    cr_expect_eq(uni_class(0x110000), UNI_O);
    cr_expect_eq(uni_class(0xFFFFFFFFu), UNI_O);
    cr_expect_eq(uni_class('\''), UNI_O);
    /* the version question (see unicode.h): 15.1 and 16.0 additions, not 17.0's */
    cr_expect_eq(uni_class(0x2EBF0), UNI_L);  /* CJK extension I (15.1) */
    cr_expect_eq(uni_class(0x10D50), UNI_L);  /* Garay letter (16.0) */
    cr_expect_eq(uni_class(0x10D40), UNI_N);  /* Garay digit (16.0) */
    cr_expect_eq(uni_class(0x16EA0), UNI_O);  /* Beria Erfe (17.0): unassigned for tiktoken */
    cr_expect_eq(uni_class(0x0CF3), UNI_O);   /* Kannada sign (15.0, Mc) */
}

/* The committed table is what its rule writes (make unicode-table: tools/gen_unicode.c over
 * this machine's utf8proc and tools/unicode-16.0-delta.txt), byte for byte. */
Test(unicode, the_table_is_what_make_unicode_table_writes)
{
    char *argv[] = {G2E_TEST_BUILD "/gen_unicode", G2E_SRCDIR "/tools/unicode-16.0-delta.txt", NULL};
    run_result r = run_argv(argv, NULL, 0, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    size_t n;
    char *want = read_file(G2E_SRCDIR "/src/lib/text/unicode_table.c", &n);
    cr_assert(want != NULL);
    cr_expect(r.out_len == n && memcmp(r.out, want, n) == 0, "src/lib/text/unicode_table.c differs from "
              "what make unicode-table writes (%zu bytes, want %zu)", n, r.out_len);
    free(want);
    run_free(&r);
}
