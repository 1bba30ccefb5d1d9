/* SPDX-License-Identifier: MIT */
/* test_tok_stream.c — the engine's streams and counts and the program's writers on it (IDs
 * as text, JSON Lines): always what tok_encode gives on one thread (formatted here with
 * printf), and for JSON Lines tiktoken's own IDs (tests/data/tokenizer_expected.jsonl). */
#define _GNU_SOURCE /* memmem */
#include "json.h"
#include "jsonl.h"
#include "support.h"
#include "text.h"
#include "engine.h"
#include "tokwrite.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static tok_tokenizer *open_repo(void)
{
    tok_tokenizer *t;
    g2e_err err;
    cr_assert_eq(tok_open(G2E_SRCDIR "/tokenizer", 0, &t, &err), 0, "%s", err.msg);
    return t;
}


static int to_buf(void *user, const void *p, size_t n)
{
    bb_put(user, p, n);
    return 0;
}

/* The one-thread IDs of text as "a b c\n", by printf. */
static char *printf_ids(const char *text, size_t len, tok_special sp, unsigned flags, size_t *n)
{
    tok_tokenizer *t = open_repo();
    tok_ids r;
    g2e_err err;
    cr_assert_eq(tok_encode(t, text, len, sp, flags, &r, NULL, &err), 0, "%s", err.msg);
    char *s = malloc(r.n * 12 + 2), *o = s;
    for (size_t i = 0; i < r.n; i++)
        o += sprintf(o, i ? " %u" : "%u", r.ids[i]);
    *o++ = '\n';
    *n = (size_t)(o - s);
    tok_ids_free(&r);
    tok_close(t);
    return s;
}

/* The door's tokenizer over the repository's vocabulary. */
static gpt2embed_tokenizer *open_door(void)
{
    gpt2embed_tokenizer *t;
    gpt2embed_error e;
    cr_assert_eq(gpt2embed_tokenizer_open(&t, G2E_SRCDIR "/tokenizer", &e), GPT2EMBED_OK, "%s", e.message);
    return t;
}

/* The public flags of a special-token treatment and TOK_LOSSY. */
static unsigned pub_flags(tok_special sp, unsigned flags)
{
    return (sp == TOK_SPECIAL_TEXT ? GPT2EMBED_SPECIAL_TEXT : sp == TOK_SPECIAL_ERROR ? GPT2EMBED_SPECIAL_ERROR : 0) |
           (flags & TOK_LOSSY ? GPT2EMBED_LOSSY : 0);
}

/* toks_write_ids over threads (chunks of `chunk` bytes, 0: the default) gives the one-thread
 * text. */
static void ids_agree(const char *text, size_t len, tok_special sp, unsigned flags, size_t chunk, const char *what)
{
    size_t wn;
    char *want = printf_ids(text, len, sp, flags, &wn);
    static const unsigned counts[] = {1, 2, 3, 5, 64};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        gpt2embed_tokenizer *e = open_door();
        for (int again = 0; again < 2; again++) { /* the second time with warm caches */
            bytebuf b = {0};
            size_t rep = 99;
            g2e_err err;
            cr_assert_eq(toks_write_ids(e, counts[c], chunk, text, len, pub_flags(sp, flags), to_buf, &b, &rep, &err), 0, "%s: %s",
                         what, err.msg);
            cr_assert(b.n == wn && memcmp(b.p, want, wn) == 0, "%s, %u threads: the IDs differ (%zu bytes, want %zu)",
                      what, counts[c], b.n, wn);
            bb_free(&b);
        }
        gpt2embed_tokenizer_close(e);
    }
    free(want);
}

static char *corpus(size_t *len)
{
    char *argv[] = {"/bin/gzip", "-dc", G2E_SRCDIR "/bench/data/corpus.txt.gz", NULL};
    run_result r = run_argv(argv, NULL, 0, NULL, NULL);
    cr_assert_eq(r.status, 0, "gzip: %s", r.err);
    free(r.err);
    *len = r.out_len;
    return r.out;
}

/* Every text of a JSON Lines file (decoded by jsonl.h), concatenated; *count lines. */
static char *texts_of(const char *path, size_t *len, size_t *count)
{
    size_t n;
    char *f = read_file(path, &n);
    cr_assert(f != NULL, "%s", path);
    bytebuf all = {0}, key = {0};
    *count = 0;
    for (char *s = f, *nl; s < f + n; s = nl + 1, ++*count) {
        nl = memchr(s, '\n', (size_t)(f + n - s));
        nl = nl ? nl : f + n;
        jsonl_error e;
        cr_assert_eq(jsonl_text(s, (size_t)(nl - s), 0, &all, &key, &e), 0, "%s line %zu", path, *count + 1);
    }
    free(f);
    bb_free(&key);
    *len = all.n;
    return all.p;
}

LongTest(tok_stream, ids_of_the_corpus_over_threads, .timeout = 180)
{
    size_t n;
    char *text = corpus(&n);
    ids_agree(text, n, TOK_SPECIAL_TEXT, 0, 0, "corpus");
    ids_agree(text, n, TOK_SPECIAL_TOKEN, TOK_LOSSY, 0, "corpus, lossy (valid: threads too)");
    free(text);
}

Test(tok_stream, ids_of_the_conformance_texts_cut_everywhere, .timeout = 120)
{
    size_t n, c1, c2;
    char *a = texts_of(G2E_SRCDIR "/tests/data/tokenizer_cases.jsonl", &n, &c1);
    size_t m;
    char *b = texts_of(G2E_SRCDIR "/tests/data/tokenizer_extra_cases.jsonl", &m, &c2);
    cr_assert_eq(c1 + c2, 1019 + 1049);
    char *all = malloc(n + m);
    memcpy(all, a, n);
    memcpy(all + n, b, m);
    ids_agree(all, n + m, TOK_SPECIAL_TEXT, 0, 8, "conformance texts");
    ids_agree(all, n + m, TOK_SPECIAL_TOKEN, 0, 8, "conformance texts, special tokens");
    free(a), free(b), free(all);
}

static uint64_t rng = 0x243F6A8885A308D3ull;
static uint32_t rnd(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

/* Random mixtures and adversarial texts: whitespace runs of every kind, contractions, the
 * special token, long unsplittable pieces, and (lossy) invalid bytes, which send the text
 * back to tok_encode whole. */
static const char *const frag[] = {
        " ", "  ", "   ", "\n", "\n\n", "\t", "\r\n", " \n", "\xC2\xA0", "\xE3\x80\x80", "'s", "'re", "'ll",
        "'", "''", "a", "word", " the", "\xC3\xA9t\xC3\xA9", "\xE6\x97\xA5\xE6\x9C\xAC", "1", "2024", ".",
    ",", "!?", "<|endoftext|>", "\xF0\x9F\x98\x80", "\xFF", "\xE6\x97"};

/* A random mixture of frag[] (the two invalid ones too unless `valid`) and long runs, of
 * nearly cap bytes, into buf; returns its length. */
static size_t mixture(char *buf, size_t cap, int valid)
{
    size_t n = 0, nfrag = sizeof frag / sizeof frag[0] - (valid ? 2 : 0);
    while (n + 2100 < cap) {
        if (rnd() % 100 < 2) {
            static const char *const run[] = {"a", "9", "\xE6\x97\xA5", "=", " ", "\n"};
            const char *u = run[rnd() % 6];
            for (size_t k = 0, reps = 200 + rnd() % 500; k < reps; k++, n += strlen(u))
                memcpy(buf + n, u, strlen(u));
        } else {
            const char *f = frag[rnd() % nfrag];
            memcpy(buf + n, f, strlen(f));
            n += strlen(f);
        }
    }
    return n;
}

Test(tok_stream, ids_of_random_and_adversarial_texts, .timeout = 120)
{
    size_t cap = 1 << 15;
    char *buf = malloc(cap);
    for (int round = 0; round < 12; round++) {
        int valid = round < 8; /* the first rounds without the two invalid fragments */
        size_t n = mixture(buf, cap, valid);
        char what[64];
        snprintf(what, sizeof what, "mixture %d", round);
        ids_agree(buf, n, round % 2 ? TOK_SPECIAL_TOKEN : TOK_SPECIAL_TEXT, valid ? 0 : TOK_LOSSY, 8, what);
    }
    free(buf);
}

/* The same mixtures, larger, in the program's own chunk sizes (64 KB, smaller towards the
 * end, the engine's taper): every chunk boundary among the whitespace runs, contractions
 * and long pieces must give the one-thread IDs. */
Test(tok_stream, ids_of_adversarial_texts_in_the_programs_chunks, .timeout = 120)
{
    size_t cap = 300000;
    char *buf = malloc(cap);
    for (int round = 0; round < 6; round++) {
        size_t n = mixture(buf, cap - (size_t)round * 40000, 1);
        char what[64];
        snprintf(what, sizeof what, "large mixture %d", round);
        ids_agree(buf, n, round % 2 ? TOK_SPECIAL_TOKEN : TOK_SPECIAL_TEXT, 0, 0, what);
    }
    free(buf);
}

/* An error writes nothing and is tok_encode's own, at the right offset, whatever the threads. */
Test(tok_stream, errors_write_nothing_and_name_the_whole_texts_offset)
{
    size_t n = 3 << 20;
    char *text = malloc(n);
    for (size_t i = 0; i < n; i++)
        text[i] = i % 7 == 6 ? ' ' : 'a';
    text[2500001] = '\xFF';
    gpt2embed_tokenizer *t = open_door();
    bytebuf b = {0};
    size_t rep;
    g2e_err err;
    cr_expect_eq(toks_write_ids(t, 4, 0, text, n, pub_flags(TOK_SPECIAL_TOKEN, 0), to_buf, &b, &rep, &err), TOKS_E_TEXT);
    cr_expect_str_eq(err.msg, "invalid UTF-8 at byte offset 2500001 (byte 0xFF)");
    cr_expect_eq(b.n, 0);
    cr_expect_eq(toks_write_ids(t, 4, 0, text, n, pub_flags(TOK_SPECIAL_TOKEN, TOK_LOSSY), to_buf, &b, &rep, &err), 0);
    cr_expect_eq(rep, 1);
    b.n = 0;
    text[2500001] = 'a';
    memcpy(text + 2000000, "<|endoftext|>", 13);
    cr_expect_eq(toks_write_ids(t, 4, 0, text, n, pub_flags(TOK_SPECIAL_ERROR, 0), to_buf, &b, &rep, &err), TOKS_E_TEXT);
    cr_expect(strstr(err.msg, "at byte offset 2000000") != NULL, "%s", err.msg);
    cr_expect_eq(b.n, 0);
    bb_free(&b);
    gpt2embed_tokenizer_close(t);
    free(text);
}

static int refuse(void *user, const void *p, size_t n)
{
    (void)user, (void)p, (void)n;
    return EPIPE;
}

Test(tok_stream, a_failed_write_is_reported)
{
    gpt2embed_tokenizer *t = open_door();
    size_t rep;
    g2e_err err;
    cr_expect_eq(toks_write_ids(t, 1, 0, "Hello world", 11, pub_flags(TOK_SPECIAL_TOKEN, 0), refuse, NULL, &rep, &err), TOKS_E_WRITE);
    cr_expect_str_eq(err.msg, "cannot write the output: Broken pipe");
    gpt2embed_tokenizer_close(t);
}

Test(tok_stream, put_ids_matches_printf)
{
    static const char seps[] = {' ', ','};
    toks_idtext d;
    cr_assert_eq(toks_idtext_init(&d, 50257, ','), 0);
    for (int round = 0; round < 200; round++) {
        uint32_t ids[300];
        size_t n = rnd() % 300;
        for (size_t i = 0; i < n; i++) /* in the table, beyond it, and up to 2^32 - 1 */
            ids[i] = rnd() % 4 == 0 ? rnd() * 7919u : rnd() % 60000;
        char sep = seps[round % 2];
        char want[300 * 12 + 1], *o = want;
        for (size_t i = 0; i < n; i++)
            o += i ? sprintf(o, "%c%u", sep, ids[i]) : sprintf(o, "%u", ids[i]);
        bytebuf b = {0};
        bb_put(&b, "[", 1);
        toks_put_ids(&b, round % 3 ? &d : NULL, ids, n, sep);
        cr_assert(b.n == (size_t)(o - want) + 1 && memcmp(b.p + 1, want, b.n - 1) == 0, "round %d", round);
        bb_free(&b);
    }
    toks_idtext_free(&d);
    bytebuf b = {0};
    toks_put_u64(&b, UINT64_MAX);
    cr_expect(b.n == 20 && memcmp(b.p, "18446744073709551615", 20) == 0);
    bb_free(&b);
}

/* Counts over threads: the one-thread tokens, text.h's characters and words, and the offsets' cut. */
LongTest(tok_stream, counts_over_threads_agree_with_one_thread, .timeout = 120)
{
    size_t n;
    char *text = corpus(&n);
    tok_tokenizer *one = open_repo();
    tok_ids r;
    g2e_err err;
    cr_assert_eq(tok_encode(one, text, n, TOK_SPECIAL_TOKEN, 0, &r, NULL, &err), 0);
    size_t chars = ref_chars(text, n);
    int english;
    size_t words = text_english_words(text, n, &english); /* (test_text.c: by the definition) */
    static const size_t ctxs[] = {1, 1024, 1000000, 2547086, 4999999, 5094172, 5094173, 99999999};
    static const unsigned threads[] = {1, 2, 3, 5};
    static const size_t splits[] = {0, 3000}; /* 64 KB chunks; 3 KB (4,400 of them) */
    for (size_t ti = 0; ti < sizeof threads / sizeof threads[0]; ti++)
        for (size_t si = 0; si < 2; si++) {
            unsigned th = threads[ti];
            eng *t = open_repo_eng(splits[si]);
            for (size_t k = 0; k < sizeof ctxs / sizeof ctxs[0]; k++) {
                eng_counts c;
                int w = k % 2; /* the words only when asked for */
                cr_assert_eq(eng_count(t, th, text, n, ctxs[k], w, &c, &err), 0);
                cr_expect_eq(c.tokens, r.n);
                cr_expect_eq(c.chars, chars);
                cr_expect(w ? c.words.words == words && text_words_english(&c.words) == english
                            : c.words.words == 0 && c.words.ascii == 0,
                          "words %d: %zu, want %zu; %u threads, split %zu", w, c.words.words, w ? words : 0, th,
                          splits[si]);
                cr_expect_eq(c.cut, ctxs[k] < r.n ? r.offsets[ctxs[k]] : 0, "ctx %zu, %u threads, split %zu",
                             ctxs[k], th, splits[si]);
            }
            eng_free(t);
        }
    tok_ids_free(&r);
    tok_close(one);
    free(text);
}

/* ---- JSON Lines ---- */

typedef struct sink {
    bytebuf b;
    int flushes;
} sink;

static int sink_write(void *user, const void *p, size_t n)
{
    bb_put(&((sink *)user)->b, p, n);
    return 0;
}

static int sink_flush(void *user)
{
    ((sink *)user)->flushes++;
    return 0;
}

/* Runs toks_jsonl over in[0..n) (from a file) with threads; the output in s. */
static int jsonl_run(const char *in, size_t n, unsigned threads, toks_jsonl *j, sink *s)
{
    FILE *f = tmpfile();
    cr_assert(f && fwrite(in, 1, n, f) == n && fflush(f) == 0);
    rewind(f);
    gpt2embed_tokenizer *t = open_door();
    memset(s, 0, sizeof *s);
    j->write = sink_write, j->flush = sink_flush, j->user = s;
    int rc = toks_jsonl_run(t, threads, fileno(f), j);
    gpt2embed_tokenizer_close(t);
    fclose(f);
    return rc;
}

Test(tok_stream, jsonl_gives_tiktokens_ids_over_threads_and_blocks, .timeout = 120)
{
    size_t n, en;
    char *in = read_file(G2E_SRCDIR "/tests/data/tokenizer_cases.jsonl", &n);
    char *want = read_file(G2E_SRCDIR "/tests/data/tokenizer_expected.jsonl", &en);
    cr_assert(in && want);
    /* 64 copies (9.8 MB): several 1 MB blocks, each split over the threads */
    size_t reps = 64;
    char *big = malloc(n * reps), *bigwant = malloc(en * reps);
    for (size_t k = 0; k < reps; k++) {
        memcpy(big + k * n, in, n);
        memcpy(bigwant + k * en, want, en);
    }
    static const unsigned th[] = {1, 2, 5};
    for (size_t k = 0; k < 3; k++) {
        toks_jsonl j = {.special = GPT2EMBED_SPECIAL_TEXT};
        sink s;
        cr_assert_eq(jsonl_run(big, n * reps, th[k], &j, &s), 0, "%s", j.msg);
        cr_expect(s.b.n == en * reps && memcmp(s.b.p, bigwant, s.b.n) == 0, "%u threads: output differs", th[k]);
        cr_expect_eq(j.lines, 1019 * reps);
        cr_expect(s.flushes >= 2, "a flush after every block (%d)", s.flushes);
        bb_free(&s.b);
    }
    free(in), free(want), free(big), free(bigwant);
}

Test(tok_stream, jsonl_stops_at_a_bad_line_or_keeps_going)
{
    const char in[] = "{\"text\": \"a\"}\n\n  \n{\"text\": \"b\", \"text\": \"c\"}\n{\"text\": \"<|endoftext|>\"}\n"
                      "{\"text\": \"d\"}";
    toks_jsonl j = {.special = GPT2EMBED_SPECIAL_ERROR};
    sink s;
    cr_assert_eq(jsonl_run(in, sizeof in - 1, 2, &j, &s), TOKS_STOPPED);
    cr_expect_eq(j.line, 2, "a blank line is a bad line (no row is lost)");
    cr_expect_str_eq(j.msg, "a blank line: expected a JSON object {\"text\": \"...\"}");
    cr_expect(s.b.n == 13 && memcmp(s.b.p, "{\"ids\":[64]}\n", 13) == 0, "only the lines before it");
    bb_free(&s.b);
    j = (toks_jsonl){.special = GPT2EMBED_SPECIAL_ERROR, .keep_going = 1};
    cr_assert_eq(jsonl_run(in, sizeof in - 1, 2, &j, &s), 0);
    cr_expect_eq(j.bad, 4);
    cr_expect_eq(j.lines, 6, "a last line without its newline counts");
    bb_put(&s.b, "", 1);
    cr_expect_str_eq(s.b.p, "{\"ids\":[64]}\n"
                            "{\"error\":\"a blank line: expected a JSON object {\\\"text\\\": \\\"...\\\"}\",\"line\":2}\n"
                            "{\"error\":\"a blank line: expected a JSON object {\\\"text\\\": \\\"...\\\"}\",\"line\":3}\n"
                            "{\"error\":\"\\\"text\\\" given twice\",\"line\":4}\n"
                            "{\"error\":\"the special token <|endoftext|> at byte offset 0 is not allowed here"
                            "\",\"line\":5}\n{\"ids\":[67]}\n");
    bb_free(&s.b);
}

Test(tok_stream, jsonl_reports_write_and_read_errors)
{
    gpt2embed_tokenizer *t = open_door();
    int p[2];
    cr_assert_eq(pipe(p), 0);
    cr_assert_eq(write(p[1], "{\"text\": \"a\"}\n", 14), 14);
    close(p[1]);
    toks_jsonl j = {.write = refuse};
    cr_expect_eq(toks_jsonl_run(t, 1, p[0], &j), TOKS_E_WRITE);
    cr_expect_eq(j.sys_errno, EPIPE);
    close(p[0]);
    j = (toks_jsonl){.write = refuse};
    cr_expect_eq(toks_jsonl_run(t, 1, -1, &j), TOKS_E_READ);
    cr_expect_eq(j.sys_errno, EBADF);
    gpt2embed_tokenizer_close(t);
}

typedef struct counted {
    bytebuf b;
    int writes, fail_at; /* fail_at: the write that fails (0: none) */
} counted;

static int count_write(void *user, const void *p, size_t n)
{
    counted *c = user;
    if (++c->writes == c->fail_at)
        return ENOSPC;
    bb_put(&c->b, p, n);
    return 0;
}

/* A large text is written chunk by chunk as it is tokenized (not held whole until the
 * end), on one thread and on several; a write that fails part way stops the run there. */
Test(tok_stream, ids_are_written_chunk_by_chunk_and_a_failed_write_stops_them, .timeout = 60)
{
    size_t n = 2 << 20;
    char *text = malloc(n);
    for (size_t i = 0; i < n; i++)
        text[i] = "the cat sat on a mat, "[i % 22];
    size_t wn;
    char *want = printf_ids(text, n, TOK_SPECIAL_TOKEN, 0, &wn);
    for (unsigned th = 1; th <= 3; th += 2) {
        gpt2embed_tokenizer *t = open_door();
        counted c = {0};
        size_t rep;
        g2e_err err;
        cr_assert_eq(toks_write_ids(t, th, 0, text, n, pub_flags(TOK_SPECIAL_TOKEN, 0), count_write, &c, &rep, &err), 0, "%s",
                     err.msg);
        cr_expect(c.b.n == wn && memcmp(c.b.p, want, wn) == 0, "%u threads: the IDs differ", th);
        cr_expect_geq(c.writes, 16, "%u threads: one write per 128 KB chunk (%d)", th, c.writes);
        bb_free(&c.b);
        c = (counted){.fail_at = 3};
        cr_expect_eq(toks_write_ids(t, th, 0, text, n, pub_flags(TOK_SPECIAL_TOKEN, 0), count_write, &c, &rep, &err), TOKS_E_WRITE);
        cr_expect_str_eq(err.msg, "cannot write the output: No space left on device");
        cr_expect_eq(c.writes, 3, "%u threads: nothing written after the failed write", th);
        cr_expect(c.b.n > 0 && c.b.n < wn && memcmp(c.b.p, want, c.b.n) == 0, "the two chunks before it, in order");
        bb_free(&c.b);
        gpt2embed_tokenizer_close(t);
    }
    free(want);
    free(text);
}

/* A line's text that is ASCII or made of \u escapes skips the tokenizer's UTF-8 check; one
 * with a raw invalid byte is still refused, naming its line. */
Test(tok_stream, jsonl_checks_raw_bytes_and_trusts_escapes)
{
    const char in[] = "{\"text\": \"\\u00e9t\\u00e9 \\u72ac\"}\n{\"text\": \"\xC3\xA9t\xC3\xA9 \xE7\x8A\xAC\"}\n"
                      "{\"text\": \"ok \xE6\x97\"}\n";
    toks_jsonl j = {.special = 0};
    sink s;
    cr_assert_eq(jsonl_run(in, sizeof in - 1, 1, &j, &s), TOKS_STOPPED);
    cr_expect_eq(j.line, 3);
    cr_expect_str_eq(j.msg, "invalid UTF-8 at byte offset 3 (byte 0xE6)");
    size_t wn;
    char *want = printf_ids("\xC3\xA9t\xC3\xA9 \xE7\x8A\xAC", 9, TOK_SPECIAL_TOKEN, 0, &wn);
    bytebuf line = {0};
    bb_str(&line, "{\"ids\":[");
    for (size_t i = 0; i + 1 < wn; i++)
        bb_put(&line, want[i] == ' ' ? "," : &want[i], 1);
    bb_str(&line, "]}\n");
    cr_expect(s.b.n == 2 * line.n && memcmp(s.b.p, line.p, line.n) == 0 && memcmp(s.b.p + line.n, line.p, line.n) == 0,
              "the escaped and the raw line give the same IDs");
    bb_free(&line);
    bb_free(&s.b);
    free(want);
    /* the special token in a checked line: the token, or ordinary text */
    const char sp[] = "{\"text\": \"a<|endoftext|>b\"}\n";
    j = (toks_jsonl){.special = 0};
    cr_assert_eq(jsonl_run(sp, sizeof sp - 1, 1, &j, &s), 0);
    bb_put(&s.b, "", 1);
    cr_expect_str_eq(s.b.p, "{\"ids\":[64,50256,65]}\n");
    bb_free(&s.b);
    j = (toks_jsonl){.special = GPT2EMBED_SPECIAL_TEXT};
    cr_assert_eq(jsonl_run(sp, sizeof sp - 1, 1, &j, &s), 0);
    bb_put(&s.b, "", 1);
    cr_expect_str_eq(s.b.p, "{\"ids\":[64,27,91,437,1659,5239,91,29,65]}\n");
    bb_free(&s.b);
}

/* The check before the first write, over threads, in ranges of 128 KB: an invalid byte or
 * a refused special token right at or across every place a range ends is found (nothing
 * written, tok_encode's message); Japanese text, whose range ends fall inside characters,
 * is valid; a special token across a range end is the token (the one-thread IDs). */
Test(tok_stream, the_check_before_writing_sees_across_its_ranges, .timeout = 120)
{
    size_t n = 2 << 20, edge = 128 << 10;
    char *text = malloc(n);
    for (size_t i = 0; i + 3 <= n; i += 3)
        memcpy(text + i, "\xE6\x97\xA5", 3); /* 日, so that 128 KB falls inside a character */
    for (size_t i = n / 3 * 3; i < n; i++)
        text[i] = ' ';
    gpt2embed_tokenizer *t = open_door();
    tok_tokenizer *one = open_repo();
    size_t rep;
    g2e_err err;
    counted c = {0};
    cr_assert_eq(toks_write_ids(t, 3, 0, text, n, pub_flags(TOK_SPECIAL_ERROR, 0), count_write, &c, &rep, &err), 0, "%s", err.msg);
    bb_free(&c.b);
    for (size_t at = 5 * edge - 14; at <= 5 * edge + 2; at++) {
        char keep[16];
        memcpy(keep, text + at, 16);
        text[at] = '\xFF';
        c = (counted){0};
        cr_expect_eq(toks_write_ids(t, 3, 0, text, n, pub_flags(TOK_SPECIAL_TOKEN, 0), count_write, &c, &rep, &err), TOKS_E_TEXT);
        tok_ids r;
        g2e_err want;
        cr_assert_eq(tok_encode(one, text, n, TOK_SPECIAL_TOKEN, 0, &r, NULL, &want), TOK_E_UTF8);
        cr_expect_str_eq(err.msg, want.msg, "invalid byte at %zu", at);
        cr_expect_eq(c.writes, 0, "nothing written (invalid byte at %zu)", at);
        memcpy(text + at, keep, 16);
        size_t sp = at / 3 * 3; /* 15 bytes in the place of 5 characters: still valid */
        memcpy(text + sp, "<|endoftext|>  ", 15);
        cr_expect_eq(toks_write_ids(t, 3, 0, text, n, pub_flags(TOK_SPECIAL_ERROR, 0), count_write, &c, &rep, &err), TOKS_E_TEXT,
                     "special token at %zu", sp);
        cr_expect_eq(c.writes, 0, "nothing written (special token at %zu)", sp);
        char off[48];
        snprintf(off, sizeof off, "at byte offset %zu ", sp);
        cr_expect(strstr(err.msg, off) != NULL, "%s (want %s)", err.msg, off);
        if (at % 4 == 0) { /* the token itself: as on one thread */
            size_t wn;
            char *w = printf_ids(text, n, TOK_SPECIAL_TOKEN, 0, &wn);
            cr_expect_eq(toks_write_ids(t, 3, 0, text, n, pub_flags(TOK_SPECIAL_TOKEN, 0), count_write, &c, &rep, &err), 0);
            cr_expect(c.b.n == wn && memcmp(c.b.p, w, wn) == 0, "special token at %zu: the IDs differ", at);
            free(w);
        }
        for (size_t i = sp; i < sp + 15; i += 3)
            memcpy(text + i, "\xE6\x97\xA5", 3);
        bb_free(&c.b);
    }
    gpt2embed_tokenizer_close(t);
    tok_close(one);
    free(text);
}

/* A bad line deep in a large input, over threads (many shares of 128 KB in flight): the
 * run stops at it with its number and exactly the lines before it written, or with
 * keep_going its error object stands in its place among the other lines' IDs. */
Test(tok_stream, jsonl_bad_line_among_many_shares_over_threads, .timeout = 60)
{
    size_t nlines = 40000, bad = 23456;
    bytebuf in = {0};
    for (size_t k = 1; k <= nlines; k++) {
        char line[96];
        int n = snprintf(line, sizeof line, k == bad ? "{\"text\": \"line %zu\", oops}\n" : "{\"text\": \"line %zu of many\"}\n", k);
        bb_put(&in, line, (size_t)n);
    }
    toks_jsonl j = {.special = 0};
    sink one;
    cr_assert_eq(jsonl_run(in.p, in.n, 1, &j, &one), TOKS_STOPPED);
    cr_expect_eq(j.line, bad);
    for (unsigned th = 2; th <= 5; th += 3) {
        j = (toks_jsonl){.special = 0};
        sink s;
        cr_assert_eq(jsonl_run(in.p, in.n, th, &j, &s), TOKS_STOPPED);
        cr_expect_eq(j.line, bad, "%u threads", th);
        cr_expect_str_eq(j.msg, "expected a string");
        cr_expect(s.b.n == one.b.n && memcmp(s.b.p, one.b.p, s.b.n) == 0, "%u threads: the lines before it", th);
        size_t lines_out = 0;
        for (size_t i = 0; i < s.b.n; i++)
            lines_out += s.b.p[i] == '\n';
        cr_expect_eq(lines_out, bad - 1);
        bb_free(&s.b);
        j = (toks_jsonl){.special = 0, .keep_going = 1};
        cr_assert_eq(jsonl_run(in.p, in.n, th, &j, &s), 0);
        cr_expect_eq(j.bad, 1);
        cr_expect_eq(j.lines, nlines);
        char want[64];
        snprintf(want, sizeof want, "\n{\"error\":\"expected a string\",\"line\":%zu}\n", bad);
        bb_put(&s.b, "", 1);
        const char *at = strstr(s.b.p, want);
        cr_assert(at != NULL, "%u threads: the error object", th);
        cr_expect(at - s.b.p == (ptrdiff_t)one.b.n - 1, "%u threads: in the bad line's place", th);
        bb_free(&s.b);
    }
    bb_free(&one.b);
    bb_free(&in);
}

/* --lines (plain): random lines of fragments (bad bytes, a character cut in two, special
 * tokens, CRs, empty lines, a last line without its newline), tokenized in batches of 64,
 * answer each line exactly as that line tokenized alone by tok_encode: its IDs, or its
 * error object in its place with tok_encode's message (--keep-going); without it the run
 * stops at the first bad line with that line's number and message. Every other round is
 * clean (no byte >= 0x80, special tokens as text), so that whole batches are tokenized
 * joined rather than one text at a time, which a batch with a bad line or a refused special
 * token falls back to. */
Test(tok_stream, plain_lines_answer_each_line_as_tokenized_alone, .timeout = 120)
{
    static const char *const piece[] = {"hello", " world", "\xFF", "<|endoftext|>", "\xE6\x97\xA5", "\xE6\x97",
                                       "", "\r", "  ", "'s", "\t", "\xC3\xA9", "2026", "\xA5"};
    tok_tokenizer *one = open_repo();
    for (int round = 0; round < 4; round++) {
        int clean = round % 2;
        tok_special special = clean ? TOK_SPECIAL_TEXT : TOK_SPECIAL_ERROR;
        srand(700 + (unsigned)round);
        size_t nlines = 3000;
        bytebuf in = {0}, want = {0};
        size_t first_bad = 0;
        char first_msg[G2E_ERR_MSG_MAX] = "";
        for (size_t k = 1; k <= nlines; k++) {
            size_t start = in.n, parts = (size_t)rand() % 7;
            for (size_t j = 0; j < parts; j++)
                bb_str(&in, piece[(size_t)rand() % (sizeof piece / sizeof piece[0])]);
            if (k == nlines && in.n == start) /* (an empty last line without its newline is no line) */
                bb_str(&in, "end");
            for (size_t i = start; clean && i < in.n; i++)
                if ((unsigned char)in.p[i] >= 0x80)
                    in.p[i] = 'x';
            size_t len = in.n - start;
            tok_ids r;
            g2e_err err;
            if (tok_encode(one, in.p + start, len, special, TOK_NO_OFFSETS, &r, NULL, &err) == 0) {
                bb_str(&want, "{\"ids\":[");
                for (size_t i = 0; i < r.n; i++) {
                    char d[16];
                    snprintf(d, sizeof d, i ? ",%u" : "%u", r.ids[i]);
                    bb_str(&want, d);
                }
                bb_str(&want, "]}\n");
                tok_ids_free(&r);
            } else {
                cr_assert(!strchr(err.msg, '"') && !strchr(err.msg, '\\'), "%s", err.msg);
                char e[G2E_ERR_MSG_MAX + 64];
                snprintf(e, sizeof e, "{\"error\":\"%s\",\"line\":%zu}\n", err.msg, k);
                bb_str(&want, e);
                if (!first_bad) {
                    first_bad = k;
                    snprintf(first_msg, sizeof first_msg, "%s", err.msg);
                }
            }
            if (k < nlines)
                bb_put(&in, "\n", 1);
        }
        cr_assert(clean ? !first_bad : first_bad != 0, "round %d: bad lines as planned", round);
        for (unsigned th = 1; th <= 2; th++) {
            toks_jsonl j = {.special = pub_flags(special, 0), .plain = 1, .keep_going = 1};
            sink s;
            cr_assert_eq(jsonl_run(in.p, in.n, th, &j, &s), 0, "%s", j.msg);
            cr_expect_eq(j.lines, nlines, "round %d, %u threads", round, th);
            cr_expect(s.b.n == want.n && memcmp(s.b.p, want.p, want.n) == 0, "round %d, %u threads: the answers differ",
                      round, th);
            bb_free(&s.b);
            if (clean)
                continue;
            j = (toks_jsonl){.special = pub_flags(special, 0), .plain = 1};
            cr_assert_eq(jsonl_run(in.p, in.n, th, &j, &s), TOKS_STOPPED);
            cr_expect_eq(j.line, first_bad, "round %d, %u threads", round, th);
            cr_expect_str_eq(j.msg, first_msg);
            bb_free(&s.b);
        }
        bb_free(&in), bb_free(&want);
    }
    tok_close(one);
}

/* The IDs of every length 0..40 with one ID outside the table (or none) at every place,
 * through tables of every size kind (1 entry, a power of two, one more, the largest), in
 * steps of eight, four and one: printf's text. A table too large is refused, empty. */
Test(tok_stream, put_ids_every_length_and_place_and_table_size)
{
    static const uint32_t vocabs[] = {1, 10, 50257, 65536, 65537, TOKS_IDTEXT_MAX};
    for (size_t v = 0; v < sizeof vocabs / sizeof vocabs[0]; v++) {
        toks_idtext d;
        cr_assert_eq(toks_idtext_init(&d, vocabs[v], ' '), 0);
        cr_assert(d.n >= vocabs[v] && (d.n & (d.n - 1)) == 0 && d.n < 2 * vocabs[v] + 1, "size %u for %u", d.n,
                  vocabs[v]);
        for (uint32_t id = 0; id < d.n; id += id < 2000 ? 1 : 997) { /* each entry as printf writes it */
            char want[16];
            int wl = sprintf(want, "%u ", id);
            cr_assert(d.text[id][7] == wl && memcmp(d.text[id], want, (size_t)wl) == 0, "entry %u", id);
        }
        for (size_t n = 0; n <= 40; n++)
            for (size_t at = 0; at <= n; at++) {
                uint32_t ids[41];
                for (size_t i = 0; i < n; i++)
                    ids[i] = rnd() % d.n;
                if (at < n)
                    ids[at] = d.n + rnd() % 1000 + (rnd() % 2 ? 0 : 4000000000u - d.n);
                char want[41 * 12 + 1], *o = want;
                for (size_t i = 0; i < n; i++)
                    o += sprintf(o, i ? " %u" : "%u", ids[i]);
                bytebuf b = {0};
                toks_put_ids(&b, &d, ids, n, ' ');
                cr_assert(b.n == (size_t)(o - want) && (!b.n || memcmp(b.p, want, b.n) == 0),
                          "vocab %u: %zu IDs, outside at %zu", vocabs[v], n, at);
                bb_free(&b);
            }
        toks_idtext_free(&d);
    }
    toks_idtext d;
    cr_expect_eq(toks_idtext_init(&d, TOKS_IDTEXT_MAX + 1, ' '), G2E_ENOMEM);
    cr_expect(d.n == 0 && d.text == NULL);
}

/* What toks_jsonl_run must write for in[0..n) with keep_going, found one line at a time
 * without its shortcuts: the newline searched, jsonl_text, and tok_encode with its own
 * UTF-8 check (the reader's hint unused). */
static void jsonl_reference(const char *in, size_t n, int lossy, bytebuf *out)
{
    tok_tokenizer *t = open_repo();
    bytebuf text = {0}, key = {0};
    size_t line = 0;
    for (const char *s = in, *e = in + n, *nl; s < e; s = nl + 1) {
        nl = memchr(s, '\n', (size_t)(e - s));
        nl = nl ? nl : e;
        line++;
        size_t len = (size_t)(nl - s), k = 0;
        while (k < len && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r'))
            k++;
        jsonl_error je;
        text.n = 0;
        const char *why = NULL;
        g2e_err err;
        tok_ids r = {0};
        if (k == len) /* a blank line: a bad line, answered in its place */
            why = "a blank line: expected a JSON object {\"text\": \"...\"}";
        else if (jsonl_text(s, len, lossy ? JSONL_LOSSY : 0, &text, &key, &je))
            why = je.why;
        else if (tok_encode(t, text.p ? text.p : "", text.n, TOK_SPECIAL_TOKEN,
                            TOK_NO_OFFSETS | (lossy ? TOK_LOSSY : 0), &r, NULL, &err))
            why = err.msg;
        if (why) {
            char *lit = json_string_alloc(why, strlen(why));
            char tail[32];
            snprintf(tail, sizeof tail, ",\"line\":%zu}\n", line);
            bb_str(out, "{\"error\":"), bb_str(out, lit), bb_str(out, tail);
            free(lit);
            continue;
        }
        bb_str(out, "{\"ids\":[");
        for (size_t i = 0; i < r.n; i++) {
            char num[16];
            snprintf(num, sizeof num, i ? ",%u" : "%u", r.ids[i]);
            bb_str(out, num);
        }
        bb_str(out, "]}\n");
        tok_ids_free(&r);
    }
    bb_free(&text), bb_free(&key);
    tok_close(t);
}

/* Lines of raw UTF-8 (valid and ill-formed: overlong, surrogates, cut short, at every
 * place), escapes, the special token and other shapes, strict and lossy, small (no ID
 * table) and large (several shares), on one thread and on two: exactly the reference's
 * output, so the UTF-8 check is skipped only where it would have passed. */
Test(tok_stream, jsonl_raw_utf8_valid_and_not_agrees_with_a_checked_reference, .timeout = 120)
{
    static const char *const bits[] = {
        "a", "the ", " cat", "\\n", "\\t", "\\\"", "\\\\", "\\u00e9", "\\ud83d\\ude00", "\\ud800", "\xC3\xA9",
        "\xE7\x8A\xAC", "\xF0\x9F\x98\x80", "\xED\x9F\xBF", "\xE0\xA0\x80", "\xC0\x80", "\xE0\x80\x80", "\xED\xA0\x80",
        "\xF4\x90\x80\x80", "\xFF", "\x80", "\xE7\x8A", "<|endoftext|>", "0123456789abcdef",
    };
    enum { NB = sizeof bits / sizeof bits[0] };
    for (int size = 0; size < 2; size++) {
        bytebuf in = {0};
        size_t lines = size ? 6000 : 200;
        for (size_t k = 0; k < lines; k++) {
            unsigned shape = rnd() % 10;
            bb_str(&in, shape == 0 ? "{\"id\": 1, \"text\": \"" : shape == 1 ? "  {\"text\" : \"" : "{\"text\": \"");
            for (size_t m = rnd() % 12; m > 0; m--)
                bb_str(&in, bits[rnd() % 3 == 0 ? rnd() % NB : rnd() % 3]);
            bb_str(&in, shape == 2 ? "\"} \r\n" : shape == 3 ? "\"}\n\n" : "\"}\n");
        }
        for (int lossy = 0; lossy < 2; lossy++) {
            bytebuf want = {0};
            jsonl_reference(in.p, in.n, lossy, &want);
            for (unsigned th = 1; th <= 2; th++) {
                toks_jsonl j = {.special = 0, .lossy = lossy, .keep_going = 1};
                sink s;
                cr_assert_eq(jsonl_run(in.p, in.n, th, &j, &s), 0, "%s", j.msg);
                cr_assert(s.b.n == want.n && memcmp(s.b.p, want.p, want.n) == 0,
                          "%zu lines, lossy %d, %u threads: the output differs", lines, lossy, th);
                if (!lossy)
                    cr_expect_gt(j.bad, 0, "some lines are bad");
                bb_free(&s.b);
            }
            bb_free(&want);
        }
        bb_free(&in);
    }
}

/* ---- plain text in documents (eng_stream) ---- */

typedef struct collect {
    uint32_t *ids;
    size_t n, cap;
    size_t *starts; /* global positions */
    size_t ns, scap;
    int fail_at;    /* > 0: the fail_at-th call fails */
    int calls;
} collect;

static int collect_put(void *user, const uint32_t *ids, size_t n, const size_t *starts, size_t ns)
{
    collect *c = user;
    if (c->fail_at && ++c->calls == c->fail_at)
        return 1;
    if (c->n + n > c->cap)
        c->ids = realloc(c->ids, (c->cap = 2 * (c->n + n) + 16) * sizeof *c->ids);
    if (c->ns + ns > c->scap)
        c->starts = realloc(c->starts, (c->scap = 2 * (c->ns + ns) + 16) * sizeof *c->starts);
    for (size_t i = 0; i < ns; i++) {
        cr_assert(starts[i] <= n && (i == 0 || starts[i] >= starts[i - 1]), "starts in order within the stretch");
        c->starts[c->ns++] = c->n + starts[i];
    }
    if (n)
        memcpy(c->ids + c->n, ids, n * sizeof *ids);
    c->n += n;
    return 0;
}

/* The reference: text split at sep's occurrences left to right (memmem), a separator at the
 * very end starting nothing, each piece tok_encode'd alone on one thread. */
static void docs_by_hand(const char *text, size_t len, const char *sep, tok_special sp, int lines, collect *c)
{
    tok_tokenizer *t = open_repo();
    size_t L = sep ? strlen(sep) : 0, at = 0;
    if (lines && !len) {
        tok_close(t);
        return;
    }
    for (;;) {
        const char *hit = L ? memmem(text + at, len - at, sep, L) : NULL;
        size_t e = hit ? (size_t)(hit - text) : len, zero = 0;
        tok_ids r;
        g2e_err err;
        cr_assert_eq(tok_encode(t, text + at, e - at, sp, TOK_NO_OFFSETS, &r, NULL, &err), 0, "%s", err.msg);
        collect_put(c, r.ids, r.n, &zero, 1);
        tok_ids_free(&r);
        if (!hit || e + L == len)
            break;
        at = e + L;
    }
    tok_close(t);
}

static void text_run_agrees(const char *text, size_t len, const char *sep, tok_special sp, const char *what)
{
    collect want = {0};
    docs_by_hand(text, len, sep, sp, 0, &want);
    static const unsigned counts[] = {1, 2, 3, 5};
    static const size_t splits[] = {8, 61, 4096, 0};
    for (size_t c = 0; c < 4; c++)
        for (size_t s = 0; s < 4; s++) {
            eng *t = open_repo_eng(splits[s]);
            collect got = {0};
            rd_mem mem = {text, len};
            eng_text o = {.special = sp, .sep = sep, .sep_len = sep ? strlen(sep) : 0, .read = rd_read_mem,
                          .read_user = &mem, .put = collect_put, .user = &got};
            cr_assert_eq(eng_stream(t, counts[c], &o), 0, "%s: %s", what, o.msg);
            cr_assert(got.n == want.n && (!want.n || !memcmp(got.ids, want.ids, want.n * sizeof *want.ids)),
                      "%s, %u threads, split %zu: the IDs differ (%zu, want %zu)", what, counts[c], splits[s], got.n,
                      want.n);
            cr_assert(got.ns == want.ns && (!want.ns || !memcmp(got.starts, want.starts, want.ns * sizeof *want.starts)),
                      "%s, %u threads, split %zu: the documents differ (%zu, want %zu)", what, counts[c], splits[s],
                      got.ns, want.ns);
            cr_expect_eq(o.bytes, len);
            cr_expect_eq(o.tokens, want.n);
            cr_expect_eq(o.docs, want.ns);
            free(got.ids), free(got.starts);
            eng_free(t);
        }
    free(want.ids), free(want.starts);
}

/* Documents: every separator, among adversarial texts, cut everywhere: what tokenizing
 * each piece alone gives. Separators with whitespace after a non-space character ("a\na")
 * straddle the pre-tokenizer's cuts; "aa" overlaps itself. */
Test(tok_stream, text_run_gives_each_documents_own_ids_cut_everywhere, .timeout = 300)
{
    size_t cap = 40000;
    char *buf = malloc(cap);
    static const char *const seps[] = {NULL, "\n\n", "<|endoftext|>", "a\na", " ", "aa", "\n"};
    for (int round = 0; round < 7; round++) {
        size_t n = mixture(buf, cap, 1);
        char what[64];
        snprintf(what, sizeof what, "mixture %d, separator %d", round, round);
        text_run_agrees(buf, n, seps[round], round % 2 ? TOK_SPECIAL_TOKEN : TOK_SPECIAL_TEXT, what);
    }
    /* separators that straddle cut points and overlap themselves, often */
    static const char *const bits[] = {"a\na", "a", "\n", " ", "b", "a\n", "\na", "  "};
    for (int round = 0; round < 4; round++) {
        size_t n = 0;
        while (n < 20000) {
            const char *b = bits[rnd() % 8];
            memcpy(buf + n, b, strlen(b));
            n += strlen(b);
        }
        static const char *const tricky[] = {"a\na", "a\n", "\na", "a a"};
        text_run_agrees(buf, n, tricky[round], TOK_SPECIAL_TEXT, tricky[round]);
    }
    /* at the edges: empty input (one empty document), separators only, at both ends */
    text_run_agrees("", 0, NULL, TOK_SPECIAL_TEXT, "empty");
    text_run_agrees("", 0, "\n\n", TOK_SPECIAL_TEXT, "empty, a separator");
    text_run_agrees("\n\n\n\n\n", 5, "\n\n", TOK_SPECIAL_TEXT, "separators only");
    text_run_agrees("\n\nab\n\n", 6, "\n\n", TOK_SPECIAL_TEXT, "at both ends");
    size_t n, c1;
    char *a = texts_of(G2E_SRCDIR "/tests/data/tokenizer_cases.jsonl", &n, &c1);
    text_run_agrees(a, n, "\n", TOK_SPECIAL_TOKEN, "conformance texts, by line");
    free(a);
    free(buf);
}

/* The corpus from a descriptor (a pipe: read as it comes) gives the one-thread IDs. */
Test(tok_stream, text_run_reads_a_pipe, .timeout = 120)
{
    size_t n;
    char *text = corpus(&n);
    collect want = {0};
    docs_by_hand(text, n, NULL, TOK_SPECIAL_TEXT, 0, &want);
    int fd[2];
    cr_assert_eq(pipe(fd), 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        for (size_t at = 0; at < n;) { /* in odd pieces */
            ssize_t k = write(fd[1], text + at, n - at < 7777 ? n - at : 7777);
            if (k <= 0)
                _exit(1);
            at += (size_t)k;
        }
        _exit(0);
    }
    close(fd[1]);
    eng *t = open_repo_eng(0);
    collect got = {0};
    eng_text o = {.special = GPT2EMBED_SPECIAL_TEXT, .read = rd_read_fd, .read_user = &fd[0], .put = collect_put,
                  .user = &got};
    cr_assert_eq(eng_stream(t, 3, &o), 0, "%s", o.msg);
    close(fd[0]);
    waitpid(pid, NULL, 0);
    cr_expect(got.n == want.n && got.n && !memcmp(got.ids, want.ids, want.n * sizeof *want.ids), "the corpus's IDs differ");
    cr_expect_eq(got.ns, 1);
    eng_free(t);
    free(got.ids), free(got.starts), free(want.ids), free(want.starts), free(text);
}

/* A bad byte far in: tok_encode's message with the whole input's offset, every chunk
 * before it handed on; a failing callback stops the run. */
Test(tok_stream, text_run_errors_name_the_inputs_offset)
{
    size_t n = 1 << 20;
    char *text = malloc(n);
    for (size_t i = 0; i < n; i++)
        text[i] = i % 7 == 6 ? ' ' : 'a';
    text[700001] = '\xFF';
    eng *t = open_repo_eng(4096);
    collect got = {0};
    rd_mem mem = {text, n};
    eng_text o = {.special = GPT2EMBED_SPECIAL_TEXT, .read = rd_read_mem, .read_user = &mem, .put = collect_put,
                  .user = &got};
    cr_assert_eq(eng_stream(t, 3, &o), TOK_E_UTF8);
    cr_expect_str_eq(o.msg, "invalid UTF-8 at byte offset 700001 (byte 0xFF)");
    cr_expect_eq(o.bad_offset, 700001);
    cr_expect(o.bytes <= 700001 && o.bytes > 600000, "the chunks before it handed on: %llu bytes",
              (unsigned long long)o.bytes);
    text[700001] = 'a';
    memcpy(text + 800000, "<|endoftext|>", 13);
    mem = (rd_mem){text, n};
    o = (eng_text){.special = GPT2EMBED_SPECIAL_ERROR, .read = rd_read_mem, .read_user = &mem, .put = collect_put,
                   .user = &got};
    cr_assert_eq(eng_stream(t, 3, &o), TOK_E_SPECIAL);
    cr_expect(strstr(o.msg, "at byte offset 800000 ") != NULL, "%s", o.msg);
    cr_expect_eq(o.bad_offset, 800000);
    collect fail = {.fail_at = 3};
    mem = (rd_mem){text, n};
    o = (eng_text){.special = GPT2EMBED_SPECIAL_TEXT, .read = rd_read_mem, .read_user = &mem, .put = collect_put,
                   .user = &fail};
    cr_assert_eq(eng_stream(t, 3, &o), ENG_STOPPED);
    free(got.ids), free(got.starts), free(fail.ids), free(fail.starts);
    eng_free(t);
    free(text);
}
