/* SPDX-License-Identifier: MIT */
/* sinusoid_grid.c — the PE as figures lay it out (see sinusoid_grid.h). */
#include "sinusoid_grid.h"

#include "sinusoid.h"

#include <stdlib.h>

int sin_pair_points(size_t len, size_t dim, size_t pair, double base, double *x, double *y,
                    g2e_err *err)
{
    int rc = sin_check_params(dim, base, err);
    if (rc)
        return rc;
    if (pair >= dim / 2)
        return g2e_fail(err, SIN_E_DIM, "pair %zu is not one of the %zu pairs of D=%zu", pair,
                        dim / 2, dim);
    double *row = malloc(dim * sizeof *row);
    if (!row)
        return g2e_fail(err, G2E_ENOMEM, "out of memory for a row of %zu values", dim);
    sin_table tab;
    rc = sin_table_init(&tab, dim, base, err);
    for (size_t p = 0; p < len && rc == 0; p++) {
        rc = sin_table_row_f64(&tab, p, row, err);
        x[p] = row[2 * pair + 1];            /* cos(pos ω_i) */
        y[p] = row[2 * pair];                /* sin(pos ω_i) */
    }
    sin_table_free(&tab);
    free(row);
    return rc;
}
