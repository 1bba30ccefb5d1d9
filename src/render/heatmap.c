/* SPDX-License-Identifier: MIT */
/* heatmap.c — a grid of values as coloured cells with index ticks and a colour bar.
 *
 * Cells are painted into an image of exactly one pixel per value and then scaled onto the
 * data area: nearest-neighbour when enlarging (sharp cells whose centres carry the exact
 * colour, which the tests rely on), cairo's GOOD filter when shrinking (averaging, so a
 * matrix larger than the image does not alias). All layout is in whole pixels.
 */
#include "canvas.h"
#include "render_impl.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { HM_LEFT = 86, HM_TOP = 52, HM_BOTTOM = 64, HM_RIGHT = 118, HM_BAR_GAP = 22, HM_BAR_W = 20 };

static int check_heatmap(const render_heatmap *h, g2e_err *err)
{
    if (!h->z || h->nx == 0 || h->ny == 0 || h->nx > RENDER_MAX_SIDE || h->ny > RENDER_MAX_SIDE)
        return g2e_fail(err, RENDER_E_ARG, "a heatmap needs 1 to %d columns and rows, got %zu x %zu",
                        RENDER_MAX_SIDE, h->nx, h->ny);
    if (!(h->vmin < h->vmax) || !isfinite(h->vmin) || !isfinite(h->vmax))
        return g2e_fail(err, RENDER_E_ARG, "the colour range must have vmin < vmax, got [%g, %g]",
                        h->vmin, h->vmax);
    int rc = check_cmap(h->cmap, err);
    if (!rc) rc = check_text(h->title, "title", err);
    if (!rc) rc = check_text(h->xlabel, "x label", err);
    if (!rc) rc = check_text(h->ylabel, "y label", err);
    if (!rc) rc = check_text(h->cbar_label, "colour bar label", err);
    return rc;
}

static void place(render_layout *l, int w, int ht)
{
    memset(l, 0, sizeof *l);
    l->width = w, l->height = ht;
    l->area_x = HM_LEFT, l->area_y = HM_TOP;
    l->area_w = w - HM_LEFT - HM_RIGHT, l->area_h = ht - HM_TOP - HM_BOTTOM;
    l->bar_x = l->area_x + l->area_w + HM_BAR_GAP, l->bar_y = l->area_y;
    l->bar_w = HM_BAR_W, l->bar_h = l->area_h;
}

int rw_heatmap_layout(const render_heatmap *h, render_layout *l, g2e_err *err)
{
    int rc = check_heatmap(h, err);
    if (rc)
        return rc;
    /* by default, grow the image until every cell has at least one pixel (up to 2400
     * per side), so that no two data rows are averaged into one */
    int dw = 960, dh = 600;
    if ((int)h->nx > dw - HM_LEFT - HM_RIGHT)
        dw = (h->nx < 2400 ? (int)h->nx : 2400) + HM_LEFT + HM_RIGHT;
    if ((int)h->ny > dh - HM_TOP - HM_BOTTOM)
        dh = (h->ny < 2400 ? (int)h->ny : 2400) + HM_TOP + HM_BOTTOM;
    int w = h->width, ht = h->height;
    if ((rc = check_size(&w, &ht, dw, dh, HM_LEFT + HM_RIGHT + 40, HM_TOP + HM_BOTTOM + 40, err)))
        return rc;
    place(l, w, ht);
    /* square cells for a square matrix unless the caller chose the size */
    if (h->square && h->width == 0 && h->height == 0) {
        if (l->area_w > l->area_h)
            w -= l->area_w - l->area_h;
        else
            ht -= l->area_h - l->area_w;
        place(l, w, ht);
    }
    return 0;
}

/* Ticks along one axis of n cells starting at index v0, cell size `cell` pixels.
 * horizontal: labels under the axis at y = base; else left of it at x = base. */
static void index_ticks(canvas *c, size_t n, double v0, int horizontal, double origin,
                        double cell, double base, int flip)
{
    cairo_t *cr = c->cr;
    double step = nice_step((double)(n > 1 ? n - 1 : 1), horizontal ? 8 : 6);
    if (step < 1)
        step = 1;
    cv_font(c, FS_TICK, 0);
    cairo_set_line_width(cr, 1);
    for (double v = ceil(v0 / step) * step; v <= v0 + (double)n - 1 + 1e-9; v += step) {
        double k = v - v0;   /* cell index */
        char b[32];
        fmt_tick(b, sizeof b, v, step);
        if (horizontal) {
            double px = origin + (k + 0.5) * cell;
            cairo_move_to(cr, px, base);
            cairo_line_to(cr, px, base + 5);
            cairo_stroke(cr);
            cv_text(c, b, px, base + 8, 0.5, 0.0);
        } else {
            double py = flip ? origin - (k + 0.5) * cell : origin + (k + 0.5) * cell;
            cairo_move_to(cr, base, py);
            cairo_line_to(cr, base - 5, py);
            cairo_stroke(cr);
            cv_text(c, b, base - 8, py, 1.0, 0.5);
        }
    }
}

/* The cells, one pixel per value, scaled onto the data area. */
static int paint_cells(canvas *c, const render_heatmap *h, const render_layout *L)
{
    int nx = (int)h->nx, ny = (int)h->ny;
    cairo_surface_t *img = cv_image(c, nx, ny);
    if (!img)
        return RENDER_E_CAIRO;
    for (int y = 0; y < ny; y++) {
        int row = h->origin_top ? y : ny - 1 - y;
        for (int x = 0; x < nx; x++) {
            unsigned char rgb[3];
            cmap_value(h->cmap, h->z[(size_t)x * h->x_stride + (size_t)y * h->y_stride],
                       h->vmin, h->vmax, rgb);
            put_px(img, x, row, rgb);
        }
    }
    cairo_surface_mark_dirty(img);
    paint_scaled(c->cr, img, nx, ny, L->area_x, L->area_y, L->area_w, L->area_h);
    cairo_surface_destroy(img);
    return 0;
}

int rw_heatmap_png(const render_heatmap *h, render_png *out, g2e_err *err)
{
    out->data = NULL, out->len = 0;
    render_layout L;
    canvas c;
    int rc = rw_heatmap_layout(h, &L, err);
    if (rc || (rc = cv_open(&c, L.width, L.height, err)))
        return rc;
    if ((rc = paint_cells(&c, h, &L)))
        goto fail;
    cairo_set_source_rgb(c.cr, 0, 0, 0);
    cairo_set_line_width(c.cr, 1);
    cairo_rectangle(c.cr, L.area_x - 0.5, L.area_y - 0.5, L.area_w + 1, L.area_h + 1);
    cairo_stroke(c.cr);
    double cw = (double)L.area_w / (double)h->nx, ch = (double)L.area_h / (double)h->ny;
    index_ticks(&c, h->nx, h->x0, 1, L.area_x, cw, L.area_y + L.area_h, 0);
    if (h->origin_top)
        index_ticks(&c, h->ny, h->y0, 0, L.area_y, ch, L.area_x, 0);
    else
        index_ticks(&c, h->ny, h->y0, 0, L.area_y + L.area_h, ch, L.area_x, 1);
    cv_font(&c, FS_LABEL, 0);
    if (h->xlabel)
        cv_text(&c, h->xlabel, L.area_x + L.area_w / 2.0, L.height - 8, 0.5, 1.0);
    if (h->ylabel)
        cv_text_vertical(&c, h->ylabel, 18, L.area_y + L.area_h / 2.0);
    cv_title(&c, h->title, L.width / 2.0, 14, L.width - 16.0);
    if ((rc = cv_vbar(&c, L.bar_x, L.bar_y, L.bar_w, L.bar_h, h->vmin, h->vmax, h->cmap,
                      h->cbar_label)))
        goto fail;
    return cv_finish(&c, out);
fail:
    cv_close(&c);
    return rc;
}
