/* SPDX-License-Identifier: MIT */
/* fixture.h — writes GPT-2-layout safetensors files for tests, benchmarks and tools.
 *
 * Shared by every test that needs weights (the loader, the embedding stage, similarity,
 * the downloader's local HTTP server), by bench/ and by tools/mkfixture. It does NOT use
 * Criterion (benchmarks link it): functions report failure by return value and errbuf.
 *
 * The values are deterministic and independent of the reader under test:
 *   fixture_value(which, row, col)   the float32 the writer starts from, a hash of the
 *                                    coordinates spread over [-1, 1] with a full 24-bit
 *                                    mantissa (sums of them round like real weights do);
 *                                    wpe row 0 is 8x larger, like GPT-2's outlier row;
 *   fixture_expected(o, ...)         what a correct reader must return for that element of
 *                                    a file written with options o: the value rounded to
 *                                    the stored dtype (round to nearest even, done here with
 *                                    its own code) and widened back, or 0 for rows a sparse
 *                                    fixture did not write.
 *
 * Typical use:
 *     fixture_opts o;
 *     fixture_tiny(&o);                 // 64 x 8 wte, 16 x 8 wpe, F32, no prefix
 *     o.dtype = ST_BF16;                // or ST_F16
 *     o.prefix = "transformer.";
 *     char e[256];
 *     if (fixture_write(path, &o, e, sizeof e) != 0) fail(e);
 *     float want = fixture_expected(&o, FIXTURE_WTE, 5, 3);
 *
 *     fixture_gpt2(&o, ST_F32, NULL);   // openai-community/gpt2's model.safetensors layout:
 *                                       // 160 tensors, 548,105,171 bytes, header 14,283,
 *                                       // data at 14,291; sparse (little disk, ~no time)
 *
 * Deliberately left out: reading (that is the library's job), dtypes other than
 * F32/F16/BF16, and values for the non-embedding tensors of a sparse file (zeros).
 */
#ifndef G2E_TEST_FIXTURE_H
#define G2E_TEST_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "safetensors.h"

enum { FIXTURE_WTE = 0, FIXTURE_WPE = 1 };

/* The real gpt2 file's figures, for tests that compare with them. */
#define FIXTURE_GPT2_FILE_SIZE 548105171ULL
#define FIXTURE_GPT2_HEADER_LEN 14283ULL
#define FIXTURE_GPT2_N_TENSORS 160

typedef struct fixture_opts {
    uint64_t n_vocab, n_ctx, n_embd; /* wte [n_vocab, n_embd], wpe [n_ctx, n_embd]; all > 0 */
    st_dtype dtype;          /* ST_F32, ST_F16 or ST_BF16; every tensor of the file has it */
    const char *prefix;      /* prepended to every tensor name: NULL or "" for none,
                                "transformer." as GPT2LMHeadModel saves it */
    int full_layout;         /* 1: also every other GPT-2 tensor (n_layer blocks of ln_1,
                                attn.bias [1,1,n_ctx,n_ctx], attn.c_attn, attn.c_proj, ln_2,
                                mlp.c_fc, mlp.c_proj weights and biases; ln_f) */
    unsigned n_layer;        /* blocks when full_layout (12 for gpt2, 6 for distilgpt2) */
    int sparse;              /* 1: size the file with ftruncate and write only the rows listed
                                below (the rest, and all non-embedding tensors, read as 0) */
    const uint64_t *wte_rows; size_t n_wte_rows;   /* rows written when sparse */
    const uint64_t *wpe_rows; size_t n_wpe_rows;
    const char *const *meta; /* __metadata__: NULL, or "key", "value", ..., NULL */
    uint64_t header_len;     /* 0: automatic (padded with spaces so that the data section
                                starts at an odd offset, 8 + N = 3 mod 8: unaligned for every
                                dtype); else exactly this many bytes (spaces after the JSON;
                                fixture_write fails if the JSON is longer) */
    int aligned;             /* with header_len 0: pad so the data starts at a multiple of 8
                                instead (what the reference writer does) */
} fixture_opts;

/* Small and quick: n_vocab 64, n_ctx 16, n_embd 8, F32, no prefix, no other tensors, every
 * row written, no metadata, unaligned data start. */
void fixture_tiny(fixture_opts *o);

/* The real shapes of openai-community/gpt2: n_vocab 50257, n_ctx 1024, n_embd 768, full
 * layout with 12 blocks, metadata {"format": "pt"}, sparse with wte rows {0, 1, 2, 50256}
 * and wpe rows {0, 1, 1023}. dtype and prefix as given (prefix NULL: none). With ST_F32 and
 * no prefix the header is padded to 14,283 bytes so the file is byte-for-byte the size of
 * the real one (548,105,171) with its data at 14,291; otherwise header_len is automatic. */
void fixture_gpt2(fixture_opts *o, st_dtype dtype, const char *prefix);

/* Writes the file at path (through path.part and rename, so never half-written). Returns 0,
 * or -1 with a one-line reason in errbuf (path left absent). */
int fixture_write(const char *path, const fixture_opts *o, char *errbuf, size_t errlen);

/* The deterministic value at (row, col) of tensor `which` (FIXTURE_WTE, FIXTURE_WPE; 2 + i
 * for the i-th other tensor in name order, flattened, row 0) before rounding to a dtype. */
float fixture_value(int which, uint64_t row, uint64_t col);

/* What a correct reader returns for wte/wpe element (row, col) of a file written with o. */
float fixture_expected(const fixture_opts *o, int which, uint64_t row, uint64_t col);
/* The same for a whole row: out[o->n_embd]. */
void fixture_expected_row(const fixture_opts *o, int which, uint64_t row, float *out);

/* Float32 -> F16 / BF16 with round to nearest, ties to even (overflow to inf, NaN kept NaN),
 * and back (through ldexp: a different route from the library's bit shifting). */
uint16_t fixture_f32_to_f16(float v);
uint16_t fixture_f32_to_bf16(float v);
float fixture_f16_to_f32(uint16_t h);
float fixture_bf16_to_f32(uint16_t h);

#endif
