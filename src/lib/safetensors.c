/* SPDX-License-Identifier: MIT */
/* safetensors.c — the strict safetensors reader (see safetensors.h).
 *
 * Validation happens once, at open: every number in the header is checked with
 * overflow-checked 64-bit arithmetic, so that st_read_row_f32 can then index the data
 * section without re-checking anything but the row. The header is parsed by cJSON, but
 * cJSON alone is too lenient for this format, so three passes of our own surround it:
 *   - before: strict UTF-8, and no control byte at all (cJSON treats every byte <= 0x20,
 *     NUL included, as whitespace; JSON allows only space, tab, LF and CR);
 *   - after: only JSON whitespace may follow the object (cJSON stops at the object's end);
 *   - numbers: cJSON keeps only a double, which cannot hold every 64-bit offset and
 *     accepts 1.0, 1e3 and 01. We re-read each number token from the text ourselves (the
 *     k-th number token is the k-th number node in document order) and accept only plain
 *     non-negative integers that fit in 64 bits, exactly.
 * Deliberately left out: writing files; converting dtypes other than F32/F16/BF16; any
 * cache of converted rows (callers own their buffers).
 */
#include "safetensors.h"
#include "text.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct {
    const char *name;
    size_t size;
} DTYPES[ST_DTYPE_COUNT] = {
    [ST_BOOL] = {"BOOL", 1}, [ST_U8] = {"U8", 1},   [ST_I8] = {"I8", 1},
    [ST_F8_E5M2] = {"F8_E5M2", 1}, [ST_F8_E4M3] = {"F8_E4M3", 1},
    [ST_I16] = {"I16", 2},   [ST_U16] = {"U16", 2}, [ST_F16] = {"F16", 2},
    [ST_BF16] = {"BF16", 2}, [ST_I32] = {"I32", 4}, [ST_U32] = {"U32", 4},
    [ST_F32] = {"F32", 4},   [ST_F64] = {"F64", 8}, [ST_I64] = {"I64", 8},
    [ST_U64] = {"U64", 8},
};

const char *st_dtype_name(st_dtype d)
{
    return (unsigned)d < ST_DTYPE_COUNT ? DTYPES[d].name : "?";
}

size_t st_dtype_size(st_dtype d)
{
    return (unsigned)d < ST_DTYPE_COUNT ? DTYPES[d].size : 0;
}

int st_dtype_from_name(const char *s)
{
    for (int i = 0; s && i < ST_DTYPE_COUNT; i++)
        if (strcmp(DTYPES[i].name, s) == 0)
            return i;
    return -1;
}

/* Validation guarantees both products fit in 64 bits for every tensor of an st_file. */
uint64_t st_tensor_numel(const st_tensor *t)
{
    uint64_t n = 1;
    for (int i = 0; i < t->ndim; i++)
        n *= t->shape[i];
    return n;
}

uint64_t st_tensor_nbytes(const st_tensor *t)
{
    return st_tensor_numel(t) * st_dtype_size(t->dtype);
}

/* Tensor names may hold any character through JSON escapes ("a\\nb"), and messages must
 * stay one line: control bytes in a message become '?'. */
static void one_line(g2e_err *err)
{
    if (!err) return;
    for (char *p = err->msg; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7F) *p = '?';
}

/* ---------------------------------------------------------------------------------------
 * Header checks that run before cJSON sees the bytes. */

/* Offset of the first byte that breaks strict UTF-8 (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF), or len if all is well. */
static size_t utf8_bad_offset(const uint8_t *s, size_t len)
{
    return text_validate((const char *)s, len);
}

static int is_json_ws(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* One number token of the header text, read exactly. */
typedef struct numtok {
    uint64_t value;
    int plain;       /* 1: a non-negative integer without sign, fraction, exponent or leading 0 */
    int overflow;    /* plain digits, but more than 64 bits */
    size_t pos, len; /* where in the header (for messages) */
} numtok;

/* Lists the number tokens of text[0..len) in order. text is JSON cJSON has accepted, so
 * a token outside strings starting with '-' or a digit is a number, and it runs over the
 * same characters cJSON's parse_number consumes. */
static int scan_numbers(const char *text, size_t len, numtok **out, size_t *n_out)
{
    size_t n = 0, cap = 0;
    numtok *v = NULL;
    size_t i = 0;
    while (i < len) {
        char c = text[i];
        if (c == '"') {
            for (i++; i < len && text[i] != '"'; i++)
                if (text[i] == '\\') i++;
            i++;
            continue;
        }
        if (c != '-' && (c < '0' || c > '9')) {
            i++;
            continue;
        }
        size_t start = i;
        while (i < len && strchr("0123456789+-.eE", text[i]) && text[i] != '\0')
            i++;
        numtok t = {0, 1, 0, start, i - start};
        if (text[start] == '0' && t.len > 1) t.plain = 0;
        for (size_t k = start; k < i && t.plain; k++) {
            if (text[k] < '0' || text[k] > '9') {
                t.plain = 0;
                break;
            }
            unsigned d = (unsigned)(text[k] - '0');
            if (t.value > (UINT64_MAX - d) / 10) t.overflow = 1;
            else t.value = t.value * 10 + d;
        }
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 64;
            numtok *nv = realloc(v, nc * sizeof *nv);
            if (!nv) {
                free(v);
                return G2E_ENOMEM;
            }
            v = nv;
            cap = nc;
        }
        v[n++] = t;
    }
    *out = v;
    *n_out = n;
    return 0;
}

/* Stores in each number node's valueint the index of its token (document order). cJSON
 * does not need valueint after parsing, and this keeps the link without a side table. */
static void number_index(cJSON *node, size_t *k)
{
    for (; node; node = node->next) {
        if (cJSON_IsNumber(node)) {
            node->valueint = (int)*k;
            (*k)++;
        }
        if (node->child) number_index(node->child, k);
    }
}

/* ---------------------------------------------------------------------------------------
 * Tensor entries. */

typedef struct parse_ctx {
    const char *text;
    const numtok *nums;
    size_t n_nums;
    g2e_err *err;
} parse_ctx;

/* Reads a JSON number node as an exact u64. Returns 0, or 1 with *why describing it. */
static int node_u64(const parse_ctx *c, const cJSON *node, uint64_t *v, const char **why,
                    char *tok, size_t toklen)
{
    tok[0] = '\0';
    if (!cJSON_IsNumber(node)) {
        *why = "not a number";
        return 1;
    }
    if (node->valueint < 0 || (size_t)node->valueint >= c->n_nums) {
        *why = "unreadable";
        return 1;
    }
    const numtok *t = &c->nums[node->valueint];
    size_t shown = t->len < toklen - 1 ? t->len : toklen - 1;
    memcpy(tok, c->text + t->pos, shown);
    tok[shown] = '\0';
    if (!t->plain) {
        *why = "not a plain non-negative integer";
        return 1;
    }
    if (t->overflow) {
        *why = "larger than 2^64-1";
        return 1;
    }
    *v = t->value;
    return 0;
}

static int parse_tensor(const parse_ctx *c, const cJSON *e, st_tensor *t)
{
    const char *name = e->string;
    g2e_err *err = c->err;
    if (!cJSON_IsObject(e))
        return g2e_fail(err, ST_E_TENSOR_NOT_OBJECT,
                        "tensor '%s': entry is not an object of dtype, shape, data_offsets", name);
    const cJSON *dt = NULL, *sh = NULL, *off = NULL;
    for (const cJSON *k = e->child; k; k = k->next) {
        const cJSON **slot = strcmp(k->string, "dtype") == 0          ? &dt
                             : strcmp(k->string, "shape") == 0        ? &sh
                             : strcmp(k->string, "data_offsets") == 0 ? &off
                                                                      : NULL;
        if (!slot)
            return g2e_fail(err, ST_E_TENSOR_NOT_OBJECT,
                            "tensor '%s': unexpected key '%s' (allowed: dtype, shape, data_offsets)",
                            name, k->string);
        if (*slot)
            return g2e_fail(err, ST_E_TENSOR_NOT_OBJECT, "tensor '%s': key '%s' appears twice",
                            name, k->string);
        *slot = k;
    }
    if (!dt || !sh || !off)
        return g2e_fail(err, ST_E_TENSOR_NOT_OBJECT, "tensor '%s': missing key '%s'", name,
                        !dt ? "dtype" : !sh ? "shape" : "data_offsets");

    if (!cJSON_IsString(dt))
        return g2e_fail(err, ST_E_DTYPE, "tensor '%s': dtype is not a string", name);
    int d = st_dtype_from_name(dt->valuestring);
    if (d < 0)
        return g2e_fail(err, ST_E_DTYPE, "tensor '%s': unknown dtype '%.40s'", name,
                        dt->valuestring);
    t->dtype = (st_dtype)d;

    char tok[48];
    const char *why = NULL;
    if (!cJSON_IsArray(sh))
        return g2e_fail(err, ST_E_SHAPE, "tensor '%s': shape is not an array", name);
    int ndim = cJSON_GetArraySize(sh);
    if (ndim > ST_MAX_NDIM)
        return g2e_fail(err, ST_E_SHAPE, "tensor '%s': shape has %d dimensions (at most %d)",
                        name, ndim, ST_MAX_NDIM);
    t->ndim = 0;
    for (const cJSON *x = sh->child; x; x = x->next) {
        if (node_u64(c, x, &t->shape[t->ndim], &why, tok, sizeof tok))
            return g2e_fail(err, ST_E_SHAPE, "tensor '%s': shape dimension %d '%s' is %s", name,
                            t->ndim, tok, why);
        t->ndim++;
    }

    if (!cJSON_IsArray(off) || cJSON_GetArraySize(off) != 2)
        return g2e_fail(err, ST_E_OFFSETS, "tensor '%s': data_offsets is not [begin, end]", name);
    if (node_u64(c, off->child, &t->begin, &why, tok, sizeof tok))
        return g2e_fail(err, ST_E_OFFSETS, "tensor '%s': data_offsets begin '%s' is %s", name,
                        tok, why);
    if (node_u64(c, off->child->next, &t->end, &why, tok, sizeof tok))
        return g2e_fail(err, ST_E_OFFSETS, "tensor '%s': data_offsets end '%s' is %s", name, tok,
                        why);
    if (t->begin > t->end)
        return g2e_fail(err, ST_E_OFFSETS, "tensor '%s': data_offsets begin %llu > end %llu",
                        name, (unsigned long long)t->begin, (unsigned long long)t->end);

    uint64_t n = 1;
    for (int i = 0; i < t->ndim; i++)
        if (__builtin_mul_overflow(n, t->shape[i], &n))
            return g2e_fail(err, ST_E_OVERFLOW,
                            "tensor '%s': the product of its shape overflows 64 bits at dimension %d (%llu)",
                            name, i, (unsigned long long)t->shape[i]);
    uint64_t nbytes;
    if (__builtin_mul_overflow(n, (uint64_t)DTYPES[d].size, &nbytes))
        return g2e_fail(err, ST_E_OVERFLOW,
                        "tensor '%s': %llu elements x %zu bytes (%s) overflows 64 bits", name,
                        (unsigned long long)n, DTYPES[d].size, DTYPES[d].name);
    if (t->end - t->begin != nbytes)
        return g2e_fail(err, ST_E_SIZE_MISMATCH,
                        "tensor '%s': data_offsets [%llu, %llu] span %llu bytes but %llu elements of %s need %llu",
                        name, (unsigned long long)t->begin, (unsigned long long)t->end,
                        (unsigned long long)(t->end - t->begin), (unsigned long long)n,
                        DTYPES[d].name, (unsigned long long)nbytes);
    t->name = strdup(name);
    if (!t->name) return g2e_fail(err, G2E_ENOMEM, "out of memory");
    return 0;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(((const st_tensor *)a)->name, ((const st_tensor *)b)->name);
}

static int cmp_offset(const void *a, const void *b)
{
    const st_tensor *x = a, *y = b;
    if (x->begin != y->begin) return x->begin < y->begin ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int parse_metadata(st_file *f, const cJSON *m, g2e_err *err)
{
    if (!cJSON_IsObject(m))
        return g2e_fail(err, ST_E_METADATA, "__metadata__ is not an object of string values");
    size_t n = (size_t)cJSON_GetArraySize(m);
    f->meta = calloc(n ? n : 1, sizeof *f->meta);
    if (!f->meta) return g2e_fail(err, G2E_ENOMEM, "out of memory");
    for (const cJSON *x = m->child; x; x = x->next) {
        if (!cJSON_IsString(x))
            return g2e_fail(err, ST_E_METADATA, "__metadata__ value of '%s' is not a string",
                            x->string);
        for (size_t i = 0; i < f->n_meta; i++)
            if (strcmp(f->meta[i].key, x->string) == 0)
                return g2e_fail(err, ST_E_DUPLICATE, "__metadata__ key '%s' appears twice",
                                x->string);
        st_meta *e = &f->meta[f->n_meta];
        e->key = strdup(x->string);
        e->value = strdup(x->valuestring);
        f->n_meta++;
        if (!e->key || !e->value) return g2e_fail(err, G2E_ENOMEM, "out of memory");
    }
    return 0;
}

static int parse_tree(st_file *f, const cJSON *root, const parse_ctx *c)
{
    g2e_err *err = c->err;
    int rc;
    size_t n = (size_t)cJSON_GetArraySize(root);
    f->tensors = calloc(n ? n : 1, sizeof *f->tensors);
    if (!f->tensors) return g2e_fail(err, G2E_ENOMEM, "out of memory");
    int seen_meta = 0;
    for (const cJSON *e = root->child; e; e = e->next) {
        if (strcmp(e->string, "__metadata__") == 0) {
            if (seen_meta++)
                return g2e_fail(err, ST_E_DUPLICATE, "'__metadata__' appears twice");
            if ((rc = parse_metadata(f, e, err))) return rc;
            continue;
        }
        if ((rc = parse_tensor(c, e, &f->tensors[f->n_tensors]))) return rc;
        f->n_tensors++;
    }

    /* cJSON keeps repeated keys as separate children: sort by name to find them. */
    if (f->n_tensors > 1) {
        qsort(f->tensors, f->n_tensors, sizeof *f->tensors, cmp_name);
        for (size_t i = 1; i < f->n_tensors; i++)
            if (strcmp(f->tensors[i - 1].name, f->tensors[i].name) == 0)
                return g2e_fail(err, ST_E_DUPLICATE, "tensor '%s' appears twice in the header",
                                f->tensors[i].name);
        qsort(f->tensors, f->n_tensors, sizeof *f->tensors, cmp_offset);
    }

    uint64_t at = 0;
    for (size_t i = 0; i < f->n_tensors; i++) {
        const st_tensor *t = &f->tensors[i];
        if (t->begin == at) {
            at = t->end;
            continue;
        }
        if (i == 0)
            return g2e_fail(err, ST_E_NOT_CONTIGUOUS,
                            "tensor '%s' is the first in the data section but begins at %llu, not 0",
                            t->name, (unsigned long long)t->begin);
        const st_tensor *p = &f->tensors[i - 1];
        return g2e_fail(err, ST_E_NOT_CONTIGUOUS,
                        "tensor '%s' begins at %llu but the previous tensor '%s' ends at %llu (%s of %llu bytes)",
                        t->name, (unsigned long long)t->begin, p->name, (unsigned long long)at,
                        t->begin > at ? g2e_tr("a hole") : g2e_tr("an overlap"),
                        (unsigned long long)(t->begin > at ? t->begin - at : at - t->begin));
    }
    if (f->data_len != at) {
        if (f->data_len < at)
            return g2e_fail(err, ST_E_DATA_LENGTH,
                            "data section is %llu bytes but the tensors end at %llu (truncated by %llu bytes)",
                            (unsigned long long)f->data_len, (unsigned long long)at,
                            (unsigned long long)(at - f->data_len));
        return g2e_fail(err, ST_E_DATA_LENGTH,
                        "data section is %llu bytes but the tensors end at %llu (%llu trailing bytes)",
                        (unsigned long long)f->data_len, (unsigned long long)at,
                        (unsigned long long)(f->data_len - at));
    }
    return 0;
}

int st_parse_header(st_file **out, const uint8_t *json, size_t json_len, uint64_t data_len,
                    g2e_err *err)
{
    int rc = 0;
    char *text = NULL;
    cJSON *root = NULL;
    numtok *nums = NULL;
    size_t n_nums = 0;
    st_file *f = NULL;

    if (!out || (!json && json_len))
        return g2e_fail(err, G2E_EINVAL, "st_parse_header: NULL argument");
    *out = NULL;
    if (json_len > ST_MAX_HEADER)
        return g2e_fail(err, ST_E_HEADER_TOO_LARGE, "header length %zu is over the limit of %llu",
                        json_len, (unsigned long long)ST_MAX_HEADER);
    size_t bad = utf8_bad_offset(json, json_len);
    if (bad < json_len)
        return g2e_fail(err, ST_E_HEADER_UTF8,
                        "header is not valid UTF-8: byte 0x%02x at header offset %zu", json[bad],
                        bad);
    /* Lexing strings exactly as JSON does (a quote opens, a backslash escapes the next
     * byte, a quote closes), since outside strings valid JSON has quotes nowhere else. */
    int in_str = 0;
    for (size_t i = 0; i < json_len; i++) {
        uint8_t c = json[i];
        if (c == 0)
            return g2e_fail(err, ST_E_HEADER_JSON,
                            "header has a NUL byte at header offset %zu (of %zu): NUL padding is not allowed, pad with spaces",
                            i, json_len);
        if (c < 0x20 && (in_str || !is_json_ws(c)))
            return g2e_fail(err, ST_E_HEADER_JSON,
                            "header has control byte 0x%02x at header offset %zu%s: not JSON", c,
                            i, in_str ? " inside a string" : "");
        if (in_str && c == '\\' && json_len - i >= 6 && memcmp(json + i + 1, "u0000", 5) == 0)
            return g2e_fail(err, ST_E_HEADER_JSON,
                            "header has an escaped NUL (\\u0000) at header offset %zu: C strings cannot hold it",
                            i);
        if (in_str && c == '\\') i++;
        else if (c == '"') in_str = !in_str;
    }

    /* cJSON silently skips a UTF-8 byte order mark; JSON (RFC 8259) and the reference
     * reader do not. */
    if (json_len >= 3 && json[0] == 0xEF && json[1] == 0xBB && json[2] == 0xBF)
        return g2e_fail(err, ST_E_HEADER_JSON,
                        "header is not valid JSON: it starts with a UTF-8 byte order mark");

    /* cJSON gets a NUL-terminated copy: no parser can then read past the header, whatever
     * the bytes, and the mapping is never written. */
    text = malloc(json_len + 1);
    if (!text) return g2e_fail(err, G2E_ENOMEM, "out of memory (header of %zu bytes)", json_len);
    if (json_len) memcpy(text, json, json_len);
    text[json_len] = '\0';

    const char *end = NULL;
    root = cJSON_ParseWithLengthOpts(text, json_len, &end, 0);
    if (!root) {
        size_t at = end && end >= text ? (size_t)(end - text) : 0;
        rc = g2e_fail(err, ST_E_HEADER_JSON, "header is not valid JSON (error near header offset %zu of %zu)",
                      at, json_len);
        goto fail;
    }
    size_t stop = (size_t)(end - text);
    for (size_t i = stop; i < json_len; i++)
        if (!is_json_ws((uint8_t)text[i])) {
            rc = g2e_fail(err, ST_E_HEADER_JSON,
                          "header has non-whitespace byte 0x%02x at offset %zu after the JSON value",
                          (uint8_t)text[i], i);
            goto fail;
        }
    if (!cJSON_IsObject(root)) {
        rc = g2e_fail(err, ST_E_HEADER_NOT_OBJECT, "header JSON is not an object");
        goto fail;
    }

    if ((rc = scan_numbers(text, stop, &nums, &n_nums))) {
        g2e_fail(err, rc, "out of memory");
        goto fail;
    }
    size_t k = 0;
    number_index(root->child, &k);
    if (k != n_nums) { /* the two readings of the text disagree: refuse rather than guess */
        rc = g2e_fail(err, ST_E_HEADER_JSON, "header numbers could not be read (%zu vs %zu)", k,
                      n_nums);
        goto fail;
    }

    f = calloc(1, sizeof *f);
    if (!f) {
        rc = g2e_fail(err, G2E_ENOMEM, "out of memory");
        goto fail;
    }
    f->fd = -1;
    f->header_len = json_len;
    f->data_start = 8 + (uint64_t)json_len;
    f->data_len = data_len;
    parse_ctx c = {text, nums, n_nums, err};
    if ((rc = parse_tree(f, root, &c))) goto fail;

    cJSON_Delete(root);
    free(text);
    free(nums);
    *out = f;
    return 0;
fail:
    one_line(err);
    cJSON_Delete(root);
    free(text);
    free(nums);
    st_close(f);
    return rc;
}

int st_parse_buffer(st_file **out, const uint8_t *buf, size_t len, g2e_err *err)
{
    if (!out || (!buf && len))
        return g2e_fail(err, G2E_EINVAL, "st_parse_buffer: NULL argument");
    *out = NULL;
    if (len < 8)
        return g2e_fail(err, ST_E_TOO_SHORT,
                        "file is %zu bytes, shorter than the 8-byte header length", len);
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--)
        n = n << 8 | buf[i];
    if (n > ST_MAX_HEADER)
        return g2e_fail(err, ST_E_HEADER_TOO_LARGE, "header length %llu is over the limit of %llu",
                        (unsigned long long)n, (unsigned long long)ST_MAX_HEADER);
    if (n > len - 8)
        return g2e_fail(err, ST_E_HEADER_PAST_END,
                        "header length %llu runs past the end of the file (%zu bytes, room for %zu)",
                        (unsigned long long)n, len, len - 8);
    st_file *f = NULL;
    int rc = st_parse_header(&f, buf + 8, (size_t)n, (uint64_t)(len - 8 - (size_t)n), err);
    if (rc) return rc;
    f->data = buf + 8 + n;
    for (size_t i = 0; i < f->n_tensors; i++)
        f->tensors[i].bytes = f->data + f->tensors[i].begin;
    *out = f;
    return 0;
}

static int open_file(st_file **out, const char *path, g2e_err *err);

int st_open(st_file **out, const char *path, g2e_err *err)
{
    int rc = open_file(out, path, err);
    if (rc) one_line(err);
    return rc;
}

/* Opens path read-only as a regular file of at least 8 bytes; *fd and *size, or an error. */
static int open_regular(const char *path, int *fd, uint64_t *size, g2e_err *err)
{
    /* O_NONBLOCK: a FIFO must be refused below, not waited on at open */
    *fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (*fd < 0) return g2e_fail(err, ST_E_OPEN, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    int rc = 0;
    if (fstat(*fd, &sb) != 0)
        rc = g2e_fail(err, ST_E_OPEN, "%s: cannot stat: %s", path, strerror(errno));
    else if (!S_ISREG(sb.st_mode))
        rc = g2e_fail(err, ST_E_OPEN, "%s: not a regular file (%s)", path,
                      S_ISFIFO(sb.st_mode) ? g2e_tr("a FIFO") : S_ISDIR(sb.st_mode) ? g2e_tr("a directory")
                      : S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode) ? g2e_tr("a device") : g2e_tr("a socket"));
    else if (sb.st_size < 8)
        rc = g2e_fail(err, ST_E_TOO_SHORT,
                      "%s: file is %lld bytes, shorter than the 8-byte header length", path,
                      (long long)sb.st_size);
    else if ((uint64_t)sb.st_size > SIZE_MAX)
        rc = g2e_fail(err, ST_E_OPEN, "%s: file too large to map", path);
    if (rc) {
        close(*fd);
        *fd = -1;
        return rc;
    }
    *size = (uint64_t)sb.st_size;
    return 0;
}

/* Prefixes err's message with "path: " (st_parse_* messages do not name the file). */
static void name_path(g2e_err *err, int rc, const char *path)
{
    if (!err) return;
    char msg[G2E_ERR_MSG_MAX];
    memcpy(msg, err->msg, sizeof msg);
    g2e_fail(err, rc, "%s: %s", path, msg);
}

static int open_file(st_file **out, const char *path, g2e_err *err)
{
    if (!out || !path) return g2e_fail(err, G2E_EINVAL, "st_open: NULL argument");
    *out = NULL;
    int fd;
    uint64_t size;
    int rc = open_regular(path, &fd, &size, err);
    if (rc) return rc;
    size_t len = (size_t)size;
    void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    int e = errno;
    close(fd);
    if (map == MAP_FAILED)
        return g2e_fail(err, ST_E_OPEN, "%s: cannot map: %s", path, strerror(e));
    st_file *f = NULL;
    rc = st_parse_buffer(&f, map, len, err);
    if (rc) {
        munmap(map, len);
        name_path(err, rc, path);
        return rc;
    }
    f->map = map;
    f->map_len = len;
    *out = f;
    return 0;
}

/* pread of exactly n bytes at off; 0, or -1 with errno (EIO at an early end). */
static int pread_full(int fd, void *buf, size_t n, uint64_t off)
{
    for (size_t got = 0; got < n;) {
        ssize_t k = pread(fd, (uint8_t *)buf + got, n - got, (off_t)(off + got));
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            if (k == 0) errno = EIO;
            return -1;
        }
        got += (size_t)k;
    }
    return 0;
}

static int open_header(st_file **out, const char *path, g2e_err *err)
{
    if (!out || !path) return g2e_fail(err, G2E_EINVAL, "st_open_header: NULL argument");
    *out = NULL;
    int fd;
    uint64_t size;
    int rc = open_regular(path, &fd, &size, err);
    if (rc) return rc;
    uint8_t pre[8];
    uint8_t *json = NULL;
    if (pread_full(fd, pre, 8, 0) != 0) {
        rc = g2e_fail(err, ST_E_OPEN, "%s: cannot read: %s", path, strerror(errno));
        goto fail;
    }
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--)
        n = n << 8 | pre[i];
    /* the same checks, in the same order and words, as st_parse_buffer */
    if (n > ST_MAX_HEADER) {
        rc = g2e_fail(err, ST_E_HEADER_TOO_LARGE, "%s: header length %llu is over the limit of %llu",
                      path, (unsigned long long)n, (unsigned long long)ST_MAX_HEADER);
        goto fail;
    }
    if (n > size - 8) {
        rc = g2e_fail(err, ST_E_HEADER_PAST_END,
                      "%s: header length %llu runs past the end of the file (%llu bytes, room for %llu)",
                      path, (unsigned long long)n, (unsigned long long)size,
                      (unsigned long long)(size - 8));
        goto fail;
    }
    json = malloc(n ? (size_t)n : 1);
    if (!json) {
        rc = g2e_fail(err, G2E_ENOMEM, "out of memory (header of %llu bytes)", (unsigned long long)n);
        goto fail;
    }
    if (pread_full(fd, json, (size_t)n, 8) != 0) {
        rc = g2e_fail(err, ST_E_OPEN, "%s: cannot read the header: %s", path, strerror(errno));
        goto fail;
    }
    st_file *f = NULL;
    rc = st_parse_header(&f, json, (size_t)n, size - 8 - n, err);
    if (rc) {
        name_path(err, rc, path);
        goto fail;
    }
    free(json);
    f->fd = fd;
    *out = f;
    return 0;
fail:
    free(json);
    close(fd);
    return rc;
}

int st_open_header(st_file **out, const char *path, g2e_err *err)
{
    int rc = open_header(out, path, err);
    if (rc) one_line(err);
    return rc;
}

int st_map(st_file *f, const st_tensor *t, g2e_err *err)
{
    if (!f || !t || t < f->tensors || t >= f->tensors + f->n_tensors)
        return g2e_fail(err, G2E_EINVAL, "st_map: not a tensor of this file");
    if (t->bytes) return 0;
    if (f->fd < 0)
        return g2e_fail(err, G2E_EINVAL, "tensor '%s': the file is not open (st_open_header)", t->name);
    long pg = sysconf(_SC_PAGESIZE);
    uint64_t page = pg > 0 ? (uint64_t)pg : 4096;
    /* validated at open: data_start + end <= file size, no overflow */
    uint64_t lo = f->data_start + t->begin, hi = f->data_start + t->end;
    uint64_t off = lo / page * page;
    size_t len = (size_t)(hi - off);
    struct st_range *r = realloc(f->ranges, (f->n_ranges + 1) * sizeof *r);
    if (!r) return g2e_fail(err, G2E_ENOMEM, "out of memory");
    f->ranges = r;
    void *m = mmap(NULL, len ? len : 1, PROT_READ, MAP_PRIVATE, f->fd, (off_t)off);
    if (m == MAP_FAILED) {
        int e = errno;
        g2e_fail(err, ST_E_OPEN, "tensor '%s': cannot map its %llu bytes: %s", t->name,
                 (unsigned long long)(hi - lo), strerror(e));
        one_line(err);
        return ST_E_OPEN;
    }
    f->ranges[f->n_ranges].addr = m;
    f->ranges[f->n_ranges].len = len ? len : 1;
    f->n_ranges++;
    f->tensors[t - f->tensors].bytes = (const uint8_t *)m + (lo - off);
    return 0;
}

void st_close(st_file *f)
{
    if (!f) return;
    for (size_t i = 0; i < f->n_tensors; i++)
        free(f->tensors[i].name);
    free(f->tensors);
    for (size_t i = 0; i < f->n_meta; i++) {
        free(f->meta[i].key);
        free(f->meta[i].value);
    }
    free(f->meta);
    if (f->map) munmap(f->map, f->map_len);
    for (size_t i = 0; i < f->n_ranges; i++)
        munmap(f->ranges[i].addr, f->ranges[i].len);
    free(f->ranges);
    if (f->fd >= 0) close(f->fd);
    free(f);
}

const st_tensor *st_find(const st_file *f, const char *name)
{
    if (!f || !name) return NULL;
    for (size_t i = 0; i < f->n_tensors; i++)
        if (strcmp(f->tensors[i].name, name) == 0)
            return &f->tensors[i];
    return NULL;
}

const char *st_meta_get(const st_file *f, const char *key)
{
    if (!f || !key) return NULL;
    for (size_t i = 0; i < f->n_meta; i++)
        if (strcmp(f->meta[i].key, key) == 0)
            return f->meta[i].value;
    return NULL;
}

/* ---------------------------------------------------------------------------------------
 * Conversion. */

uint32_t st_f16_to_f32_bits(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1F;
    uint32_t man = h & 0x3FF;
    if (exp == 0x1F) /* inf or NaN: keep the payload, top-aligned */
        return sign | 0x7F800000u | man << 13;
    if (exp != 0)
        return sign | (exp + (127 - 15)) << 23 | man << 13;
    if (man == 0)
        return sign;
    /* Subnormal half man * 2^-24: shift until the implicit bit appears; each shift
     * lowers the float exponent by one. 2^-24 is a normal float, so this is exact. */
    uint32_t e = 127 - 15 + 1;
    while (!(man & 0x400)) {
        man <<= 1;
        e--;
    }
    return sign | e << 23 | (man & 0x3FF) << 13;
}

uint32_t st_bf16_to_f32_bits(uint16_t h)
{
    return (uint32_t)h << 16;
}

static int read_row(const st_file *f, const st_tensor *t, uint64_t row, float *out, g2e_err *err);

int st_read_row_f32(const st_file *f, const st_tensor *t, uint64_t row, float *out, g2e_err *err)
{
    int rc = read_row(f, t, row, out, err);
    if (rc) one_line(err);
    return rc;
}

static int read_row(const st_file *f, const st_tensor *t, uint64_t row, float *out, g2e_err *err)
{
    if (!f || !t || !out) return g2e_fail(err, G2E_EINVAL, "st_read_row_f32: NULL argument");
    if (!t->bytes)
        return g2e_fail(err, G2E_EINVAL, "tensor '%s': no data mapped (header only)", t->name);
    if (t->ndim != 2)
        return g2e_fail(err, ST_E_SHAPE, "tensor '%s' has %d dimensions, rows need 2", t->name,
                        t->ndim);
    if (row >= t->shape[0])
        return g2e_fail(err, ST_E_RANGE, "tensor '%s': row %llu out of range (it has %llu rows)",
                        t->name, (unsigned long long)row, (unsigned long long)t->shape[0]);
    if (t->dtype != ST_F32 && t->dtype != ST_F16 && t->dtype != ST_BF16)
        return g2e_fail(err, ST_E_DTYPE_UNSUPPORTED,
                        "tensor '%s' is %s: only F32, F16 and BF16 convert to float32", t->name,
                        st_dtype_name(t->dtype));
    /* Validated at open: begin + rows*cols*size == end <= data_len, no overflow. */
    size_t cols = (size_t)t->shape[1];
    size_t es = DTYPES[t->dtype].size;
    const uint8_t *p = t->bytes + row * cols * es;
    if (t->dtype == ST_F32) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        memcpy(out, p, cols * 4);
#else
        for (size_t j = 0; j < cols; j++) {
            uint32_t b = (uint32_t)p[4 * j] | (uint32_t)p[4 * j + 1] << 8 |
                         (uint32_t)p[4 * j + 2] << 16 | (uint32_t)p[4 * j + 3] << 24;
            memcpy(&out[j], &b, 4);
        }
#endif
        return 0;
    }
    int half = t->dtype == ST_F16;
    for (size_t j = 0; j < cols; j++) {
        uint16_t h = (uint16_t)(p[2 * j] | p[2 * j + 1] << 8);
        uint32_t b = half ? st_f16_to_f32_bits(h) : st_bf16_to_f32_bits(h);
        memcpy(&out[j], &b, 4);
    }
    return 0;
}
