/* SPDX-License-Identifier: MIT */
/* npy.h — NumPy's .npy format: writing float32 arrays, reading float32/float64 ones.
 *
 * Writing produces format version 1.0 exactly as numpy.save does: the magic
 * "\x93NUMPY", version bytes 1 0, a little-endian uint16 header length, then the
 * header dict  {'descr': '<f4', 'fortran_order': False, 'shape': (T, C), }
 * padded with spaces and ended by '\n' so that the data starts at a multiple of
 * 64 bytes (numpy's convention since 1.14; the spec's minimum is 16). Data is
 * little-endian float32 in C order. Writing streams: npy_writer_begin writes the
 * header for a shape, npy_writer_put appends any number of values at a time, and
 * npy_writer_end checks that exactly the promised number arrived, so a caller
 * never needs the whole array in memory.
 *
 * Reading accepts versions 1.0, 2.0 and 3.0, dtypes '<f4' and '<f8' (and '|f4'-style
 * byte order marks are rejected: only '<'), fortran_order False, 1 to 4 dimensions,
 * and a data section of exactly the size the shape says. Anything else is an error
 * with a message that says what was found. Values are returned as double (exact for
 * both dtypes).
 *
 * Deliberately left out: other dtypes, Fortran order, object arrays, pickles,
 * 0-d arrays, .npz archives, memory mapping.
 */
#ifndef G2E_NPY_H
#define G2E_NPY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"

enum {
    NPY_E_SHAPE = G2E_BASE(NPY),   /* ndim outside 1..NPY_MAX_DIMS, or the byte size overflows */
    NPY_E_IO,            /* a read or write on the stream failed (msg has errno text) */
    NPY_E_MAGIC,         /* not "\x93NUMPY" */
    NPY_E_VERSION,       /* a version other than 1.0, 2.0, 3.0 */
    NPY_E_HEADER,        /* the header dict is malformed (msg says where and what) */
    NPY_E_DTYPE,         /* descr other than '<f4' / '<f8' */
    NPY_E_ORDER,         /* fortran_order is True */
    NPY_E_TRUNCATED,     /* fewer data bytes than the shape needs */
    NPY_E_TRAILING,      /* more data bytes than the shape needs */
    NPY_E_STATE,         /* writer misuse: more or fewer values than the shape */
    NPY_CODES_END_
};
G2E_CODES_END(NPY, NPY_CODES_END_);

#define NPY_MAX_DIMS 4
/* Largest header npy_header_f32 can produce (4 dims of 20 digits fit easily). */
#define NPY_HEADER_MAX 256

/* Formats the complete version-1.0 preamble (magic, version, length, padded dict)
 * for a float32 C-order array of the given shape into buf[cap]; *len receives its
 * size, a multiple of 64. Zero-sized dimensions are allowed (numpy writes them).
 * Errors: NPY_E_SHAPE (ndim, overflow of the data size in bytes), G2E_EINVAL (cap too
 * small). buf is unspecified after an error. */
int npy_header_f32(const size_t *shape, int ndim, unsigned char *buf, size_t cap,
                   size_t *len, g2e_err *err);

/* A streaming writer. Lives in the caller's memory (no allocation, nothing to free);
 * the FILE stays the caller's (never closed here). */
typedef struct npy_writer {
    FILE *f;
    uint64_t total;     /* values promised by the shape */
    uint64_t written;   /* values written so far */
} npy_writer;

/* Writes the header for shape[ndim] (float32, C order) to f. */
int npy_writer_begin(npy_writer *w, FILE *f, const size_t *shape, int ndim, g2e_err *err);
/* Appends n float32 values (any number at a time, e.g. one row). NPY_E_STATE if this
 * would exceed the shape (nothing is written then); NPY_E_IO on a write error. */
int npy_writer_put(npy_writer *w, const float *v, size_t n, g2e_err *err);
/* NPY_E_STATE unless exactly the promised number of values was written. Does not
 * flush or close f: the caller does (its error tells whether the bytes landed). */
int npy_writer_end(npy_writer *w, g2e_err *err);

/* The whole array at once: begin + put + end. data holds prod(shape) floats. */
int npy_write_f32(FILE *f, const float *data, const size_t *shape, int ndim, g2e_err *err);

/* dtype tags for npy_array.dtype */
enum { NPY_F4 = 4, NPY_F8 = 8 };

/* A loaded array. data (owned: npy_array_free) holds count values in C order. */
typedef struct npy_array {
    int ndim;
    size_t shape[NPY_MAX_DIMS];
    size_t count;       /* product of shape (may be 0) */
    int dtype;          /* NPY_F4 or NPY_F8: what the file held */
    double *data;       /* count values, converted exactly from the file's dtype */
} npy_array;

/* Parses a complete .npy file held in memory (buf[len], not retained).
 * On success *out is filled and owns data; on error *out is zeroed (nothing to free). */
int npy_parse(const void *buf, size_t len, npy_array *out, g2e_err *err);
/* Reads and parses the regular file at path. NPY_E_IO if it cannot be read or is not a
 * regular file (a FIFO, device or directory is refused at once, never waited on or read
 * without end); a file that does not start with the magic is refused (NPY_E_MAGIC) before
 * the rest of it is read. Same ownership as npy_parse. */
int npy_read_file(const char *path, npy_array *out, g2e_err *err);
/* Frees a->data and zeroes *a. Accepts NULL and zeroed arrays. */
void npy_array_free(npy_array *a);

#endif
