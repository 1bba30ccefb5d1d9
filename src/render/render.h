/* SPDX-License-Identifier: MIT */
/* render.h — the rendering wing: figures as PNG images in memory, from plain arrays.
 *
 * Design. Every figure is described by a struct of plain numbers and labels (the numbers
 * come from the library: similarity.h, sinusoid.h, pca.h, rope.h ...) and drawn by one call
 * that returns the PNG bytes in a buffer; writing them to a file (atomically, never to a
 * terminal) is the program's job (out.h). The wing never prints, never exits and never
 * touches a file: it returns a status and a one-line message like the library (g2e_err).
 *
 * Loading. Drawing needs cairo and Pango (and fontconfig, glib, harfbuzz ...: some thirty
 * shared libraries that cost milliseconds to load). So the drawing code is built as its own
 * shared object, gpt2-embed-render.so, which the program loads with dlopen on the first
 * call of any render_* function below (render_load.c, the only part linked into the
 * program; it links no cairo). It looks for the object beside the executable first (the
 * build tree), then in $(LIBDIR)/gpt2-embed/ (make install). A program that never draws
 * never loads cairo. A test binary that links the drawing objects directly uses them
 * without dlopen. If the object cannot be loaded, every render_* call fails with
 * RENDER_E_LOAD and a message saying what to install.
 *
 * Text. Labels are UTF-8 and may be Japanese: text is laid out by Pango over fontconfig,
 * with the family list "DejaVu Sans, IPAGothic" (Debian's fonts-dejavu-core and
 * fonts-ipafont-gothic), so kana and kanji fall back to IPA Gothic glyph by glyph.
 * Invalid UTF-8 in a label is an error (RENDER_E_ARG), never a partial image.
 *
 * Colour maps (enum render_cmap): coolwarm — Moreland's diverging map as matplotlib ships
 * it (blue #3b4cc0 .. grey #dddddd .. red #b40426, interpolated linearly in sRGB between
 * matplotlib's 33 published control points); rdbu — ColorBrewer's RdBu reversed, blue -
 * white - red with a pure white centre (11 stops). Values map [vmin, vmax] onto t in
 * [0, 1], clamped outside; NaN is grey #808080 (rdbu) or black (coolwarm, whose grey
 * centre is a value). Series colours of line charts: matplotlib's tab10 first eight.
 *
 * Sizes: width/height 0 choose a default; otherwise each side must lie in
 * [RENDER_MIN_SIDE, RENDER_MAX_SIDE] (the one place these limits live).
 *
 * Deliberately left out: vector formats (SVG/PDF), interactive output, log scales, writing
 * files, several figures per image.
 */
#ifndef G2E_RENDER_H
#define G2E_RENDER_H

#include <stddef.h>

#include "err.h"

#define RENDER_MIN_SIDE 150
#define RENDER_MAX_SIDE 32767   /* the largest image side cairo accepts */
#define RENDER_MAX_SERIES 8
#define RENDER_MAX_STRIPS 4
#define RENDER_MAX_ROWS 4096    /* rows of a strips figure */

/* Status codes (module 30). */
enum {
    RENDER_E_ARG = G2E_BASE(RENDER),   /* a spec outside its documented range (msg says which field) */
    RENDER_E_LOAD,         /* gpt2-embed-render.so (or cairo/Pango under it) cannot be loaded */
    RENDER_E_CAIRO,        /* cairo failed (msg: cairo's status text) */
    /* G2E_ENOMEM for allocation failures */
    RENDER_CODES_END_
};
G2E_CODES_END(RENDER, RENDER_CODES_END_);

/* The colour maps, in the order of RENDER_CMAP_NAMES (a program's --cmap choice list). */
typedef enum render_cmap {
    RENDER_CMAP_COOLWARM = 0,
    RENDER_CMAP_RDBU = 1,
} render_cmap;
#define RENDER_CMAP_NAMES {"coolwarm", "rdbu", NULL}

/* A PNG image in memory: data (len bytes) is the caller's, released with render_png_free. */
typedef struct render_png {
    unsigned char *data;
    size_t len;
} render_png;

/* Releases p->data and zeroes *p; accepts NULL and a zeroed render_png. */
void render_png_free(render_png *p);

/* The colour of t in [0, 1] on cmap (clamped; NaN as above) into rgb[3]. Pure arithmetic,
 * but part of the loaded object like the rest: 0, or RENDER_E_LOAD / RENDER_E_ARG. */
int render_cmap_rgb(render_cmap cmap, double t, unsigned char rgb[3], g2e_err *err);

/* ---- heatmap ---- */

/* An nx x ny grid. The value at column x, row y is z[x * x_stride + y * y_stride]: a
 * row-major (T, C) matrix with position on x and dimension on y uses x_stride = C,
 * y_stride = 1 (no copy either way). Cells are never averaged when the default size is
 * used: the image grows until every cell has at least one pixel (up to 2400 per side). */
typedef struct render_heatmap {
    const float *z;
    size_t nx, ny;                 /* 1 .. RENDER_MAX_SIDE each */
    size_t x_stride, y_stride;     /* in elements */
    double x0, y0;                 /* the index shown for column 0 / row 0 */
    double vmin, vmax;             /* finite, vmin < vmax */
    render_cmap cmap;
    int origin_top;                /* 0: row 0 at the bottom (PE figure); 1: at the top (matrix) */
    int square;                    /* 1 and width = height = 0: square cells (cosine matrix) */
    const char *title, *xlabel, *ylabel, *cbar_label;   /* UTF-8, may be NULL */
    int width, height;             /* 0: 960 x 600 (or larger, see above) */
} render_heatmap;

/* Where a heatmap's parts land (whole pixels, origin top-left): the data area
 * [area_x, area_x + area_w) x [area_y, area_y + area_h) and the colour bar likewise; the
 * bar runs from vmax at its top row to vmin at its bottom row. For tests and callers that
 * annotate. */
typedef struct render_layout {
    int width, height;
    int area_x, area_y, area_w, area_h;
    int bar_x, bar_y, bar_w, bar_h;
} render_layout;

/* Fills *l for h without drawing. 0 or RENDER_E_ARG. */
int render_heatmap_layout(const render_heatmap *h, render_layout *l, g2e_err *err);
/* Draws h. On success *out holds the PNG; on failure *out is zeroed. */
int render_heatmap_png(const render_heatmap *h, render_png *out, g2e_err *err);

/* ---- line chart (PC1..PC4 vs position, dot curves, by-distance curves) ---- */

/* One named line through (x[i], y[i]), i < n, in order; a non-finite point breaks it. */
typedef struct render_series {
    const char *name;              /* legend text, UTF-8 (NULL: no legend entry) */
    const double *x, *y;
    size_t n;                      /* >= 1 */
} render_series;

typedef struct render_lines {
    const render_series *series;   /* 1 .. RENDER_MAX_SERIES */
    size_t n_series;
    const char *title, *xlabel, *ylabel;
    int zero_line;                 /* 1: a thin line at y = 0 when it is in range */
    int markers;                   /* 0: dots when a series has <= 128 points; 1 always; -1 never */
    int width, height;             /* 0: 960 x 600 */
} render_lines;

int render_lines_png(const render_lines *p, render_png *out, g2e_err *err);

/* ---- scatter coloured by a value (PC1 vs PC2 helix; plot rotation) ---- */

typedef struct render_scatter {
    const double *x, *y;           /* n points */
    const double *c;               /* colour value per point (NULL: one colour, no bar) */
    size_t n;                      /* >= 1 */
    render_cmap cmap;
    double vmin, vmax;             /* colour range; vmin >= vmax: min..max of c */
    int connect;                   /* 1: a thin grey line through the points in order */
    int equal_aspect;              /* 1: one unit is as long on x as on y */
    int unit_circle;               /* 1: draw the circle x^2 + y^2 = 1 (implies equal_aspect) */
    double radius;                 /* point radius in pixels; 0: 3 */
    const char *title, *xlabel, *ylabel, *cbar_label;
    int width, height;             /* 0: 800 x 700 */
} render_scatter;

int render_scatter_png(const render_scatter *s, render_png *out, g2e_err *err);

/* ---- bars with an optional line (explained variance and its cumulative sum) ---- */

typedef struct render_bars {
    const double *values;          /* n bar heights (finite), bar k drawn at x = x0 + k */
    size_t n;                      /* 1 .. 4096 */
    double x0;                     /* label of the first bar (e.g. 1 for PC1) */
    const double *line;            /* n values drawn as a line with dots over the bars, or NULL */
    const char *bar_name, *line_name;   /* legend (may be NULL) */
    const char *title, *xlabel, *ylabel;
    double ymax;                   /* > 0: fixed top of the y axis (e.g. 1 for fractions); 0: auto */
    int width, height;             /* 0: 960 x 600 */
} render_bars;

int render_bars_png(const render_bars *b, render_png *out, g2e_err *err);

/* ---- colour strips of the main job (token, position, sum per row) ---- */

/* One row per token (its label at the left), in each row n_strips strips of dim cells, one
 * shared colour range, a horizontal colour bar underneath. Each strip is at least dim
 * pixels wide (one pixel column per dimension, so alternating values are never averaged
 * into colours that are not on the bar): the default width grows to fit, and an explicit
 * width too narrow for that is RENDER_E_ARG. */
typedef struct render_strips {
    size_t n_rows;                 /* 1 .. RENDER_MAX_ROWS */
    size_t dim;                    /* values per strip, 1 .. RENDER_MAX_SIDE */
    size_t n_strips;               /* 1 .. RENDER_MAX_STRIPS */
    const float *const *data;      /* data[s]: (n_rows, dim) row-major, for each strip s */
    const char *const *strip_names;   /* n_strips headings (may be NULL) */
    const char *ops;               /* n_strips-1 ASCII glyphs between strips, e.g. "+=" (may be NULL) */
    const char *const *labels;     /* n_rows row labels, UTF-8 (NULL: row numbers) */
    const unsigned char *marked;   /* n_rows flags: 1 draws a mark (a dark triangle) at the right
                                      end of the row (e.g. rows that differ), or NULL */
    const char *title;
    render_cmap cmap;
    double vmin, vmax;             /* vmin >= vmax: symmetric range ±max|v| over all strips */
    int width;                     /* 0: max(1280, what one column per dimension needs) */
} render_strips;

int render_strips_png(const render_strips *s, render_png *out, g2e_err *err);

/* ---- text (for tests and callers that need to know where text lands) ---- */

/* The pixel size of s as the figures draw labels (size_px: font size in pixels), and in
 * *unknown (may be NULL) how many of its characters no installed font has (drawn as boxes):
 * 0 for Japanese when fonts-ipafont-gothic is installed. 0, or RENDER_E_ARG for invalid UTF-8. */
int render_text_size(const char *s, double size_px, int *w, int *h, int *unknown, g2e_err *err);

#endif
