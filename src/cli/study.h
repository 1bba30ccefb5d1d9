/* SPDX-License-Identifier: MIT */
/* study.h — what the study commands (stats --by-position, pca, rope) and the report share:
 * the numbers each one computes from the library, gathered once, and the text around them.
 * The report calls exactly these functions, so a number on the page is the number the
 * command prints.
 *
 * Program wing: each function prints one line via cli_error on failure and returns -1;
 * strings it returns are the caller's (free).
 */
#ifndef G2E_STUDY_H
#define G2E_STUDY_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "pca.h"

/* Published analyses of GPT-2 small see flat wpe norms after about this position. */
#define STUDY_NORM_SPLIT 100

/* The norm of every wpe row and their summary (split at STUDY_NORM_SPLIT). */
typedef struct study_norms {
    size_t n;
    double *norm;             /* (n,) owned */
    pca_norm_summary sum;
} study_norms;

int study_wpe_norms(const g2e_model *m, study_norms *out);
void study_norms_free(study_norms *sn);

/* The summary as JSON members (each followed by ", ") and as lines for the table. */
int study_norms_text(const study_norms *sn, const char *path, char **pre_json, char **pre_table);

/* A string built by printf-like pieces (open_memstream), for the pre-texts above. */
typedef struct study_buf {
    char *s;
    size_t len;
    void *f;   /* FILE * */
} study_buf;
int study_buf_open(study_buf *b);
/* Closes the stream; *out receives the string (caller frees). -1 (printed) on failure. */
int study_buf_close(study_buf *b, char **out);


/* ---- principal components of a matrix the tool can produce ---- */

enum { STUDY_OF_WPE = 0, STUDY_OF_WTE, STUDY_OF_SINUSOIDAL };
#define STUDY_OF_NAMES {"wpe", "wte", "sinusoidal", NULL}

typedef struct study_pca_src {
    int of;                    /* STUDY_OF_* */
    const g2e_model *m;        /* wpe, wte (NULL for sinusoidal) */
    const uint32_t *ids;       /* wte: these rows (n_ids > 0), else every row */
    size_t n_ids;
    size_t len, dim;           /* sinusoidal: the (len, dim) matrix */
    double base;
    size_t skip;               /* wpe, sinusoidal: leave out positions 0..skip-1 (e.g. 1 for
                                  GPT-2's outlier position 0) */
} study_pca_src;

/* The PCA of the source's rows keeping k components (k <= the width; checked here with a
 * clear message). row_id (may be NULL) receives a new array of each row's label: position,
 * or token ID. */
int study_pca(const study_pca_src *s, size_t k, pca_result *r, double **row_id);

/* The three position schemes the chapter names, for `rope` and the report: row 0 the names
 * (column 0 empty), then how each enters, its parameters, its length limit, and what the
 * attention score depends on (column 0 the property). */
#define STUDY_N_SCHEME_ROWS 5
extern const char *const study_schemes[STUDY_N_SCHEME_ROWS][4];

#endif
