/* SPDX-License-Identifier: MIT */
/* pcasrc.h — the matrices the study commands take apart (wpe, chosen rows of wte, the
 * sinusoidal PE), their principal components, and the norm of every wpe row.
 *
 * What `pca`, `stats --by-position`, `rope` and the report share: each asks for the rows of
 * one source and gets exactly the same numbers, so a number on the report's page is the
 * number the command prints. The rows come through the library's door (gpt2embed_rows) and
 * the sinusoidal encoding's double matrix from its numerics (sinusoid.h); the arithmetic is
 * pca.h's; this module only gathers the rows and checks the shapes with messages in the
 * commands' terms (--keep, --skip).
 *
 * Errors: a status (PCA_E_SHAPE, G2E_ENOMEM, G2E_EINVAL with the door's message, or what the
 * module underneath returned) and a message in err; what an output parameter held is freed
 * and zeroed.
 * Deliberately left out: printing, formats, figures.
 */
#ifndef G2E_PCASRC_H
#define G2E_PCASRC_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "gpt2embed.h"
#include "model.h"
#include "pca.h"

/* Published analyses of GPT-2 small see flat wpe norms after about this position. */
#define PCASRC_NORM_SPLIT GPT2EMBED_NORM_SPLIT

/* The norm of every wpe row and their summary (split at PCASRC_NORM_SPLIT). */
typedef struct pcasrc_norms {
    size_t n;
    double *norm;             /* (n,) owned */
    pca_norm_summary sum;
} pcasrc_norms;

/* wpe's row norms of m into *out (pcasrc_norms_free). */
int pcasrc_wpe_norms(const g2e_model *m, pcasrc_norms *out, g2e_err *err);
/* Frees out->norm and zeroes *out; accepts NULL. */
void pcasrc_norms_free(pcasrc_norms *sn);

enum { PCASRC_WPE = GPT2EMBED_PCA_WPE, PCASRC_WTE = GPT2EMBED_PCA_WTE,
       PCASRC_SINUSOIDAL = GPT2EMBED_PCA_SINUSOIDAL };

typedef struct pcasrc_spec {
    int of;                    /* PCASRC_* */
    const g2e_model *m;        /* wpe, wte (NULL for sinusoidal) */
    const uint32_t *ids;       /* wte: these rows (n_ids > 0), else every row */
    size_t n_ids;
    size_t len, dim;           /* sinusoidal: the (len, dim) matrix */
    double base;
    size_t skip;               /* wpe, sinusoidal: leave out positions 0..skip-1 (e.g. 1 for
                                  GPT-2's outlier position 0) */
} pcasrc_spec;

/* The PCA of the source's rows keeping k components (k <= the width). row_id (may be NULL)
 * receives a new array of each row's label (caller frees): position, or token ID. An ID past
 * wte is MODEL_E_RANGE with *bad_index (may be NULL) its index in ids. */
int pcasrc_pca(const pcasrc_spec *s, size_t k, pca_result *r, double **row_id, size_t *bad_index,
               g2e_err *err);

#endif
