/* SPDX-License-Identifier: MIT */
/* test_tokenize_cli.c — `gpt2-embed tokenize` and `decode` through the built program:
 * formats, batch mode, special modes, UTF-8 errors, exit statuses, no partial output,
 * tokenizer lookup. Expected IDs are tiktoken's (see test_tokenizer.c). */
#include "json.h"
#include "support.h"

#include <criterion/criterion.h>
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

Test(tokenize_cli, jsonl_batch)
{
    const char in[] = "{\"text\": \"Hello world\"}\n{\"text\": \"\"}\n\n{\"id\": 3, \"text\": \"a\\u00e9\\ud83d\\ude00\"}\n";
    run_result r = RUN_IN(in, sizeof in - 1, "tokenize", "--jsonl");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.out, "{\"ids\":[15496,995]}\n{\"ids\":[]}\n{\"ids\":[64,2634,47249,222]}\n");
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
    const char *lines[] = {"{\"text\": \"Hello world\"}\n", "{\"text\": \"a\"}\n", "\n{\"text\": \"b\"}\n"};
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
