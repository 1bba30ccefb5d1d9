/* SPDX-License-Identifier: MIT */
/* test_lapack_dl.c — LAPACKE and CBLAS loaded on first use: the routines reached work (on
 * small problems solved by hand), the table is loaded once, and a missing library or
 * routine is a clear one-line error naming the library and the Debian package (also through
 * pca_compute), after which a later call may still succeed.
 *
 * A missing library is simulated by this test program's own dlopen, which takes precedence
 * over libc's for the library objects linked into it and forwards to the real one unless
 * told to refuse a name (or to hand back another library in its place). Criterion runs
 * each test in a fresh process, so every test starts with nothing loaded. */
#define _GNU_SOURCE
#include "lapack_dl.h"
#include "pca.h"
#include "gpt2embed.h"

#include <criterion/criterion.h>
#include <dlfcn.h>
#include <math.h>
#include <string.h>

static const char *refuse;      /* dlopen of this name fails */
static const char *substitute;  /* ... or opens this library instead */
static int opened_blas, opened_lapacke;

void *dlopen(const char *file, int mode)
{
    void *(*real)(const char *, int);
    void *p = dlsym(RTLD_NEXT, "dlopen");
    memcpy(&real, &p, sizeof real);
    if (file && strcmp(file, "libblas.so.3") == 0)
        opened_blas++;
    if (file && strcmp(file, "liblapacke.so.3") == 0)
        opened_lapacke++;
    if (file && refuse && strcmp(file, refuse) == 0) {
        if (substitute)
            return real(substitute, mode);
        return NULL;
    }
    return real(file, mode);
}

static void one_line(const g2e_err *e)
{
    cr_expect(e->msg[0] != 0, "no message");
    cr_expect(strchr(e->msg, '\n') == NULL, "message is not one line: %s", e->msg);
}

Test(lapack_dl, the_routines_solve_small_problems_known_by_hand)
{
    g2e_err e;
    const lapack_api *la = lapack_dl(77, &e);
    cr_assert(la, "%s", e.msg);
    /* X = [1 2 3; 4 5 6] (2 × 3, row-major): X Xᵀ = [14 32; 32 77] */
    double X[6] = {1, 2, 3, 4, 5, 6}, C[4] = {0, 0, 0, 0}, G[4] = {0, 0, 0, 0};
    la->dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, 2, 3, 1.0, X, 3, 0.0, C, 2);
    cr_expect(C[0] == 14 && C[2] == 32 && C[3] == 77, "dsyrk: %g %g %g", C[0], C[2], C[3]);
    la->dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, 2, 2, 3, 1.0, X, 3, X, 3, 0.0, G, 2);
    cr_expect(G[0] == 14 && G[1] == 32 && G[2] == 32 && G[3] == 77, "dgemm: %g %g %g %g", G[0],
              G[1], G[2], G[3]);
    /* the tridiagonal [2 1 0; 1 2 1; 0 1 2] has eigenvalues 2 − √2, 2, 2 + √2 */
    double d[3] = {2, 2, 2}, off[2] = {1, 1};
    cr_assert_eq(la->dsterf(3, d, off), 0);
    double want[3] = {2 - sqrt(2), 2, 2 + sqrt(2)};
    for (int i = 0; i < 3; i++)
        cr_expect(fabs(d[i] - want[i]) < 1e-14, "eigenvalue %d: %.17g, not %.17g", i, d[i],
                  want[i]);
    /* dsytrd of a diagonal matrix leaves it as it is */
    double S[4] = {3, 0, 0, 5}, dg[2], e1[1], tau[1];
    cr_assert_eq(la->dsytrd(LAPACK_COL_MAJOR, 'L', 2, S, 2, dg, e1, tau), 0);
    cr_expect(dg[0] == 3 && dg[1] == 5 && e1[0] == 0, "dsytrd: %g %g %g", dg[0], dg[1], e1[0]);
    cr_expect(la->dstemr && la->dormtr);
}

Test(lapack_dl, the_libraries_are_opened_once)
{
    const lapack_api *a = lapack_dl(77, NULL), *b = lapack_dl(77, NULL);
    cr_assert(a && a == b);
    cr_expect_eq(opened_blas, 1);
    cr_expect_eq(opened_lapacke, 1);
}

Test(lapack_dl, a_missing_blas_names_it_and_its_package_and_a_later_call_retries)
{
    refuse = "libblas.so.3";
    g2e_err e;
    cr_assert_null(lapack_dl(77, &e));
    cr_expect_eq(e.code, 77);
    one_line(&e);
    cr_expect(strstr(e.msg, "libblas.so.3") && strstr(e.msg, "apt-get install libopenblas0-serial"),
              "%s", e.msg);
    cr_expect_eq(opened_lapacke, 0, "liblapacke opened after libblas failed");
    refuse = NULL;
    cr_expect(lapack_dl(77, &e), "%s", e.msg);
}

Test(lapack_dl, a_missing_lapacke_names_it_and_its_package)
{
    refuse = "liblapacke.so.3";
    g2e_err e;
    cr_assert_null(lapack_dl(78, &e));
    cr_expect_eq(e.code, 78);
    one_line(&e);
    cr_expect(strstr(e.msg, "liblapacke.so.3") && strstr(e.msg, "apt-get install liblapacke"),
              "%s", e.msg);
}

Test(lapack_dl, a_library_without_the_routines_is_refused)
{
    refuse = "liblapacke.so.3", substitute = "libm.so.6";
    g2e_err e;
    cr_assert_null(lapack_dl(79, &e));
    cr_expect_eq(e.code, 79);
    one_line(&e);
    cr_expect(strstr(e.msg, "liblapacke.so.3 has no LAPACKE_dsytrd") && strstr(e.msg, "liblapacke"),
              "%s", e.msg);
}

Test(lapack_dl, pca_without_blas_is_a_library_error_and_leaves_nothing)
{
    refuse = "libblas.so.3";
    double X[6] = {1, 2, 3, 4, 5, 7};
    pca_result r;
    g2e_err e;
    cr_assert_eq(pca_compute(X, 3, 2, 1, &r, &e), PCA_E_LIBRARY);
    cr_expect_eq(e.code, PCA_E_LIBRARY);
    one_line(&e);
    cr_expect(strstr(e.msg, "principal components need libblas.so.3"), "%s", e.msg);
    cr_expect(!r.mean && !r.variance && !r.components && !r.proj && r.n == 0);
    pca_free(&r);
    /* input errors are still reported as such, before any library is needed */
    X[0] = NAN;
    cr_expect_eq(pca_compute(X, 3, 2, 1, &r, &e), PCA_E_VALUE);
}

/* Through the public door: GPT2EMBED_E_UNAVAILABLE with the package named, *out NULL, and a
 * later call works once the library is there. */
Test(lapack_dl, the_doors_pca_without_lapacke_is_unavailable)
{
    refuse = "liblapacke.so.3";
    gpt2embed_pca_source s = {.of = GPT2EMBED_PCA_SINUSOIDAL, .len = 20, .dim = 4, .base = 1e4};
    gpt2embed_pca_result *r = (gpt2embed_pca_result *)&s;
    gpt2embed_error err;
    cr_assert_eq(gpt2embed_pca(NULL, &s, 2, &r, &err), GPT2EMBED_E_UNAVAILABLE);
    cr_expect(r == NULL);
    cr_expect(strstr(err.message, "liblapacke.so.3") && strstr(err.message, "apt-get install liblapacke"),
              "%s", err.message);
    cr_expect(strchr(err.message, '\n') == NULL);
    cr_expect_str_eq(gpt2embed_strerror(GPT2EMBED_E_UNAVAILABLE), "a system library it needs cannot be loaded");
    refuse = NULL;
    cr_assert_eq(gpt2embed_pca(NULL, &s, 2, &r, &err), GPT2EMBED_OK, "%s", err.message);
    gpt2embed_pca_free(r);
}
