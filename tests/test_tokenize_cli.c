/* SPDX-License-Identifier: MIT */
/* test_tokenize_cli.c — `gpt2-embed tokenize` and `decode` through the built program:
 * formats, batch mode, special modes, UTF-8 errors, exit statuses, no partial output,
 * tokenizer lookup. Expected IDs are tiktoken's (see test_tokenizer.c). */
#define _GNU_SOURCE /* strndup */
#include "json.h"
#include "jsonl.h"
#include "support.h"

#include <cjson/cJSON.h>

#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define BIN G2E_TEST_BIN
#define TOKDIR G2E_SRCDIR "/tokenizer"

static run_result g2e_in(const char *in, size_t in_len, char *const env[], char *const *args)
{
    char *argv[32] = {BIN};
    size_t n = 1;
    for (; args[n - 1] && n < 31; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    return run_argv(argv, in, in_len, env, NULL);
}
#define RUN_IN(in, len, ...) g2e_in(in, len, NULL, (char *const[]){__VA_ARGS__, NULL})

Test(tokenize_cli, ids_format)
{
    run_result r = run_g2e("tokenize", "--format", "ids", "Hello world", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.out, "15496 995\n");
    cr_expect_eq(r.err_len, 0);
    run_free(&r);
    r = run_g2e("tokenize", "--format", "ids", "Hello", "world", NULL); /* joined by one space */
    cr_expect_str_eq(r.out, "15496 995\n");
    run_free(&r);
    r = run_g2e("tokenize", "--format", "ids", "--", "-5", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.out, "12 20\n");
    run_free(&r);
}

Test(tokenize_cli, table_format_shows_pieces_and_offsets)
{
    run_result r = run_g2e("tokenize", "Hello world\n", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "pos") && strstr(r.out, "id") && strstr(r.out, "piece"), "%s", r.out);
    cr_expect(strstr(r.out, "15496  Hello") != NULL, "%s", r.out);
    cr_expect(strstr(r.out, "\xE2\x90\xA3world") != NULL, "%s", r.out);  /* ␣world */
    cr_expect(strstr(r.out, "\xE2\x86\xB5") != NULL, "%s", r.out);  /* ↵: the newline, shown as every command shows it */
    cr_expect(strstr(r.out, "5..11") != NULL, "%s", r.out);
    cr_expect(strstr(r.out, "11..12") != NULL, "%s", r.out);
    run_free(&r);
    /* a token that is part of a UTF-8 character is shown as that character and its share
     * (issue 11: 日 is E6 97 A5, tokens [E6 97] and [A5]) */
    r = run_g2e("tokenize", "--special", "text", "\xE6\x97\xA5", NULL);
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "\xE6\x97\xA5 (1-2/3)") && strstr(r.out, "\xE6\x97\xA5 (3/3)"), "%s", r.out);
    run_free(&r);
}

Test(tokenize_cli, json_format)
{
    run_result r = run_g2e("tokenize", "--format", "json", "Hi <|endoftext|>", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "\"ids\":[17250,220,50256]") != NULL, "%s", r.out);
    cr_expect(strstr(r.out, "\"offsets\":[[0,2],[2,3],[3,16]]") != NULL, "%s", r.out);
    cr_expect(strstr(r.out, "\"pieces\":[\"Hi\",\" \",\"<|endoftext|>\"]") != NULL, "%s", r.out);
    run_free(&r);
}

Test(tokenize_cli, special_modes)
{
    run_result r = run_g2e("tokenize", "--format", "ids", "--special", "text", "<|endoftext|>", NULL);
    cr_expect_str_eq(r.out, "27 91 437 1659 5239 91 29\n");
    run_free(&r);
    r = run_g2e("tokenize", "--format", "ids", "<|endoftext|>", NULL); /* token is the default */
    cr_expect_str_eq(r.out, "50256\n");
    run_free(&r);
    r = run_g2e("tokenize", "--format", "ids", "--special", "error", "ab<|endoftext|>", NULL);
    cr_expect_eq(r.status, 1);
    cr_expect_eq(r.out_len, 0);
    cr_expect(strstr(r.err, "byte offset 2") != NULL, "%s", r.err);
    /* the library's message names no option; the program adds its own advice */
    cr_expect(strstr(r.err, "(use --special token or --special text)") != NULL, "%s", r.err);
    cr_expect_eq(strchr(r.err, '\n'), r.err + r.err_len - 1, "one line: %s", r.err);
    run_free(&r);
    r = run_g2e("tokenize", "--special", "maybe", "x", NULL);
    cr_expect_eq(r.status, 2);
    run_free(&r);
}

Test(tokenize_cli, invalid_utf8_and_lossy)
{
    const char bad[] = "abc\xFF" "def";
    run_result r = RUN_IN(bad, sizeof bad - 1, "tokenize", "--format", "ids", "-");
    cr_expect_eq(r.status, 1);
    cr_expect_eq(r.out_len, 0);
    cr_expect(strstr(r.err, "byte offset 3") != NULL, "%s", r.err);
    run_free(&r);
    r = RUN_IN(bad, sizeof bad - 1, "tokenize", "--format", "ids", "--lossy", "-");
    cr_expect_eq(r.status, 0, "%s", r.err);
    /* "abc\uFFFDdef" as tiktoken encodes it (Python's errors="replace" text) */
    run_result p = run_g2e("tokenize", "--format", "ids", "abc\xEF\xBF\xBD" "def", NULL);
    cr_expect_str_eq(r.out, p.out);
    cr_expect(strstr(r.err, "replaced") != NULL, "%s", r.err);
    run_free(&p);
    run_free(&r);
}

Test(tokenize_cli, file_and_stdin_inputs)
{
    char *dir = test_tmpdir("tokcli");
    char *f = path_join(dir, "in.txt");
    write_file(f, "Hello world", 11);
    run_result r = run_g2e("tokenize", "--format", "ids", "-f", f, NULL);
    cr_expect_str_eq(r.out, "15496 995\n");
    run_free(&r);
    r = RUN_IN("Hello world", 11, "tokenize", "--format", "ids", "-");
    cr_expect_str_eq(r.out, "15496 995\n");
    run_free(&r);
    r = run_g2e("tokenize", "-f", "/nonexistent/file", NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "/nonexistent/file") != NULL, "%s", r.err);
    run_free(&r);
    r = run_g2e("tokenize", NULL);
    cr_expect_eq(r.status, 2);
    run_free(&r);
    r = run_g2e("tokenize", "-f", f, "text", NULL);
    cr_expect_eq(r.status, 2);
    run_free(&r);
    /* empty input: no tokens, an empty line */
    r = RUN_IN("", 0, "tokenize", "--format", "ids", "-");
    cr_expect_eq(r.status, 0);
    cr_expect_str_eq(r.out, "\n");
    run_free(&r);
    free(f);
    free(dir);
}

/* Standard input redirected from a file begins where the shell left it: after `head -c 6`,
 * the same answer as for the rest of the file through a pipe (a small file, mapped, and one
 * of 80 KB, read). */
Test(tokenize_cli, stdin_from_a_file_begins_where_the_shell_left_it)
{
    char *dir = test_tmpdir("tokcli_at"), *f = path_join(dir, "in.txt");
    for (size_t n = 11; n <= 80000; n += 80000 - 11) {
        char *s = malloc(n);
        memcpy(s, "Hello world", 11);
        for (size_t i = 11; i < n; i++)
            s[i] = " a bc"[i % 5];
        write_file(f, s, n);
        char *sh[] = {"/bin/sh", "-c", "{ head -c 6 >/dev/null; exec \"$0\" tokenize --format json -; } < \"$1\"",
                      BIN, f, NULL};
        run_result r = run_argv(sh, NULL, 0, NULL, NULL), want = RUN_IN(s + 6, n - 6, "tokenize", "--format", "json", "-");
        cr_expect_eq(r.status, 0, "%s", r.err);
        cr_expect(r.out_len == want.out_len && memcmp(r.out, want.out, r.out_len) == 0, "%zu bytes: %.80s", n, r.out);
        run_free(&r);
        run_free(&want);
        free(s);
    }
    free(f), free(dir);
}

Test(tokenize_cli, jsonl_batch)
{
    const char in[] = "{\"text\": \"Hello world\"}\n{\"text\": \"\"}\n{\"id\": 3, \"text\": \"a\\u00e9\\ud83d\\ude00\"}\n";
    run_result r = RUN_IN(in, sizeof in - 1, "tokenize", "--jsonl");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.out, "{\"ids\":[15496,995]}\n{\"ids\":[]}\n{\"ids\":[64,2634,47249,222]}\n");
    run_free(&r);
    /* a blank line is no row to drop: an error naming it, or its error object in its place */
    const char blank[] = "{\"text\": \"a\"}\n\n{\"text\": \"b\"}\n";
    r = RUN_IN(blank, sizeof blank - 1, "tokenize", "--jsonl");
    cr_expect_eq(r.status, 1);
    cr_expect_str_eq(r.out, "{\"ids\":[64]}\n");
    cr_expect(strstr(r.err, "line 2: a blank line") != NULL, "%s", r.err);
    run_free(&r);
    r = RUN_IN(blank, sizeof blank - 1, "tokenize", "--jsonl", "--keep-going");
    cr_expect_eq(r.status, 1);
    cr_expect_str_eq(r.out, "{\"ids\":[64]}\n{\"error\":\"a blank line: expected a JSON object {\\\"text\\\": "
                            "\\\"...\\\"}\",\"line\":2}\n{\"ids\":[65]}\n");
    run_free(&r);
    /* a bad line stops the run, naming its line; the lines before it are kept */
    const char bad[] = "{\"text\": \"ok\"}\n{\"txt\": 1}\n{\"text\": \"never\"}\n";
    r = RUN_IN(bad, sizeof bad - 1, "tokenize", "--jsonl");
    cr_expect_eq(r.status, 1);
    cr_expect_str_eq(r.out, "{\"ids\":[482]}\n");
    cr_expect(strstr(r.err, "line 2") && strstr(r.err, "no \"text\" member"), "%s", r.err);
    run_free(&r);
    /* --keep-going: an error object in its place, the run goes on, exit status 1 */
    r = RUN_IN(bad, sizeof bad - 1, "tokenize", "--jsonl", "--keep-going");
    cr_expect_eq(r.status, 1);
    cr_expect_str_eq(r.out, "{\"ids\":[482]}\n{\"error\":\"no \\\"text\\\" member\",\"line\":2}\n"
                            "{\"ids\":[12081]}\n");
    run_free(&r);
    const char sur[] = "{\"text\": \"a\\ud800b\"}\n";
    r = RUN_IN(sur, sizeof sur - 1, "tokenize", "--jsonl");
    cr_expect_eq(r.status, 1);
    run_free(&r);
    r = RUN_IN(sur, sizeof sur - 1, "tokenize", "--jsonl", "--lossy");
    cr_expect_eq(r.status, 0, "%s", r.err);
    run_free(&r);
}

Test(tokenize_cli, jsonl_matches_the_conformance_file)
{
    size_t n;
    char *in = read_file(G2E_SRCDIR "/tests/data/tokenizer_cases.jsonl", &n);
    size_t en;
    char *want = read_file(G2E_SRCDIR "/tests/data/tokenizer_expected.jsonl", &en);
    cr_assert(in && want);
    run_result r = RUN_IN(in, n, "tokenize", "--jsonl", "--special", "text");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(r.out_len == en && memcmp(r.out, want, en) == 0, "--jsonl output differs from tiktoken's");
    run_free(&r);
    free(in);
    free(want);
}

/* Issue 38: IDs that end inside a character are written as they are (the bytes are the
 * truth), with a note that says so and which bytes and ID; whole text gets no note. */
Test(decode_cli, ids_that_end_inside_a_character_are_said)
{
    run_result r = run_g2e("decode", "163", "232", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(r.out_len == 2 && memcmp(r.out, "\xE7\x8A", 2) == 0);
    cr_expect(strstr(r.err, "the IDs end inside a character: the bytes E7 8A (from ID 163 at index 0 on) "
                            "are the first 2 of a 3-byte UTF-8 character"), "%s", r.err);
    run_free(&r);
    r = run_g2e("decode", "163", "232", "105", NULL);   /* 犬, whole */
    cr_expect(r.status == 0 && strcmp(r.out, "犬") == 0 && r.err_len == 0, "%s", r.err);
    run_free(&r);
    r = run_g2e("decode", "232", "163", "232", "105", NULL);   /* a stray continuation byte first */
    cr_expect(strstr(r.err, "not UTF-8 text from byte 0 on (byte 8A, from ID 232 at index 0)"), "%s", r.err);
    run_free(&r);
    r = run_g2e("--lang", "ja", "decode", "163", NULL);
    cr_expect(strstr(r.err, "ID が文字の途中で終わっています: バイト E7（"), "%s", r.err);
    run_free(&r);
}

Test(decode_cli, ids_to_exact_bytes)
{
    run_result r = run_g2e("decode", "15496", "995", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.out, "Hello world");
    run_free(&r);
    r = RUN_IN("[15496, 995]\n", 13, "decode");
    cr_expect_str_eq(r.out, "Hello world");
    run_free(&r);
    r = RUN_IN("15496 995\n", 10, "decode", "-");
    cr_expect_str_eq(r.out, "Hello world");
    run_free(&r);
    r = run_g2e("decode", "15496", "50257", NULL);
    cr_expect_eq(r.status, 1);
    cr_expect_eq(r.out_len, 0);
    cr_expect(strstr(r.err, "50257") != NULL, "%s", r.err);
    run_free(&r);
    r = run_g2e("decode", "12x", NULL);
    cr_expect_eq(r.status, 2);
    run_free(&r);
    r = run_g2e("decode", "99999999999", NULL);
    cr_expect_neq(r.status, 0);
    run_free(&r);
}

Test(decode_cli, round_trip_through_both_commands)
{
    const char text[] = "  Mixed\ttext: caf\xC3\xA9, \xE6\x97\xA5\xE6\x9C\xAC, 'quotes' & <|endoftext|>\n\n";
    run_result a = RUN_IN(text, sizeof text - 1, "tokenize", "--format", "ids", "-");
    cr_assert_eq(a.status, 0, "%s", a.err);
    run_result b = RUN_IN(a.out, a.out_len, "decode");
    cr_expect_eq(b.status, 0, "%s", b.err);
    cr_expect(b.out_len == sizeof text - 1 && memcmp(b.out, text, b.out_len) == 0, "got '%s'", b.out);
    run_free(&a);
    run_free(&b);
}

Test(tokenize_cli, tokenizer_lookup)
{
    char *env_bad[] = {"GPT2_EMBED_TOKENIZER=/nonexistent/tokdir", NULL};
    char *args[] = {"tokenize", "--format", "ids", "x", NULL};
    run_result r = g2e_in(NULL, 0, env_bad, args);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "/nonexistent/tokdir") != NULL, "%s", r.err);
    run_free(&r);
    r = run_g2e("tokenize", "--tokenizer", "/nonexistent/other", "x", NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "/nonexistent/other") != NULL, "%s", r.err);
    run_free(&r);
    r = run_g2e("tokenize", "--format", "ids", "--tokenizer", TOKDIR, "x", NULL);
    cr_expect_str_eq(r.out, "87\n");
    run_free(&r);
    /* a corrupt tokenizer/ beside the executable is an error naming it, not skipped */
    char *dir = test_tmpdir("beside");
    char *tdir = path_join(dir, "tokenizer");
    cr_assert_eq(mkdir(tdir, 0755), 0);
    char *v = path_join(tdir, "vocab.json"), *m = path_join(tdir, "merges.txt");
    write_file(v, "{\"a\": 0", 7);
    write_file(m, "#version: 0.2\n", 14);
    char *exe = path_join(dir, "gpt2-embed");
    size_t n;
    char *bin = read_file(BIN, &n);
    write_file(exe, bin, n);
    cr_assert_eq(chmod(exe, 0755), 0);
    char *argv[] = {exe, "tokenize", "x", NULL};
    char *env_none[] = {"-GPT2_EMBED_TOKENIZER", NULL};
    r = run_argv(argv, NULL, 0, env_none, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, tdir) != NULL, "%s", r.err);
    run_free(&r);
    free(bin);
    free(exe);
    free(v);
    free(m);
    free(tdir);
    free(dir);
}

Test(tokenize_cli, help)
{
    run_result r = run_g2e("tokenize", "--help", NULL);
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "--jsonl") && strstr(r.out, "--special") && strstr(r.out, "--lossy"), "%s", r.out);
    run_free(&r);
    r = run_g2e("decode", "--help", NULL);
    cr_expect_eq(r.status, 0);
    run_free(&r);
    r = run_g2e("tokenize", "--bogus", NULL);
    cr_expect_eq(r.status, 2);
    run_free(&r);
}

/* decode reads its IDs in the one grammar (opt_parse_ids), from arguments or stdin */
Test(decode_cli, one_id_grammar_and_its_messages)
{
    run_result r = run_g2e("decode", "[15496,", "995]", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.out, "Hello world");
    run_free(&r);
    r = run_g2e("decode", "15496,995", NULL);
    cr_expect_str_eq(r.out, "Hello world");
    run_free(&r);
    r = run_g2e("decode", "15496", "x", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "gpt2-embed decode: expected a token ID (a whole number) at character 7, got 'x'\n");
    cr_expect_eq(r.out_len, 0);
    run_free(&r);
    r = RUN_IN("15496\n995 oops\n", 15, "decode", "-");
    cr_expect_eq(r.status, 1);
    cr_expect_str_eq(r.err, "gpt2-embed: standard input: expected a token ID (a whole number) at character 11, got 'oops'\n");
    cr_expect_eq(r.out_len, 0);
    run_free(&r);
    r = run_g2e("decode", "15496", "-", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "gpt2-embed decode: give IDs as arguments or on standard input ('-'), not both\n");
    run_free(&r);
    r = run_g2e("decode", "--tokenizer=", "1", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "gpt2-embed decode: --tokenizer needs a directory, got an empty one ('')\n");
    run_free(&r);
}

/* ------------------------------------------------------------ streaming, threads, -o */

Test(tokenize_cli, jsonl_checks_every_member_and_keeps_every_byte)
{
    /* issue 15: invalid JSON in another member is refused */
    const char tru[] = "{\"text\":\"x\",\"n\": tru}\n";
    run_result r = RUN_IN(tru, sizeof tru - 1, "tokenize", "--jsonl");
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "line 1") && strstr(r.err, "invalid JSON"), "%s", r.err);
    run_free(&r);
    const char ok[] = "{\"n\": [1, {\"a\": null}, -2.5e3, true], \"text\": \"a\\u0000b\", \"x\": \"\\ud83d\\ude00\"}\n";
    r = RUN_IN(ok, sizeof ok - 1, "tokenize", "--jsonl");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.out, "{\"ids\":[64,188,65]}\n"); /* tiktoken: "a\0b" */
    run_free(&r);
}

/* Each output line is written as soon as its input line is done when the output is a
 * pipe: the next line is only sent after the previous answer has been read (on one thread,
 * and on several, where the lines are taken by whichever thread is free). */
static void answers_line_by_line(const char *threads)
{
    int in[2], out[2];
    cr_assert(pipe(in) == 0 && pipe(out) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[1]);
        close(out[0]);
        execl(BIN, BIN, "tokenize", "--jsonl", "--threads", threads, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    const char *lines[] = {"{\"text\": \"Hello world\"}\n", "{\"text\": \"a\"}\n", "{\"text\": \"b\"}\n"};
    const char *want[] = {"{\"ids\":[15496,995]}\n", "{\"ids\":[64]}\n", "{\"ids\":[65]}\n"};
    for (int k = 0; k < 3; k++) {
        cr_assert(write(in[1], lines[k], strlen(lines[k])) == (ssize_t)strlen(lines[k]));
        char got[64] = {0};
        size_t n = 0;
        while (n < strlen(want[k])) { /* blocks (and the test times out) if nothing is flushed */
            ssize_t m = read(out[0], got + n, sizeof got - 1 - n);
            cr_assert(m > 0, "no answer to line %d (%s threads)", k + 1, threads);
            n += (size_t)m;
        }
        cr_expect_str_eq(got, want[k], "%s threads", threads);
    }
    close(in[1]);
    char rest[8];
    cr_expect_eq(read(out[0], rest, sizeof rest), 0);
    close(out[0]);
    int st;
    waitpid(pid, &st, 0);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

Test(tokenize_cli, jsonl_answers_each_line_before_the_next_arrives, .timeout = 30)
{
    answers_line_by_line("0");
    answers_line_by_line("1");
    answers_line_by_line("3");
}

/* The whole corpus through the program, over threads and on one: tiktoken's IDs (the
 * sha256 of the space-separated IDs and a newline is published with the corpus). */
Test(tokenize_cli, corpus_ids_are_tiktokens_on_any_thread_count, .timeout = 120)
{
    char *gz[] = {"/bin/gzip", "-dc", G2E_SRCDIR "/bench/data/corpus.txt.gz", NULL};
    run_result c = run_argv(gz, NULL, 0, NULL, NULL);
    cr_assert_eq(c.status, 0);
    char *dir = test_tmpdir("tokcli-corpus");
    char *path = path_join(dir, "corpus.txt"), *ids = path_join(dir, "ids.txt");
    write_file(path, c.out, c.out_len);
    const char *threads[] = {"1", "2", "5"};
    for (int k = 0; k < 3; k++) {
        run_result r = run_g2e("tokenize", "--special", "text", "--format", "ids", "--threads", threads[k],
                               "-f", path, "-o", ids, NULL);
        cr_assert_eq(r.status, 0, "%s", r.err);
        run_free(&r);
        char *sum[] = {"/usr/bin/sha256sum", ids, NULL};
        r = run_argv(sum, NULL, 0, NULL, NULL);
        cr_expect(strncmp(r.out, "a32e6decd62653603120d455d94ad9ca3021ac9f021a2977d913d98aa0c55603", 64) == 0,
                  "%s threads: %s", threads[k], r.out);
        run_free(&r);
    }
    /* --jsonl, one object per corpus line, over threads: the one-thread output, in order */
    size_t cap = c.out_len * 2 + 1024, jn = 0;
    char *jl = malloc(cap);
    for (char *p = c.out, *e; p < c.out + c.out_len; p = e + 1) {
        e = memchr(p, '\n', (size_t)(c.out + c.out_len - p));
        if (!e)
            e = c.out + c.out_len;
        char *lit = json_string_alloc(p, (size_t)(e - p));
        size_t ll = strlen(lit);
        while (jn + ll + 16 > cap)
            jl = realloc(jl, cap *= 2);
        jn += (size_t)sprintf(jl + jn, "{\"text\": %s}\n", lit);
        free(lit);
    }
    /* through a pipe (blocks as they come) and from a file (1 MB blocks, split over threads) */
    char *jpath = path_join(dir, "corpus.jsonl");
    write_file(jpath, jl, jn);
    size_t lines = 0;
    for (size_t i = 0; i < jn; i++)
        lines += jl[i] == '\n';
    run_result one = RUN_IN(jl, jn, "tokenize", "--jsonl", "--special", "text", "--threads", "1");
    cr_assert_eq(one.status, 0, "%s", one.err);
    size_t out_lines = 0;
    for (size_t i = 0; i < one.out_len; i++)
        out_lines += one.out[i] == '\n';
    cr_expect_eq(out_lines, lines, "one output line per input line");
    cr_expect(one.out_len > 0 && strncmp(one.out, "{\"ids\":[", 8) == 0);
    static const char *const th[] = {"1", "2", "7"};
    for (int k = 0; k < 3; k++) {
        char cmd[4096];
        snprintf(cmd, sizeof cmd, "exec '%s' tokenize --jsonl --special text --threads %s < '%s'", BIN, th[k], jpath);
        char *sh[] = {"/bin/sh", "-c", cmd, NULL};
        run_result r = run_argv(sh, NULL, 0, NULL, NULL);
        cr_assert_eq(r.status, 0, "%s threads: %s", th[k], r.err);
        cr_expect(r.out_len == one.out_len && memcmp(r.out, one.out, one.out_len) == 0,
                  "--jsonl from a file over %s threads differs from the pipe on one", th[k]);
        run_free(&r);
    }
    run_free(&one);
    free(jpath);
    free(jl);
    run_free(&c);
    free(path);
    free(ids);
    free(dir);
}

/* ---- one whole text on threads (gpt2embed_tokenize_threads): --format json and the table ---- */

/* The known IDs of a text made of conformance texts joined by "\n\n": only texts that start
 * and end with a printable ASCII character other than a space are taken, so no piece of
 * GPT-2's pre-tokenizer crosses a join: the last piece of a text ends before the newline
 * (no piece but whitespace takes a newline), the first of the next starts after it (only a
 * space joins a word's piece), and "\n\n" before non-whitespace is two pieces "\n" (its
 * lookahead leaves the last whitespace character alone), each tiktoken's 198, as in the
 * conformance case "Hello\n\nworld\n" = 15496 198 198 6894 198. So the whole text's IDs are
 * each text's conformance IDs with 198 198 between, and a token starts where each text does. */
typedef struct joined {
    char *text;
    size_t len;
    uint32_t *ids;
    size_t n;
    size_t *starts;   /* the index of each text's first token, and its byte offset */
    size_t *at;
    size_t n_parts;
} joined;

static int printable(unsigned char c) { return c > 0x20 && c < 0x7F; }

static joined joined_conformance(size_t least)
{
    char *c = read_file(G2E_SRCDIR "/tests/data/tokenizer_cases.jsonl", NULL);
    char *e = read_file(G2E_SRCDIR "/tests/data/tokenizer_expected.jsonl", NULL);
    cr_assert(c && e);
    char *text[1100];
    cJSON *ids[1100];
    size_t k = 0;
    char *sc = NULL, *se = NULL;
    cJSON *keep[2200];
    size_t nk = 0;
    for (char *a = strtok_r(c, "\n", &sc), *b = strtok_r(e, "\n", &se); a && b && k < 1100;
         a = strtok_r(NULL, "\n", &sc), b = strtok_r(NULL, "\n", &se)) {
        cJSON *ja = cJSON_Parse(a), *jb = cJSON_Parse(b);
        cr_assert(ja && jb);
        keep[nk++] = ja, keep[nk++] = jb;
        char *t = cJSON_GetObjectItem(ja, "text")->valuestring;
        size_t tl = strlen(t);
        if (tl && printable((unsigned char)t[0]) && printable((unsigned char)t[tl - 1]))
            text[k] = t, ids[k++] = cJSON_GetObjectItem(jb, "ids");
    }
    cr_assert_gt(k, 150, "conformance texts that start and end with printable ASCII: %zu", k);
    size_t room = least + (1u << 20); /* the last part may pass least */
    joined j = {.text = malloc(room), .ids = malloc(room * sizeof *j.ids), .starts = malloc(room / 2 * sizeof(size_t)),
                .at = malloc(room / 2 * sizeof(size_t))};
    for (size_t i = 0; j.len < least; i = (i + 1) % k) {
        size_t tl = strlen(text[i]);
        size_t m = (size_t)cJSON_GetArraySize(ids[i]);
        if (j.n_parts) {
            memcpy(j.text + j.len, "\n\n", 2), j.len += 2;
            j.ids[j.n++] = 198, j.ids[j.n++] = 198;
        }
        j.starts[j.n_parts] = j.n, j.at[j.n_parts++] = j.len;
        memcpy(j.text + j.len, text[i], tl), j.len += tl;
        for (size_t t = 0; t < m; t++)
            j.ids[j.n++] = (uint32_t)cJSON_GetArrayItem(ids[i], (int)t)->valuedouble;
    }
    for (size_t i = 0; i < nk; i++)
        cJSON_Delete(keep[i]);
    free(c), free(e);
    return j;
}

/* The numbers of a JSON array of numbers (pairs flattened) after key in s: how many. */
static size_t json_numbers(const char *s, const char *key, size_t *v, size_t cap)
{
    const char *p = strstr(s, key);
    cr_assert(p, "no %s", key);
    p += strlen(key);
    size_t n = 0;
    int depth = 1;
    while (depth > 0 && *p) {
        if (*p >= '0' && *p <= '9') {
            char *end;
            unsigned long long x = strtoull(p, &end, 10);
            cr_assert_lt(n, cap);
            v[n++] = (size_t)x, p = end;
        } else {
            depth += *p == '[' ? 1 : *p == ']' ? -1 : 0;
            p++;
        }
    }
    return n;
}

/* tokenize --format json and the table of a 2.5 MB text (about 40 chunks of the threaded
 * path) on 2 threads: byte for byte what one thread writes; the IDs tiktoken's (known part
 * by part, joined_conformance); the offsets contiguous from 0 to the end, a token starting
 * at every part's first byte; the table's IDs and byte ranges the same. */
Test(tokenize_cli, whole_text_on_threads_is_tiktokens_and_one_threads, .timeout = 240)
{
    joined j = joined_conformance((size_t)5 << 19);
    char *dir = test_tmpdir("tokcli-whole-threads");
    char *path = path_join(dir, "text.txt");
    write_file(path, j.text, j.len);
    static const char *const fmts[] = {"json", "table"};
    char *out[2][2];
    size_t out_n[2][2];
    for (int f = 0; f < 2; f++)
        for (int th = 0; th < 2; th++) {
            char name[32];
            snprintf(name, sizeof name, "out-%s-%d", fmts[f], th + 1);
            char *o = path_join(dir, name);
            run_result r = run_g2e("tokenize", "--special", "text", "--format", fmts[f], "--threads",
                                   th ? "2" : "1", "-f", path, "-o", o, NULL);
            cr_assert_eq(r.status, 0, "%s, %d threads: %s", fmts[f], th + 1, r.err);
            run_free(&r);
            out[f][th] = read_file(o, &out_n[f][th]);
            cr_assert(out[f][th]);
            unlink(o); /* 80-180 MB each: read, so the disk holds one at a time */
            free(o);
        }
    for (int f = 0; f < 2; f++)
        cr_expect(out_n[f][0] == out_n[f][1] && memcmp(out[f][0], out[f][1], out_n[f][0]) == 0,
                  "--format %s on 2 threads differs from 1 thread", fmts[f]);
    /* the JSON's IDs and offsets */
    size_t *v = malloc(2 * (j.n + 1) * sizeof *v);
    size_t n = json_numbers(out[0][1], "\"ids\":[", v, j.n + 1);
    cr_assert_eq(n, j.n, "%zu IDs, tiktoken's %zu", n, j.n);
    size_t bad = 0;
    while (bad < n && v[bad] == j.ids[bad])
        bad++;
    cr_assert_eq(bad, n, "ID %zu is %zu, tiktoken's %u", bad, v[bad], j.ids[bad]);
    n = json_numbers(out[0][1], "\"offsets\":[", v, 2 * (j.n + 1));
    cr_assert_eq(n, 2 * j.n);
    cr_expect(v[0] == 0 && v[2 * j.n - 1] == j.len);
    for (size_t t = 1; t < j.n; t++)
        cr_assert_eq(v[2 * t], v[2 * t - 1], "token %zu does not start where %zu ends", t, t - 1);
    for (size_t p = 0; p < j.n_parts; p++)
        cr_assert_eq(v[2 * j.starts[p]], j.at[p], "part %zu's first token", p);
    /* the table: a heading, then "pos id piece a..b" a token */
    size_t t = 0;
    char *save = NULL;
    for (char *l = strtok_r(out[1][1], "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (l == out[1][1])
            continue; /* the heading */
        size_t pos, a, b;
        unsigned id;
        char *last = strrchr(l, ' ');
        cr_assert(last && sscanf(l, "%zu %u", &pos, &id) == 2 && sscanf(last + 1, "%zu..%zu", &a, &b) == 2, "%s", l);
        cr_assert(t < j.n && pos == t && id == j.ids[t] && a == v[2 * t] && b == v[2 * t + 1], "table row %zu: %s", t, l);
        t++;
    }
    cr_expect_eq(t, j.n, "table rows");
    for (int f = 0; f < 2; f++)
        free(out[f][0]), free(out[f][1]);
    free(v), free(path), free(dir);
    free(j.text), free(j.ids), free(j.starts), free(j.at);
}

Test(tokenize_cli, output_file_and_its_extension)
{
    char *dir = test_tmpdir("tokcli-out");
    char *js = path_join(dir, "a.json"), *txt = path_join(dir, "a.txt");
    run_result r = run_g2e("tokenize", "Hi", "-o", js, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    size_t n;
    char *d = read_file(js, &n);
    cr_expect(d && strncmp(d, "{\"n_tokens\":1,\"ids\":[17250]", 27) == 0, "%s", d);
    free(d);
    run_free(&r);
    r = run_g2e("tokenize", "--format", "ids", "Hi", "-o", js, NULL);
    cr_expect_eq(r.status, 2, "a contradicting extension is a usage error");
    run_free(&r);
    r = run_g2e("tokenize", "Hi", "-o", txt, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    d = read_file(txt, &n);
    cr_expect(d && strstr(d, "pos") && strstr(d, "17250"), "a table: %s", d);
    free(d);
    run_free(&r);
    /* a stopped --jsonl keeps the earlier lines in the file too */
    char *jl = path_join(dir, "b.jsonl");
    const char bad[] = "{\"text\": \"ok\"}\n{\"text\": 3}\n";
    char *args[] = {BIN, "tokenize", "--jsonl", "-o", jl, NULL};
    r = run_argv(args, bad, sizeof bad - 1, NULL, NULL);
    cr_expect_eq(r.status, 1);
    d = read_file(jl, &n);
    cr_expect(d && strcmp(d, "{\"ids\":[482]}\n") == 0, "%s", d ? d : "(no file)");
    free(d);
    run_free(&r);
    free(jl);
    free(js);
    free(txt);
    free(dir);
}

/* ---- token files for training: npy, u16, u32, llmc, shards (tokfile.h) ---- */

#define PY "/usr/bin/python3"
#define TOKREF G2E_SRCDIR "/tests/tokfile_ref.py"
#define CORPUS_SHA "a32e6decd62653603120d455d94ad9ca3021ac9f021a2977d913d98aa0c55603"

/* The files dir/stem_NNNNNN.ext in order, as argv entries from argv[at]; returns how many. */
static int shard_files(const char *dir, const char *stem, const char *ext, char **argv, int at, int max)
{
    int n = 0;
    for (; at + n < max; n++) {
        char name[256];
        snprintf(name, sizeof name, "%s_%06d%s", stem, n, ext);
        char *p = path_join(dir, name);
        struct stat st;
        if (stat(p, &st) != 0) {
            free(p);
            break;
        }
        argv[at + n] = p;
    }
    return n;
}

/* tokfile_ref.py on files[0..n): numpy reads them and compares with `expected`. */
static void numpy_agrees(const char *fmt, const char *shard, const char *expected, char **files, int n,
                         const char *what)
{
    char *argv[2100] = {PY, TOKREF, (char *)fmt, (char *)shard, (char *)expected};
    for (int i = 0; i < n && i < 2090; i++)
        argv[5 + i] = files[i];
    run_result r = run_argv(argv, NULL, 0, NULL, NULL);
    cr_expect(r.status == 0 && strncmp(r.out, "OK", 2) == 0, "%s: %s%s", what, r.out, r.err);
    run_free(&r);
}

static int count_hidden(const char *dir)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | grep -c '^\\.' || true", dir);
    char *sh[] = {"/bin/sh", "-c", cmd, NULL};
    run_result r = run_argv(sh, NULL, 0, NULL, NULL);
    int n = atoi(r.out);
    run_free(&r);
    return n;
}

/* Every conformance text as a document (--jsonl): numpy reads tiktoken's IDs back from each
 * format, whole and in shards packed as documents allow, with <|endoftext|> where each
 * format puts it by default (llmc before each document, the others after). */
Test(tokenize_cli, token_files_hold_tiktokens_ids_per_document, .timeout = 120)
{
    size_t n;
    char *in = read_file(G2E_SRCDIR "/tests/data/tokenizer_cases.jsonl", &n);
    const char *want = G2E_SRCDIR "/tests/data/tokenizer_expected.jsonl";
    char *dir = test_tmpdir("tokcli-files");
    static char *const fmts[] = {"npy", "u16", "u32", "llmc"};
    for (int k = 0; k < 4; k++) {
        char name[32];
        snprintf(name, sizeof name, "out.%s", fmts[k]);
        char *out = path_join(dir, name);
        /* .npy picks its format by the name alone */
        run_result r = k == 0 ? RUN_IN(in, n, "tokenize", "--jsonl", "--special", "text", "-o", out)
                              : RUN_IN(in, n, "tokenize", "--jsonl", "--special", "text", "--format", fmts[k], "-o", out);
        cr_assert_eq(r.status, 0, "%s: %s", fmts[k], r.err);
        run_free(&r);
        char layout[16];
        snprintf(layout, sizeof layout, "%s:%s", fmts[k], k == 3 ? "before" : "after");
        numpy_agrees(layout, "0", want, &out, 1, fmts[k]);
        /* in shards of 400 tokens, over threads */
        r = RUN_IN(in, n, "tokenize", "--jsonl", "--special", "text", "--format", fmts[k], "--threads", "3",
                   "--shard-tokens", "400", "-o", out);
        cr_assert_eq(r.status, 0, "%s: %s", fmts[k], r.err);
        char *files[2000];
        char ext[8];
        snprintf(ext, sizeof ext, ".%s", fmts[k]);
        int m = shard_files(dir, "out", ext, files, 0, 2000);
        cr_expect(m > 10, "%s: %d shards", fmts[k], m);
        char note[64];
        snprintf(note, sizeof note, "wrote %s/out_%06d%s", dir, m - 1, ext);
        cr_expect(strstr(r.err, note) != NULL, "the last shard is named: %s", r.err);
        run_free(&r);
        numpy_agrees(layout, "400", want, files, m, fmts[k]);
        for (int i = 0; i < m; i++)
            unlink(files[i]), free(files[i]);
        free(out);
    }
    cr_expect_eq(count_hidden(dir), 0, "no temporary left");
    free(dir);
    free(in);
}

/* llm.c's dataloader checks of a .bin (llmc/dataloader.h), reimplemented: 256 int32, magic
 * 20240520, version 1, a positive count, and a size of exactly header + count uint16. */
static void llmc_loader_accepts(const char *path)
{
    size_t n;
    char *f = read_file(path, &n);
    cr_assert(f && n >= 1024, "%s: %zu bytes", path, n);
    int32_t h[256];
    memcpy(h, f, sizeof h);
    cr_expect_eq(h[0], 20240520, "%s: magic", path);
    cr_expect_eq(h[1], 1, "%s: version", path);
    cr_expect(h[2] > 0, "%s: count", path);
    cr_expect_eq((int64_t)n, 256 * 4 + (int64_t)h[2] * 2, "%s: size", path);
    free(f);
}

/* The corpus as one document from a file: tiktoken's IDs (the published sha256) in every
 * format, on 1, 2 and 5 threads; in documents of a line each, shards that concatenate to
 * the unsharded file, pass llm.c's checks, and pack the documents as they should. */
LongTest(tokenize_cli, corpus_token_files_are_tiktokens_ids, .timeout = 300)
{
    char *gz[] = {"/bin/gzip", "-dc", G2E_SRCDIR "/bench/data/corpus.txt.gz", NULL};
    run_result c = run_argv(gz, NULL, 0, NULL, NULL);
    cr_assert_eq(c.status, 0);
    char *dir = test_tmpdir("tokcli-corpus-files");
    char *path = path_join(dir, "corpus.txt");
    write_file(path, c.out, c.out_len);
    static const char *const fmts[] = {"u16", "npy", "u32", "llmc"};
    static const char *const threads[] = {"1", "2", "5", "2"};
    for (int k = 0; k < 4; k++) {
        char name[32];
        snprintf(name, sizeof name, "c.%s", fmts[k]);
        char *out = path_join(dir, name);
        run_result r = run_g2e("tokenize", "--special", "text", "--format", fmts[k], "--threads", threads[k], "-f",
                               path, "-o", out, NULL);
        cr_assert_eq(r.status, 0, "%s: %s", fmts[k], r.err);
        run_free(&r);
        numpy_agrees(fmts[k], "0", "sha256:" CORPUS_SHA, &out, 1, fmts[k]);
        free(out);
    }
    /* through standard input too */
    char *out = path_join(dir, "stdin.u16");
    run_result r = RUN_IN(c.out, c.out_len, "tokenize", "--special", "text", "--format", "u16", "-f", "-", "-o", out);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    numpy_agrees("u16", "0", "sha256:" CORPUS_SHA, &out, 1, "stdin");
    free(out);
    /* a line a document: unsharded, then in shards of 5000 tokens */
    char *whole = path_join(dir, "lines.bin"), *sharded = path_join(dir, "train.bin");
    r = run_g2e("tokenize", "--special", "text", "--format", "llmc", "--doc-sep", "\\n", "-f", path, "-o", whole, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    r = run_g2e("tokenize", "--special", "text", "--format", "llmc", "--doc-sep", "\\n", "--shard-tokens", "5000",
                "--threads", "3", "-f", path, "-o", sharded, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    char *files[2000];
    int m = shard_files(dir, "train", ".bin", files, 0, 2000);
    cr_expect(m > 100, "%d shards", m);
    char expect[4200];
    snprintf(expect, sizeof expect, "llmc-docs:%s", whole);
    numpy_agrees("llmc", "5000", expect, files, m, "shards of the corpus's lines");
    /* the shards' tokens, one after another, are the unsharded file's */
    size_t wn;
    char *w = read_file(whole, &wn);
    size_t at = 1024;
    for (int i = 0; i < m; i++) {
        llmc_loader_accepts(files[i]);
        size_t sn;
        char *s = read_file(files[i], &sn);
        cr_assert(at + sn - 1024 <= wn && memcmp(w + at, s + 1024, sn - 1024) == 0, "shard %d differs", i);
        at += sn - 1024;
        free(s), free(files[i]);
    }
    cr_expect_eq(at, wn, "the shards hold every token");
    free(w), free(whole), free(sharded), free(path), free(dir);
    run_free(&c);
}

/* A bad byte after some shards: the complete shards stay, the one being written is gone (no
 * partial file, no temporary), and the message names the last complete shard. */
Test(tokenize_cli, a_failure_leaves_complete_shards_only)
{
    char *dir = test_tmpdir("tokcli-shard-fail");
    size_t n = 0;
    char *text = malloc(600000);
    for (int i = 0; i < 40000; i++) /* (the bad byte in the last of several 64 KB chunks) */
        n += (size_t)sprintf(text + n, "doc %d\n\n", i);
    text[n - 30] = '\xFF';
    char *out = path_join(dir, "t.u16");
    run_result r = RUN_IN(text, n, "tokenize", "--format", "u16", "--doc-sep", "\\n\\n", "--shard-tokens", "20000",
                          "-o", out, "-");
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "invalid UTF-8") != NULL, "%s", r.err);
    char *files[200];
    int m = shard_files(dir, "t", ".u16", files, 0, 200);
    cr_expect(m >= 3, "%d complete shards", m);
    char last[64];
    snprintf(last, sizeof last, "t_%06d.u16 (%d written)", m - 1, m);
    cr_expect(strstr(r.err, "the last complete shard is") && strstr(r.err, last), "%s", r.err);
    for (int i = 0; i < m; i++) {
        struct stat st;
        cr_expect(stat(files[i], &st) == 0 && st.st_size > 39000 && st.st_size <= 40000, "shard %d: full", i);
        free(files[i]);
    }
    cr_expect_eq(count_hidden(dir), 0, "no temporary left");
    run_free(&r);
    free(out), free(text), free(dir);
}

Test(tokenize_cli, token_file_options_are_checked)
{
    run_result r = run_g2e("tokenize", "--format", "npy", "Hello", NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "-o FILE") != NULL, "a header needs a file: %s", r.err);
    run_free(&r);
    r = run_g2e("tokenize", "--format", "u16", "--shard-tokens", "10", "Hello", NULL);
    cr_expect_eq(r.status, 2, "%s", r.err);
    run_free(&r);
    r = run_g2e("tokenize", "--shard-tokens", "10", "-o", "x.txt", "Hello", NULL);
    cr_expect_eq(r.status, 2, "shards of a table: %s", r.err);
    run_free(&r);
    r = run_g2e("tokenize", "--format", "u16", "--lossy", "Hello", NULL);
    cr_expect_eq(r.status, 2, "%s", r.err);
    run_free(&r);
    r = run_g2e("tokenize", "--doc-sep", "", "--format", "ids", "Hello", NULL);
    cr_expect_eq(r.status, 2, "%s", r.err);
    run_free(&r);
    /* u16 to standard output (a pipe): the raw IDs */
    r = run_g2e("tokenize", "--format", "u16", "Hello world", NULL);
    cr_expect(r.status == 0 && r.out_len == 4 && memcmp(r.out, "\x88\x3c\xe3\x03", 4) == 0, "%s", r.err);
    run_free(&r);
    /* --doc-sep with ids: a line per document, an empty one too; a separator at the end starts none */
    r = run_g2e("tokenize", "--format", "ids", "--doc-sep", "\\n\\n", "Hello\n\nworld\n\n\n\nend\n\n", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.out, "15496\n6894\n\n437\n");
    run_free(&r);
}

/* ---- no cap: a text over 1 GiB, from a file and through a pipe ---- */

#define BIG_REPEATS 82 /* the corpus (13,271,529 bytes) 82 times: 1.09 GB, over 1 GiB */
/* doc/corpora.md's bound for the stream on 2 threads; a sanitizer build adds ASan's quarantine of
 * freed memory (256 MB by default) to it, still far below the 1.09 GB input */
#define RSS_BOUND_KB ((64 + (sizeof G2E_TEST_SANFLAGS > 1 ? 256 : 0)) * 1024)

/* Peak RSS in KB of the last /usr/bin/time -f %M run, from its file. */
static long rss_of(const char *path)
{
    size_t n;
    char *s = read_file(path, &n);
    cr_assert(s != NULL);
    const char *last = s;
    for (const char *q = s; *q; q++) /* (the last line: the program's own stderr may come first) */
        if (*q == '\n' && q[1])
            last = q + 1;
    long kb = atol(last);
    free(s);
    return kb;
}

/* The file of u16 IDs at path is `reps` copies of one[0..n) bytes. */
static void is_repeated(const char *path, const char *one, size_t n, int reps)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f != NULL);
    char *buf = malloc(n);
    for (int k = 0; k < reps; k++)
        cr_assert(fread(buf, 1, n, f) == n && memcmp(buf, one, n) == 0, "copy %d of the corpus's IDs differs", k);
    cr_expect_eq(fread(buf, 1, 1, f), 0, "no more IDs");
    fclose(f);
    free(buf);
}

LongTest(tokenize_cli, a_text_over_1_gib_streams_exactly_in_bounded_memory, .timeout = 900)
{
    char *gz[] = {"/bin/gzip", "-dc", G2E_SRCDIR "/bench/data/corpus.txt.gz", NULL};
    run_result c = run_argv(gz, NULL, 0, NULL, NULL);
    cr_assert_eq(c.status, 0);
    char *dir = test_tmpdir("tokcli-big");
    char *one = path_join(dir, "one.u16"), *two = path_join(dir, "two.u16"), *pair = path_join(dir, "pair.txt");
    /* the corpus's IDs, and the corpus twice: the copies' IDs do not merge where they meet */
    char *cp = path_join(dir, "corpus.txt");
    write_file(cp, c.out, c.out_len);
    run_result r = run_g2e("tokenize", "--special", "text", "--format", "u16", "-f", cp, "-o", one, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    numpy_agrees("u16", "0", "sha256:" CORPUS_SHA, &one, 1, "the corpus");
    char *c2 = malloc(2 * c.out_len);
    memcpy(c2, c.out, c.out_len), memcpy(c2 + c.out_len, c.out, c.out_len);
    write_file(pair, c2, 2 * c.out_len);
    free(c2);
    r = run_g2e("tokenize", "--special", "text", "--format", "u16", "-f", pair, "-o", two, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    size_t on;
    char *ids = read_file(one, &on);
    is_repeated(two, ids, on, 2);
    /* the 1.09 GB text and its IDs in memory files: the test needs memory, not free disk */
    char *big = mem_file(c.out, c.out_len, BIG_REPEATS);
    run_free(&c);
    char *out = mem_file("", 0, 0), *rss = path_join(dir, "rss");
    /* from the file, and through a pipe (standard input), on every CPU */
    for (int via = 0; via < 2; via++) {
        char cmd[8192];
        /* (the IDs through a pipe into the memory file: the program writes no file it cannot name) */
        if (via)
            snprintf(cmd, sizeof cmd,
                     "cat '%s' | /usr/bin/time -f %%M -o '%s' '%s' tokenize --special text --format u16 -o /dev/stdout - "
                     "| cat >'%s'",
                     big, rss, BIN, out);
        else
            snprintf(cmd, sizeof cmd,
                     "/usr/bin/time -f %%M -o '%s' '%s' tokenize --special text --format u16 -f '%s' -o /dev/stdout "
                     "| cat >'%s'",
                     rss, BIN, big, out);
        char *sh[] = {"/bin/bash", "-o", "pipefail", "-c", cmd, NULL};
        r = run_argv(sh, NULL, 0, NULL, NULL);
        cr_assert_eq(r.status, 0, "%s: %s", via ? "pipe" : "file", r.err);
        run_free(&r);
        long kb = rss_of(rss);
        cr_expect(kb > 0 && kb < RSS_BOUND_KB, "%s: peak RSS %ld KB", via ? "pipe" : "file", kb);
        fprintf(stderr, "tokenize 1.09 GB from a %s: peak RSS %ld KB\n", via ? "pipe" : "file", kb);
        is_repeated(out, ids, on, BIG_REPEATS);
    }
    free(ids), free(big), free(out), free(rss), free(one), free(two), free(pair), free(cp), free(dir);
}

/* ---- pipelines keep every row: output line N answers input line N ---- */

/* Line N of s (1-based) into a new string without its newline, or NULL. */
static char *line_of(const char *s, size_t n, size_t want)
{
    size_t k = 1;
    for (const char *p = s, *e = s + n, *nl; p < e; p = nl + 1, k++) {
        nl = memchr(p, '\n', (size_t)(e - p));
        nl = nl ? nl : e;
        if (k == want)
            return strndup(p, (size_t)(nl - p));
    }
    return NULL;
}

static size_t lines_in(const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += s[i] == '\n';
    return k + (n && s[n - 1] != '\n');
}

/* Good, blank, malformed, invalid and refused lines, over threads: every input line has its
 * output line, in place, carrying its "id" (kept as written) or its error and line number;
 * a good line's IDs are what the line alone gives. */
Test(tokenize_cli, jsonl_rows_answer_their_lines_with_kept_members, .timeout = 120)
{
    bytebuf in = {0};
    static const char *const kinds[] = {"{\"id\": %d, \"text\": \"row %d says hello\"}", "",
                                        "{\"id\": %d, \"txt\": \"%d\"}", "{\"text\": \"bad \xFF %d\", \"id\": %d}",
                                        "{\"id\": %d, \"text\": \"<|endoftext|> %d\"}", "   ",
                                        "{\"id\": \"s%d\", \"meta\": {\"n\": [%d]}, \"text\": \"x\"}", "not json %d %d"};
    char line[256];
    for (int i = 1; i <= 3000; i++) {
        int k = i % 8;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral" /* (kinds[] are this test's own) */
        snprintf(line, sizeof line, kinds[k], i, i);
#pragma GCC diagnostic pop
        bb_str(&in, line);
        bb_str(&in, "\n");
    }
    char *dir = test_tmpdir("tokcli-rows");
    char *path = path_join(dir, "rows.jsonl");
    write_file(path, in.p, in.n);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "exec '%s' tokenize --jsonl --keep-going --special error --keep id --keep meta "
             "--threads 3 < '%s'", BIN, path);
    char *sh[] = {"/bin/sh", "-c", cmd, NULL};
    run_result r = run_argv(sh, NULL, 0, NULL, NULL);
    cr_expect_eq(r.status, 1, "bad lines: status 1");
    cr_assert_eq(lines_in(r.out, r.out_len), 3000, "one output line per input line");
    for (int i = 1; i <= 3000; i++) {
        char *o = line_of(r.out, r.out_len, (size_t)i), want[256];
        int k = i % 8;
        if (k == 0) {
            snprintf(line, sizeof line, "row %d says hello", i);
            run_result one = run_g2e("tokenize", "--format", "ids", line, NULL);
            one.out[one.out_len - 1] = '\0';
            for (char *c = one.out; *c; c++)
                *c = *c == ' ' ? ',' : *c;
            snprintf(want, sizeof want, "{\"id\":%d,\"meta\":null,\"ids\":[%s]}", i, one.out);
            cr_expect_str_eq(o, want, "line %d", i);
            run_free(&one);
        } else if (k == 6) {
            snprintf(want, sizeof want, "{\"id\":\"s%d\",\"meta\":{\"n\": [%d]},\"ids\":[87]}", i, i);
            cr_expect_str_eq(o, want, "line %d", i);
        } else {
            snprintf(want, sizeof want, ",\"line\":%d}", i);
            cr_expect(strstr(o, "\"error\":") && strstr(o, want), "line %d: %s", i, o);
            cr_expect(k == 1 || k == 5 || k == 7 ? strncmp(o, "{\"id\":null,", 11) == 0 : strstr(o, "\"id\":null") == NULL,
                      "line %d: its id when it has one: %s", i, o);
        }
        free(o);
        if (i > 64 && k == 0)
            i += 40; /* (the first rows all, then a sample: one run of the program each) */
    }
    run_free(&r);
    bb_free(&in);
    free(path), free(dir);
}

/* --lines: plain text, a line a document, an empty line an empty one; tiktoken's IDs for
 * each conformance text without a newline, in place. */
Test(tokenize_cli, lines_answer_each_plain_line, .timeout = 60)
{
    size_t n, en;
    char *cases = read_file(G2E_SRCDIR "/tests/data/tokenizer_cases.jsonl", &n);
    char *exp = read_file(G2E_SRCDIR "/tests/data/tokenizer_expected.jsonl", &en);
    bytebuf in = {0}, want = {0}, text = {0}, key = {0};
    size_t k = 0, used = 0;
    for (const char *s = cases, *e = cases + n, *nl; s < e; s = nl + 1) {
        nl = memchr(s, '\n', (size_t)(e - s));
        nl = nl ? nl : e;
        k++;
        jsonl_error je;
        text.n = 0;
        cr_assert_eq(jsonl_text(s, (size_t)(nl - s), 0, &text, &key, &je), 0);
        if (memchr(text.p ? text.p : "", '\n', text.n) || memchr(text.p ? text.p : "", '\r', text.n))
            continue;
        bb_put(&in, text.p, text.n);
        bb_str(&in, "\n");
        char *w = line_of(exp, en, k);
        bb_str(&want, w);
        bb_str(&want, "\n");
        free(w);
        if (used++ % 50 == 0) { /* an empty line now and then */
            bb_str(&in, "\n");
            bb_str(&want, "{\"ids\":[]}\n");
        }
    }
    cr_assert(used > 500, "%zu texts", used);
    run_result r = RUN_IN(in.p, in.n, "tokenize", "--lines", "--special", "text", "--threads", "2");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(r.out_len == want.n && memcmp(r.out, want.p, want.n) == 0, "--lines differs from tiktoken's, line by line");
    run_free(&r);
    /* the same lines as llm.c documents */
    char *dir = test_tmpdir("tokcli-lines");
    char *out = path_join(dir, "l.bin"), *wpath = path_join(dir, "want.jsonl");
    write_file(wpath, want.p, want.n);
    r = RUN_IN(in.p, in.n, "tokenize", "--lines", "--special", "text", "--format", "llmc", "-o", out);
    cr_expect_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    numpy_agrees("llmc", "0", wpath, &out, 1, "--lines as llm.c documents");
    bb_free(&in), bb_free(&want), bb_free(&text), bb_free(&key);
    free(cases), free(exp), free(out), free(wpath), free(dir);
}

/* ---- threads where the process may run ---- */

static int tasks_of(pid_t pid)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "ls /proc/%d/task | wc -l", (int)pid);
    char *sh[] = {"/bin/sh", "-c", cmd, NULL};
    run_result r = run_argv(sh, NULL, 0, NULL, NULL);
    int n = atoi(r.out);
    run_free(&r);
    return n;
}

/* The program's threads while it counts a pipe that stays open: its own and, by default,
 * one per CPU it may use. 300 KB are written first, more than its first read, so its
 * threads have started by the time the write returns. */
static int threads_while_counting(int pinned)
{
    int in[2];
    cr_assert_eq(pipe(in), 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(in[0], 0);
        close(in[1]);
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        if (pinned)
            execl("/usr/bin/taskset", "taskset", "-c", "0", BIN, "count", "-", (char *)NULL);
        else
            execl(BIN, BIN, "count", "-", (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    size_t n = 300 << 10;
    char *text = malloc(n);
    for (size_t i = 0; i < n; i++)
        text[i] = i % 6 == 5 ? ' ' : 'a' + (char)(i % 7);
    for (size_t at = 0; at < n;) {
        ssize_t k = write(in[1], text + at, n - at);
        cr_assert(k > 0);
        at += (size_t)k;
    }
    int most = 0;
    for (int k = 0; k < 20; k++) { /* 1 s */
        int t = tasks_of(pid);
        most = t > most ? t : most;
        usleep(50000);
    }
    close(in[1]);
    int st;
    waitpid(pid, &st, 0);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    free(text);
    return most;
}

Test(tokenize_cli, no_worker_thread_under_taskset_c_0, .timeout = 60)
{
    cr_expect_eq(threads_while_counting(1), 1, "taskset -c 0: the calling thread alone");
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus >= 2 && cpus <= 64) /* (the measurement itself sees the threads where there are CPUs) */
        cr_expect_geq(threads_while_counting(0), 2, "without taskset: the workers too");
}

/* ---- progress ---- */

/* The progress line (the download's meter) on a terminal (script(1) gives the program a
 * pty), none with --quiet, none when stderr is a pipe. */
Test(tokenize_cli, progress_on_a_terminal_only, .timeout = 60)
{
    char *dir = test_tmpdir("tokcli-progress");
    char *in = path_join(dir, "in.txt"), *out = path_join(dir, "o.u16");
    size_t n = 3 << 20;
    char *text = malloc(n);
    for (size_t i = 0; i < n; i++)
        text[i] = i % 6 == 5 ? ' ' : 'a' + (char)(i % 7);
    write_file(in, text, n);
    free(text);
    for (int k = 0; k < 3; k++) {
        char cmd[8192];
        const char *q = k == 1 ? " --quiet" : "";
        if (k < 2) /* stdout and stderr on a pty */
            snprintf(cmd, sizeof cmd, "script -qec \"'%s' tokenize --format u16 --progress-after 0%s -f '%s' -o '%s'\" /dev/null",
                     BIN, q, in, out);
        else /* stderr a pipe */
            snprintf(cmd, sizeof cmd, "'%s' tokenize --format u16 --progress-after 0 -f '%s' -o '%s' 2>&1", BIN, in, out);
        char *sh[] = {"/bin/sh", "-c", cmd, NULL};
        run_result r = run_argv(sh, NULL, 0, NULL, NULL);
        cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
        int shown = strstr(r.out, "\rtokenize [") != NULL;
        if (k == 0) {
            /* (the rate in any unit: a run this fast may show 0 B/s) */
            cr_expect(shown && strstr(r.out, "B/s  ETA") && strstr(r.out, " tokens"),
                      "a terminal: %s", r.out);
            cr_expect(strstr(r.out, "100.0%  3.1 MB / 3.1 MB") != NULL, "completed at the end: %s", r.out);
        } else {
            cr_expect(!shown && !strstr(r.out, "tokens"), "%s: %s", k == 1 ? "--quiet" : "a pipe", r.out);
        }
        run_free(&r);
    }
    free(in), free(out), free(dir);
}

/* ---- the recipes for corpora (doc/corpora.md) on small data, with checks of what they produce ---- */

/* GNU parallel over several files, a .bin per input (Debian's parallel): each the file
 * tokenized alone. */
Test(tokenize_cli, recipe_gnu_parallel_over_files, .timeout = 120)
{
    char *dir = test_tmpdir("tokcli-parallel");
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && mkdir -p data shards && for i in 1 2 3 4 5; do "
             "  for j in $(seq 1 200); do printf 'Document %%s of file %%s.\\n\\n' $j $i; done > data/part$i.txt; done && "
             "parallel --will-cite '%s' tokenize --format llmc --doc-sep '\\\\n\\\\n' -f {} -o shards/{/.}.bin ::: data/*.txt",
             dir, BIN);
    char *sh[] = {"/bin/sh", "-c", cmd, NULL};
    run_result r = run_argv(sh, NULL, 0, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    run_free(&r);
    for (int i = 1; i <= 5; i++) {
        char name[64];
        snprintf(name, sizeof name, "data/part%d.txt", i);
        char *in = path_join(dir, name), *one = path_join(dir, "one.bin");
        snprintf(name, sizeof name, "shards/part%d.bin", i);
        char *got = path_join(dir, name);
        r = run_g2e("tokenize", "--format", "llmc", "--doc-sep", "\\n\\n", "-f", in, "-o", one, NULL);
        cr_assert_eq(r.status, 0, "%s", r.err);
        run_free(&r);
        size_t a, b;
        char *x = read_file(one, &a), *y = read_file(got, &b);
        cr_expect(x && y && a == b && memcmp(x, y, a) == 0, "%s differs from its file tokenized alone", name);
        llmc_loader_accepts(got);
        size_t docs = 0;
        for (size_t k = 1024; y && k + 1 < b; k += 2)
            docs += (unsigned char)y[k] == 0x50 && (unsigned char)y[k + 1] == 0xC4; /* 50256 */
        cr_expect_eq(docs, 200, "200 documents, each after <|endoftext|>");
        free(x), free(y), free(in), free(one), free(got);
    }
    free(dir);
}

/* --jsonl under Dask (Debian's python3-dask): partitions piped through the program, every
 * row answered in place with its id, bad and blank rows included. */
Test(tokenize_cli, recipe_dask_pipe_keeps_rows, .timeout = 180)
{
    char *dir = test_tmpdir("tokcli-dask");
    char *path = path_join(dir, "rows.jsonl");
    bytebuf in = {0};
    for (int i = 1; i <= 400; i++) {
        char line[128];
        if (i % 37 == 0)
            snprintf(line, sizeof line, "\n");
        else if (i % 53 == 0)
            snprintf(line, sizeof line, "{\"id\": %d, \"txt\": \"oops\"}\n", i);
        else
            snprintf(line, sizeof line, "{\"id\": %d, \"text\": \"row %d of the table\"}\n", i, i);
        bb_str(&in, line);
    }
    write_file(path, in.p, in.n);
    char *argv[] = {PY, G2E_SRCDIR "/tests/recipes.py", "dask", BIN, path, NULL};
    run_result r = run_argv(argv, NULL, 0, NULL, NULL);
    cr_expect(r.status == 0 && strncmp(r.out, "OK", 2) == 0, "%s%s", r.out, r.err);
    run_free(&r);
    bb_free(&in);
    free(path), free(dir);
}

/* nanoGPT's get_batch over the u16 file: windows and their targets are the file's IDs. */
Test(tokenize_cli, recipe_nanogpt_memmap, .timeout = 60)
{
    char *dir = test_tmpdir("tokcli-nanogpt");
    char *out = path_join(dir, "train.u16");
    run_result r = run_g2e("tokenize", "--format", "u16", "-f", G2E_SRCDIR "/README.md", "-o", out, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    char *argv[] = {PY, G2E_SRCDIR "/tests/recipes.py", "nanogpt", out, "64", NULL};
    r = run_argv(argv, NULL, 0, NULL, NULL);
    cr_expect(r.status == 0 && strncmp(r.out, "OK", 2) == 0, "%s%s", r.out, r.err);
    run_free(&r);
    free(out), free(dir);
}
