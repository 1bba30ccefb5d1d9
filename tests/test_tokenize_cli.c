/* test_tokenize_cli.c — `gpt2-embed tokenize` and `decode` through the built program:
 * formats, batch mode, special modes, UTF-8 errors, exit statuses, no partial output,
 * tokenizer lookup. Expected IDs are tiktoken's (see test_tokenizer.c). */
#include "support.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
    /* a token that is half of a UTF-8 character is shown as bytes */
    r = run_g2e("tokenize", "--special", "text", "\xE6\x97\xA5", NULL);
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "\\x") != NULL, "%s", r.out);
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
