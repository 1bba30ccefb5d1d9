/* SPDX-License-Identifier: MIT */
/* test_textpos.c — byte offsets to characters, lines, columns and snippets. */
#include "textpos.h"

#include <criterion/criterion.h>
#include <string.h>

Test(textpos, ascii_lines_and_columns)
{
    const char *t = "ab\ncde\nf";
    textpos p;
    textpos_at(t, strlen(t), 5, &p);   /* the 'e' */
    cr_expect_eq(p.chr, 5);
    cr_expect_eq(p.line, 2);
    cr_expect_eq(p.col, 3);
    cr_expect_str_eq(p.snippet, "ab\\ncd|e\\nf");
}

Test(textpos, multibyte_characters_count_once)
{
    const char *t = "犬が猫を追いかけた";  /* 9 characters of 3 bytes */
    textpos p;
    textpos_at(t, strlen(t), 9, &p);
    cr_expect_eq(p.chr, 3);
    cr_expect_eq(p.col, 4);
    cr_expect_str_eq(p.snippet, "犬が猫|を追いかけた");
    cr_expect_eq(textpos_chars(t, strlen(t)), 9);
}

Test(textpos, long_text_gets_ellipses)
{
    char t[200];
    for (int i = 0; i < 199; i++) t[i] = (char)('a' + i % 26);
    t[199] = '\0';
    textpos p;
    textpos_at(t, 199, 100, &p);
    cr_expect_eq(p.chr, 100);
    /* 24 before, '|', 12 after, "…" on both sides */
    cr_expect_eq(strlen(p.snippet), 3 + 24 + 1 + 12 + 3, "%s", p.snippet);
    cr_expect(strncmp(p.snippet, "\xE2\x80\xA6", 3) == 0);
}

Test(textpos, edges_empty_end_and_past_end)
{
    textpos p;
    textpos_at("", 0, 0, &p);
    cr_expect_eq(p.chr, 0);
    cr_expect_str_eq(p.snippet, "|");
    textpos_at("xyz", 3, 99, &p);
    cr_expect_eq(p.byte, 3);
    cr_expect_eq(p.chr, 3);
    cr_expect_str_eq(p.snippet, "xyz|");
}

Test(textpos, invalid_bytes_count_as_one_and_show_as_hex)
{
    const char t[] = "a\xFF\xC3" "b";
    textpos p;
    textpos_at(t, 4, 4, &p);
    cr_expect_eq(p.chr, 4);
    cr_expect_str_eq(p.snippet, "a\\xFF\\xC3b|");
    cr_expect_eq(textpos_chars(t, 4), 4);
}

/* The eight-at-a-time count against utf8proc's decoder, at every length and alignment. */
#include <utf8proc.h>
Test(textpos, fast_count_equals_decoding)
{
    const char *s = "a\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E x\xF0\x9F\x98\x80yz 0123456789 \xC2\xBD!";
    size_t n = strlen(s);
    for (size_t from = 0; from < n; from++)
        for (size_t to = from; to <= n; to++) {
            if (to < n && ((unsigned char)s[to] & 0xC0) == 0x80)
                continue; /* not a character boundary */
            if (((unsigned char)s[from] & 0xC0) == 0x80)
                break;
            size_t want = 0;
            for (size_t i = from; i < to;) {
                utf8proc_int32_t c;
                utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s + i, (utf8proc_ssize_t)(to - i), &c);
                cr_assert(k > 0);
                i += (size_t)k;
                want++;
            }
            cr_expect_eq(textpos_chars_valid(s + from, to - from), want, "[%zu, %zu)", from, to);
            cr_expect_eq(textpos_chars(s + from, to - from), want, "[%zu, %zu)", from, to);
        }
}

/* issue 23: an offset inside a character shows that character split, with its bytes on
 * each side of the cut, as tokchars.h writes shares */
Test(textpos, a_split_character_is_shown_split)
{
    const char *t = "犬が猫を";   /* 猫 is bytes 6..8 */
    textpos p;
    textpos_at(t, strlen(t), 8, &p);
    cr_expect_eq(p.inside, 1);
    cr_expect(p.part_before == 2 && p.part_len == 3);
    cr_expect_eq(p.chr, 3);
    cr_expect_str_eq(p.snippet, "犬が猫 (1-2/3)|猫 (3/3)を");
    textpos_at(t, strlen(t), 7, &p);
    cr_expect_str_eq(p.snippet, "犬が猫 (1/3)|猫 (2-3/3)を");
    textpos_at(t, strlen(t), 9, &p);
    cr_expect_eq(p.inside, 0);
    cr_expect_str_eq(p.snippet, "犬が猫|を");
}
