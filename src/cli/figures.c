/* SPDX-License-Identifier: MIT */
/* figures.c — writing the figures the rendering wing draws (see figures.h). */
#include "figures.h"

#include "cli.h"
#include "out.h"
#include "recipe.h"

#include <stdio.h>

int fig_save(const render_png *png, const char *path)
{
    out_file o;
    if (out_open(&o, path, 1) != 0)
        return -1;
    if (fwrite(png->data, 1, png->len, o.f) != png->len) {
        cli_error("writing the PNG to %s failed", o.name);
        out_abort(&o);
        return -1;
    }
    return out_commit(&o);
}

int fig_write(int rc, render_png *png, const g2e_err *err, const char *path)
{
    if (rc)
        cli_error("%s", err->msg);
    rc = rc ? -1 : fig_save(png, path);
    render_png_free(png);
    return rc;
}

void fig_fallback_note(double percentile, double q)
{
    cli_note("the %g-th percentile of |x| is 0; using the largest finite |x| (%g) instead",
             percentile, q);
}

double fig_abs_percentile(const float *x, size_t n, double percentile)
{
    g2e_err err;
    double q;
    int fell_back = 0;
    if (recipe_abs_percentile(x, n, percentile, &q, &fell_back, &err)) {
        cli_error("%s", err.msg);
        return -1;
    }
    if (fell_back)
        fig_fallback_note(percentile, q);
    return q;
}
