/* SPDX-License-Identifier: MIT */
/* lapack_dl.h — LAPACKE and CBLAS, loaded with dlopen the first time pca needs them.
 *
 * Why: liblapacke.so.3 brings liblapack, libblas (OpenBLAS), libopenblas, libtmglib,
 * libgfortran and libquadmath: some 41 MB of address space and thousands of relocations the
 * dynamic loader would otherwise pay at every start of the program (and which made
 * `ulimit -v 200000` too tight to open a full GPT-2 checkpoint). Only principal components
 * (pca.c) need them, so only a pca run pays.
 *
 * The headers of liblapacke-dev and libblas-dev still give the prototypes at build time
 * (the table below takes its types from them, so a mismatch does not compile); at run time
 * liblapacke.so.3 (Debian package liblapacke) and libblas.so.3 (libopenblas0-serial, or the
 * reference libblas3) must be installed: the same libraries a program linking them would
 * use, reached through the same names, so the results are the same bit for bit.
 */
#ifndef G2E_LAPACK_DL_H
#define G2E_LAPACK_DL_H

#include <cblas.h>
#include <lapacke.h>

#include "err.h"

/* The routines pca.c calls, with the signatures of <lapacke.h> and <cblas.h>. */
typedef struct lapack_api {
    __typeof__(&LAPACKE_dsytrd) dsytrd;
    __typeof__(&LAPACKE_dsterf) dsterf;
    __typeof__(&LAPACKE_dstemr) dstemr;
    __typeof__(&LAPACKE_dormtr) dormtr;
    __typeof__(&cblas_dsyrk) dsyrk;
    __typeof__(&cblas_dgemm) dgemm;
} lapack_api;

/* The API, loading libblas.so.3 and liblapacke.so.3 on the first call (not thread-safe
 * then; later calls only read). NULL when a library or one of its routines is missing; err
 * (status `code`) then names which and the Debian package to install. The libraries stay
 * loaded until exit. */
const lapack_api *lapack_dl(int code, g2e_err *err);

#endif
