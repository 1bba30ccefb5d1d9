/* SPDX-License-Identifier: MIT */
/* pipeline.c — libgpt2embed's ordered pipeline: one document per line of standard input
 * (the newline is not part of it; <|endoftext|> is read as ordinary text), one line of
 * space-separated token IDs per document on standard output, in input order, tokenized on
 * THREADS threads (0: the CPUs this process may use). A line that is not valid UTF-8 stops
 * the run: the lines before it are written, a message naming it goes to standard error, and
 * the status is 1.
 *   cc pipeline.c $(pkg-config --cflags --libs gpt2embed) -o pipeline
 *   printf 'Hello world\nThe dog chased the cat\n' | ./pipeline 2
 */
#define _POSIX_C_SOURCE 200809L /* getline */
#include <gpt2embed.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One line in flight: its text as read, then its IDs as text, or why it failed. */
typedef struct slot {
    char *line;
    size_t line_cap, len;
    char *out;
    size_t out_cap, out_len;
    gpt2embed_status status;
    gpt2embed_error err;
} slot;

typedef struct run {
    int read_failed, write_failed;
    gpt2embed_status line_status; /* the first line that failed, and why */
    gpt2embed_error line_err;
} run;

/* Item k is line k + 1 of standard input (one call at a time, in order). */
static int take(void *user, size_t k, void *p)
{
    (void)k;
    slot *s = p;
    ssize_t n = getline(&s->line, &s->line_cap, stdin);
    if (n < 0) {
        ((run *)user)->read_failed = ferror(stdin);
        return 1; /* no more lines */
    }
    s->len = (size_t)n - (n > 0 && s->line[n - 1] == '\n');
    return 0;
}

/* Tokenizes the line on this thread's worker and writes its IDs into the slot as text. */
static void work(void *user, size_t k, void *p, gpt2embed_worker *w)
{
    (void)user, (void)k;
    slot *s = p;
    const uint32_t *ids;
    size_t n;
    s->out_len = 0;
    s->status = gpt2embed_worker_tokenize(w, s->line, s->len, GPT2EMBED_SPECIAL_TEXT, &ids, &n, &s->err);
    if (s->status)
        return;
    if (s->out_cap < 11 * n + 1) { /* an ID is at most 10 digits and a separator */
        char *o = realloc(s->out, 11 * n + 1);
        if (!o) {
            s->status = GPT2EMBED_E_NOMEM;
            snprintf(s->err.message, sizeof s->err.message, "out of memory for %zu IDs", n);
            return;
        }
        s->out = o, s->out_cap = 11 * n + 1;
    }
    for (size_t i = 0; i < n; i++)
        s->out_len += (size_t)sprintf(s->out + s->out_len, "%s%u", i ? " " : "", (unsigned)ids[i]);
    s->out[s->out_len++] = '\n';
}

/* Writes the lines' IDs in input order; a failed line or write stops the run. */
static int hand(void *user, size_t k, void *p)
{
    (void)k;
    slot *s = p;
    run *r = user;
    if (s->status) {
        r->line_status = s->status, r->line_err = s->err;
        return 1;
    }
    if (fwrite(s->out, 1, s->out_len, stdout) != s->out_len) {
        r->write_failed = 1;
        return 1;
    }
    return 0;
}

static void release(void *user, void *p)
{
    (void)user;
    slot *s = p;
    free(s->line);
    free(s->out);
}

int main(int argc, char **argv)
{
    char *end;
    unsigned long threads = argc == 2 ? strtoul(argv[1], &end, 10) : 0;
    if (argc != 2 || end == argv[1] || *end || threads > GPT2EMBED_THREADS_MAX) {
        fprintf(stderr, "usage: %s THREADS (0..%u) < LINES\n", argv[0], GPT2EMBED_THREADS_MAX);
        return 2;
    }
    gpt2embed_error err;
    gpt2embed_tokenizer *tk = NULL;
    gpt2embed_status s = gpt2embed_tokenizer_open(&tk, NULL, &err);
    if (s) {
        fprintf(stderr, "pipeline: %s (%s)\n", err.message, gpt2embed_strerror(s));
        return 1;
    }
    run r = {0};
    gpt2embed_pipeline p = {.user = &r, .slot_size = sizeof(slot), .take = take, .work = work,
                            .hand = hand, .release = release};
    s = gpt2embed_pipeline_run(tk, &p, GPT2EMBED_NONE, (unsigned)threads, &err);
    int rc = 1;
    if (s == GPT2EMBED_E_STOPPED && r.write_failed)
        perror("pipeline: standard output");
    else if (s == GPT2EMBED_E_STOPPED) /* hand met a line that failed: err.index is its item */
        fprintf(stderr, "pipeline: line %zu: %s (%s)\n", err.index + 1, r.line_err.message,
                gpt2embed_strerror(r.line_status));
    else if (s)
        fprintf(stderr, "pipeline: %s (%s)\n", err.message, gpt2embed_strerror(s));
    else if (r.read_failed)
        perror("pipeline: standard input");
    else if (fflush(stdout) || ferror(stdout))
        perror("pipeline: standard output");
    else
        rc = 0;
    gpt2embed_tokenizer_close(tk);
    return rc;
}
