/* SPDX-License-Identifier: MIT */
/* rows_out.h — embedding rows written out, one row at a time: what `gpt2-embed` (the main
 * job) writes, for every caller that has token IDs and an embed_ctx.
 *
 * Three layers, each usable alone:
 *   1. rows_out_*: a matrix streamed row by row as npy (npy.h's header, float32, C order)
 *      or raw (little-endian float32, no header); any command writing float32 rows can use it.
 *   2. rows_tokens: the token sequence the rows describe: IDs, the byte offset of each
 *      token in the text, and the characters behind each token (tokchars.h), from a text
 *      (tokenized, optionally after <|endoftext|>) or from IDs (whose pieces, one after
 *      another, then stand in for the text, as `decode` gives it).
 *   3. rows_write: the whole document in one of five formats, from tokens + embed_plan
 *      (embed.h: windows, start position, padding) + embed_ctx:
 *        ROWS_TABLE  the aligned text table (norms, the first `show` components), a
 *                    padding line, the summary line and, for sinusoidal positions, the
 *                    scale statement (headings translated, g2e_tr);
 *        ROWS_JSON   one object: model, pe, n_tokens, start_pos, tokens or windows (each
 *                    token: pos, index, id, piece, offset/chars/char_index/char_part for a
 *                    text, vector, and token_vector/position_vector with parts);
 *        ROWS_NPY    (T, C); parts (3, T, C); windows (n, W, C) and (3, n, W, C);
 *        ROWS_CSV    a header, then one line per row (and part): window, pos, index, id,
 *                    piece, display, part, c0..c(C-1) at "%.9g";
 *        ROWS_RAW    the npy's data without the header.
 *      Rows are made as they are written (embed_row): nothing of size T * C is held.
 *
 * Errors: 0 or a status (G2E_ENOMEM, npy.h's, embed.h's), message in *err. A failing FILE
 * is the caller's to detect (ferror; the program's out_commit reports it).
 * Deliberately left out: opening files (outfile.h), figures (the rendering wing).
 */
#ifndef G2E_ROWS_OUT_H
#define G2E_ROWS_OUT_H

#include "embed.h"
#include "err.h"
#include "npy.h"
#include "textpos.h"
#include "tokchars.h"
#include "tokenizer.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- 1. a float32 matrix, streamed ---- */
typedef struct rows_out {
    FILE *f;
    int npy;           /* 1: npy, 0: raw */
    npy_writer nw;
} rows_out;

/* npy = 1 writes the header for shape[0..ndim) (npy.h's limits); npy = 0 (raw) nothing. */
int rows_out_begin(rows_out *w, FILE *f, int npy, const size_t *shape, int ndim, g2e_err *err);
/* Appends n values. npy: more than the shape holds is an error. raw: a short write is left
 * to the stream's error flag (returns 0). */
int rows_out_put(rows_out *w, const float *v, size_t n, g2e_err *err);
/* npy: checks that exactly the promised number of values arrived. */
int rows_out_end(rows_out *w, g2e_err *err);

/* ---- 2. the tokens ---- */
typedef struct rows_tokens {
    uint32_t *ids;          /* (T,) owned */
    size_t T;
    size_t *offs;           /* (T + 1,) byte offsets in text (owned), NULL for IDs */
    tokchars_span *spans;   /* (T,) owned; NULL when the characters could not be made (IDs
                             * only: the pieces are then shown as they are) */
    const char *text;       /* the text (borrowed), or ids_text */
    size_t text_len;
    char *ids_text;         /* IDs: their pieces one after another (owned) */
    int from_ids;
} rows_tokens;

/* Tokenizes text[0..len) (tok_encode's special and flags), with <|endoftext|> first when bos.
 * text must outlive *r. Errors: tok_encode's (code and message as it gives them), the
 * characters' (tokchars_spans), G2E_ENOMEM. On error *r needs rows_tokens_free. */
int rows_tokens_text(rows_tokens *r, tok_tokenizer *t, const char *text, size_t len,
                     tok_special special, unsigned flags, int bos, g2e_err *err);
/* Copies ids[0..T) (not checked against n_vocab: embed_check_ids does that). G2E_ENOMEM. */
int rows_tokens_ids(rows_tokens *r, tok_tokenizer *t, const uint32_t *ids, size_t T, g2e_err *err);
/* Frees what *r owns; accepts a zeroed one. */
void rows_tokens_free(rows_tokens *r);
/* Token i's piece (bytes; "" for an ID without one). */
void rows_piece(tok_tokenizer *t, const rows_tokens *r, size_t i, const uint8_t **b, size_t *n);
/* How token i is shown on one line (caller frees; NULL if out of memory): the character and
 * its share when the token holds part of one ("犬 (1/3)"), else the piece made visible
 * (text.h's TEXT_ESC_VISIBLE). */
char *rows_shown(tok_tokenizer *t, const rows_tokens *r, size_t i);

/* ---- 3. the document ---- */
enum { ROWS_TABLE, ROWS_JSON, ROWS_NPY, ROWS_CSV, ROWS_RAW };

typedef struct rows_doc {
    const embed_ctx *ec;        /* model and positions */
    const embed_plan *plan;     /* which token and position each row is */
    const rows_tokens *tok;
    tok_tokenizer *tz;          /* the pieces */
    const char *weights;        /* the weights' path, as JSON and the table name it */
    int parts;                  /* token and position vectors too (not for ROWS_TABLE) */
    size_t show;                /* ROWS_TABLE: components of each sum shown */
    double wte_norm;            /* sinusoidal: mean |wte row| (0: not computed) */
    double wpe_norm;            /* sinusoidal scaled to wpe: mean |wpe row|, else 0 */
} rows_doc;

/* Writes the document of d in fmt (ROWS_*) to f. */
int rows_write(FILE *f, int fmt, const rows_doc *d, g2e_err *err);

/* The statement of the sinusoidal encoding's scale (no newline; translated), as the table's
 * last line, JSON's members and the program's note beside data files give it: a new string
 * (caller frees), NULL when out of memory. */
char *rows_pe_statement(const rows_doc *d);

/* ---- for messages and figures ---- */
#define ROWS_WHERE_MAX (TEXTPOS_SNIPPET_MAX + 512)   /* room for rows_where's text (any language;
                                                       a longer one is cut between characters) */
/* Where the first n tokens end, in words (translated, no newline):
 *   upto = 1: " (up to character C, line L: SNIPPET)" for a text, "" (buf untouched) for IDs;
 *   upto = 0: "the Nth token (position LAST) ends at character C (line L, column K): SNIPPET"
 *             ("the end of line L" when the next token starts a line), or for IDs
 *             "the Nth ID (position LAST) is ID". n >= 1 and n <= r->T. */
void rows_where(const rows_tokens *r, size_t n, size_t last, int upto, char *buf, size_t cap);
/* How large the sinusoidal encoding (norm sqrt(n_embd/2)) is against this model's token
 * vectors (wte_norm: their mean norm, 0 to compute it here), and that --pe-scale wpe scales
 * it, for the over-limit message (translated, no newline): a new string (caller frees), NULL
 * when out of memory. */
char *rows_pe_caveat(const g2e_model *m, double wte_norm);
/* The first window's first rows (at most R, up to the first padding row) for a strips figure:
 * data (3 * R * n_embd floats) receives token, position and sum rows, packed as (3, n, C);
 * labels[r] a new string "POSITION PIECE" (caller frees each). *n: the rows filled. */
int rows_strips(const embed_ctx *ec, const embed_plan *p, const rows_tokens *tk, tok_tokenizer *tz,
                size_t R, float *data, char **labels, size_t *n, g2e_err *err);


#endif
