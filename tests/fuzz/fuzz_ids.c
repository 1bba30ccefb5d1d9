/* SPDX-License-Identifier: MIT */
/* fuzz_ids.c — libFuzzer target for the one ID-list grammar (opt_parse_ids, which reads
 * `decode`'s and `embed --ids -`'s standard input): any bytes must give either IDs that are
 * all below n_vocab and that read back the same after being written as "a, b, c" in
 * brackets, or an error with a message; never a crash, a leak or an out-of-bounds read. */
#include "opt.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* opt.c reports through the program's message functions (cli.c); the fuzzer links opt.c
 * alone, so these two stand in for them (the ID grammar itself never prints). */
void cli_error(const char *fmt, ...);
void cli_verror(const char *cmd, const char *msg, va_list ap);
void cli_error(const char *fmt, ...)
{
    (void)fmt;
}
void cli_verror(const char *cmd, const char *msg, va_list ap)
{
    (void)cmd, (void)msg, (void)ap;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the first byte picks a vocabulary size, so both the range check and 2^32 are reached */
    uint32_t n_vocab = size && data[0] & 1 ? 50257 : UINT32_MAX;
    uint32_t *ids = NULL, *again = NULL;
    size_t n = 0, m = 0;
    char err[160] = "";
    if (opt_parse_ids((const char *)data, size, n_vocab, &ids, &n, err, sizeof err) != 0) {
        if (!err[0])
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
    if (opt_parse_ids(s, (size_t)(o - s), n_vocab, &again, &m, err, sizeof err) != 0 || m != n ||
        (n && memcmp(ids, again, n * sizeof *ids) != 0))
        abort();
    free(s);
    free(ids);
    free(again);
    return 0;
}
