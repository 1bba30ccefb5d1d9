/* plot.c — heatmaps, line charts and embedding strips as PNG through cairo; see plot.h.
 *
 * Data cells are painted into an image surface of exactly one pixel per value and then
 * scaled onto the plot area: nearest-neighbour when enlarging (sharp cells whose centres
 * carry the exact colour, which the tests rely on), cairo's GOOD filter when shrinking
 * (averaging, so a 1024-wide matrix does not alias). All layout is in whole pixels.
 */
#include "plot.h"

#include "cli.h"
#include "out.h"

#include <cairo/cairo.h>   /* no pkg-config flags needed: its own includes are relative */
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#define FONT "DejaVu Sans"
#define FONT_CJK "IPAGothic"   /* Debian fonts-ipafont-gothic: Japanese and CJK ideographs */
#define FS_TICK 12.0
#define FS_LABEL 14.0
#define FS_TITLE 17.0

static const unsigned char STOPS[11][3] = {
    {0x05, 0x30, 0x61}, {0x21, 0x66, 0xac}, {0x43, 0x93, 0xc3}, {0x92, 0xc5, 0xde},
    {0xd1, 0xe5, 0xf0}, {0xff, 0xff, 0xff}, {0xfd, 0xdb, 0xc7}, {0xf4, 0xa5, 0x82},
    {0xd6, 0x60, 0x4d}, {0xb2, 0x18, 0x2b}, {0x67, 0x00, 0x1f},
};

static const double SERIES_RGB[PLOT_MAX_SERIES][3] = {
    {0x1f / 255.0, 0x77 / 255.0, 0xb4 / 255.0}, {0xff / 255.0, 0x7f / 255.0, 0x0e / 255.0},
    {0x2c / 255.0, 0xa0 / 255.0, 0x2c / 255.0}, {0xd6 / 255.0, 0x27 / 255.0, 0x28 / 255.0},
    {0x94 / 255.0, 0x67 / 255.0, 0xbd / 255.0}, {0x8c / 255.0, 0x56 / 255.0, 0x4b / 255.0},
};

void plot_cmap(double t, unsigned char rgb[3])
{
    if (isnan(t)) {
        rgb[0] = rgb[1] = rgb[2] = 0x80;
        return;
    }
    if (t < 0.0)
        t = 0.0;
    if (t > 1.0)
        t = 1.0;
    double u = t * 10.0;
    int k = (int)floor(u);
    if (k >= 10)
        k = 9;
    double f = u - k;
    for (int c = 0; c < 3; c++) {
        double v = STOPS[k][c] + (STOPS[k + 1][c] - STOPS[k][c]) * f;
        rgb[c] = (unsigned char)lround(v);
    }
}

void plot_cmap_value(double v, double vmin, double vmax, unsigned char rgb[3])
{
    plot_cmap((v - vmin) / (vmax - vmin), rgb);
}

/* ---- drawing helpers ---- */

/* cairo and fontconfig keep font caches for the life of the process; hand them back at
 * exit so that leak checkers (ASan in `make SANITIZE=1 test`) see a clean process. */
static void release_caches(void)
{
    cairo_debug_reset_static_data();
    FcFini();
}

static int cur_bold;   /* the weight font() last chose, for the face switches below */

static void face(cairo_t *cr, const char *family)
{
    cairo_select_font_face(cr, family, CAIRO_FONT_SLANT_NORMAL,
                           cur_bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
}

static void font(cairo_t *cr, double size, int bold)
{
    static int registered;
    if (!registered) {
        registered = 1;
        atexit(release_caches);
    }
    cur_bold = bold;
    face(cr, FONT);
    cairo_set_font_size(cr, size);
}

/* Characters DejaVu Sans lacks and FONT_CJK has: CJK, kana, Hangul, full-width forms. */
static int is_cjk(int32_t c)
{
    return (c >= 0x2E80 && c <= 0x9FFF) || (c >= 0xAC00 && c <= 0xD7AF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFE30 && c <= 0xFE4F) ||
           (c >= 0xFF00 && c <= 0xFFEF) || (c >= 0x20000 && c <= 0x3FFFF);
}

/* Cairo's text API has no font fallback, so a string is cut into runs of CJK and other
 * characters, each shown in a face that has its glyphs. Shows s at the current point if
 * draw, and returns its advance either way. Invalid UTF-8 is passed on to cairo as is
 * (cairo then draws nothing for it). */
static double text_runs(cairo_t *cr, const char *s, int draw)
{
    double w = 0;
    size_t n = strlen(s);
    char buf[256];
    for (size_t i = 0; i < n;) {
        int32_t cp;
        utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s + i,
                                              (utf8proc_ssize_t)(n - i), &cp);
        if (k <= 0) {
            cp = 0;
            k = 1;
        }
        int cjk = is_cjk(cp);
        size_t j = i + (size_t)k;
        while (j < n && j - i < sizeof buf - 5) {
            utf8proc_ssize_t k2 = utf8proc_iterate((const utf8proc_uint8_t *)s + j,
                                                   (utf8proc_ssize_t)(n - j), &cp);
            if (k2 <= 0)
                k2 = 1, cp = 0;
            if (is_cjk(cp) != cjk)
                break;
            j += (size_t)k2;
        }
        memcpy(buf, s + i, j - i);
        buf[j - i] = '\0';
        face(cr, cjk ? FONT_CJK : FONT);
        cairo_text_extents_t e;
        cairo_text_extents(cr, buf, &e);
        w += e.x_advance;
        if (draw)
            cairo_show_text(cr, buf);
        i = j;
    }
    face(cr, FONT);
    return w;
}

static double text_w(cairo_t *cr, const char *s)
{
    return text_runs(cr, s, 0);
}

/* Draws s with its anchor at (x, y): ax 0 left, 0.5 centre, 1 right; ay likewise for the
 * font's ascent (0 top, 0.5 middle, 1 baseline). */
static void text_at(cairo_t *cr, const char *s, double x, double y, double ax, double ay)
{
    cairo_font_extents_t fe;
    cairo_font_extents(cr, &fe);
    double w = text_w(cr, s);
    double base;
    if (ay <= 0.0)
        base = y + fe.ascent * 0.78;          /* top of capitals at y */
    else if (ay < 1.0)
        base = y + fe.ascent * 0.39;          /* capitals centred on y */
    else
        base = y;
    cairo_move_to(cr, x - ax * w, base);
    text_runs(cr, s, 1);
}

/* Text rotated 90° counter-clockwise, centred on (x, y). */
static void text_vertical(cairo_t *cr, const char *s, double x, double y)
{
    cairo_save(cr);
    cairo_translate(cr, x, y);
    cairo_rotate(cr, -M_PI / 2);
    text_at(cr, s, 0, 0, 0.5, 0.5);
    cairo_restore(cr);
}

/* A "nice" tick step (1, 2 or 5 times a power of ten) for about `want` ticks over span. */
static double nice_step(double span, int want)
{
    if (!(span > 0))
        return 1.0;
    double raw = span / want;
    double mag = pow(10.0, floor(log10(raw)));
    double n = raw / mag;
    double s = n < 1.5 ? 1 : n < 3 ? 2 : n < 7 ? 5 : 10;
    return s * mag;
}

static void fmt_tick(char *buf, size_t cap, double v, double step)
{
    if (fabs(v) < step * 1e-9)
        v = 0.0;
    int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
    if (dec > 6)
        dec = 6;
    snprintf(buf, cap, "%.*f", dec, v);
}

/* An RGB24 image of w x h pixels; fill via pixels(). NULL on failure. */
static cairo_surface_t *image(int w, int h)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(s);
        return NULL;
    }
    return s;
}

static void put_px(cairo_surface_t *s, int x, int y, const unsigned char c[3])
{
    unsigned char *d = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    uint32_t v = (uint32_t)c[0] << 16 | (uint32_t)c[1] << 8 | c[2];
    memcpy(d + (size_t)y * (size_t)stride + (size_t)x * 4, &v, 4);
}

/* Paints img (iw x ih) scaled onto the rectangle (x, y, w, h). */
static void paint_scaled(cairo_t *cr, cairo_surface_t *img, int iw, int ih, double x, double y,
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

static cairo_status_t png_write(void *closure, const unsigned char *data, unsigned int len)
{
    FILE *f = closure;
    return fwrite(data, 1, len, f) == len ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

/* Writes surface s as PNG through the atomic output path. */
static int save_png(cairo_surface_t *s, const char *path)
{
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        cli_error("drawing failed: %s", cairo_status_to_string(cairo_surface_status(s)));
        return -1;
    }
    cairo_surface_flush(s);
    out_file o;
    if (out_open(&o, path, 1) != 0)
        return -1;
    cairo_status_t st = cairo_surface_write_to_png_stream(s, png_write, o.f);
    if (st != CAIRO_STATUS_SUCCESS) {
        cli_error("writing the PNG to %s failed: %s", o.name, cairo_status_to_string(st));
        out_abort(&o);
        return -1;
    }
    return out_commit(&o);
}

static int check_size(int *w, int *h, int dw, int dh, int minw, int minh)
{
    if (*w == 0)
        *w = dw;
    if (*h == 0)
        *h = dh;
    if (*w < minw || *h < minh || *w > PLOT_MAX_SIDE || *h > PLOT_MAX_SIDE) {
        cli_error("the image size %dx%d is outside %dx%d .. %dx%d", *w, *h, minw, minh,
                  PLOT_MAX_SIDE, PLOT_MAX_SIDE);
        return -1;
    }
    return 0;
}

/* s truncated with "…" to fit max_w pixels in the current font, into buf[cap]. */
static void fit_text(cairo_t *cr, const char *s, double max_w, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s", s);
    if (text_w(cr, buf) <= max_w)
        return;
    size_t n = strlen(buf);
    while (n > 0) {
        n--;
        while (n > 0 && ((unsigned char)buf[n] & 0xC0) == 0x80)   /* whole characters */
            n--;
        if (n + 4 > cap)
            continue;
        memcpy(buf + n, "\xE2\x80\xA6", 4);   /* … and NUL */
        if (text_w(cr, buf) <= max_w)
            return;
    }
    snprintf(buf, cap, "\xE2\x80\xA6");
}

/* The title centred on cx, shrunk (down to 10 pt) and then cut with "…" to fit max_w. */
static void draw_title(cairo_t *cr, const char *title, double cx, double y, double max_w)
{
    if (!title || !*title)
        return;
    double size = FS_TITLE;
    font(cr, size, 1);
    while (text_w(cr, title) > max_w && size > 10.0) {
        size -= 1.0;
        font(cr, size, 1);
    }
    char buf[512];
    fit_text(cr, title, max_w, buf, sizeof buf);
    cairo_set_source_rgb(cr, 0, 0, 0);
    text_at(cr, buf, cx, y, 0.5, 0.0);
}

/* A vertical colour bar at (x, y, w, h), vmax at the top row, vmin at the bottom row,
 * ticks and their labels on its right, label rotated further right. */
static int draw_vbar(cairo_t *cr, int x, int y, int w, int h, double vmin, double vmax,
                     const char *label)
{
    cairo_surface_t *img = image(w, h);
    if (!img)
        return -1;
    for (int r = 0; r < h; r++) {
        double t = h > 1 ? (double)(h - 1 - r) / (h - 1) : 0.5;
        unsigned char c[3];
        plot_cmap(t, c);
        for (int k = 0; k < w; k++)
            put_px(img, k, r, c);
    }
    cairo_surface_mark_dirty(img);
    cairo_set_source_surface(cr, img, x, y);
    cairo_paint(cr);
    cairo_surface_destroy(img);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, x - 0.5, y - 0.5, w + 1, h + 1);
    cairo_stroke(cr);
    font(cr, FS_TICK, 0);
    double step = nice_step(vmax - vmin, 4);
    double maxw = 0;
    /* no ticks on a range too narrow for its magnitude: the step would vanish in `v += step` */
    int ticks = vmax - vmin > 1e-9 * fmax(fabs(vmin), fabs(vmax));
    for (double v = ceil(vmin / step - 1e-9) * step; ticks && v <= vmax + step * 1e-9; v += step) {
        double py = y + (h - 1) * (vmax - v) / (vmax - vmin) + 0.5;
        cairo_move_to(cr, x + w, py);
        cairo_line_to(cr, x + w + 5, py);
        cairo_stroke(cr);
        char b[32];
        fmt_tick(b, sizeof b, v, step);
        text_at(cr, b, x + w + 8, py, 0, 0.5);
        if (text_w(cr, b) > maxw)
            maxw = text_w(cr, b);
    }
    if (label && *label) {
        font(cr, FS_LABEL, 0);
        text_vertical(cr, label, x + w + 8 + maxw + 16, y + h / 2.0);
    }
    return 0;
}

/* ---- heatmap ---- */

enum { HM_LEFT = 86, HM_TOP = 52, HM_BOTTOM = 64, HM_RIGHT = 118, HM_BAR_GAP = 22, HM_BAR_W = 20 };

int plot_heatmap_layout(const plot_heatmap *h, plot_layout *l)
{
    if (!h->z || h->nx == 0 || h->ny == 0 || h->nx > PLOT_MAX_SIDE || h->ny > PLOT_MAX_SIDE) {
        cli_error("a heatmap needs 1 to %d columns and rows, got %zu x %zu", PLOT_MAX_SIDE,
                  h->nx, h->ny);
        return -1;
    }
    if (!(h->vmin < h->vmax) || !isfinite(h->vmin) || !isfinite(h->vmax)) {
        cli_error("the colour range must have vmin < vmax, got [%g, %g]", h->vmin, h->vmax);
        return -1;
    }
    /* by default, grow the image until every cell has at least one pixel (up to 2400
     * per side), so that no two data rows are averaged into one */
    int dw = 960, dh = 600;
    if ((int)h->nx > dw - HM_LEFT - HM_RIGHT)
        dw = (h->nx < 2400 ? (int)h->nx : 2400) + HM_LEFT + HM_RIGHT;
    if ((int)h->ny > dh - HM_TOP - HM_BOTTOM)
        dh = (h->ny < 2400 ? (int)h->ny : 2400) + HM_TOP + HM_BOTTOM;
    int w = h->width, ht = h->height;
    if (check_size(&w, &ht, dw, dh, HM_LEFT + HM_RIGHT + 40, HM_TOP + HM_BOTTOM + 40))
        return -1;
    memset(l, 0, sizeof *l);
    l->width = w;
    l->height = ht;
    l->area_x = HM_LEFT;
    l->area_y = HM_TOP;
    l->area_w = w - HM_LEFT - HM_RIGHT;
    l->area_h = ht - HM_TOP - HM_BOTTOM;
    l->bar_x = l->area_x + l->area_w + HM_BAR_GAP;
    l->bar_y = l->area_y;
    l->bar_w = HM_BAR_W;
    l->bar_h = l->area_h;
    return 0;
}

/* Ticks along one axis of n cells starting at index v0, cell size `cell` pixels.
 * horizontal: labels under the axis at y = base; else left of it at x = base. */
static void index_ticks(cairo_t *cr, size_t n, double v0, int horizontal, double origin,
                        double cell, double base, int flip)
{
    double step = nice_step((double)(n > 1 ? n - 1 : 1), horizontal ? 8 : 6);
    if (step < 1)
        step = 1;
    font(cr, FS_TICK, 0);
    cairo_set_line_width(cr, 1);
    double first = ceil(v0 / step) * step;
    for (double v = first; v <= v0 + (double)n - 1 + 1e-9; v += step) {
        double k = v - v0;   /* cell index */
        char b[32];
        fmt_tick(b, sizeof b, v, step);
        if (horizontal) {
            double px = origin + (k + 0.5) * cell;
            cairo_move_to(cr, px, base);
            cairo_line_to(cr, px, base + 5);
            cairo_stroke(cr);
            text_at(cr, b, px, base + 8, 0.5, 0.0);
        } else {
            double py = flip ? origin - (k + 0.5) * cell : origin + (k + 0.5) * cell;
            cairo_move_to(cr, base, py);
            cairo_line_to(cr, base - 5, py);
            cairo_stroke(cr);
            text_at(cr, b, base - 8, py, 1.0, 0.5);
        }
    }
}

int plot_heatmap_png(const plot_heatmap *h, const char *path)
{
    plot_layout L;
    if (plot_heatmap_layout(h, &L))
        return -1;
    int nx = (int)h->nx, ny = (int)h->ny;
    cairo_surface_t *img = image(nx, ny);
    cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, L.width, L.height);
    cairo_t *cr = cairo_create(surf);
    int rc = -1;
    if (!img || cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
        cli_error("cannot create a %dx%d image", L.width, L.height);
        goto done;
    }
    for (int y = 0; y < ny; y++) {
        int row = h->origin_top ? y : ny - 1 - y;
        for (int x = 0; x < nx; x++) {
            unsigned char c[3];
            double v = h->z[(size_t)x * h->x_stride + (size_t)y * h->y_stride];
            plot_cmap_value(v, h->vmin, h->vmax, c);
            put_px(img, x, row, c);
        }
    }
    cairo_surface_mark_dirty(img);

    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    paint_scaled(cr, img, nx, ny, L.area_x, L.area_y, L.area_w, L.area_h);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, L.area_x - 0.5, L.area_y - 0.5, L.area_w + 1, L.area_h + 1);
    cairo_stroke(cr);

    double cw = (double)L.area_w / nx, ch = (double)L.area_h / ny;
    index_ticks(cr, h->nx, h->x0, 1, L.area_x, cw, L.area_y + L.area_h, 0);
    if (h->origin_top)
        index_ticks(cr, h->ny, h->y0, 0, L.area_y, ch, L.area_x, 0);
    else
        index_ticks(cr, h->ny, h->y0, 0, L.area_y + L.area_h, ch, L.area_x, 1);

    font(cr, FS_LABEL, 0);
    if (h->xlabel)
        text_at(cr, h->xlabel, L.area_x + L.area_w / 2.0, L.height - 8, 0.5, 1.0);
    if (h->ylabel)
        text_vertical(cr, h->ylabel, 18, L.area_y + L.area_h / 2.0);
    draw_title(cr, h->title, L.width / 2.0, 14, L.width - 16.0);
    if (draw_vbar(cr, L.bar_x, L.bar_y, L.bar_w, L.bar_h, h->vmin, h->vmax, h->cbar_label))
        goto done;
    rc = save_png(surf, path);
done:
    cairo_destroy(cr);
    cairo_surface_destroy(surf);
    if (img)
        cairo_surface_destroy(img);
    return rc;
}

/* ---- line chart ---- */

int plot_lines_png(const plot_lines *p, const char *path)
{
    if (!p->series || p->n_series == 0 || p->n_series > PLOT_MAX_SERIES) {
        cli_error("a line chart needs 1 to %d series, got %zu", PLOT_MAX_SERIES, p->n_series);
        return -1;
    }
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    for (size_t s = 0; s < p->n_series; s++) {
        const plot_series *se = &p->series[s];
        if (!se->x || !se->y || se->n == 0) {
            cli_error("series %zu of the line chart is empty", s);
            return -1;
        }
        for (size_t i = 0; i < se->n; i++) {
            if (!isfinite(se->x[i]) || !isfinite(se->y[i]))
                continue;
            xmin = fmin(xmin, se->x[i]), xmax = fmax(xmax, se->x[i]);
            ymin = fmin(ymin, se->y[i]), ymax = fmax(ymax, se->y[i]);
        }
    }
    if (!(xmin <= xmax)) {
        cli_error("the line chart has no finite point");
        return -1;
    }
    /* A range that is empty, or so narrow against its magnitude that a tick step would
     * vanish below the last bit of the values (1 and 1 + 2^-52: `v += step` would never
     * move and the tick loops would not end), is widened around its middle: by 0.5 each
     * way, or by a millionth of the magnitude when that is larger. */
    if (!(xmax - xmin > 1e-9 * fmax(fabs(xmin), fabs(xmax)))) {
        double c = xmin / 2 + xmax / 2, half = fmax(0.5, fabs(c) * 1e-6);
        xmin = c - half, xmax = c + half;
    }
    if (!(ymax - ymin > 1e-9 * fmax(fabs(ymin), fabs(ymax)))) {
        double c = ymin / 2 + ymax / 2, half = fmax(0.5, fabs(c) * 1e-6);
        ymin = c - half, ymax = c + half;
    }
    double ystep = nice_step(ymax - ymin, 6);
    ymin = floor(ymin / ystep + 1e-9) * ystep;   /* a value on a tick stays the end */
    ymax = ceil(ymax / ystep - 1e-9) * ystep;
    double xstep = nice_step(xmax - xmin, 8);

    int W = p->width, H = p->height;
    if (check_size(&W, &H, 960, 600, 300, 200))
        return -1;
    cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
    cairo_t *cr = cairo_create(surf);
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
        cli_error("cannot create a %dx%d image", W, H);
        cairo_destroy(cr);
        cairo_surface_destroy(surf);
        return -1;
    }
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);

    /* left margin from the widest y tick label */
    font(cr, FS_TICK, 0);
    double lw = 0;
    for (double v = ymin; v <= ymax + ystep * 1e-9; v += ystep) {
        char b[32];
        fmt_tick(b, sizeof b, v, ystep);
        lw = fmax(lw, text_w(cr, b));
    }
    int ax = (int)(lw + 52), ay = 52, aw = W - ax - 28, ah = H - ay - 64;
#define PX(v) (ax + ((v) - xmin) / (xmax - xmin) * aw)
#define PY(v) (ay + ah - ((v) - ymin) / (ymax - ymin) * ah)
    /* grid and ticks */
    cairo_set_line_width(cr, 1);
    for (double v = ymin; v <= ymax + ystep * 1e-9; v += ystep) {
        double py = floor(PY(v)) + 0.5;
        cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
        cairo_move_to(cr, ax, py);
        cairo_line_to(cr, ax + aw, py);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        cairo_move_to(cr, ax - 5, py);
        cairo_line_to(cr, ax, py);
        cairo_stroke(cr);
        char b[32];
        fmt_tick(b, sizeof b, v, ystep);
        text_at(cr, b, ax - 8, py, 1.0, 0.5);
    }
    for (double v = ceil(xmin / xstep - 1e-9) * xstep; v <= xmax + xstep * 1e-9; v += xstep) {
        double px = floor(PX(v)) + 0.5;
        cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
        cairo_move_to(cr, px, ay);
        cairo_line_to(cr, px, ay + ah);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        cairo_move_to(cr, px, ay + ah);
        cairo_line_to(cr, px, ay + ah + 5);
        cairo_stroke(cr);
        char b[32];
        fmt_tick(b, sizeof b, v, xstep);
        text_at(cr, b, px, ay + ah + 8, 0.5, 0.0);
    }
    if (p->zero_line && ymin < 0 && ymax > 0) {
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        cairo_move_to(cr, ax, floor(PY(0.0)) + 0.5);
        cairo_line_to(cr, ax + aw, floor(PY(0.0)) + 0.5);
        cairo_stroke(cr);
    }
    /* the series, clipped to the area */
    cairo_save(cr);
    cairo_rectangle(cr, ax, ay, aw, ah);
    cairo_clip(cr);
    cairo_set_line_width(cr, 2);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    for (size_t s = 0; s < p->n_series; s++) {
        const plot_series *se = &p->series[s];
        cairo_set_source_rgb(cr, SERIES_RGB[s][0], SERIES_RGB[s][1], SERIES_RGB[s][2]);
        int pen = 0;
        for (size_t i = 0; i < se->n; i++) {
            if (!isfinite(se->x[i]) || !isfinite(se->y[i])) {
                pen = 0;
                continue;
            }
            if (pen)
                cairo_line_to(cr, PX(se->x[i]), PY(se->y[i]));
            else
                cairo_move_to(cr, PX(se->x[i]), PY(se->y[i]));
            pen = 1;
        }
        cairo_stroke(cr);
        if (se->n <= 128) {   /* few points: mark them */
            for (size_t i = 0; i < se->n; i++)
                if (isfinite(se->x[i]) && isfinite(se->y[i])) {
                    cairo_arc(cr, PX(se->x[i]), PY(se->y[i]), 2.5, 0, 2 * M_PI);
                    cairo_fill(cr);
                }
        }
    }
    cairo_restore(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, ax - 0.5, ay - 0.5, aw + 1, ah + 1);
    cairo_stroke(cr);
#undef PX
#undef PY
    /* legend, top right inside the area */
    font(cr, FS_TICK, 0);
    double nw = 0;
    for (size_t s = 0; s < p->n_series; s++)
        nw = fmax(nw, text_w(cr, p->series[s].name ? p->series[s].name : ""));
    double lx = ax + aw - nw - 52, ly = ay + 10, lh = 20.0 * (double)p->n_series + 10;
    cairo_set_source_rgba(cr, 1, 1, 1, 0.9);
    cairo_rectangle(cr, lx, ly, nw + 42, lh);
    cairo_fill_preserve(cr);
    cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
    cairo_stroke(cr);
    for (size_t s = 0; s < p->n_series; s++) {
        double yy = ly + 15 + 20.0 * (double)s;
        cairo_set_source_rgb(cr, SERIES_RGB[s][0], SERIES_RGB[s][1], SERIES_RGB[s][2]);
        cairo_set_line_width(cr, 2);
        cairo_move_to(cr, lx + 8, yy);
        cairo_line_to(cr, lx + 30, yy);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        text_at(cr, p->series[s].name ? p->series[s].name : "", lx + 36, yy, 0, 0.5);
    }
    font(cr, FS_LABEL, 0);
    if (p->xlabel)
        text_at(cr, p->xlabel, ax + aw / 2.0, H - 8, 0.5, 1.0);
    if (p->ylabel)
        text_vertical(cr, p->ylabel, 18, ay + ah / 2.0);
    draw_title(cr, p->title, W / 2.0, 14, W - 16.0);
    int rc = save_png(surf, path);
    cairo_destroy(cr);
    cairo_surface_destroy(surf);
    return rc;
}

/* ---- strips ---- */

int plot_strips_png(const plot_strips *s, const char *path)
{
    if (s->n_rows == 0 || s->n_rows > 4096 || s->dim == 0 || s->dim > PLOT_MAX_SIDE ||
        s->n_strips == 0 || s->n_strips > PLOT_MAX_STRIPS || !s->data) {
        cli_error("a strips figure needs 1..4096 rows, 1..%d values and 1..%d strips, got %zu, %zu, %zu",
                  PLOT_MAX_SIDE, PLOT_MAX_STRIPS, s->n_rows, s->dim, s->n_strips);
        return -1;
    }
    double vmin = s->vmin, vmax = s->vmax;
    if (!(vmin < vmax)) {
        double m = 0;
        for (size_t k = 0; k < s->n_strips; k++)
            for (size_t i = 0; i < s->n_rows * s->dim; i++)
                if (isfinite(s->data[k][i]))
                    m = fmax(m, fabs(s->data[k][i]));
        if (m == 0)
            m = 1;
        vmin = -m, vmax = m;
    }
    int W = s->width ? s->width : 1280;
    int row_h = s->n_rows <= 200 ? 22 : (int)fmax(2, 7000.0 / (double)s->n_rows);
    int top = s->title ? 84 : 52, bottom = 78;
    int H = top + row_h * (int)s->n_rows + bottom;
    if (check_size(&W, &H, 1280, H, 400, 100))
        return -1;

    cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
    cairo_t *cr = cairo_create(surf);
    cairo_surface_t *img = image((int)s->dim, 1);
    int rc = -1;
    if (!img || cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
        cli_error("cannot create a %dx%d image", W, H);
        goto done;
    }
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);

    /* label column: as wide as the widest label, at most a fifth of the image */
    font(cr, FS_TICK, 0);
    double lab_max = W / 5.0, lab_w = 30;
    char buf[512];
    for (size_t r = 0; r < s->n_rows; r++) {
        if (s->labels && s->labels[r])
            fit_text(cr, s->labels[r], lab_max, buf, sizeof buf);
        else
            snprintf(buf, sizeof buf, "%zu", r);
        lab_w = fmax(lab_w, text_w(cr, buf));
    }
    int left = (int)lab_w + 20, right = 20, op_w = 26;
    int sw = (W - left - right - op_w * ((int)s->n_strips - 1)) / (int)s->n_strips;
    if (sw < 8) {
        cli_error("the image is too narrow for %zu strips", s->n_strips);
        goto done;
    }
    int gap = row_h >= 10 ? 3 : 0;
    for (size_t k = 0; k < s->n_strips; k++) {
        int x = left + (int)k * (sw + op_w);
        if (s->strip_names && s->strip_names[k]) {
            font(cr, FS_LABEL, 1);
            cairo_set_source_rgb(cr, 0, 0, 0);
            text_at(cr, s->strip_names[k], x + sw / 2.0, top - 10, 0.5, 1.0);
        }
        for (size_t r = 0; r < s->n_rows; r++) {
            const float *v = s->data[k] + r * s->dim;
            for (size_t j = 0; j < s->dim; j++) {
                unsigned char c[3];
                plot_cmap_value(v[j], vmin, vmax, c);
                put_px(img, (int)j, 0, c);
            }
            cairo_surface_mark_dirty(img);
            paint_scaled(cr, img, (int)s->dim, 1, x, top + (double)r * row_h, sw, row_h - gap);
        }
        if (k + 1 < s->n_strips && s->ops && k < strlen(s->ops)) {
            char op[2] = {s->ops[k], 0};
            font(cr, FS_TITLE, 1);
            cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
            text_at(cr, op, x + sw + op_w / 2.0, top + row_h * (double)s->n_rows / 2.0, 0.5, 0.5);
        }
    }
    if (row_h >= 10) {
        font(cr, FS_TICK, 0);
        cairo_set_source_rgb(cr, 0, 0, 0);
        for (size_t r = 0; r < s->n_rows; r++) {
            if (s->labels && s->labels[r])
                fit_text(cr, s->labels[r], lab_max, buf, sizeof buf);
            else
                snprintf(buf, sizeof buf, "%zu", r);
            text_at(cr, buf, left - 10, top + ((double)r + 0.5) * row_h - gap / 2.0, 1.0, 0.5);
        }
    }
    draw_title(cr, s->title, W / 2.0, 14, W - 16.0);

    /* horizontal colour bar under the strips */
    {
        int bw = W / 3, bh = 12, bx = (W - bw) / 2, by = H - bottom + 22;
        cairo_surface_t *bar = image(bw, 1);
        if (!bar)
            goto done;
        for (int i = 0; i < bw; i++) {
            unsigned char c[3];
            plot_cmap(bw > 1 ? (double)i / (bw - 1) : 0.5, c);
            put_px(bar, i, 0, c);
        }
        cairo_surface_mark_dirty(bar);
        paint_scaled(cr, bar, bw, 1, bx, by, bw, bh);
        cairo_surface_destroy(bar);
        cairo_set_source_rgb(cr, 0, 0, 0);
        cairo_set_line_width(cr, 1);
        cairo_rectangle(cr, bx - 0.5, by - 0.5, bw + 1, bh + 1);
        cairo_stroke(cr);
        font(cr, FS_TICK, 0);
        char b[32];
        snprintf(b, sizeof b, "%.3g", vmin);
        text_at(cr, b, bx - 8, by + bh / 2.0, 1.0, 0.5);
        snprintf(b, sizeof b, "%.3g", vmax);
        text_at(cr, b, bx + bw + 8, by + bh / 2.0, 0.0, 0.5);
        if (vmin < 0 && vmax > 0)
            text_at(cr, "0", bx + (bw - 1) * (-vmin) / (vmax - vmin), by + bh + 4, 0.5, 0.0);
    }
    rc = save_png(surf, path);
done:
    if (img)
        cairo_surface_destroy(img);
    cairo_destroy(cr);
    cairo_surface_destroy(surf);
    return rc;
}
