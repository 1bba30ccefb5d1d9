/* SPDX-License-Identifier: MIT */
/* report.h — the page of `gpt2-embed report`: every result of the chapter on one model, as
 * HTML with the figures beside the numbers. Part of the rendering wing's program side (no
 * cairo here: figures are fig.h's recipes, drawn through render_load.c).
 *
 * Design. Each section computes its numbers with the library (the functions the commands
 * use, so the page and the commands agree), draws its figures with fig.h, and writes a table
 * of numbers beside them. Every string of the page is in report_text.h. A section whose
 * numbers cannot be computed on these weights says so on the page and through say(); the
 * rest of the page is still written.
 *
 * Figures: with embed = 1 each PNG goes into the page as a data: URI (base64, nettle); with
 * embed = 0 the page links NAME.png and save() receives the PNG to write beside the page.
 * The page loads nothing from the network: no scripts, fonts or styles from elsewhere.
 *
 * Like the library this module never prints, never exits and opens no file: the page goes
 * to the caller's stream (write errors are the caller's to detect), messages to say().
 */
#ifndef G2E_REPORT_H
#define G2E_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "gpt2embed.h"
#include "render.h"


typedef struct report_in {
    const gpt2embed_model *model;      /* the weights and the tokenizer */
    gpt2embed_tokenizer *tokenizer;
    const char *weights;               /* the weights' path, shown in the introduction */
    const char *text[2], *name[2];     /* the English and Japanese texts of the context-limit
                                          section (text[i] holds len[i] bytes) and their names */
    size_t len[2];
    int embed;                         /* 1: figures as data: URIs; 0: linked, through save() */
    /* embed = 0: write png as NAME beside the page; 0, or -1 when it said why itself */
    int (*save)(void *ctx, const char *name, const render_png *png);
    /* one message of a part that failed (translated, one line, no newline) */
    void (*say)(void *ctx, const char *msg);
    void *ctx;
} report_in;

/* Writes the whole page to f. Returns how many parts could not be computed (each said on
 * the page and through say). */
int report_html(FILE *f, const report_in *in);

/* The texts of the context-limit section when no file is given. */
extern const char report_builtin_en[];
extern const char report_builtin_ja[];

#endif
