/* SPDX-License-Identifier: MIT */
/* report.c — the sections of `gpt2-embed report` and the HTML around them (see report.h).
 *
 * Each section computes its numbers with the library (or the study helpers the commands
 * use), draws its figures with the same figure functions as the commands, and writes a
 * table of numbers beside the figures. A section that fails says so on the page (and its
 * message is on stderr) and the report goes on.
 */
#include "report.h"
#include "report_text.h"

#include "cli.h"
#include "figures.h"
#include "i18n.h"
#include "interpret.h"
#include "load.h"
#include "order.h"
#include "out.h"
#include "reference.h"
#include "rope.h"
#include "similarity.h"
#include "sinusoid.h"
#include "study.h"
#include "study_fig.h"
#include "textpos.h"
#include "tokchars.h"

#include <nettle/base64.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- HTML ---- */

static void esc(report *r, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", r->f); break;
        case '>': fputs("&gt;", r->f); break;
        case '&': fputs("&amp;", r->f); break;
        case '"': fputs("&quot;", r->f); break;
        default: fputc(*s, r->f);
        }
    }
}

/* printf into a buffer, then escaped */
static void put(report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(report *r, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    esc(r, buf);
}

static void section(report *r, const char *id, const char *title)
{
    fprintf(r->f, "<section id=\"%s\">\n<h2>", id);
    esc(r, title);
    fputs("</h2>\n", r->f);
}

static void para(report *r, const char *cls, const char *text)
{
    fprintf(r->f, "<p%s%s%s>", cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
    esc(r, text);
    fputs("</p>\n", r->f);
}

static void row(report *r, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void row(report *r, const char *key, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fputs("<tr><th>", r->f);
    esc(r, key);
    fputs("</th><td>", r->f);
    esc(r, buf);
    fputs("</td></tr>\n", r->f);
}

static void failed(report *r, const char *what)
{
    r->n_failed++;
    fputs("<p class=\"failed\">", r->f);
    put(r, _(T_FAILED), what);
    fputs(" ", r->f);
    esc(r, _(T_FAILED_NOTE));
    fputs("</p>\n", r->f);
}

/* figdir/name into a new string */
static char *fig_path(report *r, const char *name)
{
    size_t n = strlen(r->figdir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", r->figdir, name);
    return p;
}

/* The <img> of a figure already drawn at figdir/name: a relative link, or a data: URI. */
static int img(report *r, const char *name, const char *alt)
{
    fputs("<figure><img alt=\"", r->f);
    esc(r, alt);
    fputs("\" src=\"", r->f);
    if (!r->single) {
        esc(r, name);
    } else {
        char *p = fig_path(r, name);
        FILE *in = p ? fopen(p, "rb") : NULL;
        size_t len = 0;
        char *png = in ? cli_read_stream(in, &len) : NULL;
        char *b64 = png ? malloc(BASE64_ENCODE_RAW_LENGTH(len) + 1) : NULL;
        if (in)
            fclose(in);
        free(p);
        if (!b64) {
            free(png);
            cli_error("cannot read back the figure %s", name);
            return -1;
        }
        base64_encode_raw(b64, len, (const uint8_t *)png);
        fputs("data:image/png;base64,", r->f);
        fwrite(b64, 1, BASE64_ENCODE_RAW_LENGTH(len), r->f);
        free(b64), free(png);
    }
    fputs("\"><figcaption>", r->f);
    esc(r, alt);
    fputs("</figcaption></figure>\n", r->f);
    return 0;
}

/* Draws a figure with draw(path, ctx) into figdir/name and shows it, or says it failed. */
typedef int (*draw_fn)(const char *path, const void *ctx);
static void figure(report *r, const char *name, const char *alt, draw_fn draw, const void *ctx)
{
    char *p = fig_path(r, name);
    if (!p || r->n_figs >= sizeof r->figs / sizeof r->figs[0]) {
        free(p);
        failed(r, name);
        return;
    }
    r->figs[r->n_figs++] = p;
    if (draw(p, ctx) != 0 || img(r, name, alt) != 0)
        failed(r, alt);
}

/* ---- sections ---- */

static void sec_exercise1(report *r)
{
    const g2e_model *m = r->m;
    section(r, "exercise1", _(T_EX1_H));
    fputs("<table>\n", r->f);
    row(r, _(T_EX1_GPT2), "%d", 1024 * 768);
    row(r, _(T_EX1_BIG), "%d", 4096 * 4096);
    row(r, _(T_EX1_RATIO), "%.4f", 4096.0 * 4096.0 / (1024.0 * 768.0));
    row(r, _(T_EX1_WPE), "%zu x %zu = %zu", m->n_ctx, m->n_embd, m->n_ctx * m->n_embd);
    row(r, _(T_EX1_WTE), "%zu x %zu = %zu", m->n_vocab, m->n_embd, m->n_vocab * m->n_embd);
    fputs("</table>\n<p class=\"says\">", r->f);
    put(r, _(T_EX1_SAYS), 4096.0 * 4096.0 / (1024.0 * 768.0));
    fputs("</p>\n</section>\n", r->f);
}

/* interpret.c's lines for the two results of exercise 2, escaped into the page */
static void ex2_interpretation(report *r, size_t far, double c01, double c0f, double ccat,
                               double median, size_t pairs)
{
    char *s = NULL;
    size_t n = 0;
    FILE *mf = open_memstream(&s, &n);
    if (!mf)
        return;
    interp_near_far(mf, 0, 1, c01, far, c0f);
    interp_same_token(mf, "\u2423cat", 0, 5, ccat, median, pairs);
    if (fclose(mf) == 0 && s) {
        for (char *line = strtok(s, "\n"); line; line = strtok(NULL, "\n"))
            para(r, "says", line);
    }
    free(s);
}

static void sec_exercise2(report *r)
{
    const g2e_model *m = r->m;
    size_t D = m->n_embd, far = m->n_ctx > 500 ? 500 : m->n_ctx - 1;
    section(r, "exercise2", _(T_EX2_H));
    float *a = malloc(4 * D * sizeof *a);
    uint32_t cat;
    double c01, c0f, ccat, median = 0;
    size_t pairs = 0;
    g2e_err e;
    if (!a || m->n_ctx < 6 || load_single_token(r->tok, " cat", &cat) != 0) {
        free(a);
        failed(r, "exercise 2 (needs 6 positions and the token \" cat\")");
        fputs("</section>\n", r->f);
        return;
    }
    float *b = a + D, *c = b + D, *t = c + D;
    int rc = model_wpe_row(m, 0, a, &e) || model_wpe_row(m, 1, b, &e) ||
             model_wpe_row(m, far, c, &e) || sim_cosine(a, b, D, &c01, &e) ||
             sim_cosine(a, c, D, &c0f, &e) || model_wte_row(m, cat, t, &e) ||
             model_wpe_row(m, 5, c, &e);
    for (size_t j = 0; !rc && j < D; j++)
        b[j] = t[j] + a[j], c[j] = t[j] + c[j];
    if (!rc)
        rc = sim_cosine(b, c, D, &ccat, &e) ||
             ref_median_cosine(m, 0, 1000, 0x677074322d656d62ULL, &median, &pairs, &e);
    free(a);
    if (rc) {
        cli_error("report: exercise 2: %s", e.msg);
        failed(r, e.msg);
        fputs("</section>\n", r->f);
        return;
    }
    char key[64];
    fputs("<table>\n", r->f);
    row(r, _(T_EX2_SHAPE), "(%zu, %zu)", m->n_ctx, D);
    row(r, _(T_EX2_COS01), "%.4f", c01);
    snprintf(key, sizeof key, _(T_EX2_COS0F), far);
    row(r, key, "%.4f", c0f);
    row(r, _(T_EX2_CATID), "%u", cat);
    row(r, _(T_EX2_CAT), "%.4f", ccat);
    row(r, _(T_EX2_MEDIAN), "%.4f (%zu pairs)", median, pairs);
    fputs("</table>\n", r->f);
    if (far != 500) {
        fputs("<p>", r->f);
        put(r, _(T_EX2_FARNOTE), m->n_ctx, far);
        fputs("</p>\n", r->f);
    }
    ex2_interpretation(r, far, c01, c0f, ccat, median, pairs);
    fputs("</section>\n", r->f);
}

static int draw_norms(const char *path, const void *ctx)
{
    const report *r = ctx;
    study_norms sn;
    char name[64];
    if (study_wpe_norms(r->m, &sn))
        return -1;
    fig_model_name(r->m, name, sizeof name);
    int rc = study_fig_norms(&sn, name, path);
    study_norms_free(&sn);
    return rc;
}

static void sec_scale(report *r)
{
    sim_stats s[2];
    g2e_err e;
    section(r, "scale", _(T_SCALE_H));
    if (sim_stats_of(r->m, 0, &s[0], &e) || sim_stats_of(r->m, 1, &s[1], &e)) {
        cli_error("report: scale: %s", e.msg);
        failed(r, e.msg);
        fputs("</section>\n", r->f);
        return;
    }
    fputs("<div class=\"row\"><div class=\"nums\"><table>\n<tr><th></th><th>", r->f);
    esc(r, _(T_SCALE_COL_WTE));
    fputs("</th><th>", r->f);
    esc(r, _(T_SCALE_COL_WPE));
    fputs("</th></tr>\n", r->f);
    static const char *const KEYS[] = {T_SCALE_ROWS, T_SCALE_NORM, T_SCALE_MIN, T_SCALE_MAX, T_SCALE_ABS,
                               T_SCALE_STD};
    for (int k = 0; k < 6; k++) {
        double v[2];
        for (int w = 0; w < 2; w++)
            v[w] = k == 0 ? (double)s[w].rows : k == 1 ? s[w].norm_mean : k == 2 ? s[w].norm_min
                 : k == 3 ? s[w].norm_max : k == 4 ? s[w].mean_abs : s[w].std;
        fputs("<tr><th>", r->f);
        esc(r, _(KEYS[k]));
        fprintf(r->f, k ? "</th><td>%.4f</td><td>%.4f</td></tr>\n" : "</th><td>%.0f</td><td>%.0f</td></tr>\n",
                v[0], v[1]);
    }
    double ratio = s[0].norm_mean / s[1].norm_mean;
    row(r, _(T_SCALE_RATIO), "%.3f", ratio);
    fputs("</table>\n<p class=\"says\">", r->f);
    if (ratio > 0.2 && ratio < 5)
        put(r, _(T_SCALE_SAYS_EVEN), ratio);
    else
        put(r, _(T_SCALE_SAYS_UNEVEN), ratio);
    fputs("</p>\n", r->f);
    study_norms sn;
    if (study_wpe_norms(r->m, &sn) == 0) {
        const pca_norm_summary *q = &sn.sum;
        fputs("<p class=\"says\">", r->f);
        put(r, _(T_NORMS_SAYS), q->first, q->first_vs_median, q->median);
        if (q->split > 1 && q->split < sn.n) {
            fputs(" ", r->f);
            put(r, _(T_NORMS_SPREAD), 100 * q->cv_early, q->split - 1, 100 * q->cv_late, q->split,
                sn.n - 1);
        }
        fputs("</p>\n", r->f);
        study_norms_free(&sn);
    }
    fputs("</div>\n", r->f);
    figure(r, "norms.png", "|wpe[p]| against position p", draw_norms, r);
    fputs("</div>\n</section>\n", r->f);
}

/* Each token of text as the characters behind it ("犬 (1/3)", tokchars.h) into a new array
 * of strings (caller frees each and the array); NULL when out of memory or on bad offsets. */
static char **token_labels(const char *text, size_t len, const tok_ids *t)
{
    tokchars_span *sp = malloc((t->n ? t->n : 1) * sizeof *sp);
    char **lab = calloc(t->n ? t->n : 1, sizeof *lab);
    int ok = sp && lab && tokchars_spans(text, len, t->offsets, t->n, sp, NULL) == 0;
    for (size_t i = 0; ok && i < t->n; i++)
        ok = (lab[i] = tokchars_display_alloc(text, &sp[i])) != NULL;
    free(sp);
    if (!ok && lab) {
        for (size_t i = 0; i < t->n; i++)
            free(lab[i]);
        free(lab);
        lab = NULL;
    }
    return lab;
}

static void free_labels(char **lab, size_t n)
{
    for (size_t i = 0; lab && i < n; i++)
        free(lab[i]);
    free(lab);
}

static void pieces(report *r, char *const *lab, const tok_ids *t)
{
    for (size_t i = 0; i < t->n; i++) {
        fprintf(r->f, "%s<code>", i ? " " : "");
        put(r, "%s (%u)", lab ? lab[i] : "?", t->ids[i]);
        fputs("</code>", r->f);
    }
}

static void sec_order(report *r)
{
    static const char A[] = "犬が猫を追いかけた", B[] = "猫が犬を追いかけた";
    tok_ids ta = {0}, tb = {0};
    order_cmp c = {0};
    g2e_err e;
    section(r, "order", _(T_ORDER_H));
    para(r, NULL, _(T_ORDER_INTRO));
    char **la = NULL, **lb = NULL;
    if (tok_encode(r->tok, A, strlen(A), TOK_SPECIAL_TEXT, 0, &ta, NULL, &e) ||
        tok_encode(r->tok, B, strlen(B), TOK_SPECIAL_TEXT, 0, &tb, NULL, &e) ||
        order_compare(r->m, ta.ids, ta.n, tb.ids, tb.n, &c, &e)) {
        cli_error("report: order: %s", e.msg);
        failed(r, e.msg);
        goto done;
    }
    la = token_labels(A, strlen(A), &ta), lb = token_labels(B, strlen(B), &tb);
    fputs("<table>\n<tr><th>", r->f);
    esc(r, A);
    fputs("</th><td>", r->f);
    pieces(r, la, &ta);
    fputs("</td></tr>\n<tr><th>", r->f);
    esc(r, B);
    fputs("</th><td>", r->f);
    pieces(r, lb, &tb);
    fputs("</td></tr>\n", r->f);
    row(r, _(T_ORDER_MULTISET), "%s", c.same_multiset ? _(T_YES) : _(T_NO));
    row(r, _(T_ORDER_BAGS), "%s", c.bags_identical ? _(T_YES) : _(T_NO));
    row(r, _(T_ORDER_BAGCOS), "%.6f", c.bag_cos);
    row(r, _(T_ORDER_DIFFER), "%zu / %zu", c.n_differ, c.n_pos);
    fputs("</table>\n<table class=\"small\"><tr><th>", r->f);
    esc(r, _(T_ORDER_POS));
    fputs("</th><th>A</th><th>B</th><th>cos(wte)</th><th>cos(wte + wpe)</th></tr>\n", r->f);
    for (size_t t = 0; t < c.n_pos; t++) {
        fprintf(r->f, "<tr><td>%zu</td><td>", t);
        put(r, "%s (%u)", la ? la[t] : "?", ta.ids[t]);
        fputs("</td><td>", r->f);
        put(r, "%s (%u)", lb ? lb[t] : "?", tb.ids[t]);
        fprintf(r->f, "</td><td>%.4f</td><td>%.4f</td></tr>\n", c.tok_cos[t], c.input_cos[t]);
    }
    fputs("</table>\n<p class=\"says\">", r->f);
    put(r, _(T_ORDER_SAYS), c.n_differ, c.n_pos);
    fputs("</p>\n", r->f);
done:
    free_labels(la, ta.n), free_labels(lb, tb.n);
    order_free(&c);
    tok_ids_free(&ta), tok_ids_free(&tb);
    fputs("</section>\n", r->f);
}

static void sec_limit(report *r)
{
    const char *text[2] = {r->text_en, r->text_ja}, *name[2] = {r->name_en, r->name_ja};
    size_t len[2] = {r->len_en, r->len_ja}, ntok[2] = {0}, nch[2];
    size_t n_ctx = r->m->n_ctx;
    section(r, "limit", _(T_LIMIT_H));
    fputs("<p>", r->f);
    put(r, _(T_LIMIT_INTRO), n_ctx);
    fputs("</p>\n", r->f);
    for (int i = 0; i < 2; i++) {
        tok_ids t;
        g2e_err e;
        if (tok_encode(r->tok, text[i], len[i], TOK_SPECIAL_TEXT, TOK_NO_OFFSETS | TOK_LOSSY, &t,
                       NULL, &e)) {
            cli_error("report: %s: %s", name[i], e.msg);
            failed(r, e.msg);
            fputs("</section>\n", r->f);
            return;
        }
        ntok[i] = t.n;
        nch[i] = textpos_chars(text[i], len[i]);
        tok_ids_free(&t);
    }
    fputs("<table>\n<tr>", r->f);
    static const char *const COLS[] = {T_LIMIT_TEXT, T_LIMIT_BYTES, T_LIMIT_CHARS, T_LIMIT_TOKENS,
                               T_LIMIT_CPT, T_LIMIT_FITS, T_LIMIT_CAP};
    for (int c = 0; c < 7; c++) {
        fputs("<th>", r->f);
        esc(r, _(COLS[c]));
        fputs("</th>", r->f);
    }
    fputs("</tr>\n", r->f);
    for (int i = 0; i < 2; i++) {
        double cpt = ntok[i] ? (double)nch[i] / (double)ntok[i] : 0;
        fputs("<tr><td>", r->f);
        esc(r, name[i]);
        fprintf(r->f, "</td><td>%zu</td><td>%zu</td><td>%zu</td><td>%.2f</td><td>", len[i], nch[i],
                ntok[i], cpt);
        esc(r, ntok[i] <= n_ctx ? _(T_YES) : _(T_NO));
        fprintf(r->f, "</td><td>%.0f</td></tr>\n", cpt * (double)n_ctx);
    }
    fputs("</table>\n", r->f);
    if (ntok[0]) {
        double ratio = (double)ntok[1] / (double)ntok[0];
        fputs("<p class=\"says\">", r->f);
        put(r, _(T_LIMIT_SAYS), ratio, ntok[1], ntok[0]);
        fputs("</p>\n", r->f);
    }
    fputs("</section>\n", r->f);
}

static int draw_pe(const char *path, const void *ctx)
{
    (void)ctx;
    return fig_pe_heatmap(100, 128, SIN_DEFAULT_BASE, path, 0, 0);
}

static int draw_pe_dot(const char *path, const void *ctx)
{
    (void)ctx;
    return fig_dot_curve(0, 49, 128, SIN_DEFAULT_BASE, path, 0, 0);
}

static void sec_sinusoidal(report *r)
{
    double dot[50];
    g2e_err e;
    section(r, "sinusoidal", _(T_SIN_H));
    para(r, NULL, _(T_SIN_INTRO));
    figure(r, "pe-heatmap.png", "PE(pos, i), 100 positions x 128 dimensions", draw_pe, NULL);
    fputs("<div class=\"row\"><div class=\"nums\">", r->f);
    if (sin_dot_curve(0, 49, 128, SIN_DEFAULT_BASE, dot, &e) == 0) {
        fputs("<table>\n<tr><th>k</th><th>", r->f);
        esc(r, _(T_SIN_DOT));
        fputs("</th></tr>\n", r->f);
        static const int KS[] = {0, 1, 2, 5, 10, 20, 30, 49};
        for (int i = 0; i < 8; i++)
            fprintf(r->f, "<tr><td>%d</td><td>%.4f</td></tr>\n", KS[i], dot[KS[i]]);
        fputs("</table>\n", r->f);
        para(r, "says", _(T_SIN_SAYS));
    } else {
        failed(r, e.msg);
    }
    fputs("</div>\n", r->f);
    figure(r, "pe-dot.png", "PE(0)·PE(pos), d = 128", draw_pe_dot, NULL);
    fputs("</div>\n</section>\n", r->f);
}

static int draw_wpe(const char *path, const void *ctx)
{
    return fig_wpe_heatmap(ctx, 99, RENDER_CMAP_COOLWARM, path, 0, 0, NULL);
}

static int draw_cos(const char *path, const void *ctx)
{
    return fig_wpe_cosine(ctx, RENDER_CMAP_COOLWARM, path, 0, 0);
}

typedef struct dist_fig {
    const g2e_model *m;
    const double *learned, *sinusoidal;
} dist_fig;

static int draw_dist(const char *path, const void *ctx)
{
    const dist_fig *q = ctx;
    char name[64], legend[96];
    fig_model_name(q->m, name, sizeof name);
    snprintf(legend, sizeof legend, "learned wpe (%s)", name);
    return fig_by_distance_curves(q->m->n_ctx, q->m->n_embd, SIN_DEFAULT_BASE, q->m->n_ctx - 1,
                                  q->sinusoidal, q->learned, legend, path, 0, 0);
}

/* learned and sinusoidal mean cosine at a few distances, from the curves the figure draws */
static void wpe_distance_table(report *r, const double *l, const double *s)
{
    size_t n = r->m->n_ctx;
    fputs("<table>\n<tr><th>", r->f);
    esc(r, _(T_WPE_DIST));
    fputs("</th><th>", r->f);
    esc(r, _(T_WPE_LEARNED));
    fputs("</th><th>", r->f);
    esc(r, _(T_WPE_SIN));
    fputs("</th></tr>\n", r->f);
    static const size_t DS[] = {1, 2, 5, 10, 50, 100, 500, 1000};
    for (int i = 0; i < 8; i++)
        if (DS[i] < n)
            fprintf(r->f, "<tr><td>%zu</td><td>%.4f</td><td>%.4f</td></tr>\n", DS[i], l[DS[i]],
                    s[DS[i]]);
    fputs("</table>\n", r->f);
    para(r, "says", _(T_WPE_SAYS));
}

static void sec_wpe(report *r)
{
    const g2e_model *m = r->m;
    size_t n = m->n_ctx;
    section(r, "wpe", _(T_WPE_H));
    para(r, NULL, _(T_WPE_INTRO));
    figure(r, "wpe-heatmap.png", "wpe: position x dimension", draw_wpe, m);
    fputs("<div class=\"row\">", r->f);
    figure(r, "wpe-cosine.png", "cos(wpe[p], wpe[q])", draw_cos, m);
    fputs("</div>\n<div class=\"row\"><div class=\"nums\">", r->f);
    double *l = malloc(n * sizeof *l), *s = malloc(n * sizeof *s);
    g2e_err e;
    if (!l || !s || m->n_embd % 2 || sim_learned_by_distance(m, n, n - 1, l, NULL, &e) ||
        sin_by_distance(n, m->n_embd, SIN_DEFAULT_BASE, n - 1, s, &e)) {
        const char *why = !l || !s ? "out of memory" : m->n_embd % 2 ? "odd n_embd" : e.msg;
        cli_error("report: similarity by distance: %s", why);
        failed(r, why);
        fputs("</div>\n", r->f);
    } else {
        wpe_distance_table(r, l, s);
        fputs("</div>\n", r->f);
        dist_fig q = {m, l, s};
        figure(r, "wpe-by-distance.png", "mean cosine at distance d: learned and sinusoidal",
               draw_dist, &q);
    }
    free(l), free(s);
    fputs("</div>\n</section>\n", r->f);
}

typedef struct pca_fig {
    const pca_result *res;
    int which;   /* 0 lines, 1 PC1/PC2, 2 PC2/PC3, 3 variance */
} pca_fig;

static int draw_pca(const char *path, const void *ctx)
{
    const pca_fig *p = ctx;
    switch (p->which) {
    case 0: return study_fig_pca_lines(p->res, 1, "wpe[1:]", path);
    case 1: return study_fig_pca_scatter(p->res, 1, 0, 1, "wpe[1:]", path);
    case 2: return study_fig_pca_scatter(p->res, 1, 1, 2, "wpe[1:]", path);
    default: return study_fig_pca_variance(p->res, "wpe[1:]", path);
    }
}

static void sec_pca(report *r)
{
    pca_result res;
    /* position 0 left out: GPT-2's outlier row would be a component of its own */
    study_pca_src src = {.of = STUDY_OF_WPE, .m = r->m, .skip = 1};
    size_t k = r->m->n_embd < 4 ? r->m->n_embd : 4;
    section(r, "helix", _(T_PCA_H));
    fputs("<p>", r->f);
    put(r, _(T_PCA_INTRO), r->m->n_ctx - 1, r->m->n_embd, r->m->n_ctx - 1);
    fputs("</p>\n", r->f);
    if (study_pca(&src, k, &res, NULL)) {
        failed(r, "principal components of wpe");
        fputs("</section>\n", r->f);
        return;
    }
    fputs("<div class=\"row\"><div class=\"nums\"><table>\n<tr>", r->f);
    static const char *const COLS[] = {T_PCA_COMP, T_PCA_VAR, T_PCA_RATIO, T_PCA_CUM};
    for (int c = 0; c < 4; c++) {
        fputs("<th>", r->f);
        esc(r, _(COLS[c]));
        fputs("</th>", r->f);
    }
    fputs("</tr>\n", r->f);
    double cum = 0, at2 = 0, at4 = 0;
    for (size_t i = 0; i < res.d && i < 10; i++) {
        cum += pca_ratio(&res, i);
        at2 = i < 2 ? cum : at2, at4 = i < 4 ? cum : at4;
        fprintf(r->f, "<tr><td>PC%zu</td><td>%.5g</td><td>%.4f</td><td>%.4f</td></tr>\n", i + 1,
                res.variance[i], pca_ratio(&res, i), cum);
    }
    fputs("</table>\n<p class=\"says\">", r->f);
    put(r, _(T_PCA_SAYS), 100 * at2, 100 * at4);
    fputs("</p></div>\n", r->f);
    pca_fig f[4] = {{&res, 3}, {&res, 0}, {&res, 1}, {&res, 2}};
    figure(r, "pca-variance.png", "explained variance of wpe's components", draw_pca, &f[0]);
    fputs("</div>\n<div class=\"row\">", r->f);
    figure(r, "pca-components.png", "PC1..PC4 of wpe against position", draw_pca, &f[1]);
    fputs("</div>\n<div class=\"row\">", r->f);
    if (k >= 2)
        figure(r, "pca-pc1-pc2.png", "PC2 against PC1, coloured by position", draw_pca, &f[2]);
    if (k >= 3)
        figure(r, "pca-pc2-pc3.png", "PC3 against PC2, coloured by position", draw_pca, &f[3]);
    fputs("</div>\n</section>\n", r->f);
    pca_free(&res);
}

typedef struct rope_fig {
    size_t d, n, pair;
    const double *a, *b;   /* dot: mean, expected; rotation: xy */
    double theta;
} rope_fig;

static int draw_rope_dot(const char *path, const void *ctx)
{
    const rope_fig *q = ctx;
    return study_fig_rope_dot(q->a, q->b, 0, q->n, q->d, SIN_DEFAULT_BASE, path);
}

static int draw_rope_rot(const char *path, const void *ctx)
{
    const rope_fig *q = ctx;
    return study_fig_rope_rotation(q->a, q->n, q->pair, q->theta, q->d, path);
}

static void rope_schemes_table(report *r)
{
    fputs("<table class=\"schemes\">\n", r->f);
    for (size_t i = 0; i < STUDY_N_SCHEME_ROWS; i++) {
        fputs("<tr>", r->f);
        for (size_t c = 0; c < 4; c++) {
            fputs(i == 0 || c == 0 ? "<th>" : "<td>", r->f);
            esc(r, *study_schemes[i][c] ? gettext(study_schemes[i][c]) : "");
            fputs(i == 0 || c == 0 ? "</th>" : "</td>", r->f);
        }
        fputs("</tr>\n", r->f);
    }
    fputs("</table>\n", r->f);
}

static void sec_rope(report *r)
{
    size_t d = r->m->n_embd % 2 == 0 ? r->m->n_embd : 768, n = 1025, pair = d / 8;
    enum { PATH = 64 };
    double *mean = malloc(n * sizeof *mean), *exp_ = malloc(n * sizeof *exp_), xy[2 * PATH];
    rope_relative rel;
    g2e_err e;
    section(r, "rope", _(T_ROPE_H));
    para(r, NULL, _(T_ROPE_INTRO));
    rope_schemes_table(r);
    if (!mean || !exp_ || rope_check_relative(d, SIN_DEFAULT_BASE, 4096, 2000, 1, &rel, &e) ||
        rope_dot_curve(d, SIN_DEFAULT_BASE, 0, n - 1, 16, 1, mean, exp_, &e) ||
        rope_pair_path(d, SIN_DEFAULT_BASE, pair, 1, 0, PATH, xy, &e)) {
        failed(r, mean && exp_ ? e.msg : "out of memory");
        goto done;
    }
    fputs("<p>", r->f);
    put(r, _(T_ROPE_CHECK), d, rel.pairs, 4096ULL, rel.max_dev);
    fputs("</p>\n", r->f);
    para(r, "says", _(T_ROPE_SAYS));
    rope_fig dot = {.d = d, .n = n, .a = mean, .b = exp_};
    rope_fig rot = {.d = d, .n = PATH, .pair = pair, .a = xy,
                    .theta = pow(SIN_DEFAULT_BASE, -2.0 * (double)pair / (double)d)};
    fputs("<div class=\"row\">", r->f);
    figure(r, "rope-dot.png", _(T_ROPE_DOT), draw_rope_dot, &dot);
    figure(r, "rope-rotation.png", "one RoPE pair as the position grows", draw_rope_rot, &rot);
    fputs("</div>\n", r->f);
done:
    fputs("</section>\n", r->f);
    free(mean), free(exp_);
}

/* ---- the page ---- */

static const char CSS[] =
    "body{font-family:'DejaVu Sans','IPAGothic',sans-serif;max-width:1400px;margin:1em auto;"
    "padding:0 1em;color:#222;line-height:1.45}"
    "h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}"
    "table{border-collapse:collapse;margin:.6em 0}th,td{border:1px solid #ddd;padding:.25em .6em;"
    "text-align:left;vertical-align:top}td{font-variant-numeric:tabular-nums}"
    "table.small{font-size:.85em}table.schemes td,table.schemes th{max-width:22em}"
    ".row{display:flex;flex-wrap:wrap;gap:1.5em;align-items:flex-start}.nums{flex:0 1 30em}"
    ".row>figure{flex:1 1 560px;min-width:0}"
    "figure{margin:.5em 0}figure img{max-width:min(100%,1000px);height:auto;border:1px solid #eee}"
    "figcaption{font-size:.85em;color:#555}.says{background:#f4f7fb;padding:.4em .7em;"
    "border-left:3px solid #4a7bb7}.failed{color:#a00}code{background:#f2f2f2;padding:0 .2em}";

static void head(report *r)
{
    char name[64];
    fig_model_name(r->m, name, sizeof name);
    /* TRANSLATORS: the page's language code for <html lang>: "ja" in Japanese */
    fprintf(r->f, "<!DOCTYPE html>\n<html lang=\"%s\">\n<head>\n<meta charset=\"utf-8\">\n<title>", _("en"));
    esc(r, _(T_TITLE));
    fprintf(r->f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", CSS);
    esc(r, _(T_TITLE));
    fputs("</h1>\n<p>", r->f);
    put(r, _(T_INTRO), G2E_VERSION, r->weights, name, r->m->n_vocab, r->m->n_ctx, r->m->n_embd);
    fputs("</p>\n<nav><b>", r->f);
    esc(r, _(T_CONTENTS));
    fputs("</b>: ", r->f);
    static const struct { const char *id, *t; } TOC[] = {
        {"exercise1", T_EX1_H}, {"exercise2", T_EX2_H}, {"scale", T_SCALE_H}, {"order", T_ORDER_H},
        {"limit", T_LIMIT_H}, {"sinusoidal", T_SIN_H}, {"wpe", T_WPE_H}, {"helix", T_PCA_H},
        {"rope", T_ROPE_H}};
    for (size_t i = 0; i < sizeof TOC / sizeof TOC[0]; i++) {
        fprintf(r->f, "%s<a href=\"#%s\">", i ? " · " : "", TOC[i].id);
        esc(r, _(TOC[i].t));
        fputs("</a>", r->f);
    }
    fputs("</nav>\n", r->f);
}

int report_write(report *r, const char *html_path)
{
    char *index = NULL;
    if (!html_path && !(index = fig_path(r, "index.html"))) {
        cli_error("out of memory");
        return -1;
    }
    out_file o;
    if (out_open(&o, html_path ? html_path : index, 0)) {
        free(index);
        return -1;
    }
    free(index);
    r->f = o.f;
    head(r);
    sec_exercise1(r);
    sec_exercise2(r);
    sec_scale(r);
    sec_order(r);
    sec_limit(r);
    sec_sinusoidal(r);
    sec_wpe(r);
    sec_pca(r);
    sec_rope(r);
    fputs("<footer><p>", r->f);
    put(r, _(T_FOOTER), G2E_VERSION);
    fputs("</p></footer>\n</body>\n</html>\n", r->f);
    r->f = NULL;
    if (out_commit(&o))
        return -1;
    if (r->n_failed)
        cli_note("report: %d part%s could not be computed for these weights (said on the page)",
                 r->n_failed, r->n_failed == 1 ? "" : "s");
    return 0;
}

void report_cleanup(report *r)
{
    for (size_t i = 0; i < r->n_figs; i++) {
        if (r->single)
            unlink(r->figs[i]);
        free(r->figs[i]);
    }
    if (r->single && r->figdir)
        rmdir(r->figdir);
    free(r->figdir);
    free(r->text_en), free(r->text_ja);
    tok_close(r->tok);
    model_close(r->m);
    memset(r, 0, sizeof *r);
}
