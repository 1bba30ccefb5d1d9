/* SPDX-License-Identifier: MIT */
/* cmd_similarity.c — `gpt2-embed similarity`: how GPT-2's learned vectors relate.
 *
 *   --pos A B          cos(wpe[A], wpe[B])
 *   --tokens A B       cos(wte[A], wte[B]) for two texts that are one token each
 *   --at TEXT P1 P2    cos(wte[t] + wpe[P1], wte[t] + wpe[P2]): one token at two positions
 *   --matrix           the n_ctx x n_ctx cosine matrix of wpe (to -o FILE as npy float32 or
 *                      csv) and a summary on stdout: mean and spread by distance, and the
 *                      nearest and farthest position of a few positions
 *   --by-distance      mean (and spread) of cos(wpe[p], wpe[p + d]) over p, for every d
 * Everything is accumulated in double (similarity.h).
 */
#include "bridge.h"
#include "cli.h"
#include "i18n.h"
#include "json.h"
#include "load.h"
#include "opt.h"
#include "interpret.h"
#include "out.h"
#include "reference.h"
#include "similarity.h"
#include "table_out.h"

#include <libintl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef _
#define _(s) gettext(s)
#endif

typedef struct sim_opts {
    load_opts lo;
    int fmt;                 /* index in FORMATS */
    const char *out;
    int64_t pos[2], maxd;
    const char *tokens[2], *at[3];
    int matrix, by_distance;
} sim_opts;

/* Every format some mode writes; each mode takes its own subset (MODE_FORMATS). */
static const char *const FORMATS[] = {"text", "json", "table", "npy", "csv", NULL};

static const opt_def OPTS[] = {
    {.name = "--pos", .kind = OPT_INT, .nargs = 2, .off = offsetof(sim_opts, pos), .lo = 0,
     .hi = 1023, .metavar = "A B", .help = N_("two position vectors wpe[A], wpe[B]")},
    {.name = "--tokens", .kind = OPT_TEXT, .nargs = 2, .off = offsetof(sim_opts, tokens),
     .metavar = "A B", .help = N_("two token vectors wte[a], wte[b]; each text must be one token, or id:N for the "
                "token with ID N")},
    {.name = "--at", .kind = OPT_TEXT, .nargs = 3, .off = offsetof(sim_opts, at),
     .metavar = "TEXT P1 P2",
     .help = N_("the same token at two positions: wte[t] + wpe[P1] vs wte[t] + wpe[P2] (TEXT one "
                "token, or id:N)")},
    {.name = "--matrix", .kind = OPT_FLAG, .off = offsetof(sim_opts, matrix),
     .help = N_("all n_ctx x n_ctx cosines of wpe; -o FILE saves the matrix (npy float32, or csv "
                "with 9 significant digits); stdout gets a summary: mean and spread at each "
                "distance, nearest and farthest position of a few positions")},
    {.name = "--by-distance", .kind = OPT_FLAG, .off = offsetof(sim_opts, by_distance),
     .help = N_("for each distance d, the mean and standard deviation over p of cos(wpe[p], "
                "wpe[p + d]): the learned counterpart of the sinusoidal curve")},
    {.name = "--max-distance", .kind = OPT_INT, .off = offsetof(sim_opts, maxd), .lo = 0,
     .hi = UINT32_MAX, .metavar = "D", .help = N_("--by-distance: up to distance D")},
    {.name = "--format", .kind = OPT_CHOICE, .off = offsetof(sim_opts, fmt), .choices = FORMATS,
     .help = N_("pairs: text (default) or json; --matrix: npy (default) or csv; --by-distance: "
                "table (default), csv or json; -o FILE's extension picks it when not given")},
    {.name = "--output", .short_name = 'o', .kind = OPT_FILE, .off = offsetof(sim_opts, out),
     .help = N_("write the matrix or the curve to FILE (atomically)")},
    LOAD_OPT_ROWS(sim_opts, lo),
    OPT_END,
};

static const opt_cmd CMD = {
    .name = "similarity",
    .synopsis = N_("--pos A B | --tokens TEXT_A TEXT_B | --at TEXT P1 P2 | --matrix | --by-distance "
                   "[OPTIONS]"),
    .purpose = N_("\nCosine similarity (accumulated in double) of GPT-2's learned vectors. Tokens are\n"
                  "shown with their pieces (a space as \xE2\x90\xA3): ' cat' (3797) inside a sentence is\n"
                  "another token than 'cat' (9246) at the start of a text. A token can be given by\n"
                  "its ID as id:N (id:163); a number alone is a text ('163' is token 24136), and\n"
                  "text:X is the text X whatever it looks like."),
    .examples = N_("  gpt2-embed similarity --pos 0 1\n"
                   "  gpt2-embed similarity --at \" cat\" 0 5\n"
                   "  gpt2-embed similarity --at id:163 0 5\n"
                   "  gpt2-embed similarity --matrix -o wpe_cos.npy\n"
                   "  gpt2-embed similarity --by-distance --max-distance 64 -o curve.csv\n"),
    .opts = OPTS,
    .min_pos = 0,
    .max_pos = 0,
    .pos_name = "arguments (values go after their option)",
};
const opt_cmd *const cmd_similarity_spec = &CMD;

enum mode { M_NONE, M_POS, M_TOKENS, M_AT, M_MATRIX, M_DIST };

/* The cosine matrix of wpe (similarity.h); prints errors. *out (R x R) is the caller's to free. */
static int wpe_matrix(const g2e_model *m, double **out)
{
    g2e_err e;
    if (sim_wpe_cosine_matrix(m, m->n_ctx, out, &e)) {
        cli_error("wpe: %s", e.msg);
        return -1;
    }
    return 0;
}

/* The matrix to -o: npy float32, or csv rows of "%.9g" without a heading. */
static int write_matrix(const double *M, size_t R, const char *path, int csv)
{
    const tbl_col c[] = {{.key = "", .csv = TBL_CSV_G9, .count = R}};
    tbl t = {.cols = c, .ncols = 1, .nrow = R, .v = M, .no_header = 1};
    return table_emit(path, csv ? TBL_CSV : TBL_NPY, &t, NULL, NULL);
}

/* Rows (d, mean[d], sd[d], R - d) for the distances d[0..n) (d NULL: 0..n-1) into a new
 * array (NULL: out of memory). */
static double *dist_rows(const double *mean, const double *sd, size_t R, const size_t *d, size_t n)
{
    double *v = malloc((n ? n : 1) * 4 * sizeof *v);
    for (size_t i = 0; v && i < n; i++) {
        size_t k = d ? d[i] : i;
        v[4 * i] = (double)k, v[4 * i + 1] = mean[k], v[4 * i + 2] = sd[k], v[4 * i + 3] = (double)(R - k);
    }
    return v;
}

/* The nearest and farthest position of a few positions. */
static void extremes(const double *M, size_t R)
{
    out_rpad(stdout, _("position"), 9);
    fputc(' ', stdout);
    out_rpad(stdout, _("nearest (cos)"), 18);
    fputc(' ', stdout);
    out_rpad(stdout, _("farthest (cos)"), 18);
    fputc('\n', stdout);
    size_t picks[] = {0, 1, 2, 10, 100, 500, R - 1};
    for (size_t k = 0; R > 1 && k < sizeof picks / sizeof picks[0]; k++) {
        size_t p = picks[k], near, far;
        double best, worst;
        if (p >= R || (k > 0 && p <= picks[k - 1]))
            continue;
        sim_extremes(M, R, p, &near, &best, &far, &worst);
        printf("%9zu %9zu (%6.3f) %9zu (%6.3f)\n", p, near, best, far, worst);
    }
}

/* The summary on stdout: mean and spread at distances 1, 2, 4, ..., R - 1, then extremes(). */
static int matrix_summary(const double *M, size_t R, const char *path, const char *saved)
{
    double *mean = malloc(R * sizeof *mean), *sd = malloc(R * sizeof *sd), *v = NULL;
    size_t d[70], n = 0;
    for (size_t k = 1; k < R; k *= 2) {
        d[n++] = k;
        if (k * 2 >= R && k != R - 1)
            d[n++] = R - 1;
    }
    if (mean && sd)
        sim_by_distance(M, R, mean, sd);
    if (!mean || !sd || !(v = dist_rows(mean, sd, R, d, n))) {
        free(mean), free(sd);
        cli_error("out of memory");
        return -1;
    }
    char *vp = text_escape(path, strlen(path), TEXT_ESC_BIDI), *vs = saved ? text_escape(saved, strlen(saved), TEXT_ESC_BIDI) : NULL;
    printf(_("cosine similarity of the %zu learned positions of %s%s%s\n\n"), R, vp ? vp : "?",
           saved ? _("; matrix written to ") : "", saved ? (vs ? vs : "?") : "");
    free(vp), free(vs);
    const tbl_col c[] = {{.key = "distance", .head = _("distance"), .width = 9, .prec = -1},
                         {.key = "mean", .head = _("mean"), .width = 10, .prec = 4},
                         {.key = "std", .head = _("std"), .width = 10, .prec = 4},
                         {.key = "pairs", .head = _("pairs"), .width = 8, .prec = -1}};
    tbl t = {.cols = c, .ncols = 4, .nrow = n, .v = v};
    g2e_err e;
    int rc = tbl_write(stdout, TBL_TABLE, &t, &e);   /* from v: cannot fail but for memory */
    if (rc)
        cli_error("%s", e.msg);
    free(mean), free(sd), free(v);
    fputc('\n', stdout);
    extremes(M, R);
    return rc;
}

typedef struct dist_head {
    const char *path;
    size_t R;
} dist_head;

static void by_distance_head(FILE *f, int fmt, const void *user)
{
    const dist_head *h = user;
    if (fmt == TBL_TABLE) {
        char *vp = text_escape(h->path, strlen(h->path), TEXT_ESC_BIDI);   /* shown to a person */
        fprintf(f, _("mean cosine similarity of wpe[p] and wpe[p + d] over p (%s)\n"), vp ? vp : "?");
        free(vp);
        return;
    }
    fprintf(f, "\"weights\": ");
    out_json_string(f, h->path, strlen(h->path));
    fprintf(f, ", \"n_ctx\": %zu, \"by_distance\": ", h->R);
}

/* --by-distance: d = 0..maxd in fmt (TBL_TABLE, TBL_CSV or TBL_JSON). */
static int by_distance(const g2e_model *m, uint64_t maxd, int fmt, const char *outpath,
                       const char *path)
{
    double *M = NULL, *v = NULL;
    size_t R = m->n_ctx, n = (maxd >= R ? R - 1 : (size_t)maxd) + 1;
    if (wpe_matrix(m, &M))
        return -1;
    double *mean = malloc(R * sizeof *mean), *sd = malloc(R * sizeof *sd);
    int rc = -1;
    if (mean && sd) {
        sim_by_distance(M, R, mean, sd);
        v = dist_rows(mean, sd, R, NULL, n);
    }
    if (v) {
        const tbl_col c[] = {{.key = "distance", .head = _("distance"), .width = 9, .prec = -1},
                             {.key = "mean_cos", .jkey = "mean", .head = _("mean"), .width = 12, .prec = 6},
                             {.key = "std_cos", .jkey = "std", .head = _("std"), .width = 12, .prec = 6},
                             {.key = "pairs", .head = _("pairs"), .width = 6, .prec = -1}};
        tbl t = {.cols = c, .ncols = 4, .nrow = n, .v = v, .json_rows = 1};
        dist_head h = {path, R};
        rc = table_emit(outpath, fmt, &t, by_distance_head, &h);
    } else {
        cli_error("out of memory");
    }
    free(mean), free(sd), free(M), free(v);
    return rc;
}

/* The formats of each mode, in FORMATS' spelling; the first is the default. */
static const char *const *mode_formats(enum mode mode)
{
    static const char *const PAIRS[] = {"text", "json", "table", NULL};
    static const char *const MATRIX[] = {"npy", "csv", NULL};
    static const char *const DIST[] = {"table", "csv", "json", NULL};
    return mode == M_MATRIX ? MATRIX : mode == M_DIST ? DIST : PAIRS;
}

/* Checks of the combinations: one mode, a format that mode writes (from --format or -o's
 * name), -o only where there is a file to write. Sets *mode and *fmt (index in
 * mode_formats); -1 after one usage line. */
static int check(sim_opts *o, const opt_parsed *p, enum mode *mode, int *fmt)
{
    static const char *const MODES[] = {"--pos", "--tokens", "--at", "--matrix", "--by-distance"};
    int n = 0;
    for (int k = 0; k < 5; k++)
        if (opt_given(&CMD, p, MODES[k])) {
            *mode = (enum mode)(M_POS + k);
            n++;
        }
    if (n != 1)
        return opt_usage_error(&CMD, n ? N_("choose one of --pos, --tokens, --at, --matrix, --by-distance")
                                       : N_("needs one of --pos A B, --tokens A B, --at TEXT P1 P2, "
                                            "--matrix, --by-distance"));
    const char *const *names = mode_formats(*mode);
    int given = opt_given(&CMD, p, "--format");
    *fmt = 0;
    if (given) {
        while (names[*fmt] && strcmp(names[*fmt], FORMATS[o->fmt]) != 0)
            ++*fmt;
        char list[64];
        opt_join(names, list, sizeof list);
        if (!names[*fmt])
            return opt_usage_error(&CMD, "--format %s does not go with %s (it writes %s)", FORMATS[o->fmt],
                                   MODES[*mode - M_POS], list);
    }
    if (*mode != M_MATRIX && *mode != M_DIST && o->out)
        return opt_usage_error(&CMD, "-o goes with --matrix or --by-distance");
    if (*mode == M_MATRIX && !o->out && given)
        return opt_usage_error(&CMD, "--matrix writes the matrix only to a file: add -o FILE");
    return out_pick_format(&CMD, o->out, names, given, fmt);
}

/* One of the --at positions against the model's context; -1 after a usage line. */
static int at_position(const char *s, const g2e_model *m, long long *out)
{
    int64_t v;
    if (opt_parse_int(s, 0, (int64_t)m->n_ctx - 1, &v))
        return opt_usage_error(&CMD, "--at needs TEXT and two positions in 0..%zu, got '%s'",
                               m->n_ctx - 1, s);
    *out = v;
    return 0;
}

/* "3797 '␣cat'": a token as every command shows it. */
static void token_label(const gpt2embed_tokenizer *tok, uint32_t id, char *buf, size_t len)
{
    char *v = load_token_name(tok, id);
    snprintf(buf, len, "%u '%s'", id, v ? v : "?");
    free(v);
}

/* The one token of text (load_token_arg: id:N also), with a note when a word without its leading space was given and
 * the spaced form is another single token (the form it has inside a sentence). */
static int pair_token(gpt2embed_tokenizer *tok, const char *text, uint32_t *id)
{
    if (load_token_arg(tok, text, id))
        return -1;
    if (text[0] == ' ' || text[0] == '#' || strchr(text, ':') || !text[0] || strlen(text) > 200)
        return 0;   /* an ID (id:N, #N) or text:X is taken as given */
    char spaced[256];
    snprintf(spaced, sizeof spaced, " %s", text);
    uint32_t *ids;
    size_t n;
    if (gpt2embed_tokenize(tok, spaced, strlen(spaced), &ids, &n, NULL) == GPT2EMBED_OK) {
        if (n == 1 && ids[0] != *id) {
            char a[128], b[128];
            token_label(tok, *id, a, sizeof a);
            token_label(tok, ids[0], b, sizeof b);
            cli_note("'%s' has no leading space: it is token %s, the form at the start of a text; "
                     "inside a sentence the word is ' %s', token %s", text, a, text, b);
        }
        gpt2embed_free(ids);
    }
    return 0;
}

/* The line after a pair's cosine that says what it shows (interpret.h): beside the median of
 * random pairs of the same matrix's rows, and for --at between that and 1.0. Without a
 * reference (a sparse file with almost no non-zero rows) nothing is added. */
static void interpret(enum mode mode, const g2e_model *m, const gpt2embed_tokenizer *tok, uint32_t id,
                      long long p1, long long p2, double c)
{
    double med;
    size_t n;
    if (ref_median_cosine(m, mode == M_POS, REF_PAIRS, REF_SEED, &med, &n, NULL) != 0)
        return;
    if (mode == M_POS) {
        interp_pair(stdout, _("positions"), c, med, n);
        return;
    }
    if (mode == M_TOKENS) {
        interp_pair(stdout, _("tokens"), c, med, n);
        return;
    }
    char *piece = load_token_name(tok, id);
    interp_same_token(stdout, piece ? piece : "?", (size_t)p1, (size_t)p2, c, med, n);
    free(piece);
}

/* The cosine of the pair asked for (one line, or one JSON object); -2 after a usage line. */
static int run_pair(const sim_opts *o, enum mode mode, int json, const g2e_model *m,
                    gpt2embed_tokenizer **tok)
{
    uint32_t ta = 0, tb = 0;
    long long p1 = o->pos[0], p2 = o->pos[1], id[2] = {-1, -1}, pos[2] = {-1, -1};
    char what[600], la[128], lb[128];
    if (mode == M_POS) {
        for (int k = 0; k < 2; k++)
            if ((uint64_t)o->pos[k] >= m->n_ctx) {
                char given[24];
                snprintf(given, sizeof given, "%lld", (long long)o->pos[k]);
                opt_range_error(&CMD, "--pos", 0, (int64_t)m->n_ctx - 1, given, 2);
                return -2;
            }
        pos[0] = p1, pos[1] = p2;
        snprintf(what, sizeof what, "cos(wpe[%lld], wpe[%lld])", p1, p2);
    } else if (mode == M_AT && (at_position(o->at[1], m, &p1) || at_position(o->at[2], m, &p2))) {
        return -2;
    } else {
        if (load_tokenizer(o->lo.tokenizer, tok) ||
            pair_token(*tok, mode == M_AT ? o->at[0] : o->tokens[0], &ta))
            return -1;
        token_label(*tok, ta, la, sizeof la);
        id[0] = id[1] = ta;
        if (mode == M_TOKENS) {
            if (pair_token(*tok, o->tokens[1], &tb))
                return -1;
            id[1] = tb;
            token_label(*tok, tb, lb, sizeof lb);
            snprintf(what, sizeof what, "cos(wte[%s], wte[%s])", la, lb);
        } else {
            pos[0] = p1, pos[1] = p2;
            snprintf(what, sizeof what, "cos(wte[%s] + wpe[%lld], wte[%s] + wpe[%lld])", la, p1, la, p2);
        }
    }
    double c;
    g2e_err e;
    if (sim_input_cosine(m, id, pos, &c, &e)) {
        if (e.code == SIM_E_ZERO || e.code == SIM_E_NONFINITE)
            cli_error("%s: %s", what, e.msg);
        else
            cli_error("%s", e.msg);
        return -1;
    }
    if (json) {
        printf("{\"what\": ");
        out_json_string(stdout, what, strlen(what));
        printf(", \"cos\": ");
        json_write_f64(stdout, c);
        printf("}\n");
    } else {
        printf("%s = %.6f\n", what, c);
        interpret(mode, m, tok ? *tok : NULL, ta, p1, p2, c);
    }
    return cli_flush_stdout() == 0 ? 0 : -1;
}

int cmd_similarity(int argc, char **argv)
{
    sim_opts o = {.maxd = UINT32_MAX};
    opt_parsed p;
    enum mode mode = M_NONE;
    int fmt = 0;
    int r = opt_parse(&CMD, argc, argv, &o, &p);
    if (r == 0 && check(&o, &p, &mode, &fmt))
        r = -1;
    opt_free(&p);
    if (r)
        return opt_exit(r);

    gpt2embed_model *gm = NULL;
    gpt2embed_tokenizer *tok = NULL;
    const g2e_model *m = NULL;
    const char *path = NULL;
    double *M = NULL;
    int rc = EXIT_ERR;
    if (load_model(&o.lo, &gm))
        goto done;
    m = bridge_model(gm);
    path = gpt2embed_model_path(gm);
    if (mode == M_MATRIX) {
        if (wpe_matrix(m, &M) || (o.out && write_matrix(M, m->n_ctx, o.out, fmt == 1)))
            goto done;
        rc = matrix_summary(M, m->n_ctx, path, o.out) == 0 && cli_flush_stdout() == 0 ? EXIT_OK : EXIT_ERR;
    } else if (mode == M_DIST) {
        rc = by_distance(m, (uint64_t)o.maxd, tbl_format_of(mode_formats(mode)[fmt]), o.out, path)
                 ? EXIT_ERR : EXIT_OK;
    } else {
        r = run_pair(&o, mode, fmt == 1, m, &tok);
        rc = r == 0 ? EXIT_OK : r == -2 ? EXIT_USAGE : EXIT_ERR;
    }
done:
    free(M);
    gpt2embed_tokenizer_close(tok);
    gpt2embed_model_close(gm);
    return rc;
}
