/* SPDX-License-Identifier: MIT */
/* test_sha256.c — SHA-256 against the FIPS 180 examples and against coreutils' sha256sum
 * on padding-boundary lengths, fed whole and in uneven pieces. */
#include "sha256.h"
#include "support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void hex_of(const void *d, size_t n, char hex[65])
{
    uint8_t dg[32];
    sha256_digest(d, n, dg);
    sha256_hex(dg, hex);
}

Test(sha256, fips_examples)
{
    char hex[65];
    hex_of("abc", 3, hex);
    cr_expect_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    hex_of("", 0, hex);
    cr_expect_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    hex_of(two, strlen(two), hex);
    cr_expect_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

Test(sha256, million_a_fed_in_odd_pieces)
{
    char *a = malloc(1000000);
    cr_assert(a);
    memset(a, 'a', 1000000);
    sha256_ctx c;
    sha256_init(&c);
    size_t off = 0, step = 1;
    while (off < 1000000) {
        size_t n = step < 1000000 - off ? step : 1000000 - off;
        sha256_update(&c, a + off, n);
        off += n;
        step = step * 7 % 997 + 1;   /* pieces from 1 to 997 bytes, crossing block edges */
    }
    uint8_t dg[32];
    char hex[65];
    sha256_final(&c, dg);
    sha256_hex(dg, hex);
    cr_expect_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(a);
}

/* Lengths around the 55/56/64-byte padding edges, checked against sha256sum. */
Test(sha256, padding_edges_match_coreutils)
{
    static const size_t lens[] = {1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000};
    char *dir = test_tmpdir("sha256");
    char *path = path_join(dir, "data");
    uint8_t buf[1000];
    uint32_t s = 12345;
    for (size_t i = 0; i < sizeof buf; i++) {
        s = s * 1103515245u + 12345u;
        buf[i] = (uint8_t)(s >> 16);
    }
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        write_file(path, buf, lens[k]);
        char cmd[4096];
        snprintf(cmd, sizeof cmd, "sha256sum '%s'", path);
        FILE *p = popen(cmd, "r");
        cr_assert(p);
        char want[65] = {0};
        cr_assert(fread(want, 1, 64, p) == 64);
        pclose(p);
        char got[65];
        hex_of(buf, lens[k], got);
        cr_expect_str_eq(got, want, "length %zu", lens[k]);
        /* the same bytes in two pieces split at every offset give the same digest */
        for (size_t cut = 0; cut <= lens[k]; cut += 13) {
            sha256_ctx c;
            uint8_t dg[32];
            char h2[65];
            sha256_init(&c);
            sha256_update(&c, buf, cut);
            sha256_update(&c, buf + cut, lens[k] - cut);
            sha256_final(&c, dg);
            sha256_hex(dg, h2);
            cr_expect_str_eq(h2, want, "length %zu cut %zu", lens[k], cut);
        }
    }
    free(path);
    free(dir);
}
