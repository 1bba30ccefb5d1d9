/* SPDX-License-Identifier: MIT */
/* curl_dl.c — libcurl through dlopen (see curl_dl.h). */
#include "curl_dl.h"

#include <dlfcn.h>
#include <string.h>

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

const curl_api *curl_dl(int code, g2e_err *err)
{
    if (loaded)
        return &api;
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
    LOAD(global_cleanup, "curl_global_cleanup")
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
    api = a;
    loaded = 1;
    return &api;
}
