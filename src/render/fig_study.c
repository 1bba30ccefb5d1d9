/* SPDX-License-Identifier: MIT */
/* fig_study.c — the order puzzle's figure from the model (see fig.h): the rows through the
 * door, the chart from recipe.h. */
#include "fig.h"

#include "recipe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fig_order_png(const gpt2embed_model *m, const uint32_t *a, const uint32_t *b, size_t n,
                  const char *const *labels, render_png *out, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    size_t C = gpt2embed_n_embd(m);
    if (n == 0 || n > RENDER_MAX_ROWS)
        return g2e_fail(err, RENDER_E_ARG, "the order figure draws 1 to %d positions, got %zu",
                        RENDER_MAX_ROWS, n);
    float *x = malloc(2 * n * C * sizeof *x);
    gpt2embed_error e;
    int rc = x ? 0 : g2e_fail(err, G2E_ENOMEM, "out of memory for %zu positions", n);
    if (!rc && (gpt2embed_embed(m, a, n, 0, x, &e) || gpt2embed_embed(m, b, n, 0, x + n * C, &e)))
        rc = fig_door_fail(err, &e);
    if (!rc)
        rc = recipe_order_png(x, x + n * C, n, C, labels, out, err);
    free(x);
    return rc;
}
