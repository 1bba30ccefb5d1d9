/* SPDX-License-Identifier: MIT */
/* report_html.c — the page around the report's sections (see report.h): its head, the
 * sections in order, its footer. The HTML writer they all use is report_page.c. */
#include "report_page.h"
#include "fig.h"
#include "report_text.h"

#include <stdio.h>

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
    "border-left:3px solid #4a7bb7}.failed{color:#a00}code{background:#f2f2f2;padding:0 .2em}"
    /* a heading breaks between words only, never inside a Japanese one (wte（トーク/ン）) */
    "th{word-break:keep-all}.passage{line-height:1.8}.passage mark{background:#fde6b2}"
    ".cut{color:#b40426;font-weight:bold;padding:0 .15em}";

static void head(report_page *r)
{
    const gpt2embed_model *m = r->in->model;
    const char *name = fig_model_name(m);
    /* TRANSLATORS: the page's language code for <html lang>: "ja" in Japanese */
    fprintf(r->f, "<!DOCTYPE html>\n<html lang=\"%s\">\n<head>\n<meta charset=\"utf-8\">\n<title>", _("en"));
    rp_esc(r, _(T_TITLE));
    fprintf(r->f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", CSS);
    rp_esc(r, _(T_TITLE));
    fputs("</h1>\n<p>", r->f);
    rp_put(r, _(T_INTRO), G2E_VERSION, r->in->weights, name, gpt2embed_n_vocab(m), gpt2embed_n_ctx(m),
           gpt2embed_n_embd(m));
    fputs("</p>\n<nav><b>", r->f);
    rp_esc(r, _(T_CONTENTS));
    fputs("</b>: ", r->f);
    static const struct { const char *id, *t; } TOC[] = {
        {"exercise1", T_EX1_H}, {"exercise2", T_EX2_H}, {"scale", T_SCALE_H}, {"order", T_ORDER_H},
        {"limit", T_LIMIT_H}, {"sinusoidal", T_SIN_H}, {"wpe", T_WPE_H}, {"helix", T_PCA_H},
        {"rope", T_ROPE_H}};
    for (size_t i = 0; i < sizeof TOC / sizeof TOC[0]; i++) {
        fprintf(r->f, "%s<a href=\"#%s\">", i ? " · " : "", TOC[i].id);
        rp_esc(r, _(TOC[i].t));
        fputs("</a>", r->f);
    }
    fputs("</nav>\n", r->f);
}

int report_html(FILE *f, const report_in *in)
{
    report_page r = {.f = f, .in = in};
    head(&r);
    rp_exercise1(&r);
    rp_exercise2(&r);
    rp_scale(&r);
    rp_order(&r);
    rp_limit(&r);
    rp_sinusoidal(&r);
    rp_wpe(&r);
    rp_pca(&r);
    rp_rope(&r);
    fputs("<footer><p>", f);
    rp_put(&r, _(T_FOOTER), G2E_VERSION);
    fputs("</p></footer>\n</body>\n</html>\n", f);
    return r.n_failed;
}
