/* SPDX-License-Identifier: MIT */
/* safetensors.h — a strict reader of the safetensors format (Hugging Face), as used by
 * GPT-2's model.safetensors.
 *
 * Layout: 8-byte little-endian header length N, N bytes of JSON header, then the data
 * section. The header maps tensor names to {"dtype", "shape", "data_offsets": [begin, end]}
 * (offsets relative to the data section) plus an optional "__metadata__" object of
 * string values. Every rule of the reference reader is enforced, each with its own status
 * code, and a few stricter ones (duplicate names). The data section is usually NOT
 * aligned (GPT-2's starts at byte 14,291): rows are copied/converted, never accessed
 * through a cast pointer.
 *
 * Stricter than the reference reader, on purpose: a UTF-8 byte order mark, raw control bytes
 * (inside strings too), keys other than dtype/shape/data_offsets in a tensor entry, repeated
 * names or keys, more than ST_MAX_NDIM dimensions, and numbers that are not plain
 * non-negative integers (1.0, 1e3, 01, -0) are all refused. Integers are read exactly from
 * the header text up to 2^64-1 (a double would round above 2^53). The header's JSON is
 * RFC 8259's, nested at most 1000 deep.
 *
 * Every error message is one line (control bytes in names or paths show as '?') and names
 * the tensor and the numbers involved; st_open's also starts with the path.
 *
 * Deliberately left out: writing (tests/fixture.c and download.c write files), dtypes
 * beyond conversion of F32/F16/BF16 to float32 (others are listed, not converted).
 */
#ifndef G2E_SAFETENSORS_H
#define G2E_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define ST_MAX_HEADER 100000000ULL /* the reference reader's limit on the header length */
#define ST_MAX_NDIM 8

typedef enum st_dtype {
    ST_BOOL, ST_U8, ST_I8, ST_F8_E5M2, ST_F8_E4M3, ST_I16, ST_U16, ST_F16, ST_BF16,
    ST_I32, ST_U32, ST_F32, ST_F64, ST_I64, ST_U64, ST_DTYPE_COUNT
} st_dtype;

/* Status codes (g2e_err.code), one per rule, and the public status each is reported as
 * (err.h). */
#define ST_CODES(X) \
    X(ST_E_TOO_SHORT, FORMAT) /* file shorter than the 8-byte length prefix */ \
    X(ST_E_HEADER_TOO_LARGE, FORMAT) /* header length over ST_MAX_HEADER */ \
    X(ST_E_HEADER_PAST_END, FORMAT) /* header length points past the end of the file */ \
    X(ST_E_HEADER_UTF8, FORMAT) /* header bytes are not valid UTF-8 */ \
    X(ST_E_HEADER_JSON, FORMAT) /* header is not parseable JSON (incl. NUL padding) */ \
    X(ST_E_HEADER_NOT_OBJECT, FORMAT) /* header JSON is not an object */ \
    X(ST_E_METADATA, FORMAT) /* __metadata__ not an object of string values */ \
    X(ST_E_TENSOR_NOT_OBJECT, FORMAT) /* a tensor entry is not an object / misses keys / extra keys */ \
    X(ST_E_DTYPE, FORMAT) /* unknown or non-string dtype */ \
    X(ST_E_SHAPE, FORMAT) /* shape not an array of non-negative integers (<= ST_MAX_NDIM) */ \
    X(ST_E_OFFSETS, FORMAT) /* data_offsets not [begin, end] integers with begin <= end */ \
    X(ST_E_OVERFLOW, FORMAT) /* product of shape x element size overflows 64 bits */ \
    X(ST_E_SIZE_MISMATCH, FORMAT) /* end - begin != number of elements x element size */ \
    X(ST_E_NOT_CONTIGUOUS, FORMAT) /* sorted by offset, a tensor does not start where the previous ended (hole or overlap; first must start at 0) */ \
    X(ST_E_DATA_LENGTH, FORMAT) /* data section length != last end (truncated or trailing bytes) */ \
    X(ST_E_DUPLICATE, FORMAT) /* the same tensor name twice */ \
    X(ST_E_OPEN, IO) /* cannot open/stat/map the file */ \
    X(ST_E_NOT_FOUND, NOT_GPT2) /* st_find: no such tensor (only via helpers that report it) */ \
    X(ST_E_DTYPE_UNSUPPORTED, NOT_GPT2) /* conversion to float32 asked of a dtype other than F32/F16/BF16 */ \
    X(ST_E_RANGE, TOKEN_ID) /* a row index outside the tensor */ \
    X(ST_E_FOREIGN, FORMAT) /* the file is another known kind (a PyTorch checkpoint, GGUF, an HTML page, text): the message says which */
G2E_CODES(ST, ST_CODES);

typedef struct st_tensor {
    char *name;                 /* owned by the st_file */
    st_dtype dtype;
    int ndim;
    uint64_t shape[ST_MAX_NDIM];
    uint64_t begin, end;        /* byte offsets relative to the start of the data section */
    const uint8_t *bytes;       /* its end - begin bytes in memory (unaligned), or NULL while
                                   not mapped (st_open_header before st_map, st_parse_header) */
} st_tensor;

typedef struct st_meta {
    char *key, *value;          /* owned by the st_file */
} st_meta;

typedef struct st_file {
    /* header facts */
    uint64_t header_len;        /* N, the JSON header's length */
    uint64_t data_start;        /* 8 + N: byte offset of the data section in the file */
    uint64_t data_len;          /* length of the data section */
    st_tensor *tensors;         /* n_tensors, sorted by begin offset */
    size_t n_tensors;
    st_meta *meta;              /* n_meta __metadata__ entries, in header order */
    size_t n_meta;
    char *strings;              /* one block holding every name, key and value above (owned) */
    /* the mapping (NULL when parsed from a header alone, or opened by st_open_header) */
    const uint8_t *data;        /* start of the data section inside the mapping, unaligned */
    void *map;
    size_t map_len;
    /* st_open_header: the open file and the ranges st_map mapped (owned) */
    int fd;                     /* -1 when there is none */
    struct st_range { void *addr; size_t len; } *ranges;
    size_t n_ranges;
} st_file;

/* Maps path read-only and validates its header; does not read the data section (only the
 * 8 + N header bytes are touched). The file must not be truncated while it is open: like
 * any mapping, reading a row past a shrunken end raises SIGBUS (the library installs no
 * handler: a program that must survive it catches SIGBUS over the tensors' `bytes` ranges,
 * as gpt2-embed's out_guard_mapping does).
 * On success *out owns the mapping (free with st_close). On error *out is NULL and err
 * says what was wrong, naming the path, the tensor and the numbers involved. */
int st_open(st_file **out, const char *path, g2e_err *err);

/* Like st_open, but maps nothing: reads and validates the 8 + N header bytes with pread and
 * keeps the file open, so that st_map can then map only the tensors a caller reads (GPT-2's
 * wte + wpe are 157 MB of a 548 MB checkpoint: `ulimit -v 200000` can then open it). Until
 * st_map, tensors have bytes == NULL and st_read_row_f32 refuses them (G2E_EINVAL). The
 * file is checked to be a regular file first (a FIFO is refused, not waited on). */
int st_open_header(st_file **out, const char *path, g2e_err *err);

/* Maps the bytes of tensor t of f (t from f: st_find or f->tensors), page-aligned around
 * [begin, end), read-only, and sets t->bytes. f must come from st_open_header (else
 * G2E_EINVAL); mapping a tensor twice is harmless. Errors: ST_E_OPEN (mmap failed, e.g.
 * over the address-space limit), G2E_ENOMEM. The mapping lives until st_close. */
int st_map(st_file *f, const st_tensor *t, g2e_err *err);

/* Validates a whole in-memory file (the 8-byte prefix, header and data); *out does not own
 * buf, which must outlive it. Used by the fuzz target and the tests. */
int st_parse_buffer(st_file **out, const uint8_t *buf, size_t len, g2e_err *err);

/* Validates a header alone (the result copies what it needs: json may be freed after): json/json_len are the N header bytes, data_len the length the
 * data section has (or will have, e.g. file size - 8 - N from an HTTP Content-Length).
 * The result has no data (->data NULL). Used by the downloader. */
int st_parse_header(st_file **out, const uint8_t *json, size_t json_len, uint64_t data_len,
                    g2e_err *err);

/* Frees everything; accepts NULL. */
void st_close(st_file *f);

/* The tensor named name, or NULL. */
const st_tensor *st_find(const st_file *f, const char *name);

/* Metadata value for key, or NULL. */
const char *st_meta_get(const st_file *f, const char *key);

const char *st_dtype_name(st_dtype d);   /* "F32", ...; "?" outside the enum */
/* The dtype named s (exact, case-sensitive, as in the header), or -1. */
int st_dtype_from_name(const char *s);
size_t st_dtype_size(st_dtype d);        /* bytes per element (1 for BOOL/U8/F8) */
uint64_t st_tensor_numel(const st_tensor *t);

/* Copies row `row` of a 2-D tensor t of f (t must come from f: st_find or f->tensors)
 * (shape [rows, cols]) into out[cols] as float32, through memcpy, never a cast pointer,
 * converting F16/BF16 exactly. Errors: ST_E_RANGE, ST_E_DTYPE_UNSUPPORTED, ST_E_SHAPE
 * (not 2-D), G2E_EINVAL (t's bytes not mapped). */
int st_read_row_f32(const st_file *f, const st_tensor *t, uint64_t row, float *out, g2e_err *err);

/* Exact widening of one IEEE half (F16) / bfloat16 (BF16) bit pattern to float32, in integer
 * arithmetic: subnormals become normal floats, infinities stay infinities, NaNs keep sign and
 * payload (shifted into the top of the float's mantissa). Return the float32 BIT PATTERN. */
uint32_t st_f16_to_f32_bits(uint16_t h);
uint32_t st_bf16_to_f32_bits(uint16_t h);

#endif
