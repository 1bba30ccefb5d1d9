/* SPDX-License-Identifier: MIT */
/* cmd_report.c — `gpt2-embed report -o DIR | -o FILE.html`: every result of the chapter and
 * of the study commands on the user's weights, as one HTML page with the figures beside the
 * numbers.
 *
 * -o DIR writes DIR/index.html and its PNG figures (DIR is made if missing; files of the same
 * names are replaced atomically, nothing else in DIR is touched). -o FILE.html writes one
 * self-contained file: the figures are drawn into a temporary directory and embedded as
 * data: URIs (base64, nettle), then removed. The page loads nothing from the network: no
 * scripts, fonts or styles from elsewhere.
 *
 * Every number comes from the same functions the commands use (exercise, stats, similarity,
 * sinusoidal, pca, rope, count's tokenizer), so the page and the commands agree. A section
 * whose numbers cannot be computed on these weights (e.g. a row of zeros has no cosine) says
 * so in the page and on stderr; the rest of the report is still written.
 *
 * The page's text lives in one place (report_text.h), each string N_()-marked and shown
 * through _(): English, or the language chosen with --lang / the locale once po/ has the
 * translations (until then gettext falls back to the English msgids).
 */
#include "cli.h"
#include "figures.h"
#include "load.h"
#include "opt.h"
#include "out.h"
#include "report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* The text of --text-en / --text-ja (caller frees; cli_read_file: regular files only, "-"
 * is stdin), or a copy of the built-in one. */
static char *load_text(const char *path, const char *builtin, size_t *len)
{
    if (!path) {
        *len = strlen(builtin);
        char *s = strdup(builtin);
        if (!s)
            cli_error("out of memory");
        return s;
    }
    return cli_read_file(path, "text file", len);
}

/* Where the figures go: DIR itself, or a fresh temporary directory beside FILE.html. */
static int figure_dir(const char *out, int single, char **dir)
{
    if (!single) {
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
        return (*dir = strdup(out)) ? 0 : (cli_error("out of memory"), -1);
    }
    const char *slash = strrchr(out, '/');
    size_t n = slash ? (size_t)(slash - out) + 1 : 0;
    *dir = malloc(n + 32);
    if (!*dir)
        return cli_error("out of memory"), -1;
    snprintf(*dir, n + 32, "%.*s.g2e-report-XXXXXX", (int)n, out);
    if (!mkdtemp(*dir)) {
        cli_error("cannot create a temporary directory beside %s: %s", out, strerror(errno));
        free(*dir);
        *dir = NULL;
        return -1;
    }
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
    int single = ends_with_html(o.out), rc = EXIT_ERR;
    report rep = {.single = single};
    char *path = NULL;
    if (load_model(o.lo.weights, o.lo.model, &rep.m, &path) ||
        load_tokenizer(o.lo.tokenizer, &rep.tok))
        goto done;
    rep.weights = path;
    if (!(rep.text_en = load_text(o.text_en, report_builtin_en, &rep.len_en)) ||
        !(rep.text_ja = load_text(o.text_ja, report_builtin_ja, &rep.len_ja)))
        goto done;
    rep.name_en = o.text_en ? o.text_en : "built-in English paragraph";
    rep.name_ja = o.text_ja ? o.text_ja : "built-in Japanese paragraph";
    if (figure_dir(o.out, single, &rep.figdir))
        goto done;
    if (report_write(&rep, single ? o.out : NULL) == 0)
        rc = EXIT_OK;
done:
    report_cleanup(&rep);
    free(path);
    return rc;
}
