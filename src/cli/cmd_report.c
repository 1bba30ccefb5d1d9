/* SPDX-License-Identifier: MIT */
/* cmd_report.c — `gpt2-embed report -o DIR | -o FILE.html`: every result of the chapter and
 * of the study commands on the user's weights, as one HTML page with the figures beside the
 * numbers.
 *
 * -o DIR writes DIR/index.html and its PNG figures (DIR is made if missing; files of the same
 * names are replaced atomically, nothing else in DIR is touched). -o FILE.html writes one
 * self-contained file, the figures embedded as data: URIs. The page itself is the rendering
 * wing's (report.h); here: the options, the files, and the messages of failed parts.
 */
#include "cli.h"
#include "i18n.h"
#include "figures.h"
#include "load.h"
#include "opt.h"
#include "out.h"
#include "report.h"
#include "tokenizer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct report_opts {
    load_opts lo;
    const char *out, *text_en, *text_ja;
} report_opts;

static const opt_def OPTS[] = {
    {.name = "--output", .short_name = 'o', .kind = OPT_FILE, .off = offsetof(report_opts, out),
     .metavar = "DIR|FILE.html",
     .help = N_("DIR/index.html with its figures, or one self-contained FILE.html")},
    {.name = "--text-en", .kind = OPT_FILE, .off = offsetof(report_opts, text_en),
     .help = N_("the English text of the context-limit section (default: a built-in paragraph)")},
    {.name = "--text-ja", .kind = OPT_FILE, .off = offsetof(report_opts, text_ja),
     .help = N_("the Japanese text of the context-limit section (default: the same paragraph)")},
    LOAD_OPT_ROWS(report_opts, lo),
    OPT_END,
};

static const opt_cmd CMD = {
    .name = "report",
    .synopsis = N_("-o DIR|FILE.html [--weights FILE] [--text-en FILE] [--text-ja FILE]"),
    .purpose = N_("\nEvery result of the chapter on these weights as one HTML page: both exercises, the\n"
                  "scale of token and position vectors, the order puzzle, the 1024-token limit on an\n"
                  "English and a Japanese text, the sinusoidal PE, wpe's heatmap, cosine matrix and\n"
                  "similarity by distance, the helix of its principal components, and RoPE, with the\n"
                  "figures beside the numbers. The page needs no network."),
    .examples = N_("  gpt2-embed report -o report/\n"
                   "  gpt2-embed report -o gpt2-report.html\n"),
    .opts = OPTS,
    .min_pos = 0,
    .max_pos = 0,
};
const opt_cmd *const cmd_report_spec = &CMD;

static int ends_with_html(const char *p)
{
    size_t n = strlen(p);
    return (n > 5 && strcasecmp(p + n - 5, ".html") == 0) ||
           (n > 4 && strcasecmp(p + n - 4, ".htm") == 0);
}

/* -o DIR: made if missing, and it must be a directory. */
static int make_dir(const char *out)
{
    if (mkdir(out, 0777) != 0 && errno != EEXIST) {
        cli_error("cannot create the directory %s: %s", out, strerror(errno));
        return -1;
    }
    struct stat st;
    if (stat(out, &st) != 0 || !S_ISDIR(st.st_mode)) {
        cli_error("%s exists and is not a directory (give a directory, or a name ending in "
                  ".html for one self-contained file)", out);
        return -1;
    }
    return 0;
}

/* dir/name into a new string (NULL: printed) */
static char *in_dir(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", dir, name);
    else
        cli_error("out of memory");
    return p;
}

/* report_in's save: the figure beside the page, atomically */
static int save_figure(void *dir, const char *name, const render_png *png)
{
    char *p = in_dir(dir, name);
    int rc = p ? fig_save(png, p) : -1;
    free(p);
    return rc;
}

static void say(void *ctx, const char *msg)
{
    (void)ctx;
    cli_error("%s", msg);
}

/* The page into path (atomically), the figures as in; 0 or -1 (printed). */
static int write_page(const char *path, report_in *in)
{
    out_file o;
    if (out_open(&o, path, 0))
        return -1;
    int n_failed = report_html(o.f, in);
    if (out_commit(&o))
        return -1;
    if (n_failed)
        cli_note("report: %d part%s could not be computed for these weights (said on the page)",
                 n_failed, n_failed == 1 ? "" : "s");
    return 0;
}

int cmd_report(int argc, char **argv)
{
    report_opts o = {0};
    opt_parsed p;
    int r = opt_parse(&CMD, argc, argv, &o, &p);
    opt_free(&p);
    if (r)
        return opt_exit(r);
    if (!o.out)
        return opt_usage_error(&CMD, "-o DIR or -o FILE.html is required (where the report goes)"),
               EXIT_USAGE;
    int rc = EXIT_ERR;
    g2e_model *m = NULL;
    tok_tokenizer *tok = NULL;
    char *path = NULL, *own[2] = {NULL, NULL}, *index = NULL;
    const char *file[2] = {o.text_en, o.text_ja};
    report_in in = {.embed = ends_with_html(o.out), .save = save_figure, .say = say,
                    .ctx = (void *)o.out, .text = {report_builtin_en, report_builtin_ja},
                    .len = {strlen(report_builtin_en), strlen(report_builtin_ja)},
                    .name = {o.text_en ? o.text_en : _("built-in English text"),
                             o.text_ja ? o.text_ja : _("built-in Japanese text")}};
    if (load_model(o.lo.weights, o.lo.model, &m, &path) || load_tokenizer(o.lo.tokenizer, &tok))
        goto done;
    for (int i = 0; i < 2; i++)   /* cli_read_file: regular files only, "-" is stdin */
        if (file[i] && !(in.text[i] = own[i] = cli_read_file(file[i], "text file", &in.len[i])))
            goto done;
    if (!in.embed && (make_dir(o.out) || !(index = in_dir(o.out, "index.html"))))
        goto done;
    in.m = m, in.tok = tok, in.weights = path;
    if (write_page(in.embed ? o.out : index, &in) == 0)
        rc = EXIT_OK;
done:
    free(own[0]), free(own[1]), free(index), free(path);
    tok_close(tok);
    model_close(m);
    return rc;
}
