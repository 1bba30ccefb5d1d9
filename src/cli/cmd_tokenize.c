/* SPDX-License-Identifier: MIT */
/* cmd_tokenize.c — `gpt2-embed tokenize`: text -> GPT-2 token IDs (tiktoken-exact).
 *
 * The table, JSON and --format ids of a TEXT or a file of at most 1 GiB: the text mapped and
 * checked whole before anything is written, so bad UTF-8 or a refused special token leaves
 * the output empty; large texts over --threads, their IDs formatted in the threads
 * (the library's pipeline, tokwrite.h). The token files (npy, u16, u32, llmc: tokfile.h), --format ids from
 * standard input, of a larger file or with --doc-sep: streamed (gpt2embed_tokenize_stream_ex: any size,
 * bounded memory), documents cut at --doc-sep, a progress line on a terminal; an error there
 * removes a file output, a pipe keeps what came before.
 * --jsonl and --lines stream (tokwrite.h): blocks of lines as they come, flushed when the
 * output is a pipe or a terminal, output line N answering input line N. A bad line (blank
 * too) stops the run with an error naming its line number after every earlier line has been
 * written; with --keep-going it becomes {"error": "...", "line": N} in its place and the run
 * goes on (exit status 1 at the end); --keep copies members into each answer.
 * Training data is made as llm.c's and nanoGPT's scripts make it: the token files, --jsonl
 * and --lines read <|endoftext|> in the text as ordinary text by default (encode_ordinary;
 * stderr says how many), and --eot puts the token 50256 before or after each document.
 * A sharded run leaves exactly its own shards under the names it uses.
 * This file is the options, their checks, the table format, the sinks and the messages.
 */
#define _GNU_SOURCE /* memmem */
#include "gpt2embed.h"
#include "cli.h"
#include "download.h"
#include "i18n.h"
#include "load.h"
#include "opt.h"
#include "out.h"
#include "rdbuf.h"
#include "textin.h"
#include "tokwrite.h"
#include "tokchars.h"
#include "tokfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct tokenize_opts {
    int fmt, special, eot, jsonl, lines, lossy, keep_going, quiet;
    int special_default; /* --special not given: the format chose (the note on literals says so) */
    double progress_after;
    opt_strs keep;
    const char *file, *dir, *out, *doc_sep;
    int64_t threads, shard, shard_min, max_line;
    char *sep;      /* doc_sep with its escapes read (owned) */
    size_t sep_len;
} tokenize_opts;

static const char *const FORMATS[] = {"table", "ids", "json", "npy", "u16", "u32", "llmc", NULL};
static const char *const JSONL_FORMATS[] = {"jsonl", "npy", "u16", "u32", "llmc", NULL};
enum { FMT_TABLE, FMT_IDS, FMT_JSON, FMT_NPY, FMT_U16, FMT_U32, FMT_LLMC };
#define FMT_BINARY(f) ((f) >= FMT_NPY)
static const char *const SPECIALS[] = {"token", "text", "error", NULL};
enum { SP_TOKEN, SP_TEXT, SP_ERROR };
/* The library's flags of --special and --lossy. */
static unsigned flags_of(const tokenize_opts *o)
{
    static const unsigned SP[] = {0, GPT2EMBED_SPECIAL_TEXT, GPT2EMBED_SPECIAL_ERROR};
    return SP[o->special] | (o->lossy ? GPT2EMBED_LOSSY : 0);
}
static const char *const EOTS[] = {"before", "after", "none", NULL}; /* tokfile.h's TOKF_EOT_* order */

static const opt_def OPTS[] = {
    {.name = "--format", .kind = OPT_CHOICE, .off = offsetof(tokenize_opts, fmt), .choices = FORMATS,
     .def = "table", .help = N_("table: position, ID, piece, byte range; ids: one line of IDs (one per document "
                                "with --doc-sep); json: one object; npy: a numpy array (uint16 IDs; -o FILE.npy "
                                "picks it); u16, u32: raw little-endian IDs (np.memmap); llmc: llm.c's .bin "
                                "(a 1 KB header, uint16 IDs)")},
    {.name = "--doc-sep", .kind = OPT_TEXT, .off = offsetof(tokenize_opts, doc_sep), .metavar = "SEP",
     .help = N_("documents are the pieces between occurrences of SEP, each tokenized alone, an empty one "
                "too (\\n, \\t and \\\\ are read as escapes: '\\n\\n' is a blank line; SEP at the very end "
                "starts no document); default: the whole input is one document")},
    {.name = "--eot", .kind = OPT_CHOICE, .off = offsetof(tokenize_opts, eot), .choices = EOTS,
     .help = N_("npy, u16, u32, llmc: the token <|endoftext|> (50256) before each document (llm.c's fineweb.py; "
                "the default for llmc), after each (nanoGPT's openwebtext prepare.py; the default for npy, u16 "
                "and u32 with --doc-sep, --jsonl or --lines), or none (the default for one whole text, as "
                "nanoGPT's shakespeare prepare.py); an empty document is a lone 50256")},
    {.name = "--shard-tokens", .kind = OPT_INT, .off = offsetof(tokenize_opts, shard), .lo = 1,
     .hi = (int64_t)1 << 40, .metavar = "N",
     .help = N_("npy, u16, u32, llmc: write -o NAME.EXT as NAME_000000.EXT, NAME_000001.EXT... of at most N "
                "tokens each, no document split unless it is longer than N; the last shard may be shorter "
                "(llm.c's loader refuses a shard of fewer than B*T+1 tokens: see --shard-min-tokens); earlier "
                "files NAME_NNNNNN.EXT beyond this run's are removed")},
    {.name = "--shard-min-tokens", .kind = OPT_INT, .off = offsetof(tokenize_opts, shard_min), .lo = 1,
     .hi = (int64_t)1 << 40, .metavar = "M",
     .help = N_("no shard shorter than M tokens (at most N; for llm.c, B*T+1): a last shorter shard is "
                "appended to the one before, and a document that does not fit beside fewer than M tokens is "
                "split across two shards")},
    {.name = "--jsonl", .kind = OPT_FLAG, .off = offsetof(tokenize_opts, jsonl),
     .help = N_("batch: one {\"text\": \"...\"} per stdin line -> one {\"ids\": [...]} per output line")},
    {.name = "--lines", .kind = OPT_FLAG, .off = offsetof(tokenize_opts, lines),
     .help = N_("batch: each stdin line is plain text, a document (an empty line an empty one) -> one "
                "{\"ids\": [...]} per output line")},
    {.name = "--keep", .kind = OPT_TEXT, .flags = OPTF_APPEND, .off = offsetof(tokenize_opts, keep),
     .metavar = "KEY", .help = N_("--jsonl: copy member KEY of each line into its answer, as it is (null when "
                                  "missing); repeat for more")},
    {.name = "--keep-going", .kind = OPT_FLAG, .off = offsetof(tokenize_opts, keep_going),
     .help = N_("--jsonl, --lines: a bad line gives {\"error\": ..., \"line\": N} in its place and the run "
                "goes on")},
    {.name = "--special", .kind = OPT_CHOICE, .off = offsetof(tokenize_opts, special), .choices = SPECIALS,
     .help = N_("<|endoftext|> in the input: ID 50256, ordinary text (as tiktoken's encode_ordinary; stderr says "
                "how many), or an error; default: text for npy, u16, u32, llmc, --jsonl and --lines (as llm.c's "
                "and nanoGPT's scripts), token for the table, json and ids")},
    {.name = "--lossy", .kind = OPT_FLAG, .off = offsetof(tokenize_opts, lossy),
     .help = N_("replace invalid UTF-8 with U+FFFD (offsets still refer to the input)")},
    {.name = "--threads", .kind = OPT_INT, .off = offsetof(tokenize_opts, threads), .lo = 0, .hi = 64,
     .metavar = "N", .def = "0", .help = N_("threads for large inputs and --jsonl (0: one per CPU this process may use: its "
                                             "affinity, capped by its cgroup's CPU quota)")},
    {.name = "--quiet", .short_name = 'q', .kind = OPT_FLAG, .off = offsetof(tokenize_opts, quiet),
     .help = N_("no progress line (shown on a terminal when reading a stream takes over a second)")},
    {.name = "--progress-after", .kind = OPT_REAL, .off = offsetof(tokenize_opts, progress_after), .rlo = 0,
     .rhi = 1e9, .metavar = "SECONDS", .def = "1", .flags = OPTF_HIDDEN,
     .help = "the progress line's delay (tests)"},
    {.name = "--max-line", .kind = OPT_INT, .off = offsetof(tokenize_opts, max_line), .lo = 2,
     .hi = (int64_t)TOKS_JSONL_MAX_LINE, .metavar = "BYTES", .flags = OPTF_HIDDEN,
     .help = "--jsonl, --lines: the length from which a line is refused (tests; default 1 GiB)"},
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
                   "  gpt2-embed tokenize --jsonl < texts.jsonl > ids.jsonl\n"
                   "  gpt2-embed tokenize -f corpus.txt -o corpus.npy\n"
                   "  gpt2-embed tokenize --format llmc --doc-sep '<|endoftext|>' --shard-tokens 100000000 \\\n"
                   "      --shard-min-tokens 65537 -f corpus.txt -o train.bin\n"),
    .opts = OPTS,
    .max_pos = -1,
    .pos_name = "TEXT",
};
const opt_cmd *const cmd_tokenize_spec = &CMD; /* for the manual (commands.def OPTS) */

/* ------------------------------------------------------------ formats */

/* pos, id, the piece made visible (out_piece_visible) or, for a token holding part of a
 * character, that character and its share (犬 (1/3), tokchars.h), padded to 22 display
 * columns, byte range. Returns 0 or -1 (out of memory). */
static int format_table(FILE *f, const gpt2embed_tokenizer *t, const char *text, size_t len, const toks_ids *r)
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
        const uint8_t *p = NULL;
        size_t pl = 0;
        gpt2embed_token_bytes(t, r->ids[i], &p, &pl, NULL); /* (the tokenizer's own IDs) */
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
    if (!n) /* (an empty input's nothing: p may be NULL, which fwrite must not see) */
        return 0;
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

/* How many <|endoftext|> were read as ordinary text by the format's default, said on stderr
 * (not when --special text was asked for). */
static void note_literals(const tokenize_opts *o, uint64_t n)
{
    if (n && o->special_default)
        cli_note("<|endoftext|> occurs %llu time%s in the text: read as ordinary text, as tiktoken's "
                 "encode_ordinary does (--special token makes it the token 50256)",
                 (unsigned long long)n, n == 1 ? "" : "s");
}

/* One whole text (TEXT, FILE or stdin) onto f. Returns 0 or -1 (a message printed). */
static int whole_to(gpt2embed_tokenizer *t, const tokenize_opts *o, const opt_parsed *p, FILE *f)
{
    textin in = {0};
    char *args = NULL;
    const char *what = p->npos ? _("the text") : o->file && strcmp(o->file, "-") ? o->file : _("standard input");
    if (p->npos ? !(args = joined(p)) : cli_textin_open(&in, o->file, "text file") != 0) {
        if (p->npos)
            cli_error("out of memory");
        return -1;
    }
    const char *text = args ? args : in.data;
    size_t len = args ? strlen(args) : in.len;
    toks_ids r = {0};
    g2e_err err;
    int rc;
    if (o->fmt == FMT_IDS) {
        rc = toks_write_ids(t, (unsigned)o->threads, 0, text, len, flags_of(o), write_file, f, &r.n_replaced, &err);
    } else {
        gpt2embed_error e;
        gpt2embed_status st = gpt2embed_tokenize_threads(t, text, len, flags_of(o), (unsigned)o->threads, &r.ids,
                                                         &r.offsets, &r.n, &r.n_replaced, &e);
        rc = st == GPT2EMBED_E_UTF8 || st == GPT2EMBED_E_SPECIAL ? TOKS_E_TEXT : st ? G2E_ENOMEM : 0;
        if (rc) {
            g2e_fail(&err, rc, "%s", e.message);
        } else { /* (a write error is out_commit's to report) */
            int w = o->fmt == FMT_JSON ? toks_write_json(f, t, text, len, &r) : format_table(f, t, text, len, &r);
            rc = w && w != G2E_EIO ? g2e_fail(&err, G2E_ENOMEM, "out of memory formatting the output") : 0;
        }
    }
    if (rc == TOKS_E_TEXT) /* the tokenizer's: the input named */
        cli_error("%s: %s", what, err.msg);
    else if (rc)
        cli_error("%s", err.msg);
    else if (r.n_replaced)
        cli_note(ngettext("%zu invalid UTF-8 sequence replaced by U+FFFD",
                               "%zu invalid UTF-8 sequences replaced by U+FFFD", r.n_replaced), r.n_replaced);
    if (!rc && o->special == SP_TEXT)
        note_literals(o, toks_eot_literals(text, len));
    gpt2embed_free(r.ids);
    gpt2embed_free(r.offsets);
    cli_textin_close(&in);
    free(args);
    return rc ? -1 : 0;
}

/* ---- the stream: plain text of any length, in documents (gpt2embed_tokenize_stream_ex) ---- */

/* --format ids over the stream: a line of IDs per document. */
typedef struct ids_sink {
    FILE *f;
    toks_idtext idt;
    bytebuf b;
    uint64_t docs;
    int in_doc; /* the line has an ID already */
    int werr;
} ids_sink;

static int ids_put(void *user, const uint32_t *ids, size_t n, const size_t *starts, size_t n_starts)
{
    ids_sink *k = user;
    k->b.n = 0;
    for (size_t i = 0, at = 0; i <= n_starts; i++) {
        size_t e = i < n_starts ? starts[i] : n;
        if (e > at) {
            if (k->in_doc)
                bb_put(&k->b, " ", 1);
            toks_put_ids(&k->b, &k->idt, ids + at, e - at, ' ');
            k->in_doc = 1;
        }
        if (i < n_starts) {
            if (k->docs++)
                bb_put(&k->b, "\n", 1);
            k->in_doc = 0;
        }
        at = e;
    }
    k->werr = k->b.oom ? ENOMEM : write_file(k->f, k->b.p, k->b.n);
    return k->werr;
}

/* The progress line on stderr (the download's meter, download.h): on a terminal, unless
 * --quiet, once the run has lasted --progress-after seconds (1). */
typedef struct progress {
    double after;
    uint64_t total; /* the input's size, or 0 (a pipe) */
    int drawn;
    dl_meter m;
} progress;

static void progress_draw(progress *g, uint64_t bytes, uint64_t tokens, int final)
{
    char extra[64], buf[512];
    if (tokens >= 1000000)
        snprintf(extra, sizeof extra, _("  %.1f M tokens"), (double)tokens / 1e6);
    else
        snprintf(extra, sizeof extra, _("  %llu tokens"), (unsigned long long)tokens);
    if (dl_meter_bar(&g->m, "tokenize", bytes, g->total, extra, final, buf, sizeof buf)) {
        fputs(buf, stderr);
        g->drawn = 1;
    }
}

static void on_progress(void *user, uint64_t bytes, uint64_t tokens)
{
    progress *g = user;
    if (dl_meter_elapsed(&g->m) >= g->after)
        progress_draw(g, bytes, tokens, 0);
}

/* The text (TEXT, FILE or stdin) through gpt2embed_tokenize_stream_ex into put. Returns 0,
 * or -1 after a message (the sink's failure, GPT2EMBED_E_STOPPED, is the caller's to report:
 * returns 1). */
static int stream_text(gpt2embed_tokenizer *t, const tokenize_opts *o, const opt_parsed *p, gpt2embed_docs_fn put,
                       void *user)
{
    gpt2embed_stream_opts x = {.flags = flags_of(o), .n_threads = (unsigned)o->threads, .separator = o->sep,
                               .separator_len = o->sep_len, .emit = put, .emit_user = user};
    progress g = {.after = o->progress_after};
    char *args = NULL;
    int fd = -1;
    rd_mem mem = {0};
    const char *what = p->npos ? _("the text") : o->file && strcmp(o->file, "-") ? o->file : _("standard input");
    if (p->npos) {
        if (!(args = joined(p)))
            return cli_error("out of memory"), -1;
        mem = (rd_mem){args, strlen(args)};
        x.read = rd_read_mem, x.read_user = &mem;
    } else if (o->file && strcmp(o->file, "-")) {
        if ((fd = cli_open_stream(o->file, "text file")) < 0)
            return -1;
    } else {
        fd = STDIN_FILENO;
        out_add_input("standard input", "standard input", fd);
    }
    if (!args)
        x.read = rd_read_fd, x.read_user = &fd;
    struct stat st;
    g.total = args ? mem.left : fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
    if (!o->quiet && isatty(STDERR_FILENO)) {
        dl_meter_init(&g.m, 1, "", "", "");
        x.progress = on_progress, x.progress_user = &g;
    }
    gpt2embed_error err;
    gpt2embed_status rc = gpt2embed_tokenize_stream_ex(t, &x, &err);
    if (g.drawn) { /* completed, then the line ended */
        char nl[8];
        if (!rc)
            progress_draw(&g, x.n_bytes, x.n_tokens, 1);
        fputs(dl_meter_close(&g.m, nl, sizeof nl) ? nl : "", stderr);
    }
    if (rc == GPT2EMBED_E_UTF8 || rc == GPT2EMBED_E_SPECIAL || rc == GPT2EMBED_E_TOO_LARGE) /* the input named */
        cli_error("%s: %s", what, err.message);
    else if (rc == GPT2EMBED_E_IO)
        cli_error("cannot read %s: %s", what, strerror(err.errno_value));
    else if (rc && rc != GPT2EMBED_E_STOPPED)
        cli_error("out of memory tokenizing %s", what);
    if (!rc && o->special == SP_TEXT)
        note_literals(o, x.n_eot_text);
    if (fd > STDIN_FILENO)
        close(fd);
    free(args);
    return rc == GPT2EMBED_E_STOPPED ? 1 : rc ? -1 : 0;
}

/* --format ids (with --doc-sep) over the stream onto f. Returns 0 or -1. */
static int ids_stream_to(gpt2embed_tokenizer *t, const tokenize_opts *o, const opt_parsed *p, FILE *f)
{
    ids_sink k = {.f = f};
    /* (without it, IDs are converted one by one) */
    toks_idtext_init(&k.idt, (uint32_t)gpt2embed_tokenizer_n_vocab(t), ' ');
    int rc = stream_text(t, o, p, ids_put, &k);
    if (!rc && k.docs && (k.werr = write_file(f, "\n", 1)))
        rc = 1;
    if (rc > 0)
        cli_error("cannot write the output: %s", strerror(k.werr ? k.werr : EIO));
    bb_free(&k.b);
    toks_idtext_free(&k.idt);
    return rc ? -1 : 0;
}

static void note_shard(void *user, const char *name, uint64_t tokens)
{
    (void)user;
    cli_note("wrote %s (%llu tokens)", name, (unsigned long long)tokens);
}

/* A sharded run's files are exactly its own: an earlier run's shards beyond them removed (once
 * one of this run's has replaced the earlier ones' first names). Returns 0 or -1. */
static int remove_stale(tokf *w)
{
    tokf_stale st;
    g2e_err err;
    int rc = w->done ? tokf_remove_stale(w, &st, &err) : 0;
    if (rc) {
        cli_error("%s", err.msg);
        return -1;
    }
    char *lo = w->done && st.n ? tokf_shard_name(w, st.lo) : NULL, *hi = lo ? tokf_shard_name(w, st.hi) : NULL;
    if (lo && hi)
        cli_note("removed %u shard%s of an earlier run (%s%s%s), so that the names hold this run's shards only", st.n,
                 st.n == 1 ? "" : "s", lo, st.n > 1 ? " ... " : "", st.n > 1 ? hi : "");
    free(lo), free(hi);
    return 0;
}

static int jsonl_bin(gpt2embed_tokenizer *t, const tokenize_opts *o, tokf *w);

/* npy, u16, u32, llmc: the text in documents (or --jsonl's lines) into files (tokfile.h).
 * A failure removes the file being written and names the last complete shard; a fatal
 * signal removes the temporaries. Returns 0 or -1. */
static int binary_to(gpt2embed_tokenizer *t, const tokenize_opts *o, const opt_parsed *p)
{
    static const int TF[] = {TOKF_NPY, TOKF_U16, TOKF_U32, TOKF_LLMC};
    int docs = o->sep || o->jsonl || o->lines;
    tokf_opts to = {.fmt = TF[o->fmt - FMT_NPY], .n_vocab = (uint32_t)gpt2embed_tokenizer_n_vocab(t), .eot = GPT2EMBED_TOKEN_EOT, .eot_at = o->eot,
                    .shard = (uint64_t)o->shard, .shard_min = (uint64_t)o->shard_min};
    if (o->eot < 0) /* the default: llm.c's before each document; nanoGPT's after, or none for one text */
        to.eot_at = to.fmt == TOKF_LLMC ? TOKF_EOT_BEFORE : docs ? TOKF_EOT_AFTER : TOKF_EOT_NONE;
    tokf w;
    g2e_err err;
    if (tokf_open(&w, o->out, &to, &err)) {
        cli_error("%s", err.msg);
        return -1;
    }
    ofile_catch_signals(1);
    if (o->shard)
        w.on_file = note_shard;
    int rc = o->jsonl || o->lines ? jsonl_bin(t, o, &w) : stream_text(t, o, p, tokf_ids, &w);
    int sink = rc == 1; /* tokf's own failure: its message */
    if (!rc && tokf_finish(&w, &w.err))
        sink = 1;
    if (rc || sink) {
        tokf_abort(&w);
        if (sink)
            cli_error("%s", w.err.msg);
        if (o->shard && w.last)
            cli_note("the last complete shard is %s (%u written)", w.last, w.done);
        else if (o->shard)
            cli_note("no shard was completed");
        rc = -1;
    } else if (w.folded) {
        cli_note("the last %llu tokens, fewer than --shard-min-tokens %lld, were appended to %s",
                 (unsigned long long)w.folded, (long long)o->shard_min, w.last);
    } else if (o->shard_min && w.done == 1 && w.last_n < (uint64_t)o->shard_min) {
        cli_note("%s holds %llu tokens, fewer than --shard-min-tokens %lld: the input has no more", w.last,
                 (unsigned long long)w.last_n, (long long)o->shard_min);
    }
    if (o->shard && remove_stale(&w))
        rc = -1;
    tokf_free(&w);
    return rc;
}

/* SEP with \n, \t, \r and \\ read as escapes, into o->sep. Returns 0 or -1 (usage). */
static int read_sep(tokenize_opts *o)
{
    size_t n = strlen(o->doc_sep), k = 0;
    if (!n)
        return opt_usage_error(&CMD, "--doc-sep is empty");
    if (!(o->sep = malloc(n + 1)))
        return cli_error("out of memory"), -1;
    for (const char *q = o->doc_sep; *q; q++) {
        static const char from[] = "ntr\\", to[] = "\n\t\r\\";
        const char *e = q[0] == '\\' && q[1] ? strchr(from, q[1]) : NULL;
        o->sep[k++] = e ? to[e - from] : *q;
        q += e != NULL;
    }
    o->sep_len = k;
    return 0;
}

/* --keep's members, each once; refused when the answer has a member of that name itself
 * ("ids"; with --keep-going "error" and "line"). Returns 0 or -1. */
static int check_keep(tokenize_opts *o)
{
    size_t n = 0;
    for (size_t i = 0; i < o->keep.n; i++) {
        const char *k = o->keep.v[i];
        if (!strcmp(k, "ids") || (o->keep_going && (!strcmp(k, "error") || !strcmp(k, "line"))))
            return opt_usage_error(&CMD, "--keep %s: the answers have a member \"%s\" of their own", k, k);
        size_t j = 0;
        while (j < n && strcmp(o->keep.v[j], k))
            j++;
        if (j == n) /* (a member asked for twice is copied once) */
            o->keep.v[n++] = k;
    }
    o->keep.n = n;
    return 0;
}

/* The options that go with the formats: shards, documents, --eot, --lossy, the default of
 * --special. Returns 0 or -1. */
static int check_formats(tokenize_opts *o)
{
    int bin = FMT_BINARY(o->fmt);
    if (o->shard && !bin)
        return opt_usage_error(&CMD, "--shard-tokens applies to --format npy, u16, u32 and llmc");
    if (o->shard && (!o->out || strcmp(o->out, "-") == 0))
        return opt_usage_error(&CMD, "--shard-tokens needs -o NAME.EXT (the shards are NAME_000000.EXT, ...)");
    if (o->fmt == FMT_LLMC && o->shard > (int64_t)TOKF_LLMC_MAX)
        return opt_usage_error(&CMD, "an llm.c file holds fewer than 2^31 tokens: --shard-tokens 2147483647 at most");
    if (o->shard_min && !o->shard)
        return opt_usage_error(&CMD, "--shard-min-tokens applies to --shard-tokens");
    if (o->shard_min > o->shard)
        return opt_usage_error(&CMD, "--shard-min-tokens %lld is more than --shard-tokens %lld", (long long)o->shard_min,
                               (long long)o->shard);
    if (o->fmt == FMT_LLMC && o->shard_min && (uint64_t)(o->shard + o->shard_min - 1) > TOKF_LLMC_MAX)
        return opt_usage_error(&CMD, "an llm.c file holds fewer than 2^31 tokens: --shard-tokens plus "
                                     "--shard-min-tokens must stay below 2147483649");
    if (o->eot >= 0 && !bin)
        return opt_usage_error(&CMD, "--eot applies to --format npy, u16, u32 and llmc");
    if (o->max_line && !o->jsonl && !o->lines)
        return opt_usage_error(&CMD, "--max-line applies to --jsonl and --lines");
    o->special_default = o->special < 0;
    if (o->special < 0) /* the training scripts' encode_ordinary for training data */
        o->special = bin || o->jsonl || o->lines ? SP_TEXT : SP_TOKEN;
    if (o->doc_sep && (o->jsonl || o->lines || (!bin && o->fmt != FMT_IDS)))
        return opt_usage_error(&CMD, "--doc-sep applies to --format ids, npy, u16, u32 and llmc "
                                     "(with --jsonl each line is a document)");
    if (o->keep.n && bin)
        return opt_usage_error(&CMD, "--keep copies members into JSON lines: not into npy, u16, u32 or llmc");
    if (o->keep_going && bin)
        return opt_usage_error(&CMD, "--keep-going writes error objects into JSON lines: not into npy, u16, u32 "
                                     "or llmc");
    if (o->lossy && ((bin && !o->jsonl && !o->lines) || o->doc_sep))
        return opt_usage_error(&CMD, "--lossy does not apply to npy, u16, u32, llmc or --doc-sep: they read the "
                                     "text as a stream, and invalid UTF-8 is an error there");
    return o->doc_sep ? read_sep(o) : 0;
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
    if (o->jsonl && o->lines)
        return opt_usage_error(&CMD, "give --jsonl or --lines, not both");
    if (o->jsonl && sources)
        return opt_usage_error(&CMD, "--jsonl reads standard input: give no TEXT, -f or '-'");
    if (o->lines && sources)
        return opt_usage_error(&CMD, "--lines reads standard input: give no TEXT, -f or '-'");
    if (!o->jsonl && !o->lines && sources != 1)
        return opt_usage_error(&CMD, sources ? N_("give only one of TEXT, -f FILE or '-'")
                                             : N_("no input: give TEXT, -f FILE or '-'"));
    if (o->keep_going && !o->jsonl && !o->lines)
        return opt_usage_error(&CMD, "--keep-going applies to --jsonl and --lines only");
    if (o->keep.n && !o->jsonl)
        return opt_usage_error(&CMD, "--keep copies members of --jsonl's lines: give --jsonl");
    if (check_keep(o))
        return -1;
    if (o->keep.n > TOKS_JSONL_KEEP_MAX)
        return opt_usage_error(&CMD, "at most 16 --keep members");
    int given = opt_given(&CMD, p, "--format");
    if (o->jsonl || o->lines) { /* JSON lines, or one of the binary formats (JSONL_FORMATS after "jsonl") */
        if (given && !FMT_BINARY(o->fmt))
            return opt_usage_error(&CMD, "--jsonl writes JSON lines, or --format npy, u16, u32 or llmc");
        int f = given ? o->fmt - FMT_NPY + 1 : 0;
        if (out_pick_format(&CMD, o->out, JSONL_FORMATS, given, &f))
            return -1;
        o->fmt = f ? FMT_NPY + f - 1 : FMT_TABLE;
        return check_formats(o);
    }
    size_t ol = o->out ? strlen(o->out) : 0;
    if (given && o->fmt != FMT_JSON && !FMT_BINARY(o->fmt) && ol > 4 && strcasecmp(o->out + ol - 4, ".txt") == 0)
        return check_formats(o); /* .txt holds either text format: --format ids -o ids.txt is no contradiction */
    return out_pick_format(&CMD, o->out, FORMATS, given, &o->fmt) ? -1 : check_formats(o);
}

/* 1 if f is a pipe, a socket or a terminal (then --jsonl flushes every block). */
static int is_stream(FILE *f)
{
    struct stat st;
    int fd = f == stdout ? STDOUT_FILENO : fileno(f); /* stdout may be a cookie stream (out.c) */
    return fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISCHR(st.st_mode));
}

/* A --jsonl run's outcome in one line. Returns 0, 1 (a bad line: every line before it
 * written) or -1. */
static int jsonl_report(int rc, const toks_jsonl *j, const tokenize_opts *o, FILE *f)
{
    if (rc == G2E_ENOMEM && j->line)
        cli_error("out of memory with standard input line %zu", j->line);
    else if (rc == G2E_ENOMEM)
        cli_error("out of memory reading standard input (a line of %zu bytes)", j->pending);
    else if (rc == TOKS_E_READ)
        cli_error("cannot read standard input: %s", strerror(j->sys_errno));
    else if (rc == TOKS_E_PUT)
        return -1; /* (the files' message is the caller's) */
    else if (rc == TOKS_E_WRITE || (f && fflush(f))) /* (the lines before a bad one go out first) */
        cli_error("cannot write the output: %s", strerror(rc == TOKS_E_WRITE ? j->sys_errno : errno)), rc = TOKS_E_WRITE;
    else if (rc == TOKS_STOPPED)
        cli_error("standard input line %zu: %s", j->line, j->msg);
    else if (j->bad)
        cli_note(ngettext("%zu bad line written as an error object",
                               "%zu bad lines written as error objects", j->bad), j->bad);
    if (rc != TOKS_E_PUT)
        note_literals(o, j->eot_text);
    return rc == TOKS_STOPPED || (!rc && j->bad) ? 1 : rc ? -1 : 0;
}

/* --jsonl onto f. Returns 0, 1 (a bad line: every line before it written) or -1. */
static int jsonl_to(gpt2embed_tokenizer *t, const tokenize_opts *o, FILE *f)
{
    toks_jsonl j = {.special = flags_of(o) & ~GPT2EMBED_LOSSY, .lossy = o->lossy, .keep_going = o->keep_going,
                    .plain = o->lines, .keep = o->keep.v, .n_keep = o->keep.n, .max_line = (size_t)o->max_line,
                    .write = write_file, .flush = is_stream(f) ? flush_file : NULL, .user = f};
    return jsonl_report(toks_jsonl_run(t, (unsigned)o->threads, STDIN_FILENO, &j), &j, o, f);
}

/* --jsonl into token files: each line a document. Returns 0, 1 (tokf's failure: w->err) or
 * -1 (a message printed). */
static int jsonl_bin(gpt2embed_tokenizer *t, const tokenize_opts *o, tokf *w)
{
    toks_jsonl j = {.special = flags_of(o) & ~GPT2EMBED_LOSSY, .lossy = o->lossy, .plain = o->lines, .put = tokf_ids,
                    .user = w, .max_line = (size_t)o->max_line};
    out_add_input("standard input", "standard input", STDIN_FILENO);
    int rc = toks_jsonl_run(t, (unsigned)o->threads, STDIN_FILENO, &j);
    return rc == TOKS_E_PUT ? 1 : jsonl_report(rc, &j, o, NULL) ? -1 : 0;
}

/* 1 if --format ids reads the text as a stream (any size, bounded memory): with --doc-sep,
 * from standard input, or from a file too large to map; not with --lossy (the library
 * repairs a whole text). The table and JSON describe every token: they read the text whole
 * (at most 1 GiB). */
static int streams(const tokenize_opts *o, const opt_parsed *p)
{
    struct stat st;
    if (o->fmt != FMT_IDS || o->lossy)
        return 0;
    if (o->sep || (!p->npos && strcmp(o->file, "-") == 0))
        return 1;
    if (p->npos)
        return 0;
    return stat(o->file, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size > TEXTIN_MAX;
}

int cmd_tokenize(int argc, char **argv)
{
    tokenize_opts o = {.progress_after = 1.0, .special = -1, .eot = -1}; /* (-1: a default that depends on the format) */
    opt_parsed p;
    int r = opt_parse(&CMD, argc, argv, &o, &p);
    if (r || check(&o, &p)) {
        opt_free(&p);
        return r ? opt_exit(r) : EXIT_USAGE;
    }
    gpt2embed_tokenizer *t = NULL;
    out_file of = {0};
    int rc = -1;
    if (load_tokenizer(o.dir, &t) != 0)
        t = NULL;
    if (t && FMT_BINARY(o.fmt)) {
        rc = binary_to(t, &o, &p);
    } else if (t && out_open(&of, o.out, 0) == 0) {
        rc = o.jsonl || o.lines ? jsonl_to(t, &o, of.f) : streams(&o, &p) ? ids_stream_to(t, &o, &p, of.f) : whole_to(t, &o, &p, of.f);
        /* a stopped --jsonl keeps the lines before the bad one, in a file too */
        if (rc >= 0 && out_commit(&of))
            rc = -1;
        else if (rc < 0)
            out_abort(&of);
    }
    free(o.sep);
    gpt2embed_tokenizer_close(t);
    opt_free(&p);
    return rc == 0 ? EXIT_OK : EXIT_ERR;
}
