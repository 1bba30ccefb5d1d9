/* SPDX-License-Identifier: MIT */
/* report_page.h — what the report's sections share (private to report_*.c): the page being
 * written and its HTML writer (report_page.c, below the page and the sections). Every string is
 * HTML-escaped after formatting. */
#ifndef G2E_REPORT_PAGE_H
#define G2E_REPORT_PAGE_H

#include "report.h"

#include <stdio.h>

#define _(s) g2e_tr(s)

typedef struct report_page {
    FILE *f;
    const report_in *in;
    int n_failed;             /* parts that could not be computed */
} report_page;

/* s escaped; printf into a buffer, then escaped */
void rp_esc(report_page *r, const char *s);
void rp_put(report_page *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* <section id><h2>title</h2> */
void rp_section(report_page *r, const char *id, const char *title);
/* <p class="cls">text</p> (cls may be NULL); rp_paraf formats first */
void rp_para(report_page *r, const char *cls, const char *text);
void rp_paraf(report_page *r, const char *cls, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* <tr><th>key</th><td>formatted</td></tr> */
void rp_row(report_page *r, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* <tr><th>c0</th>...</tr>: each msgid translated (an empty one stays empty) */
void rp_header_row(report_page *r, const char *const *cols, size_t n);
/* what could not be computed, on the page (counted) */
void rp_failed(report_page *r, const char *what);
/* a message for say(): fmt translated, as g2e_fail formats it */
void rp_say(report_page *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A figure a fig.h recipe returned (rc, *png, *err): shown as NAME (saved) or embedded, or
 * said and marked failed with alt. *png is freed. */
void rp_figure(report_page *r, const char *name, const char *alt, int rc, render_png *png,
               const g2e_err *err);

/* The sections, in page order (report_sec.c, report_study.c). */
void rp_exercise1(report_page *r);
void rp_exercise2(report_page *r);
void rp_scale(report_page *r);
void rp_order(report_page *r);
void rp_limit(report_page *r);
void rp_sinusoidal(report_page *r);
void rp_wpe(report_page *r);
void rp_pca(report_page *r);
void rp_rope(report_page *r);

#endif
