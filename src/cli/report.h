/* SPDX-License-Identifier: MIT */
/* report.h — the pieces of `gpt2-embed report` (cmd_report.c parses and opens; report.c
 * computes each section and writes the HTML; report_text.c holds every string of the page).
 * Program wing.
 */
#ifndef G2E_REPORT_H
#define G2E_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "model.h"
#include "tokenizer.h"

typedef struct report {
    g2e_model *m;             /* owned */
    tok_tokenizer *tok;       /* owned */
    const char *weights;      /* the weights' path (not owned) */
    char *text_en, *text_ja;  /* owned: the two texts of the context-limit section */
    size_t len_en, len_ja;
    const char *name_en, *name_ja;
    char *figdir;             /* owned: where the PNGs are drawn */
    int single;               /* 1: one self-contained file, figdir is temporary */
    FILE *f;                  /* the page while it is written */
    int n_failed;             /* sections that could not be computed */
    char *figs[64];           /* owned: figure files drawn (removed afterwards if single) */
    size_t n_figs;
} report;

/* Writes the page: into html_path (single file) or figdir/index.html. 0, or -1 (printed). */
int report_write(report *r, const char *html_path);

/* Frees what *r owns; removes the temporary figures and directory of a single-file report. */
void report_cleanup(report *r);

/* The texts of the context-limit section when no file is given. */
extern const char report_builtin_en[];
extern const char report_builtin_ja[];


#endif
