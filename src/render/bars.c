/* SPDX-License-Identifier: MIT */
/* bars.c — a bar per value with an optional line over the bars (explained variance per
 * component and its cumulative sum). */
#include "canvas.h"
#include "render_impl.h"

#include <math.h>

static int check_bars(const render_bars *b, double *lo, double *hi, g2e_err *err)
{
    if (!b->values || b->n == 0 || b->n > 4096)
        return g2e_fail(err, RENDER_E_ARG, "a bar chart needs 1 to 4096 values, got %zu", b->n);
    if (!isfinite(b->x0) || !(b->ymax >= 0) || !isfinite(b->ymax))
        return g2e_fail(err, RENDER_E_ARG, "the bar chart's x0 and ymax must be finite, ymax >= 0");
    if (check_text(b->title, "title", err) || check_text(b->xlabel, "x label", err) ||
        check_text(b->ylabel, "y label", err) || check_text(b->bar_name, "bar name", err) ||
        check_text(b->line_name, "line name", err))
        return RENDER_E_ARG;
    *lo = 0, *hi = 0;
    for (size_t i = 0; i < b->n; i++) {
        if (!isfinite(b->values[i]) || (b->line && !isfinite(b->line[i])))
            return g2e_fail(err, RENDER_E_ARG, "bar %zu is not a finite number", i);
        *lo = fmin(*lo, b->values[i]), *hi = fmax(*hi, b->values[i]);
        if (b->line)
            *lo = fmin(*lo, b->line[i]), *hi = fmax(*hi, b->line[i]);
    }
    if (b->ymax > 0)
        *hi = fmax(*hi, b->ymax);
    return 0;
}

static void draw_bars(canvas *c, const axes *a, const render_bars *b)
{
    cairo_t *cr = c->cr;
    double rgb[3], bw = fmax(1.0, 0.8 * (ax_px(a, 1) - ax_px(a, 0)));
    series_rgb(0, rgb);
    cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
    for (size_t i = 0; i < b->n; i++) {
        double x = ax_px(a, b->x0 + (double)i), y0 = ax_py(a, 0), y1 = ax_py(a, b->values[i]);
        cairo_rectangle(cr, x - bw / 2, fmin(y0, y1), bw, fabs(y1 - y0));
    }
    cairo_fill(cr);
    if (!b->line)
        return;
    series_rgb(1, rgb);
    cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
    cairo_set_line_width(cr, 2);
    for (size_t i = 0; i < b->n; i++)
        (i ? cairo_line_to : cairo_move_to)(cr, ax_px(a, b->x0 + (double)i), ax_py(a, b->line[i]));
    cairo_stroke(cr);
    if (b->n <= 128)
        for (size_t i = 0; i < b->n; i++) {
            cairo_arc(cr, ax_px(a, b->x0 + (double)i), ax_py(a, b->line[i]), 3, 0, 2 * M_PI);
            cairo_fill(cr);
        }
}

/* 1 when the rectangle (x, y, w, h) in pixels covers part of a bar or of the line. */
static int covers_data(const axes *a, const render_bars *b, double x, double y, double w, double h)
{
    double bw = fmax(1.0, 0.8 * (ax_px(a, 1) - ax_px(a, 0)));
    for (size_t i = 0; i < b->n; i++) {
        double cx = ax_px(a, b->x0 + (double)i), y0 = ax_py(a, 0), y1 = ax_py(a, b->values[i]);
        if (cx + bw / 2 > x && cx - bw / 2 < x + w && fmax(y0, y1) > y && fmin(y0, y1) < y + h)
            return 1;
        if (!b->line)
            continue;
        /* the line from point i to i + 1, sampled every few pixels (and its dots) */
        double px = ax_px(a, b->x0 + (double)i), py = ax_py(a, b->line[i]);
        double qx = i + 1 < b->n ? ax_px(a, b->x0 + (double)i + 1) : px;
        double qy = i + 1 < b->n ? ax_py(a, b->line[i + 1]) : py;
        int steps = 1 + (int)(hypot(qx - px, qy - py) / 3);
        for (int k = 0; k <= steps; k++) {
            double sx = px + (qx - px) * k / steps, sy = py + (qy - py) * k / steps;
            if (sx > x - 4 && sx < x + w + 4 && sy > y - 4 && sy < y + h + 4)
                return 1;
        }
    }
    return 0;
}

/* The legend in the first corner of the area where it covers no bar and no part of the line
 * (top right, top left, middle right, middle left, bottom right above the axis, bottom
 * left), on a white box; when every place covers data, top right. */
static void bar_legend(canvas *c, const axes *a, const render_bars *b)
{
    const char *names[2] = {b->bar_name, b->line ? b->line_name : NULL};
    cv_font(c, FS_TICK, 0);
    double tw = 0;
    int rows = 0;
    for (int k = 0; k < 2; k++)
        if (names[k])
            tw = fmax(tw, cv_text_w(c, names[k])), rows++;
    if (!rows)
        return;
    double w = tw + 44, h = 20.0 * rows + 8, m = 10;
    const double spots[][2] = {{a->x + a->w - w - m, a->y + m}, {a->x + m, a->y + m},
                               {a->x + a->w - w - m, a->y + (a->h - h) / 2}, {a->x + m, a->y + (a->h - h) / 2},
                               {a->x + a->w - w - m, a->y + a->h - h - 3 * m}, {a->x + m, a->y + a->h - h - 3 * m}};
    size_t pick = 0;
    while (pick < sizeof spots / sizeof spots[0] && covers_data(a, b, spots[pick][0], spots[pick][1], w, h))
        pick++;
    if (pick == sizeof spots / sizeof spots[0])
        pick = 0;
    double x = spots[pick][0], y = spots[pick][1];
    cairo_set_source_rgba(c->cr, 1, 1, 1, 0.9);
    cairo_rectangle(c->cr, x, y, w, h);
    cairo_fill(c->cr);
    double ty = y + 14;
    for (int k = 0; k < 2; k++) {
        if (!names[k])
            continue;
        double rgb[3];
        series_rgb((size_t)k, rgb);
        cairo_set_source_rgb(c->cr, rgb[0], rgb[1], rgb[2]);
        cairo_rectangle(c->cr, x + 6, ty - 6, 22, 12);
        cairo_fill(c->cr);
        cairo_set_source_rgb(c->cr, 0, 0, 0);
        cv_text(c, names[k], x + 34, ty, 0, 0.5);
        ty += 20;
    }
}

int rw_bars_png(const render_bars *b, render_png *out, g2e_err *err)
{
    out->data = NULL, out->len = 0;
    double lo = 0, hi = 0;
    int rc = check_bars(b, &lo, &hi, err);
    int W = b->width, H = b->height;
    if (rc || (rc = check_size(&W, &H, 960, 600, 300, 200, err)))
        return rc;
    axes a = {.xmin = b->x0 - 0.6, .xmax = b->x0 + (double)b->n - 0.4, .ymin = lo, .ymax = hi};
    widen_range(&a.ymin, &a.ymax);
    a.ystep = nice_step(a.ymax - a.ymin, 6);
    if (!(b->ymax > 0))
        a.ymax = ceil(a.ymax / a.ystep - 1e-9) * a.ystep;
    a.ymin = floor(a.ymin / a.ystep + 1e-9) * a.ystep;
    a.xstep = fmax(1.0, nice_step((double)b->n, 8));
    canvas c;
    if ((rc = cv_open(&c, W, H, err)))
        return rc;
    cv_chart_axes(&c, &a, b->xlabel, b->ylabel, b->title);
    cairo_save(c.cr);
    cairo_rectangle(c.cr, a.x, a.y, a.w, a.h);
    cairo_clip(c.cr);
    draw_bars(&c, &a, b);
    cairo_restore(c.cr);
    bar_legend(&c, &a, b);
    return cv_finish(&c, out);
}
