/* SPDX-License-Identifier: MIT */
/* test_charcost.c — the tokens each character costs: hand-worked cases whose costs are
 * written out as fractions here, the order of the rows, lossy bytes, bad offsets, and, on the
 * real tokenizer's output, the two totals that must hold (the costs add up to the number of
 * tokens, the counts to the number of characters). The program's JSON is checked against
 * Python's fractions in test_tokchars_cli. */
#include "charcost.h"
#include "text.h"
#include "support.h"
#include "tokenizer.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static charcost_row *run(const char *text, size_t len, const size_t *offs, size_t n, size_t *nr)
{
    charcost_row *rows;
    g2e_err e;
    cr_assert_eq(charcost_compute(text, len, offs, n, &rows, nr, &e), 0, "%s", e.msg);
    return rows;
}

static void expect_row(const charcost_row *r, const char *ch, size_t count, double tokens, size_t first)
{
    cr_expect_eq(r->n_bytes, strlen(ch));
    cr_expect(memcmp(r->bytes, ch, r->n_bytes) == 0, "row for '%s' holds '%.*s'", ch, r->n_bytes, r->bytes);
    cr_expect_eq(r->count, count, "'%s' count", ch);
    cr_expect_eq(r->tokens, tokens, "'%s' costs %.17g, want %.17g", ch, r->tokens, tokens);
    cr_expect_eq(r->first, first, "'%s' first at %zu", ch, r->first);
}

Test(charcost, byte_tokens_of_a_kanji_cost_one_each)
{
    /* 犬が as tiktoken cuts it: E7 | 8A | AC | が */
    const size_t offs[] = {0, 1, 2, 3, 6};
    size_t n;
    charcost_row *r = run("犬が", 6, offs, 4, &n);
    cr_assert_eq(n, 2);
    expect_row(&r[0], "犬", 1, 3.0, 0);
    cr_expect_eq(r[0].code_point, 0x72AC);
    expect_row(&r[1], "が", 1, 1.0, 3);
    free(r);
}

Test(charcost, a_shared_token_is_split_by_its_bytes)
{
    /* E7 8A | AC + が (4 bytes): 犬 gets 1 + 1/4, が 3/4 */
    const size_t offs[] = {0, 2, 6};
    size_t n;
    charcost_row *r = run("犬が", 6, offs, 2, &n);
    cr_assert_eq(n, 2);
    expect_row(&r[0], "犬", 1, 1.0 + 1.0 / 4.0, 0);
    expect_row(&r[1], "が", 1, 3.0 / 4.0, 3);
    free(r);
}

Test(charcost, ties_go_by_cost_per_occurrence_then_first_occurrence)
{
    /* one text, tokens " cat" | "aa" | "xy" | "z": the characters of " cat" cost 1/4 each (in
     * text order when equal), a twice 1/2 in "aa", x and y 1/2 each, z 1 */
    const char *t = " cataaxyz";
    const size_t offs[] = {0, 4, 6, 8, 9};
    size_t n;
    charcost_row *r = run(t, 9, offs, 4, &n);
    cr_assert_eq(n, 7);
    expect_row(&r[0], "a", 3, 0.25 + 1.0, 2);   /* 1/4 in " cat", 1/2 + 1/2 in "aa" */
    expect_row(&r[1], "z", 1, 1.0, 8);
    expect_row(&r[2], "x", 1, 0.5, 6);          /* 1/2 per occurrence */
    expect_row(&r[3], "y", 1, 0.5, 7);
    expect_row(&r[4], " ", 1, 0.25, 0);
    expect_row(&r[5], "c", 1, 0.25, 1);
    expect_row(&r[6], "t", 1, 0.25, 3);
    free(r);
}

Test(charcost, equal_totals_prefer_the_dearer_character)
{
    /* b occurs twice at 1/2 (one token "bb"); c once at 1: both total 1, c first by cost per
     * occurrence although b comes first in the text */
    const size_t offs[] = {0, 2, 3};
    size_t n;
    charcost_row *r = run("bbc", 3, offs, 2, &n);
    cr_assert_eq(n, 2);
    expect_row(&r[0], "c", 1, 1.0, 2);
    expect_row(&r[1], "b", 2, 1.0, 0);
    free(r);
}

Test(charcost, ill_formed_bytes_are_characters_of_their_own)
{
    const size_t offs[] = {0, 1, 2, 3};
    size_t n;
    charcost_row *r = run("\xFF" "a\xFF", 3, offs, 3, &n);
    cr_assert_eq(n, 2);
    expect_row(&r[0], "\xFF", 2, 2.0, 0);
    cr_expect_eq(r[0].code_point, TEXT_BAD);
    expect_row(&r[1], "a", 1, 1.0, 1);
    free(r);
}

Test(charcost, empty_text_and_bad_offsets)
{
    size_t n = 7, zero[1] = {0};
    charcost_row *r;
    g2e_err e;
    cr_expect_eq(charcost_compute("", 0, zero, 0, &r, &n, &e), 0);
    cr_expect_eq(n, 0);
    cr_expect_null(r);
    const size_t back[] = {0, 3, 2};
    cr_expect_eq(charcost_compute("abc", 3, back, 2, &r, &n, &e), G2E_EINVAL);
    cr_expect(strstr(e.msg, "token 1"), "%s", e.msg);
    cr_expect_null(r);
    const size_t past[] = {0, 4};
    cr_expect_eq(charcost_compute("abc", 3, past, 1, &r, &n, &e), G2E_EINVAL);
    /* bytes no token covers cost nothing */
    const size_t part[] = {0, 1};
    r = run("ab", 2, part, 1, &n);
    cr_assert_eq(n, 2);
    expect_row(&r[0], "a", 1, 1.0, 0);
    expect_row(&r[1], "b", 1, 0.0, 1);
    free(r);
}

Test(charcost, real_tokens_add_up)
{
    tok_tokenizer *t;
    g2e_err e;
    cr_assert_eq(tok_locate(NULL, &t, &e), 0, "%s", e.msg);
    const char *texts[] = {"犬が猫を追いかけた", "The dog 犬 chased 猫! 😀 naïve café、東京 🐈‍⬛ end",
                           "<|endoftext|>aaaa aaaa\n\n  x"};
    for (size_t k = 0; k < sizeof texts / sizeof *texts; k++) {
        size_t len = strlen(texts[k]), n;
        tok_ids ids;
        cr_assert_eq(tok_encode(t, texts[k], len, TOK_SPECIAL_TOKEN, 0, &ids, NULL, &e), 0, "%s", e.msg);
        charcost_row *r = run(texts[k], len, ids.offsets, ids.n, &n);
        double total = 0;
        size_t count = 0;
        for (size_t i = 0; i < n; i++) {
            total += r[i].tokens;
            count += r[i].count;
            if (i)
                cr_expect(r[i - 1].tokens >= r[i].tokens, "sorted: row %zu", i);
        }
        cr_expect(fabs(total - (double)ids.n) < 1e-9, "costs add up to %.17g, not %zu tokens", total, ids.n);
        cr_expect_eq(count, ref_chars(texts[k], len));
        free(r);
        tok_ids_free(&ids);
    }
    tok_close(t);
}
