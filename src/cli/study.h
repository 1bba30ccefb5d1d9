/* SPDX-License-Identifier: MIT */
/* study.h — what the study commands (stats --by-position, pca, rope) share: the library's
 * numbers (pcasrc.h) with their errors printed, and the names the
 * commands use for them. Each function prints one line via cli_error on failure and returns
 * -1; strings it returns are the caller's (free).
 */
#ifndef G2E_STUDY_H
#define G2E_STUDY_H

#include <stddef.h>

#include "cli.h"
#include "pcasrc.h"
#include "rope.h"

typedef pcasrc_norms study_norms;
typedef pcasrc_spec study_pca_src;
#define study_norms_free pcasrc_norms_free
#define STUDY_NORM_SPLIT PCASRC_NORM_SPLIT
enum { STUDY_OF_WPE = PCASRC_WPE, STUDY_OF_WTE = PCASRC_WTE, STUDY_OF_SINUSOIDAL = PCASRC_SINUSOIDAL };
#define STUDY_OF_NAMES PCASRC_NAMES
#define study_schemes rope_schemes
#define STUDY_N_SCHEME_ROWS ROPE_N_SCHEME_ROWS

/* rc of a library call: 0, or -1 after printing e's message. */
static inline int study_said(int rc, const g2e_err *e)
{
    if (rc == 0)
        return 0;
    cli_error("%s", e->msg);
    return -1;
}
/* pcasrc_wpe_norms and pcasrc_pca, printing their error. */
static inline int study_wpe_norms(const gpt2embed_model *m, study_norms *out)
{
    g2e_err e;
    return study_said(pcasrc_wpe_norms(m, out, &e), &e);
}
static inline int study_pca(const study_pca_src *s, size_t k, pca_result *r, double **row_id)
{
    g2e_err e;
    return study_said(pcasrc_pca(s, k, r, row_id, &e), &e);
}

#endif
