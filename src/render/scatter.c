/* SPDX-License-Identifier: MIT */
/* scatter.c — points coloured by a value, with a colour bar (the PCA helix, a rotating
 * pair on the unit circle). */
#include "canvas.h"
#include "render_impl.h"

#include <math.h>

enum { SC_BAR_W = 20, SC_RIGHT_BAR = 120, SC_RIGHT = 28 };

/* Ranges of the finite points into r[4] (x, y) and of c into cr[2]. */
static int check_scatter(const render_scatter *s, double r[4], double crange[2], g2e_err *err)
{
    if (!s->x || !s->y || s->n == 0)
        return g2e_fail(err, RENDER_E_ARG, "a scatter plot needs at least one point");
    if (check_cmap(s->cmap, err) || check_text(s->title, "title", err) ||
        check_text(s->xlabel, "x label", err) || check_text(s->ylabel, "y label", err) ||
        check_text(s->cbar_label, "colour bar label", err))
        return RENDER_E_ARG;
    if (!(s->radius >= 0 && s->radius <= 100))
        return g2e_fail(err, RENDER_E_ARG, "the point radius must be in 0..100, got %g", s->radius);
    r[0] = r[2] = crange[0] = INFINITY, r[1] = r[3] = crange[1] = -INFINITY;
    for (size_t i = 0; i < s->n; i++) {
        if (!isfinite(s->x[i]) || !isfinite(s->y[i]))
            continue;
        r[0] = fmin(r[0], s->x[i]), r[1] = fmax(r[1], s->x[i]);
        r[2] = fmin(r[2], s->y[i]), r[3] = fmax(r[3], s->y[i]);
        if (s->c && isfinite(s->c[i]))
            crange[0] = fmin(crange[0], s->c[i]), crange[1] = fmax(crange[1], s->c[i]);
    }
    if (!(r[0] <= r[1]))
        return g2e_fail(err, RENDER_E_ARG, "the scatter plot has no finite point");
    if (s->vmin < s->vmax) {
        if (!isfinite(s->vmin) || !isfinite(s->vmax))
            return g2e_fail(err, RENDER_E_ARG, "the colour range must be finite");
        crange[0] = s->vmin, crange[1] = s->vmax;
    } else if (!(crange[0] <= crange[1])) {
        crange[0] = 0, crange[1] = 1;
    }
    widen_range(&crange[0], &crange[1]);
    return 0;
}

/* Axis ranges with a margin, steps, and (equal aspect) one scale for both axes. */
static void fit_axes(axes *a, const double r[4], int equal, int W, int H, int right)
{
    a->xmin = r[0], a->xmax = r[1], a->ymin = r[2], a->ymax = r[3];
    widen_range(&a->xmin, &a->xmax);
    widen_range(&a->ymin, &a->ymax);
    double mx = (a->xmax - a->xmin) * 0.05, my = (a->ymax - a->ymin) * 0.05;
    a->xmin -= mx, a->xmax += mx, a->ymin -= my, a->ymax += my;
    a->y = 52, a->h = H - 52 - 64;
    a->w = W - a->x - right;
    if (equal) {
        double sx = a->w / (a->xmax - a->xmin), sy = a->h / (a->ymax - a->ymin);
        double scale = fmin(sx, sy);
        double cx = (a->xmin + a->xmax) / 2, cy = (a->ymin + a->ymax) / 2;
        double hx = a->w / scale / 2, hy = a->h / scale / 2;
        a->xmin = cx - hx, a->xmax = cx + hx, a->ymin = cy - hy, a->ymax = cy + hy;
    }
    a->xstep = nice_step(a->xmax - a->xmin, 8);
    a->ystep = nice_step(a->ymax - a->ymin, 6);
}

static void draw_points(canvas *c, const axes *a, const render_scatter *s, const double cr[2])
{
    cairo_t *g = c->cr;
    double rad = s->radius > 0 ? s->radius : 3;
    if (s->connect) {
        cairo_set_source_rgb(g, 0.82, 0.82, 0.82);
        cairo_set_line_width(g, 0.8);
        int pen = 0;
        for (size_t i = 0; i < s->n; i++) {
            int ok = isfinite(s->x[i]) && isfinite(s->y[i]);
            if (ok && pen)
                cairo_line_to(g, ax_px(a, s->x[i]), ax_py(a, s->y[i]));
            else if (ok)
                cairo_move_to(g, ax_px(a, s->x[i]), ax_py(a, s->y[i]));
            pen = ok;
        }
        cairo_stroke(g);
    }
    for (size_t i = 0; i < s->n; i++) {
        if (!isfinite(s->x[i]) || !isfinite(s->y[i]))
            continue;
        unsigned char rgb[3] = {0x1f, 0x77, 0xb4};
        if (s->c)
            cmap_value(s->cmap, s->c[i], cr[0], cr[1], rgb);
        cairo_set_source_rgb(g, rgb[0] / 255.0, rgb[1] / 255.0, rgb[2] / 255.0);
        cairo_arc(g, ax_px(a, s->x[i]), ax_py(a, s->y[i]), rad, 0, 2 * M_PI);
        cairo_fill(g);
    }
}

int rw_scatter_png(const render_scatter *s, render_png *out, g2e_err *err)
{
    out->data = NULL, out->len = 0;
    double r[4] = {0, 0, 0, 0}, crange[2] = {0, 1};
    int rc = check_scatter(s, r, crange, err);
    int W = s->width, H = s->height;
    if (rc || (rc = check_size(&W, &H, 800, 700, 300, 250, err)))
        return rc;
    int equal = s->equal_aspect || s->unit_circle;
    if (s->unit_circle)
        r[0] = fmin(r[0], -1), r[1] = fmax(r[1], 1), r[2] = fmin(r[2], -1), r[3] = fmax(r[3], 1);
    canvas c;
    if ((rc = cv_open(&c, W, H, err)))
        return rc;
    axes a = {0};
    fit_axes(&a, r, equal, W, H, s->c ? SC_RIGHT_BAR : SC_RIGHT);
    a.x = cv_ytick_margin(&c, a.ymin, a.ymax, a.ystep);
    fit_axes(&a, r, equal, W, H, s->c ? SC_RIGHT_BAR : SC_RIGHT);
    cv_axes(&c, &a, s->xlabel, s->ylabel, s->title);
    cairo_save(c.cr);
    cairo_rectangle(c.cr, a.x, a.y, a.w, a.h);
    cairo_clip(c.cr);
    if (s->unit_circle) {
        double px = ax_px(&a, 0), py = ax_py(&a, 0), rad = ax_px(&a, 1) - px;
        cairo_set_source_rgb(c.cr, 0.5, 0.5, 0.5);
        cairo_set_line_width(c.cr, 1);
        cairo_arc(c.cr, px, py, rad, 0, 2 * M_PI);
        cairo_stroke(c.cr);
    }
    draw_points(&c, &a, s, crange);
    cairo_restore(c.cr);
    if (s->c && (rc = cv_vbar(&c, a.x + a.w + 22, a.y, SC_BAR_W, a.h, crange[0], crange[1],
                              s->cmap, s->cbar_label))) {
        cv_close(&c);
        return rc;
    }
    return cv_finish(&c, out);
}
