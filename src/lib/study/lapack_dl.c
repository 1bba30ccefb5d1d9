/* SPDX-License-Identifier: MIT */
/* lapack_dl.c — LAPACKE and CBLAS through dlopen (see lapack_dl.h). */
#include "lapack_dl.h"

#include "memlimit.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

/* Loaded once per process, under the lock (two threads asking at once load it once). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static lapack_api api;
static int loaded;

/* dlsym returns void *; a function pointer is copied out of it bit for bit, which POSIX
 * guarantees to work (as in curl_dl.c). */
static int sym(void *lib, const char *so, const char *pkg, const char *name, void *fnptr,
               size_t size, g2e_err *err, int code)
{
    void *p = dlsym(lib, name);
    if (!p)
        return g2e_fail(err, code, "%s has no %s (install Debian's %s)", so, name, pkg);
    memcpy(fnptr, &p, size);
    return 0;
}

static void *open_lib(const char *so, const char *pkg, g2e_err *err, int code)
{
    void *lib = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        g2e_fail(err, code, "principal components need %s, which cannot be loaded (%s); install it with: apt-get install %s",
                 so, why ? why : "not found", pkg);
    }
    return lib;
}

static const lapack_api *load(int code, g2e_err *err)
{
    static const char blas_so[] = "libblas.so.3", blas_pkg[] = "libopenblas0-serial";
    static const char lapacke_so[] = "liblapacke.so.3", lapacke_pkg[] = "liblapacke";
    void *blas = open_lib(blas_so, blas_pkg, err, code);
    if (!blas)
        return NULL;
    void *lapacke = open_lib(lapacke_so, lapacke_pkg, err, code);
    if (!lapacke) {
        dlclose(blas);
        return NULL;
    }
    lapack_api a;
#define LOAD(lib, so, pkg, field, name) \
    if (sym(lib, so, pkg, name, &a.field, sizeof a.field, err, code)) goto fail;
    LOAD(lapacke, lapacke_so, lapacke_pkg, dsytrd, "LAPACKE_dsytrd")
    LOAD(lapacke, lapacke_so, lapacke_pkg, dsterf, "LAPACKE_dsterf")
    LOAD(lapacke, lapacke_so, lapacke_pkg, dstemr, "LAPACKE_dstemr")
    LOAD(lapacke, lapacke_so, lapacke_pkg, dormtr, "LAPACKE_dormtr")
    LOAD(blas, blas_so, blas_pkg, dsyrk, "cblas_dsyrk")
    LOAD(blas, blas_so, blas_pkg, dgemm, "cblas_dgemm")
#undef LOAD
    api = a;
    loaded = 1;
    return &api;
fail:
    dlclose(lapacke);
    dlclose(blas);
    return NULL;
}

const lapack_api *lapack_dl(int code, g2e_err *err)
{
    /* OpenBLAS spins for ever when its buffers do not fit under ulimit -v: asked every time */
    if (memlimit_check(MEMLIMIT_BLAS, g2e_tr("principal components (BLAS)"), err))
        return NULL;
    pthread_mutex_lock(&lock);
    const lapack_api *a = loaded ? &api : load(code, err);
    pthread_mutex_unlock(&lock);
    return a;
}
