/* SPDX-License-Identifier: MIT */
/* pngcheck.h — reading figures back for the tests: decode a PNG with cairo, read pixels,
 * and the colour the documented diverging map (plot.h's stops, re-implemented here from the
 * documentation, not taken from plot.c) gives a value. */
#ifndef G2E_TEST_PNGCHECK_H
#define G2E_TEST_PNGCHECK_H

#include "render.h"

#include <cairo/cairo.h>

typedef struct png {
    cairo_surface_t *s;
    int w, h;
} png;

/* The colour of v on the map fixed to [lo, hi], as doubles 0..255. */
void pngcheck_colour(double v, double lo, double hi, double rgb[3]);
/* Decodes path (aborts the test if it is not a PNG cairo can read). Free with png_free. */
png pngcheck_load(const char *path);
void pngcheck_free(png *p);
/* The RGB of pixel (x, y) (aborts the test if outside the image). */
void pngcheck_px(const png *p, int x, int y, int rgb[3]);
/* Writes img to path (kept in build/tmp to be looked at), frees img, decodes the file. */
png pngcheck_save(render_png *img, const char *path);
/* Pixels with r + g + b < 200 in [x0, x1) x [y0, y1) (text and lines: "ink"). */
int pngcheck_dark(const png *p, int x0, int y0, int x1, int y1);

#endif
