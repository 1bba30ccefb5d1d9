/* SPDX-License-Identifier: MIT */
/* pngcheck.c — see pngcheck.h. */
#include "pngcheck.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

static const int STOP[11][3] = {
    {0x05, 0x30, 0x61}, {0x21, 0x66, 0xac}, {0x43, 0x93, 0xc3}, {0x92, 0xc5, 0xde},
    {0xd1, 0xe5, 0xf0}, {0xff, 0xff, 0xff}, {0xfd, 0xdb, 0xc7}, {0xf4, 0xa5, 0x82},
    {0xd6, 0x60, 0x4d}, {0xb2, 0x18, 0x2b}, {0x67, 0x00, 0x1f},
};

/* The documented map for value v on [lo, hi], as doubles. */
void pngcheck_colour(double v, double lo, double hi, double rgb[3])
{
    double t = (v - lo) / (hi - lo);
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    int k = (int)(t * 10);
    if (k > 9) k = 9;
    double f = t * 10 - k;
    for (int c = 0; c < 3; c++)
        rgb[c] = STOP[k][c] + (STOP[k + 1][c] - STOP[k][c]) * f;
}

png pngcheck_load(const char *path)
{
    png p;
    p.s = cairo_image_surface_create_from_png(path);
    cr_assert_eq(cairo_surface_status(p.s), CAIRO_STATUS_SUCCESS, "%s does not decode: %s", path,
                 cairo_status_to_string(cairo_surface_status(p.s)));
    p.w = cairo_image_surface_get_width(p.s);
    p.h = cairo_image_surface_get_height(p.s);
    return p;
}

void pngcheck_px(const png *p, int x, int y, int rgb[3])
{
    cr_assert(x >= 0 && y >= 0 && x < p->w && y < p->h, "pixel (%d, %d) outside %dx%d", x, y, p->w, p->h);
    const unsigned char *d = cairo_image_surface_get_data(p->s);
    uint32_t v;
    memcpy(&v, d + (size_t)y * cairo_image_surface_get_stride(p->s) + (size_t)x * 4, 4);
    rgb[0] = (int)(v >> 16 & 255), rgb[1] = (int)(v >> 8 & 255), rgb[2] = (int)(v & 255);
}

void pngcheck_free(png *p)
{
    if (p->s)
        cairo_surface_destroy(p->s);
    p->s = NULL;
}

png pngcheck_save(render_png *img, const char *path)
{
    cr_assert(img->data && img->len > 8, "no PNG to save");
    FILE *f = fopen(path, "wb");
    cr_assert(f, "cannot write %s", path);
    cr_assert_eq(fwrite(img->data, 1, img->len, f), img->len);
    cr_assert_eq(fclose(f), 0);
    render_png_free(img);
    return pngcheck_load(path);
}

int pngcheck_dark(const png *p, int x0, int y0, int x1, int y1)
{
    int n = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            int g[3];
            pngcheck_px(p, x, y, g);
            n += g[0] + g[1] + g[2] < 200;
        }
    return n;
}
