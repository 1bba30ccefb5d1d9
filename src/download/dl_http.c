/* SPDX-License-Identifier: MIT */
/* dl_http.c — one HTTP exchange with the Hub and its CDN over libcurl's easy interface, and
 * the retries around it (see download.h).
 *
 * One easy handle does every request (its connection cache keeps the endpoint and CDN
 * connections warm). Redirects are followed here, one hop at a time, so that the
 * Authorization header is attached only to requests for the endpoint's own origin; libcurl's
 * CURLOPT_UNRESTRICTED_AUTH does not govern custom headers. What a server sends is parsed by
 * pure functions (dl_resp_line, dl_answer_check: dl_internal.h, fuzzed by
 * tests/fuzz/fuzz_download.c) before any body byte is stored.
 *
 * Every data request starts again at the endpoint's resolve URL: it costs one round trip
 * but means each request re-checks the file's ETag and never outlives a signed CDN URL.
 *
 * Deliberately left out: the multi interface, HTTP/2 tuning, parallel ranges. */
#include "dl_internal.h"

#include "curl_dl.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* libcurl, loaded on first use (curl_dl.h): the rest of the program never maps it. */
const curl_api *dl_cu;

void dl_sleep_ms(unsigned ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

double dl_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void dl_report(dl_ctx *c, int force)
{
    if (!c->o->progress)
        return;
    if (!force && c->pg.transferred - c->last_report < PROGRESS_STEP)
        return;
    c->last_report = c->pg.transferred;
    c->o->progress(c->o->progress_user, &c->pg);
    c->pg.starting = 0;
}

void dl_set_stage(dl_ctx *c, dl_stage s, uint64_t done, uint64_t total)
{
    c->pg.stage = s;
    c->pg.starting = 1;
    c->pg.done = done;
    c->pg.total = total;
    dl_report(c, 1);
}

static void copy_value(char *dst, const char *v, size_t n)
{
    while (n > 0 && (*v == ' ' || *v == '\t')) {
        v++;
        n--;
    }
    while (n > 0 && (v[n - 1] == '\r' || v[n - 1] == '\n' || v[n - 1] == ' ' || v[n - 1] == '\t'))
        n--;
    /* a server's words reach the terminal in messages: every byte that is not printable
     * ASCII (ESC, C1 controls, anything non-ASCII) is kept as \xNN, never raw */
    static const char X[] = "0123456789abcdef";
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)v[i];
        int plain = ch >= 0x20 && ch < 0x7f && ch != '\\';
        if (k + (plain ? 1 : 4) >= DL_HV)
            break;
        if (plain) {
            dst[k++] = (char)ch;
        } else {
            dst[k++] = '\\';
            dst[k++] = 'x';
            dst[k++] = X[ch >> 4];
            dst[k++] = X[ch & 15];
        }
    }
    dst[k] = '\0';
}

int dl_resp_line(dl_resp *r, const char *buf, size_t n)
{
    if (n > DL_MAX_HEADER_LINE) {
        r->too_long = n;   /* no Hub header is this long: not a Hub answer */
        return DL_LINE_TOO_LONG;
    }
    if (n >= 5 && memcmp(buf, "HTTP/", 5) == 0) {
        /* a new response (after a 1xx, or on a new hop): forget the previous one */
        void *keep = r->user;
        memset(r, 0, sizeof *r);
        r->user = keep;
        const char *sp = memchr(buf, ' ', n);
        if (sp) {
            long st = 0;
            int digits = 0;
            for (const char *p = sp + 1; p < buf + n && *p >= '0' && *p <= '9' && digits < 3; p++)
                st = st * 10 + (*p - '0'), digits++;
            r->status = st;
        }
        return DL_LINE_OK;
    }
    if ((n == 2 && buf[0] == '\r' && buf[1] == '\n') || (n == 1 && buf[0] == '\n'))
        return DL_LINE_END;
    const char *colon = memchr(buf, ':', n);
    if (!colon)
        return DL_LINE_OK;
    size_t kl = (size_t)(colon - buf);
    const char *v = colon + 1;
    size_t vl = n - kl - 1;
    static const struct { const char *name; size_t off; } H[] = {
        {"x-repo-commit", offsetof(dl_resp, commit)},
        {"x-linked-etag", offsetof(dl_resp, linked_etag)},
        {"etag", offsetof(dl_resp, etag)},
        {"x-linked-size", offsetof(dl_resp, linked_size)},
        {"content-length", offsetof(dl_resp, content_length)},
        {"content-range", offsetof(dl_resp, content_range)},
        {"x-error-code", offsetof(dl_resp, error_code)},
        {"x-error-message", offsetof(dl_resp, error_message)},
        {"retry-after", offsetof(dl_resp, retry_after)},
        {"content-encoding", offsetof(dl_resp, content_encoding)},
    };
    for (size_t i = 0; i < sizeof H / sizeof H[0]; i++)
        if (strlen(H[i].name) == kl && strncasecmp(buf, H[i].name, kl) == 0)
            copy_value((char *)r + H[i].off, v, vl);
    return DL_LINE_OK;
}

static int body_start(dl_sink *s);

size_t dl_on_header(char *buf, size_t size, size_t nitems, void *user)
{
    dl_resp *r = user;
    size_t n = size * nitems;
    int k = dl_resp_line(r, buf, n);
    if (k == DL_LINE_TOO_LONG)
        return 0;
    dl_sink *s = r->user;
    if (k == DL_LINE_END && s && r->status >= 200 && r->status <= 299 && !s->started &&
        (s->fail = body_start(s)) != 0)
        return 0;   /* the headers of a data answer are checked before any body byte */
    return n;
}

/* "bytes a-b/total" (total may be '*'); 0 on success. */
int dl_parse_content_range(const char *s, uint64_t *a, uint64_t *b, uint64_t *total, int *has_total)
{
    if (strncasecmp(s, "bytes ", 6) != 0)
        return -1;
    char tmp[DL_HV];
    snprintf(tmp, sizeof tmp, "%s", s + 6);
    char *dash = strchr(tmp, '-'), *slash = strchr(tmp, '/');
    if (!dash || !slash || slash < dash)
        return -1;
    *dash = '\0';
    *slash = '\0';
    if (dl_parse_u64(tmp, a) || dl_parse_u64(dash + 1, b) || *b < *a || *b == UINT64_MAX)
        return -1;
    *has_total = strcmp(slash + 1, "*") != 0;
    if (*has_total && (dl_parse_u64(slash + 1, total) || *b >= *total))
        return -1;
    return 0;
}

int dl_answer_check(const dl_resp *r, int ranged, uint64_t want_start, uint64_t want_len,
                    uint64_t file_size, uint64_t *skip, char *why, size_t why_cap)
{
    *skip = 0;
    if (r->content_encoding[0] && strcasecmp(r->content_encoding, "identity") != 0) {
        /* asked for identity: encoded bytes would be stored as if they were the file's */
        snprintf(why, why_cap, "the body came %s-encoded", r->content_encoding);
        return DL_E_PROTOCOL;
    }
    uint64_t len;
    int has_len = r->content_length[0] != '\0';
    if (has_len && dl_parse_u64(r->content_length, &len) != 0) {
        snprintf(why, why_cap, "a %ld answer with Content-Length '%s'", r->status, r->content_length);
        return DL_E_PROTOCOL;
    }
    if (r->status == 206) {
        uint64_t a, b, total = 0;
        int has_total = 0;
        if (!ranged) {
            snprintf(why, why_cap, "a 206 answer to a request without Range");
            return DL_E_PROTOCOL;
        }
        if (dl_parse_content_range(r->content_range, &a, &b, &total, &has_total)) {
            snprintf(why, why_cap, "a 206 answer with Content-Range '%s'", r->content_range);
            return DL_E_PROTOCOL;
        }
        if (want_len == 0 || a != want_start || b - a >= want_len) {
            snprintf(why, why_cap,
                     "asked for bytes %" PRIu64 "-%" PRIu64 ", the server sent %" PRIu64 "-%" PRIu64,
                     want_start, want_start + want_len - 1, a, b);
            return DL_E_PROTOCOL;
        }
        if (has_len && len != b - a + 1) {
            snprintf(why, why_cap, "a 206 answer for bytes %" PRIu64 "-%" PRIu64
                     " (%" PRIu64 " bytes) with Content-Length '%s'", a, b, b - a + 1,
                     r->content_length);
            return DL_E_PROTOCOL;
        }
        if (has_total && file_size && total != file_size) {
            snprintf(why, why_cap, "the file is %" PRIu64 " bytes by Content-Range, "
                     "%" PRIu64 " by the Hub's metadata", total, file_size);
            return DL_E_CHANGED;
        }
        return 0;
    }
    /* 200: the whole file from its first byte, whatever Range said */
    if (file_size && has_len && len != file_size) {
        snprintf(why, why_cap, "the file is %" PRIu64 " bytes by Content-Length, "
                 "%" PRIu64 " by the Hub's metadata", len, file_size);
        return DL_E_CHANGED;
    }
    *skip = want_start;
    return 0;
}

/* First body bytes (or the end of the headers) of a 2xx: the bytes asked for? */
static int body_start(dl_sink *s)
{
    s->started = 1;
    return dl_answer_check(s->r, s->ranged, s->want_start, s->want_len, s->c->size, &s->skip,
                           s->why, sizeof s->why);
}

size_t dl_on_body(char *buf, size_t size, size_t nitems, void *user)
{
    dl_sink *s = user;
    size_t n = size * nitems;
    s->c->pg.transferred += n;
    s->c->res->transferred += n;
    if (s->r->status < 200 || s->r->status > 299)
        return n;   /* an error page or a redirect's body: counted, not kept */
    if (!s->started && (s->fail = body_start(s)) != 0)
        return 0;
    const uint8_t *p = (const uint8_t *)buf;
    size_t k = n;
    if (s->skip) {
        size_t d = s->skip < k ? (size_t)s->skip : k;
        s->skip -= d;
        p += d;
        k -= d;
    }
    uint64_t room = s->want_len - s->got;
    size_t take = k < room ? k : (size_t)room;
    if (take) {
        if (s->mem) {
            memcpy(s->mem + s->got, p, take);
        } else {
            size_t w = 0;
            while (w < take) {
                ssize_t z = pwrite(s->fd, p + w, take - w, (off_t)(s->off + s->got + w));
                if (z < 0 && errno == EINTR)
                    continue;
                if (z <= 0) {
                    snprintf(s->why, sizeof s->why, "writing the .part file: %s",
                             z < 0 ? strerror(errno) : "no space written");
                    s->fail = DL_E_IO;
                    return 0;
                }
                w += (size_t)z;
            }
        }
        if (s->hash)
            sha256_update(s->hash, p, take);   /* hashed as it arrives: no second read */
        s->got += take;
        s->c->pg.done += take;
        s->last_byte = dl_now();
    }
    dl_report(s->c, 0);
    if (s->got == s->want_len && (take < k || s->r->status == 200)) {
        s->enough = 1;   /* the rest of a 200 body is not wanted: stop it */
        return 0;
    }
    return n;
}

static int deadline_passed(const dl_ctx *c, g2e_err *err)
{
    return g2e_fail(err, DL_E_NETWORK, "the download's deadline of %ld s passed", c->deadline);
}

/* The ETag a response of the endpoint names for the file. */
void dl_meta_etag(const dl_resp *m, char *out, size_t cap)
{
    dl_unquote_etag(m->linked_etag[0] ? m->linked_etag : m->etag, out, cap);
}

/* The request headers of one hop: identity encoding, the token on the endpoint's own host,
 * the range of a data request (s then starts afresh). NULL when out of memory. */
static struct curl_slist *hop_headers(dl_ctx *c, dl_sink *s, int own)
{
    struct curl_slist *hdr = dl_cu->slist_append(NULL, "Accept-Encoding: identity"), *t;
    if (hdr && own && c->token && (t = dl_cu->slist_append(hdr, c->auth_header)) != NULL)
        hdr = t;
    if (hdr && s) {
        char range[96];
        snprintf(range, sizeof range, "Range: bytes=%" PRIu64 "-%" PRIu64, s->want_start,
                 s->want_start + s->want_len - 1);
        if ((t = dl_cu->slist_append(hdr, range)) != NULL)
            hdr = t;
        s->ranged = 1;
        s->started = 0;
        s->skip = 0;
    }
    return hdr;
}

/* One hop's request to url with the headers hdr, its answer's headers into r (limited to
 * lim seconds). Returns libcurl's code. */
static CURLcode hop_perform(dl_ctx *c, dl_sink *s, const char *url, struct curl_slist *hdr, double lim, dl_resp *r)
{
    dl_cu->easy_setopt(c->h, CURLOPT_TIMEOUT_MS, (long)(lim * 1000.0));
    dl_cu->easy_setopt(c->h, CURLOPT_URL, url);
    dl_cu->easy_setopt(c->h, CURLOPT_HTTPHEADER, hdr);
    if (s)
        dl_cu->easy_setopt(c->h, CURLOPT_HTTPGET, 1L);   /* also undoes NOBODY */
    else
        dl_cu->easy_setopt(c->h, CURLOPT_NOBODY, 1L);
    dl_cu->easy_setopt(c->h, CURLOPT_HEADERDATA, r);
    dl_sink discard = {0};
    discard.c = c;
    discard.r = r;
    discard.want_len = 0;
    dl_cu->easy_setopt(c->h, CURLOPT_WRITEDATA, s ? s : &discard);
    CURLcode cc = dl_cu->easy_perform(c->h);
    dl_cu->easy_setopt(c->h, CURLOPT_HTTPHEADER, NULL);
    return cc;
}

/* What the answer r says before its status is looked at: the endpoint's own answer speaks
 * for the file (meta), and may say that it changed; an over-long header line; a failure of
 * the sink. 0, or a DL_E_* code with err filled. */
static int hop_checks(dl_ctx *c, const dl_sink *s, const dl_resp *r, int own, const char *show, dl_resp *meta,
                      g2e_err *err)
{
    /* the last answer of the endpoint itself speaks for the file, as in the Hub's client: a
     * same-host redirect (a renamed repo) is followed, the CDN's is not */
    if (own && (r->commit[0] || r->linked_etag[0] || r->etag[0])) {
        *meta = *r;
        char et[DL_HV];
        dl_meta_etag(r, et, sizeof et);
        if (s && c->etag[0] && et[0] && strcmp(et, c->etag) != 0) /* before a byte of another version is stored */
            return g2e_fail(err, DL_E_CHANGED, "the file changed on the Hub during the download "
                            "(ETag %s, now %s); run the command again", c->etag, et);
    }
    if (r->too_long)
        return g2e_fail(err, DL_E_PROTOCOL, "the answer from %s has a header line of %zu bytes "
                        "(the limit is %d): not a Hugging Face Hub's answer", show, r->too_long,
                        DL_MAX_HEADER_LINE);
    if (s && s->fail && (s->fail == DL_E_IO || s->fail == DL_E_PROTOCOL || s->fail == DL_E_CHANGED))
        return g2e_fail(err, s->fail, "%s (from %s)", s->why, show);
    return 0;
}

/* A libcurl failure of one hop (cc != CURLE_OK; t_req: when it started, lim: its limit), as
 * exchange returns it: XCH_TRANSIENT with *why, or a DL_E_* code with err filled. */
static int curl_failure(dl_ctx *c, CURLcode cc, double t_req, double lim, const char *show, char *why,
                        size_t why_cap, g2e_err *err)
{
    switch (cc) {
    case CURLE_OPERATION_TIMEDOUT:
        if (dl_now() - c->t0 >= (double)c->deadline - 0.01)
            return deadline_passed(c, err);
        if (dl_now() - t_req >= lim - 0.05)
            snprintf(why, why_cap, "the request took longer than %.0f s (from %s)", lim, show);
        else
            snprintf(why, why_cap, "slower than %ld bytes/s for %ld s (from %s)",
                     c->o->min_speed > 0 ? c->o->min_speed : 10000L,
                     c->o->stall_seconds > 0 ? c->o->stall_seconds : 20L, show);
        return XCH_TRANSIENT;
    case CURLE_COULDNT_CONNECT: case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR: case CURLE_PARTIAL_FILE: case CURLE_GOT_NOTHING:
    case CURLE_SSL_CONNECT_ERROR: case CURLE_HTTP2: case CURLE_HTTP2_STREAM:
    case CURLE_COULDNT_RESOLVE_PROXY:
        snprintf(why, why_cap, "%s", dl_cu->easy_strerror(cc));
        return XCH_TRANSIENT;
    case CURLE_OUT_OF_MEMORY:
#if LIBCURL_VERSION_NUM >= 0x080600
    case CURLE_TOO_LARGE:
#endif
        /* what libcurl says of a header over its 100 KB limit: no Hub sends one */
        return g2e_fail(err, DL_E_PROTOCOL, "the answer from %s was refused by libcurl "
                        "(\"%s\"): most likely a header larger than its 100 KB limit, "
                        "which no Hugging Face Hub sends", show, dl_cu->easy_strerror(cc));
    case CURLE_COULDNT_RESOLVE_HOST:
        return g2e_fail(err, DL_E_NETWORK, "cannot resolve the host of %s (no network, or "
                        "a wrong HF_ENDPOINT?)", show);
    default:
        return g2e_fail(err, DL_E_NETWORK, "%s: %s", show, dl_cu->easy_strerror(cc));
    }
}

/* An HTTP error status st of the answer r, explained in one line (a DL_E_* code), or
 * XCH_TRANSIENT with *why for what a retry may cure (Retry-After kept in meta). */
static int http_failure(dl_ctx *c, const dl_resp *r, long st, const char *show, dl_resp *meta, char *why,
                        size_t why_cap, g2e_err *err)
{
    const char *what = c->o->repo;
    const char *rev = c->o->revision ? c->o->revision : "main";
    const char *file = c->o->filename ? c->o->filename : "model.safetensors";
    if (st == 401)
        return g2e_fail(err, DL_E_UNAUTHORIZED, "HTTP 401 for %s: the repository '%s' does not "
                        "exist, or is private and needs a valid token ($HF_TOKEN or `hf auth login`)%s",
                        show, what, c->token ? " (a token was sent)" : "");
    if (st == 403)
        return g2e_fail(err, DL_E_FORBIDDEN, "HTTP 403 for %s: access to '%s' is refused%s; "
                        "accept its terms on the Hub or use a token that has access",
                        show, what, strcasecmp(r->error_code, "GatedRepo") == 0 ? " (a gated repo)" : "");
    if (st == 404) {
        if (strcasecmp(r->error_code, "RevisionNotFound") == 0)
            return g2e_fail(err, DL_E_NOT_FOUND, "HTTP 404: '%s' has no revision '%s' (check --revision)",
                            what, rev);
        if (strcasecmp(r->error_code, "EntryNotFound") == 0)
            return g2e_fail(err, DL_E_NOT_FOUND, "HTTP 404: '%s' at '%s' has no file '%s'", what,
                            rev, file);
        if (strcasecmp(r->error_code, "RepoNotFound") == 0)
            return g2e_fail(err, DL_E_NOT_FOUND, "HTTP 404: no repository '%s' (check --repo)", what);
        return g2e_fail(err, DL_E_NOT_FOUND, "HTTP 404 for %s: no such repository, revision "
                        "or file (check --repo and --revision)", show);
    }
    if (st == 408 || st == 429 || (st >= 500 && st <= 599)) {
        snprintf(why, why_cap, "HTTP %ld from %s", st, show);
        /* keep Retry-After for the caller's backoff */
        snprintf(meta->retry_after, sizeof meta->retry_after, "%s", r->retry_after);
        return XCH_TRANSIENT;
    }
    return g2e_fail(err, DL_E_HTTP, "HTTP %ld for %s%s%s", st, show,
                    r->error_message[0] ? ": " : "", r->error_message);
}

/* One request (following redirects) for bytes [s->want_start, +want_len), or a HEAD when
 * s is NULL. meta receives the endpoint's response headers. Returns 0, XCH_TRANSIENT with
 * *why filled, or a DL_E_* code with err filled. */
static int exchange(dl_ctx *c, dl_sink *s, dl_resp *meta, char *why, size_t why_cap, g2e_err *err)
{
    char *url = strdup(c->url);
    dl_resp r;
    int rc = 0;
    if (!url)
        return g2e_fail(err, G2E_ENOMEM, "out of memory");
    memset(meta, 0, sizeof *meta);
    for (int hop = 0;; hop++) {
        if (hop > MAX_HOPS) {
            rc = g2e_fail(err, DL_E_PROTOCOL, "more than %d redirects from %s", MAX_HOPS, c->shown_url);
            break;
        }
        int own = dl_same_origin(url, c->endpoint);
        char show[1024];
        dl_url_shown(url, show, sizeof show);
        struct curl_slist *hdr = hop_headers(c, s, own);
        if (!hdr) {
            rc = g2e_fail(err, G2E_ENOMEM, "out of memory");
            break;
        }
        memset(&r, 0, sizeof r);
        r.user = s;
        if (s)
            s->r = &r;
        /* this request may last until the attempt's or the whole call's deadline */
        double left = (double)c->deadline - (dl_now() - c->t0);
        double lim = left < (double)c->attempt_limit ? left : (double)c->attempt_limit;
        if (lim < 0.001) {
            dl_cu->slist_free_all(hdr);
            rc = deadline_passed(c, err);
            break;
        }
        double t_req = dl_now();
        CURLcode cc = hop_perform(c, s, url, hdr, lim, &r);
        dl_cu->slist_free_all(hdr);
        if ((rc = hop_checks(c, s, &r, own, show, meta, err)) != 0)
            break;
        if (cc != CURLE_OK && !(s && s->enough)) {
            rc = curl_failure(c, cc, t_req, lim, show, why, why_cap, err);
            break;
        }
        long st = r.status;
        if (st >= 300 && st < 400 && st != 304) {
            char *loc = NULL;
            dl_cu->easy_getinfo(c->h, CURLINFO_REDIRECT_URL, &loc);
            if (!loc || !*loc) {
                rc = g2e_fail(err, DL_E_PROTOCOL, "HTTP %ld without a Location from %s", st, show);
                break;
            }
            if (!s && !dl_same_origin(loc, c->endpoint))
                break;   /* a HEAD stops at the CDN's door: the metadata is in hand */
            char *nu = strdup(loc);
            if (!nu) {
                rc = g2e_fail(err, G2E_ENOMEM, "out of memory");
                break;
            }
            free(url);
            url = nu;
            continue;
        }
        if (st >= 200 && st < 300) {
            if (s && !s->started && s->want_len > 0 && s->got == 0) {
                snprintf(why, why_cap, "an empty body");
                rc = XCH_TRANSIENT;
            }
            break;
        }
        rc = http_failure(c, &r, st, show, meta, why, why_cap, err);
        break;
    }
    if (s)
        s->r = NULL;
    free(url);
    return rc;
}

/* Retries with backoff around exchange(). For a HEAD (mem NULL, fd < 0), meta is filled.
 * For data, bytes [start, +len) of the file go to mem or to fd at off, and into hash if
 * not NULL (each byte once, in order, whatever the retries). */
/* One attempt of dl_with_retries: the bytes still missing (done of len arrived before), or
 * the HEAD; *got receives how many arrived now and *last_byte when. 0, XCH_TRANSIENT with
 * *why, or a DL_E_* code. */
static int attempt_once(dl_ctx *c, uint64_t start, uint64_t len, uint8_t *mem, int fd, uint64_t off,
                        sha256_ctx *hash, uint64_t done, dl_resp *m, uint64_t *got, double *last_byte,
                        char *why, size_t why_cap, g2e_err *err)
{
    dl_sink s = {0};
    s.c = c;
    s.fd = fd;
    s.hash = hash;
    int data = mem || fd >= 0, rc;
    if (data) {
        s.mem = mem ? mem + done : NULL;
        s.off = off + done;
        s.want_start = start + done;
        s.want_len = len - done;
    }
    rc = exchange(c, data ? &s : NULL, m, why, why_cap, err);
    *got = s.got;
    *last_byte = s.last_byte;
    if (rc != 0 || !data)
        return rc;
    /* the same file on every request, or the bytes may not belong together */
    char et[DL_HV];
    dl_meta_etag(m, et, sizeof et);
    if (c->etag[0] && et[0] && strcmp(et, c->etag) != 0)
        return g2e_fail(err, DL_E_CHANGED, "the file changed on the Hub during the "
                        "download (ETag %s, now %s); run the command again", c->etag, et);
    if (done + s.got < len) {
        snprintf(why, why_cap, "a short body: %" PRIu64 " of %" PRIu64 " bytes", done + s.got, len);
        return XCH_TRANSIENT;
    }
    return 0;
}

/* Retries so far: in a row without progress (attempt), in all for this range (tries), and
 * the next backoff. */
typedef struct retry_state {
    int attempt, tries, max_attempts;
    unsigned delay, base, cap;
} retry_state;

/* After a transient failure (why; Retry-After in m): gives up with a DL_E_* code, or says the
 * retry on the progress callback and sleeps the backoff, returning 0. */
static int retry_or_give_up(dl_ctx *c, retry_state *r, const dl_resp *m, const char *why, g2e_err *err)
{
    int code = strncmp(why, "HTTP ", 5) == 0 && why[5] >= '1' && why[5] <= '5' ? DL_E_HTTP : DL_E_NETWORK;
    if (r->attempt >= r->max_attempts || c->retries >= DL_MAX_RETRIES)
        return g2e_fail(err, code, "giving up after %d attempt%s: %s", r->attempt,
                        r->attempt == 1 ? "" : "s", why);
    unsigned wait = r->delay;
    uint64_t ra;
    if (m->retry_after[0] && dl_parse_u64(m->retry_after, &ra) == 0) {
        /* the server's wish, within our cap */
        unsigned want = ra > r->cap / 1000 ? r->cap : (unsigned)ra * 1000;
        if (want > wait)
            wait = want;
    }
    if (c->lost + wait / 1000.0 > (double)c->retry_limit)
        return g2e_fail(err, code, "giving up after %d attempt%s and %.0f s lost to failures "
                        "(the limit is %ld s): %s", r->tries, r->tries == 1 ? "" : "s",
                        c->lost, c->retry_limit, why);
    if (dl_now() + wait / 1000.0 - c->t0 >= (double)c->deadline)
        return g2e_fail(err, code, "giving up after %d attempt%s: the download's deadline of "
                        "%ld s would pass before the next one: %s", r->attempt,
                        r->attempt == 1 ? "" : "s", c->deadline, why);
    r->attempt++;
    r->tries++;
    c->retries++;
    c->res->retries = c->retries;
    dl_progress saved = c->pg;
    c->pg.stage = DL_STAGE_RETRY;
    c->pg.attempt = r->attempt;
    c->pg.delay_ms = wait;
    c->pg.reason = why;
    dl_report(c, 1);
    c->pg = saved;
    c->pg.reason = NULL;
    dl_sleep_ms(wait);
    c->lost += wait / 1000.0;
    r->delay = r->delay > r->cap / 2 ? r->cap : r->delay * 2;
    return 0;
}

int dl_with_retries(dl_ctx *c, uint64_t start, uint64_t len, uint8_t *mem, int fd,
                        uint64_t off, sha256_ctx *hash, dl_resp *meta, g2e_err *err)
{
    const dl_opts *o = c->o;
    retry_state r = {1, 1, o->max_attempts > 0 ? o->max_attempts : 6, 0, o->backoff_ms ? o->backoff_ms : 1000,
                     o->backoff_max_ms ? o->backoff_max_ms : 30000};
    r.delay = r.base;
    uint64_t done = 0;
    dl_resp m;
    for (;;) {
        char why[512] = "";
        uint64_t got;
        double last_byte, t_start = dl_now();
        int rc = attempt_once(c, start, len, mem, fd, off, hash, done, &m, &got, &last_byte, why, sizeof why, err);
        done += got;
        if (rc > 0)
            return rc;
        if (meta)
            *meta = m;
        if (rc == 0)
            return 0;
        /* transient: try again, resuming after what arrived */
        if (got >= PROGRESS_RESET) {
            r.attempt = 1;
            r.delay = r.base;
            c->lost += dl_now() - last_byte;   /* only the dead time after the progress */
        } else {
            c->lost += dl_now() - t_start;
        }
        if ((rc = retry_or_give_up(c, &r, &m, why, err)) != 0)
            return rc;
    }
}

void dl_unquote_etag(const char *in, char *out, size_t cap)
{
    const char *s = in;
    if (strncmp(s, "W/", 2) == 0)
        s += 2;
    size_t n = strlen(s);
    if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
        s++;
        n -= 2;
    }
    if (n >= cap)
        n = cap - 1;
    memcpy(out, s, n);
    out[n] = '\0';
}

int dl_is_hex(const char *s, size_t len)
{
    size_t n = 0;
    for (; s[n]; n++)
        if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')))
            return 0;
    return n == len;
}

int dl_is_sha256_hex(const char *s)
{
    return dl_is_hex(s, 64);
}

int dl_parse_u64(const char *s, uint64_t *out)
{
    if (!s || *s < '0' || *s > '9')
        return -1;
    uint64_t v = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
            return -1;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s)
        return -1;
    *out = v;
    return 0;
}
