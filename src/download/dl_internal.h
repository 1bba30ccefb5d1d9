/* SPDX-License-Identifier: MIT */
/* dl_internal.h — what the downloader's files share (dl_url.c, dl_auth.c, dl_http.c,
 * dl_store.c, download.c), and the pure parsing and checking of what a server sends that its
 * fuzz target (tests/fuzz/fuzz_download.c) drives. Not part of the library's API. */
#ifndef G2E_DL_INTERNAL_H
#define G2E_DL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "curl_dl.h"
#include "download.h"
#include "err.h"
#include "safetensors.h"
#include "sha256.h"

#define DL_HV 512                 /* room for one header value (longer ones are cut) */
#define DL_MAX_HEADER_LINE 16384  /* a longer header line is refused: no Hub sends one */

/* The headers of one answer that matter here, each value trimmed and with every byte
 * outside printable ASCII (and '\') kept as \xNN, cut to DL_HV - 1 bytes. */
typedef struct dl_resp {
    void *user;            /* the caller's (kept across a reset) */
    size_t too_long;       /* a header line over DL_MAX_HEADER_LINE bytes came (its length) */
    long status;           /* from the status line (at most 3 digits), 0 if none */
    char commit[DL_HV], linked_etag[DL_HV], etag[DL_HV], linked_size[DL_HV];
    char content_length[DL_HV], content_range[DL_HV], error_code[DL_HV];
    char error_message[DL_HV], retry_after[DL_HV], content_encoding[DL_HV];
} dl_resp;

enum { DL_LINE_OK = 0, DL_LINE_END = 1, DL_LINE_TOO_LONG = -1 };

/* Takes one header line buf[0..n) (as libcurl hands it, CRLF included, not NUL-terminated):
 * a status line resets *r; "Name: value" of the names above fills that field. Returns
 * DL_LINE_END for the blank line ending the headers, DL_LINE_TOO_LONG (r->too_long set) for
 * a line over DL_MAX_HEADER_LINE, else DL_LINE_OK. */
int dl_resp_line(dl_resp *r, const char *buf, size_t n);

/* Whether a 2xx answer r carries the bytes [want_start, +want_len) of a file_size-byte file
 * (0: unknown) that were asked for (ranged: a Range header was sent): identity encoding;
 * for a 206, a Content-Range starting at want_start and within the range, a Content-Length
 * equal to its length, a total equal to file_size; for a 200, a Content-Length equal to
 * file_size, and *skip = want_start (the bytes to drop first). 0, or DL_E_PROTOCOL /
 * DL_E_CHANGED with why[why_cap] saying what was found. */
int dl_answer_check(const dl_resp *r, int ranged, uint64_t want_start, uint64_t want_len,
                    uint64_t file_size, uint64_t *skip, char *why, size_t why_cap);

/* "bytes a-b/total" (total may be '*': *has_total 0); a <= b < total. 0 on success. */
int dl_parse_content_range(const char *s, uint64_t *a, uint64_t *b, uint64_t *total,
                           int *has_total);

/* A whole decimal number, trailing blanks allowed, no overflow; 0 on success. */
int dl_parse_u64(const char *s, uint64_t *out);

/* An ETag without W/ and surrounding quotes into out[cap] (cut if longer). */
void dl_unquote_etag(const char *in, char *out, size_t cap);

/* 1 if s is exactly len lower-case hex digits. */
int dl_is_hex(const char *s, size_t len);

/* The remote header's wte and wpe against what o asks for (see dl_opts.n_vocab), and with
 * o->full the file_size against what such a model can be; what names the file in messages.
 * 0, or DL_E_SHAPE with err filled. */
/* The tensor name or "transformer." + name in st, or NULL. */
const st_tensor *dl_find_emb(const st_file *st, const char *name);
/* "A x B" of a tensor's shape into buf[cap] ("a scalar" for 0-D); returns buf. */
const char *dl_shape_str(const st_tensor *t, char *buf, size_t cap);

int dl_check_shapes(const dl_opts *o, uint64_t file_size, const st_file *st,
                    const st_tensor *wte, const st_tensor *wpe, const char *what, g2e_err *err);

#define HUB_DEFAULT "https://huggingface.co"
#define MAX_HOPS 10                 /* redirects followed for one request */
#define PROGRESS_STEP (256u << 10)  /* body bytes between two progress reports */
#define PROGRESS_RESET (1u << 20)   /* an attempt storing this much resets the retry count */
#define DL_OVERLAP (64u << 10)      /* bytes fetched again before a resume point */

typedef struct dl_sink dl_sink;
typedef struct dl_ctx dl_ctx;

/* Where a body goes: memory or a file at an offset, bytes [want_start, +want_len). */
struct dl_sink {
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

/* One dl_fetch call: the options, the handle, what the Hub said, the running report. */
struct dl_ctx {
    const dl_opts *o;
    CURL *h;
    char *url;             /* the resolve URL */
    char shown_url[2048];  /* it as messages show it (see dl_url_shown) */
    char out_path[4096];   /* where the file goes: opts.out_path, or the cache's blob */
    char repo_dir[4096];   /* with opts.hf_cache: <hub cache>/models--org--name */
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

enum { XCH_TRANSIENT = -1 };   /* exchange(): worth another attempt */

/* The part file being written (dl_store.c): its path, its sidecar's, the locked fd. */
typedef struct dl_part {
    char *path, *info_path;
    int fd;
    uint64_t size;   /* bytes already in it that belong to the same download */
} dl_part;

/* libcurl's functions, loaded on first use (curl_dl.h); NULL until then. */
extern const curl_api *dl_cu;

/* ---- dl_auth.c ---- */
/* The token (given: "" means none; NULL: from the environment) into *tok (malloc'd, or NULL
 * when there is none). DL_E_ARG for a token with spaces or control characters, or a token
 * file that is not a regular file. */
int dl_read_token(const char *given, char **tok, g2e_err *err);

/* ---- dl_http.c ---- */
double dl_now(void);                    /* monotonic seconds */
void dl_sleep_ms(unsigned ms);
/* Reports c->pg to the progress callback (at most every PROGRESS_STEP unless force). */
void dl_report(dl_ctx *c, int force);
/* Starts stage s at done of total bytes, and reports it. */
void dl_set_stage(dl_ctx *c, dl_stage s, uint64_t done, uint64_t total);
/* The ETag an answer of the endpoint names for the file (X-Linked-Etag else ETag), unquoted. */
void dl_meta_etag(const dl_resp *m, char *out, size_t cap);
/* libcurl's header and body callbacks (user: a dl_resp, a dl_sink). */
size_t dl_on_header(char *buf, size_t size, size_t nitems, void *user);
size_t dl_on_body(char *buf, size_t size, size_t nitems, void *user);
/* Retries with backoff around one exchange. For a HEAD (mem NULL, fd < 0), meta is filled.
 * For data, bytes [start, +len) of the file go to mem or to fd at off, and into hash if not
 * NULL (each byte once, in order, whatever the retries). 0 or a DL_E_* with err filled. */
int dl_with_retries(dl_ctx *c, uint64_t start, uint64_t len, uint8_t *mem, int fd, uint64_t off,
                    sha256_ctx *hash, dl_resp *meta, g2e_err *err);
int dl_is_sha256_hex(const char *s);    /* 64 lower-case hex digits */

/* ---- dl_store.c ---- */
/* Whole-buffer pwrite/pread at off; 0, or -1 with errno. */
int dl_write_all_at(int fd, const void *buf, size_t n, uint64_t off);
int dl_read_all_at(int fd, void *buf, size_t n, uint64_t off);
/* The DL_E_IO error for an open(2) of path that failed with errno (links, FIFOs named). */
int dl_open_error(const char *path, const char *verb, g2e_err *err);
/* Opens <out>.part (locked, still the path) and keeps what is in it when <out>.part.info
 * equals info and it is at most max_size bytes; else starts it over. See download.h. */
int dl_part_open(dl_part *p, const char *out, const char *info, uint64_t max_size, g2e_err *err);
/* After a transport failure: adds to err that the part is kept and how to go on. */
int dl_part_kept(const dl_part *p, int rc, g2e_err *err);
void dl_part_discard(dl_part *p);       /* removes the part and its sidecar */
void dl_part_close(dl_part *p);         /* closes and frees (the files stay) */
/* fsync, rename onto out (only if the part still is its path), fsync the folder. */
int dl_part_commit(dl_part *p, const char *out, g2e_err *err);
/* Absorbs bytes [off, +len) of fd into h, with progress under the current stage. */
int dl_hash_file_range(dl_ctx *c, int fd, uint64_t off, uint64_t len, sha256_ctx *h,
                       g2e_err *err, const char *path);
void dl_hash_hex(sha256_ctx *h, char hex[65]);
/* DL_E_SPACE unless the folder of path has room for need more bytes. */
int dl_check_space(const char *path, uint64_t need, g2e_err *err);
/* opts.hf_cache: c->out_path becomes the blob's place; *reuse = 1 if it is there, verified. */
int dl_cache_prepare(dl_ctx *c, int *reuse, g2e_err *err);
/* opts.hf_cache, after verification: the snapshot link and the ref. */
int dl_cache_link(dl_ctx *c, g2e_err *err);

#endif
