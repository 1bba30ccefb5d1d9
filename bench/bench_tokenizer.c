/* SPDX-License-Identifier: MIT */
/* bench_tokenizer.c — tokenizer throughput on bench/data/corpus.txt.gz (13,271,529 bytes of
 * English, code, Japanese, German, Russian and Chinese text), checked against tiktoken's
 * IDs (5,094,173 tokens; sha256 of the space-separated IDs + newline), target >= 150 MB/s
 * on one core; and the no-space worst case (1,000,000 x 'a') per byte against prose.
 *
 * Each run opens a fresh tokenizer (empty piece cache), so repeated runs do not flatter the
 * figure. Wall time and the thread's CPU time are both reported: on a shared machine the
 * CPU time is the steadier measure of the code itself. Medians of RUNS runs.
 * Left out: the cold start of the whole process and tiktoken (bench_tokenizer.sh).
 */
#include "tok_internal.h"
#include "tok_pretok.h"
#include "engine.h"
#include "tokenizer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RUNS 9
#define WANT_TOKENS 5094173u
#define WANT_SHA "a32e6decd62653603120d455d94ad9ca3021ac9f021a2977d913d98aa0c55603"

static double now(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static char *read_cmd(const char *cmd, size_t *len)
{
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    size_t cap = 1 << 24, n = 0;
    char *b = malloc(cap);
    for (;;) {
        if (!b)
            break;
        if (n == cap) {
            char *q = realloc(b, cap *= 2);
            if (!q) {
                free(b);
                b = NULL;
                break;
            }
            b = q;
        }
        size_t r = fread(b + n, 1, cap - n, p);
        if (!r)
            break;
        n += r;
    }
    if (pclose(p) != 0) {
        free(b);
        return NULL;
    }
    *len = n;
    return b;
}

/* Encodes text `runs` times (at most RUNS) with a fresh tokenizer; medians of wall and CPU
 * seconds. */
static int measure_runs(const char *text, size_t len, unsigned flags, unsigned threads, int runs, double *wall,
                        double *cpu, tok_ids *keep)
{
    double w[RUNS], c[RUNS];
    runs = runs < 1 ? 1 : runs > RUNS ? RUNS : runs;
    for (int r = 0; r < runs; r++) {
        g2e_err err;
        tok_tokenizer *t;
        eng *e;
        if (tok_open_builtin(&t, &err) || eng_new(&e, t, &err))
            return -1;
        tok_ids ids;
        double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_THREAD_CPUTIME_ID);
        int rc = eng_encode(e, threads, text, len, TOK_SPECIAL_TEXT, flags, &ids, NULL, &err);
        c[r] = now(CLOCK_THREAD_CPUTIME_ID) - c0;
        w[r] = now(CLOCK_MONOTONIC) - w0;
        eng_free(e);
        if (rc) {
            fprintf(stderr, "bench_tokenizer: %s\n", err.msg);
            return -1;
        }
        if (keep && r == 0)
            *keep = ids;
        else
            tok_ids_free(&ids);
    }
    qsort(w, (size_t)runs, sizeof w[0], cmp_d);
    qsort(c, (size_t)runs, sizeof c[0], cmp_d);
    *wall = w[runs / 2];
    *cpu = c[runs / 2];
    return 0;
}

static int measure(const char *text, size_t len, unsigned flags, unsigned threads, double *wall, double *cpu,
                   tok_ids *keep)
{
    return measure_runs(text, len, flags, threads, RUNS, wall, cpu, keep);
}

static int ids_sha256(const tok_ids *r, char out[65])
{
    char tmpl[] = "/tmp/g2e-bench-ids-XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0)
        return -1;
    FILE *f = fdopen(fd, "w");
    for (size_t i = 0; i < r->n; i++)
        fprintf(f, i ? " %u" : "%u", r->ids[i]);
    fputc('\n', f);
    fclose(f);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "sha256sum %s", tmpl);
    size_t n;
    char *o = read_cmd(cmd, &n);
    remove(tmpl);
    if (!o || n < 64) {
        free(o);
        return -1;
    }
    memcpy(out, o, 64);
    out[64] = '\0';
    free(o);
    return 0;
}

/* The pre-tokenizer alone over the text (no lookups, no BPE): median CPU seconds. It
 * bounds what the whole tokenizer can reach. */
static double pretok_cpu(const char *text, size_t len)
{
    double c[RUNS];
    uint32_t lens[64];
    for (int r = 0; r < RUNS; r++) {
        double c0 = now(CLOCK_THREAD_CPUTIME_ID);
        size_t pos = 0;
        while (pos < len) {
            size_t m = tok_pretok((const uint8_t *)text, len, pos, lens, 64);
            for (size_t k = 0; k < m; k++)
                pos += lens[k];
        }
        c[r] = now(CLOCK_THREAD_CPUTIME_ID) - c0;
    }
    qsort(c, RUNS, sizeof c[0], cmp_d);
    return c[RUNS / 2];
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* The floor under any pre-tokenizer that classifies bytes with AVX2: the six masks of
 * tok_pretok's blocks (letters, digits, white space, ' ', the apostrophe, bytes >= 0x80)
 * for every 64 bytes of s[0..n), folded into one word so that none is optimised away; no
 * piece found, no length written. */
__attribute__((target("avx2,bmi,bmi2,popcnt"))) static uint64_t classify_floor(const uint8_t *s, size_t n)
{
    uint64_t acc = 0;
    const __m256i lo_a = _mm256_set1_epi8((char)(0x80 - 'a')), top_a = _mm256_set1_epi8((char)(-128 + 26));
    const __m256i lo_0 = _mm256_set1_epi8((char)(0x80 - '0')), top_0 = _mm256_set1_epi8((char)(-128 + 10));
    const __m256i lo_t = _mm256_set1_epi8((char)(0x80 - '\t')), top_t = _mm256_set1_epi8((char)(-128 + 5));
    for (size_t i = 0; i + 64 <= n; i += 64) {
        __m256i h[2];
        uint64_t m[6] = {0};
        h[0] = _mm256_loadu_si256((const __m256i *)(const void *)(s + i));
        h[1] = _mm256_loadu_si256((const __m256i *)(const void *)(s + i + 32));
        for (int k = 0; k < 2; k++) {
            __m256i x = h[k], sp = _mm256_cmpeq_epi8(x, _mm256_set1_epi8(' '));
            __m256i c[6] = {x,
                            _mm256_cmpgt_epi8(top_a, _mm256_add_epi8(_mm256_or_si256(x, _mm256_set1_epi8(0x20)), lo_a)),
                            _mm256_cmpgt_epi8(top_0, _mm256_add_epi8(x, lo_0)),
                            _mm256_or_si256(sp, _mm256_cmpgt_epi8(top_t, _mm256_add_epi8(x, lo_t))), sp,
                            _mm256_cmpeq_epi8(x, _mm256_set1_epi8('\''))};
            for (int j = 0; j < 6; j++)
                m[j] |= (uint64_t)(uint32_t)_mm256_movemask_epi8(c[j]) << (32 * k);
        }
        acc += (m[0] ^ m[1] ^ m[2]) + (m[3] ^ m[4] ^ m[5]);
    }
    return acc;
}

static volatile uint64_t sink; /* classify_floor's result, so that it is computed */

/* classify_floor over the text: median CPU seconds. */
static double floor_cpu(const char *text, size_t len)
{
    double c[RUNS];

    for (int r = 0; r < RUNS; r++) {
        double c0 = now(CLOCK_THREAD_CPUTIME_ID);
        sink = classify_floor((const uint8_t *)text, len);
        c[r] = now(CLOCK_THREAD_CPUTIME_ID) - c0;
    }
    qsort(c, RUNS, sizeof c[0], cmp_d);
    return c[RUNS / 2];
}
#endif

/* The pre-tokenizer alone on each of its paths (tok_pretok.h), then back to the fastest. */
static void pretok_paths(const char *text, size_t len)
{
    static const struct {
        int path;
        const char *name;
    } paths[] = {{TOK_PRETOK_SCALAR, "the state machine alone"},
                 {TOK_PRETOK_BLOCKS, "64-byte blocks, SSE2"},
                 {TOK_PRETOK_AVX2, "64-byte blocks, AVX2"}};
    for (size_t k = 0; k < sizeof paths / sizeof paths[0]; k++)
        if (tok_pretok_use(paths[k].path) == paths[k].path)
            printf("    its paths: %-26s %6.1f MB/s CPU time\n", paths[k].name,
                   (double)len / pretok_cpu(text, len) / 1e6);
    tok_pretok_use(TOK_PRETOK_AUTO);
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2"))
        printf("    the floor: AVX2 byte classes of every 64 bytes, no pieces: %6.1f MB/s CPU time\n",
               (double)len / floor_cpu(text, len) / 1e6);
#endif
}

/* The corpus line by line (each line with its newline one text, as `tokenize --jsonl`
 * tokenizes corpus.jsonl) through eng_batch on one thread, fresh tokenizer each
 * of `runs` runs: median CPU seconds, or a huge value on failure. */
static double lines_run(const char *text, size_t len, int runs)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += text[i] == '\n';
    n += len && text[len - 1] != '\n';
    const char **texts = malloc((n ? n : 1) * sizeof *texts);
    size_t *lens = malloc((n ? n : 1) * sizeof *lens), *counts = malloc((n ? n : 1) * sizeof *counts);
    int *rcs = malloc((n ? n : 1) * sizeof *rcs);
    double c[RUNS];
    if (runs > RUNS)
        runs = RUNS;
    for (size_t i = 0, k = 0; texts && lens && i < len; k++) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t e = nl ? (size_t)(nl - text) + 1 : len;
        texts[k] = text + i, lens[k] = e - i;
        i = e;
    }
    for (int r = 0; r < runs; r++) {
        g2e_err err;
        tok_tokenizer *t;
        eng *e;
        uint32_t *ids = NULL;
        size_t bt, bo;
        c[r] = 1e9;
        if (!texts || !lens || !counts || !rcs || tok_open_builtin(&t, &err) || eng_new(&e, t, &err))
            continue;
        double c0 = now(CLOCK_THREAD_CPUTIME_ID);
        int rc = eng_batch(e, 1, n, texts, lens, TOK_SPECIAL_TEXT, TOK_NO_OFFSETS, &ids, counts, rcs, &bt, &bo, &err);
        c[r] = rc ? 1e9 : now(CLOCK_THREAD_CPUTIME_ID) - c0;
        free(ids);
        eng_free(e);
    }
    free(texts), free(lens), free(counts), free(rcs);
    qsort(c, (size_t)runs, sizeof c[0], cmp_d);
    return c[runs / 2];
}

/* `bench_tokenizer --once`: one IDs-only encode of the corpus and nothing else, for
 * instruction counts: valgrind --tool=callgrind --toggle-collect=tok_encode ... --once */
static int once(const char *text, size_t len)
{
    g2e_err err;
    tok_tokenizer *t;
    tok_ids ids;
    if (tok_open_builtin(&t, &err) || tok_encode(t, text, len, TOK_SPECIAL_TEXT, TOK_NO_OFFSETS, &ids, NULL, &err)) {
        fprintf(stderr, "bench_tokenizer: %s\n", err.msg);
        return 1;
    }
    printf("%zu tokens\n", ids.n);
    tok_ids_free(&ids);
    tok_close(t);
    return 0;
}

/* `bench_tokenizer --once-lines`: the same, line by line through eng_batch on one thread
 * (what `tokenize --jsonl` asks of the library), for --toggle-collect=eng_batch */
static int lines_once(const char *text, size_t len)
{
    return lines_run(text, len, 1) >= 1e9;
}

/* `bench_tokenizer --round`: the library measurements the whole process is compared with,
 * as the full run makes them (IDs only, a fresh tokenizer each time, after one encode to
 * warm up; medians of 3): the corpus on one thread, CPU and wall seconds; on every core,
 * wall; line by line on one thread, CPU. RESULT lines of seconds, for bench_tokenizer.sh's
 * rounds that alternate them with the process's runs. */
static int round_once(const char *text, size_t len)
{
    double w1, c1, wn, cn, lc;
    if (measure_runs(text, len, TOK_NO_OFFSETS, 1, 1, &w1, &c1, NULL) ||
        measure_runs(text, len, TOK_NO_OFFSETS, 1, 3, &w1, &c1, NULL) ||
        measure_runs(text, len, TOK_NO_OFFSETS, 0, 3, &wn, &cn, NULL) || (lc = lines_run(text, len, 3)) >= 1e9)
        return 1;
    printf("RESULT\tlib1cpu\t%.6f\nRESULT\tlib1wall\t%.6f\n", c1, w1);
    printf("RESULT\tlibNwall\t%.6f\nRESULT\tlines1cpu\t%.6f\n", wn, lc);
    return 0;
}

/* `bench_tokenizer --bpe [--once]`: BPE alone on the corpus's distinct pieces that are not
 * tokens (n >= 2, not in the vocabulary), in the order they first occur, each handed to
 * tok_bpe as the piece cache hands it (IDs copied for pieces of up to CACHE_KEY bytes): a
 * fresh tokenizer each run (empty pair memo and part cache, as on a first encode), median
 * CPU nanoseconds a piece of RUNS runs, and a checksum of the IDs. --once: one run, for
 * valgrind --toggle-collect=tok_bpe. */
static int bpe_alone(const char *text, size_t len, int runs)
{
    g2e_err err;
    tok_tokenizer *t;
    if (tok_open_builtin(&t, &err)) {
        fprintf(stderr, "bench_tokenizer: %s\n", err.msg);
        return 1;
    }
    const uint8_t *s = (const uint8_t *)text;
    size_t cap = 1 << 18, np = 0, bytes = 0;
    uint64_t *set = calloc(cap, sizeof *set); /* offset << 24 | length + 1, open addressing */
    uint64_t *pieces = malloc(cap / 2 * sizeof *pieces);
    uint32_t lens[256];
    for (size_t pos = 0; set && pieces && pos < len;) {
        size_t m = tok_pretok(s, len, pos, lens, 256);
        for (size_t k = 0; k < m; pos += lens[k++]) {
            size_t n = lens[k];
            if (n < 2 || n >= 1 << 24 || (n <= t->max_len && vocab_find(t, s + pos, n) != NONE))
                continue;
            uint64_t h = 1469598103934665603ull;
            for (size_t i = 0; i < n; i++)
                h = (h ^ s[pos + i]) * 1099511628211ull;
            size_t i = h & (cap - 1);
            for (; set[i]; i = (i + 1) & (cap - 1))
                if ((set[i] & 0xFFFFFF) == n + 1 && memcmp(s + (set[i] >> 24), s + pos, n) == 0)
                    break;
            if (set[i] || np == cap / 2)
                continue;
            set[i] = (uint64_t)pos << 24 | (n + 1);
            pieces[np++] = set[i];
            bytes += n;
        }
    }
    tok_close(t);
    double c[RUNS];
    uint64_t sum = 0;
    size_t nids = 0;
    int rc = !set || !pieces;
    for (int r = 0; r < runs && !rc; r++) {
        if (tok_open_builtin(&t, &err)) {
            fprintf(stderr, "bench_tokenizer: %s\n", err.msg);
            rc = 1;
            break;
        }
        obuf o = {0};
        uint32_t tmp[CACHE_KEY];
        size_t tn;
        double c0 = now(CLOCK_THREAD_CPUTIME_ID);
        for (size_t k = 0; k < np && !rc; k++) {
            size_t at = (size_t)(pieces[k] >> 24), n = (pieces[k] & 0xFFFFFF) - 1;
            rc = tok_bpe(t, s + at, n, &o, 0, n <= CACHE_KEY ? tmp : NULL, n <= CACHE_KEY ? &tn : NULL);
        }
        c[r] = now(CLOCK_THREAD_CPUTIME_ID) - c0;
        sum = 0;
        for (size_t k = 0; k < o.n; k++)
            sum = (sum ^ o.ids[k]) * 1099511628211ull;
        nids = o.n;
        free(o.ids);
        free(o.off);
        tok_close(t);
    }
    free(set);
    free(pieces);
    if (rc)
        return 1;
    qsort(c, (size_t)runs, sizeof c[0], cmp_d);
    printf("BPE alone: %zu distinct pieces that are not tokens (%zu bytes) -> %zu IDs, checksum %016llx\n", np,
           bytes, nids, (unsigned long long)sum);
    printf("  CPU %.1f ns a piece (median of %d runs, fresh tokenizer each; min %.1f, max %.1f)\n",
           c[runs / 2] * 1e9 / (double)np, runs, c[0] * 1e9 / (double)np, c[runs - 1] * 1e9 / (double)np);
    return 0;
}

int main(int argc, char **argv)
{
    size_t len;
    char *text = read_cmd("gzip -dc " G2E_SRCDIR "/bench/data/corpus.txt.gz", &len);
    if (!text) {
        fprintf(stderr, "bench_tokenizer: cannot read bench/data/corpus.txt.gz\n");
        return 1;
    }
    if (argc > 1 && strcmp(argv[1], "--pretok") == 0) { /* the pre-tokenizer's paths alone */
        pretok_paths(text, len);
        free(text);
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "--bpe") == 0) {
        int rc = bpe_alone(text, len, argc > 2 && strcmp(argv[2], "--once") == 0 ? 1 : RUNS);
        free(text);
        return rc;
    }
    if (argc > 1 && strcmp(argv[1], "--round") == 0) {
        int rc = round_once(text, len);
        free(text);
        return rc;
    }
    if (argc > 1 && (strcmp(argv[1], "--once") == 0 || strcmp(argv[1], "--once-lines") == 0)) {
        int rc = argv[1][6] ? lines_once(text, len) : once(text, len);
        free(text);
        return rc;
    }
    printf("tokenizer throughput, corpus %zu bytes, one thread, median of %d runs (fresh tokenizer each)\n",
           len, RUNS);
    tok_ids r;
    double w, c, w2, c2;
    if (measure(text, len, 0, 1, &w, &c, &r) || measure(text, len, TOK_NO_OFFSETS, 1, &w2, &c2, NULL))
        return 1;
    double L = (double)len, N = (double)r.n;
    char sha[65];
    int ok = r.n == WANT_TOKENS && ids_sha256(&r, sha) == 0 && strcmp(sha, WANT_SHA) == 0;
    printf("  IDs: %zu tokens, sha256 %s: %s\n", r.n, ok ? sha : "?",
           ok ? "identical to tiktoken" : "DIFFERENT FROM TIKTOKEN");
    printf("  with byte offsets: %6.1f MB/s wall (%5.2f M tokens/s), %6.1f MB/s CPU time\n", L / w / 1e6,
           N / w / 1e6, L / c / 1e6);
    printf("  IDs only:          %6.1f MB/s wall (%5.2f M tokens/s), %6.1f MB/s CPU time\n", L / w2 / 1e6,
           N / w2 / 1e6, L / c2 / 1e6);
    /* "on one core": the thread's CPU time; on a shared machine the wall time also counts
     * the waits for a core, which is why both are printed */
    double best = L / c2 / 1e6;
    printf("  target >= 150 MB/s on one core (IDs only, CPU time): %s (%.1f MB/s)\n",
           best >= 150 ? "met" : "NOT MET", best);
    printf("  the pre-tokenizer alone (pieces only): %6.1f MB/s CPU time\n", L / pretok_cpu(text, len) / 1e6);
    pretok_paths(text, len);

    /* every core: the same IDs and offsets, split at safe cuts */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    tok_ids rt;
    double wt, ct, wt2, ct2;
    if (measure(text, len, 0, 0, &wt, &ct, &rt) || measure(text, len, TOK_NO_OFFSETS, 0, &wt2, &ct2, NULL))
        return 1;
    int same = rt.n == r.n && memcmp(rt.ids, r.ids, r.n * sizeof *r.ids) == 0 &&
               memcmp(rt.offsets, r.offsets, (r.n + 1) * sizeof *r.offsets) == 0;
    ok = ok && same;
    printf("  %ld threads, IDs only: %6.1f MB/s wall (%.2fx one thread); with offsets %6.1f MB/s; %s\n", cpus,
           L / wt2 / 1e6, w2 / wt2, L / wt / 1e6,
           same ? "IDs and offsets identical to one thread" : "DIFFERENT FROM ONE THREAD");
    /* the same text as `tokenize --jsonl` gets it from bench_tokenizer.sh's corpus.jsonl:
     * one text per line (its newline kept), by the library's call for many texts */
    double lc = lines_run(text, len, RUNS);
    printf("  line by line (eng_batch, one thread, IDs only): %6.1f MB/s CPU time\n", L / lc / 1e6);
    printf("RESULT\tlib1lines\t%.2f\n", L / lc / 1e6);
    /* for bench_tokenizer.sh: the library's figures the whole process is compared with */
    printf("RESULT\tlib1\t%.2f\nRESULT\tlibN\t%.2f\nRESULT\tlib1cpu\t%.2f\n", L / w2 / 1e6, L / wt2 / 1e6,
           L / c2 / 1e6);
    tok_ids_free(&rt);
    tok_ids_free(&r);

    /* the no-space worst case: one 1 MB piece, BPE by heap */
    size_t n = 1000000;
    char *a = malloc(n);
    memset(a, 'a', n);
    double wa, ca;
    tok_ids ra;
    if (measure(a, n, 0, 1, &wa, &ca, &ra))
        return 1;
    int aok = ra.n == 250000;
    for (size_t i = 0; aok && i < ra.n; i++)
        aok = ra.ids[i] == 24794;
    printf("  1,000,000 x 'a' (no space): %.1f ms CPU (%.1f ms wall), %.2fx the corpus CPU time per byte; %s\n",
           ca * 1e3, wa * 1e3, (ca / 1e6) / (c / L), aok ? "250,000 x 24794 as expected" : "WRONG IDS");
    tok_ids_free(&ra);
    free(a);
    free(text);
    return ok && aok ? 0 : 1;
}
