/* SPDX-License-Identifier: MIT */
/* cmd_count.c — `gpt2-embed count`: how much of a text fits GPT-2's context.
 *
 * For each input (TEXT arguments, files, standard input) the numbers of gpt2embed_count_ex:
 * bytes, characters, tokens, windows of N tokens and, when it does not fit, where the N-th
 * token ends (possibly inside a character), and with --per-char gpt2embed_char_costs. Every input is read and counted before anything is
 * printed, so an error leaves stdout empty: one line on stderr, status 1. Inputs are
 * reported in the order of the arguments; -f names one file (repeat it for more), so
 * `count -f a.txt TEXT` counts TEXT as a text. No weights are needed. This file is the
 * options, the order of the inputs, the table and the messages.
 */
#include "cli.h"
#include "i18n.h"
#include "json.h"
#include "load.h"
#include "opt.h"
#include "out.h"
#include "text.h"
#include "textfmt.h"
#include "textin.h"

#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NAME_MAX_W 28   /* display columns of an input's name in the table */

typedef struct count_opts {
    int64_t ctx, threads;
    int64_t top;
    int fmt, lossy, per_char;
    const char *dir, *out;
    opt_strs files;
} count_opts;

static const char *const FORMATS[] = {"table", "json", NULL};

static const opt_def OPTS[] = {
    {.name = "--ctx", .kind = OPT_INT, .off = offsetof(count_opts, ctx), .lo = 1, .hi = (int64_t)1 << 40,
     .metavar = "N", .def = "1024", .help = N_("context size (GPT-2's n_ctx is 1024)")},
    {.name = "--format", .kind = OPT_CHOICE, .off = offsetof(count_opts, fmt), .choices = FORMATS,
     .def = "table", .help = N_("an aligned table, or one JSON object for programs")},
    {.name = "--lossy", .kind = OPT_FLAG, .off = offsetof(count_opts, lossy),
     .help = N_("replace invalid UTF-8 with U+FFFD instead of failing (each invalid byte is one character)")},
    {.name = "--per-char", .kind = OPT_FLAG, .off = offsetof(count_opts, per_char),
     .help = N_("also which characters cost the most tokens: a token of b bytes gives 1/b token to "
                "each of its bytes, a character costs what its bytes got (犬 as three byte tokens: 3)")},
    {.name = "--top", .kind = OPT_INT, .off = offsetof(count_opts, top), .lo = 0, .hi = 1000000,
     .metavar = "N", .def = "20", .help = N_("--per-char table: the N costliest characters (0: all; JSON lists every character)")},
    {.name = "--file", .short_name = 'f', .kind = OPT_FILE, .flags = OPTF_APPEND | OPTF_STDIN,
     .off = offsetof(count_opts, files), .help = N_("count FILE ('-': standard input); repeat for more files")},
    {.name = "--threads", .kind = OPT_INT, .off = offsetof(count_opts, threads), .lo = 0, .hi = 64,
     .metavar = "N", .def = "0", .help = N_("threads for large inputs (0: one per CPU this process may use: its affinity, "
                                             "capped by its cgroup's CPU quota)")},
    {.name = "--tokenizer", .kind = OPT_FILE, .off = offsetof(count_opts, dir), .metavar = "DIR",
     .help = N_("vocab.json + merges.txt (or encoder.json + vocab.bpe) in DIR")},
    {.name = "--output", .short_name = 'o', .kind = OPT_FILE, .off = offsetof(count_opts, out),
     .help = N_("write to FILE (atomically; .json picks the format)")},
    OPT_END,
};

static const opt_cmd CMD = {
    .name = "count",
    .synopsis = N_("[OPTIONS] [TEXT | -f FILE | -]..."),
    .purpose = N_("How much of each input fits GPT-2's context: bytes, characters, tokens, characters\n"
                  "per token, whether it fits N positions, how many non-overlapping N-token windows it\n"
                  "needs, and where the N-th token ends (line, column, snippet) when it does not fit.\n"
                  "Each TEXT argument, each -f FILE and '-' (standard input, once) is one input,\n"
                  "reported in the order given; put -- before a TEXT that starts with a dash. The cut\n"
                  "is the first character not wholly inside the first N tokens: a token can end\n"
                  "inside a character (a kanji split into byte pieces); then that character is named.\n"
                  "No weights are needed."),
    .examples = N_("  gpt2-embed count \"The dog chased the cat\"\n"
                   "  gpt2-embed count -f chapter.txt -f notes.txt --ctx 512\n"
                   "  gpt2-embed count --format json - < text.txt\n"),
    .opts = OPTS,
    .max_pos = -1,
    .pos_name = "TEXT",
};

typedef enum { IN_TEXT, IN_FILE, IN_STDIN } in_kind;

typedef struct input {
    in_kind kind;
    const char *arg;     /* the TEXT or the path (argv's) */
    char name[NAME_MAX_W * 4 + 8]; /* for the table: the path, "-", or the TEXT (textfmt_fit) */
} input;

/* One input's numbers. */
typedef struct tokcount {
    gpt2embed_count_info c;
    gpt2embed_count_detail d;
    size_t windows;                /* non-overlapping windows of ctx tokens */
    gpt2embed_char_cost *cc;       /* --per-char: (n_cc) rows, costliest first */
    size_t n_cc;
} tokcount;

static void tokcount_free(tokcount *r)
{
    gpt2embed_free(r->cc);
    memset(r, 0, sizeof *r);
}

/* 1 when the input fits the context. */
static int fits(const tokcount *r)
{
    return r->c.n_tokens <= r->c.n_ctx;
}

/* The non-overlapping windows of ctx tokens the input needs (none for no tokens). */
static size_t windows(const tokcount *r)
{
    return r->c.n_tokens ? (r->c.n_tokens - 1) / r->c.n_ctx + 1 : 0;
}

/* gpt2embed_read_fn over a descriptor (user: an int *): read(2), EINTR retried. */
static ptrdiff_t read_fd(void *user, char *buf, size_t cap)
{
    ssize_t n;
    do
        n = read(*(int *)user, buf, cap);
    while (n < 0 && errno == EINTR);
    return n;
}

/* Streams and counts standard input, or a file larger than a mapping is allowed to be
 * (gpt2embed_count_stream: any size, in bounded memory). Returns 0, -1 after a message, or 1
 * when the input is a file for the usual path. */
static int count_stream(gpt2embed_tokenizer *t, const input *in, const count_opts *o, tokcount *r)
{
    struct stat st;
    if (o->lossy || o->per_char || in->kind == IN_TEXT ||
        (in->kind == IN_FILE && (stat(in->arg, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size <= TEXTIN_MAX)))
        return 1; /* (the whole text: mapped, or a message from the usual path) */
    int fd = in->kind == IN_STDIN ? STDIN_FILENO : cli_open_stream(in->arg, "text file");
    if (fd < 0)
        return -1;
    if (in->kind == IN_STDIN)
        out_add_input("standard input", "standard input", fd);
    gpt2embed_error err;
    int rc = gpt2embed_count_stream(t, read_fd, &fd, 0, (size_t)o->ctx, (unsigned)o->threads, &r->c, &r->d, &err);
    if (rc)
        cli_error("%s: %s", in->kind == IN_STDIN ? _("standard input") : in->arg, err.message);
    if (fd != STDIN_FILENO)
        close(fd);
    r->windows = windows(r);
    return rc ? -1 : 0;
}

/* Reads and counts one input (a TEXT in place, a file mapped or read, standard input or a
 * large file streamed). */
static int count_one(gpt2embed_tokenizer *t, input *in, const count_opts *o, tokcount *r)
{
    int s = count_stream(t, in, o, r);
    if (s <= 0)
        return s;
    textin ti = {.data = in->arg, .len = in->kind == IN_TEXT ? strlen(in->arg) : 0};
    if (in->kind == IN_TEXT)
        cli_text_names_file(in->arg, 1);
    if (in->kind != IN_TEXT && cli_textin_open(&ti, in->kind == IN_STDIN ? NULL : in->arg, "text file"))
        return -1;
    const char *name = in->kind == IN_STDIN ? _("standard input") : in->kind == IN_FILE ? in->arg : "TEXT";
    gpt2embed_error err;
    unsigned flags = o->lossy ? GPT2EMBED_LOSSY : 0, threads = (unsigned)o->threads;
    gpt2embed_status rc = gpt2embed_count_ex(t, ti.data, ti.len, flags, (size_t)o->ctx, threads, &r->c, &r->d, &err);
    if (!rc && o->per_char)
        rc = gpt2embed_char_costs(t, ti.data, ti.len, flags, threads, &r->cc, &r->n_cc, &err);
    if (rc)
        cli_error("%s: %s%s", name, err.message, rc == GPT2EMBED_E_UTF8 ? _(CLI_LOSSY_HINT) : "");
    r->windows = windows(r);
    cli_textin_close(&ti);
    return rc ? -1 : 0;
}

/* One input's characters by cost: the `top` costliest (0: all). */
static void print_per_char(FILE *f, const char *name, const tokcount *r, size_t top)
{
    size_t n = top && top < r->n_cc ? top : r->n_cc, cw = 6;
    char vis[32], code[16];
    for (size_t i = 0; i < n; i++) {   /* escaped bytes (\xE7\x8A) are wider than a kanji */
        text_escape_buf(vis, sizeof vis, r->cc[i].bytes, r->cc[i].n_bytes, TEXT_ESC_VISIBLE); /* ␣ ↵ \xNN */
        size_t w = out_display_width(vis) + 2;
        cw = w > cw ? w : cw;
    }
    fprintf(f, _("\n%s: the characters that cost the most tokens (a token of b bytes gives 1/b to each "
                 "of its bytes)\n"), name);
    /* headings by display width (translated ones are wider per byte); the data columns
     * keep their widths when a heading fits, else widen with it */
    if (cw < out_display_width(_("char")) + 2)
        cw = out_display_width(_("char")) + 2;
    out_pad(f, _("char"), cw);
    const char *hd[] = {_("code"), _("bytes"), _("count"), _("tokens"), _("tokens/char"),
                        C_("count", "share")};
    size_t hw[] = {8, 5, 7, 9, 11, 6};
    for (size_t k = 0; k < 6; k++) {
        if (out_display_width(hd[k]) > hw[k])
            hw[k] = out_display_width(hd[k]);
        fputs("  ", f);
        if (k == 0)
            out_pad(f, hd[k], hw[k]);
        else
            out_rpad(f, hd[k], hw[k]);
    }
    fputc('\n', f);
    for (size_t i = 0; i < n; i++) {
        const gpt2embed_char_cost *c = &r->cc[i];
        text_escape_buf(vis, sizeof vis, c->bytes, c->n_bytes, TEXT_ESC_VISIBLE);
        if (c->code_point >= 0)
            snprintf(code, sizeof code, "U+%04X", (unsigned)c->code_point);
        else
            snprintf(code, sizeof code, "%s", _("invalid"));
        out_pad(f, vis, cw);
        fprintf(f, "  %-*s  %*u  %*zu  %*.4f  %*.4f  %*.1f%%\n", (int)hw[0], code, (int)hw[1], c->n_bytes,
                (int)hw[2], c->count, (int)hw[3], c->tokens, (int)hw[4], c->tokens / (double)c->count,
                (int)hw[5] - 1, r->c.n_tokens ? 100.0 * c->tokens / (double)r->c.n_tokens : 0.0);
    }
    if (n < r->n_cc)
        fprintf(f, _("... and %zu more characters (--top 0 or --format json lists all)\n"), r->n_cc - n);
}

static void print_table(FILE *f, const input *in, const tokcount *r, size_t n, size_t ctx,
                        int lossy, size_t top)
{
    size_t nw = 5;   /* "input" */
    for (size_t i = 0; i < n; i++)
        nw = out_display_width(in[i].name) > nw ? out_display_width(in[i].name) : nw;
    char fits_h[64], cut_h[96];
    snprintf(fits_h, sizeof fits_h, _("fits %zu"), ctx);
    /* TRANSLATORS: a column heading, "1024th token ends"; %s is the English ordinal suffix */
    snprintf(cut_h, sizeof cut_h, _("%zu%s token ends"), ctx, textfmt_ordinal(ctx));
    if (nw < out_display_width(_("input")))
        nw = out_display_width(_("input"));
    /* headings right-aligned over the numbers, by display width (translations are wider) */
    out_pad(f, _("input"), nw);
    const char *heads[] = {_("bytes"), _("chars"), _("tokens"), _("chars/token"), fits_h, _("windows")};
    size_t widths[] = {10, 10, 10, 11, out_display_width(fits_h), 7};
    for (size_t k = 0; k < 6; k++)
        if (out_display_width(heads[k]) > widths[k])
            widths[k] = out_display_width(heads[k]);
    for (size_t k = 0; k < 6; k++) {
        fputs("  ", f);
        out_rpad(f, heads[k], widths[k]);
    }
    fprintf(f, "  %s\n", cut_h);
    for (size_t i = 0; i < n; i++) {
        out_pad(f, in[i].name, nw);
        char cpt[32] = "-";
        if (r[i].c.n_tokens)
            snprintf(cpt, sizeof cpt, "%.2f", (double)r[i].c.n_chars / (double)r[i].c.n_tokens);
        /* (translated text of any length: never through a fixed buffer) */
        char *cut = fits(&r[i]) ? NULL : textfmt_printf(_("line %zu, column %zu%s"), r[i].d.ctx_end_line, r[i].d.ctx_end_column,
                                                      r[i].c.ctx_end_splits_char ? _(" (inside a character)") : "");
        fprintf(f, "  %*zu  %*zu  %*zu  %*s  ", (int)widths[0], r[i].d.n_bytes, (int)widths[1], r[i].c.n_chars,
                (int)widths[2], r[i].c.n_tokens, (int)widths[3], cpt);
        out_rpad(f, fits(&r[i]) ? _("yes") : _("no"), widths[4]);
        fprintf(f, "  %*zu  %s\n", (int)widths[5], r[i].windows, cut ? cut : "-");
        free(cut);
    }
    /* where each context ends, with the text around the cut */
    for (size_t i = 0; i < n; i++) {
        if (fits(&r[i]))
            continue;
        fprintf(f, _("\n%s: the %zu%s token ends at byte %zu, "), in[i].name, ctx, textfmt_ordinal(ctx),
                r[i].c.ctx_end_byte);
        if (r[i].c.ctx_end_splits_char)
            fprintf(f, _("inside character %zu (line %zu, column %zu), which is split between "
                         "windows\n"), r[i].c.ctx_end_char + 1, r[i].d.ctx_end_line, r[i].d.ctx_end_column);
        else
            fprintf(f, _("after character %zu; the next one is at line %zu, column %zu\n"),
                    r[i].c.ctx_end_char, r[i].d.ctx_end_line, r[i].d.ctx_end_column);
        fprintf(f, "  %s\n", r[i].d.ctx_end_snippet);
    }
    /* English: the chapter's rule of thumb (1024 tokens are some 700-800 words), from this text */
    for (size_t i = 0; i < n; i++)
        if (r[i].d.english && r[i].d.n_words >= 20 && r[i].c.n_tokens)
            fprintf(f, _("\n%s: %zu English words in %zu tokens (%.2f tokens per word): %zu tokens "
                         "hold about %.0f words of such text\n"), in[i].name, r[i].d.n_words, r[i].c.n_tokens,
                    (double)r[i].c.n_tokens / (double)r[i].d.n_words, ctx,
                    (double)ctx * (double)r[i].d.n_words / (double)r[i].c.n_tokens);
    if (lossy)
        for (size_t i = 0; i < n; i++)
            if (r[i].d.n_replaced) {
                fprintf(f, "\n%s: ", in[i].name);
                fprintf(f, ngettext("%zu invalid UTF-8 sequence replaced with U+FFFD\n",
                                    "%zu invalid UTF-8 sequences replaced with U+FFFD\n", r[i].d.n_replaced),
                        r[i].d.n_replaced);
            }
    for (size_t i = 0; i < n; i++)
        if (r[i].cc)
            print_per_char(f, in[i].name, &r[i], top);
}

/* "per_char": every character, costliest first, through the one JSON writer. */
static void json_per_char(FILE *f, const tokcount *r)
{
    json_w w;
    json_init(&w, f);
    json_begin_array(&w);
    for (size_t i = 0; i < r->n_cc; i++) {
        const gpt2embed_char_cost *c = &r->cc[i];
        json_begin_object(&w);
        json_key(&w, "char");
        json_str(&w, c->bytes, c->n_bytes);
        json_key(&w, "codepoint");
        if (c->code_point >= 0)
            json_uint(&w, (unsigned)c->code_point);
        else
            json_null(&w);
        json_key(&w, "bytes");
        json_uint(&w, c->n_bytes);
        json_key(&w, "first_byte");
        json_uint(&w, c->first);
        json_key(&w, "count");
        json_uint(&w, c->count);
        json_key(&w, "tokens");
        json_f64(&w, c->tokens);
        json_key(&w, "tokens_per_char");
        json_f64(&w, c->tokens / (double)c->count);
        json_end_object(&w);
    }
    json_end_array(&w);
}

/* One input's object: {"input": name, "kind": kind, "bytes": B, "chars": C, "tokens": N,
 * "chars_per_token": x (null for no tokens), "fits": b, "windows": W[, "replaced": R when
 * lossy][, "per_char": [...]], "cut": null or {...}}. */
static void input_json(FILE *f, const char *name, const char *kind, const tokcount *r, int lossy)
{
    fputs("{\"input\": ", f);
    json_write_string(f, name, strlen(name));
    fprintf(f, ", \"kind\": \"%s\", \"bytes\": %zu, \"chars\": %zu, \"tokens\": %zu, \"chars_per_token\": ", kind,
            r->d.n_bytes, r->c.n_chars, r->c.n_tokens);
    if (r->c.n_tokens) /* a display value: chars and tokens are exact */
        fprintf(f, "%.6g", (double)r->c.n_chars / (double)r->c.n_tokens);
    else
        fputs("null", f);
    fprintf(f, ", \"fits\": %s, \"windows\": %zu", fits(r) ? "true" : "false", r->windows);
    if (lossy)
        fprintf(f, ", \"replaced\": %zu", r->d.n_replaced);
    if (r->cc) {
        fputs(", \"per_char\": ", f);
        json_per_char(f, r);
    }
    if (fits(r)) {
        fputs(", \"cut\": null}", f);
        return;
    }
    fprintf(f, ",\n  \"cut\": {\"byte\": %zu, \"chars_before\": %zu, \"inside_char\": %s, \"line\": %zu, "
               "\"column\": %zu, \"snippet\": ", r->c.ctx_end_byte, r->c.ctx_end_char,
            r->c.ctx_end_splits_char ? "true" : "false", r->d.ctx_end_line, r->d.ctx_end_column);
    json_write_string(f, r->d.ctx_end_snippet, strlen(r->d.ctx_end_snippet));
    fputs("}}", f);
}

static void print_json(FILE *f, const input *in, const tokcount *r, size_t n, size_t ctx, int lossy)
{
    fprintf(f, "{\"ctx\": %zu, \"inputs\": [", ctx);
    for (size_t i = 0; i < n; i++) {
        static const char *const kinds[] = {"text", "file", "stdin"};
        fputs(i ? ",\n " : "\n ", f);
        input_json(f, in[i].kind == IN_STDIN ? "-" : in[i].arg, kinds[in[i].kind], &r[i], lossy);
    }
    fputs("\n]}\n", f);
}

/* 1 if s (a value opt_parse found) lies in argument a: a itself, or after "--file=". */
static int in_arg(const char *s, const char *a)
{
    return s >= a && s <= a + strlen(a);
}

/* The inputs in argument order: TEXTs, '-' (standard input, but a TEXT after "--") and -f
 * files. Returns their count, or -1 after a usage error. *in is the caller's to free. */
static long inputs(int argc, char **argv, const count_opts *o, const opt_parsed *p, input **in)
{
    size_t n = (size_t)p->npos + o->files.n, k = 0;
    int dashdash = 0, stdin_seen = 0;
    if (!(*in = calloc(n + 1, sizeof **in))) {
        cli_error("out of memory");
        return -1;
    }
    for (int i = 1; i < argc; i++) {
        for (int j = 0; j < p->npos; j++)
            if (p->pos[j] == argv[i])
                (*in)[k++] = (input){.kind = strcmp(argv[i], "-") || dashdash ? IN_TEXT : IN_STDIN, .arg = argv[i]};
        for (size_t j = 0; j < o->files.n; j++)
            if (in_arg(o->files.v[j], argv[i]))
                (*in)[k++] = (input){.kind = strcmp(o->files.v[j], "-") ? IN_FILE : IN_STDIN, .arg = o->files.v[j]};
        dashdash |= strcmp(argv[i], "--") == 0;
    }
    for (size_t i = 0; i < k; i++) {
        input *x = &(*in)[i];
        const char *s = x->kind == IN_STDIN ? "-" : x->kind == IN_TEXT && !*x->arg ? "\"\"" : x->arg;
        char *e = text_escape(s, strlen(s), TEXT_ESC_BIDI);   /* controls, bidi, separators */
        textfmt_fit(e ? e : "?", e ? strlen(e) : 1, NAME_MAX_W, x->kind == IN_FILE, x->name, sizeof x->name);
        free(e);
        if (x->kind == IN_STDIN && stdin_seen++)
            return opt_usage_error(&CMD, "standard input ('-') can be read only once");
    }
    if (!n)
        return opt_usage_error(&CMD, "nothing to count: give TEXT, -f FILE or - (standard input)");
    return (long)k;
}

int cmd_count(int argc, char **argv)
{
    count_opts o = {.ctx = 1024, .top = 20};
    opt_parsed p;
    input *in = NULL;
    int r = opt_parse(&CMD, argc, argv, &o, &p);
    long n = r ? -1 : inputs(argc, argv, &o, &p, &in);
    if (r || n < 0 || out_pick_format(&CMD, o.out, FORMATS, opt_given(&CMD, &p, "--format"), &o.fmt)) {
        free(in);
        opt_free(&p);
        return r ? opt_exit(r) : EXIT_USAGE;
    }
    int rc = EXIT_ERR;
    tokcount *res = calloc((size_t)n, sizeof *res);
    gpt2embed_tokenizer *t = NULL;
    out_file of = {0};
    if (!res) {
        cli_error("out of memory");
    } else if (load_tokenizer(o.dir, &t) == 0) {
        long k = 0;
        while (k < n && !count_one(t, &in[k], &o, &res[k]))
            k++;
        if (k == n && !out_open(&of, o.out, 0)) {
            if (o.fmt == 1)
                print_json(of.f, in, res, (size_t)n, (size_t)o.ctx, o.lossy);
            else
                print_table(of.f, in, res, (size_t)n, (size_t)o.ctx, o.lossy, (size_t)o.top);
            rc = out_commit(&of) ? EXIT_ERR : EXIT_OK;
        }
    }
    gpt2embed_tokenizer_close(t);
    for (long k = 0; res && k < n; k++)
        tokcount_free(&res[k]);
    free(res);
    free(in);
    opt_free(&p);
    return rc;
}
