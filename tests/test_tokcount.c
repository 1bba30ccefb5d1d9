/* SPDX-License-Identifier: MIT */
/* test_tokcount.c — a text against a context: counts from tok_encode and text.h computed
 * here, the cut inside a character, per-character costs (count's JSON: test_count_cli.c). */
#include "text.h"
#include "support.h"
#include "tokcount.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

static tok_tokenizer *open_repo(void)
{
    tok_tokenizer *t;
    g2e_err err;
    cr_assert_eq(tok_open(G2E_SRCDIR "/tokenizer", 0, &t, &err), 0, "%s", err.msg);
    return t;
}

/* Every path (threads or not, per char or not) agrees with tok_encode's offsets. */
Test(tokcount, counts_and_the_cut_agree_with_the_offsets)
{
    tok_tokenizer *t = open_repo();
    char text[6000];
    size_t n = 0;
    while (n + 40 < sizeof text)
        n += (size_t)snprintf(text + n, sizeof text - n, "The cat 犬が猫を追いかけた. 1234 ");
    tok_ids r;
    g2e_err err;
    cr_assert_eq(tok_encode(t, text, n, TOK_SPECIAL_TOKEN, 0, &r, NULL, &err), 0);
    static const size_t ctxs[] = {1, 7, 100, 1000, 100000};
    eng *e = open_repo_eng(64);
    for (unsigned flags = 0; flags < 4; flags++)
        for (unsigned th = 1; th <= 2; th++) {
            for (size_t k = 0; k < sizeof ctxs / sizeof ctxs[0]; k++) {
                tokcount c;
                size_t ctx = ctxs[k];
                cr_assert_eq(tokcount_text(e, th, text, n, ctx, flags, &c, &err), 0, "%s", err.msg);
                cr_expect_eq(c.bytes, n);
                cr_expect_eq(c.tokens, r.n);
                cr_expect_eq(c.chars, ref_chars(text, n));
                cr_expect_eq(c.fits, r.n <= ctx);
                cr_expect_eq(c.windows, (r.n + ctx - 1) / ctx);
                if (!c.fits) {
                    size_t b = r.offsets[ctx];
                    cr_expect_eq(c.cut_byte, b, "ctx %zu flags %u threads %u", ctx, flags, th);
                    cr_expect_eq(c.inside, ((unsigned char)text[b] & 0xC0) == 0x80);
                    /* the characters wholly before the cut */
                    size_t start = b;
                    while (start > 0 && ((unsigned char)text[start] & 0xC0) == 0x80)
                        start--;
                    cr_expect_eq(c.cut_chars, ref_chars(text, start));
                }
                cr_expect_eq(c.cc != NULL, (flags & TOKCOUNT_PER_CHAR) != 0);
                double sum = 0;
                for (size_t i = 0; i < c.n_cc; i++)
                    sum += c.cc[i].tokens;
                if (c.cc)
                    cr_expect(sum > (double)r.n - 1e-6 && sum < (double)r.n + 1e-6, "costs add up to the tokens: %f", sum);
                tokcount_free(&c);
            }
        }
    tok_ids_free(&r);
    tok_close(t);
    eng_free(e);
}

Test(tokcount, invalid_input_fails_or_is_replaced)
{
    eng *t = open_repo_eng(0);
    tokcount c;
    g2e_err err;
    cr_expect_eq(tokcount_text(t, 1, "ab\xFFwx", 5, 1024, 0, &c, &err), TOK_E_UTF8);
    cr_expect(c.cc == NULL && c.tokens == 0);
    cr_assert_eq(tokcount_text(t, 1, "ab\xFFwx", 5, 1024, TOKCOUNT_LOSSY, &c, &err), 0);
    cr_expect_eq(c.replaced, 1);
    cr_expect_eq(c.chars, 5);
    tokcount_free(&c);
    eng_free(t);
}

