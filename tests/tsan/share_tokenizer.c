/* SPDX-License-Identifier: MIT */
/* share_tokenizer.c — one tokenizer shared by threads, under ThreadSanitizer (`make tsan`).
 *
 * Eight threads call gpt2embed_tokenize_into, gpt2embed_tokenize_ex, gpt2embed_count,
 * gpt2embed_tokenize_batch (2 and 64 threads of its own: eight callers of 64 take every
 * context the tokenizer keeps, and spare ones) and gpt2embed_tokenize_stream (2 and 64
 * threads, its emit callback tokenizing on the same tokenizer), gpt2embed_tokenize_stream_ex
 * (documents at a separator) and gpt2embed_pipeline_run (2 and 64 threads, its workers
 * tokenizing, its hand summing in order) on one gpt2embed_tokenizer at once, on every conformance text, and compare with the first thread's results; ThreadSanitizer reports any race and the exit status is non-zero
 * (halt_on_error). Not part of `make test`: the library is built again with
 * -fsanitize=thread, which cannot be mixed with the ASan build.
 */
#include "../../src/gpt2embed.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 8

static char **texts;
static size_t *lens, n_texts;
static gpt2embed_tokenizer *tok;

/* The "text" of each line of the conformance file (a JSON string, unescaped enough for
 * the tokenizer: the raw line bytes between the quotes suffice as test text). */
static void load(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    char line[1 << 16];
    texts = calloc(4096, sizeof *texts);
    lens = calloc(4096, sizeof *lens);
    while (n_texts < 4096 && fgets(line, sizeof line, f)) {
        char *a = strchr(line, ':'), *b = strrchr(line, '"');
        if (!a || !b || b <= a + 2)
            continue;
        a = strchr(a, '"') + 1;
        lens[n_texts] = (size_t)(b - a);
        texts[n_texts] = strndup(a, lens[n_texts]);
        n_texts++;
    }
    fclose(f);
}

typedef struct feed {
    const char *s;
    size_t n, at;
} feed;

static ptrdiff_t rd(void *u, char *buf, size_t cap)
{
    feed *f = u;
    size_t k = f->n - f->at < cap ? f->n - f->at : cap;
    k = k > 777 ? 777 : k;
    memcpy(buf, f->s + f->at, k);
    f->at += k;
    return (ptrdiff_t)k;
}

static int count_emit(void *u, const uint32_t *ids, size_t n)
{
    (void)ids;
    *(size_t *)u += n;
    return 0;
}

/* count_emit, and the IDs' own text tokenized again on the same tokenizer (re-entry) */
static int reenter_emit(void *u, const uint32_t *ids, size_t n)
{
    char *text;
    size_t len, again = 0;
    gpt2embed_error err;
    if (!gpt2embed_decode(tok, ids, n, &text, &len, &err)) {
        uint32_t *more = NULL;
        if (!gpt2embed_tokenize_ex(tok, text, len, GPT2EMBED_LOSSY | GPT2EMBED_SPECIAL_TEXT, &more, NULL, &again,
                                   &err))
            *(size_t *)u += again;
        gpt2embed_free(more);
        gpt2embed_free(text);
    }
    return count_emit(u, ids, n);
}

static int docs_emit(void *u, const uint32_t *ids, size_t n, const size_t *starts, size_t n_starts)
{
    (void)starts;
    *(size_t *)u += n_starts;
    return count_emit(u, ids, n);
}

/* the pipeline's item k: text k's IDs counted and summed by a worker, added up in order */
typedef struct pslot {
    size_t k, sum;
} pslot;

static int p_take(void *u, size_t k, void *slot)
{
    (void)u;
    ((pslot *)slot)->k = k;
    return 0;
}

static void p_work(void *u, size_t k, void *slot, gpt2embed_worker *w)
{
    (void)u, (void)k;
    pslot *sl = slot;
    const uint32_t *ids;
    size_t n;
    gpt2embed_error err;
    sl->sum = 0;
    if (!gpt2embed_worker_tokenize(w, texts[sl->k], lens[sl->k], GPT2EMBED_LOSSY, &ids, &n, &err))
        for (size_t i = 0; i < n; i++)
            sl->sum += ids[i];
}

static int p_hand(void *u, size_t k, void *slot)
{
    (void)k;
    *(size_t *)u += ((pslot *)slot)->sum;
    return 0;
}

static size_t results[THREADS];

static void *run(void *arg)
{
    size_t me = (size_t)arg, sum = 0;
    gpt2embed_error err;
    uint32_t *buf = malloc((1 << 16) * sizeof *buf);
    for (size_t i = 0; i < n_texts; i++) {
        size_t n = 0, *off = NULL;
        uint32_t *ids = NULL;
        gpt2embed_count_info ci;
        if (!gpt2embed_tokenize_into(tok, texts[i], lens[i], GPT2EMBED_LOSSY, buf, NULL, 1 << 16, &n, &err))
            sum += n;
        if (!gpt2embed_tokenize_ex(tok, texts[i], lens[i], GPT2EMBED_LOSSY, &ids, &off, &n, &err))
            sum += n + (n ? ids[n - 1] : 0);
        if (!gpt2embed_count(tok, texts[i], lens[i], GPT2EMBED_LOSSY, 16, &ci, &err))
            sum += ci.ctx_end_byte;
        gpt2embed_free(ids);
        gpt2embed_free(off);
    }
    size_t *counts = malloc(n_texts * sizeof *counts);
    for (unsigned th = 2; th <= 64; th *= 32) {
        uint32_t *all;
        if (!gpt2embed_tokenize_batch(tok, n_texts, (const char *const *)texts, lens, GPT2EMBED_LOSSY, th, &all,
                                      counts, &err))
            for (size_t i = 0; i < n_texts; i++)
                sum += counts[i];
        gpt2embed_free(all);
    }
    free(counts);
    for (size_t i = 0; i < n_texts; i += 97) {
        feed f = {texts[i], lens[i], 0};
        size_t got = 0;
        int deep = i % 2;
        if (!gpt2embed_tokenize_stream(tok, rd, &f, GPT2EMBED_LOSSY, deep ? 64 : 2, deep ? reenter_emit : count_emit,
                                       &got, &err))
            sum += got;
    }
    for (unsigned th = 2; th <= 64; th *= 32) {
        size_t got = 0;
        gpt2embed_pipeline pl = {.user = &got, .slot_size = sizeof(pslot), .take = p_take, .work = p_work,
                                 .hand = p_hand};
        if (!gpt2embed_pipeline_run(tok, &pl, n_texts, th, &err))
            sum += got;
    }
    for (size_t i = 0; i < n_texts; i += 101) {
        feed f = {texts[i], lens[i], 0};
        size_t got = 0;
        gpt2embed_stream_opts o = {.read = rd, .read_user = &f, .flags = GPT2EMBED_LOSSY, .n_threads = 2 + i % 3,
                                   .separator = " ", .separator_len = 1, .emit = docs_emit, .emit_user = &got};
        if (!gpt2embed_tokenize_stream_ex(tok, &o, &err))
            sum += got + o.n_docs;
    }
    free(buf);
    results[me] = sum;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s tests/data/tokenizer_cases.jsonl\n", argv[0]);
        return 2;
    }
    load(argv[1]);
    gpt2embed_error err;
    if (gpt2embed_tokenizer_open(&tok, NULL, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    pthread_t th[THREADS];
    for (size_t k = 0; k < THREADS; k++)
        pthread_create(&th[k], NULL, run, (void *)k);
    for (size_t k = 0; k < THREADS; k++)
        pthread_join(th[k], NULL);
    int bad = 0;
    for (size_t k = 1; k < THREADS; k++)
        bad |= results[k] != results[0];
    printf("tsan share_tokenizer: %zu texts, %d threads, %s (checksum %zu)\n", n_texts, THREADS,
           bad ? "RESULTS DIFFER" : "same results in every thread", results[0]);
    gpt2embed_tokenizer_close(tok);
    for (size_t i = 0; i < n_texts; i++)
        free(texts[i]);
    free(texts);
    free(lens);
    return bad;
}
