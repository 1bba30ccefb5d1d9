/* SPDX-License-Identifier: MIT */
/* cmd_decode.c — `gpt2-embed decode`: GPT-2 token IDs -> the exact bytes they stand for.
 *
 * IDs come from the arguments or, if there are none (or '-'), from standard input, in the
 * one ID grammar (opt_parse_ids: spaces, commas, newlines, one pair of brackets), so
 * `tokenize --format ids` output and JSON arrays both work. The bytes are written as they
 * are, with no newline added, so that `decode` exactly inverts `tokenize`. Nothing is
 * written if any ID is bad. On a terminal (unless --raw) each line is shown escaped as every
 * outside text shown to a person (text.h: controls, C1, bidi controls, separators), so
 * that decoded IDs cannot drive the terminal (set its title, clear it). Bytes that are not
 * whole UTF-8 text (IDs that end inside a character: tokenize shows such a token as
 * 犬 (1/3)) are written as they are, with a note on standard error saying where.
 * Deliberately left out: --lossy output conversion (a token may be part of a UTF-8
 * character; the bytes are the truth).
 */
#include "cli.h"
#include "load.h"
#include "opt.h"
#include "text.h"

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

/* The length of the UTF-8 sequence lead byte c starts (2..4), or 0 when c starts none. */
static size_t seq_len(unsigned char c)
{
    return c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
}

/* The index of the ID whose bytes hold byte `at` of the decoded text. */
static size_t id_at(const gpt2embed_tokenizer *t, const uint32_t *ids, size_t n, size_t at)
{
    size_t end = 0;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *b;
        size_t k = 0;
        if (gpt2embed_token_bytes(t, ids[i], &b, &k, NULL) == GPT2EMBED_OK && (end += k) > at)
            return i;
    }
    return n ? n - 1 : 0;
}

/* A note when the bytes are not whole UTF-8 text, which a reader shows as U+FFFD: the IDs
 * end inside a character (the first bytes of it, and the IDs they come from), or a byte
 * that no character can hold where it stands. The bytes are written as they are either way. */
static void note_unfinished(const gpt2embed_tokenizer *t, const uint32_t *ids, size_t n, const char *text, size_t len)
{
    size_t bad = text_validate(text, len);
    if (bad == len)
        return;
    const unsigned char *u = (const unsigned char *)text;
    size_t need = seq_len(u[bad]), have = len - bad, i = id_at(t, ids, n, bad);
    int prefix = need && have < need;
    for (size_t k = 1; prefix && k < have; k++)
        prefix = (u[bad + k] & 0xC0) == 0x80;
    char hex[16] = "";   /* "E7 8A" */
    for (size_t k = 0, o = 0; prefix && k < have; k++)
        o += (size_t)snprintf(hex + o, sizeof hex - o, "%s%02X", k ? " " : "", u[bad + k]);
    if (prefix)
        cli_note("the IDs end inside a character: the bytes %s (from ID %u at index %zu on) are the "
                 "first %zu of a %zu-byte UTF-8 character, which a reader shows as U+FFFD; the "
                 "token that completes it is missing", hex, ids[i], i, have, need);
    else
        cli_note("the bytes are not UTF-8 text from byte %zu on (byte %02X, from ID %u at index %zu), "
                 "which a reader shows as U+FFFD", bad, u[bad], ids[i], i);
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
    gpt2embed_tokenizer *t = NULL;
    gpt2embed_error err;
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
    if (gpt2embed_decode(t, ids, n, &text, &len, &err)) {
        cli_error("%s", err.message);
        goto done;
    }
    if ((!o.raw && isatty(STDOUT_FILENO) ? put_escaped(text, len) : len && fwrite(text, 1, len, stdout) != len) ||
        fflush(stdout)) {
        cli_error("cannot write the output: %s", strerror(errno));
        goto done;
    }
    note_unfinished(t, ids, n, text, len);
    r = EXIT_OK;
done:
    free(ids);
    gpt2embed_free(text);
    gpt2embed_tokenizer_close(t);
    return r;
}
