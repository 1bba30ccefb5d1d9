/* cmd_decode.c — `gpt2-embed decode`: GPT-2 token IDs -> the exact bytes they stand for.
 *
 * IDs come from the arguments or, if there are none (or '-'), from standard input,
 * separated by spaces, newlines, commas or brackets (so `tokenize --format ids` output and
 * JSON arrays both work). The bytes are written as they are, with no newline added, so
 * that `decode` exactly inverts `tokenize`. Nothing is written if any ID is bad.
 * Deliberately left out: --lossy output conversion (a token may be part of a UTF-8
 * character; the bytes are the truth).
 */
#include "cli.h"
#include "tokenizer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void help(FILE *f)
{
    fprintf(f,
            "usage: gpt2-embed decode [OPTIONS] [ID... | -]\n"
            "The text of GPT-2 token IDs: their bytes, exactly, with no newline added.\n"
            "Without ID arguments (or with '-'), IDs are read from standard input, separated by\n"
            "white space, commas or brackets.\n\n"
            "  --tokenizer DIR   vocab.json + merges.txt (or encoder.json + vocab.bpe) in DIR\n"
            "  -h, --help        this help\n");
}

typedef struct idvec {
    uint32_t *v;
    size_t n, cap;
} idvec;

static int push(idvec *a, uint32_t id)
{
    if (a->n == a->cap) {
        size_t c = a->cap ? a->cap * 2 : 1024;
        uint32_t *q = realloc(a->v, c * sizeof *q);
        if (!q)
            return -1;
        a->v = q;
        a->cap = c;
    }
    a->v[a->n++] = id;
    return 0;
}

/* Parses one ID token s[0..n): decimal digits only, below 2^32 (the vocabulary check
 * comes later, with the tokenizer's size). */
static int parse_id(const char *s, size_t n, uint32_t *out)
{
    if (n == 0 || n > 10)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > UINT32_MAX)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

static int is_sep(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == '[' || c == ']';
}

int cmd_decode(int argc, char **argv)
{
    const char *dir = NULL;
    int from_stdin = 0, rc = EXIT_ERR;
    idvec ids = {0};
    char *in = NULL, *text = NULL;
    tok_tokenizer *t = NULL;
    g2e_err err;
    g2e_clear(&err);

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            help(stdout);
            free(ids.v);
            return EXIT_OK;
        } else if (strcmp(a, "--tokenizer") == 0) {
            if (i + 1 >= argc) {
                cli_error("--tokenizer needs a directory");
                free(ids.v);
                return EXIT_USAGE;
            }
            dir = argv[++i];
        } else if (strcmp(a, "-") == 0) {
            from_stdin = 1;
        } else if (a[0] == '-' && a[1] && !(a[1] >= '0' && a[1] <= '9')) {
            cli_error("unknown option '%s' (see 'gpt2-embed decode --help')", a);
            free(ids.v);
            return EXIT_USAGE;
        } else {
            /* an argument may itself hold several IDs ("15496 995" or "15496,995") */
            size_t n = strlen(a), p = 0;
            while (p < n) {
                while (p < n && is_sep(a[p]))
                    p++;
                size_t e = p;
                while (e < n && !is_sep(a[e]))
                    e++;
                if (e > p) {
                    uint32_t id;
                    if (parse_id(a + p, e - p, &id)) {
                        cli_error("'%.*s' is not a token ID (a decimal number)", (int)(e - p), a + p);
                        free(ids.v);
                        return EXIT_USAGE;
                    }
                    if (push(&ids, id)) {
                        cli_error("out of memory");
                        goto done;
                    }
                }
                p = e;
            }
        }
    }
    if (from_stdin && ids.n) {
        cli_error("give IDs as arguments or on standard input ('-'), not both");
        free(ids.v);
        return EXIT_USAGE;
    }
    if (!ids.n) {
        size_t cap = 1 << 16, n = 0;
        in = malloc(cap);
        for (;;) {
            if (!in) {
                cli_error("out of memory reading standard input");
                goto done;
            }
            if (n == cap) {
                char *q = realloc(in, cap * 2);
                if (!q) {
                    free(in);
                    in = NULL;
                    continue;
                }
                in = q;
                cap *= 2;
            }
            size_t r = fread(in + n, 1, cap - n, stdin);
            n += r;
            if (r == 0)
                break;
        }
        if (ferror(stdin)) {
            cli_error("cannot read standard input: %s", strerror(errno));
            goto done;
        }
        for (size_t p = 0, line = 1; p < n;) {
            if (in[p] == '\n')
                line++;
            if (is_sep(in[p])) {
                p++;
                continue;
            }
            size_t e = p;
            while (e < n && !is_sep(in[e]))
                e++;
            uint32_t id;
            if (parse_id(in + p, e - p, &id)) {
                cli_error("standard input line %zu: '%.*s' is not a token ID (a decimal number)", line,
                          (int)(e - p > 40 ? 40 : e - p), in + p);
                goto done;
            }
            if (push(&ids, id)) {
                cli_error("out of memory");
                goto done;
            }
            p = e;
        }
    }
    if (tok_locate(dir, &t, &err)) {
        cli_error("%s", err.msg);
        goto done;
    }
    size_t len;
    if (tok_decode(t, ids.v, ids.n, &text, &len, &err)) {
        cli_error("%s", err.msg);
        goto done;
    }
    if ((len && fwrite(text, 1, len, stdout) != len) || fflush(stdout)) {
        cli_error("cannot write the output: %s", strerror(errno));
        goto done;
    }
    rc = EXIT_OK;
done:
    free(ids.v);
    free(in);
    free(text);
    tok_close(t);
    return rc;
}
