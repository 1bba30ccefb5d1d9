/* SPDX-License-Identifier: MIT */
/* lines.c — line charts: several named series on numeric axes with a legend. */
#include "canvas.h"
#include "render_impl.h"

#include <math.h>

static int check_lines(const render_lines *p, double r[4], g2e_err *err)
{
    if (!p->series || p->n_series == 0 || p->n_series > RENDER_MAX_SERIES)
        return g2e_fail(err, RENDER_E_ARG, "a line chart needs 1 to %d series, got %zu",
                        RENDER_MAX_SERIES, p->n_series);
    r[0] = r[2] = INFINITY, r[1] = r[3] = -INFINITY;
    for (size_t s = 0; s < p->n_series; s++) {
        const render_series *se = &p->series[s];
        if (!se->x || !se->y || se->n == 0)
            return g2e_fail(err, RENDER_E_ARG, "series %zu of the line chart is empty", s);
        if (check_text(se->name, "series name", err))
            return RENDER_E_ARG;
        for (size_t i = 0; i < se->n; i++) {
            if (!isfinite(se->x[i]) || !isfinite(se->y[i]))
                continue;
            r[0] = fmin(r[0], se->x[i]), r[1] = fmax(r[1], se->x[i]);
            r[2] = fmin(r[2], se->y[i]), r[3] = fmax(r[3], se->y[i]);
        }
    }
    if (!(r[0] <= r[1]))
        return g2e_fail(err, RENDER_E_ARG, "the line chart has no finite point");
    if (check_text(p->title, "title", err) || check_text(p->xlabel, "x label", err) ||
        check_text(p->ylabel, "y label", err))
        return RENDER_E_ARG;
    return 0;
}

static void draw_series(canvas *c, const axes *a, const render_series *se, size_t k)
{
    cairo_t *cr = c->cr;
    double rgb[3];
    series_rgb(k, rgb);
    cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
    int pen = 0;
    for (size_t i = 0; i < se->n; i++) {
        if (!isfinite(se->x[i]) || !isfinite(se->y[i])) {
            pen = 0;
            continue;
        }
        if (pen)
            cairo_line_to(cr, ax_px(a, se->x[i]), ax_py(a, se->y[i]));
        else
            cairo_move_to(cr, ax_px(a, se->x[i]), ax_py(a, se->y[i]));
        pen = 1;
    }
    cairo_stroke(cr);
}

static int has_markers(const render_series *se, int markers)
{
    return markers > 0 || (markers == 0 && se->n <= 128);
}

/* The dots, drawn outside the area's clip: every point lies inside the data range, so a dot
 * at the range's end (GPT-2's position 0 at x = 0) would otherwise be cut in half. */
static void draw_markers(canvas *c, const axes *a, const render_series *se, size_t k, int markers)
{
    if (!has_markers(se, markers))
        return;
    double rgb[3];
    series_rgb(k, rgb);
    cairo_set_source_rgb(c->cr, rgb[0], rgb[1], rgb[2]);
    for (size_t i = 0; i < se->n; i++)
        if (isfinite(se->x[i]) && isfinite(se->y[i])) {
            /* a lone point (an outlier named in the legend) larger than a curve's dots */
            cairo_arc(c->cr, ax_px(a, se->x[i]), ax_py(a, se->y[i]), se->n == 1 ? 5 : 2.5, 0, 2 * M_PI);
            cairo_fill(c->cr);
        }
}

/* The legend at the top right inside the area: one entry per named series. */
static void legend(canvas *c, const axes *a, const render_series *series, size_t n)
{
    cairo_t *cr = c->cr;
    cv_font(c, FS_TICK, 0);
    double nw = 0;
    size_t named = 0;
    for (size_t s = 0; s < n; s++)
        if (series[s].name)
            nw = fmax(nw, cv_text_w(c, series[s].name)), named++;
    if (!named)
        return;
    double lx = a->x + a->w - nw - 52, ly = a->y + 10, lh = 20.0 * (double)named + 10;
    cairo_set_source_rgba(cr, 1, 1, 1, 0.9);
    cairo_rectangle(cr, lx, ly, nw + 42, lh);
    cairo_fill_preserve(cr);
    cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
    cairo_set_line_width(cr, 1);
    cairo_stroke(cr);
    double yy = ly + 15;
    for (size_t s = 0; s < n; s++) {
        if (!series[s].name)
            continue;
        double rgb[3];
        series_rgb(s, rgb);
        cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
        cairo_set_line_width(cr, 2);
        if (series[s].n == 1) {   /* a lone point has no line: its key is a dot */
            cairo_arc(cr, lx + 19, yy, 5, 0, 2 * M_PI);
            cairo_fill(cr);
        } else {
            cairo_move_to(cr, lx + 8, yy);
            cairo_line_to(cr, lx + 30, yy);
            cairo_stroke(cr);
        }
        cairo_set_source_rgb(cr, 0, 0, 0);
        cv_text(c, series[s].name, lx + 36, yy, 0, 0.5);
        yy += 20;
    }
}

int rw_lines_png(const render_lines *p, render_png *out, g2e_err *err)
{
    out->data = NULL, out->len = 0;
    double r[4] = {0, 0, 0, 0};
    int rc = check_lines(p, r, err);
    int W = p->width, H = p->height;
    if (rc || (rc = check_size(&W, &H, 960, 600, 300, 200, err)))
        return rc;
    axes a = {.xmin = r[0], .xmax = r[1], .ymin = r[2], .ymax = r[3]};
    widen_range(&a.xmin, &a.xmax);
    int dots = 0;
    for (size_t s = 0; s < p->n_series; s++)
        dots |= has_markers(&p->series[s], p->markers);
    if (dots) {   /* a dot at either end of the range stands clear of the frame */
        double pad = 0.015 * (a.xmax - a.xmin);
        a.xmin -= pad, a.xmax += pad;
    }
    widen_range(&a.ymin, &a.ymax);
    a.ystep = nice_step(a.ymax - a.ymin, 6);
    a.ymin = floor(a.ymin / a.ystep + 1e-9) * a.ystep;   /* a value on a tick stays the end */
    a.ymax = ceil(a.ymax / a.ystep - 1e-9) * a.ystep;
    a.xstep = nice_step(a.xmax - a.xmin, 8);
    canvas c;
    if ((rc = cv_open(&c, W, H, err)))
        return rc;
    cv_chart_axes(&c, &a, p->xlabel, p->ylabel, p->title);
    if (p->zero_line && a.ymin < 0 && a.ymax > 0) {
        cairo_set_source_rgb(c.cr, 0.3, 0.3, 0.3);
        cairo_set_line_width(c.cr, 1);
        cairo_move_to(c.cr, a.x, floor(ax_py(&a, 0.0)) + 0.5);
        cairo_line_to(c.cr, a.x + a.w, floor(ax_py(&a, 0.0)) + 0.5);
        cairo_stroke(c.cr);
    }
    cairo_save(c.cr);
    cairo_rectangle(c.cr, a.x, a.y, a.w, a.h);
    cairo_clip(c.cr);
    cairo_set_line_width(c.cr, 2);
    cairo_set_line_join(c.cr, CAIRO_LINE_JOIN_ROUND);
    for (size_t s = 0; s < p->n_series; s++)
        draw_series(&c, &a, &p->series[s], s);
    cairo_restore(c.cr);
    for (size_t s = 0; s < p->n_series; s++)
        draw_markers(&c, &a, &p->series[s], s, p->markers);
    legend(&c, &a, p->series, p->n_series);
    return cv_finish(&c, out);
}
