/* SPDX-License-Identifier: MIT */
/* bench_text.c — the UTF-8 check (text.h) on the benchmark corpus and on two parts of it:
 * the lines holding kana (bytes E3 81 xx .. E3 83 xx: Japanese) and the lines that are all
 * ASCII, each part its lines one after another. text_validate (AVX2 where the CPU has it)
 * against text_validate_scalar, median of 9 runs each, as MB/s. */
#include "bench_util.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int has_kana(const char *s, size_t n)
{
    for (size_t i = 0; i + 1 < n; i++)
        if ((unsigned char)s[i] == 0xE3 && (unsigned char)s[i + 1] >= 0x81 && (unsigned char)s[i + 1] <= 0x83)
            return 1;
    return 0;
}

static int all_ascii(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] >= 0x80)
            return 0;
    return 1;
}

static void run(const char *what, const char *s, size_t n)
{
    size_t (*const fn[2])(const char *, size_t) = {text_validate_scalar, text_validate};
    double ms[2];
    for (int k = 0; k < 2; k++) {
        double t[9];
        for (int r = 0; r < 9; r++) {
            double t0 = bench_now_ms();
            size_t got = fn[k](s, n);
            t[r] = bench_now_ms() - t0;
            if (got != n) {
                fprintf(stderr, "bench_text: %s is not valid UTF-8 at %zu\n", what, got);
                exit(1);
            }
        }
        ms[k] = bench_median(t, 9);
    }
    printf("  %-22s %9zu bytes: scalar %7.0f MB/s, text_validate %7.0f MB/s (%.1fx)\n", what, n,
           (double)n / ms[0] / 1e3, (double)n / ms[1] / 1e3, ms[0] / ms[1]);
}

int main(void)
{
    FILE *p = popen("gzip -dc " G2E_SRCDIR "/bench/data/corpus.txt.gz", "r");
    size_t cap = (size_t)1 << 25, n = 0, r;
    char *s = malloc(cap);
    if (!p || !s)
        return 1;
    while (n < cap && (r = fread(s + n, 1, cap - n, p)) > 0)
        n += r;
    pclose(p);
    char *ja = malloc(n + 1), *en = malloc(n + 1);
    if (!ja || !en)
        return 1;
    size_t nj = 0, ne = 0;
    for (size_t i = 0; i < n;) {
        const char *nl = memchr(s + i, '\n', n - i);
        size_t e = nl ? (size_t)(nl - s) + 1 : n;
        if (has_kana(s + i, e - i))
            memcpy(ja + nj, s + i, e - i), nj += e - i;
        else if (all_ascii(s + i, e - i))
            memcpy(en + ne, s + i, e - i), ne += e - i;
        i = e;
    }
    printf("UTF-8 check (AVX2 path %s on this CPU), median of 9 runs:\n", text_validate_simd() ? "used" : "not available");
    run("corpus", s, n);
    run("lines with kana", ja, nj);
    run("all-ASCII lines", en, ne);
    free(s);
    free(ja);
    free(en);
    return 0;
}
