/* dl_internal.h — the downloader's pieces shared between its files and with its fuzz target
 * (tests/fuzz/fuzz_download.c): the pure parsing and checking of what a server sends.
 * Not part of the library's API; nothing here does I/O. */
#ifndef G2E_DL_INTERNAL_H
#define G2E_DL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "download.h"
#include "err.h"
#include "safetensors.h"

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
int dl_check_shapes(const dl_opts *o, uint64_t file_size, const st_file *st,
                    const st_tensor *wte, const st_tensor *wpe, const char *what, g2e_err *err);

#endif
