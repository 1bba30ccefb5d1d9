/* SPDX-License-Identifier: MIT */
/* curl_dl.h — libcurl, loaded with dlopen the first time a download needs it.
 *
 * Why: libcurl brings some 27 shared libraries (TLS, HTTP/2, Kerberos, LDAP, IDN...), and
 * the dynamic loader mapping them costs about 5 ms at every start of the program, twice
 * the whole budget of `gpt2-embed "Hello world"` otherwise. Only `gpt2-embed download`
 * needs them, so only it pays: the rest of the program never loads libcurl.
 *
 * The header of libcurl4-openssl-dev still gives the types and constants at build time;
 * at run time libcurl.so.4 (the Debian package libcurl4) must be installed for downloads.
 */
#ifndef G2E_CURL_DL_H
#define G2E_CURL_DL_H

#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>

#include "err.h"

/* The libcurl functions the downloader (dl_http.c, dl_url.c, download.c) uses, with the
 * signatures of <curl/curl.h>. */
typedef struct curl_api {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *h, CURLoption opt, ...);
    CURLcode (*easy_perform)(CURL *h);
    CURLcode (*easy_getinfo)(CURL *h, CURLINFO info, ...);
    void (*easy_cleanup)(CURL *h);
    const char *(*easy_strerror)(CURLcode code);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *s);
    void (*slist_free_all)(struct curl_slist *list);
    CURLU *(*url)(void);
    CURLUcode (*url_set)(CURLU *u, CURLUPart what, const char *part, unsigned int flags);
    CURLUcode (*url_get)(const CURLU *u, CURLUPart what, char **part, unsigned int flags);
    void (*url_cleanup)(CURLU *u);
    void (*free)(void *p);
} curl_api;

/* The API, loading libcurl.so.4 on the first call (not thread-safe then; later calls only
 * read). NULL when the library or one of its functions is missing; err (status `code`)
 * then names what and how to install it. The library stays loaded until exit. */
const curl_api *curl_dl(int code, g2e_err *err);

#endif
