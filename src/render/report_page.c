/* SPDX-License-Identifier: MIT */
/* report_page.c — the report's HTML writer and its figures, which the page (report_html.c) and
 * every section (report_sec.c, report_study.c) use (see report_page.h). Below them all: it
 * calls none of them. */
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
    char *buf = g2e_vprintf_alloc(fmt, ap);
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
