/* SPDX-License-Identifier: MIT */
/* bench_open.c — opening GPT-2's weights must cost the same whatever the file's size.
 *
 * Writes three fixtures into the build dir (tests/fixture.c): the full-shape gpt2 file
 * (548,105,171 bytes, sparse), a small file with the same 160 tensors at tiny shapes (the
 * same header work on a ~20 KB file), and a tiny 2-tensor file. For each, many times:
 * model_open + read the last wte row and the last wpe row + model_close; prints the
 * median (and 10th/90th percentiles) of each. Target: full-shape / same-header-small
 * median ratio near 1 (fails above 3, which only reading the file could cause).
 */
#include "../tests/fixture.h"
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define RUNS 301

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct result {
    double p10, median, p90, row_us;
    unsigned long long bytes, header;
} result;

static int measure(const char *path, result *res)
{
    static double t[RUNS];
    float *row = NULL;
    double rows_total = 0;
    for (int i = 0; i < RUNS; i++) {
        g2e_model *m = NULL;
        g2e_err e;
        double t0 = now_us();
        if (model_open(&m, path, &e) != 0) {
            fprintf(stderr, "bench_open: %s\n", e.msg);
            free(row);
            return -1;
        }
        if (!row) row = malloc(m->n_embd * sizeof *row);
        res->header = (unsigned long long)m->st->header_len;
        double t1 = now_us();
        if (!row || model_wte_row(m, m->n_vocab - 1, row, &e) || model_wpe_row(m, m->n_ctx - 1, row, &e)) {
            fprintf(stderr, "bench_open: %s\n", e.msg);
            model_close(m);
            free(row);
            return -1;
        }
        double t2 = now_us();
        model_close(m);
        t[i] = now_us() - t0;
        rows_total += t2 - t1;
    }
    free(row);
    qsort(t, RUNS, sizeof t[0], cmp_d);
    res->p10 = t[RUNS / 10];
    res->median = t[RUNS / 2];
    res->p90 = t[RUNS * 9 / 10];
    res->row_us = rows_total / RUNS;
    struct stat sb;
    res->bytes = stat(path, &sb) == 0 ? (unsigned long long)sb.st_size : 0;
    return 0;
}

int main(void)
{
    mkdir(G2E_TEST_TMP, 0755);
    const char *names[3] = {G2E_TEST_TMP "/bench-open-gpt2.safetensors",
                            G2E_TEST_TMP "/bench-open-small160.safetensors",
                            G2E_TEST_TMP "/bench-open-tiny.safetensors"};
    const char *labels[3] = {"gpt2 full shape, 160 tensors", "tiny shapes, same 160 tensors",
                             "tiny, 2 tensors"};
    fixture_opts o[3];
    fixture_gpt2(&o[0], ST_F32, NULL);
    fixture_tiny(&o[1]);
    o[1].full_layout = 1;
    o[1].n_layer = 12;
    o[1].meta = o[0].meta;
    fixture_tiny(&o[2]);
    result r[3];
    char err[256];
    int rc = 0;
    for (int k = 0; k < 3 && !rc; k++) {
        double t0 = now_us();
        if (fixture_write(names[k], &o[k], err, sizeof err) != 0) {
            fprintf(stderr, "bench_open: %s\n", err);
            rc = 1;
            break;
        }
        if (k == 0) printf("wrote the sparse full-shape fixture in %.1f ms\n", (now_us() - t0) / 1e3);
        measure(names[k], &r[k]); /* warm-up: page cache, allocator */
        if (measure(names[k], &r[k]) != 0) rc = 1;
    }
    if (!rc) {
        printf("open + wte[last] + wpe[last] + close, %d runs each (microseconds):\n", RUNS);
        printf("  %-30s %12s %9s %9s %9s %10s\n", "file", "bytes", "p10", "median", "p90", "2 rows");
        for (int k = 0; k < 3; k++)
            printf("  %-30s %12llu %9.1f %9.1f %9.1f %10.2f\n", labels[k], r[k].bytes, r[k].p10,
                   r[k].median, r[k].p90, r[k].row_us);
        double ratio = r[0].median / r[1].median;
        printf("target: time independent of file size; %.0fx the bytes, same header -> %.2fx the median time: %s\n",
               (double)r[0].bytes / (double)r[1].bytes, ratio, ratio < 3.0 ? "PASS" : "FAIL");
        printf("(headers: %llu, %llu and %llu bytes: the JSON parse, not the file size, sets the time)\n",
               r[0].header, r[1].header, r[2].header);
        if (ratio >= 3.0) rc = 1;
    }
    for (int k = 0; k < 3; k++) unlink(names[k]);
    return rc;
}
