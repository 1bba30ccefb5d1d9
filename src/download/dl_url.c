/* SPDX-License-Identifier: MIT */
/* dl_url.c — the downloader's URLs: the endpoint, the resolve URL, origins (for where the
 * token may go) and URLs as messages may show them (see download.h).
 *
 * Deliberately left out: URL parsing of our own (libcurl's URL API does it for origins). */
#include "dl_internal.h"

#include "curl_dl.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int dl_endpoint(const char *endpoint, char *out, size_t cap, g2e_err *err)
{
    const char *e = endpoint;
    if (!e || !*e)
        e = getenv("HF_ENDPOINT");
    if (!e || !*e)
        e = HUB_DEFAULT;
    size_t n = strlen(e);
    while (n > 0 && e[n - 1] == '/')
        n--;
    if (n == 0 || n >= cap) {
        char sh[256];
        return g2e_fail(err, DL_E_ARG, "the Hub endpoint '%s' is empty or too long",
                        dl_url_shown(e, sh, sizeof sh));
    }
    memcpy(out, e, n);
    out[n] = '\0';
    return 0;
}

/* Appends s percent-encoded (RFC 3986 unreserved kept, and '/' if keep_slash). */
static size_t pct_encode(char *dst, const char *s, int keep_slash)
{
    static const char X[] = "0123456789ABCDEF";
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        int ok = (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
                 *p == '-' || *p == '_' || *p == '.' || *p == '~' || (keep_slash && *p == '/');
        if (ok) {
            if (dst) dst[n] = (char)*p;
            n++;
        } else {
            if (dst) {
                dst[n] = '%';
                dst[n + 1] = X[*p >> 4];
                dst[n + 2] = X[*p & 15];
            }
            n += 3;
        }
    }
    return n;
}

int dl_resolve_url(char **out, const char *endpoint, const char *repo, const char *revision,
                   const char *filename, g2e_err *err)
{
    *out = NULL;
    if (!repo || !*repo)
        return g2e_fail(err, DL_E_ARG, "no repository given");
    if (!revision || !*revision)
        revision = "main";
    if (!filename || !*filename)
        filename = "model.safetensors";
    char ep[2048];
    int rc = dl_endpoint(endpoint, ep, sizeof ep, err);
    if (rc)
        return rc;
    size_t n = strlen(ep) + 1 + pct_encode(NULL, repo, 1) + strlen("/resolve/") +
               pct_encode(NULL, revision, 0) + 1 + pct_encode(NULL, filename, 1) + 1;
    char *u = malloc(n);
    if (!u)
        return g2e_fail(err, G2E_ENOMEM, "out of memory");
    size_t k = (size_t)snprintf(u, n, "%s/", ep);
    k += pct_encode(u + k, repo, 1);
    memcpy(u + k, "/resolve/", 9);
    k += 9;
    k += pct_encode(u + k, revision, 0);
    u[k++] = '/';
    k += pct_encode(u + k, filename, 1);
    u[k] = '\0';
    *out = u;
    return 0;
}

/* scheme://host:port of url, lower-cased host, default port filled in. */
static int origin_of(const char *url, char *out, size_t cap)
{
    if (!dl_cu && !(dl_cu = curl_dl(DL_E_CURL, NULL)))
        return 0;   /* cannot tell: not the same origin, so no token is sent */
    CURLU *h = dl_cu->url();
    char *scheme = NULL, *host = NULL, *port = NULL;
    int ok = 0;
    if (h && dl_cu->url_set(h, CURLUPART_URL, url, 0) == CURLUE_OK &&
        dl_cu->url_get(h, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
        dl_cu->url_get(h, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
        dl_cu->url_get(h, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK) {
        for (char *p = host; *p; p++)
            if (*p >= 'A' && *p <= 'Z')
                *p = (char)(*p - 'A' + 'a');
        int n = snprintf(out, cap, "%s://%s:%s", scheme, host, port);
        ok = n > 0 && (size_t)n < cap;
    }
    dl_cu->free(scheme);
    dl_cu->free(host);
    dl_cu->free(port);
    dl_cu->url_cleanup(h);
    return ok;
}

int dl_same_origin(const char *a, const char *b)
{
    char oa[1024], ob[1024];
    return origin_of(a, oa, sizeof oa) && origin_of(b, ob, sizeof ob) && strcmp(oa, ob) == 0;
}

const char *dl_url_shown(const char *url, char *buf, size_t cap)
{
    static const char X[] = "0123456789abcdef";
    const char *sch = strstr(url, "://");
    const char *auth = sch && (size_t)(sch - url) < strcspn(url, "/?#") ? sch + 3 : url;
    size_t alen = strcspn(auth, "/?#");
    const char *at = NULL;
    for (const char *q = auth; q < auth + alen; q++)
        if (*q == '@')
            at = q;   /* the last '@' ends the user information */
    size_t end = strcspn(url, "?#");
    if (at && (size_t)(at - url) >= end)
        at = NULL;
    size_t k = 0;
    if (cap == 0)
        return buf;
    for (size_t i = 0; i < end; i++) {
        if (at && url + i >= auth && url + i <= at)
            continue;
        unsigned char ch = (unsigned char)url[i];
        int plain = ch > 0x20 && ch < 0x7f;
        if (k + (plain ? 1 : 4) >= cap)
            break;
        if (plain) {
            buf[k++] = (char)ch;
        } else {
            buf[k++] = '\\';
            buf[k++] = 'x';
            buf[k++] = X[ch >> 4];
            buf[k++] = X[ch & 15];
        }
    }
    buf[k] = '\0';
    return buf;
}
