/* SPDX-License-Identifier: MIT */
/* cmd_embed.c — the main job: `gpt2-embed [OPTIONS] TEXT`.
 *
 * Text -> token IDs (tokenizer.h, tiktoken-exact) -> x[t] = wte[id_t] + wpe[start + t]
 * (embed.h, bit-identical to numpy) -> one of five formats. The context limit comes from
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
#include "json.h"
#include "embed.h"
#include "figures.h"
#include "load.h"
#include "npy.h"
#include "out.h"
#include "render.h"
#include "similarity.h"
#include "textpos.h"
#include "tokchars.h"

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
    int special;           /* tok_special: token, text, error */
    int pe;                /* embed_pe: learned, sinusoidal */
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
    uint32_t *ids;         /* (T,) owned */
    size_t *offs;          /* (T + 1,) byte offsets of each token in text, or NULL */
    tokchars_span *spans;  /* (T,) the characters behind each token (tokchars.h), or NULL */
    char *ids_text;        /* --ids: the IDs' pieces one after another (owned), which spans
                            * then describe, for display only (JSON offsets are the input's) */
    size_t T;
    size_t n_windows, W;   /* windows mode: W rows each; else 1 window of T rows */
    g2e_model *m;
    char *wpath;
    tok_tokenizer *tok;
    embed_ctx ec;
    double wte_norm;       /* --pe sinusoidal: mean L2 norm of wte's rows (for the ratio) */
    double wpe_norm;       /* --pe-scale wpe: mean L2 norm of wpe's rows, else 0 */
} job;

static const char *const SPECIAL[] = {"token", "text", "error", NULL}; /* tok_special's order */
static const char *const PE[] = {"learned", "sinusoidal", NULL};      /* embed_pe's order */

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
     .hi = (int64_t)SIN_MAX_POS, .metavar = "P",
     .help = N_("first position P (as past_length does); P + T must fit n_ctx")},
    {.name = "--truncate", .kind = OPT_FLAG, .off = offsetof(job, truncate),
     .help = N_("keep the first n_ctx tokens of a longer input (noted on stderr)")},
    {.name = "--window", .kind = OPT_INT, .off = offsetof(job, window), .lo = 1,
     .hi = (int64_t)SIN_MAX_POS, .metavar = "W",
     .help = N_("cut the tokens into windows of W <= n_ctx tokens, each from position 0")},
    {.name = "--stride", .kind = OPT_INT, .off = offsetof(job, stride), .lo = 1,
     .hi = (int64_t)SIN_MAX_POS, .metavar = "S",
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

/* --ids: the parsed list, or the same grammar read from standard input. */
static int take_ids(job *j)
{
    if (!j->ids_opt.from_stdin) {
        size_t n = j->ids_opt.n;
        j->ids = malloc((n ? n : 1) * sizeof *j->ids);
        if (!j->ids) {
            cli_error("out of memory");
            return -1;
        }
        if (n)
            memcpy(j->ids, j->ids_opt.v, n * sizeof *j->ids);
        j->T = n;
        return 0;
    }
    size_t len;
    char err[200], *s = cli_read_stream(stdin, &len);
    if (!s) {
        cli_error("standard input: %s", strerror(errno));
        return -1;
    }
    int rc = opt_parse_ids(s, len, UINT32_MAX, &j->ids, &j->T, err, sizeof err);
    free(s);
    if (rc)
        cli_error("--ids -: standard input: %s", err);
    return rc;
}

/* Reads all of a stream into j->text. */
static int read_all(job *j, FILE *f, const char *name)
{
    j->text = cli_read_stream(f, &j->text_len);
    if (!j->text) {
        cli_error("%s: %s", name, strerror(errno));
        return -1;
    }
    return 0;
}

static int read_input(job *j)
{
    if (j->have_ids)
        return take_ids(j);
    if (j->from_stdin || (j->file && strcmp(j->file, "-") == 0))
        return read_all(j, stdin, "standard input");
    if (j->file)
        return (j->text = cli_read_file(j->file, "text file", &j->text_len)) ? 0 : -1;
    j->text_len = strlen(j->text_arg);
    j->text = malloc(j->text_len + 1);
    if (!j->text) {
        cli_error("out of memory");
        return -1;
    }
    memcpy(j->text, j->text_arg, j->text_len + 1);
    return 0;
}

/* --ids: the characters behind the tokens are those of the IDs' bytes one after another (what
 * `decode` gives), so that "163 232 105" shows 犬 (1/3), 犬 (2/3), 犬 (3/3) too. */
static int ids_spans(job *j)
{
    size_t len = 0, *offs = malloc((j->T + 1) * sizeof *offs);
    const uint8_t *b;
    size_t n;
    for (size_t t = 0; offs && t < j->T; t++) {
        offs[t] = len;
        len += tok_piece(j->tok, j->ids[t], &b, &n, NULL) == 0 ? n : 0;
    }
    j->ids_text = offs ? malloc(len + 1) : NULL;
    j->spans = malloc((j->T ? j->T : 1) * sizeof *j->spans);
    int rc = -1;
    if (j->ids_text && j->spans) {
        offs[j->T] = len;
        for (size_t t = 0; t < j->T; t++)
            if (tok_piece(j->tok, j->ids[t], &b, &n, NULL) == 0)
                memcpy(j->ids_text + offs[t], b, n);
        j->ids_text[len] = '\0';
        rc = tokchars_spans(j->ids_text, len, offs, j->T, j->spans, NULL);
    }
    free(offs);
    if (rc) {   /* display only: without it the pieces are shown as they are */
        free(j->spans);
        j->spans = NULL;
    }
    return 0;
}

static int tokenize(job *j)
{
    if (!j->text)
        return ids_spans(j);
    tok_ids r;
    g2e_err e;
    if (tok_encode(j->tok, j->text, j->text_len, j->special, j->lossy ? TOK_LOSSY : 0, &r, NULL, &e)) {
        cli_error("%s%s", e.msg, e.code == TOK_E_UTF8 ? " (--lossy replaces invalid bytes with U+FFFD)" : "");
        return -1;
    }
    size_t extra = j->bos ? 1 : 0;
    j->ids = malloc((r.n + extra + 1) * sizeof *j->ids);
    j->offs = malloc((r.n + extra + 1) * sizeof *j->offs);
    if (!j->ids || !j->offs) {
        tok_ids_free(&r);
        cli_error("out of memory");
        return -1;
    }
    if (extra) {
        j->ids[0] = TOK_ENDOFTEXT;
        j->offs[0] = 0;
    }
    if (r.n)
        memcpy(j->ids + extra, r.ids, r.n * sizeof *r.ids);
    for (size_t i = 0; i <= r.n; i++)
        j->offs[i + extra] = r.offsets ? r.offsets[i] : 0;
    j->T = r.n + extra;
    tok_ids_free(&r);
    j->spans = malloc((j->T ? j->T : 1) * sizeof *j->spans);
    if (!j->spans || tokchars_spans(j->text, j->text_len, j->offs, j->T, j->spans, &e)) {
        cli_error("%s", j->spans ? e.msg : "out of memory");
        return -1;
    }
    return 0;
}

/* "st", "nd", "rd" or "th" after n. */
static const char *ordinal(size_t n)
{
    if (n % 100 >= 11 && n % 100 <= 13)
        return "th";
    return n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
}

/* The mean L2 norm of wte's (which 0) or wpe's (1) rows into *out; -1 after an error line. */
static int mean_norm(const g2e_model *m, int which, double *out)
{
    sim_stats st;
    g2e_err e;
    if (sim_stats_of(m, which, &st, &e)) {
        cli_error("%s", e.msg);
        return -1;
    }
    *out = st.norm_mean;
    return 0;
}

/* How large the fixed encoding is against the token vectors, for the over-limit message:
 * its rows have norm exactly sqrt(n_embd / 2) (sin^2 + cos^2 = 1 in each of n_embd/2 pairs). */
static void sinusoid_caveat(const job *j, char *buf, size_t cap)
{
    size_t C = j->m->n_embd;
    double pe = sqrt((double)C / 2.0), tok = j->wte_norm;
    sim_stats st;
    if (tok <= 0 && sim_stats_of(j->m, 0, &st, NULL) == 0)   /* silent: the error is one line */
        tok = st.norm_mean;
    if (tok > 0 && pe / tok >= 2.0)   /* the chapter's warning: position swamps meaning */
        snprintf(buf, cap, _("its vectors (norm sqrt(%zu/2) = %.1f) are %.1f times as long as this model's "
                 "token vectors (mean norm %.2f), so they drown the meaning; --pe-scale wpe scales them "
                 "to wpe's size"), C, pe, pe / tok, tok);
    else if (tok > 0)
        snprintf(buf, cap, _("its vectors (norm sqrt(%zu/2) = %.1f) are %.1f times as long as this model's "
                 "token vectors (mean norm %.2f); --pe-scale wpe scales them to wpe's size"),
                 C, pe, pe / tok, tok);
    else
        snprintf(buf, cap, _("its vectors have norm sqrt(%zu/2) = %.1f (this file's token vectors are all "
                 "zero); --pe-scale wpe scales them to wpe's size"), C, pe);
}

/* --pe-scale: the factor (a number, or wpe's mean norm over sqrt(n_embd/2)) into the embed
 * context, and wte's mean norm for the statement of the ratio. -1 after an error line. */
static int setup_pe(job *j)
{
    if (j->pe != EMBED_PE_SINUSOIDAL)
        return 0;
    size_t C = j->m->n_embd;
    double s = 1.0;
    /* wte's mean norm is one pass over all of wte (about 0.1 s for gpt2): only when the
     * statement is printed (table, JSON, a figure, or a scale asked for) */
    int stated = j->fmt == F_TABLE || j->fmt == F_JSON || j->pe_scale_arg;
    if (stated && mean_norm(j->m, 0, &j->wte_norm))
        return -1;
    if (j->pe_scale_arg && strcmp(j->pe_scale_arg, "wpe") == 0) {
        if (mean_norm(j->m, 1, &j->wpe_norm))
            return -1;
        s = j->wpe_norm / sqrt((double)C / 2.0);
        if (!(s > 0)) {
            cli_error("--pe-scale wpe: this file's wpe rows are all zero, so there is no scale to match");
            return -1;
        }
    } else if (j->pe_scale_arg) {
        s = strtod(j->pe_scale_arg, NULL);   /* checked in check() */
    }
    g2e_err e;
    if (embed_set_pe_scale(&j->ec, s, &e)) {
        cli_error("--pe-scale %s: %s", j->pe_scale_arg, e.msg);
        return -1;
    }
    return 0;
}

/* The statement of the fixed encoding's scale (no newline), for the table's summary, the JSON
 * reader (as members) and a note beside npy/raw/csv output. */
static void pe_statement(const job *j, char *buf, size_t cap)
{
    size_t C = j->m->n_embd;
    double s = j->ec.pe_scale, pe = s * sqrt((double)C / 2.0);
    int o = 0;
    if (s != 1.0 && j->wpe_norm > 0)
        o = snprintf(buf, cap, _("sinusoidal positions scaled by %.6g (--pe-scale wpe: mean |wpe| %.4f / "
                     "sqrt(%zu/2)), each value in double, rounded once to float32: |PE| = %.4f"), s,
                     j->wpe_norm, C, pe);
    else if (s != 1.0)
        o = snprintf(buf, cap, _("sinusoidal positions scaled by %.6g (--pe-scale), each value in double, "
                     "rounded once to float32: |PE| = %.6g x sqrt(%zu/2) = %.4f"), s, s, C, pe);
    else
        o = snprintf(buf, cap, _("sinusoidal positions, not what GPT-2 was trained with: |PE| = sqrt(%zu/2) "
                     "= %.4f"), C, pe);
    if (o < 0 || (size_t)o >= cap)
        return;
    if (j->wte_norm > 0)
        snprintf(buf + o, cap - (size_t)o, _(", %.2f times the mean |wte| row (%.4f)%s"), pe / j->wte_norm,
                 j->wte_norm, s == 1.0 ? _("; --pe-scale wpe brings it to wpe's size") : "");
    else
        snprintf(buf + o, cap - (size_t)o, _(" (this file's wte rows are all zero)"));
}

/* The context limit: refuse (with where the n_ctx-th token ends), truncate, or plan windows. */
static int fit_context(job *j)
{
    size_t ctx = embed_max_positions(j->m, j->pe);
    if (j->window) {
        if (j->pe == EMBED_PE_LEARNED && j->window > ctx) {
            cli_error("--window %llu is larger than the context: wpe has %zu rows", (unsigned long long)j->window, ctx);
            return -1;
        }
        g2e_err e;
        size_t pad;
        if (embed_windows(j->T, (size_t)j->window, (size_t)j->stride, &j->n_windows, &e) ||
            embed_window_padding(j->T, (size_t)j->window, (size_t)j->stride, &pad, &e)) {
            cli_error("%s", e.msg);
            return -1;
        }
        j->W = (size_t)j->window;
        return 0;
    }
    j->n_windows = 1;
    if (j->start > ctx || j->T > ctx - j->start) {
        size_t fit = j->start > ctx ? 0 : ctx - (size_t)j->start;
        if (j->truncate && fit > 0) {
            char where[TEXTPOS_SNIPPET_MAX + 128] = "";
            if (j->offs) {
                textpos tp;
                textpos_at(j->text, j->text_len, j->offs[fit], &tp);
                snprintf(where, sizeof where, _(" (up to character %zu, line %zu: %s)"), tp.chr, tp.line, tp.snippet);
            }
            cli_note("the input has %zu tokens; --truncate keeps the first %zu%s", j->T, fit, where);
            j->T = fit;
            j->W = fit;
            return 0;
        }
        if (j->pe == EMBED_PE_SINUSOIDAL) {   /* its limit is exactness, not a table's rows */
            cli_error("%zu tokens from --start-pos %llu reach position %llu, but the sinusoidal encoding is "
                      "exact only for positions 0..%zu (2^53 - 1)", j->T, (unsigned long long)j->start,
                      (unsigned long long)j->start + j->T - 1, ctx - 1);
            return -1;
        }
        char where[TEXTPOS_SNIPPET_MAX + 160];
        if (fit == 0) {
            cli_error("--start-pos %llu leaves no room: wpe has only %zu rows (positions 0..%zu)",
                      (unsigned long long)j->start, ctx, ctx - 1);
            return -1;
        }
        size_t last = (size_t)j->start + fit - 1; /* the position of the last token that fits */
        if (j->offs) {
            textpos tp;
            textpos_at(j->text, j->text_len, j->offs[fit], &tp);
            /* tp is where the next character starts: the last one inside is just before it (at
             * the end of the line before when the next one starts a line) */
            if (tp.col > 1)
                snprintf(where, sizeof where, _("the %zu%s token (position %zu) ends at character %zu "
                         "(line %zu, column %zu): %s"), fit, ordinal(fit), last, tp.chr, tp.line,
                         tp.col - 1, tp.snippet);
            else
                snprintf(where, sizeof where, _("the %zu%s token (position %zu) ends at character %zu "
                         "(the end of line %zu): %s"), fit, ordinal(fit), last, tp.chr,
                         tp.line > 1 ? tp.line - 1 : 1, tp.snippet);
        } else {
            snprintf(where, sizeof where, _("the %zu%s ID (position %zu) is %u"), fit, ordinal(fit), last,
                     j->ids[fit - 1]);
        }
        char sin_caveat[256];
        sinusoid_caveat(j, sin_caveat, sizeof sin_caveat);
        cli_error("the input has %zu tokens%s but wpe has only %zu rows (positions 0..%zu), so %zu fit%s; "
                  "%s; use --truncate to keep the first %zu, or --window %zu [--stride S] to embed it in "
                  "windows; --pe sinusoidal has no limit, but GPT-2 was not trained with it, and %s",
                  j->T, j->bos ? _(" (with --bos)") : "", ctx, ctx - 1, fit,
                  j->start ? _(" after --start-pos") : "", where, fit, ctx, sin_caveat);
        return -1;
    }
    j->W = j->T;
    return 0;
}

/* One row of the output: part 0 token, 1 position, 2 sum; window w, row r. buf holds 3 rows
 * (token, position, sum); *out points at the part asked for. Returns 1 for a padding row
 * (zeros), 0 for a real one, -1 on error (printed). */
static int get_row(const job *j, int part, size_t w, size_t r, float *buf, const float **out)
{
    size_t C = j->m->n_embd;
    size_t t = j->window ? w * (size_t)j->stride + r : r;
    *out = buf + (size_t)part * C;
    if (t >= j->T) {
        memset(buf, 0, 3 * C * sizeof *buf);
        return 1;
    }
    size_t position = j->window ? r : (size_t)j->start + t;
    g2e_err e;
    if (embed_row(&j->ec, j->ids[t], position, buf + 2 * C, buf, buf + C, &e)) {
        cli_error("%s", e.msg);
        return -1;
    }
    return 0;
}

static size_t rows_per_window(const job *j)
{
    return j->window ? j->W : j->T;
}

/* The token index of window w, row r (or SIZE_MAX for padding). */
static size_t token_at(const job *j, size_t w, size_t r)
{
    size_t t = j->window ? w * (size_t)j->stride + r : r;
    return t < j->T ? t : SIZE_MAX;
}

static int write_binary(const job *j, FILE *f, int npy)
{
    size_t C = j->m->n_embd, R = rows_per_window(j);
    size_t shape[4], nd = 0;
    if (j->parts) shape[nd++] = 3;
    if (j->window) shape[nd++] = j->n_windows;
    shape[nd++] = R;
    shape[nd++] = C;
    npy_writer nw;
    g2e_err e;
    if (npy && npy_writer_begin(&nw, f, shape, (int)nd, &e)) {
        cli_error("%s", e.msg);
        return -1;
    }
    float *row = malloc(3 * C * sizeof *row);
    if (!row) {
        cli_error("out of memory");
        return -1;
    }
    int rc = 0;
    for (int p = j->parts ? 0 : 2; p < 3 && rc == 0; p++)
        for (size_t w = 0; w < j->n_windows && rc == 0; w++)
            for (size_t r = 0; r < R && rc == 0; r++) {
                const float *v;
                if (get_row(j, p, w, r, row, &v) < 0)
                    rc = -1;
                else if (npy ? npy_writer_put(&nw, v, C, &e) != 0 : fwrite(v, sizeof *v, C, f) != C) {
                    if (npy) cli_error("%s", e.msg);
                    rc = npy ? -1 : 1;   /* raw: the stream's error is reported by out_commit */
                }
            }
    if (rc == 0 && npy && npy_writer_end(&nw, &e)) {
        cli_error("%s", e.msg);
        rc = -1;
    }
    free(row);
    return rc < 0 ? -1 : 0;
}

/* How token t is shown in the table and the strips (caller frees; NULL if out of memory):
 * its piece made visible, or, when it holds part of a character, that character and its
 * share ("犬 (1/3)", tokchars.h). */
static void piece(const job *j, size_t t, const uint8_t **b, size_t *n);
static char *shown(const job *j, size_t t)
{
    if (j->spans && (j->spans[t].head.n || j->spans[t].tail.n))
        return tokchars_display_alloc(j->text ? j->text : j->ids_text, &j->spans[t]);
    const uint8_t *b;
    size_t n;
    piece(j, t, &b, &n);
    return out_piece_visible((const char *)b, n);
}

static void piece(const job *j, size_t t, const uint8_t **b, size_t *n)
{
    if (tok_piece(j->tok, j->ids[t], b, n, NULL) != 0) {
        *b = (const uint8_t *)"";
        *n = 0;
    }
}

static void json_vec(FILE *f, const float *v, size_t C)
{
    fputc('[', f);
    for (size_t c = 0; c < C; c++) {
        if (c) fputs(", ", f);
        json_write_f32(f, v[c]);
    }
    fputc(']', f);
}

static int write_json(const job *j, FILE *f)
{
    size_t C = j->m->n_embd, R = rows_per_window(j);
    float *buf = malloc(3 * C * sizeof *buf);
    if (!buf) {
        cli_error("out of memory");
        return -1;
    }
    float *tok = buf, *pos = buf + C, *sum = buf + 2 * C;
    fprintf(f, "{\"model\": {\"name\": \"%s\", \"weights\": ", j->m->size_name ? j->m->size_name : "unknown");
    out_json_string(f, j->wpath, strlen(j->wpath));
    fprintf(f, ", \"n_vocab\": %zu, \"n_ctx\": %zu, \"n_embd\": %zu, \"dtype\": \"%s\"}, \"pe\": \"%s\", "
               "\"n_tokens\": %zu, \"start_pos\": %llu",
            j->m->n_vocab, j->m->n_ctx, C, st_dtype_name(j->m->wte->dtype),
            j->pe == EMBED_PE_LEARNED ? "learned" : "sinusoidal", j->T, (unsigned long long)j->start);
    if (j->pe == EMBED_PE_SINUSOIDAL) {   /* the scale, as the table's summary states it */
        fputs(", \"pe_scale\": ", f);
        json_write_f64(f, j->ec.pe_scale);
        fputs(", \"pe_norm\": ", f);
        json_write_f64(f, j->ec.pe_scale * sqrt((double)C / 2.0));
        fputs(", \"wte_norm_mean\": ", f);
        json_write_f64(f, j->wte_norm);
        if (j->wpe_norm > 0) {
            fputs(", \"wpe_norm_mean\": ", f);
            json_write_f64(f, j->wpe_norm);
        }
    }
    if (j->window)
        fprintf(f, ", \"window\": %zu, \"stride\": %llu, \"windows\": [", j->W, (unsigned long long)j->stride);
    else
        fprintf(f, ", \"tokens\": [");
    int rc = 0;
    for (size_t w = 0; w < j->n_windows && rc == 0; w++) {
        if (j->window)
            fprintf(f, "%s{\"window\": %zu, \"tokens\": [", w ? ", " : "", w);
        for (size_t r = 0; r < R && rc == 0; r++) {
            size_t t = token_at(j, w, r);
            size_t position = j->window ? r : (size_t)j->start + r;
            fprintf(f, "%s{\"pos\": %zu, ", r ? ", " : "", position);
            if (t == SIZE_MAX) {
                fprintf(f, "\"padding\": true, \"vector\": ");
                memset(sum, 0, C * sizeof *sum);
                json_vec(f, sum, C);
                fputc('}', f);
                continue;
            }
            if (embed_row(&j->ec, j->ids[t], position, sum, tok, pos, NULL)) {
                cli_error("internal error: row %zu could not be read", t);
                rc = -1;
                break;
            }
            const uint8_t *b;
            size_t n;
            piece(j, t, &b, &n);
            fprintf(f, "\"index\": %zu, \"id\": %u, \"piece\": ", t, j->ids[t]);
            out_json_string(f, (const char *)b, n);
            if (j->spans && j->text) {   /* offset, chars, char_index, char_part: tokchars.h */
                json_w jw;
                json_resume_object(&jw, f, 1);
                tokchars_json(&jw, j->text, &j->spans[t]);
            }
            fprintf(f, ", \"vector\": ");
            json_vec(f, sum, C);
            if (j->parts) {
                fprintf(f, ", \"token_vector\": ");
                json_vec(f, tok, C);
                fprintf(f, ", \"position_vector\": ");
                json_vec(f, pos, C);
            }
            fputc('}', f);
        }
        if (j->window)
            fputs("]}", f);
    }
    fputs("]}\n", f);
    free(buf);
    return rc;
}

static int write_csv(const job *j, FILE *f)
{
    size_t C = j->m->n_embd, R = rows_per_window(j);
    float *buf = malloc(3 * C * sizeof *buf);
    if (!buf) {
        cli_error("out of memory");
        return -1;
    }
    float *vecs[3] = {buf, buf + C, buf + 2 * C};
    static const char *const PART[3] = {"token", "position", "sum"};
    if (j->window) fputs("window,", f);
    fputs("pos,index,id,piece,display,", f);
    if (j->parts) fputs("part,", f);
    for (size_t c = 0; c < C; c++)
        fprintf(f, "c%zu%s", c, c + 1 < C ? "," : "\n");
    for (size_t w = 0; w < j->n_windows; w++)
        for (size_t r = 0; r < R; r++) {
            size_t t = token_at(j, w, r);
            size_t position = j->window ? r : (size_t)j->start + r;
            if (t == SIZE_MAX) {
                memset(buf, 0, 3 * C * sizeof *buf);
            } else if (embed_row(&j->ec, j->ids[t], position, vecs[2], vecs[0], vecs[1], NULL)) {
                free(buf);
                cli_error("internal error: row %zu could not be read", t);
                return -1;
            }
            for (int p = j->parts ? 0 : 2; p < 3; p++) {
                if (j->window) fprintf(f, "%zu,", w);
                if (t == SIZE_MAX) {
                    fprintf(f, "%zu,,,(padding),,", position);
                } else {
                    const uint8_t *b;
                    size_t n;
                    piece(j, t, &b, &n);
                    char *vis = out_piece_visible((const char *)b, n), *disp = shown(j, t);
                    fprintf(f, "%zu,%zu,%u,", position, t, j->ids[t]);
                    out_csv_field(f, vis ? vis : "", vis ? strlen(vis) : 0);
                    fputc(',', f);
                    out_csv_field(f, disp ? disp : "", disp ? strlen(disp) : 0);
                    fputc(',', f);
                    free(vis);
                    free(disp);
                }
                if (j->parts) fprintf(f, "%s,", PART[p]);
                for (size_t c = 0; c < C; c++) {
                    out_f32(f, vecs[p][c]);
                    fputc(c + 1 < C ? ',' : '\n', f);
                }
            }
        }
    free(buf);
    return 0;
}

static double norm(const float *v, size_t C)
{
    double s = 0;
    for (size_t c = 0; c < C; c++)
        s += (double)v[c] * v[c];
    return sqrt(s);
}

static int write_table(const job *j, FILE *f)
{
    size_t C = j->m->n_embd, R = rows_per_window(j);
    size_t show = j->show < C ? (size_t)j->show : C;
    float *buf = malloc(3 * C * sizeof *buf);
    if (!buf) {
        cli_error("out of memory");
        return -1;
    }
    float *tok = buf, *pos = buf + C, *sum = buf + 2 * C;
    for (size_t w = 0; w < j->n_windows; w++) {
        if (j->window) {
            size_t first = w * (size_t)j->stride;
            size_t last = first + j->W < j->T ? first + j->W : j->T;
            fprintf(f, _("%swindow %zu: tokens %zu..%zu at positions 0..%zu\n"), w ? "\n" : "", w, first,
                    last - 1, last - first - 1);
        }
        /* headings by display width: translated ones are wider per byte */
        out_rpad(f, _("pos"), 5);
        fputc(' ', f);
        out_rpad(f, _("id"), 6);
        fputs("  ", f);
        out_pad(f, _("piece"), 18);
        fprintf(f, " %8s %8s %8s  ", "|token|", "|pos|", "|sum|");
        fprintf(f, _("sum[0..%zu]\n"), show ? show - 1 : 0);
        for (size_t r = 0; r < R; r++) {
            size_t t = token_at(j, w, r);
            size_t position = j->window ? r : (size_t)j->start + r;
            if (t == SIZE_MAX) { /* the rest of the last window: one line for all of it */
                if (R - r == 1)
                    fprintf(f, _("%5s %6s  ... 1 zero row of padding (position %zu in npy/raw output)\n"), "",
                            "", position);
                else
                    fprintf(f, _("%5s %6s  ... %zu zero rows of padding (positions %zu..%zu in npy/raw "
                            "output)\n"), "", "", R - r, position, R - 1);
                break;
            }
            if (embed_row(&j->ec, j->ids[t], position, sum, tok, pos, NULL)) {
                free(buf);
                cli_error("internal error: row %zu could not be read", t);
                return -1;
            }
            char *vis = shown(j, t);
            fprintf(f, "%5zu %6u  ", position, j->ids[t]);
            out_pad(f, vis ? vis : "?", 18);
            free(vis);
            fprintf(f, " %8.4f %8.4f %8.4f ", norm(tok, C), norm(pos, C), norm(sum, C));
            for (size_t c = 0; c < show; c++)
                fprintf(f, " %9.5f", (double)sum[c]);
            fputs(show < C ? " ...\n" : "\n", f);
        }
    }
    size_t used = j->window ? (j->T < j->W ? j->T : j->W) : j->T;
    fprintf(f, _("model %s (%s): n_embd %zu, %s positions; %zu tokens"),
            j->m->size_name ? j->m->size_name : _("unknown"), j->wpath, C,
            j->pe == EMBED_PE_LEARNED ? _("learned") : _("sinusoidal"), j->T);
    if (j->window)
        fprintf(f, _(" in %zu windows of %zu (stride %llu)"), j->n_windows, j->W, (unsigned long long)j->stride);
    if (j->pe == EMBED_PE_LEARNED)
        fprintf(f, _(", %zu of %zu positions used\n"), (size_t)j->start + used, j->m->n_ctx);
    else
        fprintf(f, _(", positions %llu..%llu\n"), (unsigned long long)j->start,
                (unsigned long long)(j->start + used - (used ? 1 : 0)));
    if (j->pe == EMBED_PE_SINUSOIDAL) {
        char st[512];
        pe_statement(j, st, sizeof st);
        fprintf(f, "%s\n", st);
    }
    free(buf);
    return 0;
}

/* The strips figure for the first window (at most 4096 tokens). */
static int draw(const job *j)
{
    size_t C = j->m->n_embd, R = rows_per_window(j);
    if (R > 4096) R = 4096;
    if (R == 0) {
        cli_error("--plot: no tokens to draw");
        return -1;
    }
    float *data = malloc(3 * R * C * sizeof *data);
    char **labels = calloc(R, sizeof *labels);
    int rc = -1;
    if (!data || !labels) {
        cli_error("out of memory");
        goto done;
    }
    size_t n = 0;
    for (size_t r = 0; r < R; r++) {
        size_t t = token_at(j, 0, r);
        if (t == SIZE_MAX) break;
        size_t position = j->window ? r : (size_t)j->start + r;
        if (embed_row(&j->ec, j->ids[t], position, data + 2 * R * C + r * C, data + r * C, data + R * C + r * C, NULL)) {
            cli_error("internal error: row %zu could not be read", t);
            goto done;
        }
        char *vis = shown(j, t);
        size_t ll = (vis ? strlen(vis) : 0) + 32;
        labels[r] = malloc(ll);
        if (!labels[r]) { free(vis); cli_error("out of memory"); goto done; }
        snprintf(labels[r], ll, "%zu %s", position, vis ? vis : "?");
        free(vis);
        n++;
    }
    /* Pack the n filled rows of each part together (the strips read (n, C) per part). */
    memmove(data + n * C, data + R * C, n * C * sizeof *data);
    memmove(data + 2 * n * C, data + 2 * R * C, n * C * sizeof *data);
    const float *parts[3] = {data, data + n * C, data + 2 * n * C};
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
    char title[256];
    snprintf(title, sizeof title, _("GPT-2 embedding step: token + position = input (%s, n_embd %zu; colours clipped at \xC2\xB1%.3g = 4 x median |x|)"),
             j->m->size_name ? j->m->size_name : _("model"), C, q);
    render_strips s = {0};
    s.n_rows = n;
    s.dim = C;
    s.n_strips = 3;
    s.data = parts;
    const char *shown_names[3] = {gettext(names[0]), gettext(names[1]), gettext(names[2])};
    s.strip_names = shown_names;
    s.ops = "+=";
    s.labels = (const char *const *)labels;
    s.title = title;
    s.vmin = -q;
    s.vmax = q;
    render_png png;
    g2e_err err;
    g2e_clear(&err);
    rc = fig_write(render_strips_png(&s, &png, &err), &png, &err, j->plot);
done:
    if (labels)
        for (size_t r = 0; r < R; r++)
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
        return opt_usage_error(&CMD, sources ? "give one input: TEXT, -f FILE, - (standard input) or --ids"
                                             : "nothing to embed: give TEXT, -f FILE, - or --ids (see gpt2-embed --help)");
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
    if (j->have_ids && (j->bos || j->lossy || j->special != TOK_SPECIAL_TOKEN))
        return opt_usage_error(&CMD, "--bos, --lossy and --special apply to text, not to --ids (add 50256 "
                                     "to the IDs for <|endoftext|>)");
    if (out_pick_format(&CMD, j->out, FMT_NAMES, opt_given(&CMD, p, "--format"), &j->fmt))
        return -1;
    if (j->pe_scale_arg && j->pe != EMBED_PE_SINUSOIDAL)
        return opt_usage_error(&CMD, "--pe-scale scales the fixed encoding: add --pe sinusoidal (wpe's "
                                     "rows are used as trained)");
    if (j->pe_scale_arg && strcmp(j->pe_scale_arg, "wpe") != 0) {
        char *end;
        double s = strtod(j->pe_scale_arg, &end);
        if (end == j->pe_scale_arg || *end || !isfinite(s) || !(s > 0) || s > EMBED_MAX_PE_SCALE)
            return opt_usage_error(&CMD, "--pe-scale needs a number greater than 0 and at most %g, or "
                                         "'wpe', got '%s'", EMBED_MAX_PE_SCALE, j->pe_scale_arg);
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
    if (read_input(j) || load_model_lo(&j->lo, &j->m, &j->wpath) ||
        load_tokenizer(j->lo.tokenizer, &j->tok) || tokenize(j))
        return -1;
    g2e_err e;
    if (embed_check_ids(j->m, j->ids, j->T, &e)) {
        cli_error("%s", e.msg);
        return -1;
    }
    if (embed_init(&j->ec, j->m, j->pe, &e)) {
        cli_error("--pe sinusoidal: %s", e.msg);
        return -1;
    }
    if (setup_pe(j))
        return -1;
    return fit_context(j);
}

/* Writes the data in j->fmt to -o (or standard output), atomically; -1 after one error line. */
static int write_output(const job *j)
{
    out_file o = {0};
    if (out_open(&o, j->out, j->fmt == F_NPY || j->fmt == F_RAW))
        return -1;
    int w;
    switch (j->fmt) {
    case F_NPY: w = write_binary(j, o.f, 1); break;
    case F_RAW: w = write_binary(j, o.f, 0); break;
    case F_JSON: w = write_json(j, o.f); break;
    case F_CSV: w = write_csv(j, o.f); break;
    default: w = write_table(j, o.f); break;
    }
    if (w) {
        out_abort(&o);
        return -1;
    }
    return out_commit(&o) ? -1 : 0;
}

static void job_free(job *j, opt_parsed *p)
{
    opt_free(p);
    embed_free(&j->ec);
    free(j->joined);
    free(j->text);
    free(j->ids);
    free(j->offs);
    free(j->spans);
    free(j->ids_text);
    free(j->wpath);
    tok_close(j->tok);
    model_close(j->m);
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
     * --pe-scale a data file gets no note, as before); a figure alone gets it always */
    if (j.pe == EMBED_PE_SINUSOIDAL &&
        (plot_only || (j.pe_scale_arg && j.fmt != F_TABLE && j.fmt != F_JSON))) {
        char st[512];
        pe_statement(&j, st, sizeof st);
        cli_note("%s", st);
    }
    if (plot_only)
        rc = EXIT_OK;   /* --plot alone: the figure is the output */
    else if (write_output(&j) == 0)
        rc = EXIT_OK;
done:
    job_free(&j, &p);
    return rc;
}
