/* bench_embed.c — issue #4's lookup-and-add target: 1024 tokens -> (1024, 768) float32 sums
 * on gpt2's shapes in at most 2 ms, file in the page cache.
 *
 * Uses the embeddings-only file that bench_similarity writes (gpt2's wte and wpe, every row
 * filled; written here if missing). IDs are a fixed pseudo-random draw over the vocabulary.
 * Median of 51 runs; a plain memcpy of the same rows is the peer in the same run (the floor
 * any lookup must pay).
 */
#include "../tests/fixture.h"
#include "embed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define RUNS 51
#define T 1024

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(void)
{
    const char *path = G2E_TEST_TMP "/bench-embeddings-gpt2.safetensors";
    struct stat st;
    mkdir(G2E_TEST_TMP, 0755);
    if (stat(path, &st) != 0) {
        fixture_opts o;
        memset(&o, 0, sizeof o);
        o.n_vocab = 50257;
        o.n_ctx = 1024;
        o.n_embd = 768;
        o.dtype = ST_F32;
        char e[256];
        if (fixture_write(path, &o, e, sizeof e) != 0) {
            fprintf(stderr, "bench_embed: %s\n", e);
            return 1;
        }
    }
    g2e_model *m = NULL;
    g2e_err e;
    if (model_open(&m, path, &e) != 0) {
        fprintf(stderr, "bench_embed: %s\n", e.msg);
        return 1;
    }
    uint32_t ids[T];
    uint64_t x = 0x9E3779B97F4A7C15ULL;
    for (int t = 0; t < T; t++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        ids[t] = (uint32_t)(x % m->n_vocab);
    }
    size_t C = m->n_embd;
    float *sum = malloc(T * C * sizeof *sum), *copy = malloc(2 * T * C * sizeof *copy);
    double t_add[RUNS], t_copy[RUNS];
    for (int r = -3; r < RUNS; r++) {   /* 3 warm-up runs page the rows in */
        double t0 = now_ms();
        if (embed_rows(m, EMBED_PE_LEARNED, ids, T, 0, sum, NULL, NULL, &e) != 0) {
            fprintf(stderr, "bench_embed: %s\n", e.msg);
            return 1;
        }
        double t1 = now_ms();
        for (int t = 0; t < T; t++) {
            memcpy(copy + (size_t)t * C, m->st->data + m->wte->begin + (size_t)ids[t] * C * 4, C * 4);
            memcpy(copy + (size_t)(T + t) * C, m->st->data + m->wpe->begin + (size_t)t * C * 4, C * 4);
        }
        double t2 = now_ms();
        if (r >= 0) {
            t_add[r] = t1 - t0;
            t_copy[r] = t2 - t1;
        }
    }
    qsort(t_add, RUNS, sizeof *t_add, cmp_d);
    qsort(t_copy, RUNS, sizeof *t_copy, cmp_d);
    double med = t_add[RUNS / 2];
    printf("lookup-and-add, %d tokens x %zu (gpt2 shapes, page cache warm): median %.3f ms over %d runs"
           " (target <= 2 ms) %s; peer: memcpy of the same rows %.3f ms\n",
           T, C, med, RUNS, med <= 2.0 ? "MET" : "MISSED", t_copy[RUNS / 2]);
    free(sum);
    free(copy);
    model_close(m);
    return 0;
}
