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
 * Everything is accumulated in double (the library's: gpt2embed_cosine_matrix,
 * gpt2embed_wpe_by_distance, and for a pair gpt2embed_course_pair, whose document --format
 * json prints and whose sentences follow the text).
 */
#include "cli.h"
#include "i18n.h"
#include "json.h"
#include "load.h"
#include "opt.h"
#include "out.h"
#include "table_out.h"

#include <cjson/cJSON.h>

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

/* The cosine matrix of wpe's rows (gpt2embed_cosine_matrix); prints errors. *out (R x R) is
 * the caller's to free. */
static int wpe_matrix(const gpt2embed_model *m, double **out)
{
    size_t R = gpt2embed_n_ctx(m), C = gpt2embed_n_embd(m);
    float *wpe = malloc(R * C * sizeof *wpe);
    gpt2embed_error e;
    *out = malloc(R * R * sizeof **out);
    int rc = -1;
    if (!wpe || !*out)
        cli_error("out of memory for a %zu x %zu matrix", R, R);
    else if (gpt2embed_rows(m, GPT2EMBED_WPE, 0, R, wpe, &e) || gpt2embed_cosine_matrix(wpe, R, C, *out, &e))
        cli_error("wpe: %s", e.message);
    else
        rc = 0;
    free(wpe);
    if (rc) {
        free(*out);
        *out = NULL;
    }
    return rc;
}

/* In row p of a cosine matrix M (R, R), R >= 2: the other row most alike (*near, its cosine
 * *best) and least alike (*far, *worst); the first one on ties. */
static void row_extremes(const double *M, size_t R, size_t p, size_t *near, double *best, size_t *far,
                         double *worst)
{
    *near = *far = p;
    *best = -2;
    *worst = 2;
    for (size_t q = 0; q < R; q++) {
        double c = M[p * R + q];
        if (q != p && c > *best)
            *best = c, *near = q;
        if (q != p && c < *worst)
            *worst = c, *far = q;
    }
}

/* The mean and spread of cos(wpe[p], wpe[p + d]) for d = 0..R-1 into new arrays *mean, *sd
 * (gpt2embed_wpe_by_distance); prints errors. */
static int by_distance_curve(const gpt2embed_model *m, size_t R, double **mean, double **sd)
{
    gpt2embed_error e;
    *mean = malloc(R * sizeof **mean), *sd = malloc(R * sizeof **sd);
    if (!*mean || !*sd) {
        cli_error("out of memory");
        return -1;
    }
    if (gpt2embed_wpe_by_distance(m, R, R - 1, *mean, *sd, &e)) {
        cli_error("wpe: %s", e.message);
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
        row_extremes(M, R, p, &near, &best, &far, &worst);
        printf("%9zu %9zu (%6.3f) %9zu (%6.3f)\n", p, near, best, far, worst);
    }
}

/* The summary on stdout: mean and spread at distances 1, 2, 4, ..., R - 1, then extremes(). */
static int matrix_summary(const gpt2embed_model *m, const double *M, size_t R, const char *path,
                          const char *saved)
{
    double *mean = NULL, *sd = NULL, *v = NULL;
    size_t d[70], n = 0;
    for (size_t k = 1; k < R; k *= 2) {
        d[n++] = k;
        if (k * 2 >= R && k != R - 1)
            d[n++] = R - 1;
    }
    if (by_distance_curve(m, R, &mean, &sd) || !(v = dist_rows(mean, sd, R, d, n))) {
        if (mean && sd && !v)
            cli_error("out of memory");
        free(mean), free(sd);
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
static int by_distance(const gpt2embed_model *m, uint64_t maxd, int fmt, const char *outpath,
                       const char *path)
{
    double *mean = NULL, *sd = NULL, *v = NULL;
    size_t R = gpt2embed_n_ctx(m), n = (maxd >= R ? R - 1 : (size_t)maxd) + 1;
    int rc = -1;
    if (by_distance_curve(m, R, &mean, &sd)) {
        free(mean), free(sd);
        return -1;
    }
    if ((v = dist_rows(mean, sd, R, NULL, n)) != NULL) {
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
    free(mean), free(sd), free(v);
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
static int at_position(const char *s, const gpt2embed_model *m, size_t *out)
{
    int64_t v;
    size_t n_ctx = gpt2embed_n_ctx(m);
    if (opt_parse_int(s, 0, (int64_t)n_ctx - 1, &v))
        return opt_usage_error(&CMD, "--at needs TEXT and two positions in 0..%zu, got '%s'", n_ctx - 1, s);
    *out = (size_t)v;
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

/* The cosine of the pair asked for (one line and what it shows, or one JSON object:
 * gpt2embed_course_pair's document); -2 after a usage line. */
static int run_pair(const sim_opts *o, enum mode mode, int json, const gpt2embed_model *m,
                    gpt2embed_tokenizer **tok)
{
    uint32_t id[2] = {0, 0};
    size_t pos[2] = {(size_t)o->pos[0], (size_t)o->pos[1]};
    unsigned kind = mode == M_POS ? GPT2EMBED_PAIR_POSITIONS : mode == M_AT ? GPT2EMBED_PAIR_AT
                                                                               : GPT2EMBED_PAIR_TOKENS;
    if (mode == M_POS) {
        for (int k = 0; k < 2; k++)
            if ((uint64_t)o->pos[k] >= gpt2embed_n_ctx(m)) {
                char given[24];
                snprintf(given, sizeof given, "%lld", (long long)o->pos[k]);
                opt_range_error(&CMD, "--pos", 0, (int64_t)gpt2embed_n_ctx(m) - 1, given, 2);
                return -2;
            }
    } else if (mode == M_AT && (at_position(o->at[1], m, &pos[0]) || at_position(o->at[2], m, &pos[1]))) {
        return -2;
    } else if (load_tokenizer(o->lo.tokenizer, tok) ||
               pair_token(*tok, mode == M_AT ? o->at[0] : o->tokens[0], &id[0]) ||
               (mode == M_TOKENS && pair_token(*tok, o->tokens[1], &id[1]))) {
        return -1;
    }
    char *doc = NULL;
    gpt2embed_error e;
    cJSON *j = NULL;
    int rc = -1;
    if (gpt2embed_course_pair(m, *tok, kind, id, pos, json ? 0 : GPT2EMBED_COURSE_SAYS, &doc, &e)) {
        cli_error("%s", e.message);
    } else if (json) {
        rc = fputs(doc, stdout) == EOF ? -1 : 0;
    } else if ((j = cJSON_Parse(doc)) != NULL) {
        const cJSON *what = cJSON_GetObjectItem(j, "what"), *c = cJSON_GetObjectItem(j, "cos"), *line;
        printf("%s = %.6f\n", cJSON_IsString(what) ? what->valuestring : "?", cJSON_IsNumber(c) ? c->valuedouble : 0);
        cJSON_ArrayForEach(line, cJSON_GetObjectItem(j, "says"))
            printf("%s\n", cJSON_IsString(line) ? line->valuestring : "");
        rc = 0;
    } else {
        cli_error("out of memory");
    }
    cJSON_Delete(j);
    gpt2embed_free(doc);
    return rc == 0 && cli_flush_stdout() == 0 ? 0 : -1;
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

    gpt2embed_model *m = NULL;
    gpt2embed_tokenizer *tok = NULL;
    const char *path = NULL;
    double *M = NULL;
    int rc = EXIT_ERR;
    if (load_model(&o.lo, &m))
        goto done;
    path = gpt2embed_model_path(m);
    if (mode == M_MATRIX) {
        size_t R = gpt2embed_n_ctx(m);
        if (wpe_matrix(m, &M) || (o.out && write_matrix(M, R, o.out, fmt == 1)))
            goto done;
        rc = matrix_summary(m, M, R, path, o.out) == 0 && cli_flush_stdout() == 0 ? EXIT_OK : EXIT_ERR;
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
    gpt2embed_model_close(m);
    return rc;
}
