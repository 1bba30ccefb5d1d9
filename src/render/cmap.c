/* SPDX-License-Identifier: MIT */
/* cmap.c — the colour maps and series colours; see render.h.
 *
 * coolwarm: Kenneth Moreland's diverging map ("Diverging Color Maps for Scientific
 * Visualization", 2009), as matplotlib ships it: 33 control points at t = k/32 (its
 * CoolWarmFloat33 table, the values matplotlib's _cm.py lists), linear in sRGB between them.
 * matplotlib then samples the map into a 256-entry table; here t is used unquantised, which
 * differs from matplotlib's picture by at most about one 8-bit level.
 */
#include "canvas.h"

#include <math.h>

static const double COOLWARM[33][3] = {
    {0.2298057, 0.298717966, 0.753683153},   {0.26623388, 0.353094838, 0.801466763},
    {0.30386891, 0.406535296, 0.84495867},   {0.342804478, 0.458757618, 0.883725899},
    {0.38301334, 0.50941904, 0.917387822},   {0.424369608, 0.558148092, 0.945619588},
    {0.46666708, 0.604562568, 0.968154911},  {0.509635204, 0.648280772, 0.98478814},
    {0.552953156, 0.688929332, 0.995375608}, {0.596262162, 0.726149107, 0.999836203},
    {0.639176211, 0.759599947, 0.998151185}, {0.681291281, 0.788964712, 0.990363227},
    {0.722193294, 0.813952739, 0.976574709}, {0.761464949, 0.834302879, 0.956945269},
    {0.798691636, 0.849786142, 0.931688648}, {0.833466556, 0.860207984, 0.901068838},
    {0.865395197, 0.86541021, 0.865395561},  {0.897787179, 0.848937047, 0.820880546},
    {0.924127593, 0.827384882, 0.774508472}, {0.944468518, 0.800927443, 0.726736146},
    {0.958852946, 0.769767752, 0.678007945}, {0.96732803, 0.734132809, 0.628751763},
    {0.969954137, 0.694266682, 0.579375448}, {0.966811177, 0.650421156, 0.530263762},
    {0.958003065, 0.602842431, 0.481775914}, {0.943660866, 0.551750968, 0.434243684},
    {0.923944917, 0.49730856, 0.387970225},  {0.89904617, 0.439559467, 0.343229596},
    {0.869186849, 0.378313092, 0.300267182}, {0.834620542, 0.312874446, 0.259301199},
    {0.795631745, 0.24128379, 0.220525627},  {0.752534934, 0.157246067, 0.184115123},
    {0.705673158, 0.01555616, 0.150232812},
};

/* ColorBrewer's RdBu reversed, with a pure white centre. */
static const unsigned char RDBU[11][3] = {
    {0x05, 0x30, 0x61}, {0x21, 0x66, 0xac}, {0x43, 0x93, 0xc3}, {0x92, 0xc5, 0xde},
    {0xd1, 0xe5, 0xf0}, {0xff, 0xff, 0xff}, {0xfd, 0xdb, 0xc7}, {0xf4, 0xa5, 0x82},
    {0xd6, 0x60, 0x4d}, {0xb2, 0x18, 0x2b}, {0x67, 0x00, 0x1f},
};

/* matplotlib's tab10, the first RENDER_MAX_SERIES. */
static const unsigned char SERIES[RENDER_MAX_SERIES][3] = {
    {0x1f, 0x77, 0xb4}, {0xff, 0x7f, 0x0e}, {0x2c, 0xa0, 0x2c}, {0xd6, 0x27, 0x28},
    {0x94, 0x67, 0xbd}, {0x8c, 0x56, 0x4b}, {0xe3, 0x77, 0xc2}, {0x7f, 0x7f, 0x7f},
};

void cmap_rgb(render_cmap cmap, double t, unsigned char rgb[3])
{
    if (isnan(t)) {
        unsigned char v = cmap == RENDER_CMAP_COOLWARM ? 0 : 0x80;
        rgb[0] = rgb[1] = rgb[2] = v;
        return;
    }
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    int last = cmap == RENDER_CMAP_COOLWARM ? 32 : 10;
    double u = t * last;
    int k = (int)floor(u);
    if (k >= last)
        k = last - 1;
    double f = u - k;
    for (int c = 0; c < 3; c++) {
        double v = cmap == RENDER_CMAP_COOLWARM
                       ? 255.0 * (COOLWARM[k][c] + (COOLWARM[k + 1][c] - COOLWARM[k][c]) * f)
                       : RDBU[k][c] + (RDBU[k + 1][c] - RDBU[k][c]) * f;
        rgb[c] = (unsigned char)lround(v);
    }
}

void cmap_value(render_cmap cmap, double v, double vmin, double vmax, unsigned char rgb[3])
{
    cmap_rgb(cmap, (v - vmin) / (vmax - vmin), rgb);
}

void series_rgb(size_t i, double rgb[3])
{
    for (int c = 0; c < 3; c++)
        rgb[c] = SERIES[i % RENDER_MAX_SERIES][c] / 255.0;
}
