/* SPDX-License-Identifier: MIT */
/* report_html.c — the report's HTML writer, its figures and the page around the sections
 * (see report.h). */
#include "report_page.h"
#include "fig.h"
#include "report_text.h"

#include <nettle/base64.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void rp_esc(report_page *r, const char *s)
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

/* fmt formatted (in a buffer of the size it needs) and escaped into the page */
static void vput(report_page *r, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
static void vput(report_page *r, const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    char *buf = n < 0 ? NULL : malloc((size_t)n + 1);
    if (buf)
        vsnprintf(buf, (size_t)n + 1, fmt, ap);
    rp_esc(r, buf ? buf : _("(out of memory)"));
    free(buf);
}

void rp_put(report_page *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vput(r, fmt, ap);
    va_end(ap);
}

void rp_section(report_page *r, const char *id, const char *title)
{
    fprintf(r->f, "<section id=\"%s\">\n<h2>", id);
    rp_esc(r, title);
    fputs("</h2>\n", r->f);
}

static void p_open(report_page *r, const char *cls)
{
    fprintf(r->f, "<p%s%s%s>", cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
}

void rp_para(report_page *r, const char *cls, const char *text)
{
    p_open(r, cls);
    rp_esc(r, text);
    fputs("</p>\n", r->f);
}

void rp_paraf(report_page *r, const char *cls, const char *fmt, ...)
{
    va_list ap;
    p_open(r, cls);
    va_start(ap, fmt);
    vput(r, fmt, ap);
    va_end(ap);
    fputs("</p>\n", r->f);
}

void rp_row(report_page *r, const char *key, const char *fmt, ...)
{
    va_list ap;
    fputs("<tr><th>", r->f);
    rp_esc(r, key);
    fputs("</th><td>", r->f);
    va_start(ap, fmt);
    vput(r, fmt, ap);
    va_end(ap);
    fputs("</td></tr>\n", r->f);
}

void rp_header_row(report_page *r, const char *const *cols, size_t n)
{
    fputs("<tr>", r->f);
    for (size_t c = 0; c < n; c++) {
        fputs("<th>", r->f);
        rp_esc(r, g2e_tr(cols[c]));
        fputs("</th>", r->f);
    }
    fputs("</tr>\n", r->f);
}

void rp_failed(report_page *r, const char *what)
{
    r->n_failed++;
    fputs("<p class=\"failed\">", r->f);
    rp_put(r, _(T_FAILED), what);
    fputs(" ", r->f);
    rp_esc(r, _(T_FAILED_NOTE));
    fputs("</p>\n", r->f);
}

void rp_say(report_page *r, const char *fmt, ...)
{
    char buf[G2E_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, g2e_tr(fmt), ap);
    va_end(ap);
    g2e_cut_whole(buf, sizeof buf, n);   /* one line of stderr: a message's length at most */
    if (r->in->say)
        r->in->say(r->in->ctx, buf);
}

/* The PNG as a data: URI into the page; -1 when out of memory (said). */
static int embed_png(report_page *r, const render_png *png)
{
    char *b64 = malloc(BASE64_ENCODE_RAW_LENGTH(png->len) + 1);
    if (!b64) {
        rp_say(r, "%s", _("out of memory"));
        return -1;
    }
    base64_encode_raw(b64, png->len, png->data);
    fputs("data:image/png;base64,", r->f);
    fwrite(b64, 1, BASE64_ENCODE_RAW_LENGTH(png->len), r->f);
    free(b64);
    return 0;
}

void rp_figure(report_page *r, const char *name, const char *alt, int rc, render_png *png,
               const g2e_err *err)
{
    if (rc)
        rp_say(r, "%s", err->msg);
    else if (!r->in->embed && r->in->save(r->in->ctx, name, png) != 0)
        rc = -1;
    if (rc == 0) {
        fputs("<figure><img alt=\"", r->f);
        rp_esc(r, alt);
        fputs("\" src=\"", r->f);
        if (r->in->embed)
            rc = embed_png(r, png);
        else
            rp_esc(r, name);
        fputs("\"><figcaption>", r->f);
        rp_esc(r, alt);
        fputs("</figcaption></figure>\n", r->f);
    }
    if (rc)
        rp_failed(r, alt);
    render_png_free(png);
}

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

static void head(report_page *r)
{
    const g2e_model *m = r->in->m;
    const char *name = fig_model_name(m);
    /* TRANSLATORS: the page's language code for <html lang>: "ja" in Japanese */
    fprintf(r->f, "<!DOCTYPE html>\n<html lang=\"%s\">\n<head>\n<meta charset=\"utf-8\">\n<title>", _("en"));
    rp_esc(r, _(T_TITLE));
    fprintf(r->f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", CSS);
    rp_esc(r, _(T_TITLE));
    fputs("</h1>\n<p>", r->f);
    rp_put(r, _(T_INTRO), G2E_VERSION, r->in->weights, name, m->n_vocab, m->n_ctx, m->n_embd);
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
