/* plot.h — figures as PNG through cairo: heatmaps, line charts, embedding strips.
 *
 * The API is generic (arrays of numbers plus labels) so that the same three functions
 * draw every figure the program makes: the sinusoidal PE heatmap and dot curve, and,
 * from the weights, the wpe heatmap, the cosine-similarity matrix, the
 * similarity-by-distance curves and the per-token strips of the embedding stage.
 *
 * Colours: one diverging map, blue - white - red (ColorBrewer's RdBu reversed, with a
 * pure white centre), with 11 stops at t = 0, 0.1, ..., 1 linearly interpolated in sRGB:
 *   #053061 #2166ac #4393c3 #92c5de #d1e5f0 #ffffff #fddbc7 #f4a582 #d6604d #b2182b #67001f
 * A heatmap maps [vmin, vmax] onto t in [0, 1] and clamps outside values; NaN is grey
 * #808080. Series colours of line charts: #1f77b4 #ff7f0e #2ca02c #d62728 #9467bd #8c564b.
 *
 * PNG files are written with cairo_surface_write_to_png_stream into out.c's atomic
 * destination (temporary file + rename; stdout if path is NULL or "-"; a terminal is
 * refused). Text uses cairo's own text API, which has no font fallback: CJK characters
 * (kana, ideographs, Hangul, full-width forms) are drawn in "IPAGothic" (Debian's
 * fonts-ipafont-gothic), everything else in "DejaVu Sans"; a glyph neither has is a box.
 *
 * Program wing: the functions print one line via cli_error on failure and return -1;
 * a failed figure writes nothing (an existing file at path keeps its content).
 * Deliberately left out: vector formats (SVG/PDF), interactive output, log scales.
 */
#ifndef G2E_PLOT_H
#define G2E_PLOT_H

#include <stddef.h>

/* Largest image side cairo accepts. */
#define PLOT_MAX_SIDE 32767
#define PLOT_MAX_STRIPS 4
#define PLOT_MAX_SERIES 6

/* The colour of t in [0, 1] (clamped; NaN gives grey) into rgb[3]. */
void plot_cmap(double t, unsigned char rgb[3]);
/* The colour of value v on the map fixed to [vmin, vmax] (vmin < vmax). */
void plot_cmap_value(double v, double vmin, double vmax, unsigned char rgb[3]);

/* A heatmap of an nx x ny grid. The value at column x, row y is
 * z[x * x_stride + y * y_stride], so a row-major (T, C) matrix drawn with position on
 * the x axis and dimension on the y axis uses x_stride = C, y_stride = 1, and the same
 * matrix drawn the other way round uses x_stride = 1, y_stride = C (no copy either way). */
typedef struct plot_heatmap {
    const float *z;
    size_t nx, ny;                 /* 1 .. PLOT_MAX_SIDE each */
    size_t x_stride, y_stride;     /* in elements */
    double x0, y0;                 /* the index shown for column 0 / row 0 (e.g. first position) */
    double vmin, vmax;             /* the colour range, vmin < vmax (e.g. -1, 1) */
    int origin_top;                /* 0: row 0 at the bottom (as the PE figure); 1: at the top (matrix) */
    const char *title, *xlabel, *ylabel, *cbar_label;   /* may be NULL */
    int width, height;             /* whole image in pixels; 0: 960 x 600 */
} plot_heatmap;

/* Where a heatmap's parts land in the image (pixels, integer, origin top-left): the
 * data area [area_x, area_x+area_w) x [area_y, area_y+area_h), the colour bar likewise;
 * the bar runs from vmax at its top row to vmin at its bottom row. */
typedef struct plot_layout {
    int width, height;
    int area_x, area_y, area_w, area_h;
    int bar_x, bar_y, bar_w, bar_h;
} plot_layout;

/* Fills *l for h (no drawing). -1 with an error printed if h is invalid. */
int plot_heatmap_layout(const plot_heatmap *h, plot_layout *l);
/* Draws h into a PNG at path (NULL or "-": stdout). */
int plot_heatmap_png(const plot_heatmap *h, const char *path);

/* One named line: points (x[i], y[i]), i < n, drawn in order. Non-finite points break it. */
typedef struct plot_series {
    const char *name;
    const double *x, *y;
    size_t n;
} plot_series;

typedef struct plot_lines {
    const plot_series *series;     /* 1 .. PLOT_MAX_SERIES, each n >= 1 */
    size_t n_series;
    const char *title, *xlabel, *ylabel;
    int zero_line;                 /* 1: a thin line at y = 0 when it is in range */
    int width, height;             /* 0: 960 x 600 */
} plot_lines;

/* Draws a line chart with axes, ticks, a grid and a legend (names of all series). */
int plot_lines_png(const plot_lines *p, const char *path);

/* Colour strips for a sequence of tokens, the way the Transformer Explainer shows the
 * embedding step: one row per token (its label at the left), in each row n_strips
 * strips of dim cells (e.g. token vector, position vector, their sum), one shared
 * colour range, a horizontal colour bar underneath. */
typedef struct plot_strips {
    size_t n_rows;                 /* tokens, 1 .. 4096 */
    size_t dim;                    /* values per strip, >= 1 */
    size_t n_strips;               /* 1 .. PLOT_MAX_STRIPS */
    const float *const *data;      /* data[s]: (n_rows, dim) row-major, for each strip s */
    const char *const *strip_names;   /* n_strips headings (may be NULL) */
    const char *ops;               /* n_strips-1 glyphs drawn between strips, e.g. "+=" (may be NULL) */
    const char *const *labels;     /* n_rows row labels, UTF-8 (may be NULL: row numbers) */
    const char *title;
    double vmin, vmax;             /* vmin >= vmax: symmetric range ±max|v| over all strips */
    int width;                     /* 0: 1280; height follows from n_rows */
} plot_strips;

/* Draws the strips figure. */
int plot_strips_png(const plot_strips *s, const char *path);

#endif
