/* SPDX-License-Identifier: MIT */
/* study.h — what the study commands (stats --by-position, pca, rope) share: the door's
 * numbers (gpt2embed_wpe_norms, gpt2embed_pca, gpt2embed_rope_*) with their errors printed,
 * and the names the commands use for them. Each function prints one line via cli_error on
 * failure and returns -1.
 */
#ifndef G2E_STUDY_H
#define G2E_STUDY_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpt2embed.h"
#include "out.h"

/* pca --of: the names of GPT2EMBED_PCA_WPE, _WTE, _SINUSOIDAL, in that order */
#define STUDY_OF_NAMES {"wpe", "wte", "sinusoidal", NULL}

/* The status of a door's call: 0, or -1 after printing e's message. */
static inline int study_said(gpt2embed_status s, const gpt2embed_error *e)
{
    if (s == GPT2EMBED_OK)
        return 0;
    cli_error("%s", e->message);
    return -1;
}

/* A document of the library's (gpt2embed_*_json: its status s, *json and e) to out (NULL:
 * standard output, else the file, atomically); frees *json. 0, or -1 after printing the error. */
static inline int study_print_doc(gpt2embed_status s, char **json, const gpt2embed_error *e, const char *out)
{
    out_file of;
    int rc = study_said(s, e);
    if (!rc && !(rc = out_open(&of, out, 0))) {
        fputs(*json, of.f);   /* (the document ends with its newline) */
        rc = out_commit(&of);
    }
    gpt2embed_free(*json);
    return rc;
}

/* The norm of every wpe row and their summary. */
typedef struct study_norms {
    size_t n;
    double *norm;             /* (n,) owned */
    gpt2embed_norm_summary sum;
} study_norms;

static inline void study_norms_free(study_norms *sn)
{
    free(sn->norm);
    memset(sn, 0, sizeof *sn);
}

/* gpt2embed_wpe_norms of m into *out (study_norms_free). */
static inline int study_wpe_norms(const gpt2embed_model *m, study_norms *out)
{
    gpt2embed_error e;
    memset(out, 0, sizeof *out);
    out->n = gpt2embed_n_ctx(m);
    if (!(out->norm = malloc((out->n ? out->n : 1) * sizeof *out->norm))) {
        cli_error("out of memory for %zu norms", out->n);
        return -1;
    }
    if (study_said(gpt2embed_wpe_norms(m, out->norm, &out->sum, &e), &e)) {
        study_norms_free(out);
        return -1;
    }
    return 0;
}

#endif
