/* SPDX-License-Identifier: MIT */
/* canvas.h — what every figure of the rendering wing draws with (internal to
 * gpt2-embed-render.so): an RGB image with a cairo context, Pango text, ticks, colour bars,
 * the PNG encoder, and the argument checks every figure repeats.
 *
 * Errors: functions that can fail return 0 or a status, and write the message into the
 * canvas's g2e_err (the caller's, passed to cv_open). Nothing here prints.
 */
#ifndef G2E_RENDER_CANVAS_H
#define G2E_RENDER_CANVAS_H

#include "render.h"

#include <cairo/cairo.h>
#include <pango/pangocairo.h>
#include <stdint.h>

#define FS_TICK 12.0    /* font sizes in pixels */
#define FS_LABEL 14.0
#define FS_TITLE 17.0

typedef struct canvas {
    cairo_surface_t *surf;
    cairo_t *cr;
    PangoLayout *text;          /* one layout, its font set by cv_font */
    int w, h;
    g2e_err *err;
    char *said;                 /* every text drawn, one per line (the PNG's Description) */
    size_t said_len, said_cap;
    int said_lost;              /* out of memory while recording: the PNG gets no record */
} canvas;

/* A white w x h image. On failure the canvas is closed and the status returned. */
int cv_open(canvas *c, int w, int h, g2e_err *err);
/* Encodes the image as PNG into *out (then closes the canvas either way). The PNG carries
 * every text drawn on the canvas (cv_text), one per line in drawing order, in an iTXt chunk
 * with the keyword "Description" before IEND: what a viewer or screen reader can show
 * besides the picture, and what the tests read to check a figure's language. */
int cv_finish(canvas *c, render_png *out);
void cv_close(canvas *c);

/* ---- text: UTF-8, Pango with "DejaVu Sans, IPAGothic" ---- */
void cv_font(canvas *c, double size_px, int bold);
double cv_text_w(canvas *c, const char *s);
/* s with its anchor at (x, y): ax 0 left, 0.5 centre, 1 right; ay 0 top of the capitals
 * at y, 0.5 capitals centred on y, 1 baseline at y. In the current source colour. */
void cv_text(canvas *c, const char *s, double x, double y, double ax, double ay);
/* Rotated 90° counter-clockwise, centred on (x, y). */
void cv_text_vertical(canvas *c, const char *s, double x, double y);
/* s cut with "…" to fit max_w pixels in the current font, into buf[cap]. */
void cv_fit(canvas *c, const char *s, double max_w, char *buf, size_t cap);
/* The title, centred on cx with its top at y, shrunk (to 10 px) and then cut to fit max_w. */
void cv_title(canvas *c, const char *title, double cx, double y, double max_w);

/* ---- axes ---- */
/* A "nice" step (1, 2 or 5 times a power of ten) for about `want` ticks over span. */
double nice_step(double span, int want);
void fmt_tick(char *buf, size_t cap, double v, double step);
/* Widens [*lo, *hi] around its middle when empty or too narrow for its magnitude (a tick
 * step would vanish below the values' last bit and `v += step` never end). */
void widen_range(double *lo, double *hi);
/* Data area of a chart with numeric axes. */
typedef struct axes {
    int x, y, w, h;             /* the area in pixels */
    double xmin, xmax, ymin, ymax, xstep, ystep;
} axes;
double ax_px(const axes *a, double v);
double ax_py(const axes *a, double v);
/* Grid lines, ticks and their labels on both axes, and the frame; axis labels and title. */
void cv_axes(canvas *c, const axes *a, const char *xlabel, const char *ylabel, const char *title);
/* The left margin that fits the widest y tick label of [ymin, ymax] in steps of ystep. */
int cv_ytick_margin(canvas *c, double ymin, double ymax, double ystep);
/* The data area of a line or bar chart filling the canvas: the y ticks' margin on the left,
 * 52 px above, 28 on the right, 64 below; then cv_axes. a's ranges and steps must be set. */
void cv_chart_axes(canvas *c, axes *a, const char *xlabel, const char *ylabel, const char *title);

/* ---- colours and images ---- */
void cmap_rgb(render_cmap cmap, double t, unsigned char rgb[3]);
void cmap_value(render_cmap cmap, double v, double vmin, double vmax, unsigned char rgb[3]);
/* The i-th series colour (matplotlib's tab10), i < RENDER_MAX_SERIES. */
void series_rgb(size_t i, double rgb[3]);
/* An RGB24 image of w x h pixels (NULL and a message on failure). */
cairo_surface_t *cv_image(canvas *c, int w, int h);
void put_px(cairo_surface_t *s, int x, int y, const unsigned char rgb[3]);
/* img (iw x ih) scaled onto (x, y, w, h): nearest-neighbour when enlarging (cell centres
 * keep their exact colour), cairo's GOOD filter when shrinking. */
void paint_scaled(cairo_t *cr, cairo_surface_t *img, int iw, int ih, double x, double y,
                  double w, double h);
/* A vertical colour bar (vmax at the top row, vmin at the bottom), ticks on its right, the
 * label rotated beyond them. */
int cv_vbar(canvas *c, int x, int y, int w, int h, double vmin, double vmax, render_cmap cmap,
            const char *label);

/* ---- checks ---- */
/* A side of 0 takes its default; then each side must lie in [min, RENDER_MAX_SIDE]. */
int check_size(int *w, int *h, int dw, int dh, int minw, int minh, g2e_err *err);
/* NULL or valid UTF-8; else RENDER_E_ARG naming `what`. */
int check_text(const char *s, const char *what, g2e_err *err);
int check_cmap(render_cmap cmap, g2e_err *err);

#endif
