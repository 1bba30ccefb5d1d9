/* cmd_count.c — `gpt2-embed count`: how much of a text fits GPT-2's context.
 *
 * For each input (TEXT arguments, files, standard input): bytes, characters (Unicode code
 * points), tokens (tiktoken-exact, <|endoftext|> as the special token), characters per
 * token, whether the tokens fit a context of N positions (GPT-2's 1024 by default), how
 * many non-overlapping N-token windows it takes, and, when it does not fit, where the N-th
 * token ends: byte offset, line and column (1-based, in characters) of the first
 * character not wholly inside the context, and a snippet with '|' at the cut. Byte-level
 * BPE can end a token inside a multi-byte character (common in Japanese); the report says
 * so rather than pretending the cut is clean.
 *
 * Every input is read and tokenized before anything is printed, so an error (unreadable
 * file, invalid UTF-8 without --lossy) leaves stdout empty: one line on stderr, status 1.
 * No weights are needed. Deliberately left out: overlapping windows (see `embed --window
 * --stride`), other tokenizers, counting without holding an input in memory.
 */
#include "cli.h"
#include "i18n.h"
#include "embed.h"
#include "load.h"
#include "out.h"
#include "text.h"
#include "textpos.h"
#include "tokenizer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define COUNT_DEFAULT_CTX 1024
#define COUNT_MAX_CTX ((uint64_t)1 << 40)
#define NAME_MAX_W 28   /* display columns of an input's name in the table */

static void help(FILE *f)
{
    fprintf(f,
            "usage: gpt2-embed count [OPTIONS] [TEXT... | -f FILE... | -]\n"
            "\n"
            "How much of each input fits GPT-2's context: bytes, characters, tokens, characters\n"
            "per token, whether it fits N positions, how many non-overlapping N-token windows it\n"
            "needs, and where the N-th token ends (line, column, snippet) when it does not fit.\n"
            "No weights are needed.\n"
            "\n"
            "inputs (any mix, counted separately, reported in order):\n"
            "  TEXT                     each TEXT argument is one input\n"
            "  -f FILE...               files: -f takes the next argument and the arguments\n"
            "                           right after it that do not start with '-'\n"
            "  -                        standard input (once)\n"
            "  --                       every later argument is a TEXT\n"
            "options:\n"
            "  --ctx N                  context size (default 1024, GPT-2's n_ctx)\n"
            "  --format table|json      table (default) or one JSON object for programs\n"
            "  --lossy                  replace invalid UTF-8 with U+FFFD instead of failing\n"
            "                           (offsets still refer to the input's bytes; each invalid\n"
            "                           byte counts as one character)\n"
            "  --tokenizer DIR          vocab.json + merges.txt (or encoder.json + vocab.bpe) in\n"
            "                           DIR; else $GPT2_EMBED_TOKENIZER, tokenizer/ beside the\n"
            "                           program, the installed data, or the copy compiled in\n"
            "  -h, --help               this help\n"
            "\n"
            "The cut is reported as the first character not wholly inside the first N tokens:\n"
            "its line and column, and the characters wholly before it. A token can end inside a\n"
            "character (a kanji split into byte pieces); then that character is the one named.\n");
}

typedef enum { IN_TEXT, IN_FILE, IN_STDIN } in_kind;

typedef struct input {
    in_kind kind;
    const char *arg;     /* the TEXT or the path (argv's) */
} input;

typedef struct result {
    size_t bytes, chars, tokens, windows, replaced;
    int fits;
    /* the cut, when tokens > ctx */
    size_t cut_byte, cut_chars;   /* byte offset; characters wholly before it */
    size_t line, col;             /* of the first character not wholly inside */
    int inside;                   /* the cut falls inside a character */
    char snippet[TEXTPOS_SNIPPET_MAX];
} result;

/* Reads one input into *text (owned). Prints an error and returns -1 on failure. */
static int read_input(const input *in, char **text, size_t *len)
{
    if (in->kind == IN_TEXT) {
        *len = strlen(in->arg);
        *text = malloc(*len + 1);
        if (!*text) {
            cli_error("out of memory");
            return -1;
        }
        memcpy(*text, in->arg, *len + 1);
        return 0;
    }
    if (in->kind != IN_STDIN)
        return (*text = cli_read_file(in->arg, "text file", len)) ? 0 : -1;
    *text = cli_read_stream(stdin, len);
    if (!*text) {
        cli_error("cannot read standard input: %s", strerror(errno));
        return -1;
    }
    return 0;
}

/* A continuation byte of UTF-8: the offset is not where a character starts. */
static int mid_char(const char *text, size_t len, size_t byte)
{
    return byte < len && ((unsigned char)text[byte] & 0xC0) == 0x80;
}

static int count_one(tok_tokenizer *t, const input *in, size_t ctx, unsigned flags, result *r)
{
    char *text = NULL;
    size_t len = 0;
    if (read_input(in, &text, &len))
        return -1;
    const char *name = in->kind == IN_STDIN ? "standard input" : in->kind == IN_FILE ? in->arg
                                                                                      : "TEXT";
    tok_ids ids;
    size_t bad = 0;
    g2e_err err;
    g2e_clear(&err);
    if (tok_encode(t, text, len, TOK_SPECIAL_TOKEN, flags, &ids, &bad, &err)) {
        if (err.code == TOK_E_UTF8)
            cli_error("%s: %s (--lossy replaces invalid bytes with U+FFFD)", name, err.msg);
        else
            cli_error("%s: %s", name, err.msg);
        free(text);
        return -1;
    }
    memset(r, 0, sizeof *r);
    r->bytes = len;
    r->chars = textpos_chars(text, len);
    r->tokens = ids.n;
    r->replaced = ids.n_replaced;
    r->fits = ids.n <= ctx;
    if (embed_windows(ids.n, ctx, ctx, &r->windows, &err)) {
        cli_error("%s", err.msg);
        tok_ids_free(&ids);
        free(text);
        return -1;
    }
    if (!r->fits) {
        size_t b = ids.offsets[ctx];
        textpos p;
        textpos_at(text, len, b, &p);
        r->cut_byte = b;
        r->inside = mid_char(text, len, b);
        /* textpos counts a character the offset splits as one before it, and gives the
         * column after it: step back to name that character itself */
        r->cut_chars = r->inside ? p.chr - 1 : p.chr;
        r->line = p.line;
        r->col = r->inside ? p.col - 1 : p.col;
        memcpy(r->snippet, p.snippet, sizeof r->snippet);
    }
    tok_ids_free(&ids);
    free(text);
    return 0;
}

/* "1st", "2nd", "3rd", "4th", "11th", "1024th" */
static const char *ordinal_suffix(size_t n)
{
    if (n % 100 >= 11 && n % 100 <= 13)
        return "th";
    switch (n % 10) {
    case 1: return "st";
    case 2: return "nd";
    case 3: return "rd";
    default: return "th";
    }
}

/* An input's name for the table: the path, "-" for standard input, or the TEXT itself on
 * one line (controls as spaces, invalid bytes as '?', "" when empty), shortened with "…"
 * to maxw columns: a TEXT keeps its start, a path its end (the file's name). */
static void table_name(const input *in, char *buf, size_t cap, size_t maxw)
{
    const char *s = in->kind == IN_STDIN ? "-" : in->arg;
    if (in->kind == IN_TEXT && !*s)
        s = "\"\"";   /* an empty TEXT argument */
    size_t n = strlen(s), o = 0, k;
    /* one line: controls as spaces, each ill-formed subpart as '?' (text.h's steps) */
#define NAME_CP(cp) ((cp) < 0 ? '?' : (cp) < 0x20 || (cp) == 0x7F || ((cp) >= 0x80 && (cp) < 0xA0) ? ' ' : (cp))
    size_t total = 0;
    for (size_t i = 0; i < n; i += k) {
        int32_t c = NAME_CP(text_step(s + i, n - i, &k));
        total += (size_t)text_cp_width(c);
    }
    int cut_left = in->kind == IN_FILE && total > maxw;
    size_t skip = cut_left ? total - (maxw - 1) : 0, w = 0, seen = 0;
    if (cut_left) {
        memcpy(buf, "\xE2\x80\xA6", 3);
        o = 3;
    }
    for (size_t i = 0; i < n; i += k) {
        int32_t c = NAME_CP(text_step(s + i, n - i, &k));
        size_t cw = (size_t)text_cp_width(c);
        if (seen < skip) {   /* dropped from the left */
            seen += cw;
            continue;
        }
        if (!cut_left && w + cw > maxw - 1 && total > maxw) {
            if (o + 4 <= cap) {
                memcpy(buf + o, "\xE2\x80\xA6", 3);
                o += 3;
            }
            break;
        }
        char enc[4];
        size_t el = text_encode(c, enc);
        if (o + el + 4 > cap)
            break;
        memcpy(buf + o, enc, el);
        o += el;
        w += cw;
    }
#undef NAME_CP
    buf[o] = '\0';
}

static void print_table(FILE *f, const input *in, const result *r, size_t n, size_t ctx,
                        int lossy)
{
    char name[NAME_MAX_W * 4 + 8];
    size_t nw = 5;   /* "input" */
    for (size_t i = 0; i < n; i++) {
        table_name(&in[i], name, sizeof name, NAME_MAX_W);
        size_t w = out_display_width(name);
        if (w > nw)
            nw = w;
    }
    char fits_h[64], cut_h[96];
    snprintf(fits_h, sizeof fits_h, _("fits %zu"), ctx);
    /* TRANSLATORS: a column heading, "1024th token ends"; %s is the English ordinal suffix */
    snprintf(cut_h, sizeof cut_h, _("%zu%s token ends"), ctx, ordinal_suffix(ctx));
    size_t fw = out_display_width(fits_h);
    if (nw < out_display_width(_("input")))
        nw = out_display_width(_("input"));
    /* headings right-aligned over the numbers, by display width (translations are wider) */
    out_pad(f, _("input"), nw);
    const char *heads[] = {_("bytes"), _("chars"), _("tokens"), _("chars/token"), fits_h, _("windows")};
    size_t widths[] = {10, 10, 10, 11, fw, 7};
    for (size_t k = 0; k < 6; k++)
        if (out_display_width(heads[k]) > widths[k])
            widths[k] = out_display_width(heads[k]);
    for (size_t k = 0; k < 6; k++) {
        fputs("  ", f);
        out_rpad(f, heads[k], widths[k]);
    }
    fprintf(f, "  %s\n", cut_h);
    for (size_t i = 0; i < n; i++) {
        table_name(&in[i], name, sizeof name, NAME_MAX_W);
        out_pad(f, name, nw);
        char cpt[32], cut[96];
        if (r[i].tokens)
            snprintf(cpt, sizeof cpt, "%.2f", (double)r[i].chars / (double)r[i].tokens);
        else
            snprintf(cpt, sizeof cpt, "-");
        if (r[i].fits)
            snprintf(cut, sizeof cut, "-");
        else
            snprintf(cut, sizeof cut, _("line %zu, column %zu%s"), r[i].line, r[i].col,
                     r[i].inside ? _(" (inside a character)") : "");
        fprintf(f, "  %*zu  %*zu  %*zu  %*s  ", (int)widths[0], r[i].bytes, (int)widths[1], r[i].chars,
                (int)widths[2], r[i].tokens, (int)widths[3], cpt);
        out_rpad(f, r[i].fits ? _("yes") : _("no"), widths[4]);
        fprintf(f, "  %*zu  %s\n", (int)widths[5], r[i].windows, cut);
    }
    /* where each context ends, with the text around the cut */
    for (size_t i = 0; i < n; i++) {
        if (r[i].fits)
            continue;
        table_name(&in[i], name, sizeof name, NAME_MAX_W);
        fprintf(f, _("\n%s: the %zu%s token ends at byte %zu, "), name, ctx, ordinal_suffix(ctx),
                r[i].cut_byte);
        if (r[i].inside)
            fprintf(f, _("inside character %zu (line %zu, column %zu), which is split between "
                         "windows\n"), r[i].cut_chars + 1, r[i].line, r[i].col);
        else
            fprintf(f, _("after character %zu; the next one is at line %zu, column %zu\n"),
                    r[i].cut_chars, r[i].line, r[i].col);
        fprintf(f, "  %s\n", r[i].snippet);
    }
    if (lossy)
        for (size_t i = 0; i < n; i++)
            if (r[i].replaced) {
                table_name(&in[i], name, sizeof name, NAME_MAX_W);
                fprintf(f, _("\n%s: %zu invalid UTF-8 sequence%s replaced with U+FFFD\n"), name,
                        r[i].replaced, r[i].replaced == 1 ? "" : "s");
            }
}

static void print_json(FILE *f, const input *in, const result *r, size_t n, size_t ctx,
                       int lossy)
{
    fprintf(f, "{\"ctx\": %zu, \"inputs\": [", ctx);
    for (size_t i = 0; i < n; i++) {
        static const char *const kinds[] = {"text", "file", "stdin"};
        const char *s = in[i].kind == IN_STDIN ? "-" : in[i].arg;
        fprintf(f, "%s\n {\"input\": ", i ? "," : "");
        out_json_string(f, s, strlen(s));
        fprintf(f, ", \"kind\": \"%s\", \"bytes\": %zu, \"chars\": %zu, \"tokens\": %zu, "
                   "\"chars_per_token\": ", kinds[in[i].kind], r[i].bytes, r[i].chars,
                r[i].tokens);
        if (r[i].tokens)   /* a display value: chars and tokens are exact */
            fprintf(f, "%.6g", (double)r[i].chars / (double)r[i].tokens);
        else
            fputs("null", f);
        fprintf(f, ", \"fits\": %s, \"windows\": %zu", r[i].fits ? "true" : "false",
                r[i].windows);
        if (lossy)
            fprintf(f, ", \"replaced\": %zu", r[i].replaced);
        if (r[i].fits) {
            fputs(", \"cut\": null}", f);
            continue;
        }
        fprintf(f, ",\n  \"cut\": {\"byte\": %zu, \"chars_before\": %zu, \"inside_char\": %s, "
                   "\"line\": %zu, \"column\": %zu, \"snippet\": ", r[i].cut_byte,
                r[i].cut_chars, r[i].inside ? "true" : "false", r[i].line, r[i].col);
        out_json_string(f, r[i].snippet, strlen(r[i].snippet));
        fputs("}}", f);
    }
    fputs("\n]}\n", f);
}

int cmd_count(int argc, char **argv)
{
    int json = 0, lossy = 0, have_stdin = 0, rc = EXIT_ERR;
    uint64_t ctx = COUNT_DEFAULT_CTX;
    const char *tokdir = NULL, *v = NULL;
    input *in = calloc(argc > 1 ? (size_t)argc : 1, sizeof *in);
    result *res = NULL;
    tok_tokenizer *t = NULL;
    if (!in) {
        cli_error("out of memory");
        return EXIT_ERR;
    }
    size_t n = 0;
    int files = 0, texts_only = 0;   /* after -f: arguments are files; after --: texts */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (texts_only) {
            in[n++] = (input){IN_TEXT, a};
        } else if (strcmp(a, "--") == 0) {
            texts_only = 1;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            help(stdout);
            rc = EXIT_OK;
            goto done;
        } else if (strcmp(a, "-f") == 0) {
            if (i + 1 >= argc) {
                cli_error("option -f needs a file name");
                rc = EXIT_USAGE;
                goto done;
            }
            in[n++] = (input){IN_FILE, argv[++i]};
            files = 1;
        } else if (strcmp(a, "-") == 0) {
            if (have_stdin++) {
                cli_error("standard input ('-') can be read only once");
                rc = EXIT_USAGE;
                goto done;
            }
            in[n++] = (input){IN_STDIN, "-"};
            files = 0;
        } else if (a[0] != '-') {
            in[n++] = (input){files ? IN_FILE : IN_TEXT, a};
        } else if (strcmp(a, "--lossy") == 0) {
            lossy = 1, files = 0;
        } else if (cli_opt(argc, argv, &i, "--ctx", &v)) {
            files = 0;
            if (!v || cli_parse_u64(v, 1, COUNT_MAX_CTX, "--ctx", &ctx)) {
                rc = EXIT_USAGE;
                goto done;
            }
        } else if (cli_opt(argc, argv, &i, "--format", &v)) {
            files = 0;
            if (!v || (strcmp(v, "table") != 0 && strcmp(v, "json") != 0)) {
                if (v)
                    cli_error("--format must be table or json, got '%s'", v);
                rc = EXIT_USAGE;
                goto done;
            }
            json = strcmp(v, "json") == 0;
        } else if (cli_opt(argc, argv, &i, "--tokenizer", &v)) {
            files = 0;
            if (!v) {
                rc = EXIT_USAGE;
                goto done;
            }
            tokdir = v;
        } else {
            cli_error("unknown option '%s' (see 'gpt2-embed count --help'; put -- before a TEXT "
                      "that starts with a dash)", a);
            rc = EXIT_USAGE;
            goto done;
        }
    }
    if (n == 0) {
        cli_error("nothing to count: give TEXT, -f FILE... or - (standard input); see "
                  "'gpt2-embed count --help'");
        rc = EXIT_USAGE;
        goto done;
    }
    res = calloc(n, sizeof *res);
    if (!res) {
        cli_error("out of memory");
        goto done;
    }
    if (load_tokenizer(tokdir, &t))
        goto done;
    for (size_t k = 0; k < n; k++)
        if (count_one(t, &in[k], (size_t)ctx, lossy ? TOK_LOSSY : 0u, &res[k]))
            goto done;
    if (json)
        print_json(stdout, in, res, n, (size_t)ctx, lossy);
    else
        print_table(stdout, in, res, n, (size_t)ctx, lossy);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cli_error("writing standard output failed: %s", strerror(errno));
        goto done;
    }
    rc = EXIT_OK;
done:
    tok_close(t);
    free(res);
    free(in);
    return rc;
}
