/* SPDX-License-Identifier: MIT */
/* strips.c — the main job's colour strips: per token, its token vector, position vector and
 * their sum as rows of colour cells, one colour range, a horizontal colour bar.
 *
 * Every strip is at least dim pixels wide, so each dimension has a pixel column of its own
 * (cells are enlarged with nearest-neighbour, never averaged: alternating +/- values stay
 * blue and red instead of blending into a colour that is not on the bar).
 */
#include "canvas.h"
#include "render_impl.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { ST_RIGHT = 20, ST_MARK_W = 22, ST_OP_W = 26, ST_BOTTOM = 78 };

typedef struct strip_layout {
    int W, H, left, sw, row_h, top, gap, right;
    double vmin, vmax, lab_max;
} strip_layout;

static int check_strips(const render_strips *s, g2e_err *err)
{
    if (s->n_rows == 0 || s->n_rows > RENDER_MAX_ROWS || s->dim == 0 || s->dim > RENDER_MAX_SIDE ||
        s->n_strips == 0 || s->n_strips > RENDER_MAX_STRIPS || !s->data)
        return g2e_fail(err, RENDER_E_ARG, "a strips figure needs 1..%d rows, 1..%d values and 1..%d strips, got %zu, %zu, %zu",
                        RENDER_MAX_ROWS, RENDER_MAX_SIDE, RENDER_MAX_STRIPS, s->n_rows, s->dim, s->n_strips);
    if (check_cmap(s->cmap, err) || check_text(s->title, "title", err))
        return RENDER_E_ARG;
    for (size_t k = 0; k < s->n_strips; k++)
        if (!s->data[k] || (s->strip_names && check_text(s->strip_names[k], "strip name", err)))
            return s->data[k] ? RENDER_E_ARG : g2e_fail(err, RENDER_E_ARG, "strip %zu has no data", k);
    for (size_t r = 0; s->labels && r < s->n_rows; r++)
        if (check_text(s->labels[r], "row label", err))
            return RENDER_E_ARG;
    return 0;
}

static void row_label(const render_strips *s, size_t r, canvas *c, double max_w, char *buf, size_t cap)
{
    if (s->labels && s->labels[r])
        cv_fit(c, s->labels[r], max_w, buf, cap);
    else
        snprintf(buf, cap, "%zu", r);
}

/* Sizes: the label column from the widest label (at most 320 px), strips of >= dim px. */
static int layout(const render_strips *s, canvas *m, strip_layout *L, g2e_err *err)
{
    L->vmin = s->vmin, L->vmax = s->vmax;
    if (!(L->vmin < L->vmax)) {
        double mx = 0;
        for (size_t k = 0; k < s->n_strips; k++)
            for (size_t i = 0; i < s->n_rows * s->dim; i++)
                if (isfinite(s->data[k][i]))
                    mx = fmax(mx, fabs(s->data[k][i]));
        L->vmin = mx > 0 ? -mx : -1, L->vmax = mx > 0 ? mx : 1;
    }
    L->lab_max = s->width ? fmin(320, s->width / 5.0) : 320;
    double lab_w = 30;
    char buf[512];
    cv_font(m, FS_TICK, 0);
    for (size_t r = 0; r < s->n_rows; r++) {
        row_label(s, r, m, L->lab_max, buf, sizeof buf);
        lab_w = fmax(lab_w, cv_text_w(m, buf));
    }
    int ns = (int)s->n_strips, fixed;
    L->left = (int)lab_w + 20;
    L->right = ST_RIGHT + (s->marked ? ST_MARK_W : 0);
    fixed = L->left + L->right + ST_OP_W * (ns - 1);
    int need = fixed + ns * (int)s->dim;
    L->W = s->width ? s->width : (need > 1280 ? need : 1280);
    L->sw = (L->W - fixed) / ns;
    if (L->sw < (int)s->dim)
        return g2e_fail(err, RENDER_E_ARG, "a width of %d px is too narrow for %d strips of %zu values (one pixel column each): at least %d",
                        L->W, ns, s->dim, need);
    L->row_h = s->n_rows <= 200 ? 22 : (int)fmax(2, 7000.0 / (double)s->n_rows);
    L->top = s->title ? 84 : 52;
    L->gap = L->row_h >= 10 ? 3 : 0;
    L->H = L->top + L->row_h * (int)s->n_rows + ST_BOTTOM;
    return check_size(&L->W, &L->H, L->W, L->H, 400, 100, err);
}

static int paint_strip(canvas *c, const render_strips *s, const strip_layout *L, size_t k)
{
    int x = L->left + (int)k * (L->sw + ST_OP_W);
    cairo_surface_t *img = cv_image(c, (int)s->dim, 1);
    if (!img)
        return RENDER_E_CAIRO;
    if (s->strip_names && s->strip_names[k]) {
        cv_font(c, FS_LABEL, 1);
        cairo_set_source_rgb(c->cr, 0, 0, 0);
        cv_text(c, s->strip_names[k], x + L->sw / 2.0, L->top - 10, 0.5, 1.0);
    }
    for (size_t r = 0; r < s->n_rows; r++) {
        const float *v = s->data[k] + r * s->dim;
        for (size_t j = 0; j < s->dim; j++) {
            unsigned char rgb[3];
            cmap_value(s->cmap, v[j], L->vmin, L->vmax, rgb);
            put_px(img, (int)j, 0, rgb);
        }
        cairo_surface_mark_dirty(img);
        paint_scaled(c->cr, img, (int)s->dim, 1, x, L->top + (double)r * L->row_h, L->sw,
                     L->row_h - L->gap);
    }
    cairo_surface_destroy(img);
    if (k + 1 < s->n_strips && s->ops && k < strlen(s->ops)) {
        char op[2] = {s->ops[k], 0};
        cv_font(c, FS_TITLE, 1);
        cairo_set_source_rgb(c->cr, 0.2, 0.2, 0.2);
        cv_text(c, op, x + L->sw + ST_OP_W / 2.0, L->top + L->row_h * (double)s->n_rows / 2.0, 0.5, 0.5);
    }
    return 0;
}

/* The horizontal colour bar under the strips, vmin at its left, vmax at its right. */
static int hbar(canvas *c, const strip_layout *L, render_cmap cmap)
{
    int bw = L->W / 3, bh = 12, bx = (L->W - bw) / 2, by = L->H - ST_BOTTOM + 22;
    cairo_surface_t *bar = cv_image(c, bw, 1);
    if (!bar)
        return RENDER_E_CAIRO;
    for (int i = 0; i < bw; i++) {
        unsigned char rgb[3];
        cmap_rgb(cmap, bw > 1 ? (double)i / (bw - 1) : 0.5, rgb);
        put_px(bar, i, 0, rgb);
    }
    cairo_surface_mark_dirty(bar);
    paint_scaled(c->cr, bar, bw, 1, bx, by, bw, bh);
    cairo_surface_destroy(bar);
    cairo_set_source_rgb(c->cr, 0, 0, 0);
    cairo_set_line_width(c->cr, 1);
    cairo_rectangle(c->cr, bx - 0.5, by - 0.5, bw + 1, bh + 1);
    cairo_stroke(c->cr);
    cv_font(c, FS_TICK, 0);
    char b[32];
    snprintf(b, sizeof b, "%.3g", L->vmin);
    cv_text(c, b, bx - 8, by + bh / 2.0, 1.0, 0.5);
    snprintf(b, sizeof b, "%.3g", L->vmax);
    cv_text(c, b, bx + bw + 8, by + bh / 2.0, 0.0, 0.5);
    if (L->vmin < 0 && L->vmax > 0)
        cv_text(c, "0", bx + (bw - 1) * (-L->vmin) / (L->vmax - L->vmin), by + bh + 4, 0.5, 0.0);
    return 0;
}

int rw_strips_png(const render_strips *s, render_png *out, g2e_err *err)
{
    out->data = NULL, out->len = 0;
    strip_layout L;
    canvas c;
    int rc = check_strips(s, err);
    if (rc || (rc = cv_open(&c, 1, 1, err)))   /* a scratch canvas to measure the labels */
        return rc;
    rc = layout(s, &c, &L, err);
    cv_close(&c);
    if (rc || (rc = cv_open(&c, L.W, L.H, err)))
        return rc;
    for (size_t k = 0; k < s->n_strips && !rc; k++)
        rc = paint_strip(&c, s, &L, k);
    if (!rc && L.row_h >= 10) {
        char buf[512];
        cv_font(&c, FS_TICK, 0);
        cairo_set_source_rgb(c.cr, 0, 0, 0);
        for (size_t r = 0; r < s->n_rows; r++) {
            row_label(s, r, &c, L.lab_max, buf, sizeof buf);
            cv_text(&c, buf, L.left - 10, L.top + ((double)r + 0.5) * L.row_h - L.gap / 2.0, 1.0, 0.5);
        }
    }
    for (size_t r = 0; !rc && s->marked && r < s->n_rows; r++) {
        if (!s->marked[r])
            continue;   /* a triangle pointing at the row, in the margin right of the strips */
        double x = L.W - L.right + 6, y = L.top + ((double)r + 0.5) * L.row_h - L.gap / 2.0;
        double h = fmin(10, fmax(3, L.row_h - L.gap));
        cairo_set_source_rgb(c.cr, 0.15, 0.15, 0.15);
        cairo_move_to(c.cr, x, y);
        cairo_line_to(c.cr, x + h, y - h / 2);
        cairo_line_to(c.cr, x + h, y + h / 2);
        cairo_close_path(c.cr);
        cairo_fill(c.cr);
    }
    cv_title(&c, s->title, L.W / 2.0, 14, L.W - 16.0);
    if (rc || (rc = hbar(&c, &L, s->cmap))) {
        cv_close(&c);
        return rc;
    }
    return cv_finish(&c, out);
}
