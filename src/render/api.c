/* SPDX-License-Identifier: MIT */
/* api.c — the table gpt2-embed-render.so exports (render_impl.h), and the two calls that
 * are not a figure. Only g2e_render_api is visible outside the object. */
#include "canvas.h"
#include "render_impl.h"

int rw_cmap_rgb(render_cmap cmap, double t, unsigned char rgb[3], g2e_err *err)
{
    if (check_cmap(cmap, err))
        return RENDER_E_ARG;
    cmap_rgb(cmap, t, rgb);
    return 0;
}

int rw_text_size(const char *s, double size_px, int *w, int *h, int *unknown, g2e_err *err)
{
    if (!s || check_text(s, "text", err))
        return s ? RENDER_E_ARG : g2e_fail(err, RENDER_E_ARG, "no text to measure");
    if (!(size_px >= 1 && size_px <= 1000))
        return g2e_fail(err, RENDER_E_ARG, "the font size must be 1..1000 px, got %g", size_px);
    canvas c;
    int rc = cv_open(&c, 1, 1, err);
    if (rc)
        return rc;
    cv_font(&c, size_px, 0);
    pango_layout_set_text(c.text, s, -1);
    PangoRectangle logical;
    pango_layout_get_pixel_extents(c.text, NULL, &logical);
    *w = logical.width, *h = logical.height;
    if (unknown)
        *unknown = pango_layout_get_unknown_glyphs_count(c.text);
    cv_close(&c);
    return 0;
}

__attribute__((visibility("default"))) const render_api g2e_render_api = {
    .abi = RENDER_ABI,
    .cmap_rgb = rw_cmap_rgb,
    .heatmap_layout = rw_heatmap_layout,
    .heatmap_png = rw_heatmap_png,
    .lines_png = rw_lines_png,
    .scatter_png = rw_scatter_png,
    .bars_png = rw_bars_png,
    .strips_png = rw_strips_png,
    .text_size = rw_text_size,
};
