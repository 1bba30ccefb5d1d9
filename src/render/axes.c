/* SPDX-License-Identifier: MIT */
/* axes.c — ticks, numeric axes, images and the colour bar; see canvas.h. */
#include "canvas.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

double nice_step(double span, int want)
{
    if (!(span > 0))
        return 1.0;
    double raw = span / want;
    double mag = pow(10.0, floor(log10(raw)));
    double n = raw / mag;
    double s = n < 1.5 ? 1 : n < 3 ? 2 : n < 7 ? 5 : 10;
    return s * mag;
}

void fmt_tick(char *buf, size_t cap, double v, double step)
{
    if (fabs(v) < step * 1e-9)
        v = 0.0;
    int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
    if (dec > 6)
        dec = 6;
    snprintf(buf, cap, "%.*f", dec, v);
}

void widen_range(double *lo, double *hi)
{
    /* by 0.5 each way, or by a millionth of the magnitude when that is larger */
    if (!(*hi - *lo > 1e-9 * fmax(fabs(*lo), fabs(*hi)))) {
        double c = *lo / 2 + *hi / 2, half = fmax(0.5, fabs(c) * 1e-6);
        *lo = c - half, *hi = c + half;
    }
}

double ax_px(const axes *a, double v)
{
    return a->x + (v - a->xmin) / (a->xmax - a->xmin) * a->w;
}

double ax_py(const axes *a, double v)
{
    return a->y + a->h - (v - a->ymin) / (a->ymax - a->ymin) * a->h;
}

int cv_ytick_margin(canvas *c, double ymin, double ymax, double ystep)
{
    cv_font(c, FS_TICK, 0);
    double lw = 0;
    for (double v = ceil(ymin / ystep - 1e-9) * ystep; v <= ymax + ystep * 1e-9; v += ystep) {
        char b[32];
        fmt_tick(b, sizeof b, v, ystep);
        lw = fmax(lw, cv_text_w(c, b));
    }
    return (int)(lw + 52);
}

void cv_chart_axes(canvas *c, axes *a, const char *xlabel, const char *ylabel, const char *title)
{
    a->x = cv_ytick_margin(c, a->ymin, a->ymax, a->ystep), a->y = 52;
    a->w = c->w - a->x - 28, a->h = c->h - a->y - 64;
    cv_axes(c, a, xlabel, ylabel, title);
}

/* One grid line with its tick and label: vertical (x axis) or horizontal (y axis). */
static void grid_tick(canvas *c, const axes *a, double v, double step, int vertical)
{
    cairo_t *cr = c->cr;
    char b[32];
    fmt_tick(b, sizeof b, v, step);
    double p = floor(vertical ? ax_px(a, v) : ax_py(a, v)) + 0.5;
    cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
    if (vertical)
        cairo_move_to(cr, p, a->y), cairo_line_to(cr, p, a->y + a->h);
    else
        cairo_move_to(cr, a->x, p), cairo_line_to(cr, a->x + a->w, p);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    if (vertical) {
        cairo_move_to(cr, p, a->y + a->h), cairo_line_to(cr, p, a->y + a->h + 5);
        cairo_stroke(cr);
        cv_text(c, b, p, a->y + a->h + 8, 0.5, 0.0);
    } else {
        cairo_move_to(cr, a->x - 5, p), cairo_line_to(cr, a->x, p);
        cairo_stroke(cr);
        cv_text(c, b, a->x - 8, p, 1.0, 0.5);
    }
}

void cv_axes(canvas *c, const axes *a, const char *xlabel, const char *ylabel, const char *title)
{
    cairo_t *cr = c->cr;
    cv_font(c, FS_TICK, 0);
    cairo_set_line_width(cr, 1);
    for (double v = ceil(a->ymin / a->ystep - 1e-9) * a->ystep; v <= a->ymax + a->ystep * 1e-9;
         v += a->ystep)
        grid_tick(c, a, v, a->ystep, 0);
    for (double v = ceil(a->xmin / a->xstep - 1e-9) * a->xstep; v <= a->xmax + a->xstep * 1e-9;
         v += a->xstep)
        grid_tick(c, a, v, a->xstep, 1);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_rectangle(cr, a->x - 0.5, a->y - 0.5, a->w + 1, a->h + 1);
    cairo_stroke(cr);
    cv_font(c, FS_LABEL, 0);
    if (xlabel)
        cv_text(c, xlabel, a->x + a->w / 2.0, c->h - 8, 0.5, 1.0);
    if (ylabel)
        cv_text_vertical(c, ylabel, 18, a->y + a->h / 2.0);
    cv_title(c, title, c->w / 2.0, 14, c->w - 16.0);
}

cairo_surface_t *cv_image(canvas *c, int w, int h)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        g2e_fail(c->err, RENDER_E_CAIRO, "cannot create a %dx%d image: %s", w, h,
                 cairo_status_to_string(cairo_surface_status(s)));
        cairo_surface_destroy(s);
        return NULL;
    }
    return s;
}

void put_px(cairo_surface_t *s, int x, int y, const unsigned char c[3])
{
    unsigned char *d = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    uint32_t v = (uint32_t)c[0] << 16 | (uint32_t)c[1] << 8 | c[2];
    memcpy(d + (size_t)y * (size_t)stride + (size_t)x * 4, &v, 4);
}

void paint_scaled(cairo_t *cr, cairo_surface_t *img, int iw, int ih, double x, double y,
                  double w, double h)
{
    cairo_save(cr);
    cairo_rectangle(cr, x, y, w, h);
    cairo_clip(cr);
    cairo_translate(cr, x, y);
    cairo_scale(cr, w / iw, h / ih);
    cairo_set_source_surface(cr, img, 0, 0);
    cairo_pattern_t *p = cairo_get_source(cr);
    int enlarge = w >= iw && h >= ih;
    cairo_pattern_set_filter(p, enlarge ? CAIRO_FILTER_NEAREST : CAIRO_FILTER_GOOD);
    cairo_pattern_set_extend(p, CAIRO_EXTEND_PAD);
    cairo_paint(cr);
    cairo_restore(cr);
}

int cv_vbar(canvas *c, int x, int y, int w, int h, double vmin, double vmax, render_cmap cmap,
            const char *label)
{
    cairo_t *cr = c->cr;
    cairo_surface_t *img = cv_image(c, w, h);
    if (!img)
        return RENDER_E_CAIRO;
    for (int r = 0; r < h; r++) {
        unsigned char rgb[3];
        cmap_rgb(cmap, h > 1 ? (double)(h - 1 - r) / (h - 1) : 0.5, rgb);
        for (int k = 0; k < w; k++)
            put_px(img, k, r, rgb);
    }
    cairo_surface_mark_dirty(img);
    cairo_set_source_surface(cr, img, x, y);
    cairo_paint(cr);
    cairo_surface_destroy(img);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, x - 0.5, y - 0.5, w + 1, h + 1);
    cairo_stroke(cr);
    cv_font(c, FS_TICK, 0);
    double step = nice_step(vmax - vmin, 4), maxw = 0;
    /* no ticks on a range too narrow for its magnitude: the step would vanish in `v += step` */
    int ticks = vmax - vmin > 1e-9 * fmax(fabs(vmin), fabs(vmax));
    for (double v = ceil(vmin / step - 1e-9) * step; ticks && v <= vmax + step * 1e-9; v += step) {
        double py = y + (h - 1) * (vmax - v) / (vmax - vmin) + 0.5;
        cairo_move_to(cr, x + w, py);
        cairo_line_to(cr, x + w + 5, py);
        cairo_stroke(cr);
        char b[32];
        fmt_tick(b, sizeof b, v, step);
        cv_text(c, b, x + w + 8, py, 0, 0.5);
        maxw = fmax(maxw, cv_text_w(c, b));
    }
    if (label && *label) {
        cv_font(c, FS_LABEL, 0);
        cv_text_vertical(c, label, x + w + 8 + maxw + 16, y + h / 2.0);
    }
    return 0;
}
