/* SPDX-License-Identifier: MIT */
/* cmd_decode.c — `gpt2-embed decode`: GPT-2 token IDs -> the exact bytes they stand for.
 *
 * IDs come from the arguments or, if there are none (or '-'), from standard input, in the
 * one ID grammar (opt_parse_ids: spaces, commas, newlines, one pair of brackets), so
 * `tokenize --format ids` output and JSON arrays both work. The bytes are written as they
 * are, with no newline added, so that `decode` exactly inverts `tokenize`. Nothing is
 * written if any ID is bad. On a terminal (unless --raw) each line is shown escaped as every
 * outside text shown to a person (text.h: controls, C1, bidi controls, separators), so
 * that decoded IDs cannot drive the terminal (set its title, clear it).
 * Deliberately left out: --lossy output conversion (a token may be part of a UTF-8
 * character; the bytes are the truth).
 */
#include "cli.h"
#include "load.h"
#include "opt.h"
#include "text.h"
#include "tokenizer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct decode_opts {
    load_opts lo;
    int raw;
} decode_opts;

static const opt_def OPTS[] = {
    {.name = "--tokenizer", .kind = OPT_FILE, .off = offsetof(decode_opts, lo.tokenizer),
     .metavar = "DIR", .help = N_("vocab.json + merges.txt (or encoder.json + vocab.bpe) in DIR")},
    {.name = "--raw", .kind = OPT_FLAG, .off = offsetof(decode_opts, raw),
     .help = N_("the exact bytes on a terminal too (controls included; a pipe or file always gets them)")},
    OPT_END,
};

static const opt_cmd CMD = {
    .name = "decode",
    .synopsis = N_("[OPTIONS] [ID... | -]"),
    .purpose = N_("The text of GPT-2 token IDs: their bytes, exactly, with no newline added.\n"
                  "Without ID arguments (or with '-'), IDs are read from standard input; IDs are\n"
                  "separated by white space or commas, optionally inside one pair of brackets."),
    .examples = N_("  gpt2-embed decode 15496 995\n"
                   "  gpt2-embed decode \"[464, 3797]\"\n"
                   "  gpt2-embed tokenize --format ids \"Hello\" | gpt2-embed decode\n"),
    .opts = OPTS,
    .min_pos = 0,
    .max_pos = -1,
    .pos_name = "ID",
};
const opt_cmd *const cmd_decode_spec = &CMD;

/* The IDs, from the arguments (joined by spaces) or, with none or "-", from standard input.
 * Returns 0, or the exit status after one message. */
static int read_ids(const opt_parsed *p, uint32_t **ids, size_t *n)
{
    int from_stdin = p->npos == 0;
    size_t len = 1;
    for (int k = 0; k < p->npos; k++) {
        from_stdin |= strcmp(p->pos[k], "-") == 0;
        len += strlen(p->pos[k]) + 1;
    }
    if (from_stdin && p->npos > 1)
        return opt_usage_error(&CMD, "give IDs as arguments or on standard input ('-'), not both"), EXIT_USAGE;
    char *s = from_stdin ? cli_read_stream(stdin, &len) : malloc(len), err[200];
    if (!s && from_stdin)
        return cli_error("cannot read standard input: %s", strerror(errno)), EXIT_ERR;
    if (!s)
        return cli_error("out of memory"), EXIT_ERR;
    for (int k = 0, at = 0; !from_stdin && k < p->npos; k++)
        at += sprintf(s + at, "%s%s", k ? " " : "", p->pos[k]);
    int r = opt_parse_ids(s, from_stdin ? len : strlen(s), UINT32_MAX, ids, n, err, sizeof err);
    free(s);
    if (r == 0)
        return 0;
    if (from_stdin)
        return cli_error("standard input: %s", err), EXIT_ERR;
    return opt_usage_error(&CMD, "%s", err), EXIT_USAGE;
}

/* The text for a terminal: line by line, each line escaped (newlines kept); 0 or -1. */
static int put_escaped(const char *text, size_t len)
{
    for (size_t a = 0; a < len;) {
        const char *nl = memchr(text + a, '\n', len - a);
        size_t b = nl ? (size_t)(nl - text) : len;
        char *e = text_escape(text + a, b - a, TEXT_ESC_BIDI);
        if (!e || fputs(e, stdout) == EOF || (nl && putchar('\n') == EOF)) {
            free(e);
            return -1;
        }
        free(e);
        a = nl ? b + 1 : len;
    }
    return 0;
}

int cmd_decode(int argc, char **argv)
{
    decode_opts o = {0};
    opt_parsed p;
    int r = opt_parse(&CMD, argc, argv, &o, &p);
    uint32_t *ids = NULL;
    size_t n = 0, len;
    char *text = NULL;
    tok_tokenizer *t = NULL;
    g2e_err err;
    g2e_clear(&err);
    if (r) {
        opt_free(&p);
        return opt_exit(r);
    }
    r = read_ids(&p, &ids, &n);
    opt_free(&p);
    if (r)
        return r;
    r = EXIT_ERR;
    if (load_tokenizer(o.lo.tokenizer, &t))
        goto done;
    if (tok_decode(t, ids, n, &text, &len, &err)) {
        cli_error("%s", err.msg);
        goto done;
    }
    if ((!o.raw && isatty(STDOUT_FILENO) ? put_escaped(text, len) : len && fwrite(text, 1, len, stdout) != len) ||
        fflush(stdout)) {
        cli_error("cannot write the output: %s", strerror(errno));
        goto done;
    }
    r = EXIT_OK;
done:
    free(ids);
    free(text);
    tok_close(t);
    return r;
}
