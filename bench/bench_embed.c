/* SPDX-License-Identifier: MIT */
/* bench_embed.c — issue #4's lookup-and-add target: 1024 tokens -> (1024, 768) float32 sums
 * on gpt2's shapes in at most 2 ms, file in the page cache.
 *
 * Uses the embeddings-only file of gpt2's shapes shared with bench_similarity (bench_util.h:
 * bench_open_embeddings). IDs are a fixed pseudo-random draw over the vocabulary.
 * Median of 51 runs; a plain memcpy of the same rows is the peer in the same run (the floor
 * any lookup must pay).
 */
#include "../tests/fixture.h"
#include "bench_util.h"
#include "embed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define RUNS 51
#define T 1024

int main(void)
{
    g2e_model *m = bench_open_embeddings("bench_embed");
    if (!m)
        return 1;
    g2e_err e;
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
        double t0 = bench_now_ms();
        if (embed_rows(m, EMBED_PE_LEARNED, ids, T, 0, sum, NULL, NULL, &e) != 0) {
            fprintf(stderr, "bench_embed: %s\n", e.msg);
            return 1;
        }
        double t1 = bench_now_ms();
        for (int t = 0; t < T; t++) {
            memcpy(copy + (size_t)t * C, m->wte->bytes + (size_t)ids[t] * C * 4, C * 4);
            memcpy(copy + (size_t)(T + t) * C, m->wpe->bytes + (size_t)t * C * 4, C * 4);
        }
        double t2 = bench_now_ms();
        if (r >= 0) {
            t_add[r] = t1 - t0;
            t_copy[r] = t2 - t1;
        }
    }
    double med = bench_median(t_add, RUNS), med_copy = bench_median(t_copy, RUNS);
    printf("lookup-and-add, %d tokens x %zu (gpt2 shapes, page cache warm): median %.3f ms over %d runs"
           " (target <= 2 ms) %s; peer: memcpy of the same rows %.3f ms\n",
           T, C, med, RUNS, med <= 2.0 ? "MET" : "MISSED", med_copy);
    free(sum);
    free(copy);
    model_close(m);
    return 0;
}
