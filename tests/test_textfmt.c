/* SPDX-License-Identifier: MIT */
/* test_textfmt.c — outside text fitted to a column, English ordinals. */
#include "text.h"
#include "textfmt.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

Test(textfmt, ordinals)
{
    static const struct {
        size_t n;
        const char *s;
    } cases[] = {{0, "th"}, {1, "st"}, {2, "nd"}, {3, "rd"}, {4, "th"}, {11, "th"}, {12, "th"}, {13, "th"},
                 {21, "st"}, {22, "nd"}, {101, "st"}, {111, "th"}, {112, "th"}, {1023, "rd"}, {1024, "th"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_expect_str_eq(textfmt_ordinal(cases[i].n), cases[i].s, "%zu", cases[i].n);
}

static void fit(const char *s, size_t maxw, int keep_end, const char *want)
{
    char buf[128];
    textfmt_fit(s, strlen(s), maxw, keep_end, buf, sizeof buf);
    cr_expect_str_eq(buf, want, "'%s' in %zu columns", s, maxw);
    cr_expect(text_width(buf, strlen(buf)) <= maxw);
}

Test(textfmt, fits_a_line_keeping_its_start_or_end)
{
    fit("short", 10, 0, "short");
    fit("exactly10!", 10, 0, "exactly10!");
    fit("one more c", 9, 0, "one more\xE2\x80\xA6");
    fit("/a/long/path/file.txt", 10, 1, "\xE2\x80\xA6" "/file.txt");
    fit("tab\tand\nnewline\x7F", 20, 0, "tab and newline ");
    fit("bad \xFF byte", 20, 0, "bad ? byte");
    /* wide characters: 2 columns each, never half of one */
    fit("犬が猫を追いかけた", 9, 0, "犬が猫を\xE2\x80\xA6");
    fit("犬が猫を追いかけた", 9, 1, "\xE2\x80\xA6" "いかけた");
    fit("", 5, 0, "");
}

Test(textfmt, printf_into_a_string_of_its_own_size)
{
    char big[3000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    char *s = textfmt_printf("%s の %d 倍", big, 12);
    cr_assert(s);
    cr_expect_eq(strlen(s), sizeof big - 1 + strlen(" の 12 倍"));
    cr_expect(strcmp(s + sizeof big - 1, " の 12 倍") == 0);
    free(s);
}
