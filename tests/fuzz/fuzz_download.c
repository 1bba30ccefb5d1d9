/* SPDX-License-Identifier: MIT */
/* fuzz_download.c — libFuzzer target for what the downloader reads from a server: header
 * lines (dl_resp_line), the check of an answer against the range asked for
 * (dl_answer_check), Content-Range and number parsing, URL display (dl_url_shown), and
 * the remote safetensors header with the shape checks (st_parse_header, dl_check_shapes).
 *
 * Input: 8-byte little-endian want_start, want_len, file_size, one flag byte (bit 0:
 * ranged, bit 1: full, bit 2: expect gpt2's shapes), then header lines up to an empty
 * line, then the bytes of a safetensors JSON header. Checked properties: every stored
 * header value is NUL-terminated printable ASCII; an accepted 206 names exactly the start
 * asked for and stays within the range; an accepted 200 skips to the start; every refusal
 * says why; a shown URL has no control byte, query or user information; no crash, leak
 * or out-of-bounds access anywhere. */
#include "dl_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void expect_printable(const char *s, size_t cap)
{
    size_t n = strnlen(s, cap);
    if (n == cap)
        abort();   /* not terminated */
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
            abort();
}

static void check_resp(const dl_resp *r)
{
    const char *f[] = {r->commit, r->linked_etag, r->etag, r->linked_size, r->content_length,
                       r->content_range, r->error_code, r->error_message, r->retry_after,
                       r->content_encoding};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        expect_printable(f[i], DL_HV);
}

static void check_answer(const dl_resp *r, uint64_t start, uint64_t len, uint64_t fsize, int ranged)
{
    char why[256];
    uint64_t skip = 12345;
    why[0] = '\0';
    int rc = dl_answer_check(r, ranged, start, len, fsize, &skip, why, sizeof why);
    if (rc != 0) {
        if ((rc != DL_E_PROTOCOL && rc != DL_E_CHANGED) || !why[0])
            abort();
        return;
    }
    if (r->status == 206) {
        uint64_t a, b, total;
        int has_total;
        if (!ranged || dl_parse_content_range(r->content_range, &a, &b, &total, &has_total) != 0 ||
            a != start || b - a >= len || skip != 0)
            abort();
    } else if (skip != start) {
        abort();
    }
}

static void check_url(const char *s, size_t n)
{
    char *u = malloc(n + 1), out[512];
    if (!u)
        return;
    memcpy(u, s, n);
    u[n] = '\0';
    dl_url_shown(u, out, sizeof out);
    expect_printable(out, sizeof out);
    if (strchr(out, '?') || strchr(out, '#'))
        abort();
    /* when it starts with scheme://, what follows up to the path has no user information */
    const char *sch = strstr(out, "://");
    if (sch && (size_t)(sch - out) < strcspn(out, "/") && memchr(sch + 3, '@', strcspn(sch + 3, "/")))
        abort();
    free(u);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 25)
        return 0;
    uint64_t start = le64(data), len = le64(data + 8), fsize = le64(data + 16) & ((1ull << 40) - 1);
    int flags = data[24];
    const char *p = (const char *)data + 25, *end = (const char *)data + size;

    /* header lines, as libcurl hands them, up to the blank one */
    dl_resp r;
    memset(&r, 0, sizeof r);
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
        check_url(p, n);
        int k = dl_resp_line(&r, p, n);
        check_resp(&r);
        p += n;
        if (k == DL_LINE_END || k == DL_LINE_TOO_LONG)
            break;
    }
    check_answer(&r, start, len, fsize, flags & 1);
    uint64_t a, b, total, v;
    int has_total;
    if (dl_parse_content_range(r.content_range, &a, &b, &total, &has_total) == 0 &&
        (b < a || (has_total && b >= total)))
        abort();
    (void)dl_parse_u64(r.content_length, &v);
    char et[DL_HV];
    dl_unquote_etag(r.etag, et, sizeof et);
    expect_printable(et, sizeof et);

    /* the rest: a remote safetensors header */
    size_t hn = (size_t)(end - p);
    st_file *st = NULL;
    g2e_err e;
    if (hn > 0 && st_parse_header(&st, (const uint8_t *)p, hn, fsize, &e) == 0) {
        const st_tensor *wte = st_find(st, "wte.weight"), *wpe = st_find(st, "wpe.weight");
        if (wte && wpe) {
            dl_opts o;
            memset(&o, 0, sizeof o);
            o.full = (flags >> 1) & 1;
            if (flags & 4) {
                o.n_vocab = 50257;
                o.n_ctx = 1024;
                o.n_embd = 768;
                o.n_layer = 12;
            }
            g2e_clear(&e);
            int rc = dl_check_shapes(&o, 8 + hn + fsize, st, wte, wpe, "fuzz", &e);
            if (rc != 0 && (rc != DL_E_SHAPE || !e.msg[0]))
                abort();
        }
        st_close(st);
    }
    return 0;
}
