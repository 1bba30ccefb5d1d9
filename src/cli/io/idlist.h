/* SPDX-License-Identifier: MIT */
/* idlist.h — the one grammar of a list of token IDs, as `--ids`, `decode` and standard input
 * take it: whole numbers separated by commas and/or white space (spaces, tabs, newlines),
 * optionally inside one pair of brackets, as Python and JSON print a list ("[464, 3797]",
 * "464 3797", "464,3797\n"). The empty list is allowed. Never prints or exits. */
#ifndef G2E_IDLIST_H
#define G2E_IDLIST_H

#include "err.h"

#include <stddef.h>
#include <stdint.h>

enum {
    IDLIST_E_SYNTAX = G2E_BASE(IDLIST), /* not the grammar; msg says what was expected at which character */
    IDLIST_E_RANGE,           /* an ID over 2^32-1, or not below n_vocab */
    IDLIST_CODES_END_
};
G2E_CODES_END(IDLIST, IDLIST_CODES_END_);

/* Parses s[0..len) (not NUL-terminated; any bytes). Each ID must be < n_vocab (UINT32_MAX:
 * only < 2^32). On success *ids (caller frees; NULL for the empty list) and *n are set and
 * 0 is returned; on failure a status above (or G2E_ENOMEM) with a one-line message naming
 * the character (1-based) and what was found there, outside bytes shown escaped. */
int idlist_parse(const char *s, size_t len, uint32_t n_vocab, uint32_t **ids, size_t *n,
                 g2e_err *err);

#endif
