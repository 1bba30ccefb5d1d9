/* SPDX-License-Identifier: MIT */
/* fuzz_npy.c — libFuzzer target for the .npy reader (npy_parse): any bytes must give
 * either a parsed array whose size matches its shape, or an error with a message;
 * never a crash, a leak or an out-of-bounds read. */
#include "npy.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    npy_array a;
    g2e_err e;
    g2e_clear(&e);
    int rc = npy_parse(data, size, &a, &e);
    if (rc == 0) {
        size_t n = 1;
        for (int i = 0; i < a.ndim; i++)
            n *= a.shape[i];
        if (n != a.count || a.ndim < 1 || a.ndim > NPY_MAX_DIMS || !a.data)
            abort();
        volatile double sink = 0;
        for (size_t i = 0; i < a.count; i++)
            sink += a.data[i];
        (void)sink;
        npy_array_free(&a);
    } else if (e.msg[0] == '\0' || a.data != NULL) {
        abort();
    }
    return 0;
}
