/* SPDX-License-Identifier: MIT */
/* tokfile.c — token IDs into .npy, raw and llm.c files, whole or in shards (tokfile.h). */
#define _GNU_SOURCE /* asprintf */
#include "tokfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void put_le32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8), p[2] = (unsigned char)(v >> 16),
    p[3] = (unsigned char)(v >> 24);
}

void tokf_npy_header(unsigned char buf[TOKF_NPY_HEADER], unsigned width, uint64_t n)
{
    memset(buf, ' ', TOKF_NPY_HEADER);
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (unsigned char)(TOKF_NPY_HEADER - 10), buf[9] = 0; /* the dict's length, uint16 LE */
    char d[TOKF_NPY_HEADER];
    int k = snprintf(d, sizeof d, "{'descr': '<u%u', 'fortran_order': False, 'shape': (%llu,), }", width,
                     (unsigned long long)n);
    memcpy(buf + 10, d, (size_t)k); /* (at most 83 bytes: fits before the '\n') */
    buf[TOKF_NPY_HEADER - 1] = '\n';
}

void tokf_llmc_header(unsigned char buf[TOKF_LLMC_HEADER], uint32_t n)
{
    memset(buf, 0, TOKF_LLMC_HEADER);
    put_le32(buf, TOKF_LLMC_MAGIC);
    put_le32(buf + 4, 1);
    put_le32(buf + 8, n);
}

static size_t header_size(int fmt)
{
    return fmt == TOKF_NPY ? TOKF_NPY_HEADER : fmt == TOKF_LLMC ? TOKF_LLMC_HEADER : 0;
}

int tokf_open(tokf *w, const char *path, int fmt, uint32_t n_vocab, uint32_t eot, uint64_t shard, g2e_err *err)
{
    memset(w, 0, sizeof *w);
    int to_stdout = !path || strcmp(path, "-") == 0;
    if (fmt < TOKF_NPY || fmt > TOKF_LLMC || (shard && to_stdout) || (fmt == TOKF_LLMC && shard > TOKF_LLMC_MAX))
        return g2e_fail(err, G2E_EINVAL, "tokf_open: format %d with shards of %llu tokens to %s", fmt,
                        (unsigned long long)shard, to_stdout ? "standard output" : "a file");
    w->width = fmt == TOKF_U32 || (fmt == TOKF_NPY && n_vocab > 65536) ? 4 : 2;
    if (w->width == 2 && n_vocab > 65536)
        return g2e_fail(err, TOKF_E_WIDTH, "the vocabulary has %u IDs: 16-bit IDs cannot hold them (use u32 or .npy)",
                        n_vocab);
    if (header_size(fmt) && to_stdout)
        return g2e_fail(err, TOKF_E_SEEK, "%s files hold their token count in a header written last: "
                        "give an output file (-o FILE)", fmt == TOKF_NPY ? ".npy" : "llm.c");
    w->fmt = fmt, w->n_vocab = n_vocab, w->eot = eot, w->shard = shard, w->path = path ? path : "-";
    if (shard) {
        const char *slash = strrchr(path, '/'), *dot = strrchr(slash ? slash + 1 : path, '.');
        if (dot == (slash ? slash + 1 : path)) /* ".bin": a name, not an extension */
            dot = NULL;
        size_t sl = dot ? (size_t)(dot - path) : strlen(path);
        w->stem = strndup(path, sl);
        w->ext = strdup(dot ? dot : "");
        if (!w->stem || !w->ext) {
            tokf_free(w);
            return g2e_fail(err, G2E_ENOMEM, "out of memory");
        }
    }
    return 0;
}

/* Opens the next file (its header's room written as zeros). */
static int file_open(tokf *w, g2e_err *err)
{
    char *name = NULL;
    if (w->shard && asprintf(&name, "%s_%06u%s", w->stem, w->done, w->ext) < 0)
        return g2e_fail(err, G2E_ENOMEM, "out of memory");
    int rc = ofile_open(&w->cur, name ? name : w->path, 1, err);
    if (!rc && header_size(w->fmt) && !w->cur.tmp) { /* a device or FIFO: no header to come back to */
        ofile_abort(&w->cur);
        rc = g2e_fail(err, TOKF_E_SEEK, "%s files hold their token count in a header written last: "
                      "'%s' is not a regular file", w->fmt == TOKF_NPY ? ".npy" : "llm.c", name ? name : w->path);
    }
    if (rc) {
        free(name);
        return rc;
    }
    static const unsigned char zero[TOKF_LLMC_HEADER];
    fwrite(zero, 1, header_size(w->fmt), w->cur.f); /* (errors: the commit's) */
    w->open = 1;
    w->in_file = w->committed = 0;
    return 0;
}

/* Writes the header and renames the file into place. */
static int file_close(tokf *w, g2e_err *err)
{
    unsigned char h[TOKF_LLMC_HEADER];
    size_t hs = header_size(w->fmt);
    char *name = w->shard ? (char *)w->cur.name : NULL;
    if (w->fmt == TOKF_NPY)
        tokf_npy_header(h, w->width, w->in_file);
    else if (w->fmt == TOKF_LLMC)
        tokf_llmc_header(h, (uint32_t)w->in_file);
    int rc = 0;
    if (hs && (fflush(w->cur.f) != 0 || pwrite(w->cur.sink->fd, h, hs, 0) != (ssize_t)hs)) {
        rc = g2e_fail(err, OFILE_E_WRITE, "writing '%s' failed: %s", w->cur.name, strerror(errno ? errno : EIO));
        ofile_abort(&w->cur);
    } else {
        rc = ofile_commit(&w->cur, err);
    }
    w->open = 0;
    if (rc) {
        free(name);
        return rc;
    }
    w->done++;
    if (w->on_file)
        w->on_file(w->user, name ? name : w->path, w->in_file);
    free(w->last);
    w->last = name ? name : strdup(w->path);
    w->in_file = w->committed = 0;
    return 0;
}

/* ids[0..n) in the file's width, to the open file (held = 0) or the held IDs (held = 1). */
static int emit(tokf *w, const uint32_t *ids, size_t n, int held, g2e_err *err)
{
    if (held && w->n_held + n > w->cap_held) {
        size_t cap = w->cap_held ? w->cap_held : 4096;
        while (cap < w->n_held + n)
            cap *= 2;
        unsigned char *p = realloc(w->held, cap * w->width);
        if (!p)
            return g2e_fail(err, G2E_ENOMEM, "out of memory holding a document of %zu tokens", w->n_held + n);
        w->held = p, w->cap_held = cap;
    }
    for (size_t i = 0; i < n;) {
        size_t k = n - i < sizeof w->conv / 4 ? n - i : sizeof w->conv / 4;
        unsigned char *o = held ? w->held + w->n_held * w->width : w->conv;
        for (size_t j = 0; j < k; j++) {
            uint32_t v = ids[i + j];
            if (v >= w->n_vocab)
                return g2e_fail(err, TOKF_E_ID, "token ID %u is outside the vocabulary (%u IDs)", v, w->n_vocab);
            o[j * w->width] = (unsigned char)v, o[j * w->width + 1] = (unsigned char)(v >> 8);
            if (w->width == 4)
                o[j * 4 + 2] = (unsigned char)(v >> 16), o[j * 4 + 3] = (unsigned char)(v >> 24);
        }
        if (held)
            w->n_held += k;
        else
            fwrite(w->conv, w->width, k, w->cur.f), w->in_file += k; /* (errors: the commit's) */
        i += k;
    }
    return 0;
}

/* IDs of the current document into the files as they come: a new file when the open one is
 * full (a document longer than a shard) or there is none. */
static int direct(tokf *w, const uint32_t *ids, size_t n, g2e_err *err)
{
    while (n) {
        int rc = 0;
        if (w->open && w->shard && w->in_file >= w->shard)
            rc = file_close(w, err);
        if (!rc && !w->open)
            rc = file_open(w, err);
        if (rc)
            return rc;
        uint64_t room = w->shard ? w->shard - w->in_file : w->fmt == TOKF_LLMC ? TOKF_LLMC_MAX - w->in_file : n;
        if (!w->shard && n > room)
            return g2e_fail(err, TOKF_E_COUNT, "an llm.c file holds fewer than 2^31 tokens: "
                            "split the output with --shard-tokens");
        size_t k = w->shard && n > room ? (size_t)room : n;
        if ((rc = emit(w, ids, k, 0, err)))
            return rc;
        ids += k, n -= k;
    }
    return 0;
}

/* The held document written out (it fits the open file). */
static int flush_held(tokf *w)
{
    if (!w->n_held)
        return 0;
    fwrite(w->held, w->width, w->n_held, w->cur.f);
    w->in_file += w->n_held;
    w->n_held = 0;
    return 0;
}

/* The current document ended: held IDs written, the file full or not. */
static int doc_end(tokf *w, g2e_err *err)
{
    (void)err;
    int rc = flush_held(w);
    w->committed = w->in_file;
    w->doc_started = 0;
    return rc;
}

int tokf_doc(tokf *w, g2e_err *err)
{
    int rc = w->docs ? doc_end(w, err) : 0;
    if (rc)
        return rc;
    w->docs++;
    /* a document after others in the file is held until it is known to fit */
    w->doc_started = !w->shard || !w->open || w->committed == 0 || w->committed >= w->shard;
    if (w->fmt == TOKF_LLMC)
        return tokf_put(w, &w->eot, 1, err);
    return 0;
}

int tokf_put(tokf *w, const uint32_t *ids, size_t n, g2e_err *err)
{
    if (!n)
        return 0;
    int rc = w->docs ? 0 : tokf_doc(w, err); /* (IDs before any tokf_doc: the first document's) */
    if (rc)
        return rc;
    w->tokens += n;
    if (w->doc_started)
        return direct(w, ids, n, err);
    if (w->committed + w->n_held + n <= w->shard)
        return emit(w, ids, n, 1, err);
    /* longer than the room left: this file ends with the documents before it, and the
     * document starts the next one */
    rc = file_close(w, err);
    w->doc_started = 1;
    if (!rc && w->n_held) {
        rc = file_open(w, err);
        rc = rc ? rc : flush_held(w);
    }
    return rc ? rc : direct(w, ids, n, err);
}

int tokf_finish(tokf *w, g2e_err *err)
{
    int rc = doc_end(w, err);
    if (!rc && !w->open && !w->done) /* no tokens at all: one empty file */
        rc = file_open(w, err);
    if (!rc && w->open)
        rc = file_close(w, err);
    if (rc)
        tokf_abort(w);
    return rc;
}

void tokf_abort(tokf *w)
{
    if (w->open) {
        char *name = w->shard ? (char *)w->cur.name : NULL;
        ofile_abort(&w->cur);
        free(name);
        w->open = 0;
    }
    free(w->held);
    w->held = NULL;
    w->n_held = w->cap_held = 0;
}

void tokf_free(tokf *w)
{
    tokf_abort(w);
    free(w->stem);
    free(w->ext);
    free(w->last);
    w->stem = w->ext = w->last = NULL;
}

int tokf_ids(void *user, const uint32_t *ids, size_t n, const size_t *starts, size_t n_starts)
{
    tokf *w = user;
    size_t at = 0;
    int rc = 0;
    for (size_t i = 0; i < n_starts && !rc; at = starts[i++]) {
        rc = tokf_put(w, ids + at, starts[i] - at, &w->err);
        rc = rc ? rc : tokf_doc(w, &w->err);
    }
    return rc ? rc : tokf_put(w, ids + at, n - at, &w->err);
}
