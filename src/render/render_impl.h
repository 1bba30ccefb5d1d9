/* SPDX-License-Identifier: MIT */
/* render_impl.h — the one symbol gpt2-embed-render.so exports: a table of the drawing
 * functions, checked by its ABI number when render_load.c loads it. The rw_* functions
 * are the implementations behind render.h's render_* calls (same contracts). */
#ifndef G2E_RENDER_IMPL_H
#define G2E_RENDER_IMPL_H

#include "render.h"

/* Bumped whenever render.h's structs or this table change. */
#define RENDER_ABI 2
#define RENDER_API_SYMBOL "g2e_render_api"

typedef struct render_api {
    int abi;                       /* RENDER_ABI of the object */
    int (*cmap_rgb)(render_cmap cmap, double t, unsigned char rgb[3], g2e_err *err);
    int (*heatmap_layout)(const render_heatmap *h, render_layout *l, g2e_err *err);
    int (*heatmap_png)(const render_heatmap *h, render_png *out, g2e_err *err);
    int (*lines_png)(const render_lines *p, render_png *out, g2e_err *err);
    int (*scatter_png)(const render_scatter *s, render_png *out, g2e_err *err);
    int (*bars_png)(const render_bars *b, render_png *out, g2e_err *err);
    int (*strips_png)(const render_strips *s, render_png *out, g2e_err *err);
    int (*text_size)(const char *s, double size_px, int *w, int *h, int *unknown, g2e_err *err);
} render_api;

extern const render_api g2e_render_api;

int rw_cmap_rgb(render_cmap cmap, double t, unsigned char rgb[3], g2e_err *err);
int rw_heatmap_layout(const render_heatmap *h, render_layout *l, g2e_err *err);
int rw_heatmap_png(const render_heatmap *h, render_png *out, g2e_err *err);
int rw_lines_png(const render_lines *p, render_png *out, g2e_err *err);
int rw_scatter_png(const render_scatter *s, render_png *out, g2e_err *err);
int rw_bars_png(const render_bars *b, render_png *out, g2e_err *err);
int rw_strips_png(const render_strips *s, render_png *out, g2e_err *err);
int rw_text_size(const char *s, double size_px, int *w, int *h, int *unknown, g2e_err *err);

#endif
