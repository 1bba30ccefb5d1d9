/* SPDX-License-Identifier: MIT */
/* idlist.c — the one ID-list grammar (idlist.h). Written by hand: a dozen lines of
 * scanning, where cJSON would accept only the bracketed form and read numbers as doubles. */
#include "idlist.h"

#include "text.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* what: a phrase already translated (g2e_tr at the call, where xgettext sees it) */
static int ids_error(g2e_err *err, int code, const char *s, size_t len, size_t at,
                     const char *what)
{
    size_t e = at;
    while (e < len && e - at < 20 && !text_is_json_ws((unsigned char)s[e]) && s[e] != ',')
        e++;
    if (at >= len)
        return g2e_fail(err, code, "%s at the end", what);
    /* outside data, shown escaped: a NUL or ESC byte visible as \x00, \x1B */
    char shown[128];
    text_escape_buf(shown, sizeof shown, s + at, e > at ? e - at : 1, TEXT_ESC_VISIBLE);
    return g2e_fail(err, code, "%s at character %zu, got '%.*s'", what, at + 1,
                    (int)strlen(shown), shown);
}

static int ids_push(uint32_t **v, size_t *n, size_t *cap, uint32_t id)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 64;
        uint32_t *q = realloc(*v, c * sizeof *q);
        if (!q)
            return -1;
        *v = q;
        *cap = c;
    }
    (*v)[(*n)++] = id;
    return 0;
}

static const char *not_an_id(void)
{
    return g2e_tr("expected a token ID (a whole number)");
}

/* One ID at s[*at..): digits, checked against 2^32 and n_vocab. */
static int ids_number(const char *s, size_t len, size_t *at, uint32_t n_vocab, uint32_t *id,
                      g2e_err *err)
{
    size_t p = *at;
    uint64_t v = 0;
    if (p >= len || s[p] < '0' || s[p] > '9')
        return ids_error(err, IDLIST_E_SYNTAX, s, len, p, not_an_id());
    for (; p < len && s[p] >= '0' && s[p] <= '9'; p++)
        if ((v = v * 10 + (uint64_t)(s[p] - '0')) > UINT32_MAX)
            return ids_error(err, IDLIST_E_RANGE, s, len, *at, g2e_tr("token ID too large"));
    if (p < len && !text_is_json_ws((unsigned char)s[p]) && s[p] != ',' && s[p] != ']')
        return ids_error(err, IDLIST_E_SYNTAX, s, len, *at, not_an_id());
    if (n_vocab != UINT32_MAX && v >= n_vocab) {
        return g2e_fail(err, IDLIST_E_RANGE, "token ID %" PRIu64 " at character %zu is not below "
                        "the vocabulary size %" PRIu32, v, *at + 1, n_vocab);
    }
    *id = (uint32_t)v;
    *at = p;
    return 0;
}

int idlist_parse(const char *s, size_t len, uint32_t n_vocab, uint32_t **ids, size_t *n,
                 g2e_err *err)
{
    int rc;
    uint32_t *v = NULL;
    size_t cnt = 0, cap = 0, p = 0;
    while (p < len && text_is_json_ws((unsigned char)s[p]))
        p++;
    int bracket = p < len && s[p] == '[';
    p += (size_t)bracket;
    int need_id = 0; /* after a comma, an ID must follow */
    for (;;) {
        while (p < len && text_is_json_ws((unsigned char)s[p]))
            p++;
        if (p >= len || s[p] == ']')
            break;
        uint32_t id = 0;
        if ((rc = ids_number(s, len, &p, n_vocab, &id, err)))
            goto fail;
        if (ids_push(&v, &cnt, &cap, id)) {
            rc = g2e_fail(err, G2E_ENOMEM, "out of memory");
            goto fail;
        }
        need_id = 0;
        while (p < len && text_is_json_ws((unsigned char)s[p]))
            p++;
        if (p < len && s[p] == ',') {
            p++;
            need_id = 1;
        }
    }
    if (need_id) {
        rc = ids_error(err, IDLIST_E_SYNTAX, s, len, p, g2e_tr("expected a token ID after ','"));
        goto fail;
    }
    if (bracket != (p < len && s[p] == ']')) {
        rc = ids_error(err, IDLIST_E_SYNTAX, s, len, p,
                       bracket ? g2e_tr("expected ']'") : g2e_tr("unexpected ']'"));
        goto fail;
    }
    p += (size_t)bracket;
    while (p < len && text_is_json_ws((unsigned char)s[p]))
        p++;
    if (p < len) {
        rc = ids_error(err, IDLIST_E_SYNTAX, s, len, p, g2e_tr("unexpected text after the IDs"));
        goto fail;
    }
    *ids = v;
    *n = cnt;
    return 0;
fail:
    free(v);
    return rc;
}
