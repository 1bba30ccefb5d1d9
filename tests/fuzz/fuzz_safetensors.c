/* SPDX-License-Identifier: MIT */
/* fuzz_safetensors.c — libFuzzer target for the safetensors reader and the GPT-2 view.
 *
 * Any byte string goes through st_parse_buffer; whatever is accepted is then used the way
 * the program uses it (rows of every 2-D float tensor, the model view, its rows), so that
 * a header that validates but lies about its data would show up as an out-of-bounds read.
 * An error message must be one line: a newline in it traps. Seeds: seeds-safetensors/.
 * Differential: the header (and the whole input read as a header) must get the same
 * verdict, tensors and message from the old cJSON-based reader (tests/st_ref_cjson.c), but
 * for the differences st_ref_agree lists; a disagreement is printed and traps.
 */
#include "../st_ref_cjson.h"
#include "model.h"
#include "safetensors.h"

#include <stdio.h>

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static float row[4096];

static void check_msg(const g2e_err *e)
{
    if (strchr(e->msg, '\n')) __builtin_trap();
}

static void check_agree(const uint8_t *h, size_t n, uint64_t data_len)
{
    static char why[2048];
    if (!st_ref_agree(h, n, data_len, why, sizeof why)) {
        fprintf(stderr, "fuzz_safetensors: the parsers disagree: %s\n", why);
        __builtin_trap();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t n = 0;
    for (int i = 7; i >= 0 && size >= 8; i--) n = n << 8 | data[i];
    if (size >= 8 && n <= size - 8) check_agree(data + 8, (size_t)n, size - 8 - n);
    check_agree(data, size, 0);

    st_file *f = NULL;
    g2e_err e;
    g2e_clear(&e);
    if (st_parse_buffer(&f, data, size, &e) != 0) {
        check_msg(&e);
        if (f) __builtin_trap();
        return 0;
    }
    for (size_t i = 0; i < f->n_tensors; i++) {
        const st_tensor *t = &f->tensors[i];
        if (t->end > f->data_len) __builtin_trap();
        if (t->ndim != 2 || t->shape[0] == 0) { /* must be refused without writing */
            if (st_read_row_f32(f, t, 0, row, &e) == 0) __builtin_trap();
            continue;
        }
        if (t->shape[1] > 4096) continue;       /* wider than our buffer */
        st_read_row_f32(f, t, 0, row, &e);
        st_read_row_f32(f, t, t->shape[0] - 1, row, &e);
        if (st_read_row_f32(f, t, t->shape[0], row, &e) != ST_E_RANGE) __builtin_trap();
    }
    /* The same header through the downloader's entry point must give the same verdict. */
    st_file *h = NULL;
    if (st_parse_header(&h, data + 8, (size_t)f->header_len, f->data_len, &e) != 0) __builtin_trap();
    if (h->n_tensors != f->n_tensors) __builtin_trap();
    st_close(h);

    st_file *g = NULL;
    if (st_parse_buffer(&g, data, size, &e) != 0) __builtin_trap();
    g2e_model *m = NULL;
    if (model_from_st(&m, g, &e) == 0) {
        if (m->n_embd <= 4096) {
            model_wte_row(m, 0, row, &e);
            model_wte_row(m, m->n_vocab - 1, row, &e);
            model_wpe_row(m, m->n_ctx - 1, row, &e);
            if (model_wpe_row(m, m->n_ctx, row, &e) != MODEL_E_RANGE) __builtin_trap();
        }
        model_close(m);
    } else {
        check_msg(&e);
    }
    st_close(f);
    return 0;
}
