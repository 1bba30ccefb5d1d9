/* SPDX-License-Identifier: MIT */
/* embed.h — the lookup-and-add stage: x[t] = wte[id_t] + P(start + t).
 *
 * P is GPT-2's learned position embedding wpe (the default), or the original
 * Transformer's fixed sinusoidal encoding of width n_embd and base 10000
 * (EMBED_PE_SINUSOIDAL, sinusoid.h, which has no 1024 limit). Every array is float32, row-major, shape (T, n_embd). The sum is one
 * IEEE single-precision addition per element, so results are bit-identical to numpy's
 * `wte[ids] + wpe[np.arange(start, start + T)]` (F16/BF16 weights are upcast first).
 *
 * Deliberately left out: tokenizing (tokenizer.h), output formats (the program).
 */
#ifndef G2E_EMBED_H
#define G2E_EMBED_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "model.h"
#include "sinusoid.h"

/* Status codes of this module and the public status each is reported as (err.h). */
#define EMBED_CODES(X) \
    X(EMBED_E_CONTEXT, CONTEXT) /* start + T > n_ctx with learned positions */ \
    X(EMBED_E_ID, TOKEN_ID) /* a token ID >= n_vocab */ \
    X(EMBED_E_WINDOW, ARG) /* window/stride outside 1 <= S <= W <= n_ctx */ \
    X(EMBED_E_SCALE, ARG) /* a position scale that is not finite, not > 0, or beyond EMBED_MAX_PE_SCALE, or one given for learned positions */
G2E_CODES(EMBED, EMBED_CODES);

/* The largest factor embed_set_pe_scale accepts (far beyond any useful one; keeps every
 * scaled value a finite float32). */
#define EMBED_MAX_PE_SCALE 1e6

typedef enum embed_pe {
    EMBED_PE_LEARNED,       /* wpe rows from the weights file */
    EMBED_PE_SINUSOIDAL,    /* PE(pos, 2i) = sin(pos / 10000^(2i/D)), PE(pos, 2i+1) = cos(...) */
} embed_pe;

/* Checks every ID against n_vocab and that positions [start, start + T) exist; on error the
 * message gives the offending index/ID or the numbers (T, start, n_ctx). */
int embed_check(const g2e_model *m, embed_pe pe, const uint32_t *ids, size_t T, size_t start,
                g2e_err *err);

/* For t in [0, T): tok[t] = wte[ids[t]], pos[t] = P(start + t), sum[t] = tok[t] + pos[t].
 * sum must hold T * n_embd floats; tok and pos may be NULL (not wanted) or hold as many.
 * Checks as embed_check first; on error nothing useful is left in the buffers. Never reads
 * position n_ctx or beyond. */
int embed_rows(const g2e_model *m, embed_pe pe, const uint32_t *ids, size_t T, size_t start,
               float *sum, float *tok, float *pos, g2e_err *err);

/* Row-at-a-time access for callers that stream (the program writes row by row so that a
 * 1024-token output never has to be held three times over). embed_init prepares the
 * position scheme once (the sinusoidal table); embed_row then makes one token's rows.
 *
 * A scaled sinusoidal encoding (embed_set_pe_scale): P(pos) = s * PE(pos), each value
 * computed in double (the sine or cosine times s) and rounded once to float32, so that
 * the result is bit-identical to numpy's np.float32(pe64 * s) for the same double table
 * pe64. With s == 1 (the default) the rows are exactly the unscaled ones. The fixed
 * encoding's rows all have norm sqrt(n_embd / 2) (19.6 for n_embd 768), about five times
 * GPT-2's token vectors: a scale lets a learner bring it to the size of wpe's rows. */
typedef struct embed_ctx {
    const g2e_model *m;    /* borrowed */
    embed_pe pe;
    sin_table tab;         /* EMBED_PE_SINUSOIDAL only (owned) */
    double pe_scale;       /* EMBED_PE_SINUSOIDAL: the factor s (1.0 after embed_init) */
} embed_ctx;

/* Errors: SIN_E_DIM (sinusoidal with an odd n_embd), G2E_ENOMEM. On error *c needs no free. */
int embed_init(embed_ctx *c, const g2e_model *m, embed_pe pe, g2e_err *err);
/* Sets the factor s of the sinusoidal encoding (see embed_ctx). EMBED_E_SCALE when s is not
 * finite, s <= 0 or s > EMBED_MAX_PE_SCALE, or when c's positions are learned (wpe's rows are
 * the weights' own: nothing here rescales them); c is unchanged on error. */
int embed_set_pe_scale(embed_ctx *c, double s, g2e_err *err);
/* Frees what embed_init made; accepts a zeroed ctx. */
void embed_free(embed_ctx *c);
/* tok = wte[id], pos = P(position), sum = tok + pos, each n_embd floats; tok and pos may be
 * NULL. Checks id and position like embed_check. */
int embed_row(const embed_ctx *c, uint32_t id, size_t position, float *sum, float *tok,
              float *pos, g2e_err *err);

/* The most zero rows a windowed output may be padded with: 2^20. GPT-2's own windows
 * (W <= 1024) never come near; a sinusoidal --window of 2^53 - 1 over a few tokens would
 * otherwise write 2^53 rows of zeros. */
#define EMBED_MAX_PADDING ((size_t)1 << 20)

/* The zero rows that pad the last of the windows of embed_windows(T, W, S) to W rows, into
 * *padding; EMBED_E_WINDOW when they would be more than EMBED_MAX_PADDING (the message
 * gives the count and how to avoid it), or when W/S are invalid as for embed_windows. */
int embed_window_padding(size_t T, size_t W, size_t S, size_t *padding, g2e_err *err);

/* Sliding windows over T tokens: windows of at most W tokens starting every S tokens
 * (overlap W - S), the last one ending at T. *n_windows receives their count (1 when
 * T <= W; 0 when T == 0). Window k covers tokens [k*S, min(k*S + W, T)). */
int embed_windows(size_t T, size_t W, size_t S, size_t *n_windows, g2e_err *err);

#endif
