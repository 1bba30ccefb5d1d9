/* SPDX-License-Identifier: MIT */
/* cmd_embed.c — the main job: `gpt2-embed [OPTIONS] TEXT`.
 *
 * Text -> token IDs (gpt2embed_tokenize_ex, tiktoken-exact) -> x[t] = wte[id_t] + wpe[start + t]
 * (gpt2embed_embed_ex, bit-identical to numpy) -> one of five formats. The context limit comes from
 * the weights (n_ctx = wpe rows): a longer input is refused with where the n_ctx-th token
 * ends, unless --truncate or --window says what to do. Position n_ctx is never read.
 *
 * Rows are produced one at a time in output order (part, window, row) and streamed, so a
 * full 1024-token output is never held in memory more than once (npy/raw/csv/json), and
 * every check that can fail runs before the first byte is written. -o FILE goes through
 * out.h: a temporary file and a rename, never a partial file.
 *
 * Deliberately left out: batching several texts (use a shell loop or the library API).
 */
#include "cli.h"
#include "i18n.h"
#include "figures.h"
#include "load.h"
#include "out.h"
#include "render.h"
#include "rows_out.h"
#include "textfmt.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum fmt { F_TABLE, F_JSON, F_NPY, F_CSV, F_RAW };
static const char *const FMT_NAMES[] = {"table", "json", "npy", "csv", "raw", NULL};

typedef struct job {
    /* options (the table below writes them) */
    const char *file, *out, *plot;
    opt_ids ids_opt;       /* --ids (IDs owned by the opt_parsed), or from_stdin */
    load_opts lo;          /* --weights, --model, --tokenizer */
    int bos, truncate, parts, lossy;
    int special;           /* SPECIAL: token, text, error */
    int pe;                /* gpt2embed_pe: learned, sinusoidal */
    const char *pe_scale_arg; /* --pe-scale: a number or "wpe" */
    int fmt;               /* enum fmt */
    uint64_t start, window, stride, show; /* OPT_INT writes int64_t: same object size and, for
                                           * these non-negative ranges, the same value */
    /* from the positionals */
    const char *text_arg;  /* TEXT (several words joined by spaces: `joined`) */
    int from_stdin, have_ids;
    /* data */
    char *joined;          /* several TEXT arguments joined by spaces (owned) */
    char *text;            /* the input text (owned), NULL with --ids */
    size_t text_len;
    uint32_t *stdin_ids;   /* --ids -: the IDs read (owned) */
    size_t n_stdin_ids;
    rows_tokens tk;        /* the tokens, their offsets and characters (rows_out.h) */
    rows_plan plan;        /* rows: tokens, positions, windows */
    gpt2embed_model *m;
    gpt2embed_tokenizer *tok;
    const char *wpath;
    double pe_scale;       /* --pe sinusoidal: the factor of the fixed encoding, else 1 */
    double wte_norm;       /* --pe sinusoidal: mean L2 norm of wte's rows (for the ratio) */
    double wpe_norm;       /* --pe-scale wpe: mean L2 norm of wpe's rows, else 0 */
} job;

static const char *const SPECIAL[] = {"token", "text", "error", NULL}; /* the flags of SPECIAL_FLAGS */
static const unsigned SPECIAL_FLAGS[] = {0, GPT2EMBED_SPECIAL_TEXT, GPT2EMBED_SPECIAL_ERROR};
static const char *const PE[] = {"learned", "sinusoidal", NULL};      /* gpt2embed_pe's order */

static const opt_def OPTS[] = {
    {.name = "--file", .short_name = 'f', .kind = OPT_FILE, .flags = OPTF_STDIN,
     .off = offsetof(job, file), .help = N_("read the text from FILE")},
    {.name = "--ids", .kind = OPT_IDS, .off = offsetof(job, ids_opt), .metavar = "\"ID ...\"",
     .help = N_("token IDs instead of text: \"464 3797\", \"464,3797\", \"[464, 3797]\", or - to read "
                "them from standard input")},
    {.name = "--bos", .kind = OPT_FLAG, .off = offsetof(job, bos),
     .help = N_("prepend <|endoftext|> (ID 50256), as GPT-2 was trained")},
    {.name = "--special", .kind = OPT_CHOICE, .off = offsetof(job, special), .choices = SPECIAL,
     .def = "token", .help = N_("<|endoftext|> in the text: the token (ID 50256), plain text, or an error")},
    {.name = "--lossy", .kind = OPT_FLAG, .off = offsetof(job, lossy),
     .help = N_("replace invalid UTF-8 with U+FFFD instead of failing")},
    {.name = "--start-pos", .kind = OPT_INT, .off = offsetof(job, start), .lo = 0,
     .hi = (int64_t)GPT2EMBED_SINUSOIDAL_MAX_POS, .metavar = "P",
     .help = N_("first position P (as past_length does); P + T must fit n_ctx")},
    {.name = "--truncate", .kind = OPT_FLAG, .off = offsetof(job, truncate),
     .help = N_("keep the first n_ctx tokens of a longer input (noted on stderr)")},
    {.name = "--window", .kind = OPT_INT, .off = offsetof(job, window), .lo = 1,
     .hi = (int64_t)GPT2EMBED_SINUSOIDAL_MAX_POS, .metavar = "W",
     .help = N_("cut the tokens into windows of W <= n_ctx tokens, each from position 0")},
    {.name = "--stride", .kind = OPT_INT, .off = offsetof(job, stride), .lo = 1,
     .hi = (int64_t)GPT2EMBED_SINUSOIDAL_MAX_POS, .metavar = "S",
     .help = N_("--window: a window starts every S tokens (default S = W: no overlap)")},
    {.name = "--pe", .kind = OPT_CHOICE, .off = offsetof(job, pe), .choices = PE, .def = "learned",
     .help = N_("positions from wpe, or the fixed sinusoidal encoding of width n_embd (no context "
                "limit)")},
    {.name = "--pe-scale", .kind = OPT_TEXT, .off = offsetof(job, pe_scale_arg), .metavar = "S|wpe",
     .help = N_("--pe sinusoidal: multiply the fixed encoding by S, or with 'wpe' bring its norm "
                "sqrt(n_embd/2) to the mean norm of wpe's rows (each value times S in double, rounded "
                "once to float32)")},
    {.name = "--format", .kind = OPT_CHOICE, .off = offsetof(job, fmt), .choices = FMT_NAMES,
     .def = "table", .help = N_("raw is little-endian float32; -o FILE's extension picks the format "
                                "when it is not given")},
    {.name = "--output", .short_name = 'o', .kind = OPT_FILE, .off = offsetof(job, out),
     .help = N_("write to FILE (atomically); npy and raw never go to a terminal")},
    {.name = "--parts", .kind = OPT_FLAG, .off = offsetof(job, parts),
     .help = N_("also the token and position vectors: npy (3, T, n_embd) = token, position, sum; "
                "json/csv add them per token")},
    {.name = "--show", .kind = OPT_INT, .off = offsetof(job, show), .lo = 0, .hi = 100000,
     .def = "4", .help = N_("table: how many components of each sum to show")},
    {.name = "--plot", .kind = OPT_FILE, .flags = OPTF_STDIN, .off = offsetof(job, plot),
     .metavar = "FILE.png", .help = N_("draw token, position and sum vectors as colour strips")},
    LOAD_OPT_ROWS(job, lo),
    OPT_END,
};

static const opt_cmd CMD = {
    .name = "embed",
    .synopsis = N_("[OPTIONS] TEXT...\n"
                   "       gpt2-embed [embed] [OPTIONS] -f FILE | -\n"
                   "       gpt2-embed [embed] [OPTIONS] --ids \"15496 995\""),
    .purpose = N_("\nGPT-2's input vectors: x[t] = wte[id_t] + wpe[start + t] (float32, bit-identical to numpy's\n"
                  "wte[ids] + wpe[arange(T)]), what GPT-2 feeds its first block. Several words are joined\n"
                  "by single spaces (quote the text to keep other whitespace); '-' reads standard input.\n\n"
                  "npy shapes: (T, n_embd); with --parts (3, T, n_embd); with --window (windows, W, n_embd)\n"
                  "and (3, windows, W, n_embd), the last window padded with zero rows (marked in json/table).\n"
                  "-o FILE.npy (.json .csv .raw .txt, any case) writes that format. A text that is itself a\n"
                  "command name: gpt2-embed embed -- inspect"),
    .examples = N_("  gpt2-embed \"The cat sat\"\n"
                   "  gpt2-embed \"The cat sat\" -o cat.npy\n"
                   "  gpt2-embed --ids \"[464, 3797]\" --format json\n"
                   "  gpt2-embed -f book.txt --window 1024 -o book.npy\n"),
    .opts = OPTS,
    .min_pos = 0,
    .max_pos = -1,
    .pos_name = "TEXT",
};
const opt_cmd *const cmd_embed_spec = &CMD;

/* --ids -: the same grammar read from standard input. */
static int stdin_ids(job *j)
{
    size_t len;
    char err[200], *s = cli_read_stream(stdin, &len);
    if (!s) {
        cli_error("standard input: %s", strerror(errno));
        return -1;
    }
    int rc = opt_parse_ids(s, len, UINT32_MAX, &j->stdin_ids, &j->n_stdin_ids, err, sizeof err);
    free(s);
    if (rc)
        cli_error("--ids -: standard input: %s", err);
    return rc;
}

static int read_input(job *j)
{
    if (j->have_ids)
        return j->ids_opt.from_stdin ? stdin_ids(j) : 0;
    if (j->from_stdin || (j->file && strcmp(j->file, "-") == 0)) {
        if (!(j->text = cli_read_stream(stdin, &j->text_len)))
            cli_error("%s: %s", _("standard input"), strerror(errno));
    } else if (j->file) {
        j->text = cli_read_file(j->file, "text file", &j->text_len);
    } else if ((j->text = strdup(j->text_arg)) != NULL) {
        j->text_len = strlen(j->text);
    } else {
        cli_error("out of memory");
    }
    return j->text ? 0 : -1;
}

/* Text (or IDs) -> the tokens with their characters (rows_out.h); the IDs checked against
 * the vocabulary before anything is made of them. */
static int tokenize(job *j)
{
    if (!j->text) {
        g2e_err e;
        if (rows_tokens_ids(&j->tk, j->tok, j->ids_opt.from_stdin ? j->stdin_ids : j->ids_opt.v,
                            j->ids_opt.from_stdin ? j->n_stdin_ids : j->ids_opt.n, &e)) {
            cli_error("%s", e.msg);
            return -1;
        }
    } else {
        gpt2embed_error e;
        int rc = rows_tokens_text(&j->tk, j->tok, j->text, j->text_len,
                                  SPECIAL_FLAGS[j->special] | (j->lossy ? GPT2EMBED_LOSSY : 0), j->bos, &e);
        if (rc) {
            cli_error("%s%s", e.message, rc == GPT2EMBED_E_UTF8 ? _(CLI_LOSSY_HINT) : "");
            return -1;
        }
    }
    size_t V = gpt2embed_n_vocab(j->m);
    for (size_t t = 0; t < j->tk.T; t++)
        if (j->tk.ids[t] >= V) {
            cli_error("token ID %u at index %zu is outside the vocabulary (0..%zu)", j->tk.ids[t], t, V - 1);
            return -1;
        }
    return 0;
}

/* The mean L2 norm of wte's or wpe's rows into *out; -1 after an error line. */
static int mean_norm(const gpt2embed_model *m, gpt2embed_table which, double *out)
{
    gpt2embed_stats st;
    gpt2embed_error e;
    if (gpt2embed_table_stats(m, which, &st, &e)) {
        cli_error("%s", e.message);
        return -1;
    }
    *out = st.norm_mean;
    return 0;
}

/* --pe-scale: the factor (a number, or wpe's mean norm over sqrt(n_embd/2)), and wte's mean
 * norm for the statement of the ratio. -1 after an error line. */
static int setup_pe(job *j)
{
    j->pe_scale = 1.0;
    if (j->pe != GPT2EMBED_PE_SINUSOIDAL)
        return 0;
    size_t C = gpt2embed_n_embd(j->m);
    double s = 1.0;
    /* wte's mean norm is one pass over all of wte (about 0.1 s for gpt2): only when the
     * statement is printed (table, JSON, a figure, or a scale asked for) */
    int stated = j->fmt == F_TABLE || j->fmt == F_JSON || j->pe_scale_arg;
    if (stated && mean_norm(j->m, GPT2EMBED_WTE, &j->wte_norm))
        return -1;
    if (j->pe_scale_arg && strcmp(j->pe_scale_arg, "wpe") == 0) {
        if (mean_norm(j->m, GPT2EMBED_WPE, &j->wpe_norm))
            return -1;
        s = j->wpe_norm / sqrt((double)C / 2.0);
        if (!(s > 0)) {
            cli_error("--pe-scale wpe: this file's wpe rows are all zero, so there is no scale to match");
            return -1;
        }
    } else if (j->pe_scale_arg) {
        s = strtod(j->pe_scale_arg, NULL);   /* checked in check() */
    }
    gpt2embed_error e;   /* the checks alone: no IDs, no rows */
    if (gpt2embed_embed_ex(j->m, NULL, 0, 0, GPT2EMBED_PE_SINUSOIDAL, s, NULL, NULL, NULL, &e)) {
        cli_error("--pe-scale %s: %s", j->pe_scale_arg, e.message);
        return -1;
    }
    j->pe_scale = s;
    return 0;
}

/* The rows of the first T tokens (embed.h's plan); -1 after an error line. */
static int make_plan(job *j, size_t T)
{
    g2e_err e;
    if (rows_plan_make(&j->plan, T, (size_t)j->start, (size_t)j->window, (size_t)j->stride, &e)) {
        cli_error("%s", e.msg);
        return -1;
    }
    return 0;
}

/* The context limit: refuse (with where the n_ctx-th token ends), truncate, or plan windows. */
static int fit_context(job *j)
{
    size_t ctx = j->pe == GPT2EMBED_PE_SINUSOIDAL ? (size_t)GPT2EMBED_SINUSOIDAL_MAX_POS : gpt2embed_n_ctx(j->m),
           T = j->tk.T;
    if (j->window && j->pe == GPT2EMBED_PE_LEARNED && j->window > ctx) {
        cli_error("--window %llu is larger than the context: wpe has %zu rows", (unsigned long long)j->window, ctx);
        return -1;
    }
    if (!j->window && (j->start > ctx || T > ctx - j->start)) {
        size_t fit = j->start > ctx ? 0 : ctx - (size_t)j->start;
        if (j->truncate && fit > 0) {
            char where[ROWS_WHERE_MAX] = "";
            rows_where(&j->tk, fit, 0, 1, where, sizeof where);
            cli_note("the input has %zu tokens; --truncate keeps the first %zu%s", T, fit, where);
            return make_plan(j, fit);
        }
        if (j->pe == GPT2EMBED_PE_SINUSOIDAL) {   /* its limit is exactness, not a table's rows */
            cli_error("%zu tokens from --start-pos %llu reach position %llu, but the sinusoidal encoding is "
                      "exact only for positions 0..%zu (2^53 - 1)", T, (unsigned long long)j->start,
                      (unsigned long long)j->start + T - 1, ctx - 1);
            return -1;
        }
        if (fit == 0) {
            cli_error("--start-pos %llu leaves no room: wpe has only %zu rows (positions 0..%zu)",
                      (unsigned long long)j->start, ctx, ctx - 1);
            return -1;
        }
        char where[ROWS_WHERE_MAX];
        rows_where(&j->tk, fit, (size_t)j->start + fit - 1, 0, where, sizeof where);
        char *sin_caveat = rows_pe_caveat(j->m, j->wte_norm);
        cli_error("the input has %zu tokens%s but wpe has only %zu rows (positions 0..%zu), so %zu fit%s; "
                  "%s; use --truncate to keep the first %zu, or --window %zu [--stride S] to embed it in "
                  "windows; --pe sinusoidal has no limit, but GPT-2 was not trained with it, and %s",
                  T, j->bos ? _(" (with --bos)") : "", ctx, ctx - 1, fit,
                  j->start ? _(" after --start-pos") : "", where, fit, ctx,
                  sin_caveat ? sin_caveat : _("(out of memory)"));
        free(sin_caveat);
        return -1;
    }
    return make_plan(j, T);
}

/* The document's description of j's rows (rows_out.h). */
static rows_doc doc_of(const job *j)
{
    return (rows_doc){.m = j->m, .pe = (gpt2embed_pe)j->pe, .pe_scale = j->pe_scale, .plan = &j->plan,
                      .tok = &j->tk, .tz = j->tok, .weights = j->wpath, .parts = j->parts,
                      .show = (size_t)j->show, .wte_norm = j->wte_norm, .wpe_norm = j->wpe_norm};
}

/* The strips figure for the first window (at most 4096 tokens). */
static int draw(const job *j)
{
    size_t C = gpt2embed_n_embd(j->m), R = j->plan.W < 4096 ? j->plan.W : 4096, n = 0;
    if (R == 0) {
        cli_error("--plot: no tokens to draw");
        return -1;
    }
    float *data = malloc(3 * R * C * sizeof *data);
    char **labels = calloc(R, sizeof *labels);
    int rc = -1;
    g2e_err e;
    rows_doc d = doc_of(j);
    if (!data || !labels || rows_strips(&d, R, data, labels, &n, &e)) {
        cli_error("%s", data && labels ? e.msg : "out of memory");
        goto done;
    }
    static const char *const names[3] = {N_("token vector wte[id]"), N_("position vector"),
                                         N_("sum (model input)")};
    /* One colour range for all three, clipped at 4 x the median |x| (about the 99th
     * percentile of a normal spread): robust to an outlier row such as GPT-2's position 0,
     * which may be a large share of the values of a short text, so that it does not wash
     * the other rows out. */
    double q = fig_abs_percentile(data, 3 * n * C, 50.0);
    if (q < 0)
        goto done;
    q *= 4.0;
    char *title = textfmt_printf(_("GPT-2 embedding step: token + position = input (%s, n_embd %zu; colours clipped at \xC2\xB1%.3g = 4 x median |x|)"),
                                 gpt2embed_model_name(j->m) ? gpt2embed_model_name(j->m) : _("model"), C, q);
    if (!title) {
        cli_error("out of memory");
        goto done;
    }
    const float *parts[3] = {data, data + n * C, data + 2 * n * C};
    const char *shown_names[3] = {gettext(names[0]), gettext(names[1]), gettext(names[2])};
    render_strips s = {.n_rows = n, .dim = C, .n_strips = 3, .data = parts, .strip_names = shown_names,
                       .ops = "+=", .labels = (const char *const *)labels, .title = title,
                       .vmin = -q, .vmax = q};
    render_png png;
    g2e_err err;
    g2e_clear(&err);
    rc = fig_write(render_strips_png(&s, &png, &err), &png, &err, j->plot);
    free(title);
done:
    for (size_t r = 0; labels && r < R; r++)
        free(labels[r]);
    free(labels);
    free(data);
    return rc;
}

/* The positionals: TEXT words (joined by single spaces, as `tokenize` does; quote the text
 * to keep other whitespace) or '-' for standard input. */
static int take_positionals(job *j, const opt_parsed *p)
{
    size_t len = 0;
    int words = 0;
    for (int k = 0; k < p->npos; k++) {
        if (strcmp(p->pos[k], "-") == 0) {
            if (j->from_stdin)
                return opt_usage_error(&CMD, "'-' given twice");
            j->from_stdin = 1;
            continue;
        }
        len += strlen(p->pos[k]) + 1;
        words++;
        j->text_arg = p->pos[k];
        cli_text_names_file(p->pos[k], 1);
    }
    if (words < 2)
        return 0;
    char *o = j->joined = malloc(len);
    if (!o) {
        cli_error("out of memory");
        return -1;
    }
    for (int k = 0, first = 1; k < p->npos; k++)
        if (strcmp(p->pos[k], "-") != 0) {
            o += sprintf(o, "%s%s", first ? "" : " ", p->pos[k]);
            first = 0;
        }
    j->text_arg = j->joined;
    return 0;
}

/* The checks of combinations, after parsing. -1 after one usage line. */
static int check(job *j, const opt_parsed *p)
{
    j->have_ids = opt_given(&CMD, p, "--ids");
    int sources = (j->text_arg != NULL) + (j->file != NULL) + j->have_ids + j->from_stdin;
    if (sources != 1)
        return opt_usage_error(&CMD, sources ? N_("give one input: TEXT, -f FILE, - (standard input) or --ids")
                                             : N_("nothing to embed: give TEXT, -f FILE, - or --ids (see gpt2-embed --help)"));
    if (j->truncate && j->window)
        return opt_usage_error(&CMD, "--truncate and --window do not go together");
    if (j->window && j->start)
        return opt_usage_error(&CMD, "--window positions every window from 0: drop --start-pos");
    if (j->stride && !j->window)
        return opt_usage_error(&CMD, "--stride goes with --window");
    if (j->window && !j->stride)
        j->stride = j->window;
    if (j->stride > j->window)
        return opt_usage_error(&CMD, "--stride %llu is larger than --window %llu: tokens would be skipped",
                               (unsigned long long)j->stride, (unsigned long long)j->window);
    if (j->have_ids && (j->bos || j->lossy || j->special != 0))
        return opt_usage_error(&CMD, "--bos, --lossy and --special apply to text, not to --ids (add 50256 "
                                     "to the IDs for <|endoftext|>)");
    if (out_pick_format(&CMD, j->out, FMT_NAMES, opt_given(&CMD, p, "--format"), &j->fmt))
        return -1;
    if (j->pe_scale_arg && j->pe != GPT2EMBED_PE_SINUSOIDAL)
        return opt_usage_error(&CMD, "--pe-scale scales the fixed encoding: add --pe sinusoidal (wpe's "
                                     "rows are used as trained)");
    if (j->pe_scale_arg && strcmp(j->pe_scale_arg, "wpe") != 0) {
        char *end;
        double s = strtod(j->pe_scale_arg, &end);
        if (end == j->pe_scale_arg || *end || !isfinite(s) || !(s > 0) || s > GPT2EMBED_PE_SCALE_MAX)
            return opt_usage_error(&CMD, "--pe-scale needs a number greater than 0 and at most %g, or "
                                         "'wpe', got '%s'", GPT2EMBED_PE_SCALE_MAX, j->pe_scale_arg);
    }
    if (j->fmt == F_TABLE && j->parts)
        return opt_usage_error(&CMD, "--parts goes with json, npy, csv or raw (the table shows the norms "
                                     "of all three)");
    return 0;
}

/* Parses and checks into j; 0, or the exit status. */
static int parse_args(job *j, int argc, char **argv, opt_parsed *p)
{
    int r = opt_parse(&CMD, argc, argv, j, p);
    if (r)   /* --help printed: -1 so that the caller stops (opt_exit(1) is EXIT_OK, 0) */
        return opt_exit(r) ? opt_exit(r) : -1;
    if (take_positionals(j, p) || check(j, p))
        return EXIT_USAGE;
    return 0;
}

/* Everything that can fail on the user's input, before any output is opened: the input,
 * the model and tokenizer, the IDs, the positional encoding and the context fit.
 * -1 after one error line. */
static int prepare(job *j)
{
    if (read_input(j) || load_model(&j->lo, &j->m) || load_tokenizer(j->lo.tokenizer, &j->tok))
        return -1;
    j->wpath = gpt2embed_model_path(j->m);
    if (tokenize(j))
        return -1;
    gpt2embed_error e;   /* the encoding's own checks (an odd width has no pairs) */
    if (j->pe == GPT2EMBED_PE_SINUSOIDAL &&
        gpt2embed_embed_ex(j->m, NULL, 0, 0, GPT2EMBED_PE_SINUSOIDAL, 1.0, NULL, NULL, NULL, &e)) {
        cli_error("--pe sinusoidal: %s", e.message);
        return -1;
    }
    if (setup_pe(j))
        return -1;
    return fit_context(j);
}

/* Writes the data in j->fmt to -o (or standard output), atomically; -1 after one error line. */
static int write_output(const job *j)
{
    rows_doc d = doc_of(j);
    out_file o = {0};
    g2e_err e;
    if (out_open(&o, j->out, j->fmt == F_NPY || j->fmt == F_RAW))
        return -1;
    if (rows_write(o.f, j->fmt, &d, &e)) {
        cli_error("%s", e.msg);
        out_abort(&o);
        return -1;
    }
    return out_commit(&o) ? -1 : 0;
}

static void job_free(job *j, opt_parsed *p)
{
    opt_free(p);
    free(j->joined);
    free(j->text);
    free(j->stdin_ids);
    rows_tokens_free(&j->tk);
    gpt2embed_tokenizer_close(j->tok);
    gpt2embed_model_close(j->m);
}

int cmd_embed(int argc, char **argv)
{
    job j;
    memset(&j, 0, sizeof j);
    j.show = 4;
    opt_parsed p;
    int rc = parse_args(&j, argc, argv, &p);
    if (rc) {
        opt_free(&p);
        free(j.joined);
        return rc < 0 ? EXIT_OK : rc;
    }
    rc = EXIT_ERR;
    if (prepare(&j))
        goto done;
    if (j.plot && draw(&j))
        goto done;
    int plot_only = j.plot && !j.out && j.fmt == F_TABLE;
    /* npy, raw and csv hold numbers only: a scale asked for is stated beside them (without
     * --pe-scale a data file gets no note); a figure alone gets it always */
    if (j.pe == GPT2EMBED_PE_SINUSOIDAL &&
        (plot_only || (j.pe_scale_arg && j.fmt != F_TABLE && j.fmt != F_JSON))) {
        rows_doc d = doc_of(&j);
        char *st = rows_pe_statement(&d);
        cli_note("%s", st ? st : _("(out of memory)"));
        free(st);
    }
    if (plot_only)
        rc = EXIT_OK;   /* --plot alone: the figure is the output */
    else if (write_output(&j) == 0)
        rc = EXIT_OK;
done:
    job_free(&j, &p);
    return rc;
}
