/* SPDX-License-Identifier: MIT */
/* rows_out.h — embedding rows written out, one row at a time: what `gpt2-embed` (the main
 * job) writes, for every caller that has token IDs and a model (gpt2embed.h).
 *
 * Three layers, each usable alone:
 *   1. rows_out_*: a matrix streamed row by row as npy (npy.h's header, float32, C order)
 *      or raw (little-endian float32, no header); any command writing float32 rows can use it.
 *   2. rows_tokens: the token sequence the rows describe: IDs, the byte offset of each
 *      token in the text, and the characters behind each token (tokchars.h), from a text
 *      (tokenized, optionally after <|endoftext|>) or from IDs (whose pieces, one after
 *      another, then stand in for the text, as `decode` gives it).
 *   3. rows_write: the whole document in one of five formats, from tokens + rows_plan
 *      (windows, start position, padding: gpt2embed_windows) + the model and its positions:
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
 *      Rows are made as they are written, a few at a time (gpt2embed_embed_ex): nothing of
 *      size T * C is held.
 *
 * Errors: 0 or a status (G2E_ENOMEM, npy.h's, G2E_EINVAL for the door's), message in *err. A failing FILE
 * is the caller's to detect (ferror; the program's out_commit reports it).
 * Deliberately left out: opening files (outfile.h), figures (the rendering wing).
 */
#ifndef G2E_ROWS_OUT_H
#define G2E_ROWS_OUT_H

#include "err.h"
#include "gpt2embed.h"
#include "npy.h"
#include "textpos.h"
#include "tokchars.h"

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

/* Tokenizes text[0..len) (gpt2embed_tokenize_ex's flags), with <|endoftext|> first when bos.
 * text must outlive *r. Returns 0 or the door's status, with its error in *err (the
 * characters' as G2E_EINVAL: GPT2EMBED_E_INTERNAL, an out of memory: GPT2EMBED_E_NOMEM). On
 * error *r needs rows_tokens_free. */
int rows_tokens_text(rows_tokens *r, gpt2embed_tokenizer *t, const char *text, size_t len, unsigned flags,
                     int bos, gpt2embed_error *err);
/* Copies ids[0..T) (not checked against n_vocab: the caller does that). G2E_ENOMEM. */
int rows_tokens_ids(rows_tokens *r, const gpt2embed_tokenizer *t, const uint32_t *ids, size_t T, g2e_err *err);
/* Frees what *r owns; accepts a zeroed one. */
void rows_tokens_free(rows_tokens *r);
/* Token i's piece (bytes; "" for an ID without one). */
void rows_piece(const gpt2embed_tokenizer *t, const rows_tokens *r, size_t i, const uint8_t **b, size_t *n);
/* How token i is shown on one line (caller frees; NULL if out of memory): the character and
 * its share when the token holds part of one ("犬 (1/3)"), else the piece made visible
 * (text.h's TEXT_ESC_VISIBLE). */
char *rows_shown(const gpt2embed_tokenizer *t, const rows_tokens *r, size_t i);

/* Which token and position each output row is: T tokens from position start (one window of
 * W = T rows), or windows of W = window rows starting every stride tokens, each from
 * position 0, the last padded with zero rows to W (gpt2embed_windows). */
typedef struct rows_plan {
    size_t T, start;
    size_t window, stride;   /* 0: no windows */
    size_t n_windows, W;     /* the windows (1 without); rows per window */
} rows_plan;

/* Fills *p; with window > 0, start must be 0 and 1 <= stride <= window (and
 * gpt2embed_windows' limit on padding): G2E_EINVAL with the door's message. Positions are
 * checked when the rows are made. */
int rows_plan_make(rows_plan *p, size_t T, size_t start, size_t window, size_t stride, g2e_err *err);
/* The token index of window w, row r, or SIZE_MAX for a padding row. */
size_t rows_plan_token(const rows_plan *p, size_t w, size_t r);
/* The position of window w, row r (r with windows, start + r without). */
size_t rows_plan_position(const rows_plan *p, size_t w, size_t r);

/* ---- 3. the document ---- */
enum { ROWS_TABLE, ROWS_JSON, ROWS_NPY, ROWS_CSV, ROWS_RAW };

typedef struct rows_doc {
    const gpt2embed_model *m;
    gpt2embed_pe pe;            /* the positions: learned, or sinusoidal times pe_scale */
    double pe_scale;            /* 1.0 for learned positions */
    const rows_plan *plan;      /* which token and position each row is */
    const rows_tokens *tok;
    const gpt2embed_tokenizer *tz; /* the pieces */
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
char *rows_pe_caveat(const gpt2embed_model *m, double wte_norm);
/* The first window's first rows (at most R, up to the first padding row) of d for a strips
 * figure: data (3 * R * n_embd floats) receives token, position and sum rows, packed as
 * (3, n, C); labels[r] a new string "POSITION PIECE" (caller frees each). *n: the rows filled. */
int rows_strips(const rows_doc *d, size_t R, float *data, char **labels, size_t *n, g2e_err *err);


#endif
