/* SPDX-License-Identifier: MIT */
/* test_err.c — the error record (err.h): g2e_fail's message never ends inside a character,
 * however long (issue 23: no translated text is cut in the middle of a character), and
 * g2e_cut_whole, the cut it uses; and the one vocabulary of codes: every library code,
 * enumerated from the modules' lists, is distinct and reported as the public status its
 * list gives it (status.h). */
#include "err.h"
#include "status.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

/* 1 if s is well-formed UTF-8 (enough for the texts here: 1- and 3-byte sequences). */
static int whole(const char *s)
{
    for (const unsigned char *u = (const unsigned char *)s; *u;) {
        size_t k = *u < 0x80 ? 1 : (*u & 0xF0) == 0xE0 ? 3 : (*u & 0xE0) == 0xC0 ? 2 : 0;
        if (k == 0)
            return 0;
        for (size_t j = 1; j < k; j++)
            if ((u[j] & 0xC0) != 0x80)
                return 0;
        u += k;
    }
    return 1;
}

Test(err, a_long_message_ends_after_a_whole_character)
{
    /* 3-byte characters at every offset against the record's 511 bytes: some cut must fall
     * inside a character without the fix */
    for (size_t pad = 0; pad < 3; pad++) {
        char msg[2048];
        memset(msg, 'a', pad);
        size_t o = pad;
        while (o + 3 < sizeof msg - 1) {
            memcpy(msg + o, "\xE3\x81\x82", 3);   /* あ */
            o += 3;
        }
        msg[o] = '\0';
        g2e_err e;
        cr_assert_eq(g2e_fail(&e, 7, "%s", msg), 7);
        size_t n = strlen(e.msg);
        cr_expect(n < sizeof e.msg && n > sizeof e.msg - 8, "pad %zu: %zu bytes kept", pad, n);
        cr_expect(whole(e.msg), "pad %zu: the message ends inside a character", pad);
        cr_expect(strcmp(e.msg + n - 3, "\xE2\x80\xA6") == 0, "pad %zu: a cut message ends with an ellipsis", pad);
    }
    /* a message that fits is left as it is */
    g2e_err e;
    g2e_fail(&e, 1, "%s は %d", "あいう", 3);
    cr_expect_str_eq(e.msg, "あいう は 3");
}

Test(err, cut_whole_moves_a_cut_back_to_a_character_start)
{
    char buf[8];
    /* what snprintf leaves of "abあいう" in 8 bytes: "abあ" and the first 2 bytes of い */
    int want = snprintf(buf, sizeof buf, "%s", "ab\xE3\x81\x82\xE3\x81\x84\xE3\x81\x86");
    g2e_cut_whole(buf, sizeof buf, want);
    cr_expect_str_eq(buf, "ab\xE2\x80\xA6");   /* "ab…": あ gave way to the ellipsis */
    char fits[16] = "abc";
    g2e_cut_whole(fits, sizeof fits, 3);
    cr_expect_str_eq(fits, "abc");
    char tiny[3] = "ab";
    g2e_cut_whole(tiny, sizeof tiny, 10);
    cr_expect(whole(tiny) && strlen(tiny) < 3, "%s", tiny);
}

/* Every library code from the modules' own lists: distinct, in its module's range, and
 * mapped to the status written beside it (never GPT2EMBED_E_INTERNAL, the status of a code
 * no list holds). */
#define CODE_ROW(code, status) {code, GPT2EMBED_E_##status, #code},
static const struct { int code; gpt2embed_status status; const char *name; } lib_codes[] = {
    G2E_LIB_CODES(CODE_ROW)
};

Test(err, every_library_code_is_distinct_and_has_its_public_status)
{
    size_t n = sizeof lib_codes / sizeof *lib_codes;
    cr_assert_gt(n, 50);
    for (size_t i = 0; i < n; i++) {
        cr_expect_eq(g2e_status_of(lib_codes[i].code), lib_codes[i].status, "%s", lib_codes[i].name);
        cr_expect_neq(lib_codes[i].status, GPT2EMBED_E_INTERNAL, "%s", lib_codes[i].name);
        for (size_t j = 0; j < i; j++)
            cr_expect_neq(lib_codes[i].code, lib_codes[j].code, "%s and %s", lib_codes[i].name, lib_codes[j].name);
    }
    cr_expect_eq(g2e_status_of(0), GPT2EMBED_OK);
    cr_expect_eq(g2e_status_of(-1), GPT2EMBED_E_INTERNAL);
    cr_expect_eq(g2e_status_of(G2E_BASE(TOKF)), GPT2EMBED_E_INTERNAL); /* a program code */
    /* the program's codes: each module in its own range (outdir and tokfile shared 2700) */
    cr_expect_neq(G2E_MODULE_OF(TOK_E_UTF8), G2E_MODULE_OF(ST_E_OPEN));
    cr_expect_eq(G2E_MODULE_OF(TOK_E_TOO_LARGE), G2E_MOD_TOK);
}
