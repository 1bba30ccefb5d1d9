/* SPDX-License-Identifier: MIT */
/* fuzz_ids.c — libFuzzer target for the one ID-list grammar (idlist_parse, which reads
 * `decode`'s and `embed --ids -`'s standard input): any bytes must give either IDs that are
 * all below n_vocab and that read back the same after being written as "a, b, c" in
 * brackets, or an error with a message; never a crash, a leak or an out-of-bounds read. */
#include "idlist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the first byte picks a vocabulary size, so both the range check and 2^32 are reached */
    uint32_t n_vocab = size && data[0] & 1 ? 50257 : UINT32_MAX;
    uint32_t *ids = NULL, *again = NULL;
    size_t n = 0, m = 0;
    g2e_err err = {0, ""};
    if (idlist_parse((const char *)data, size, n_vocab, &ids, &n, &err) != 0) {
        if (!err.msg[0] || !err.code)
            abort();
        return 0;
    }
    char *s = malloc(n * 12 + 3), *o = s;
    if (!s)
        abort();
    o += sprintf(o, "[");
    for (size_t i = 0; i < n; i++) {
        if (ids[i] >= n_vocab)
            abort();
        o += sprintf(o, "%s%u", i ? ", " : "", ids[i]);
    }
    o += sprintf(o, "]");
    if (idlist_parse(s, (size_t)(o - s), n_vocab, &again, &m, &err) != 0 || m != n ||
        (n && memcmp(ids, again, n * sizeof *ids) != 0))
        abort();
    free(s);
    free(ids);
    free(again);
    return 0;
}
