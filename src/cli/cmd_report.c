/* SPDX-License-Identifier: MIT */
/* cmd_report.c — `gpt2-embed report -o DIR | -o FILE.html`: every result of the chapter and
 * of the study commands on the user's weights, as one HTML page with the figures beside the
 * numbers.
 *
 * -o DIR writes DIR/index.html and its PNG figures as one directory (outdir.h): built beside
 * DIR and put in its place when every file was written, so DIR is the old report or the new
 * one, never a mixture, and a link planted in DIR is replaced, never followed. DIR must be
 * new, empty or an earlier report (index.html and PNGs only). -o FILE.html writes one
 * self-contained file, the figures embedded as data: URIs. The page itself is the rendering
 * wing's (report.h); here: the options, the files, and the messages of failed parts.
 */
#include "cli.h"
#include "figures.h"
#include "i18n.h"
#include "load.h"
#include "memlimit.h"
#include "opt.h"
#include "out.h"
#include "outdir.h"
#include "report.h"

#include <errno.h>
#include <fcntl.h>
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

/* What -o DIR is being built as: the directory (outdir.h: a temporary one beside DIR, put
 * in DIR's place at the end), and whether a file could not be written (then nothing is). */
typedef struct report_dir {
    const char *shown;   /* DIR as given, for messages */
    odir d;
    int write_failed;
} report_dir;

/* The names a report directory is made of (an earlier report's, replaced with it). */
static int report_entry(const char *name)
{
    size_t n = strlen(name);
    return !strcmp(name, "index.html") || (n > 4 && name[0] != '.' && !strcmp(name + n - 4, ".png"));
}

/* name, new in the directory being built (O_EXCL, never through a link): a stream that
 * remembers its first write error in *sink; NULL after one error line. */
static FILE *entry_open(report_dir *rd, const char *name, ofile_sink *sink)
{
    char *p = odir_path(&rd->d, name);
    sink->fd = p ? open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666) : -1;
    sink->err = 0;
    int e = p ? errno : ENOMEM;
    free(p);
    FILE *f = sink->fd >= 0 ? ofile_stream(sink) : NULL;
    if (sink->fd >= 0 && !f) {
        close(sink->fd);
        e = ENOMEM;
    }
    if (!f) {
        cli_error("writing %s/%s failed: %s", rd->shown, name, strerror(e));
        rd->write_failed = 1;
    }
    return f;
}

/* Flushes, syncs and closes an entry_open stream; 0, or -1 after one error line naming the
 * file as it will be (DIR/name) and the reason ("No space left on device"). */
static int entry_close(report_dir *rd, const char *name, FILE *f, ofile_sink *sink)
{
    errno = 0;
    int bad = fflush(f) != 0 || ferror(f) || fsync(sink->fd) != 0;
    int e = sink->err ? sink->err : errno;
    if (fclose(f) != 0 && !bad)
        bad = 1, e = sink->err ? sink->err : errno;
    if (bad) {
        cli_error("writing %s/%s failed: %s", rd->shown, name, strerror(e ? e : EIO));
        rd->write_failed = 1;
    }
    return bad ? -1 : 0;
}

/* report_in's save: the figure beside the page; after one failed write, nothing more is
 * tried (the report is not written: one message says why) */
static int save_figure(void *ctx, const char *name, const render_png *png)
{
    report_dir *rd = ctx;
    ofile_sink sink;
    FILE *f = rd->write_failed ? NULL : entry_open(rd, name, &sink);
    if (!f)
        return -1;
    fwrite(png->data, 1, png->len, f);
    return entry_close(rd, name, f, &sink);
}

static void say(void *ctx, const char *msg)
{
    (void)ctx;
    cli_error("%s", msg);
}

static void note_failed(int n_failed)
{
    if (n_failed)
        cli_note("report: %d part%s could not be computed for these weights (said on the page)",
                 n_failed, n_failed == 1 ? "" : "s");
}

/* -o FILE.html: the page into path (atomically), the figures embedded; 0 or -1 (printed). */
static int write_file_page(const char *path, report_in *in)
{
    out_file o;
    if (out_open(&o, path, 0))
        return -1;
    int n_failed = report_html(o.f, in);
    if (out_commit(&o))
        return -1;
    note_failed(n_failed);
    return 0;
}

/* -o DIR: the page and its figures into a new directory put in DIR's place when every file
 * was written; a failed write is an error (exit 1), DIR untouched. 0 or -1 (printed). */
static int write_dir_page(const char *dir, report_in *in)
{
    report_dir rd = {.shown = dir};
    g2e_err e;
    ofile_catch_signals(1);   /* a fatal signal removes the directory being built */
    if (odir_open(&rd.d, dir, report_entry, &e) != 0) {
        cli_error("%s", e.msg);
        return -1;
    }
    in->ctx = &rd;
    ofile_sink sink;
    FILE *f = entry_open(&rd, "index.html", &sink);
    int n_failed = f ? report_html(f, in) : 0;
    if (f)
        entry_close(&rd, "index.html", f, &sink);
    if (rd.write_failed) {
        odir_abort(&rd.d);
        return -1;
    }
    if (odir_commit(&rd.d, &e) != 0) {
        cli_error("%s", e.msg);
        return -1;
    }
    note_failed(n_failed);
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
    gpt2embed_model *m = NULL;
    gpt2embed_tokenizer *tok = NULL;
    char *own[2] = {NULL, NULL};
    const char *file[2] = {o.text_en, o.text_ja};
    report_in in = {.embed = ends_with_html(o.out), .save = save_figure, .say = say,
                    .text = {report_builtin_en, report_builtin_ja},
                    .len = {strlen(report_builtin_en), strlen(report_builtin_ja)},
                    .name = {o.text_en ? o.text_en : _("built-in English text"),
                             o.text_ja ? o.text_ja : _("built-in Japanese text")}};
    if (load_model(&o.lo, &m) || load_tokenizer(o.lo.tokenizer, &tok))
        goto done;
    for (int i = 0; i < 2; i++)   /* cli_read_file: regular files only, "-" is stdin */
        if (file[i] && !(in.text[i] = own[i] = cli_read_file(file[i], "text file", &in.len[i])))
            goto done;
    in.model = m, in.tokenizer = tok, in.weights = gpt2embed_model_path(m);
    g2e_err me;   /* under ulimit -v, GLib aborts and OpenBLAS spins: said before, not met */
    if (memlimit_check(MEMLIMIT_REPORT, _("the report"), &me) != 0) {
        cli_error("%s", me.msg);
        goto done;
    }
    if ((in.embed ? write_file_page(o.out, &in) : write_dir_page(o.out, &in)) == 0)
        rc = EXIT_OK;
done:
    free(own[0]), free(own[1]);
    gpt2embed_tokenizer_close(tok);
    gpt2embed_model_close(m);
    return rc;
}
