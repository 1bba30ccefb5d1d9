/* SPDX-License-Identifier: MIT */
/* test_training_cli.c — `tokenize` making training data, through the built program, where a
 * process and its signals are needed (issue 39; the files' layouts against llm.c's and
 * nanoGPT's scripts are in tests/python/test_training_data.py): a fatal signal leaves no
 * temporary of any token file, whole or sharded; a long line through a pipe costs time
 * linear in its length, and a line over the limit is an error row in its place; --jsonl's
 * kept members with lone surrogate escapes, and a member kept twice. */
#define _GNU_SOURCE
#include "bytebuf.h"
#include "support.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BIN G2E_TEST_BIN

/* A running gpt2-embed: its standard input is ours to write (in), its output /dev/null, its
 * standard error a file (err_path). */
typedef struct proc {
    pid_t pid;
    int in;
} proc;

static proc start(char *const args[], const char *err_path)
{
    char *argv[64] = {BIN};
    int n = 1;
    for (; args[n - 1] && n < 63; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    int p[2];
    cr_assert(pipe(p) == 0);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        int dn = open("/dev/null", O_WRONLY), ef = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(p[0], 0);
        dup2(dn, 1);
        dup2(ef, 2);
        close(p[0]), close(p[1]), close(dn), close(ef);
        /* the signals sent must act as on a terminal's job, whatever ignores them around the
         * tests (nohup, a CI runner): an ignored signal stays ignored across exec */
        signal(SIGHUP, SIG_DFL), signal(SIGTERM, SIG_DFL), signal(SIGPIPE, SIG_DFL);
        execv(argv[0], argv);
        _exit(127);
    }
    close(p[0]);
    signal(SIGPIPE, SIG_IGN);
    return (proc){pid, p[1]};
}

/* Writes all of s[0..n) to fd (blocking). */
static void put_all(int fd, const char *s, size_t n)
{
    while (n) {
        ssize_t k = write(fd, s, n);
        if (k < 0 && errno == EINTR)
            continue;
        cr_assert(k > 0, "write: %s", strerror(errno));
        s += k, n -= (size_t)k;
    }
}

/* How many entries of dir start with '.' (temporaries), and whether `name` is there. */
static int hidden_in(const char *dir, const char *name, int *has)
{
    DIR *d = opendir(dir);
    cr_assert(d != NULL);
    int n = 0;
    *has = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
        *has |= name && strcmp(e->d_name, name) == 0;
    }
    closedir(d);
    return n;
}

/* Waits (up to a minute) until dir holds `temps` temporaries or more, and `name` when it is
 * not NULL: the state the process blocks in once it has written what it was given. */
static int wait_for(const char *dir, int temps, const char *name)
{
    for (int i = 0; i < 60000; i++) {
        int has;
        if (hidden_in(dir, name, &has) >= temps && (!name || has))
            return 1;
        usleep(1000);
    }
    return 0;
}

/* SIGTERM and SIGHUP while a token file is being written (the process waiting for more of
 * its standard input): it dies of the signal and leaves no temporary; in shards, the
 * complete ones stay, and the held-back full shard of --shard-min-tokens goes too. The
 * input is JSON lines, which a pipe hands on as they come: 400 documents of 3 tokens
 * ("Hello world" and <|endoftext|>), so the state the process waits in is known: whole, one
 * temporary; in shards of 1000, shard 0 complete (999) and shard 1's temporary (201); with
 * a minimum of 500, shard 0 held back as well. */
Test(training_cli, a_fatal_signal_leaves_no_temporary_of_any_token_file, .timeout = 240)
{
    static const char *const fmts[] = {"npy", "u16", "u32", "llmc"};
    static const int sigs[] = {SIGTERM, SIGHUP};
    static const char line[] = "{\"text\": \"Hello world\"}\n";
    size_t n = 400 * (sizeof line - 1);
    char *text = malloc(n);
    for (int i = 0; i < 400; i++)
        memcpy(text + i * (sizeof line - 1), line, sizeof line - 1);
    for (int f = 0; f < 4; f++)
        for (int how = 0; how < 3; how++) /* whole, in shards, in shards with a minimum */
            for (int s = 0; s < 2; s++) {
                char tag[64];
                snprintf(tag, sizeof tag, "train-sig-%s-%d-%d", fmts[f], how, s);
                char *dir = test_tmpdir(tag), *out, *err = path_join(dir, "err.txt"), name[32];
                snprintf(name, sizeof name, "x.%s", fmts[f]);
                out = path_join(dir, name);
                snprintf(name, sizeof name, "x_000000.%s", fmts[f]);
                char *args[] = {"tokenize", "--jsonl", "--format", (char *)fmts[f], "-o", out,
                                "--shard-tokens", "1000", "--shard-min-tokens", "500", NULL};
                args[6 + 2 * how] = NULL;
                proc p = start(args, err);
                put_all(p.in, text, n);
                /* whole: its temporary; in shards: a complete one and the next one's temporary;
                 * with a minimum: a full one held back and the next one's temporary */
                int ok = wait_for(dir, how == 2 ? 2 : 1, how == 1 ? name : NULL);
                kill(p.pid, sigs[s]);
                int st;
                cr_assert(waitpid(p.pid, &st, 0) == p.pid);
                close(p.in);
                size_t el;
                char *e = read_file(err, &el);
                cr_expect(ok, "%s, %d: the temporaries never appeared: %s", fmts[f], how, e);
                cr_expect(WIFSIGNALED(st) && WTERMSIG(st) == sigs[s], "%s, %d: status %d: %s", fmts[f], how, st, e);
                int has;
                cr_expect_eq(hidden_in(dir, NULL, &has), 0, "%s, %d, signal %d: a temporary was left", fmts[f], how,
                             sigs[s]);
                free(e), free(out), free(err), free(dir);
            }
    free(text);
}

/* The CPU time (user + system, seconds) of `tokenize --jsonl` reading one JSON line of about
 * n bytes (its text "x", then n bytes of white space inside the object) through a pipe. */
static double cpu_of_a_long_line(size_t n)
{
    char *dir = test_tmpdir("train-longline"), *err = path_join(dir, "err.txt");
    char *line = malloc(n + 32);
    size_t k = (size_t)sprintf(line, "{\"text\": \"x\"");
    memset(line + k, ' ', n);
    k += n;
    k += (size_t)sprintf(line + k, "}\n");
    proc p = start((char *[]){"tokenize", "--jsonl", "--threads", "1", NULL}, err);
    for (size_t at = 0; at < k; at += 65536) /* (in a pipe's pieces) */
        put_all(p.in, line + at, k - at < 65536 ? k - at : 65536);
    close(p.in);
    int st;
    struct rusage ru;
    cr_assert(wait4(p.pid, &st, 0, &ru) == p.pid);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
    free(line), free(err), free(dir);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           (double)ru.ru_stime.tv_usec / 1e6;
}

/* A long line read in a pipe's pieces: the search for its end looked at every byte read so
 * far after each piece, so 8x the bytes cost ~64x the time (a 256 MB line took 24 s on an
 * idle machine). Measured as growth, not speed: the CPU time of a 64 MB line against an 8 MB
 * one (the smallest of two and three runs) stays far below the quadratic 64x (~7x measured
 * after the change, 52x before). */
Test(training_cli, a_long_line_costs_time_linear_in_its_length, .timeout = 300)
{
    double small = 1e9, big = 1e9;
    for (int r = 0; r < 3; r++) {
        double a = cpu_of_a_long_line((size_t)8 << 20), b = r < 2 ? cpu_of_a_long_line((size_t)64 << 20) : big;
        small = a < small ? a : small;
        big = b < big ? b : big;
    }
    small = small < 0.015 ? 0.015 : small; /* (the clock's grain, and the process's own start) */
    cr_expect(big / small < 24, "8 MB: %.3f s, 64 MB: %.3f s of CPU: %.1fx for 8x the bytes", small, big, big / small);
}

/* stdin s through `tokenize ARGS...`. */
static run_result tok_in(const char *s, size_t n, char *const *args)
{
    char *argv[32] = {BIN, "tokenize"};
    int k = 2;
    for (; args[k - 2] && k < 31; k++)
        argv[k] = args[k - 2];
    argv[k] = NULL;
    return run_argv(argv, s, n, NULL, NULL);
}
#define TOK(s, n, ...) tok_in(s, n, (char *const[]){__VA_ARGS__, NULL})

/* The line limit (--max-line, hidden; 1 GiB by default): a line of that length or more is
 * read and dropped, never held, and answered in its place, so the answers stay aligned
 * with the lines; its kept members are null; without --keep-going it stops the run after
 * the lines before it; into token files it is an error. One and two threads alike. */
Test(training_cli, a_line_over_the_limit_is_an_error_row_in_its_place, .timeout = 60)
{
    bytebuf in = {0};
    bb_str(&in, "{\"id\": 1, \"text\": \"Hello\"}\n");
    bb_str(&in, "{\"id\": 2, \"text\": \"");
    for (int i = 0; i < 3000; i++) /* 12,000 bytes: over the limit */
        bb_str(&in, "abc ");
    bb_str(&in, "\"}\n");
    bb_str(&in, "{\"id\": 3, \"text\": \"world\"}\n");
    /* a line of exactly 4095 bytes (the newline not counted): under the limit */
    size_t at = in.n;
    bb_str(&in, "{\"id\": 4, \"text\": \"");
    while (in.n - at < 4095 - 2)
        bb_str(&in, "x");
    bb_str(&in, "\"}\n");
    cr_assert_eq(in.n - at, 4096);
    bb_str(&in, "{\"id\": 5, \"text\": \""); /* the last line, too long, without a newline */
    for (int i = 0; i < 2000; i++)
        bb_str(&in, "abc ");
    static char *const threads[] = {"1", "2"};
    for (int t = 0; t < 2; t++) {
        run_result r = TOK(in.p, in.n, "--jsonl", "--keep-going", "--keep", "id", "--max-line", "4096", "--threads",
                           threads[t]);
        cr_expect_eq(r.status, 1, "%s", r.err);
        char *row[8] = {0};
        int rows = 0;
        for (char *q = r.out, *nl; rows < 8 && (nl = strchr(q, '\n')); q = nl + 1)
            *nl = '\0', row[rows++] = q;
        cr_expect_eq(rows, 5, "a row per line: %d", rows);
        cr_expect(rows > 4 && !strcmp(row[0], "{\"id\":1,\"ids\":[15496]}"), "%s", row[0]);
        cr_expect(rows > 4 && !strcmp(row[1], "{\"id\":null,\"error\":\"the line is 4 KiB or longer, more than is "
                                              "read\",\"line\":2}"), "%s", row[1]);
        cr_expect(rows > 4 && !strcmp(row[2], "{\"id\":3,\"ids\":[6894]}"), "%s", row[2]);
        cr_expect(rows > 4 && !strncmp(row[3], "{\"id\":4,\"ids\":[", 15), "%s", row[3]);
        cr_expect(rows > 4 && strstr(row[4], "\"line\":5}"), "%s", row[4]);
        cr_expect(strstr(r.err, "2 bad lines"), "%s", r.err);
        run_free(&r);
        /* without --keep-going: the lines before it, then the error naming it */
        r = TOK(in.p, in.n, "--lines", "--max-line", "4096", "--threads", threads[t]);
        cr_expect_eq(r.status, 1);
        cr_expect(!strncmp(r.out, "{\"ids\":[", 8) && strchr(r.out, '\n') == r.out + strlen(r.out) - 1,
                  "one row: %s", r.out);
        cr_expect(strstr(r.err, "standard input line 2: the line is 4 KiB or longer"), "%s", r.err);
        run_free(&r);
    }
    char *dir = test_tmpdir("train-maxline"), *out = path_join(dir, "x.u16");
    run_result r = TOK(in.p, in.n, "--jsonl", "--format", "u16", "--max-line", "4096", "-o", out);
    cr_expect(r.status == 1 && strstr(r.err, "line 2: the line is 4 KiB or longer"), "%s", r.err);
    struct stat st;
    cr_expect(stat(out, &st) != 0, "no token file");
    run_free(&r);
    /* --max-line is the batch modes' */
    r = TOK("x", 1, "--max-line", "10", "-");
    cr_expect_eq(r.status, 2, "%s", r.err);
    run_free(&r);
    free(out), free(dir);
    bb_free(&in);
}

/* A member other than "text" with a lone surrogate escape (Python's json.dumps writes one for
 * a file name with surrogate-escaped bytes) is valid JSON: checked, kept byte for byte, with
 * and without --lossy; a member asked for twice is copied once; the answers' own members
 * cannot be kept. */
Test(training_cli, kept_members_with_lone_surrogates_and_members_kept_twice)
{
    const char *in = "{\"text\": \"hi\", \"name\": \"a\\udcff.txt\", \"pair\": \"\\ud83d\\ude00\"}\n"
                     "{\"text\": \"hi\", \"n\": tru}\n";
    for (int lossy = 0; lossy < 2; lossy++) {
        run_result r = lossy ? TOK(in, strlen(in), "--jsonl", "--keep-going", "--lossy", "--keep", "name", "--keep",
                                   "pair")
                             : TOK(in, strlen(in), "--jsonl", "--keep-going", "--keep", "name", "--keep", "pair");
        cr_expect_eq(r.status, 1, "%s", r.err);
        cr_expect_str_eq(r.out, "{\"name\":\"a\\udcff.txt\",\"pair\":\"\\ud83d\\ude00\",\"ids\":[5303]}\n"
                                "{\"name\":null,\"pair\":null,\"error\":\"invalid JSON value\",\"line\":2}\n");
        run_free(&r);
    }
    run_result r = TOK(in, strlen(in), "--jsonl", "--keep-going", "--keep", "name", "--keep", "name");
    cr_expect(!strncmp(r.out, "{\"name\":\"a\\udcff.txt\",\"ids\":", 28), "one \"name\": %s", r.out);
    run_free(&r);
    static char *const own[][2] = {{"ids", ""}, {"error", "--keep-going"}, {"line", "--keep-going"}};
    for (int k = 0; k < 3; k++) {
        r = *own[k][1] ? TOK(in, strlen(in), "--jsonl", "--keep", own[k][0], own[k][1])
                       : TOK(in, strlen(in), "--jsonl", "--keep", own[k][0]);
        cr_expect_eq(r.status, 2, "--keep %s: %s", own[k][0], r.err);
        run_free(&r);
    }
    r = TOK("{\"text\": \"hi\", \"line\": 7}\n", 27, "--jsonl", "--keep", "line");
    cr_expect_str_eq(r.out, "{\"line\":7,\"ids\":[5303]}\n"); /* (without --keep-going, "line" is the data's) */
    run_free(&r);
}
