/* SPDX-License-Identifier: MIT */
/* test_idlist.c — the one ID-list grammar (src/cli/io/idlist.c): every form `--ids`, `decode`
 * and standard input accept, every refusal with its status and its exact message. */
#include "idlist.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


typedef struct ids_case {
    const char *s;
    uint32_t n_vocab;
    int rc;   /* 0, IDLIST_E_SYNTAX or IDLIST_E_RANGE */
    size_t n;
    uint32_t v[4];
    const char *err;
} ids_case;

static const ids_case IDS[] = {
    {"", UINT32_MAX, 0, 0, {0}, NULL},
    {"  \n ", UINT32_MAX, 0, 0, {0}, NULL},
    {"[]", UINT32_MAX, 0, 0, {0}, NULL},
    {" [ ] \n", UINT32_MAX, 0, 0, {0}, NULL},
    {"464 3797", UINT32_MAX, 0, 2, {464, 3797}, NULL},
    {"464,3797", UINT32_MAX, 0, 2, {464, 3797}, NULL},
    {"[464, 3797]", UINT32_MAX, 0, 2, {464, 3797}, NULL},
    {"[464,\n 3797]\n", UINT32_MAX, 0, 2, {464, 3797}, NULL},
    {"464\n3797\n\n13\n", UINT32_MAX, 0, 3, {464, 3797, 13}, NULL},
    {"\t0 , 50256", 50257, 0, 2, {0, 50256}, NULL},
    {"4294967295", UINT32_MAX, 0, 1, {4294967295u}, NULL},
    {"4294967296", UINT32_MAX, IDLIST_E_RANGE, 0, {0}, "token ID too large at character 1, got '4294967296'"},
    {"1 99999999999999999999999", UINT32_MAX, IDLIST_E_RANGE, 0, {0},
     "token ID too large at character 3, got '99999999999999999999'"},
    {"50257", 50257, IDLIST_E_RANGE, 0, {0}, "token ID 50257 at character 1 is not below the vocabulary size 50257"},
    {"1 x", UINT32_MAX, IDLIST_E_SYNTAX, 0, {0}, "expected a token ID (a whole number) at character 3, got 'x'"},
    {"12a", UINT32_MAX, IDLIST_E_SYNTAX, 0, {0}, "expected a token ID (a whole number) at character 1, got '12a'"},
    {"-1", UINT32_MAX, IDLIST_E_SYNTAX, 0, {0}, "expected a token ID (a whole number) at character 1, got '-1'"},
    {"1,,2", UINT32_MAX, IDLIST_E_SYNTAX, 0, {0}, "expected a token ID (a whole number) at character 3, got ','"},
    {"1,", UINT32_MAX, IDLIST_E_SYNTAX, 0, {0}, "expected a token ID after ',' at the end"},
    {",1", UINT32_MAX, IDLIST_E_SYNTAX, 0, {0}, "expected a token ID (a whole number) at character 1, got ','"},
    {"[1 2", UINT32_MAX, IDLIST_E_SYNTAX, 0, {0}, "expected ']' at the end"},
    {"1 2]", UINT32_MAX, IDLIST_E_SYNTAX, 0, {0}, "unexpected ']' at character 4, got ']'"},
    {"[1] 2", UINT32_MAX, IDLIST_E_SYNTAX, 0, {0}, "unexpected text after the IDs at character 5, got '2'"},
    {"[[1]]", UINT32_MAX, IDLIST_E_SYNTAX, 0, {0}, "expected a token ID (a whole number) at character 2, got '[1]]'"},
};

Test(idlist, grammar_and_messages)
{
    for (size_t k = 0; k < sizeof IDS / sizeof IDS[0]; k++) {
        const ids_case *c = &IDS[k];
        uint32_t *v = (uint32_t *)1;
        size_t n = 99;
        g2e_err err = {0, ""};
        int r = idlist_parse(c->s, strlen(c->s), c->n_vocab, &v, &n, &err);
        cr_expect_eq(r, c->rc, "'%s': %d (%s)", c->s, r, err.msg);
        if (!c->rc) {
            cr_expect_eq(n, c->n, "'%s'", c->s);
            for (size_t i = 0; i < c->n && i < n; i++)
                cr_expect_eq(v[i], c->v[i], "'%s'[%zu]", c->s, i);
            free(v);
        } else {
            cr_expect_str_eq(err.msg, c->err, "'%s'", c->s);
        }
    }
}

Test(idlist, long_list)
{
    /* 20000 IDs: growth of the array, and the count */
    size_t len = 20000 * 6 + 3;
    char *s = malloc(len);
    size_t o = 0;
    s[o++] = '[';
    for (int i = 0; i < 20000; i++)
        o += (size_t)sprintf(s + o, "%d,", i % 50257);
    s[o - 1] = ']';
    uint32_t *v;
    size_t n;
    g2e_err err;
    cr_assert_eq(idlist_parse(s, o, 50257, &v, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 20000);
    cr_expect_eq(v[19999], 19999);
    free(v);
    free(s);
}

/* bytes a terminal would act on are shown escaped in the message, never raw */
Test(idlist, outside_bytes_are_escaped)
{
    uint32_t *v = NULL;
    size_t n = 0;
    g2e_err err;
    cr_assert_eq(idlist_parse("1 \x1b[31m", 7, 50257, &v, &n, &err), IDLIST_E_SYNTAX);
    cr_expect(strchr(err.msg, 0x1b) == NULL, "%s", err.msg);
    cr_expect(strstr(err.msg, "\\x1B") != NULL, "%s", err.msg);
    char nul[] = {'1', ' ', 0, '2'};
    cr_assert_eq(idlist_parse(nul, sizeof nul, 50257, &v, &n, &err), IDLIST_E_SYNTAX);
    cr_expect(strstr(err.msg, "\\x00") != NULL, "%s", err.msg);
}
