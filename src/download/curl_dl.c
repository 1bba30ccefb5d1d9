/* SPDX-License-Identifier: MIT */
/* curl_dl.c — libcurl through dlopen (see curl_dl.h). */
#include "curl_dl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

/* Loaded and curl_global_init'ed once per process, under the lock (two threads that start a
 * download at once load it once); never unloaded, never curl_global_cleanup'ed. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static curl_api api;
static int loaded;

/* dlsym returns void *; a function pointer is copied out of it bit for bit, which POSIX
 * guarantees to work (and -Wpedantic's object/function pointer complaint does not apply). */
static int sym(void *lib, const char *name, void *fnptr, size_t size, g2e_err *err, int code)
{
    void *p = dlsym(lib, name);
    if (!p)
        return g2e_fail(err, code, "libcurl.so.4 has no %s (too old a libcurl: Debian 12's libcurl4 works)", name);
    memcpy(fnptr, &p, size);
    return 0;
}

static const curl_api *load(int code, g2e_err *err)
{
    void *lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        g2e_fail(err, code, "downloads need libcurl, which cannot be loaded (%s); install it with: apt-get install libcurl4",
                 why ? why : "libcurl.so.4 not found");
        return NULL;
    }
    curl_api a;
#define LOAD(field, name) \
    if (sym(lib, name, &a.field, sizeof a.field, err, code)) { dlclose(lib); return NULL; }
    LOAD(global_init, "curl_global_init")
    LOAD(easy_init, "curl_easy_init")
    LOAD(easy_setopt, "curl_easy_setopt")
    LOAD(easy_perform, "curl_easy_perform")
    LOAD(easy_getinfo, "curl_easy_getinfo")
    LOAD(easy_cleanup, "curl_easy_cleanup")
    LOAD(easy_strerror, "curl_easy_strerror")
    LOAD(slist_append, "curl_slist_append")
    LOAD(slist_free_all, "curl_slist_free_all")
    LOAD(url, "curl_url")
    LOAD(url_set, "curl_url_set")
    LOAD(url_get, "curl_url_get")
    LOAD(url_cleanup, "curl_url_cleanup")
    LOAD(free, "curl_free")
#undef LOAD
    if (a.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        dlclose(lib);
        g2e_fail(err, code, "libcurl could not be initialised");
        return NULL;
    }
    api = a;
    loaded = 1;
    return &api;
}

const curl_api *curl_dl(int code, g2e_err *err)
{
    pthread_mutex_lock(&lock);
    const curl_api *a = loaded ? &api : load(code, err);
    pthread_mutex_unlock(&lock);
    return a;
}
