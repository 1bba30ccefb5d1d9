/* SPDX-License-Identifier: MIT */
/* npy.c — NumPy .npy writing (float32) and reading (float32/float64); see npy.h.
 *
 * The writer reproduces numpy.save's bytes: besides the padding to 64 bytes that the
 * format requires, numpy (since 1.23) leaves room after the dict for the first axis
 * to grow to 21 digits, and pads a header that is already aligned by a whole extra
 * 64 bytes. Matching that keeps our files byte-identical to numpy's, which the tests
 * check. The reader is a small recursive-descent parser for the one dict literal the
 * format allows; it accepts any key order and either quote style, nothing else.
 */
#include "npy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC_LEN 6
#define ALIGN 64
#define GROWTH_DIGITS 21

static const unsigned char MAGIC[MAGIC_LEN] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

static int host_is_le(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

static int mul_ok(uint64_t a, uint64_t b, uint64_t *out)
{
    if (a != 0 && b > UINT64_MAX / a)
        return 0;
    *out = a * b;
    return 1;
}

/* Product of the shape, checked; 0 if any dimension is 0. */
static int shape_count(const size_t *shape, int ndim, uint64_t *count)
{
    uint64_t n = 1;
    for (int i = 0; i < ndim; i++)
        if (shape[i] == 0) {
            *count = 0;
            return 1;
        }
    for (int i = 0; i < ndim; i++)
        if (!mul_ok(n, (uint64_t)shape[i], &n))
            return 0;
    *count = n;
    return 1;
}

int npy_header_f32(const size_t *shape, int ndim, unsigned char *buf, size_t cap,
                   size_t *len, g2e_err *err)
{
    if (!shape || ndim < 1 || ndim > NPY_MAX_DIMS)
        return g2e_fail(err, NPY_E_SHAPE, "npy: %d dimensions; 1 to %d are supported", ndim,
                        NPY_MAX_DIMS);
    uint64_t count, bytes;
    if (!shape_count(shape, ndim, &count) || !mul_ok(count, 4, &bytes) || bytes > (uint64_t)SIZE_MAX)
        return g2e_fail(err, NPY_E_SHAPE, "npy: the array's size in bytes overflows");

    char dict[NPY_HEADER_MAX];
    size_t n = 0;
    int k = snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': (");
    n = (size_t)k;
    size_t first_digits = 0;
    for (int i = 0; i < ndim; i++) {
        k = snprintf(dict + n, sizeof dict - n, "%s%llu", i ? ", " : "",
                     (unsigned long long)shape[i]);
        if (i == 0)
            first_digits = (size_t)k;
        n += (size_t)k;
    }
    k = snprintf(dict + n, sizeof dict - n, "%s), }", ndim == 1 ? "," : "");
    n += (size_t)k;
    /* room for shape[0] to grow to 21 digits, as numpy leaves it */
    size_t growth = first_digits < GROWTH_DIGITS ? GROWTH_DIGITS - first_digits : 0;
    size_t hlen = n + growth + 1;                       /* + the final '\n' */
    size_t pad = ALIGN - ((MAGIC_LEN + 2 + 2 + hlen) % ALIGN);
    size_t total = MAGIC_LEN + 4 + hlen + pad;
    if (total > cap)
        return g2e_fail(err, G2E_EINVAL, "npy: header needs %zu bytes, buffer has %zu", total, cap);
    size_t field = hlen + pad;                         /* fits: dict < 256 bytes */
    memcpy(buf, MAGIC, MAGIC_LEN);
    buf[6] = 1;
    buf[7] = 0;
    buf[8] = (unsigned char)(field & 0xff);
    buf[9] = (unsigned char)(field >> 8);
    memcpy(buf + 10, dict, n);
    memset(buf + 10 + n, ' ', growth + pad);
    buf[total - 1] = '\n';
    *len = total;
    return 0;
}

int npy_writer_begin(npy_writer *w, FILE *f, const size_t *shape, int ndim, g2e_err *err)
{
    unsigned char hdr[NPY_HEADER_MAX];
    size_t len = 0;
    memset(w, 0, sizeof *w);
    int rc = npy_header_f32(shape, ndim, hdr, sizeof hdr, &len, err);
    if (rc)
        return rc;
    uint64_t count;
    shape_count(shape, ndim, &count);   /* checked by npy_header_f32 */
    if (fwrite(hdr, 1, len, f) != len)
        return g2e_fail(err, NPY_E_IO, "npy: writing the header failed: %s", strerror(errno));
    w->f = f;
    w->total = count;
    w->written = 0;
    return 0;
}

int npy_writer_put(npy_writer *w, const float *v, size_t n, g2e_err *err)
{
    if (!w->f)
        return g2e_fail(err, NPY_E_STATE, "npy: put before begin");
    if (n > w->total - w->written)
        return g2e_fail(err, NPY_E_STATE, "npy: %zu more values would exceed the shape (%llu of %llu written)",
                        n, (unsigned long long)w->written, (unsigned long long)w->total);
    if (host_is_le()) {
        if (n && fwrite(v, sizeof *v, n, w->f) != n)
            return g2e_fail(err, NPY_E_IO, "npy: writing data failed: %s", strerror(errno));
    } else {
        for (size_t i = 0; i < n; i++) {
            uint32_t u;
            memcpy(&u, &v[i], 4);
            unsigned char b[4] = {(unsigned char)u, (unsigned char)(u >> 8),
                                  (unsigned char)(u >> 16), (unsigned char)(u >> 24)};
            if (fwrite(b, 1, 4, w->f) != 4)
                return g2e_fail(err, NPY_E_IO, "npy: writing data failed: %s", strerror(errno));
        }
    }
    w->written += n;
    return 0;
}

int npy_writer_end(npy_writer *w, g2e_err *err)
{
    if (!w->f)
        return g2e_fail(err, NPY_E_STATE, "npy: end before begin");
    if (w->written != w->total)
        return g2e_fail(err, NPY_E_STATE, "npy: %llu values written, the shape needs %llu",
                        (unsigned long long)w->written, (unsigned long long)w->total);
    return 0;
}

int npy_write_f32(FILE *f, const float *data, const size_t *shape, int ndim, g2e_err *err)
{
    npy_writer w;
    int rc = npy_writer_begin(&w, f, shape, ndim, err);
    if (rc)
        return rc;
    rc = npy_writer_put(&w, data, (size_t)w.total, err);
    if (rc)
        return rc;
    return npy_writer_end(&w, err);
}

/* ---- reading ---------------------------------------------------------------------- */

typedef struct parser {
    const char *s, *end, *start;
    g2e_err *err;
} parser;

static void skip_ws(parser *p)
{
    while (p->s < p->end && (*p->s == ' ' || *p->s == '\t'))
        p->s++;
}

static int bad(parser *p, const char *what)
{
    return g2e_fail(p->err, NPY_E_HEADER, "npy: malformed header at byte %td: %s",
                    p->s - p->start, what);
}

static int expect(parser *p, char c, const char *what)
{
    skip_ws(p);
    if (p->s >= p->end || *p->s != c)
        return bad(p, what);
    p->s++;
    return 0;
}

/* A quoted string of printable ASCII without escapes into out[cap]. */
static int parse_str(parser *p, char *out, size_t cap)
{
    skip_ws(p);
    if (p->s >= p->end || (*p->s != '\'' && *p->s != '"'))
        return bad(p, "expected a quoted string");
    char q = *p->s++;
    size_t n = 0;
    while (p->s < p->end && *p->s != q) {
        unsigned char c = (unsigned char)*p->s;
        if (c < 0x20 || c > 0x7e || c == '\\')
            return bad(p, "unexpected character in a string");
        if (n + 1 >= cap)
            return bad(p, "string too long");
        out[n++] = (char)c;
        p->s++;
    }
    if (p->s >= p->end)
        return bad(p, "unterminated string");
    p->s++;
    out[n] = '\0';
    return 0;
}

static int parse_bool(parser *p, int *v)
{
    skip_ws(p);
    size_t left = (size_t)(p->end - p->s);
    if (left >= 4 && memcmp(p->s, "True", 4) == 0) {
        p->s += 4;
        *v = 1;
    } else if (left >= 5 && memcmp(p->s, "False", 5) == 0) {
        p->s += 5;
        *v = 0;
    } else {
        return bad(p, "fortran_order must be True or False");
    }
    return 0;
}

static int parse_shape(parser *p, size_t *shape, int *ndim)
{
    if (expect(p, '(', "shape must be a tuple"))
        return NPY_E_HEADER;
    int n = 0, trailing_comma = 0;
    for (;;) {
        skip_ws(p);
        if (p->s < p->end && *p->s == ')') {
            p->s++;
            break;
        }
        if (p->s >= p->end || *p->s < '0' || *p->s > '9')
            return bad(p, "expected a dimension (a non-negative integer)");
        uint64_t v = 0;
        while (p->s < p->end && *p->s >= '0' && *p->s <= '9') {
            uint64_t d = (uint64_t)(*p->s - '0');
            if (v > (UINT64_MAX - d) / 10 || v * 10 + d > (uint64_t)SIZE_MAX)
                return g2e_fail(p->err, NPY_E_SHAPE, "npy: a dimension does not fit in size_t");
            v = v * 10 + d;
            p->s++;
        }
        if (n >= NPY_MAX_DIMS)
            return g2e_fail(p->err, NPY_E_SHAPE, "npy: more than %d dimensions", NPY_MAX_DIMS);
        shape[n++] = (size_t)v;
        skip_ws(p);
        trailing_comma = 0;
        if (p->s < p->end && *p->s == ',') {
            p->s++;
            trailing_comma = 1;
        } else if (p->s < p->end && *p->s == ')') {
            p->s++;
            break;
        } else {
            return bad(p, "expected ',' or ')' in the shape");
        }
    }
    if (n == 1 && !trailing_comma)
        return bad(p, "a one-dimensional shape needs a trailing comma, as in (5,)");
    if (n == 0)
        return g2e_fail(p->err, NPY_E_SHAPE, "npy: 0-dimensional arrays are not supported");
    *ndim = n;
    return 0;
}

static int parse_dict(parser *p, char *descr, size_t dcap, int *fortran, size_t *shape, int *ndim)
{
    int have_descr = 0, have_fortran = 0, have_shape = 0, rc;
    if (expect(p, '{', "expected '{'"))
        return NPY_E_HEADER;
    for (;;) {
        skip_ws(p);
        if (p->s < p->end && *p->s == '}') {
            p->s++;
            break;
        }
        char key[32];
        if ((rc = parse_str(p, key, sizeof key)))
            return rc;
        if (expect(p, ':', "expected ':' after a key"))
            return NPY_E_HEADER;
        if (strcmp(key, "descr") == 0) {
            if (have_descr++)
                return bad(p, "duplicate key 'descr'");
            if ((rc = parse_str(p, descr, dcap)))
                return rc;
        } else if (strcmp(key, "fortran_order") == 0) {
            if (have_fortran++)
                return bad(p, "duplicate key 'fortran_order'");
            if ((rc = parse_bool(p, fortran)))
                return rc;
        } else if (strcmp(key, "shape") == 0) {
            if (have_shape++)
                return bad(p, "duplicate key 'shape'");
            if ((rc = parse_shape(p, shape, ndim)))
                return rc;
        } else {
            return bad(p, "unknown key (only 'descr', 'fortran_order', 'shape' are allowed)");
        }
        skip_ws(p);
        if (p->s < p->end && *p->s == ',') {
            p->s++;
            continue;
        }
        if (p->s < p->end && *p->s == '}') {
            p->s++;
            break;
        }
        return bad(p, "expected ',' or '}'");
    }
    if (!have_descr || !have_fortran || !have_shape)
        return bad(p, "the dict must have the keys 'descr', 'fortran_order' and 'shape'");
    /* only padding may follow: spaces, then the final newline */
    while (p->s < p->end && *p->s == ' ')
        p->s++;
    if (p->s + 1 != p->end || *p->s != '\n')
        return bad(p, "the header must end with space padding and one '\\n'");
    return 0;
}

static uint64_t le_u64(const unsigned char *b, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = (v << 8) | b[i];
    return v;
}

int npy_parse(const void *buf, size_t len, npy_array *out, g2e_err *err)
{
    const unsigned char *b = buf;
    memset(out, 0, sizeof *out);
    if (len < MAGIC_LEN || memcmp(b, MAGIC, MAGIC_LEN) != 0)
        return g2e_fail(err, NPY_E_MAGIC, "npy: not a .npy file (no \\x93NUMPY magic)");
    if (len < 8)
        return g2e_fail(err, NPY_E_VERSION, "npy: file ends inside the version");
    int major = b[6], minor = b[7];
    if (minor != 0 || major < 1 || major > 3)
        return g2e_fail(err, NPY_E_VERSION, "npy: format version %d.%d; 1.0, 2.0 and 3.0 are supported",
                        major, minor);
    size_t lsize = major == 1 ? 2 : 4;
    if (len < 8 + lsize)
        return g2e_fail(err, NPY_E_HEADER, "npy: file ends inside the header length");
    uint64_t hlen = le_u64(b + 8, (int)lsize);
    size_t pre = 8 + lsize;
    if (hlen > len - pre)
        return g2e_fail(err, NPY_E_HEADER, "npy: header length %llu exceeds the file (%zu bytes)",
                        (unsigned long long)hlen, len);
    if (hlen == 0)
        return g2e_fail(err, NPY_E_HEADER, "npy: empty header");

    parser p = {(const char *)b + pre, (const char *)b + pre + hlen, (const char *)b, err};
    char descr[32];
    int fortran = 0, ndim = 0;
    size_t shape[NPY_MAX_DIMS] = {0};
    int rc = parse_dict(&p, descr, sizeof descr, &fortran, shape, &ndim);
    if (rc)
        return rc;
    int item;
    if (strcmp(descr, "<f4") == 0)
        item = 4;
    else if (strcmp(descr, "<f8") == 0)
        item = 8;
    else
        return g2e_fail(err, NPY_E_DTYPE, "npy: dtype '%s'; only little-endian float32 '<f4' "
                        "and float64 '<f8' are supported", descr);
    if (fortran)
        return g2e_fail(err, NPY_E_ORDER, "npy: Fortran-order arrays are not supported "
                        "(save with numpy.ascontiguousarray)");
    uint64_t count, bytes;
    if (!shape_count(shape, ndim, &count) || !mul_ok(count, (uint64_t)item, &bytes) ||
        count > SIZE_MAX / sizeof(double))
        return g2e_fail(err, NPY_E_SHAPE, "npy: the shape's size overflows");
    size_t have = len - pre - (size_t)hlen;
    if (bytes > have)
        return g2e_fail(err, NPY_E_TRUNCATED, "npy: the shape needs %llu data bytes, the file has %zu",
                        (unsigned long long)bytes, have);
    if (bytes < have)
        return g2e_fail(err, NPY_E_TRAILING, "npy: %zu bytes after the %llu data bytes the shape needs",
                        have - (size_t)bytes, (unsigned long long)bytes);
    double *data = malloc(count ? (size_t)count * sizeof *data : 1);
    if (!data)
        return g2e_fail(err, G2E_ENOMEM, "npy: out of memory for %llu values", (unsigned long long)count);
    const unsigned char *d = b + pre + hlen;
    for (size_t i = 0; i < (size_t)count; i++) {
        if (item == 4) {
            uint32_t u = (uint32_t)le_u64(d + 4 * i, 4);
            float f;
            memcpy(&f, &u, 4);
            data[i] = f;
        } else {
            uint64_t u = le_u64(d + 8 * i, 8);
            memcpy(&data[i], &u, 8);
        }
    }
    out->ndim = ndim;
    memcpy(out->shape, shape, sizeof shape);
    out->count = (size_t)count;
    out->dtype = item == 4 ? NPY_F4 : NPY_F8;
    out->data = data;
    return 0;
}

/* Reads exactly n bytes at buf from fd (a regular file): 0, or -1 with errno (EIO at an
 * early end: the file shrank). */
static int read_full(int fd, unsigned char *buf, size_t n)
{
    for (size_t got = 0; got < n;) {
        ssize_t k = read(fd, buf + got, n - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            if (k == 0)
                errno = EIO;
            return -1;
        }
        got += (size_t)k;
    }
    return 0;
}

static int read_file(const char *path, int fd, npy_array *out, g2e_err *err)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return g2e_fail(err, NPY_E_IO, "npy: cannot read '%s': %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return g2e_fail(err, NPY_E_IO, "npy: cannot read '%s': not a regular file (%s)", path,
                        S_ISFIFO(st.st_mode) ? g2e_tr("a FIFO") : S_ISDIR(st.st_mode) ? g2e_tr("a directory")
                        : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? g2e_tr("a device") : g2e_tr("a socket"));
    if ((uint64_t)st.st_size > SIZE_MAX / 2)
        return g2e_fail(err, G2E_ENOMEM, "npy: '%s' is too large", path);
    size_t len = (size_t)st.st_size;
    unsigned char *buf = malloc(len ? len : 1);
    if (!buf)
        return g2e_fail(err, G2E_ENOMEM, "npy: out of memory reading '%s'", path);
    /* the magic first: a file that is not .npy is refused before the rest is read */
    size_t head = len < MAGIC_LEN ? len : MAGIC_LEN;
    int rc;
    if (read_full(fd, buf, head) != 0)
        rc = g2e_fail(err, NPY_E_IO, "npy: reading '%s' failed: %s", path, strerror(errno));
    else if (head < MAGIC_LEN || memcmp(buf, MAGIC, MAGIC_LEN) != 0)
        rc = npy_parse(buf, head, out, err);
    else if (read_full(fd, buf + head, len - head) != 0)
        rc = g2e_fail(err, NPY_E_IO, "npy: reading '%s' failed: %s", path, strerror(errno));
    else
        rc = npy_parse(buf, len, out, err);
    free(buf);
    return rc;
}

int npy_read_file(const char *path, npy_array *out, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    /* O_NONBLOCK: a FIFO is refused by read_file, not waited on here */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return g2e_fail(err, NPY_E_IO, "npy: cannot open '%s': %s", path, strerror(errno));
    int rc = read_file(path, fd, out, err);
    close(fd);
    if (rc && err && rc != NPY_E_IO && rc != G2E_ENOMEM) {
        /* name the file in the message */
        char m[G2E_ERR_MSG_MAX];
        snprintf(m, sizeof m, "%s", err->msg);
        g2e_fail(err, rc, "%s: %s", path, m);
    }
    return rc;
}

void npy_array_free(npy_array *a)
{
    if (!a)
        return;
    free(a->data);
    memset(a, 0, sizeof *a);
}
