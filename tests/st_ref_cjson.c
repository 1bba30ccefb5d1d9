/* SPDX-License-Identifier: MIT */
/* st_ref_cjson.c — the safetensors header reader as it was before the hand-written parser
 * (src/lib/weights/safetensors.c up to commit 6f4839c: cJSON plus three passes of its own), kept
 * only here, as an independent reference: tests/test_safetensors.c and
 * tests/fuzz/fuzz_safetensors.c check that the new parser gives the same verdict, the same
 * tensors and metadata, and (but for the documented differences, st_ref_agree) the same
 * status and message. Not part of the library. */
#include "st_ref_cjson.h"
#include "text.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DTYPE_SIZE(d) st_dtype_size((st_dtype)(d))
#define DTYPE_NAME(d) st_dtype_name((st_dtype)(d))

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
    if (__builtin_mul_overflow(n, (uint64_t)DTYPE_SIZE(d), &nbytes))
        return g2e_fail(err, ST_E_OVERFLOW,
                        "tensor '%s': %llu elements x %zu bytes (%s) overflows 64 bits", name,
                        (unsigned long long)n, DTYPE_SIZE(d), DTYPE_NAME(d));
    if (t->end - t->begin != nbytes)
        return g2e_fail(err, ST_E_SIZE_MISMATCH,
                        "tensor '%s': data_offsets [%llu, %llu] span %llu bytes but %llu elements of %s need %llu",
                        name, (unsigned long long)t->begin, (unsigned long long)t->end,
                        (unsigned long long)(t->end - t->begin), (unsigned long long)n,
                        DTYPE_NAME(d), (unsigned long long)nbytes);
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

int st_ref_parse_header(st_file **out, const uint8_t *json, size_t json_len, uint64_t data_len,
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
    st_ref_close(f);
    return rc;
}

void st_ref_close(st_file *f)
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
    free(f);
}

static int same_tensor(const st_tensor *a, const st_tensor *b)
{
    if (strcmp(a->name, b->name) || a->dtype != b->dtype || a->ndim != b->ndim ||
        a->begin != b->begin || a->end != b->end)
        return 0;
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i]) return 0;
    return 1;
}

static int same_files(const st_file *a, const st_file *b, char *why, size_t n)
{
    if (a->n_tensors != b->n_tensors || a->n_meta != b->n_meta || a->header_len != b->header_len ||
        a->data_start != b->data_start || a->data_len != b->data_len) {
        snprintf(why, n, "accepted by both, but %zu/%zu tensors and %zu/%zu metadata entries",
                 a->n_tensors, b->n_tensors, a->n_meta, b->n_meta);
        return 0;
    }
    for (size_t i = 0; i < a->n_tensors; i++)
        if (!same_tensor(&a->tensors[i], &b->tensors[i])) {
            snprintf(why, n, "tensor %zu differs ('%s' vs '%s')", i, a->tensors[i].name,
                     b->tensors[i].name);
            return 0;
        }
    for (size_t i = 0; i < a->n_meta; i++)
        if (strcmp(a->meta[i].key, b->meta[i].key) || strcmp(a->meta[i].value, b->meta[i].value)) {
            snprintf(why, n, "metadata entry %zu differs ('%s' vs '%s')", i, a->meta[i].key,
                     b->meta[i].key);
            return 0;
        }
    return 1;
}

/* A syntax error's message: the offset where it was found (cJSON stops a byte or more
 * away from the new parser), or the new parser's nesting message. */
static int syntax_message(const char *m)
{
    return strncmp(m, "header is not valid JSON (error near header offset ", 51) == 0 ||
           strncmp(m, "header nests arrays and objects more than ", 42) == 0;
}

/* The offset in a syntax message, or (size_t)-1. */
static size_t syntax_offset(const char *m)
{
    const char *p = strstr(m, "header offset ");
    return syntax_message(m) && p ? (size_t)strtoull(p + 14, NULL, 10) : (size_t)-1;
}

static int in_number(uint8_t c)
{
    return c && strchr("0123456789+-.eE", c) != NULL;
}

static int is_hex(uint8_t c)
{
    return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

/* 1 when offset at is one of the four digits of a \u escape (its backslash not itself
 * escaped) and that digit is not a hex digit, or the header ends there. */
static int in_bad_unicode_escape(const uint8_t *s, size_t len, size_t at)
{
    for (size_t d = 2; d <= 5 && d <= at; d++) {
        size_t j = at - d; /* the backslash */
        if (s[j] != '\\' || s[j + 1] != 'u') continue;
        size_t k = 0;
        while (k < j && s[j - 1 - k] == '\\') k++;
        if (k % 2) continue;
        if (at == len || !is_hex(s[at])) return 1;
    }
    return 0;
}

/* The differences allowed (each found by this comparison, each a refusal either way):
 *   - a syntax error's offset (cJSON stops a byte or more away), and the nesting message;
 *   - numbers cJSON reads with strtod that RFC 8259 does not allow ("16.", "-.5", "1.e3"):
 *     the old reader refused them for what they are (not a plain integer, not a string),
 *     the new one as a syntax error inside the number;
 *   - a \u escape with a character that is not a hex digit ("\u00zz"), which RFC 8259
 *     refuses and cJSON 1.7.15 reads as U+0000, cutting the C string there: the old reader
 *     ACCEPTED such a header, with the name or value cut short (a bug the new parser fixes;
 *     test_safetensors.c pins it), or refused it for what followed.
 */
int st_ref_agree(const uint8_t *json, size_t json_len, uint64_t data_len, char *why, size_t n)
{
    st_file *a = NULL, *b = NULL;
    g2e_err ea, eb;
    g2e_clear(&ea);
    g2e_clear(&eb);
    int ra = st_parse_header(&a, json, json_len, data_len, &ea);
    int rb = st_ref_parse_header(&b, json, json_len, data_len, &eb);
    int ok = 1;
    size_t at = ra ? syntax_offset(ea.msg) : (size_t)-1;
    if (ra == ST_E_HEADER_JSON && at != (size_t)-1 && in_bad_unicode_escape(json, json_len, at)) {
        /* RFC 8259's \u escape, not cJSON's */
    } else if (!ra != !rb) {
        snprintf(why, n, "verdicts differ: new %d (%s), old %d (%s)", ra, ea.msg, rb, eb.msg);
        ok = 0;
    } else if (!ra) {
        ok = same_files(a, b, why, n);
    } else if (ra != rb || strcmp(ea.msg, eb.msg) != 0) {
        if (ra == rb && syntax_message(ea.msg) && syntax_message(eb.msg)) {
            /* the same fault, found a byte or more apart */
        } else if (ra == ST_E_HEADER_JSON && at != (size_t)-1 && at > 0 && at <= json_len &&
                   in_number(json[at - 1])) {
            /* a number strtod reads and RFC 8259 does not */
        } else {
            snprintf(why, n, "refused differently: new %d (%s), old %d (%s)", ra, ea.msg, rb, eb.msg);
            ok = 0;
        }
    }
    st_close(a);
    st_ref_close(b);
    return ok;
}
