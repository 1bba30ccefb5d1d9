/* SPDX-License-Identifier: MIT */
/* cmd_pca.c — `gpt2-embed pca`: principal components of GPT-2's wpe (by default), of chosen
 * wte rows, or of the sinusoidal PE (gpt2embed_pca: centred, covariance, LAPACK, double).
 *
 * Outputs: the explained variance of every component (default; the table shows the first
 * K), the projections of every row on the first K components (--proj), or the components
 * themselves (--components), each in table/json/csv/npy (table.h). --plot DIR draws the
 * figures (PC1..PC4 against position, PC1 vs PC2 and PC2 vs PC3 coloured by position, the
 * cumulative explained variance) into DIR.
 */
#include "cli.h"
#include "i18n.h"
#include "load.h"
#include "opt.h"
#include "out.h"
#include "study.h"
#include "study_fig.h"
#include "table_out.h"
#include "textfmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

typedef struct pca_opts {
    load_opts lo;
    int of, fmt, proj, comps;
    int64_t k, len, dim, skip;
    double base;
    opt_ids ids;
    const char *tokens, *out, *plot;
} pca_opts;

static const char *const OFS[] = STUDY_OF_NAMES;   /* indexed by GPT2EMBED_PCA_* */
static const char *const FORMATS[] = {"table", "json", "csv", "npy", NULL};

static const opt_def OPTS[] = {
    {.name = "--of", .kind = OPT_CHOICE, .off = offsetof(pca_opts, of), .choices = OFS,
     .def = "wpe", .help = N_("whose rows: GPT-2's positions, token vectors, or the sinusoidal PE")},
    {.name = "--ids", .kind = OPT_IDS, .off = offsetof(pca_opts, ids),
     .help = N_("with --of wte: these token rows (default: all of wte)")},
    {.name = "--tokens", .kind = OPT_TEXT, .off = offsetof(pca_opts, tokens), .metavar = "TEXT",
     .help = N_("with --of wte: the rows of TEXT's tokens, in order")},
    {.name = "--len", .kind = OPT_INT, .off = offsetof(pca_opts, len), .lo = 2, .hi = 1 << 20,
     .metavar = "N", .def = "1024", .help = N_("with --of sinusoidal: positions 0..N-1")},
    {.name = "--dim", .kind = OPT_INT, .off = offsetof(pca_opts, dim), .lo = 2, .hi = 16384,
     .metavar = "D", .def = "768", .help = N_("with --of sinusoidal: the width (even)")},
    {.name = "--base", .kind = OPT_REAL, .off = offsetof(pca_opts, base), .rlo = 1.000001,
     .rhi = 1e300, .metavar = "B", .def = "10000", .help = N_("with --of sinusoidal: the base")},
    {.name = "--skip", .kind = OPT_INT, .off = offsetof(pca_opts, skip), .lo = 0, .hi = 1 << 20,
     .metavar = "N", .def = "0",
     .help = N_("leave out positions 0..N-1 (--skip 1: without GPT-2's outlier position 0)")},
    {.name = "--keep", .short_name = 'k', .kind = OPT_INT, .off = offsetof(pca_opts, k), .lo = 1,
     .hi = 16384, .metavar = "K", .def = "10",
     .help = N_("components kept: rows of the table, columns of --proj (at most the width)")},
    {.name = "--proj", .kind = OPT_FLAG, .off = offsetof(pca_opts, proj),
     .help = N_("output the projections of every row on the first K components")},
    {.name = "--components", .kind = OPT_FLAG, .off = offsetof(pca_opts, comps),
     .help = N_("output the first K components (one row per dimension)")},
    {.name = "--format", .kind = OPT_CHOICE, .off = offsetof(pca_opts, fmt), .choices = FORMATS,
     .def = "table", .help = N_("output format (npy: float32)")},
    {.name = "--output", .short_name = 'o', .kind = OPT_FILE, .off = offsetof(pca_opts, out),
     .help = N_("write to FILE (atomically) instead of standard output")},
    {.name = "--plot", .kind = OPT_FILE, .off = offsetof(pca_opts, plot), .metavar = "DIR",
     .help = N_("draw pca-components.png, pca-pc1-pc2.png, pca-pc2-pc3.png, pca-variance.png "
                "into DIR (made if missing)")},
    LOAD_OPT_ROWS(pca_opts, lo),
    OPT_END,
};

static const opt_cmd CMD = {
    .name = "pca",
    .synopsis = N_("[--of wpe|wte|sinusoidal] [-k K] [--proj|--components] [--format F] [-o FILE]"),
    .purpose = N_("\nPrincipal components of the centred rows, in double with LAPACK: GPT-2's wpe by default\n"
                  "(published analyses of GPT-2 small find its positions close to a helix: the first\n"
                  "components are smooth waves of the position), chosen wte rows, or the sinusoidal PE.\n"
                  "Prints the variance along each component, its share of the total and the running\n"
                  "sum; --proj the coordinates of every row on the first K components."),
    .examples = N_("  gpt2-embed pca\n"
                   "  gpt2-embed pca --proj -k 3 -o helix.npy\n"
                   "  gpt2-embed pca --skip 1 --plot figs/\n"
                   "  gpt2-embed pca --of wte --tokens \" cat dog horse car bus train\"\n"
                   "  gpt2-embed pca --of sinusoidal --len 1024 --dim 768\n"),
    .opts = OPTS,
    .min_pos = 0,
    .max_pos = 0,
};
const opt_cmd *const cmd_pca_spec = &CMD;

/* What the components are of, in words (a new string, caller frees; NULL: out of memory). */
static char *source_name(const pca_opts *o)
{
    if (o->of == GPT2EMBED_PCA_SINUSOIDAL)
        return textfmt_printf(_("the sinusoidal PE (base %g)"), o->base);
    return strdup(o->of == GPT2EMBED_PCA_WPE ? "wpe" : "wte");
}

/* What the variance output says above its columns. */
typedef struct var_head {
    const pca_opts *o;
    const gpt2embed_pca_result *r;
    const char *what, *path;
    size_t nrow, real;       /* rows the table shows; components above the noise floor */
    int capped;              /* 1: the table stops at the floor */
    const double *v;         /* the rows: component, variance, ratio, cumulative */
} var_head;

static void variance_head(FILE *f, int fmt, const void *user)
{
    const var_head *h = user;
    const gpt2embed_pca_result *r = h->r;
    size_t d = r->d, k = (size_t)h->o->k < d ? (size_t)h->o->k : d;
    (void)fmt;   /* TBL_TABLE: JSON is the library's document (gpt2embed_pca_json) */
    char *vp = h->path ? text_escape(h->path, strlen(h->path), TEXT_ESC_BIDI) : NULL;   /* for a person */
    fprintf(f, _("Principal components of %s (%zu rows x %zu columns, centred)%s%s\n"), h->what, r->n,
            d, h->path ? _(" in ") : "", h->path ? (vp ? vp : "?") : "");
    free(vp);
    fprintf(f, _("total variance %.6g; variances below %.3g are rounding noise\n"), r->total, r->floor);
    if (d >= 2)
        fprintf(f, _("PC1 and PC2 explain %.2f%%; the first %zu explain %.2f%%\n"),
                100 * (h->v[2] + h->v[6]), h->nrow, 100 * h->v[4 * (h->nrow - 1) + 3]);
    if (h->capped)
        fprintf(f, _("components %zu..%zu are at the rounding-noise floor (%zu rows, centred, have at "
                   "most %zu components) and are left out of the table\n"),
                h->real + 1, k, r->n, r->n ? r->n - 1 : 0);
    fputc('\n', f);
}

/* The explained-variance output: all d components (the table shows the first k, and stops at
 * the rounding-noise floor: rows of noise would read as components that explain nothing);
 * JSON is the library's document of r (gpt2embed_pca_json). */
static int emit_variance(const pca_opts *o, const gpt2embed_pca_result *r, const gpt2embed_model *m,
                         const gpt2embed_pca_source *src, const char *what, const char *path)
{
    if (o->fmt == TBL_JSON) {
        char *json;
        gpt2embed_error e;
        return study_print_doc(gpt2embed_pca_json(r, m, src, &json, &e), &json, &e, o->out);
    }
    size_t d = r->d, nrow = o->fmt == TBL_TABLE && (size_t)o->k < d ? (size_t)o->k : d;
    size_t real = r->n_signal;
    int capped = o->fmt == TBL_TABLE && real >= 1 && real < nrow;
    double *v = malloc(d * 4 * sizeof *v);
    if (!v) {
        cli_error("out of memory");
        return -1;
    }
    for (size_t i = 0; i < d; i++)
        v[4 * i] = (double)(i + 1), v[4 * i + 1] = r->variance[i], v[4 * i + 2] = r->ratio[i],
        v[4 * i + 3] = r->cumulative[i];
    var_head h = {o, r, what, path, capped ? real : nrow, real, capped, v};
    const tbl_col c[] = {{.key = "component", .head = _("component"), .width = 10, .prec = -1},
                         {.key = "variance", .head = _("variance"), .width = 14, .prec = 6, .g = 1},
                         {.key = "ratio", .head = _("ratio"), .width = 14, .prec = 6, .g = 1},
                         {.key = "cumulative", .head = _("cumulative"), .width = 14, .prec = 6, .g = 1}};
    tbl t = {.cols = c, .ncols = 4, .nrow = h.nrow, .v = v, .npy_first = 1, .npy_count = 3};
    int rc = table_emit(o->out, o->fmt, &t, variance_head, &h);
    free(v);
    return rc;
}

/* --proj (rows x k, with each row's position or ID first) or --components (d x k). */
static int emit_matrix(const pca_opts *o, const gpt2embed_pca_result *r)
{
    size_t k = (size_t)o->k, n = o->proj ? r->n : r->d, nc = k + 1;
    double *v = malloc(n * nc * sizeof *v);
    if (!v) {
        cli_error("out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        v[i * nc] = o->proj ? r->row_id[i] : (double)i;
        for (size_t j = 0; j < k; j++)
            v[i * nc + 1 + j] = o->proj ? r->proj[i * r->k + j] : r->components[j * r->d + i];
    }
    const tbl_col c[] = {{.key = o->proj ? (o->of == GPT2EMBED_PCA_WTE ? "id" : "position") : "dimension",
                          .head = o->proj ? (o->of == GPT2EMBED_PCA_WTE ? _("id") : _("position")) : _("dimension"),
                          .width = 10, .prec = -1},
                         {.key = "pc", .width = 14, .prec = 6, .g = 1, .count = k, .from = 1}};
    tbl t = {.cols = c, .ncols = 2, .nrow = n, .v = v, .npy_first = 1, .npy_count = k};
    int rc = table_emit(o->out, o->fmt, &t, NULL, NULL);
    free(v);
    return rc;
}

/* The token rows of --tokens (tokenized) or --ids, into src. */
static int token_rows(const pca_opts *o, gpt2embed_pca_source *src, uint32_t **owned)
{
    *owned = NULL;
    if (o->ids.n) {
        src->ids = o->ids.v, src->n_ids = o->ids.n;
        return 0;
    }
    if (!o->tokens)
        return 0;
    gpt2embed_tokenizer *t = NULL;
    gpt2embed_error e;
    uint32_t *ids = NULL;
    size_t n = 0;
    if (load_tokenizer(o->lo.tokenizer, &t))
        return -1;
    gpt2embed_status rc = gpt2embed_tokenize(t, o->tokens, strlen(o->tokens), &ids, &n, &e);
    gpt2embed_tokenizer_close(t);
    if (rc) {
        cli_error("%s", e.message);
        return -1;
    }
    *owned = ids;
    src->ids = ids, src->n_ids = n;
    if (n < 2) {
        cli_error("--tokens gives %zu token%s; principal components need at least 2 rows", n,
                  n == 1 ? "" : "s");
        return -1;
    }
    return 0;
}

/* The four figures into dir (created if missing). */
static int plot_all(const char *dir, const gpt2embed_pca_result *r, size_t first, const char *what)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        cli_error("cannot create the directory %s: %s", dir, strerror(errno));
        return -1;
    }
    static const char *const FILES[] = {"pca-components.png", "pca-pc1-pc2.png",
                                        "pca-pc2-pc3.png", "pca-variance.png"};
    char path[4][4096];
    for (int i = 0; i < 4; i++)
        if ((size_t)snprintf(path[i], sizeof path[i], "%s/%s", dir, FILES[i]) >= sizeof path[i]) {
            cli_error("the directory name %s is too long", dir);
            return -1;
        }
    if (study_fig_pca_lines(r, first, what, path[0]) || study_fig_pca_variance(r, what, path[3]))
        return -1;
    if (r->k >= 2 && study_fig_pca_scatter(r, first, 0, 1, what, path[1]))
        return -1;
    if (r->k >= 3 && study_fig_pca_scatter(r, first, 1, 2, what, path[2]))
        return -1;
    return 0;
}

static int check(const pca_opts *o, const opt_parsed *p)
{
    if (o->proj && o->comps)
        return opt_usage_error(&CMD, "--proj and --components are two different outputs; pick one");
    if ((o->ids.n || o->ids.from_stdin || o->tokens) && o->of != GPT2EMBED_PCA_WTE)
        return opt_usage_error(&CMD, "--ids and --tokens choose wte rows: add --of wte");
    if (o->ids.from_stdin || (o->ids.n && o->tokens))
        return opt_usage_error(&CMD, "give the rows with --ids ID... or with --tokens TEXT");
    int sin_opt = opt_given(&CMD, p, "--len") || opt_given(&CMD, p, "--dim") ||
                  opt_given(&CMD, p, "--base");
    if (sin_opt && o->of != GPT2EMBED_PCA_SINUSOIDAL)
        return opt_usage_error(&CMD, "--len, --dim and --base describe --of sinusoidal");
    if (o->skip && o->of == GPT2EMBED_PCA_WTE)
        return opt_usage_error(&CMD, "--skip leaves out positions (wpe, sinusoidal); choose wte rows "
                                     "with --ids");
    if (o->of == GPT2EMBED_PCA_SINUSOIDAL && o->dim % 2)
        return opt_usage_error(&CMD, "--dim must be even (sin/cos pairs), got %lld", (long long)o->dim);
    return 0;
}

int cmd_pca(int argc, char **argv)
{
    pca_opts o = {.k = 10, .len = 1024, .dim = 768, .base = GPT2EMBED_SINUSOID_BASE};
    opt_parsed p;
    int r = opt_parse(&CMD, argc, argv, &o, &p);
    int given_fmt = r ? 0 : opt_given(&CMD, &p, "--format");
    int given_k = r ? 0 : opt_given(&CMD, &p, "--keep");
    if (r || check(&o, &p) || out_pick_format(&CMD, o.out, FORMATS, given_fmt, &o.fmt)) {
        opt_free(&p);
        return r ? opt_exit(r) : EXIT_USAGE;
    }
    gpt2embed_model *m = NULL;
    const char *path = NULL;
    char *what = NULL;
    uint32_t *owned_ids = NULL;
    gpt2embed_pca_result *res = NULL;
    gpt2embed_error e;
    int rc = EXIT_ERR;
    gpt2embed_pca_source src = {.of = o.of, .len = (size_t)o.len, .dim = (size_t)o.dim,
                                .base = o.base, .skip = (size_t)o.skip};
    if (o.of != GPT2EMBED_PCA_SINUSOIDAL && load_model(&o.lo, &m))
        goto done;
    path = gpt2embed_model_path(m);
    if (o.of == GPT2EMBED_PCA_WTE && token_rows(&o, &src, &owned_ids))
        goto done;
    size_t width = m ? gpt2embed_n_embd(m) : (size_t)o.dim;
    size_t rows = o.of == GPT2EMBED_PCA_WPE ? gpt2embed_n_ctx(m) : (size_t)o.len;
    if (!given_k)   /* the default keeps at most the width */
        o.k = (int64_t)width < o.k ? (int64_t)width : o.k;
    if ((size_t)o.k > width) {
        cli_error("--keep (-k) %zu is more components than the %zu columns", (size_t)o.k, width);
        goto done;
    }
    if (o.of != GPT2EMBED_PCA_WTE && (size_t)o.skip >= rows) {
        cli_error("--skip %zu leaves no rows of %zu", (size_t)o.skip, rows);
        goto done;
    }
    /* the figures need four components even when fewer are printed */
    size_t kk = (size_t)o.k;
    if (o.plot && kk < 4)
        kk = width < 4 ? width : 4;
    if (study_said(gpt2embed_pca(m, &src, kk, &res, &e), &e))
        goto done;
    if (!(what = source_name(&o))) {
        cli_error("out of memory");
        goto done;
    }
    if (o.proj || o.comps)
        rc = emit_matrix(&o, res) ? EXIT_ERR : EXIT_OK;
    else
        rc = emit_variance(&o, res, m, &src, what, path) ? EXIT_ERR : EXIT_OK;
    if (rc == EXIT_OK && o.plot && plot_all(o.plot, res, (size_t)o.skip, what))
        rc = EXIT_ERR;
done:
    opt_free(&p);
    gpt2embed_pca_free(res);
    gpt2embed_free(owned_ids);
    free(what);
    gpt2embed_model_close(m);
    return rc;
}
