/* download.c — the Hub protocol over libcurl's easy interface (see download.h).
 *
 * One easy handle does every request (its connection cache keeps the endpoint and CDN
 * connections warm). Redirects are followed here, one hop at a time, so that the
 * Authorization header is attached only to requests for the endpoint's own origin; libcurl's
 * CURLOPT_UNRESTRICTED_AUTH does not govern custom headers.
 *
 * Every data request starts again at the endpoint's resolve URL: it costs one round trip
 * but means each request re-checks the file's ETag and never outlives a signed CDN URL.
 *
 * Deliberately left out: the multi interface, HTTP/2 tuning, parallel ranges.
 */
#include "download.h"
#include "dl_internal.h"

#include "safetensors.h"
#include "sha256.h"

#include "curl_dl.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#define HUB_DEFAULT "https://huggingface.co"
#define MAX_HOPS 10
#define PROGRESS_STEP (256u << 10)
#define PROGRESS_RESET (1u << 20)   /* an attempt storing this much resets the retry count */
#define DL_OVERLAP (64u << 10)      /* bytes fetched again before a resume point */

/* ---- small helpers ---------------------------------------------------------------- */

int dl_env_true(const char *name)
{
    const char *v = getenv(name);
    if (!v)
        return 0;
    return strcmp(v, "1") == 0 || strcasecmp(v, "true") == 0 || strcasecmp(v, "yes") == 0 ||
           strcasecmp(v, "on") == 0;
}

int dl_offline(void)
{
    return dl_env_true("HF_HUB_OFFLINE");
}

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
/* libcurl, loaded on first use (curl_dl.h): the rest of the program never maps it. */
static const curl_api *cu;

static int origin_of(const char *url, char *out, size_t cap)
{
    if (!cu && !(cu = curl_dl(DL_E_CURL, NULL)))
        return 0;   /* cannot tell: not the same origin, so no token is sent */
    CURLU *h = cu->url();
    char *scheme = NULL, *host = NULL, *port = NULL;
    int ok = 0;
    if (h && cu->url_set(h, CURLUPART_URL, url, 0) == CURLUE_OK &&
        cu->url_get(h, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
        cu->url_get(h, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
        cu->url_get(h, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK) {
        for (char *p = host; *p; p++)
            if (*p >= 'A' && *p <= 'Z')
                *p = (char)(*p - 'A' + 'a');
        int n = snprintf(out, cap, "%s://%s:%s", scheme, host, port);
        ok = n > 0 && (size_t)n < cap;
    }
    cu->free(scheme);
    cu->free(host);
    cu->free(port);
    cu->url_cleanup(h);
    return ok;
}

int dl_same_origin(const char *a, const char *b)
{
    char oa[1024], ob[1024];
    return origin_of(a, oa, sizeof oa) && origin_of(b, ob, sizeof ob) && strcmp(oa, ob) == 0;
}

/* The token from $HF_TOKEN, else $HF_TOKEN_PATH, $HF_HOME/token, ~/.cache/huggingface/token.
 * *tok receives a malloc'd string or NULL when there is none. */
static int read_token(const char *given, char **tok, g2e_err *err)
{
    *tok = NULL;
    char *t = NULL;
    if (given) {
        if (!*given)
            return 0;
        t = strdup(given);
    } else if (getenv("HF_TOKEN") && *getenv("HF_TOKEN")) {
        t = strdup(getenv("HF_TOKEN"));
    } else {
        char path[4096];
        const char *tp = getenv("HF_TOKEN_PATH"), *hh = getenv("HF_HOME"), *home = getenv("HOME");
        if (tp && *tp)
            snprintf(path, sizeof path, "%s", tp);
        else if (hh && *hh)
            snprintf(path, sizeof path, "%s/token", hh);
        else if (home && *home)
            snprintf(path, sizeof path, "%s/.cache/huggingface/token", home);
        else
            return 0;
        /* O_NONBLOCK and fstat first: a FIFO or a device there must not block or flood us */
        int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            return 0;   /* no token file: anonymous, as the Hub's client does */
        struct stat sb;
        if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
            close(fd);
            return g2e_fail(err, DL_E_ARG, "the token file %s is not a regular file (a FIFO, "
                            "device or folder?); point HF_TOKEN_PATH at a file, or set HF_TOKEN",
                            path);
        }
        char buf[1024];
        size_t n = 0;
        while (n < sizeof buf - 1) {
            ssize_t z = read(fd, buf + n, sizeof buf - 1 - n);
            if (z < 0 && errno == EINTR)
                continue;
            if (z <= 0)
                break;
            n += (size_t)z;
        }
        close(fd);
        buf[n] = '\0';
        t = strdup(buf);
    }
    if (!t)
        return g2e_fail(err, G2E_ENOMEM, "out of memory");
    /* trim surrounding white space; anything else below '!' would corrupt the header */
    char *s = t;
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        n--;
    s[n] = '\0';
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x21 || (unsigned char)s[i] == 0x7f) {
            free(t);
            return g2e_fail(err, DL_E_ARG, "the Hugging Face token contains spaces or control "
                                           "characters; check $HF_TOKEN or the token file");
        }
    if (n == 0) {
        free(t);
        return 0;
    }
    memmove(t, s, n + 1);
    *tok = t;
    return 0;
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

static int is_sha256_hex(const char *s)
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

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* ---- one HTTP exchange ------------------------------------------------------------- */

typedef struct sink sink;


typedef struct dl_ctx dl_ctx;

/* Where a body goes: memory or a file at an offset, bytes [want_start, +want_len). */
struct sink {
    dl_ctx *c;
    dl_resp *r;
    uint8_t *mem;          /* memory target, or NULL */
    int fd;                /* file target when mem is NULL */
    sha256_ctx *hash;      /* absorbs every stored byte, in order (may be NULL) */
    uint64_t off;          /* target offset of the first wanted byte */
    uint64_t want_start, want_len;
    int ranged;            /* a Range header was sent */
    int started;           /* body of a 2xx seen: checks done */
    uint64_t skip;         /* body bytes to drop first (a 200 answer to a Range request) */
    uint64_t got;          /* wanted bytes stored */
    int enough;            /* stored want_len and stopped the transfer on purpose */
    int fail;              /* 0, or a DL_E_* the write callback hit */
    double last_byte;      /* when the last wanted byte was stored (monotonic s), or 0 */
    char why[768];
};

struct dl_ctx {
    const dl_opts *o;
    CURL *h;
    char *url;             /* the resolve URL */
    char shown_url[2048];  /* it as messages show it (see dl_url_shown) */
    char *token;
    char endpoint[2048];
    char shown_endpoint[2048]; /* it as messages show it */
    char auth_header[1200];
    char etag[DL_HV];         /* the file's ETag, unquoted (X-Linked-Etag else ETag) */
    uint64_t size;         /* the file's size */
    char commit[DL_HV];
    dl_result *res;
    dl_progress pg;        /* the running report */
    uint64_t last_report;
    int retries;
    double t0;             /* when dl_fetch began (monotonic s) */
    double lost;           /* time lost to failures so far (see dl_opts.retry_seconds) */
    long deadline, attempt_limit, retry_limit;   /* in s, defaults filled in */
};

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void report(dl_ctx *c, int force)
{
    if (!c->o->progress)
        return;
    if (!force && c->pg.transferred - c->last_report < PROGRESS_STEP)
        return;
    c->last_report = c->pg.transferred;
    c->o->progress(c->o->progress_user, &c->pg);
    c->pg.starting = 0;
}

static void stage(dl_ctx *c, dl_stage s, uint64_t done, uint64_t total)
{
    c->pg.stage = s;
    c->pg.starting = 1;
    c->pg.done = done;
    c->pg.total = total;
    report(c, 1);
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

static int body_start(sink *s);

static size_t on_header(char *buf, size_t size, size_t nitems, void *user)
{
    dl_resp *r = user;
    size_t n = size * nitems;
    int k = dl_resp_line(r, buf, n);
    if (k == DL_LINE_TOO_LONG)
        return 0;
    sink *s = r->user;
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
static int body_start(sink *s)
{
    s->started = 1;
    return dl_answer_check(s->r, s->ranged, s->want_start, s->want_len, s->c->size, &s->skip,
                           s->why, sizeof s->why);
}

static size_t on_body(char *buf, size_t size, size_t nitems, void *user)
{
    sink *s = user;
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
        s->last_byte = mono_now();
    }
    report(s->c, 0);
    if (s->got == s->want_len && (take < k || s->r->status == 200)) {
        s->enough = 1;   /* the rest of a 200 body is not wanted: stop it */
        return 0;
    }
    return n;
}

enum { XCH_TRANSIENT = -1 };   /* exchange(): worth another attempt */

static int deadline_passed(const dl_ctx *c, g2e_err *err)
{
    return g2e_fail(err, DL_E_NETWORK, "the download's deadline of %ld s passed", c->deadline);
}

/* The ETag a response of the endpoint names for the file. */
static void meta_etag(const dl_resp *m, char *out, size_t cap)
{
    dl_unquote_etag(m->linked_etag[0] ? m->linked_etag : m->etag, out, cap);
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

static const char *shown(const char *url, char *buf, size_t cap)
{
    return dl_url_shown(url, buf, cap);
}

/* One request (following redirects) for bytes [s->want_start, +want_len), or a HEAD when
 * s is NULL. meta receives the endpoint's response headers. Returns 0, XCH_TRANSIENT with
 * *why filled, or a DL_E_* code with err filled. */
static int exchange(dl_ctx *c, sink *s, dl_resp *meta, char *why, size_t why_cap, g2e_err *err)
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
            goto out;
        }
        int own = dl_same_origin(url, c->endpoint);
        char show[1024];
        shown(url, show, sizeof show);
        struct curl_slist *hdr = NULL, *t;
        char range[96];
        hdr = cu->slist_append(hdr, "Accept-Encoding: identity");
        if (own && c->token && (t = cu->slist_append(hdr, c->auth_header)) != NULL)
            hdr = t;
        if (s) {
            snprintf(range, sizeof range, "Range: bytes=%" PRIu64 "-%" PRIu64, s->want_start,
                     s->want_start + s->want_len - 1);
            if ((t = cu->slist_append(hdr, range)) != NULL)
                hdr = t;
            s->ranged = 1;
            s->started = 0;
            s->skip = 0;
        }
        if (!hdr) {
            rc = g2e_fail(err, G2E_ENOMEM, "out of memory");
            goto out;
        }
        memset(&r, 0, sizeof r);
        r.user = s;
        if (s)
            s->r = &r;
        /* this request may last until the attempt's or the whole call's deadline */
        double left = (double)c->deadline - (mono_now() - c->t0);
        double lim = left < (double)c->attempt_limit ? left : (double)c->attempt_limit;
        if (lim < 0.001) {
            rc = deadline_passed(c, err);
            goto out;
        }
        cu->easy_setopt(c->h, CURLOPT_TIMEOUT_MS, (long)(lim * 1000.0));
        cu->easy_setopt(c->h, CURLOPT_URL, url);
        cu->easy_setopt(c->h, CURLOPT_HTTPHEADER, hdr);
        if (s)
            cu->easy_setopt(c->h, CURLOPT_HTTPGET, 1L);   /* also undoes NOBODY */
        else
            cu->easy_setopt(c->h, CURLOPT_NOBODY, 1L);
        cu->easy_setopt(c->h, CURLOPT_HEADERDATA, &r);
        sink discard = {0};
        discard.c = c;
        discard.r = &r;
        discard.want_len = 0;
        cu->easy_setopt(c->h, CURLOPT_WRITEDATA, s ? s : &discard);
        double t_req = mono_now();
        CURLcode cc = cu->easy_perform(c->h);
        cu->easy_setopt(c->h, CURLOPT_HTTPHEADER, NULL);
        cu->slist_free_all(hdr);
        /* the last answer of the endpoint itself speaks for the file, as in the Hub's
         * client: a same-host redirect (a renamed repo) is followed, the CDN's is not */
        if (own && (r.commit[0] || r.linked_etag[0] || r.etag[0])) {
            *meta = r;
            char et[DL_HV];
            meta_etag(&r, et, sizeof et);
            if (s && c->etag[0] && et[0] && strcmp(et, c->etag) != 0) {
                /* before a byte of another version is stored */
                rc = g2e_fail(err, DL_E_CHANGED, "the file changed on the Hub during the download "
                              "(ETag %s, now %s); run the command again", c->etag, et);
                goto out;
            }
        }
        if (r.too_long) {
            rc = g2e_fail(err, DL_E_PROTOCOL, "the answer from %s has a header line of %zu bytes "
                          "(the limit is %d): not a Hugging Face Hub's answer", show, r.too_long,
                          DL_MAX_HEADER_LINE);
            goto out;
        }
        if (s && s->fail) {
            if (s->fail == DL_E_IO || s->fail == DL_E_PROTOCOL || s->fail == DL_E_CHANGED) {
                rc = g2e_fail(err, s->fail, "%s (from %s)", s->why, show);
                goto out;
            }
        }
        if (cc != CURLE_OK && !(s && s->enough)) {
            switch (cc) {
            case CURLE_OPERATION_TIMEDOUT:
                if (mono_now() - c->t0 >= (double)c->deadline - 0.01) {
                    rc = deadline_passed(c, err);
                    goto out;
                }
                if (mono_now() - t_req >= lim - 0.05)
                    snprintf(why, why_cap, "the request took longer than %.0f s (from %s)", lim, show);
                else
                    snprintf(why, why_cap, "slower than %ld bytes/s for %ld s (from %s)",
                             c->o->min_speed > 0 ? c->o->min_speed : 10000L,
                             c->o->stall_seconds > 0 ? c->o->stall_seconds : 20L, show);
                rc = XCH_TRANSIENT;
                goto out;
            case CURLE_COULDNT_CONNECT: case CURLE_RECV_ERROR:
            case CURLE_SEND_ERROR: case CURLE_PARTIAL_FILE: case CURLE_GOT_NOTHING:
            case CURLE_SSL_CONNECT_ERROR: case CURLE_HTTP2: case CURLE_HTTP2_STREAM:
            case CURLE_COULDNT_RESOLVE_PROXY:
                snprintf(why, why_cap, "%s", cu->easy_strerror(cc));
                rc = XCH_TRANSIENT;
                goto out;
            case CURLE_OUT_OF_MEMORY:
#if LIBCURL_VERSION_NUM >= 0x080600
            case CURLE_TOO_LARGE:
#endif
                /* what libcurl says of a header over its 100 KB limit: no Hub sends one */
                rc = g2e_fail(err, DL_E_PROTOCOL, "the answer from %s was refused by libcurl "
                              "(\"%s\"): most likely a header larger than its 100 KB limit, "
                              "which no Hugging Face Hub sends", show, cu->easy_strerror(cc));
                goto out;
            case CURLE_COULDNT_RESOLVE_HOST:
                rc = g2e_fail(err, DL_E_NETWORK, "cannot resolve the host of %s (no network, or "
                              "a wrong HF_ENDPOINT?)", show);
                goto out;
            default:
                rc = g2e_fail(err, DL_E_NETWORK, "%s: %s", show, cu->easy_strerror(cc));
                goto out;
            }
        }
        long st = r.status;
        if (st >= 300 && st < 400 && st != 304) {
            char *loc = NULL;
            cu->easy_getinfo(c->h, CURLINFO_REDIRECT_URL, &loc);
            if (!loc || !*loc) {
                rc = g2e_fail(err, DL_E_PROTOCOL, "HTTP %ld without a Location from %s", st, show);
                goto out;
            }
            if (!s && !dl_same_origin(loc, c->endpoint))
                goto out;   /* a HEAD stops at the CDN's door: the metadata is in hand */
            char *nu = strdup(loc);
            if (!nu) {
                rc = g2e_fail(err, G2E_ENOMEM, "out of memory");
                goto out;
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
            goto out;
        }
        /* errors: explained in one line */
        const char *what = c->o->repo;
        const char *rev = c->o->revision ? c->o->revision : "main";
        const char *file = c->o->filename ? c->o->filename : "model.safetensors";
        if (st == 401) {
            rc = g2e_fail(err, DL_E_UNAUTHORIZED, "HTTP 401 for %s: the repository '%s' does not "
                          "exist, or is private and needs a valid token ($HF_TOKEN or `hf auth login`)%s",
                          show, what, c->token ? " (a token was sent)" : "");
        } else if (st == 403) {
            rc = g2e_fail(err, DL_E_FORBIDDEN, "HTTP 403 for %s: access to '%s' is refused%s; "
                          "accept its terms on the Hub or use a token that has access",
                          show, what, strcasecmp(r.error_code, "GatedRepo") == 0 ? " (a gated repo)" : "");
        } else if (st == 404) {
            if (strcasecmp(r.error_code, "RevisionNotFound") == 0)
                rc = g2e_fail(err, DL_E_NOT_FOUND, "HTTP 404: '%s' has no revision '%s' (check --revision)",
                              what, rev);
            else if (strcasecmp(r.error_code, "EntryNotFound") == 0)
                rc = g2e_fail(err, DL_E_NOT_FOUND, "HTTP 404: '%s' at '%s' has no file '%s'", what,
                              rev, file);
            else if (strcasecmp(r.error_code, "RepoNotFound") == 0)
                rc = g2e_fail(err, DL_E_NOT_FOUND, "HTTP 404: no repository '%s' (check --repo)", what);
            else
                rc = g2e_fail(err, DL_E_NOT_FOUND, "HTTP 404 for %s: no such repository, revision "
                              "or file (check --repo and --revision)", show);
        } else if (st == 408 || st == 429 || (st >= 500 && st <= 599)) {
            snprintf(why, why_cap, "HTTP %ld from %s", st, show);
            /* keep Retry-After for the caller's backoff */
            snprintf(meta->retry_after, sizeof meta->retry_after, "%s", r.retry_after);
            rc = XCH_TRANSIENT;
        } else {
            rc = g2e_fail(err, DL_E_HTTP, "HTTP %ld for %s%s%s", st, show,
                          r.error_message[0] ? ": " : "", r.error_message);
        }
        goto out;
    }
out:
    if (s)
        s->r = NULL;
    free(url);
    return rc;
}

/* Retries with backoff around exchange(). For a HEAD (mem NULL, fd < 0), meta is filled.
 * For data, bytes [start, +len) of the file go to mem or to fd at off, and into hash if
 * not NULL (each byte once, in order, whatever the retries). */
static int with_retries(dl_ctx *c, uint64_t start, uint64_t len, uint8_t *mem, int fd,
                        uint64_t off, sha256_ctx *hash, dl_resp *meta, g2e_err *err)
{
    const dl_opts *o = c->o;
    int max_attempts = o->max_attempts > 0 ? o->max_attempts : 6;
    unsigned base = o->backoff_ms ? o->backoff_ms : 1000;
    unsigned cap = o->backoff_max_ms ? o->backoff_max_ms : 30000;
    unsigned delay = base;
    uint64_t done = 0;
    int attempt = 1;
    dl_resp m;
    for (;;) {
        char why[512] = "";
        sink s = {0};
        int rc;
        double t_start = mono_now();
        s.c = c;
        s.fd = fd;
        s.hash = hash;
        if (mem || fd >= 0) {
            s.mem = mem ? mem + done : NULL;
            s.off = off + done;
            s.want_start = start + done;
            s.want_len = len - done;
            rc = exchange(c, &s, &m, why, sizeof why, err);
        } else {
            rc = exchange(c, NULL, &m, why, sizeof why, err);
        }
        done += s.got;
        if (rc > 0)
            return rc;
        if (meta)
            *meta = m;
        if (rc == 0 && (mem || fd >= 0)) {
            /* the same file on every request, or the bytes may not belong together */
            char et[DL_HV];
            meta_etag(&m, et, sizeof et);
            if (c->etag[0] && et[0] && strcmp(et, c->etag) != 0)
                return g2e_fail(err, DL_E_CHANGED, "the file changed on the Hub during the "
                                "download (ETag %s, now %s); run the command again", c->etag, et);
            if (done < len) {
                snprintf(why, sizeof why, "a short body: %" PRIu64 " of %" PRIu64 " bytes",
                         done, len);
                rc = XCH_TRANSIENT;
            }
        }
        if (rc == 0)
            return 0;
        /* transient: try again, resuming after what arrived */
        double t_end = mono_now();
        if (s.got >= PROGRESS_RESET) {
            attempt = 1;
            delay = base;
            c->lost += t_end - s.last_byte;   /* only the dead time after the progress */
        } else {
            c->lost += t_end - t_start;
        }
        int code = strncmp(why, "HTTP ", 5) == 0 && why[5] >= '1' && why[5] <= '5' ? DL_E_HTTP
                                                                                  : DL_E_NETWORK;
        if (attempt >= max_attempts || c->retries >= DL_MAX_RETRIES)
            return g2e_fail(err, code, "giving up after %d attempt%s: %s", attempt,
                            attempt == 1 ? "" : "s", why);
        unsigned wait = delay;
        uint64_t ra;
        if (m.retry_after[0] && dl_parse_u64(m.retry_after, &ra) == 0) {
            /* the server's wish, within our cap */
            unsigned want = ra > cap / 1000 ? cap : (unsigned)ra * 1000;
            if (want > wait)
                wait = want;
        }
        if (c->lost + wait / 1000.0 > (double)c->retry_limit)
            return g2e_fail(err, code, "giving up after %d attempt%s and %.0f s lost to failures "
                            "(the limit is %ld s): %s", attempt, attempt == 1 ? "" : "s",
                            c->lost, c->retry_limit, why);
        if (t_end + wait / 1000.0 - c->t0 >= (double)c->deadline)
            return g2e_fail(err, code, "giving up after %d attempt%s: the download's deadline of "
                            "%ld s would pass before the next one: %s", attempt,
                            attempt == 1 ? "" : "s", c->deadline, why);
        attempt++;
        c->retries++;
        c->res->retries = c->retries;
        dl_progress saved = c->pg;
        c->pg.stage = DL_STAGE_RETRY;
        c->pg.attempt = attempt;
        c->pg.delay_ms = wait;
        c->pg.reason = why;
        report(c, 1);
        c->pg = saved;
        c->pg.reason = NULL;
        sleep_ms(wait);
        c->lost += wait / 1000.0;
        delay = delay > cap / 2 ? cap : delay * 2;
    }
}

/* ---- the part file and its sidecar ------------------------------------------------- */

typedef struct part {
    char *path, *info_path;
    int fd;
    uint64_t size;   /* bytes already in it that belong to the same download */
} part;

static int write_all_at(int fd, const void *buf, size_t n, uint64_t off)
{
    const uint8_t *p = buf;
    while (n) {
        ssize_t z = pwrite(fd, p, n, (off_t)off);
        if (z < 0 && errno == EINTR)
            continue;
        if (z <= 0)
            return -1;
        p += z;
        n -= (size_t)z;
        off += (uint64_t)z;
    }
    return 0;
}

static int read_all_at(int fd, void *buf, size_t n, uint64_t off)
{
    uint8_t *p = buf;
    while (n) {
        ssize_t z = pread(fd, p, n, (off_t)off);
        if (z < 0 && errno == EINTR)
            continue;
        if (z <= 0)
            return -1;
        p += z;
        n -= (size_t)z;
        off += (uint64_t)z;
    }
    return 0;
}

/* Why fd (open on path) is no file to write through, as an error; 0 if it is one:
 * a regular file with no other hard link. */
static int refuse_special(int fd, const char *path, g2e_err *err)
{
    struct stat sb;
    if (fstat(fd, &sb) != 0)
        return g2e_fail(err, DL_E_IO, "cannot stat %s: %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return g2e_fail(err, DL_E_IO, "%s is not a regular file (a FIFO, device or folder?): "
                        "refusing to use it; remove it and run again", path);
    if (sb.st_nlink > 1)
        return g2e_fail(err, DL_E_IO, "%s has other hard links: refusing to write through it "
                        "into another file; remove it and run again", path);
    return 0;
}

/* The error for an open(2) of path that failed with errno. */
static int open_error(const char *path, const char *verb, g2e_err *err)
{
    if (errno == ELOOP)
        return g2e_fail(err, DL_E_IO, "%s is a symbolic link: refusing to follow it; remove it "
                        "and run again", path);
    if (errno == EISDIR || errno == ENXIO)
        return g2e_fail(err, DL_E_IO, "%s is not a regular file (a FIFO, device or folder?): "
                        "refusing to use it; remove it and run again", path);
    return g2e_fail(err, DL_E_IO, "cannot %s %s: %s", verb, path, strerror(errno));
}

/* Opens path (flags O_RDWR or O_WRONLY) if it exists, else creates it exclusively; never
 * through a symbolic link, never anything but a regular file with one link (O_NONBLOCK:
 * a FIFO cannot block the open). 0 and *fd; 1 when another process created it between the
 * two opens (try again); else an error. */
static int open_regular(const char *path, int flags, int *fd, g2e_err *err)
{
    int base = flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
    *fd = open(path, base);
    if (*fd < 0 && errno == ENOENT) {
        *fd = open(path, base | O_CREAT | O_EXCL, 0644);
        if (*fd < 0 && errno == EEXIST)
            return 1;
    }
    if (*fd < 0)
        return open_error(path, "create", err);
    int rc = refuse_special(*fd, path, err);
    if (rc) {
        close(*fd);
        *fd = -1;
        return rc;
    }
    fcntl(*fd, F_SETFL, fcntl(*fd, F_GETFL) & ~O_NONBLOCK);
    return 0;
}

/* *same = 1 if the sidecar at path holds exactly info. No sidecar: 0. A link or special
 * file there: an error (never read through or replaced). */
static int info_same(const char *path, const char *info, int *same, g2e_err *err)
{
    *same = 0;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0 : open_error(path, "read", err);
    int rc = refuse_special(fd, path, err);
    if (rc) {
        close(fd);
        return rc;
    }
    size_t il = strlen(info), k = 0;
    char *old = malloc(il + 2);
    if (!old) {
        close(fd);
        return g2e_fail(err, G2E_ENOMEM, "out of memory");
    }
    while (k < il + 1) {
        ssize_t z = read(fd, old + k, il + 1 - k);
        if (z < 0 && errno == EINTR)
            continue;
        if (z <= 0)
            break;
        k += (size_t)z;
    }
    close(fd);
    *same = k == il && memcmp(old, info, il) == 0;
    free(old);
    return 0;
}

/* A new sidecar at path holding info: the old one (a regular file: info_same checked)
 * removed, the new one created exclusively. */
static int info_write(const char *path, const char *info, g2e_err *err)
{
    if (unlink(path) != 0 && errno != ENOENT)
        return g2e_fail(err, DL_E_IO, "cannot remove %s: %s", path, strerror(errno));
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return open_error(path, "create", err);
    int bad = write_all_at(fd, info, strlen(info), 0) != 0;
    if (close(fd) != 0 || bad)
        return g2e_fail(err, DL_E_IO, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

/* 1 if p->fd is still the file at p->path (dev + inode; *sb gets its fstat), 0 if that
 * path is gone or another file now, -1 on a failed fstat. */
static int part_is_path(const part *p, struct stat *sb)
{
    struct stat at;
    if (fstat(p->fd, sb) != 0)
        return -1;
    if (lstat(p->path, &at) != 0)
        return 0;
    return at.st_dev == sb->st_dev && at.st_ino == sb->st_ino;
}

/* For the test suite only (documented in download.h): with $GPT2_EMBED_TEST_PART_GATE set
 * to a folder, a download that has just opened its part file creates <folder>/opened and
 * waits (at most 60 s) until <folder>/go exists, so that a test can run another download
 * in that window. */
static void test_gate(void)
{
    const char *g = getenv("GPT2_EMBED_TEST_PART_GATE");
    char a[4096], b[4096];
    if (!g || !*g || snprintf(a, sizeof a, "%s/opened", g) >= (int)sizeof a ||
        snprintf(b, sizeof b, "%s/go", g) >= (int)sizeof b)
        return;
    int fd = open(a, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0)
        close(fd);
    for (int i = 0; i < 6000 && access(b, F_OK) != 0; i++)
        sleep_ms(10);
}

/* Opens <out>.part (locked) and keeps what is in it when <out>.part.info equals info. */
static int part_open(part *p, const char *out, const char *info, uint64_t max_size, g2e_err *err)
{
    size_t n = strlen(out);
    p->fd = -1;
    p->path = malloc(n + 6);
    p->info_path = malloc(n + 11);
    if (!p->path || !p->info_path)
        return g2e_fail(err, G2E_ENOMEM, "out of memory");
    snprintf(p->path, n + 6, "%s.part", out);
    snprintf(p->info_path, n + 11, "%s.part.info", out);
    struct stat sb;
    for (int tries = 0;; tries++) {
        /* an existing part, else a new one: never through a link, created exclusively */
        int rc = open_regular(p->path, O_RDWR, &p->fd, err);
        if (rc == 1)
            continue;   /* created by someone else meanwhile: open that one */
        if (rc)
            return rc;
        test_gate();
        if (flock(p->fd, LOCK_EX | LOCK_NB) != 0)
            return g2e_fail(err, DL_E_BUSY, "another download is writing %s; wait for it or stop it",
                            p->path);
        /* the lock is on an inode: another download may have renamed this very file into
         * place between our open and our lock. Only a descriptor that still is the part's
         * path may be truncated or written; otherwise open the path again. */
        int same = part_is_path(p, &sb);
        if (same < 0)
            return g2e_fail(err, DL_E_IO, "cannot stat %s: %s", p->path, strerror(errno));
        if (same)
            break;
        close(p->fd);
        p->fd = -1;
        if (tries >= 20)
            return g2e_fail(err, DL_E_BUSY, "%s keeps being replaced by another process while "
                            "being opened; stop the other download", p->path);
    }
    p->size = (uint64_t)sb.st_size;
    int same = 0, rc = info_same(p->info_path, info, &same, err);
    if (rc)
        return rc;
    if (!same || p->size > max_size) {
        if (ftruncate(p->fd, 0) != 0)
            return g2e_fail(err, DL_E_IO, "cannot truncate %s: %s", p->path, strerror(errno));
        p->size = 0;
        if ((rc = info_write(p->info_path, info, err)) != 0)
            return rc;
    }
    return 0;
}

/* After a transport failure: says that the part is kept and how to go on. */
static int part_kept(const part *p, int rc, g2e_err *err)
{
    struct stat sb;
    if ((rc == DL_E_NETWORK || rc == DL_E_HTTP) && err && fstat(p->fd, &sb) == 0 && sb.st_size > 0) {
        char was[G2E_ERR_MSG_MAX];
        snprintf(was, sizeof was, "%s", err->msg);
        g2e_fail(err, rc, "%s; %s keeps %lld bytes: run again to resume", was, p->path,
                 (long long)sb.st_size);
    }
    return rc;
}

/* Removes the part and its sidecar (after a verdict that its bytes are wrong). */
static void part_discard(part *p)
{
    if (p->path) unlink(p->path);
    if (p->info_path) unlink(p->info_path);
}

static void part_close(part *p)
{
    if (p->fd >= 0)
        close(p->fd);
    free(p->path);
    free(p->info_path);
    p->fd = -1;
    p->path = p->info_path = NULL;
}

/* fsync, rename onto out, fsync the folder, drop the sidecar. */
static int part_commit(part *p, const char *out, g2e_err *err)
{
    struct stat sb;
    if (fsync(p->fd) != 0)
        return g2e_fail(err, DL_E_IO, "cannot sync %s: %s", p->path, strerror(errno));
    if (part_is_path(p, &sb) != 1)   /* never rename what is not the part we wrote */
        return g2e_fail(err, DL_E_IO, "%s was replaced or removed by another process during "
                        "the download; nothing was renamed onto %s", p->path, out);
    if (rename(p->path, out) != 0)
        return g2e_fail(err, DL_E_IO, "cannot rename %s to %s: %s", p->path, out, strerror(errno));
    unlink(p->info_path);
    char *dir = strdup(out);
    if (dir) {
        char *sl = strrchr(dir, '/');
        const char *d = sl ? (sl == dir ? "/" : (*sl = '\0', dir)) : ".";
        int dfd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            fsync(dfd);
            close(dfd);
        }
        free(dir);
    }
    return 0;
}

/* Absorbs bytes [off, +len) of fd into h (what an earlier run left in the part);
 * progress under the current stage. */
static int hash_file_range(dl_ctx *c, int fd, uint64_t off, uint64_t len, sha256_ctx *h,
                           g2e_err *err, const char *path)
{
    enum { CHUNK = 1 << 20 };
    uint8_t *buf = malloc(CHUNK);
    if (!buf)
        return g2e_fail(err, G2E_ENOMEM, "out of memory");
    uint64_t done = 0;
    while (done < len) {
        size_t n = len - done < CHUNK ? (size_t)(len - done) : CHUNK;
        if (read_all_at(fd, buf, n, off + done) != 0) {
            free(buf);
            return g2e_fail(err, DL_E_IO, "cannot read back %s: %s", path,
                            errno ? strerror(errno) : "file too short");
        }
        sha256_update(h, buf, n);
        done += n;
        c->pg.done += n;
        if ((c->pg.done & ((1u << 24) - 1)) < n && c->o->progress)
            c->o->progress(c->o->progress_user, &c->pg);
    }
    free(buf);
    return 0;
}

static void hash_hex(sha256_ctx *h, char hex[65])
{
    uint8_t dg[SHA256_DIGEST_LEN];
    sha256_final(h, dg);
    sha256_hex(dg, hex);
}

/* ---- the two modes ----------------------------------------------------------------- */

/* JSON string body of s (escaped) appended at *k in buf (NULL: just count). */
static size_t json_str(char *buf, size_t k, const char *s)
{
    static const char X[] = "0123456789abcdef";
    if (buf) buf[k] = '"';
    k++;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            if (buf) { buf[k] = '\\'; buf[k + 1] = (char)*p; }
            k += 2;
        } else if (*p < 0x20) {
            if (buf) {
                memcpy(buf + k, "\\u00", 4);
                buf[k + 4] = X[*p >> 4];
                buf[k + 5] = X[*p & 15];
            }
            k += 6;
        } else {
            if (buf) buf[k] = (char)*p;
            k++;
        }
    }
    if (buf) buf[k] = '"';
    return k + 1;
}

static size_t json_raw(char *buf, size_t k, const char *s)
{
    size_t n = strlen(s);
    if (buf) memcpy(buf + k, s, n);
    return k + n;
}

/* The output header for tensors t[0..1] (source order) with hashes hx[i] (64 hex each). */
static size_t build_header(char *buf, const dl_ctx *c, const char *format,
                           const st_tensor *const t[2], const char hx[2][65])
{
    const dl_opts *o = c->o;
    char num[64];
    size_t k = 0;
    k = json_raw(buf, k, "{\"__metadata__\":{");
    if (format) {
        k = json_str(buf, k, "format");
        k = json_raw(buf, k, ":");
        k = json_str(buf, k, format);
        k = json_raw(buf, k, ",");
    }
    const char *kv[][2] = {
        {"source_repo", o->repo},
        {"source_revision", o->revision ? o->revision : "main"},
        {"source_commit", c->commit},
        {"source_file", o->filename ? o->filename : "model.safetensors"},
        {"source_sha256", c->etag},
    };
    for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++) {
        k = json_str(buf, k, kv[i][0]);
        k = json_raw(buf, k, ":");
        k = json_str(buf, k, kv[i][1]);
        k = json_raw(buf, k, ",");
    }
    snprintf(num, sizeof num, "%" PRIu64, c->size);
    k = json_str(buf, k, "source_size");
    k = json_raw(buf, k, ":");
    k = json_str(buf, k, num);
    for (int i = 0; i < 2; i++) {
        char key[600];
        snprintf(key, sizeof key, "sha256.%s", t[i]->name);
        k = json_raw(buf, k, ",");
        k = json_str(buf, k, key);
        k = json_raw(buf, k, ":");
        k = json_str(buf, k, hx[i]);
    }
    k = json_raw(buf, k, ",\"created_by\":\"gpt2-embed download\"}");
    uint64_t at = 0;
    for (int i = 0; i < 2; i++) {
        uint64_t nb = t[i]->end - t[i]->begin;
        k = json_raw(buf, k, ",");
        k = json_str(buf, k, t[i]->name);
        k = json_raw(buf, k, ":{\"dtype\":");
        k = json_str(buf, k, st_dtype_name(t[i]->dtype));
        k = json_raw(buf, k, ",\"shape\":[");
        for (int d = 0; d < t[i]->ndim; d++) {
            snprintf(num, sizeof num, "%s%" PRIu64, d ? "," : "", t[i]->shape[d]);
            k = json_raw(buf, k, num);
        }
        snprintf(num, sizeof num, "],\"data_offsets\":[%" PRIu64 ",%" PRIu64 "]}", at, at + nb);
        k = json_raw(buf, k, num);
        at += nb;
    }
    return json_raw(buf, k, "}");
}

static void put_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static const st_tensor *find_either(const st_file *st, const char *name)
{
    char pre[64];
    const st_tensor *t = st_find(st, name);
    if (t)
        return t;
    snprintf(pre, sizeof pre, "transformer.%s", name);
    return st_find(st, pre);
}

/* "A x B" of a tensor's shape into buf. */
static const char *shape_str(const st_tensor *t, char *buf, size_t cap)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int d = 0; d < t->ndim && k < cap; d++)
        k += (size_t)snprintf(buf + k, cap - k, "%s%" PRIu64, d ? " x " : "", t->shape[d]);
    if (t->ndim == 0)
        snprintf(buf, cap, "a scalar");
    return buf;
}

int dl_check_shapes(const dl_opts *o, uint64_t file_size, const st_file *st,
                    const st_tensor *wte, const st_tensor *wpe, const char *what, g2e_err *err)
{
    char a[96], b[96];
    if (wte->ndim != 2 || wpe->ndim != 2 || wte->shape[1] != wpe->shape[1])
        return g2e_fail(err, DL_E_SHAPE, "%s: %s is %s and %s is %s: not the embeddings of a "
                        "GPT-2 model (two matrices of the same width)", what, wte->name,
                        shape_str(wte, a, sizeof a), wpe->name, shape_str(wpe, b, sizeof b));
    if (o->n_vocab && o->n_ctx && o->n_embd &&
        (wte->shape[0] != o->n_vocab || wpe->shape[0] != o->n_ctx || wte->shape[1] != o->n_embd))
        return g2e_fail(err, DL_E_SHAPE, "%s: %s is %s and %s is %s, but the model asked for has "
                        "%" PRIu64 " x %" PRIu64 " and %" PRIu64 " x %" PRIu64 "; not downloading "
                        "it (check --model and --repo)", what, wte->name,
                        shape_str(wte, a, sizeof a), wpe->name, shape_str(wpe, b, sizeof b),
                        o->n_vocab, o->n_embd, o->n_ctx, o->n_embd);
    if (o->full && o->n_layer && o->n_vocab && o->n_ctx && o->n_embd) {
        /* every tensor of GPT2Model in F32: wte, wpe, per block ln_1, attn.c_attn, attn.c_proj,
         * ln_2, mlp.c_fc, mlp.c_proj (12 E^2 + 13 E) and the attn.bias mask (C^2), ln_f */
        uint64_t E = o->n_embd, C = o->n_ctx, V = o->n_vocab, L = o->n_layer;
        if (E > (1u << 20) || C > (1u << 24) || V > (1u << 24) || L > 4096)
            return g2e_fail(err, DL_E_ARG, "the model asked for has implausible shapes");
        uint64_t params = V * E + C * E + L * (12 * E * E + 13 * E + C * C) + 2 * E;
        uint64_t most = st->data_start + 4 * params;
        if (file_size > most)
            return g2e_fail(err, DL_E_SHAPE, "%s is %" PRIu64 " bytes, more than a model of this "
                            "shape can be in F32 (%" PRIu64 "); not downloading it",
                            what, file_size, most);
    }
    return 0;
}

/* The remote file's length and header by two Range requests, validated by the loader;
 * *st (caller closes) and its wte/wpe, checked against the model asked for. */
static int fetch_header(dl_ctx *c, st_file **st, const st_tensor **wte_out,
                        const st_tensor **wpe_out, g2e_err *err)
{
    uint8_t len8[8], *json = NULL;
    g2e_err e2;
    int rc;
    *st = NULL;
    if (c->size < 8)
        return g2e_fail(err, DL_E_HEADER, "%s is %" PRIu64 " bytes: too short for safetensors",
                        c->shown_url, c->size);
    stage(c, DL_STAGE_HEADER, 0, 8);
    if ((rc = with_retries(c, 0, 8, len8, -1, 0, NULL, NULL, err)) != 0)
        return rc;
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--)
        n = n << 8 | len8[i];
    if (n > ST_MAX_HEADER || n > c->size - 8)
        return g2e_fail(err, DL_E_HEADER, "%s: header length %" PRIu64 " is over the limit or "
                        "past the end of the %" PRIu64 "-byte file", c->shown_url, n, c->size);
    if (n == 0)
        return g2e_fail(err, DL_E_HEADER, "%s: the header is empty", c->shown_url);
    if (!(json = malloc((size_t)n)))
        return g2e_fail(err, G2E_ENOMEM, "out of memory for a %" PRIu64 "-byte header", n);
    stage(c, DL_STAGE_HEADER, 8, 8 + n);
    if ((rc = with_retries(c, 8, n, json, -1, 0, NULL, NULL, err)) != 0)
        goto fail;
    if (st_parse_header(st, json, (size_t)n, c->size - 8 - n, &e2) != 0) {
        rc = g2e_fail(err, DL_E_HEADER, "the header of %s is not valid safetensors: %s",
                      c->shown_url, e2.msg);
        goto fail;
    }
    const st_tensor *wte = find_either(*st, "wte.weight"), *wpe = find_either(*st, "wpe.weight");
    if (!wte || !wpe) {
        rc = g2e_fail(err, DL_E_NO_EMBEDDINGS, "%s has no %s: not a GPT-2 model?", c->shown_url,
                      !wte ? "wte.weight (nor transformer.wte.weight)"
                           : "wpe.weight (nor transformer.wpe.weight)");
        goto fail;
    }
    if ((rc = dl_check_shapes(c->o, c->size, *st, wte, wpe, c->shown_url, err)) != 0)
        goto fail;
    *wte_out = wte;
    *wpe_out = wpe;
    free(json);
    return 0;
fail:
    st_close(*st);
    *st = NULL;
    free(json);
    return rc;
}

/* The folder of path has room for `need` more bytes (statvfs; unknown: assumed yes). */
static int check_space(const char *path, uint64_t need, g2e_err *err)
{
    char *d = strdup(path);
    if (!d)
        return g2e_fail(err, G2E_ENOMEM, "out of memory");
    char *sl = strrchr(d, '/');
    const char *folder = sl ? (sl == d ? "/" : (*sl = '\0', d)) : ".";
    struct statvfs v;
    int rc = 0;
    if (statvfs(folder, &v) == 0) {
        uint64_t avail = (uint64_t)v.f_bavail * (uint64_t)v.f_frsize;
        if (avail < need)
            rc = g2e_fail(err, DL_E_SPACE, "not enough free space in %s: the download needs "
                          "%" PRIu64 " more bytes, %" PRIu64 " are free", folder, need, avail);
    }
    free(d);
    return rc;
}

/* On resume: the last `ov` bytes the part holds of a source range (at part_at in the part,
 * src_at in the source) are fetched again and compared, so that a server whose bytes
 * changed under the same ETag is caught before new bytes are joined to old ones. A
 * mismatch discards the part (DL_E_CHANGED). */
static int check_overlap(dl_ctx *c, part *p, uint64_t part_at, uint64_t src_at, uint64_t ov,
                         g2e_err *err)
{
    uint8_t *a = malloc(ov ? ov : 1), *b = malloc(ov ? ov : 1);
    int rc = 0;
    if (!a || !b) {
        rc = g2e_fail(err, G2E_ENOMEM, "out of memory");
    } else if (read_all_at(p->fd, a, (size_t)ov, part_at) != 0) {
        rc = g2e_fail(err, DL_E_IO, "cannot read back %s: %s", p->path,
                      errno ? strerror(errno) : "file too short");
    } else if ((rc = with_retries(c, src_at, ov, b, -1, 0, NULL, NULL, err)) == 0 &&
               memcmp(a, b, (size_t)ov) != 0) {
        part_discard(p);
        rc = g2e_fail(err, DL_E_CHANGED, "the %" PRIu64 " bytes before the resume point differ "
                      "from what %s serves now: its content changed under the same ETag %s; the "
                      "part was discarded, run again to download from the start", ov,
                      c->shown_url, c->etag);
    }
    free(a);
    free(b);
    return rc;
}

static int fetch_full(dl_ctx *c, g2e_err *err)
{
    const dl_opts *o = c->o;
    char info[4096];
    part p = {0};
    p.fd = -1;
    int rc;
    if (!is_sha256_hex(c->etag)) {
        return g2e_fail(err, DL_E_PROTOCOL, "the Hub gives no sha256 for %s (ETag '%s'), so a "
                        "full download cannot be verified", c->shown_url, c->etag);
    }
    st_file *hs = NULL;
    const st_tensor *wte, *wpe;
    if ((rc = fetch_header(c, &hs, &wte, &wpe, err)) != 0)
        return rc;
    st_close(hs);
    snprintf(info, sizeof info, "gpt2-embed part v1\nmode full\nrepo %s\nfile %s\netag %s\nsize %" PRIu64 "\n",
             o->repo, o->filename ? o->filename : "model.safetensors", c->etag, c->size);
    if ((rc = part_open(&p, o->out_path, info, c->size, err)) != 0)
        goto fail;
    c->res->resumed = p.size;
    if ((rc = check_space(p.path, c->size - p.size, err)) != 0) {
        if (p.size == 0)
            part_discard(&p);
        goto fail;
    }
    if (p.size > 0) {
        uint64_t ov = p.size < DL_OVERLAP ? p.size : DL_OVERLAP;
        if ((rc = check_overlap(c, &p, p.size - ov, p.size - ov, ov, err)) != 0)
            goto fail;
    }
    sha256_ctx h;
    sha256_init(&h);
    if (p.size > 0) {
        stage(c, DL_STAGE_VERIFY, 0, p.size);
        if ((rc = hash_file_range(c, p.fd, 0, p.size, &h, err, p.path)) != 0)
            goto fail;
    }
    stage(c, DL_STAGE_FILE, p.size, c->size);
    if (p.size < c->size &&
        (rc = with_retries(c, p.size, c->size - p.size, NULL, p.fd, p.size, &h, NULL, err)) != 0) {
        if (rc == DL_E_CHANGED || rc == DL_E_PROTOCOL)
            part_discard(&p);
        part_kept(&p, rc, err);
        goto fail;
    }
    stage(c, DL_STAGE_VERIFY, c->size, c->size);
    char hex[65];
    hash_hex(&h, hex);
    if (strcmp(hex, c->etag) != 0) {
        part_discard(&p);
        rc = g2e_fail(err, DL_E_CHECKSUM, "sha256 mismatch for %s: the Hub says %s, the download "
                      "gives %s; the download was discarded and %s left as it was",
                      c->shown_url, c->etag, hex, o->out_path);
        goto fail;
    }
    st_file *st = NULL;
    g2e_err e2;
    if (st_open(&st, p.path, &e2) != 0) {
        part_discard(&p);
        rc = g2e_fail(err, DL_E_HEADER, "the downloaded file is not valid safetensors: %s", e2.msg);
        goto fail;
    }
    st_close(st);
    if ((rc = part_commit(&p, o->out_path, err)) != 0)
        goto fail;
    c->res->out_size = c->size;
    part_close(&p);
    return 0;
fail:
    part_close(&p);
    return rc;
}

static int fetch_embeddings(dl_ctx *c, g2e_err *err)
{
    const dl_opts *o = c->o;
    char *hdr = NULL;
    st_file *st = NULL, *chk = NULL;
    part p = {0};
    p.fd = -1;
    int rc;
    g2e_err e2;
    const st_tensor *wte, *wpe;

    if ((rc = fetch_header(c, &st, &wte, &wpe, err)) != 0)
        return rc;
    const st_tensor *t[2] = {wte, wpe};
    if (wpe->begin < wte->begin) {
        t[0] = wpe;
        t[1] = wte;
    }
    snprintf(c->res->wte_name, sizeof c->res->wte_name, "%s", wte->name);
    snprintf(c->res->wpe_name, sizeof c->res->wpe_name, "%s", wpe->name);
    const char *format = st_meta_get(st, "format");
    char hx[2][65];
    memset(hx, '0', sizeof hx);
    hx[0][64] = hx[1][64] = '\0';
    /* spaces after the JSON put the data at a multiple of 8, as the reference writer does;
     * the hashes are placeholders of their final length until the bytes are in */
    size_t json_len = build_header(NULL, c, format, t, (const char(*)[65])hx);
    size_t hl = json_len + (8 - json_len % 8) % 8;
    hdr = malloc(8 + hl);
    if (!hdr) {
        rc = g2e_fail(err, G2E_ENOMEM, "out of memory");
        goto fail;
    }
    memset(hdr + 8 + json_len, ' ', hl - json_len);
    put_le64((uint8_t *)hdr, hl);
    build_header(hdr + 8, c, format, t, (const char(*)[65])hx);
    uint64_t nb[2] = {t[0]->end - t[0]->begin, t[1]->end - t[1]->begin};
    uint64_t total = 8 + hl + nb[0] + nb[1];

    char info[4096];
    snprintf(info, sizeof info,
             "gpt2-embed part v1\nmode embeddings\nrepo %s\nfile %s\netag %s\nsize %" PRIu64
             "\nheader %zu\n%s %" PRIu64 "-%" PRIu64 "\n%s %" PRIu64 "-%" PRIu64 "\n",
             o->repo, o->filename ? o->filename : "model.safetensors", c->etag, c->size, hl,
             t[0]->name, t[0]->begin, t[0]->end, t[1]->name, t[1]->begin, t[1]->end);
    if ((rc = part_open(&p, o->out_path, info, total, err)) != 0)
        goto fail;
    c->res->resumed = p.size;
    if ((rc = check_space(p.path, total - p.size, err)) != 0) {
        if (p.size == 0)
            part_discard(&p);
        goto fail;
    }
    if (p.size < 8 + hl) {
        if (write_all_at(p.fd, hdr, 8 + hl, 0) != 0) {
            rc = g2e_fail(err, DL_E_IO, "cannot write %s: %s", p.path, strerror(errno));
            goto fail;
        }
        p.size = 8 + hl;
    }
    /* resuming inside (or at the end of) a tensor: its last stored bytes again, compared */
    for (int i = 0, at0 = 0; i < 2 && p.size > 8 + hl && !at0; i++) {
        uint64_t start = 8 + hl + (i ? nb[0] : 0);
        if (p.size > start && p.size <= start + nb[i]) {
            uint64_t have = p.size - start, ov = have < DL_OVERLAP ? have : DL_OVERLAP;
            if ((rc = check_overlap(c, &p, p.size - ov, st->data_start + t[i]->begin + have - ov,
                                    ov, err)) != 0)
                goto fail;
            at0 = 1;
        }
    }
    /* the tensors' hashes: first over what an earlier run left, then as bytes arrive */
    sha256_ctx h[2];
    uint64_t at = 8 + hl;
    if (p.size > at)
        stage(c, DL_STAGE_VERIFY, 0, p.size - at);
    for (int i = 0; i < 2; i++) {
        sha256_init(&h[i]);
        uint64_t have = p.size > at ? p.size - at : 0;
        if (have > nb[i])
            have = nb[i];
        if (have && (rc = hash_file_range(c, p.fd, at, have, &h[i], err, p.path)) != 0)
            goto fail;
        at += nb[i];
    }
    stage(c, DL_STAGE_TENSORS, p.size - 8 - hl, nb[0] + nb[1]);
    at = 8 + hl;
    for (int i = 0; i < 2; i++) {
        uint64_t end = at + nb[i];
        if (p.size < end) {
            uint64_t skip = p.size - at;
            rc = with_retries(c, st->data_start + t[i]->begin + skip, nb[i] - skip, NULL, p.fd,
                              p.size, &h[i], NULL, err);
            if (rc) {
                if (rc == DL_E_CHANGED || rc == DL_E_PROTOCOL)
                    part_discard(&p);
                part_kept(&p, rc, err);
                goto fail;
            }
            p.size = end;
        }
        at = end;
    }
    stage(c, DL_STAGE_VERIFY, nb[0] + nb[1], nb[0] + nb[1]);
    for (int i = 0; i < 2; i++)
        hash_hex(&h[i], hx[i]);
    build_header(hdr + 8, c, format, t, (const char(*)[65])hx);
    if (write_all_at(p.fd, hdr, 8 + hl, 0) != 0) {
        rc = g2e_fail(err, DL_E_IO, "cannot write %s: %s", p.path, strerror(errno));
        goto fail;
    }
    if (ftruncate(p.fd, (off_t)total) != 0) {
        rc = g2e_fail(err, DL_E_IO, "cannot truncate %s: %s", p.path, strerror(errno));
        goto fail;
    }
    if (st_open(&chk, p.path, &e2) != 0 || !st_find(chk, wte->name) || !st_find(chk, wpe->name)) {
        part_discard(&p);
        rc = g2e_fail(err, DL_E_HEADER, "the file written is not valid safetensors (%s); "
                      "discarded", chk ? "a tensor is missing" : e2.msg);
        goto fail;
    }
    if ((rc = part_commit(&p, o->out_path, err)) != 0)
        goto fail;
    c->res->out_size = total;
    rc = 0;
fail:
    st_close(chk);
    st_close(st);
    free(hdr);
    part_close(&p);
    return rc;
}

/* ---- the entry point --------------------------------------------------------------- */

int dl_fetch(const dl_opts *opts, dl_result *res, g2e_err *err)
{
    dl_result dummy;
    dl_ctx c;
    int rc;
    memset(&c, 0, sizeof c);
    if (!res)
        res = &dummy;
    memset(res, 0, sizeof *res);
    g2e_clear(err);
    if (!opts || !opts->repo || !*opts->repo || !opts->out_path || !*opts->out_path)
        return g2e_fail(err, DL_E_ARG, "a repository and an output path are required");
    c.o = opts;
    c.res = res;
    c.t0 = mono_now();
    c.deadline = opts->deadline_seconds > 0 ? opts->deadline_seconds : 21600;
    c.attempt_limit = opts->attempt_seconds > 0 ? opts->attempt_seconds : 600;
    c.retry_limit = opts->retry_seconds > 0 ? opts->retry_seconds : 300;
    if (dl_offline())
        return g2e_fail(err, DL_E_OFFLINE, "HF_HUB_OFFLINE is set: not downloading %s (unset it "
                        "to download, or point --weights at a file you have)", opts->repo);
    if ((rc = dl_endpoint(opts->endpoint, c.endpoint, sizeof c.endpoint, err)) != 0)
        return rc;
    if ((rc = dl_resolve_url(&c.url, opts->endpoint, opts->repo, opts->revision, opts->filename, err)) != 0)
        return rc;
    shown(c.url, c.shown_url, sizeof c.shown_url);
    shown(c.endpoint, c.shown_endpoint, sizeof c.shown_endpoint);
    if ((rc = read_token(opts->token, &c.token, err)) != 0)
        goto fail;
    if (c.token) {
        if (strlen(c.token) > sizeof c.auth_header - 32) {
            rc = g2e_fail(err, DL_E_ARG, "the Hugging Face token is too long");
            goto fail;
        }
        snprintf(c.auth_header, sizeof c.auth_header, "Authorization: Bearer %s", c.token);
    }
    if (!cu && !(cu = curl_dl(DL_E_CURL, err))) {
        rc = DL_E_CURL;
        goto fail;
    }
    if (cu->global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        rc = g2e_fail(err, DL_E_CURL, "libcurl could not be initialised");
        goto fail;
    }
    c.h = cu->easy_init();
    if (!c.h) {
        cu->global_cleanup();
        rc = g2e_fail(err, DL_E_CURL, "libcurl could not be initialised");
        goto fail;
    }
    cu->easy_setopt(c.h, CURLOPT_NOSIGNAL, 1L);
    cu->easy_setopt(c.h, CURLOPT_FOLLOWLOCATION, 0L);
    cu->easy_setopt(c.h, CURLOPT_PROTOCOLS_STR, "http,https");
    cu->easy_setopt(c.h, CURLOPT_USERAGENT, "gpt2-embed/" G2E_VERSION " (libcurl)");
    cu->easy_setopt(c.h, CURLOPT_HEADERFUNCTION, on_header);
    cu->easy_setopt(c.h, CURLOPT_WRITEFUNCTION, on_body);
    cu->easy_setopt(c.h, CURLOPT_CONNECTTIMEOUT, opts->connect_seconds > 0 ? opts->connect_seconds : 30L);
    cu->easy_setopt(c.h, CURLOPT_LOW_SPEED_LIMIT, opts->min_speed > 0 ? opts->min_speed : 10000L);
    cu->easy_setopt(c.h, CURLOPT_LOW_SPEED_TIME, opts->stall_seconds > 0 ? opts->stall_seconds : 20L);

    /* the metadata, as the Hub's client gets it: a HEAD, redirects not followed off-host */
    stage(&c, DL_STAGE_RESOLVE, 0, 0);
    dl_resp m;
    if ((rc = with_retries(&c, 0, 0, NULL, -1, 0, NULL, &m, err)) != 0)
        goto fail;
    meta_etag(&m, c.etag, sizeof c.etag);
    snprintf(c.commit, sizeof c.commit, "%s", m.commit);
    const char *sz = m.linked_size[0] ? m.linked_size : m.content_length;
    if (!c.commit[0] || !c.etag[0] || !sz[0] || dl_parse_u64(sz, &c.size) != 0) {
        rc = g2e_fail(err, DL_E_PROTOCOL, "%s did not give the file's metadata (X-Repo-Commit, "
                      "X-Linked-Etag/ETag, X-Linked-Size/Content-Length): is %s a Hugging Face Hub?",
                      c.shown_url, c.shown_endpoint);
        goto fail;
    }
    if (!dl_is_hex(c.commit, 40)) {
        rc = g2e_fail(err, DL_E_PROTOCOL, "%s gave X-Repo-Commit '%.80s', not a commit id (40 hex "
                      "digits): is %s a Hugging Face Hub?", c.shown_url, c.commit, c.shown_endpoint);
        goto fail;
    }
    snprintf(res->commit, sizeof res->commit, "%s", c.commit);
    snprintf(res->sha256, sizeof res->sha256, "%s", c.etag);
    res->source_size = c.size;

    rc = opts->full ? fetch_full(&c, err) : fetch_embeddings(&c, err);
    if (rc == 0)
        stage(&c, DL_STAGE_DONE, res->out_size, res->out_size);
fail:
    if (c.h) {
        cu->easy_cleanup(c.h);
        cu->global_cleanup();
    }
    if (c.token) {
        memset(c.token, 0, strlen(c.token));
        free(c.token);
    }
    memset(c.auth_header, 0, sizeof c.auth_header);
    free(c.url);
    return rc;
}
