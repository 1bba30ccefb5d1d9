/* SPDX-License-Identifier: MIT */
/* thread_ceiling.c — what two threads can get on this machine at all (issue 14's target:
 * 2 threads >= 1.8x one thread), and where the tokenizer stands against that ceiling.
 *
 * Each workload is run as the same work W on one thread (1T), as W on each of two threads at
 * once (2T) and as W in each of two processes at once (2P); the speed-up of 2T is
 * 2 x time(1T) / time(2T) (2.00: the second thread came free). The three are run in turn
 * (1T, 2T, 2P, then 2T, 2P, 1T, ...) REPS times and the medians of the per-round ratios are
 * printed with their quartiles, so a burst of load from other users of the machine spoils
 * a round, not a condition. A condition's time is its slowest worker's run time: wall time
 * minus the time it waited for a CPU (/proc/thread-self/schedstat), so that another process
 * preempting a worker does not count, while two threads slowing each other down (SMT
 * siblings, shared caches, the memory bus) or one waiting for the other (a split that is
 * not balanced) do. "cpu/work" is the CPU time per unit of work on 2T (2P) over 1T
 * (CLOCK_THREAD_CPUTIME_ID): preemption does not raise it, sharing hardware does. The plain
 * wall-clock speed-up over the rounds where no worker waited (clean rounds), steal time
 * (/proc/stat) and the load average are printed beside.
 *
 * Workloads, each thread/process with its own data (the tokenizer's per-thread caches are
 * private too); tables are mmap'd with MADV_HUGEPAGE like the tokenizer's caches (-p: 4 KB
 * pages):
 *   dep        one dependent 64-bit multiply chain in registers (latency-bound)
 *   ilp        eight independent add/xor/rotate chains (execution-unit-bound)
 *   chase S    a random cyclic walk over the cache lines of an S-byte table (each load's
 *              address is the previous load's value: memory latency)
 *   probe S    loads at hashed positions of an S-byte table, independent of each other
 *   batch S    the same, 64 at a time: hashed and prefetched, then loaded (tokenizer.c's
 *              hash_batch / encode_batch pattern)
 *   stream     sequential sum over a 100 MB buffer (memory bandwidth)
 * and, unless built with -DTC_NO_TOKENIZER, the tokenizer on bench/data/corpus.txt.gz (IDs
 * only, TOK_SPECIAL_TEXT, checked against the token count of tiktoken's IDs):
 *   tok-whole  W = the whole corpus, a tokenizer per thread kept from run to run (warm)
 *   tok-cold   the same with a fresh tokenizer per run (empty caches, as bench_tokenizer)
 *   tok-half   1T: the whole corpus; 2T/2P: each thread/process its half (cut where
 *              tok_pretok_cut says), own tokenizer, warm; speed-up time(1T) / time(2T)
 *   tok-halfc  the same, cold
 *   tok-lib    1T: tok_encode with 1 thread; 2T: with 2 (the library's own split, 8 parts
 *              over a queue; 2P not applicable), fresh tokenizer per run as bench_tokenizer
 *   tok-libw   the same with the tokenizer (and its worker) kept from run to run (warm)
 *   tok-count  the same through eng_count (the engine's 64 KB chunks), what `count` does
 *   tok-ids    the same through toks_write_ids (IDs as text, thrown away), what `tokenize
 *              --format ids` does
 *   (the library's own threads are not seen by the run time: their waits for a CPU count)
 *
 * Build: make build/bench/thread_ceiling (with the tokenizer), or on its own:
 *   cc -O2 -pthread -DTC_NO_TOKENIZER -o thread_ceiling bench/thread_ceiling.c
 * Usage: thread_ceiling [-r REPS] [-t MS] [-p] [-q] [WORKLOAD-PREFIX...]
 *   -r REPS  rounds per workload (default 15);
 *   -t MS    CPU time of one 1T run (default 60);
 *   -p       4 KB pages for the tables (no MADV_HUGEPAGE)
 *   -q       before each round, wait (up to 1 s) for a quiet moment (CPUs 90 % idle for
 *            100 ms)
 * Not in `make bench` (it takes minutes and measures the machine, not the program).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef TC_NO_TOKENIZER
#include "tok_pretok.h"
#include "engine.h"
#include "tokwrite.h"
#include "tokenizer.h"
#define CORPUS_TOKENS 5094173u
#endif

#define MAX_REPS 101

/* ---------------------------------------------------------------- clocks, /proc */

static double now(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The first 8 columns of /proc/stat's cpu line (jiffies of all CPUs: user, nice, system,
 * idle, iowait, irq, softirq, steal) into v: 0, or -1 when unreadable. */
static int proc_stat_cpu(unsigned long long v[8])
{
    FILE *f = fopen("/proc/stat", "r");
    int k = f ? fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
                       &v[5], &v[6], &v[7])
              : 0;
    if (f)
        fclose(f);
    return k == 8 ? 0 : -1;
}

/* Steal time of all CPUs in seconds (column 8 of /proc/stat's cpu line), or -1. */
static double steal_seconds(void)
{
    unsigned long long v[8];
    return proc_stat_cpu(v) ? -1 : (double)v[7] / (double)sysconf(_SC_CLK_TCK);
}

/* Seconds this thread has been runnable but waiting for a CPU (the second field of
 * /proc/thread-self/schedstat, nanoseconds), or 0 when the kernel does not say. */
static double run_delay(void)
{
    FILE *f = fopen("/proc/thread-self/schedstat", "r");
    unsigned long long on = 0, wait = 0;
    if (f) {
        if (fscanf(f, "%llu %llu", &on, &wait) != 2)
            wait = 0;
        fclose(f);
    }
    return (double)wait * 1e-9;
}

/* Idle jiffies and all jiffies of both CPUs so far (/proc/stat's cpu line). */
static int cpu_jiffies(unsigned long long *idle, unsigned long long *all)
{
    unsigned long long v[8] = {0};
    int rc = proc_stat_cpu(v);
    *idle = v[3] + v[4];
    *all = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
    return rc;
}

/* Waits (at most 1 s) for a 100 ms window in which the CPUs were at least 90 % idle: a
 * round starts when other users of the machine leave it alone, if they do. Returns 1 if
 * one came. */
static int wait_quiet(void)
{
    for (int tries = 0; tries < 10; tries++) {
        unsigned long long i0, a0, i1, a1;
        if (cpu_jiffies(&i0, &a0))
            return 0;
        struct timespec ts = {0, 100000000};
        nanosleep(&ts, NULL);
        if (cpu_jiffies(&i1, &a1))
            return 0;
        if (a1 > a0 && (double)(i1 - i0) >= 0.9 * (double)(a1 - a0))
            return 1;
    }
    return 0;
}

static double loadavg1(void)
{
    FILE *f = fopen("/proc/loadavg", "r");
    double l = -1;
    if (f) {
        if (fscanf(f, "%lf", &l) != 1)
            l = -1;
        fclose(f);
    }
    return l;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The q-quantile (0..1) of v[0..n) (sorted in place), nearest rank. */
static double quantile(double *v, int n, double q)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    int i = (int)(q * (n - 1) + 0.5);
    return v[i];
}

/* ---------------------------------------------------------------- workloads */

enum kind { K_DEP, K_ILP, K_CHASE, K_PROBE, K_BATCH, K_STREAM, K_TOK_WHOLE, K_TOK_COLD, K_TOK_HALF,
            K_TOK_HALFC, K_TOK_LIB, K_TOK_LIBW, K_TOK_COUNT, K_TOK_IDS };

static int small_pages, quiet_first;

static uint64_t mix64(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

static void *table_alloc(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
#ifdef MADV_HUGEPAGE
    if (!small_pages)
        madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return p;
}

/* One worker's state: its table (or buffer), a position carried from run to run. */
typedef struct wstate {
    enum kind kind;
    size_t bytes;
    uint64_t *tab;
    uint64_t pos, seed;
#ifndef TC_NO_TOKENIZER
    eng *tok[2]; /* warm tokenizers: [0] one thread, [1] two (tok-lib) */
#endif
} wstate;

static int setup(wstate *w, enum kind kind, size_t bytes, uint64_t seed)
{
    w->kind = kind;
    w->bytes = bytes;
    w->pos = 0;
    w->seed = seed;
    w->tab = NULL;
    if (kind == K_CHASE || kind == K_PROBE || kind == K_BATCH || kind == K_STREAM) {
        if (!(w->tab = table_alloc(bytes)))
            return -1;
    }
    size_t n = bytes / 8;
    if (kind == K_CHASE) {
        /* one node per 64-byte line; a random single cycle over the nodes (Sattolo) */
        size_t nodes = bytes / 64;
        uint32_t *perm = malloc(nodes * sizeof *perm);
        if (!perm)
            return -1;
        for (size_t i = 0; i < nodes; i++)
            perm[i] = (uint32_t)i;
        uint64_t r = seed;
        for (size_t i = nodes - 1; i > 0; i--) {
            r = mix64(r + i);
            size_t j = r % i;
            uint32_t x = perm[i];
            perm[i] = perm[j];
            perm[j] = x;
        }
        for (size_t i = 0; i < nodes; i++)
            w->tab[(size_t)i * 8] = perm[i];
        free(perm);
    } else if (kind == K_PROBE || kind == K_BATCH) {
        for (size_t i = 0; i < n; i++)
            w->tab[i] = mix64(seed ^ i);
    } else if (kind == K_STREAM) {
        for (size_t i = 0; i < n; i++)
            w->tab[i] = i ^ seed;
    }
    return 0;
}

static void teardown(wstate *w)
{
    if (w->tab)
        munmap(w->tab, w->bytes);
    w->tab = NULL;
#ifndef TC_NO_TOKENIZER
    for (int k = 0; k < 2; k++) {
        eng_free(w->tok[k]);
        w->tok[k] = NULL;
    }
#endif
}

#ifndef TC_NO_TOKENIZER
static char *corpus;
static size_t corpus_len, corpus_cut;

static int read_corpus(void)
{
    FILE *p = popen("gzip -dc " G2E_SRCDIR "/bench/data/corpus.txt.gz", "r");
    if (!p)
        return -1;
    size_t cap = (size_t)1 << 25, n = 0, r;
    char *b = malloc(cap);
    while (b && (r = fread(b + n, 1, cap - n, p)) > 0)
        if ((n += r) == cap && !(b = realloc(b, cap *= 2)))
            break;
    if (pclose(p) != 0 || !b) {
        free(b);
        return -1;
    }
    corpus = b;
    corpus_len = n;
    corpus_cut = tok_pretok_cut((const uint8_t *)b, n, n / 2);
    return 0;
}

/* One encode of part `part` (0: first half, 1: second, 2: whole) with `threads` threads:
 * the number of IDs, or 0 on failure. */
static uint64_t tok_run(wstate *w, int part, unsigned threads, int warm)
{
    const char *s = part == 1 ? corpus + corpus_cut : corpus;
    size_t n = part == 0 ? corpus_cut : part == 1 ? corpus_len - corpus_cut : corpus_len;
    eng **slot = &w->tok[threads > 1], *e = warm ? *slot : NULL;
    g2e_err err;
    tok_tokenizer *t;
    if (!e && (tok_open_builtin(&t, &err) || eng_new(&e, t, &err)))
        return 0;
    tok_ids ids;
    uint64_t got = eng_encode(e, threads, s, n, TOK_SPECIAL_TEXT, TOK_NO_OFFSETS, &ids, NULL, &err) ? 0 : ids.n;
    if (got)
        tok_ids_free(&ids);
    if (warm)
        *slot = e;
    else
        eng_free(e);
    return got;
}
#endif

#ifndef TC_NO_TOKENIZER
static int discard(void *user, const void *p, size_t n)
{
    (void)p;
    *(size_t *)user += n;
    return 0;
}

/* What `count` and `tokenize --format ids` ask of the engine (its chunks over the threads,
 * formatted in them) on the whole corpus, fresh tokenizer: the number of tokens, or 0 on
 * failure (ids: the corpus's count when the call succeeded and wrote). */
static uint64_t stream_run(int ids, unsigned threads)
{
    g2e_err err;
    uint64_t got = 0;
    if (ids) { /* the program's writer, on the door */
        gpt2embed_tokenizer *pt;
        gpt2embed_error perr;
        size_t bytes = 0, rep;
        if (gpt2embed_tokenizer_open(&pt, NULL, &perr) == 0 &&
            toks_write_ids(pt, threads, 0, corpus, corpus_len, GPT2EMBED_SPECIAL_TEXT, discard, &bytes, &rep, &err) ==
                0 &&
            bytes)
            got = CORPUS_TOKENS;
        gpt2embed_tokenizer_close(pt);
        return got;
    }
    tok_tokenizer *t;
    eng *e;
    if (tok_open_builtin(&t, &err) || eng_new(&e, t, &err))
        return 0;
    eng_counts c;
    if (eng_count(e, threads, corpus, corpus_len, 0, 0, &c, &err) == 0)
        got = c.tokens;
    eng_free(e);
    return got;
}
#endif

/* Runs `iters` units of w's work; `arg` is the part / thread count of tokenizer workloads.
 * Returns a checksum (kept so the compiler cannot drop the work). */
static __attribute__((noinline)) uint64_t run(wstate *w, uint64_t iters, int arg)
{
    uint64_t s = 0;
    (void)arg; /* only the tokenizer's workloads use it */
    switch (w->kind) {
    case K_DEP: {
        uint64_t x = w->pos | 1;
        for (uint64_t i = 0; i < iters; i++)
            x = x * 0x9E3779B97F4A7C15ull + 1;
        s = w->pos = x;
        break;
    }
    case K_ILP: {
        /* eight scalar chains, 3 ALU operations each per round; the empty asm keeps them
         * in general registers (the compiler would otherwise vectorise the chains) */
        uint64_t a = w->pos, b = a + 1, c = a + 2, d = a + 3, e = a + 4, f = a + 5, g = a + 6, h = a + 7;
#define STEP(x, k) x = ((x << 7 | x >> 57) ^ i) + k
        for (uint64_t i = 0; i < iters; i++) {
            STEP(a, 1); STEP(b, 2); STEP(c, 3); STEP(d, 4); STEP(e, 5); STEP(f, 6); STEP(g, 7); STEP(h, 8);
            __asm__("" : "+r"(a), "+r"(b), "+r"(c), "+r"(d), "+r"(e), "+r"(f), "+r"(g), "+r"(h));
        }
#undef STEP
        s = w->pos = a ^ b ^ c ^ d ^ e ^ f ^ g ^ h;
        break;
    }
    case K_CHASE: {
        uint64_t i = w->pos;
        for (uint64_t k = 0; k < iters; k++)
            i = w->tab[i * 8];
        s = w->pos = i;
        break;
    }
    case K_PROBE: {
        uint64_t mask = w->bytes / 8 - 1, j = w->pos;
        for (uint64_t k = 0; k < iters; k++, j++)
            s += w->tab[mix64(j) & mask];
        w->pos = j;
        break;
    }
    case K_BATCH: {
        uint64_t mask = w->bytes / 8 - 1, j = w->pos, at[64];
        for (uint64_t k = 0; k < iters; k += 64) {
            for (int b = 0; b < 64; b++) {
                at[b] = mix64(j + (uint64_t)b) & mask;
                __builtin_prefetch(&w->tab[at[b]]);
            }
            for (int b = 0; b < 64; b++)
                s += w->tab[at[b]];
            j += 64;
        }
        w->pos = j;
        break;
    }
    case K_STREAM: {
        uint64_t n = w->bytes / 8, p = w->pos;
        while (iters) {
            uint64_t m = n - p < iters ? n - p : iters;
            for (uint64_t k = 0; k < m; k++)
                s += w->tab[p + k];
            iters -= m;
            p = (p + m) % n;
        }
        w->pos = p;
        break;
    }
#ifndef TC_NO_TOKENIZER
    case K_TOK_WHOLE:
    case K_TOK_HALF:
        s = tok_run(w, arg, 1, 1);
        break;
    case K_TOK_COLD:
    case K_TOK_HALFC:
        s = tok_run(w, arg, 1, 0);
        break;
    case K_TOK_LIB:
    case K_TOK_LIBW:
        s = tok_run(w, 2, (unsigned)arg, w->kind == K_TOK_LIBW);
        break;
    case K_TOK_COUNT:
    case K_TOK_IDS:
        s = stream_run(w->kind == K_TOK_IDS, (unsigned)arg);
        break;
#endif
    default:
        break;
    }
    return s;
}

/* ---------------------------------------------------------------- workers */

/* A worker (thread or process) reads commands from one pipe and answers on another. */
enum op { OP_SETUP, OP_RUN, OP_TEARDOWN, OP_QUIT };
typedef struct cmd {
    int op, kind, arg;
    size_t bytes;
    uint64_t iters, seed;
} cmd;
typedef struct reply {
    double wall, cpu;
    uint64_t sum;
    double waited; /* seconds runnable but waiting for a CPU during the run (schedstat) */
    int rc;
} reply;

typedef struct worker {
    int to[2], from[2];
    pthread_t th;
    pid_t pid;
} worker;

static int read_all(int fd, void *p, size_t n)
{
    for (size_t got = 0; got < n;) {
        ssize_t r = read(fd, (char *)p + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    return 0;
}

static int write_all(int fd, const void *p, size_t n)
{
    for (size_t put = 0; put < n;) {
        ssize_t r = write(fd, (const char *)p + put, n - put);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        put += (size_t)r;
    }
    return 0;
}

static void serve(int in, int out)
{
    wstate w;
    memset(&w, 0, sizeof w);
    cmd c;
    while (read_all(in, &c, sizeof c) == 0 && c.op != OP_QUIT) {
        reply r = {0, 0, 0, 0, 0};
        if (c.op == OP_SETUP) {
            r.rc = setup(&w, (enum kind)c.kind, c.bytes, c.seed);
        } else if (c.op == OP_RUN) {
            /* tok-lib's second thread is the library's: the process's CPU time (the other
             * workers of this process wait in read() meanwhile) */
            int whole = w.kind >= K_TOK_LIB && c.arg > 1;
            clockid_t cc = whole ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_THREAD_CPUTIME_ID;
            double d0 = run_delay(), w0 = now(CLOCK_MONOTONIC), c0 = now(cc);
            r.sum = run(&w, c.iters, c.arg);
            r.cpu = now(cc) - c0;
            r.wall = now(CLOCK_MONOTONIC) - w0;
            r.waited = run_delay() - d0;
        } else {
            teardown(&w);
        }
        if (write_all(out, &r, sizeof r))
            break;
    }
    teardown(&w);
}

static void *thread_main(void *arg)
{
    worker *k = arg;
    serve(k->to[0], k->from[1]);
    return NULL;
}

static int worker_start(worker *k, int as_process)
{
    if (pipe(k->to) || pipe(k->from))
        return -1;
    if (!as_process) {
        k->pid = 0;
        return pthread_create(&k->th, NULL, thread_main, k) ? -1 : 0;
    }
    fflush(NULL);
    k->pid = fork();
    if (k->pid < 0)
        return -1;
    if (k->pid == 0) {
        /* only its own two ends stay open: when the parent dies, read() sees the end */
        for (int fd = 3; fd < 1024; fd++)
            if (fd != k->to[0] && fd != k->from[1])
                close(fd);
        serve(k->to[0], k->from[1]);
        _exit(0);
    }
    close(k->to[0]);
    close(k->from[1]);
    return 0;
}

static void worker_stop(worker *k)
{
    cmd c = {.op = OP_QUIT};
    write_all(k->to[1], &c, sizeof c);
    if (k->pid > 0)
        waitpid(k->pid, NULL, 0);
    else
        pthread_join(k->th, NULL);
}

/* Sends c to the n workers ks[0..n) (with arg[i] each), waits for all: the wall time from
 * the first send to the last answer; replies in r[]. */
static double call(worker **ks, int n, cmd c, const int *arg, reply *r)
{
    double t0 = now(CLOCK_MONOTONIC);
    for (int i = 0; i < n; i++) {
        c.arg = arg ? arg[i] : 0;
        if (write_all(ks[i]->to[1], &c, sizeof c))
            return -1;
    }
    for (int i = 0; i < n; i++)
        if (read_all(ks[i]->from[0], &r[i], sizeof r[i]))
            return -1;
    return now(CLOCK_MONOTONIC) - t0;
}

/* ---------------------------------------------------------------- the table */

typedef struct workload {
    const char *name;
    enum kind kind;
    size_t bytes;
} workload;

#define KB ((size_t)1 << 10)
#define MB ((size_t)1 << 20)
static const workload loads[] = {
    {"dep", K_DEP, 0},
    {"ilp", K_ILP, 0},
    {"chase", K_CHASE, 64 * KB}, {"chase", K_CHASE, 256 * KB}, {"chase", K_CHASE, 1 * MB},
    {"chase", K_CHASE, 4 * MB},  {"chase", K_CHASE, 16 * MB},  {"chase", K_CHASE, 64 * MB},
    {"probe", K_PROBE, 64 * KB}, {"probe", K_PROBE, 256 * KB}, {"probe", K_PROBE, 1 * MB},
    {"probe", K_PROBE, 4 * MB},  {"probe", K_PROBE, 16 * MB},  {"probe", K_PROBE, 64 * MB},
    {"batch", K_BATCH, 64 * KB}, {"batch", K_BATCH, 256 * KB}, {"batch", K_BATCH, 1 * MB},
    {"batch", K_BATCH, 4 * MB},  {"batch", K_BATCH, 16 * MB},  {"batch", K_BATCH, 64 * MB},
    {"stream", K_STREAM, 100 * MB},
#ifndef TC_NO_TOKENIZER
    {"tok-whole", K_TOK_WHOLE, 0}, {"tok-cold", K_TOK_COLD, 0}, {"tok-half", K_TOK_HALF, 0},
    {"tok-halfc", K_TOK_HALFC, 0}, {"tok-lib", K_TOK_LIB, 0}, {"tok-libw", K_TOK_LIBW, 0}, {"tok-count", K_TOK_COUNT, 0},
    {"tok-ids", K_TOK_IDS, 0},
#endif
};

static int is_tok(enum kind k) { return k >= K_TOK_WHOLE; }
/* 2T/2P split W between the two (speed-up t1 / t2) instead of doing W each (2 t1 / t2). */
/* The library splits the work itself: 1T and 2T are one call with 1 or 2 threads. */
static int is_lib(enum kind k) { return k >= K_TOK_LIB; }
static int is_split(enum kind k) { return k == K_TOK_HALF || k == K_TOK_HALFC || is_lib(k); }

static void size_name(size_t b, char *out, size_t cap)
{
    if (!b)
        snprintf(out, cap, "-");
    else if (b >= MB)
        snprintf(out, cap, "%zu MB", b / MB);
    else
        snprintf(out, cap, "%zu KB", b / KB);
}

/* Median and quartiles of v[0..n) as "1.23x [1.10-1.40]" (v is sorted). */
static void med_q(double *v, int n, char *out, size_t cap)
{
    if (n == 0)
        snprintf(out, cap, "%-19s", "     -");
    else
        snprintf(out, cap, "%5.2fx [%4.2f-%4.2f]", quantile(v, n, 0.5), quantile(v, n, 0.25), quantile(v, n, 0.75));
}

/* One workload: `reps` rounds of 1T, 2T, 2P (rotated); prints one line. A condition's time
 * is the longest of its workers' run times: wall time minus the time it waited for a CPU
 * (schedstat), so that other processes preempting a worker do not count, while two threads
 * slowing each other down (shared core, caches, memory) and one waiting for the other (an
 * unbalanced split) do; tok-lib's library thread is not seen (its waits count). Beside it,
 * the plain wall-clock speed-up over the clean rounds (no worker waited over 2 % of its run). */
static int measure(const workload *L, worker *th, worker *pr, int reps, double target)
{
    enum kind k = L->kind;
    worker *t1[1] = {&th[0]}, *t2[2] = {&th[0], &th[1]}, *p2[2] = {&pr[0], &pr[1]};
    worker *all[4] = {&th[0], &th[1], &pr[0], &pr[1]};
    reply r[4];
    cmd c = {.op = OP_SETUP, .kind = k, .bytes = L->bytes};
    for (int i = 0; i < 4; i++) { /* each with its own seed: different tables */
        c.seed = 0x1234567ull * (uint64_t)(i + 1);
        worker *one[1] = {all[i]};
        if (call(one, 1, c, NULL, r) < 0 || r[0].rc) {
            fprintf(stderr, "thread_ceiling: cannot set up %s\n", L->name);
            return -1;
        }
    }
    /* calibration, on CPU time: iterations for about `target` seconds on one thread */
    uint64_t iters = 1;
    c.op = OP_RUN;
    int whole[2] = {2, 2}, halves[2] = {0, 1}, one_t[1] = {1}, two_t[1] = {2};
    if (!is_tok(k)) {
        iters = 1 << 16;
        for (;;) {
            c.iters = iters;
            if (call(t1, 1, c, NULL, r) < 0)
                return -1;
            if (r[0].cpu >= target / 4) {
                iters = (uint64_t)((double)iters * target / r[0].cpu) + 64;
                break;
            }
            iters *= 4;
        }
    }
    c.iters = iters;
    /* what each condition sends: 1T the whole W; 2T/2P W each, or halves of it */
    const int *a1 = is_lib(k) ? one_t : whole;
    const int *a2 = is_lib(k) ? two_t : is_split(k) ? halves : whole;
    int n2 = is_lib(k) ? 1 : 2, has_p = !is_lib(k);
    call(t1, 1, c, a1, r); /* one warm-up of each */
    call(t2, n2, c, a2, r);
    if (has_p)
        call(p2, 2, c, a2, r);
    static double s2[MAX_REPS], sp[MAX_REPS], sc[MAX_REPS], cw2[MAX_REPS], cwp[MAX_REPS], w1[MAX_REPS],
        w2[MAX_REPS], wp[MAX_REPS], bal[MAX_REPS];
    double steal0 = steal_seconds(), load0 = loadavg1(), tstart = now(CLOCK_MONOTONIC);
    int bad_ids = 0, clean = 0, quiet = 0;
    for (int rep = 0; rep < reps; rep++) {
        if (quiet_first)
            quiet += wait_quiet();
        double t[3] = {0, 0, 0}, run_t[3] = {0, 0, 0}, cpu[3] = {0, 0, 0}, b = 1;
        int pre = 0;
        for (int j = 0; j < 3; j++) {
            int cond = (rep + j) % 3;
            if (cond == 2 && !has_p)
                continue;
            worker **ks = cond == 0 ? t1 : cond == 1 ? t2 : p2;
            int n = cond == 0 ? 1 : cond == 1 ? n2 : 2;
            t[cond] = call(ks, n, c, cond == 0 ? a1 : a2, r);
            if (t[cond] < 0)
                return -1;
            uint64_t ids = 0;
            for (int i = 0; i < n; i++) {
                double ran = r[i].wall - r[i].waited;
                run_t[cond] = ran > run_t[cond] ? ran : run_t[cond];
                cpu[cond] += r[i].cpu / n;
                ids += r[i].sum;
                pre |= r[i].waited > 0.02 * r[i].wall; /* waited for a CPU over 2 % of its run */
            }
            if (cond == 1 && n == 2) /* the shorter thread's run over the longer's */
                b = r[0].wall < r[1].wall ? r[0].wall / r[1].wall : r[1].wall / r[0].wall;
#ifndef TC_NO_TOKENIZER
            /* the IDs' count: the corpus once (1T, halves, tok-lib) or on each of the two */
            if (is_tok(k) && ids != (uint64_t)CORPUS_TOKENS * (cond && !is_split(k) ? 2 : 1))
                bad_ids++;
#else
            (void)ids;
#endif
        }
        double f = is_split(k) ? 1 : 2;
        s2[rep] = f * run_t[0] / run_t[1];
        sp[rep] = has_p ? f * run_t[0] / run_t[2] : 0;
        w1[rep] = run_t[0], w2[rep] = run_t[1], wp[rep] = run_t[2], bal[rep] = b;
        /* CPU time per unit of work on 2T/2P over 1T (tok-lib: both threads' sum; halves:
         * the two halves' sum over the whole) */
        cw2[rep] = (is_lib(k) ? cpu[1] : is_split(k) ? cpu[1] * 2 : cpu[1]) / cpu[0];
        cwp[rep] = has_p ? (is_split(k) ? cpu[2] * 2 : cpu[2]) / cpu[0] : 0;
        if (!pre)
            sc[clean++] = f * t[0] / t[1];
    }
    double steal = steal_seconds() - steal0, el = now(CLOCK_MONOTONIC) - tstart, load1 = loadavg1();
    call(all, 4, (cmd){.op = OP_TEARDOWN}, NULL, r);
    char sz[32], x2[64], xp[64], cp[16] = "    -", xc[32] = "    -";
    size_name(L->bytes, sz, sizeof sz);
    med_q(s2, reps, x2, sizeof x2);
    med_q(sp, has_p ? reps : 0, xp, sizeof xp);
    if (has_p)
        snprintf(cp, sizeof cp, "%5.2f", quantile(cwp, reps, 0.5));
    if (clean)
        snprintf(xc, sizeof xc, "%5.2fx", quantile(sc, clean, 0.5));
    printf("%-9s %6s %6.1f %6.1f %6.1f  %s  %s  %5.2f %s  %4.2f  %s %3d/%-3d %3d %5.1f%% %4.2f-%4.2f%s\n", L->name,
           sz, quantile(w1, reps, 0.5) * 1e3, quantile(w2, reps, 0.5) * 1e3, has_p ? quantile(wp, reps, 0.5) * 1e3 : 0,
           x2, xp, quantile(cw2, reps, 0.5), cp, n2 == 2 ? quantile(bal, reps, 0.5) : 1.0, xc, clean, reps, quiet,
           steal >= 0 ? 100 * steal / (2 * el) : -1, load0, load1, bad_ids ? "  WRONG TOKEN COUNT" : "");
    fflush(stdout);
    return bad_ids ? -1 : 0;
}

int main(int argc, char **argv)
{
    int reps = 15, opt;
    double target = 0.060;
    while ((opt = getopt(argc, argv, "r:t:pq")) != -1) {
        if (opt == 'r')
            reps = atoi(optarg);
        else if (opt == 't')
            target = atof(optarg) / 1e3;
        else if (opt == 'p')
            small_pages = 1;
        else if (opt == 'q')
            quiet_first = 1;
        else {
            fprintf(stderr, "usage: thread_ceiling [-r REPS] [-t MS] [-p] [-q] [WORKLOAD-PREFIX...]\n");
            return 2;
        }
    }
    if (reps < 3 || reps > MAX_REPS || target <= 0) {
        fprintf(stderr, "thread_ceiling: -r takes 3..%d, -t a positive number of ms\n", MAX_REPS);
        return 2;
    }
#ifndef TC_NO_TOKENIZER
    if (read_corpus()) {
        fprintf(stderr, "thread_ceiling: cannot read bench/data/corpus.txt.gz\n");
        return 1;
    }
#endif
    signal(SIGPIPE, SIG_IGN);
    worker th[2], pr[2];
    /* the processes first (forked before any thread exists) */
    for (int i = 0; i < 2; i++)
        if (worker_start(&pr[i], 1)) {
            fprintf(stderr, "thread_ceiling: cannot start a worker process\n");
            return 1;
        }
    for (int i = 0; i < 2; i++)
        if (worker_start(&th[i], 0)) {
            fprintf(stderr, "thread_ceiling: cannot start a worker thread\n");
            return 1;
        }
    printf("thread_ceiling: %ld CPUs, %d rounds of 1T/2T/2P (rotated), 1T run ~%.0f ms, %s pages\n",
           sysconf(_SC_NPROCESSORS_ONLN), reps, target * 1e3, small_pages ? "4 KB" : "MADV_HUGEPAGE");
    printf("times: run time of the slowest worker (wall minus waits for a CPU), medians over the rounds\n"
           "speed-up = 2 x t(1T) / t(2T) (tok-half*, tok-lib: t(1T) / t(2T)), median [quartiles] of the rounds;\n"
           "cpu/work = CPU time per unit of work, 2T and 2P over 1T; bal = shorter / longer 2T worker;\n"
           "wall/clean = wall-clock 2T speed-up over the rounds where no worker waited > 2 %% for a CPU, and\n"
           "their number; qui = rounds begun in a quiet 100 ms (-q); steal = %% of both CPUs; load before-after\n");
    printf("%-9s %6s %6s %6s %6s  %-19s  %-19s  %-11s  %-4s  %-14s %3s %6s %s\n", "workload", "size", "1T ms",
           "2T ms", "2P ms", "2T speed-up", "2P speed-up", "cpu/work", "bal", "wall/clean", "qui", "steal", "load");
    int rc = 0;
    for (size_t i = 0; i < sizeof loads / sizeof loads[0]; i++) {
        int want = optind >= argc;
        for (int a = optind; a < argc && !want; a++)
            want = strncmp(loads[i].name, argv[a], strlen(argv[a])) == 0;
        if (want && measure(&loads[i], th, pr, reps, target))
            rc = 1;
    }
    for (int i = 0; i < 2; i++) {
        worker_stop(&th[i]);
        worker_stop(&pr[i]);
    }
#ifndef TC_NO_TOKENIZER
    free(corpus);
#endif
    return rc;
}
