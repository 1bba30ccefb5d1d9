/* SPDX-License-Identifier: MIT */
/* report_study.c — the report's sections on the position schemes: the sinusoidal encoding,
 * GPT-2's wpe, its principal components and RoPE (see report.h). */
#include "report_page.h"
#include "report_text.h"

#include "fig.h"
#include "recipe.h"

#include <math.h>
#include <stdlib.h>

/* The rotation property (the article's second point), checked: PE(pos + k) = R(k) PE(pos). */
static void sin_rotation(report_page *r)
{
    double worst;
    gpt2embed_error e;
    if (gpt2embed_sinusoid_check_rotation(128, GPT2EMBED_SINUSOID_BASE, 100, 50, &worst, NULL, NULL, NULL, &e)) {
        rp_failed(r, e.message);
        return;
    }
    /* sines and cosines of angles up to ~150 in double: differences of ~1e-13 are rounding */
    if (worst < 1e-9)
        rp_paraf(r, "says", _(T_SIN_ROT), worst);
    else
        rp_paraf(r, "says", _(T_SIN_ROT_FAILS), worst);
}

void rp_sinusoidal(report_page *r)
{
    double dot[50];
    g2e_err e;
    gpt2embed_error de;
    render_png png;
    rp_section(r, "sinusoidal", _(T_SIN_H));
    rp_para(r, NULL, _(T_SIN_INTRO));
    int rc = fig_pe_png(100, 128, GPT2EMBED_SINUSOID_BASE, RENDER_CMAP_COOLWARM, 0, 0, &png, &e);
    rp_figure(r, "pe-heatmap.png", _("PE(pos, i), 100 positions x 128 dimensions"), rc, &png, &e);
    fputs("<div class=\"row\"><div class=\"nums\">", r->f);
    if (gpt2embed_sinusoid_dot_curve(0, 49, 128, GPT2EMBED_SINUSOID_BASE, dot, &de) == 0) {
        static const char *const HEAD[] = {"k", T_SIN_DOT};
        static const int KS[] = {0, 1, 2, 5, 10, 20, 30, 49};
        fputs("<table>\n", r->f);
        rp_header_row(r, HEAD, 2);
        for (int i = 0; i < 8; i++)
            fprintf(r->f, "<tr><td>%d</td><td>%.4f</td></tr>\n", KS[i], dot[KS[i]]);
        fputs("</table>\n", r->f);
        rp_para(r, "says", _(T_SIN_SAYS));
    } else {
        rp_failed(r, de.message);
    }
    fputs("</div>\n", r->f);
    rc = fig_dot_curve_png(0, 49, 128, GPT2EMBED_SINUSOID_BASE, 0, 0, &png, &e);
    rp_figure(r, "pe-dot.png", _("PE(0)·PE(pos), d = 128"), rc, &png, &e);
    fputs("</div>\n", r->f);
    sin_rotation(r);
    fputs("</section>\n", r->f);
}

/* learned and sinusoidal mean cosine at a few distances, from the curves the figure draws */
static void wpe_distance_table(report_page *r, const double *l, const double *s)
{
    static const char *const HEAD[] = {T_WPE_DIST, T_WPE_LEARNED, T_WPE_SIN};
    static const size_t DS[] = {1, 2, 5, 10, 50, 100, 500, 1000};
    fputs("<table>\n", r->f);
    rp_header_row(r, HEAD, 3);
    for (int i = 0; i < 8; i++)
        if (DS[i] < gpt2embed_n_ctx(r->in->model))
            fprintf(r->f, "<tr><td>%zu</td><td>%.4f</td><td>%.4f</td></tr>\n", DS[i], l[DS[i]],
                    s[DS[i]]);
    fputs("</table>\n", r->f);
    rp_para(r, "says", _(T_WPE_SAYS));
}

/* the by-distance table and chart (both curves over every position) */
static void wpe_by_distance(report_page *r)
{
    const gpt2embed_model *m = r->in->model;
    size_t n = gpt2embed_n_ctx(m), C = gpt2embed_n_embd(m);
    double *l = malloc(n * sizeof *l), *s = malloc(n * sizeof *s);
    g2e_err e;
    gpt2embed_error de;
    if (!l || !s || C % 2 || gpt2embed_wpe_by_distance(m, n, n - 1, l, NULL, &de) ||
        gpt2embed_sinusoid_by_distance(n, C, GPT2EMBED_SINUSOID_BASE, n - 1, s, &de)) {
        const char *why = !l || !s ? _("out of memory") : C % 2 ? _("odd n_embd") : de.message;
        rp_say(r, "report: similarity by distance: %s", why);
        rp_failed(r, why);
        fputs("</div>\n", r->f);
    } else {
        wpe_distance_table(r, l, s);
        fputs("</div>\n", r->f);
        char *legend = fig_learned_legend(m);
        render_png png;
        int rc = legend ? fig_by_distance_png(n, C, GPT2EMBED_SINUSOID_BASE, n - 1, s, l, legend, 0,
                                              0, &png, &e)
                        : g2e_fail(&e, G2E_ENOMEM, "out of memory for a figure's text");
        free(legend);
        rp_figure(r, "wpe-by-distance.png", _("mean cosine at distance d: learned and sinusoidal"),
                  rc, &png, &e);
    }
    free(l), free(s);
}

void rp_wpe(report_page *r)
{
    const gpt2embed_model *m = r->in->model;
    render_png png;
    g2e_err e;
    rp_section(r, "wpe", _(T_WPE_H));
    rp_para(r, NULL, _(T_WPE_INTRO));
    int rc = fig_wpe_heatmap_png(m, 99, RENDER_CMAP_COOLWARM, 0, 0, NULL, NULL, &png, &e);
    rp_figure(r, "wpe-heatmap.png", _("wpe: position x dimension"), rc, &png, &e);
    fputs("<div class=\"row\">", r->f);
    rc = fig_wpe_cosine_png(m, RENDER_CMAP_COOLWARM, 0, 0, &png, &e);
    rp_figure(r, "wpe-cosine.png", "cos(wpe[p], wpe[q])", rc, &png, &e);
    fputs("</div>\n<div class=\"row\"><div class=\"nums\">", r->f);
    wpe_by_distance(r);
    fputs("</div>\n</section>\n", r->f);
}

/* the variance table of the components */
static void pca_table(report_page *r, const gpt2embed_pca_result *res)
{
    static const char *const COLS[] = {T_PCA_COMP, T_PCA_VAR, T_PCA_RATIO, T_PCA_CUM};
    fputs("<div class=\"row\"><div class=\"nums\"><table>\n", r->f);
    rp_header_row(r, COLS, 4);
    double at2 = 0, at4 = 0;
    for (size_t i = 0; i < res->d && i < 10; i++) {
        double cum = res->cumulative[i];
        at2 = i < 2 ? cum : at2, at4 = i < 4 ? cum : at4;
        fprintf(r->f, "<tr><td>PC%zu</td><td>%.5g</td><td>%.4f</td><td>%.4f</td></tr>\n", i + 1,
                res->variance[i], res->ratio[i], cum);
    }
    fputs("</table>\n<p class=\"says\">", r->f);
    rp_put(r, _(T_PCA_SAYS), 100 * at2, 100 * at4);
    fputs("</p></div>\n", r->f);
}

void rp_pca(report_page *r)
{
    const gpt2embed_model *m = r->in->model;
    gpt2embed_pca_result *res = NULL;
    render_png png;
    gpt2embed_error ge;
    g2e_err e;
    /* position 0 left out: GPT-2's outlier row would be a component of its own */
    gpt2embed_pca_source src = {.of = GPT2EMBED_PCA_WPE, .skip = 1};
    size_t C = gpt2embed_n_embd(m), N = gpt2embed_n_ctx(m), k = C < 4 ? C : 4;
    rp_section(r, "helix", _(T_PCA_H));
    fputs("<p>", r->f);
    rp_put(r, _(T_PCA_INTRO), N - 1, C, N - 1);
    fputs("</p>\n", r->f);
    if (gpt2embed_pca(m, &src, k, &res, &ge)) {
        rp_say(r, "%s", ge.message);
        rp_failed(r, _("principal components of wpe"));
        fputs("</section>\n", r->f);
        return;
    }
    pca_table(r, res);
    int rc = recipe_pca_variance_png(res->ratio, res->d, "wpe[1:]", &png, &e);
    rp_figure(r, "pca-variance.png", _("explained variance of wpe's components"), rc, &png, &e);
    fputs("</div>\n<div class=\"row\">", r->f);
    rc = recipe_pca_lines_png(res->proj, res->n, res->k, res->ratio, 1, "wpe[1:]", &png, &e);
    rp_figure(r, "pca-components.png", _("PC1..PC4 of wpe against position"), rc, &png, &e);
    fputs("</div>\n<div class=\"row\">", r->f);
    if (k >= 2) {
        rc = recipe_pca_scatter_png(res->proj, res->n, res->k, res->ratio, 1, 0, 1, "wpe[1:]", &png, &e);
        rp_figure(r, "pca-pc1-pc2.png", _("PC2 against PC1, coloured by position"), rc, &png, &e);
    }
    if (k >= 3) {
        rc = recipe_pca_scatter_png(res->proj, res->n, res->k, res->ratio, 1, 1, 2, "wpe[1:]", &png, &e);
        rp_figure(r, "pca-pc2-pc3.png", _("PC3 against PC2, coloured by position"), rc, &png, &e);
    }
    fputs("</div>\n</section>\n", r->f);
    gpt2embed_pca_free(res);
}

static void rope_schemes_table(report_page *r)
{
    fputs("<table class=\"schemes\">\n", r->f);
    for (size_t i = 0; i < GPT2EMBED_ROPE_SCHEME_ROWS; i++) {
        fputs("<tr>", r->f);
        for (size_t c = 0; c < 4; c++) {
            fputs(i == 0 || c == 0 ? "<th>" : "<td>", r->f);
            rp_esc(r, g2e_tr(gpt2embed_rope_scheme(i, c)));
            fputs(i == 0 || c == 0 ? "</th>" : "</td>", r->f);
        }
        fputs("</tr>\n", r->f);
    }
    fputs("</table>\n", r->f);
}

void rp_rope(report_page *r)
{
    size_t C = gpt2embed_n_embd(r->in->model), d = C % 2 == 0 ? C : 768, n = 1025, pair = d / 8;
    enum { PATH = 64 };
    double *mean = malloc(n * sizeof *mean), *exp_ = malloc(n * sizeof *exp_), x[PATH], y[PATH], theta;
    gpt2embed_rope_check rel;
    gpt2embed_error ge;
    g2e_err e;
    rp_section(r, "rope", _(T_ROPE_H));
    rp_para(r, NULL, _(T_ROPE_INTRO));
    rope_schemes_table(r);
    if (!mean || !exp_ || gpt2embed_rope_check_relative(d, GPT2EMBED_SINUSOID_BASE, 4096, 2000, 1, &rel, &ge) ||
        gpt2embed_rope_dot_curve(d, GPT2EMBED_SINUSOID_BASE, 0, n - 1, 16, 1, mean, exp_, &ge) ||
        gpt2embed_rope_rotation(d, GPT2EMBED_SINUSOID_BASE, pair, 1, 0, PATH, x, y, &theta, &ge)) {
        rp_failed(r, mean && exp_ ? ge.message : _("out of memory"));
    } else {
        fputs("<p>", r->f);
        rp_put(r, _(T_ROPE_CHECK), d, rel.pairs, 4096ULL, rel.max_dev);
        fputs("</p>\n", r->f);
        rp_para(r, "says", _(T_ROPE_SAYS));
        render_png png;
        fputs("<div class=\"row\">", r->f);
        int rc = recipe_rope_dot_png(mean, exp_, 0, n, d, GPT2EMBED_SINUSOID_BASE, &png, &e);
        rp_figure(r, "rope-dot.png", _(T_ROPE_DOT), rc, &png, &e);
        rc = recipe_rope_rotation_png(x, y, PATH, pair, theta, d, &png, &e);
        rp_figure(r, "rope-rotation.png", _("one RoPE pair as the position grows"), rc, &png, &e);
        fputs("</div>\n", r->f);
    }
    fputs("</section>\n", r->f);
    free(mean), free(exp_);
}
