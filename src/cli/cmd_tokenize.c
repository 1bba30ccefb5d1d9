/* SPDX-License-Identifier: MIT */
/* cmd_tokenize.c — `gpt2-embed tokenize`: text -> GPT-2 token IDs (tiktoken-exact).
 *
 * A text (TEXT arguments, -f FILE mapped, or standard input) is tokenized whole before
 * anything is written, so bad UTF-8 or a refused special token leaves the output empty;
 * large texts over --threads, their IDs formatted in the threads (tok_stream.h).
 * --jsonl streams (tok_stream.h): blocks of lines as they come, flushed when the output is
 * a pipe or a terminal. A bad line stops the run with an error naming its line number after
 * every earlier line has been written; with --keep-going it becomes {"error": "...",
 * "line": N} in the output and the run goes on (exit status 1 at the end).
 * This file is the options, their checks, the table format and the messages.
 */
#include "cli.h"
#include "i18n.h"
#include "load.h"
#include "opt.h"
#include "out.h"
#include "textin.h"
#include "tok_stream.h"
#include "tokchars.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct tokenize_opts {
    int fmt, special, jsonl, lossy, keep_going;
    const char *file, *dir, *out;
    int64_t threads;
} tokenize_opts;

static const char *const FORMATS[] = {"table", "ids", "json", NULL};
static const char *const JSONL_FORMATS[] = {"jsonl", NULL};
enum { FMT_TABLE, FMT_IDS, FMT_JSON };
static const char *const SPECIALS[] = {"token", "text", "error", NULL};

static const opt_def OPTS[] = {
    {.name = "--format", .kind = OPT_CHOICE, .off = offsetof(tokenize_opts, fmt), .choices = FORMATS,
     .def = "table", .help = N_("table: position, ID, piece, byte range; ids: one line of IDs; json: one object")},
    {.name = "--jsonl", .kind = OPT_FLAG, .off = offsetof(tokenize_opts, jsonl),
     .help = N_("batch: one {\"text\": \"...\"} per stdin line -> one {\"ids\": [...]} per output line")},
    {.name = "--keep-going", .kind = OPT_FLAG, .off = offsetof(tokenize_opts, keep_going),
     .help = N_("--jsonl: a bad line gives {\"error\": ..., \"line\": N} and the run goes on")},
    {.name = "--special", .kind = OPT_CHOICE, .off = offsetof(tokenize_opts, special), .choices = SPECIALS,
     .def = "token", .help = N_("<|endoftext|> in the input: ID 50256, ordinary text, or an error")},
    {.name = "--lossy", .kind = OPT_FLAG, .off = offsetof(tokenize_opts, lossy),
     .help = N_("replace invalid UTF-8 with U+FFFD (offsets still refer to the input)")},
    {.name = "--threads", .kind = OPT_INT, .off = offsetof(tokenize_opts, threads), .lo = 0, .hi = 64,
     .metavar = "N", .def = "0", .help = N_("threads for large inputs and --jsonl (0: one per online CPU)")},
    {.name = "--tokenizer", .kind = OPT_FILE, .off = offsetof(tokenize_opts, dir), .metavar = "DIR",
     .help = N_("vocab.json + merges.txt (or encoder.json + vocab.bpe) in DIR")},
    {.name = "--file", .short_name = 'f', .kind = OPT_FILE, .flags = OPTF_STDIN,
     .off = offsetof(tokenize_opts, file), .help = N_("read the text from FILE ('-': standard input)")},
    {.name = "--output", .short_name = 'o', .kind = OPT_FILE, .off = offsetof(tokenize_opts, out),
     .help = N_("write to FILE (atomically; .json/.jsonl/.txt pick the format)")},
    OPT_END,
};

static const opt_cmd CMD = {
    .name = "tokenize",
    .synopsis = N_("[OPTIONS] [TEXT... | -f FILE | -]"),
    .purpose = N_("GPT-2 token IDs of TEXT (several TEXT arguments are joined with single spaces),\n"
                  "of FILE, or of standard input ('-'), exactly as tiktoken's gpt2 encoding.\n"
                  "Put -- before a TEXT that starts with a dash."),
    .examples = N_("  gpt2-embed tokenize \"Hello world\"\n"
                   "  gpt2-embed tokenize --format ids -f book.txt -o book.ids.txt\n"
                   "  gpt2-embed tokenize --jsonl < texts.jsonl > ids.jsonl\n"),
    .opts = OPTS,
    .max_pos = -1,
    .pos_name = "TEXT",
};
const opt_cmd *const cmd_tokenize_spec = &CMD; /* for the manual (commands.def OPTS) */

/* ------------------------------------------------------------ formats */

/* pos, id, the piece made visible (out_piece_visible) or, for a token holding part of a
 * character, that character and its share (犬 (1/3), tokchars.h), padded to 22 display
 * columns, byte range. Returns 0 or -1 (out of memory). */
static int format_table(FILE *f, const tok_tokenizer *t, const char *text, size_t len, const tok_ids *r)
{
    tokchars_span *sp = toks_spans(text, len, r);
    if (!sp)
        return -1;
    out_rpad(f, _("pos"), 5);   /* headings by display width (translations are wider) */
    fputs("  ", f);
    out_rpad(f, _("id"), 6);
    fputs("  ", f);
    out_pad(f, _("piece"), 22);
    fprintf(f, "  %s\n", _("bytes"));
    int rc = 0;
    for (size_t i = 0; i < r->n && !rc; i++) {
        const uint8_t *p;
        size_t pl;
        tok_piece(t, r->ids[i], &p, &pl, NULL);
        char *v = sp[i].head.n || sp[i].tail.n ? tokchars_display_alloc(text, &sp[i])
                                                : out_piece_visible((const char *)p, pl);
        rc = v ? 0 : -1;
        fprintf(f, "%5zu  %6u  ", i, r->ids[i]);
        if (v)
            out_pad(f, v, 22);
        fprintf(f, "  %zu..%zu\n", r->offsets[i], r->offsets[i + 1]);
        free(v);
    }
    if (!r->n)
        fputs(_("(no tokens)\n"), f);
    free(sp);
    return rc;
}

static int write_file(void *f, const void *p, size_t n)
{
    return fwrite(p, 1, n, f) == n ? 0 : errno ? errno : EIO;
}

static int flush_file(void *f)
{
    return fflush(f) ? errno ? errno : EIO : 0;
}

/* ------------------------------------------------------------ the command */

/* The TEXT arguments joined by single spaces (a new string). */
static char *joined(const opt_parsed *p)
{
    size_t total = 1;
    for (int k = 0; k < p->npos; k++)
        total += strlen(p->pos[k]) + 1;
    char *s = malloc(total), *w = s;
    for (int k = 0; s && k < p->npos; k++) {
        cli_text_names_file(p->pos[k], 1);
        w += sprintf(w, "%s%s", k ? " " : "", p->pos[k]);
    }
    return s;
}

/* One whole text (TEXT, FILE or stdin) onto f. Returns 0 or -1 (a message printed). */
static int whole_to(tok_tokenizer *t, const tokenize_opts *o, const opt_parsed *p, FILE *f)
{
    textin in = {0};
    char *args = NULL;
    const char *what = p->npos ? "the text" : o->file && strcmp(o->file, "-") ? o->file : "standard input";
    if (p->npos ? !(args = joined(p)) : cli_textin_open(&in, o->file, "text file") != 0) {
        if (p->npos)
            cli_error("out of memory");
        return -1;
    }
    const char *text = args ? args : in.data;
    size_t len = args ? strlen(args) : in.len;
    unsigned flags = o->lossy ? TOK_LOSSY : 0;
    tok_ids r = {0};
    g2e_err err;
    int rc;
    if (o->fmt == FMT_IDS) {
        rc = toks_write_ids(t, text, len, (tok_special)o->special, flags, write_file, f, &r.n_replaced, &err);
    } else if (!(rc = tok_encode(t, text, len, (tok_special)o->special, flags, &r, NULL, &err))) {
        /* (a write error is out_commit's to report) */
        int e = o->fmt == FMT_JSON ? toks_write_json(f, t, text, len, &r) : format_table(f, t, text, len, &r);
        rc = e && e != G2E_EIO ? g2e_fail(&err, G2E_ENOMEM, "out of memory formatting the output") : 0;
    }
    if (rc >= 300 && rc < 400) /* the tokenizer's: the input named */
        cli_error("%s: %s", what, err.msg);
    else if (rc)
        cli_error("%s", err.msg);
    else if (r.n_replaced)
        cli_note("%zu invalid UTF-8 sequence%s replaced by U+FFFD", r.n_replaced, r.n_replaced == 1 ? "" : "s");
    tok_ids_free(&r);
    cli_textin_close(&in);
    free(args);
    return rc ? -1 : 0;
}

/* Combinations of options and inputs; the format from -o's extension. Returns 0 or -1. */
static int check(tokenize_opts *o, opt_parsed *p)
{
    int dash = 0;
    for (int k = 0; k < p->npos; k++)
        dash |= strcmp(p->pos[k], "-") == 0;
    if (dash && p->npos == 1) { /* '-' alone: standard input */
        p->npos = 0;
        if (o->file)
            return opt_usage_error(&CMD, "give only one of TEXT, -f FILE or '-'");
        o->file = "-";
    }
    int sources = (p->npos > 0) + (o->file != NULL) + (dash && p->npos > 1);
    if (o->jsonl && sources)
        return opt_usage_error(&CMD, "--jsonl reads standard input: give no TEXT, -f or '-'");
    if (!o->jsonl && sources != 1)
        return opt_usage_error(&CMD, sources ? "give only one of TEXT, -f FILE or '-'"
                                             : "no input: give TEXT, -f FILE or '-'");
    if (o->keep_going && !o->jsonl)
        return opt_usage_error(&CMD, "--keep-going applies to --jsonl only");
    if (o->jsonl) {
        int f = 0;
        if (opt_given(&CMD, p, "--format"))
            return opt_usage_error(&CMD, "--jsonl writes JSON lines: leave out --format");
        return out_pick_format(&CMD, o->out, JSONL_FORMATS, 0, &f);
    }
    int given = opt_given(&CMD, p, "--format");
    size_t ol = o->out ? strlen(o->out) : 0;
    if (given && o->fmt != FMT_JSON && ol > 4 && strcasecmp(o->out + ol - 4, ".txt") == 0)
        return 0; /* .txt holds either text format: --format ids -o ids.txt is no contradiction */
    return out_pick_format(&CMD, o->out, FORMATS, given, &o->fmt);
}

/* 1 if f is a pipe, a socket or a terminal (then --jsonl flushes every block). */
static int is_stream(FILE *f)
{
    struct stat st;
    int fd = f == stdout ? STDOUT_FILENO : fileno(f); /* stdout may be a cookie stream (out.c) */
    return fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISCHR(st.st_mode));
}

/* --jsonl onto f. Returns 0, 1 (a bad line: every line before it written) or -1. */
static int jsonl_to(tok_tokenizer *t, const tokenize_opts *o, FILE *f)
{
    toks_jsonl j = {.special = (tok_special)o->special, .lossy = o->lossy, .keep_going = o->keep_going,
                    .write = write_file, .flush = is_stream(f) ? flush_file : NULL, .user = f};
    int rc = toks_jsonl_run(t, STDIN_FILENO, &j);
    if (rc == G2E_ENOMEM && j.line)
        cli_error("out of memory with standard input line %zu", j.line);
    else if (rc == G2E_ENOMEM)
        cli_error("out of memory reading standard input (a line of %zu bytes)", j.pending);
    else if (rc == TOKS_E_READ)
        cli_error("cannot read standard input: %s", strerror(j.sys_errno));
    else if (rc == TOKS_E_WRITE || fflush(f)) /* (the lines before a bad one go out first) */
        cli_error("cannot write the output: %s", strerror(rc == TOKS_E_WRITE ? j.sys_errno : errno)), rc = TOKS_E_WRITE;
    else if (rc == TOKS_STOPPED)
        cli_error("standard input line %zu: %s", j.line, j.msg);
    else if (j.bad)
        cli_note("%zu bad line%s written as error objects", j.bad, j.bad == 1 ? "" : "s");
    return rc == TOKS_STOPPED || (!rc && j.bad) ? 1 : rc ? -1 : 0;
}

int cmd_tokenize(int argc, char **argv)
{
    tokenize_opts o = {0};
    opt_parsed p;
    int r = opt_parse(&CMD, argc, argv, &o, &p);
    if (r || check(&o, &p)) {
        opt_free(&p);
        return r ? opt_exit(r) : EXIT_USAGE;
    }
    tok_tokenizer *t = NULL;
    out_file of = {0};
    int rc = -1;
    if (load_tokenizer(o.dir, &t) == 0 && out_open(&of, o.out, 0) == 0) {
        tok_set_threads(t, (unsigned)o.threads);
        rc = o.jsonl ? jsonl_to(t, &o, of.f) : whole_to(t, &o, &p, of.f);
        /* a stopped --jsonl keeps the lines before the bad one, in a file too */
        if (rc >= 0 && out_commit(&of))
            rc = -1;
        else if (rc < 0)
            out_abort(&of);
    }
    tok_close(t);
    opt_free(&p);
    return rc == 0 ? EXIT_OK : EXIT_ERR;
}
