/* SPDX-License-Identifier: MIT */
/* tokfile.c — token IDs into .npy, raw and llm.c files, whole or in shards (tokfile.h). */
#define _GNU_SOURCE /* asprintf */
#include "tokfile.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

int tokf_open(tokf *w, const char *path, const tokf_opts *o, g2e_err *err)
{
    memset(w, 0, sizeof *w);
    int to_stdout = !path || strcmp(path, "-") == 0, fmt = o->fmt;
    uint64_t most = o->shard + (o->shard_min ? o->shard_min - 1 : 0); /* a shard with a short last one folded in */
    if (fmt < TOKF_NPY || fmt > TOKF_LLMC || (o->shard && to_stdout) || o->shard_min > o->shard ||
        o->eot_at < TOKF_EOT_BEFORE || o->eot_at > TOKF_EOT_NONE || (fmt == TOKF_LLMC && most > TOKF_LLMC_MAX))
        return g2e_fail(err, G2E_EINVAL, "tokf_open: format %d with shards of %llu tokens (at least %llu) to %s", fmt,
                        (unsigned long long)o->shard, (unsigned long long)o->shard_min,
                        to_stdout ? "standard output" : "a file");
    w->width = fmt == TOKF_U32 || (fmt == TOKF_NPY && o->n_vocab > 65536) ? 4 : 2;
    if (w->width == 2 && o->n_vocab > 65536)
        return g2e_fail(err, TOKF_E_WIDTH, "the vocabulary has %u IDs: 16-bit IDs cannot hold them (use u32 or .npy)",
                        o->n_vocab);
    if (header_size(fmt) && to_stdout)
        return g2e_fail(err, TOKF_E_SEEK, "%s files hold their token count in a header written last: "
                        "give an output file (-o FILE)", fmt == TOKF_NPY ? ".npy" : "llm.c");
    w->o = *o;
    w->path = path ? path : "-";
    if (o->shard) {
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

char *tokf_shard_name(const tokf *w, unsigned k)
{
    char *name;
    return asprintf(&name, "%s_%06u%s", w->stem, k, w->ext) < 0 ? NULL : name;
}

/* Opens the next file as w->cur (its header's room written as zeros). */
static int file_open(tokf *w, g2e_err *err)
{
    char *name = NULL;
    if (w->o.shard && !(name = tokf_shard_name(w, w->next)))
        return g2e_fail(err, G2E_ENOMEM, "out of memory");
    tokf_file *c = &w->cur;
    int rc = ofile_open(&c->f, name ? name : w->path, OFILE_BINARY | (name ? OFILE_MADE_UP : 0), err);
    if (!rc && header_size(w->o.fmt) && !c->f.tmp) { /* a device or FIFO: no header to come back to */
        ofile_abort(&c->f);
        rc = g2e_fail(err, TOKF_E_SEEK, "%s files hold their token count in a header written last: "
                      "'%s' is not a regular file", w->o.fmt == TOKF_NPY ? ".npy" : "llm.c", name ? name : w->path);
    }
    if (rc) {
        free(name);
        return rc;
    }
    static const unsigned char zero[TOKF_LLMC_HEADER];
    fwrite(zero, 1, header_size(w->o.fmt), c->f.f); /* (errors: the commit's) */
    c->name = name;
    c->open = 1;
    c->n = 0;
    w->next++;
    w->committed = 0;
    return 0;
}

/* Abandons f (its temporary removed). */
static void file_drop(tokf_file *f)
{
    if (f->open)
        ofile_abort(&f->f);
    free(f->name);
    memset(f, 0, sizeof *f);
}

/* Writes f's header and renames it into place: a complete file. */
static int file_commit(tokf *w, tokf_file *f, g2e_err *err)
{
    unsigned char h[TOKF_LLMC_HEADER];
    size_t hs = header_size(w->o.fmt);
    if (w->o.fmt == TOKF_NPY)
        tokf_npy_header(h, w->width, f->n);
    else if (w->o.fmt == TOKF_LLMC)
        tokf_llmc_header(h, (uint32_t)f->n);
    int rc = 0;
    if (hs && (fflush(f->f.f) != 0 || pwrite(f->f.sink->fd, h, hs, 0) != (ssize_t)hs))
        rc = g2e_fail(err, OFILE_E_WRITE, "writing '%s' failed: %s", f->f.name, strerror(errno ? errno : EIO));
    else
        rc = ofile_commit(&f->f, err);
    f->open = 0; /* (committed, or aborted below) */
    if (rc) {
        ofile_abort(&f->f);
        file_drop(f);
        return rc;
    }
    w->done++;
    if (w->on_file)
        w->on_file(w->user, f->name ? f->name : w->path, f->n);
    free(w->last);
    w->last = f->name ? f->name : strdup(w->path);
    w->last_n = f->n;
    f->name = NULL;
    file_drop(f);
    return 0;
}

/* The full shard cur ends: committed, or with shard_min held back as prev until the next one
 * holds shard_min tokens. */
static int file_full(tokf *w, g2e_err *err)
{
    if (!w->o.shard_min)
        return file_commit(w, &w->cur, err);
    w->prev = w->cur; /* (the one before it was committed when this one reached shard_min) */
    memset(&w->cur, 0, sizeof w->cur);
    return 0;
}

/* After tokens went into cur: a shard held back is committed once cur has shard_min. */
static int grown(tokf *w, g2e_err *err)
{
    return w->prev.open && w->cur.n >= w->o.shard_min ? file_commit(w, &w->prev, err) : 0;
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
            if (v >= w->o.n_vocab)
                return g2e_fail(err, TOKF_E_ID, "token ID %u is outside the vocabulary (%u IDs)", v, w->o.n_vocab);
            o[j * w->width] = (unsigned char)v, o[j * w->width + 1] = (unsigned char)(v >> 8);
            if (w->width == 4)
                o[j * 4 + 2] = (unsigned char)(v >> 16), o[j * 4 + 3] = (unsigned char)(v >> 24);
        }
        if (held)
            w->n_held += k;
        else
            fwrite(w->conv, w->width, k, w->cur.f.f), w->cur.n += k; /* (errors: the commit's) */
        i += k;
    }
    return held ? 0 : grown(w, err);
}

/* IDs of the current document into the files as they come: a new file when the open one is
 * full (a document longer than a shard) or there is none. */
static int direct(tokf *w, const uint32_t *ids, size_t n, g2e_err *err)
{
    while (n) {
        int rc = 0;
        if (w->cur.open && w->o.shard && w->cur.n >= w->o.shard)
            rc = file_full(w, err);
        if (!rc && !w->cur.open)
            rc = file_open(w, err);
        if (rc)
            return rc;
        uint64_t room = w->o.shard ? w->o.shard - w->cur.n : w->o.fmt == TOKF_LLMC ? TOKF_LLMC_MAX - w->cur.n : n;
        if (!w->o.shard && n > room)
            return g2e_fail(err, TOKF_E_COUNT, "an llm.c file holds fewer than 2^31 tokens: "
                            "split the output with --shard-tokens");
        size_t k = w->o.shard && n > room ? (size_t)room : n;
        if ((rc = emit(w, ids, k, 0, err)))
            return rc;
        ids += k, n -= k;
    }
    return 0;
}

/* The held document written out (it fits the open file). */
static int flush_held(tokf *w, g2e_err *err)
{
    if (!w->n_held)
        return 0;
    fwrite(w->held, w->width, w->n_held, w->cur.f.f);
    w->cur.n += w->n_held;
    w->n_held = 0;
    return grown(w, err);
}

/* The current document ended (eot after it written first, as asked): held IDs written, the
 * file full or not. */
static int doc_end(tokf *w, g2e_err *err)
{
    int rc = w->docs && w->o.eot_at == TOKF_EOT_AFTER ? tokf_put(w, &w->o.eot, 1, err) : 0;
    rc = rc ? rc : flush_held(w, err);
    w->committed = w->cur.n;
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
    w->doc_started = !w->o.shard || !w->cur.open || w->committed == 0 || w->committed >= w->o.shard;
    return w->o.eot_at == TOKF_EOT_BEFORE ? tokf_put(w, &w->o.eot, 1, err) : 0;
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
    if (w->committed + w->n_held + n <= w->o.shard)
        return emit(w, ids, n, 1, err);
    /* longer than the room left: this file ends with the documents before it, and the
     * document starts the next one; beside fewer than shard_min tokens it fills this one
     * and goes on in the next */
    w->doc_started = 1;
    if (w->committed < w->o.shard_min)
        rc = flush_held(w, err);
    else if (!(rc = file_full(w, err)) && w->n_held && !(rc = file_open(w, err)))
        rc = flush_held(w, err);
    return rc ? rc : direct(w, ids, n, err);
}

/* Appends the short shard cur to prev (read back from cur's temporary), which is then the
 * last one; cur is dropped. */
static int fold(tokf *w, g2e_err *err)
{
    tokf_file *c = &w->cur, *p = &w->prev;
    size_t hs = header_size(w->o.fmt), left = (size_t)c->n * w->width;
    off_t at = (off_t)hs;
    if (fflush(c->f.f) != 0)
        return g2e_fail(err, OFILE_E_WRITE, "writing '%s' failed: %s", c->f.name, strerror(errno ? errno : EIO));
    while (left) {
        ssize_t k = pread(c->f.sink->fd, w->conv, left < sizeof w->conv ? left : sizeof w->conv, at);
        if (k <= 0)
            return g2e_fail(err, OFILE_E_WRITE, "reading back '%s' failed: %s", c->f.name,
                            k < 0 ? strerror(errno) : "it is shorter than written");
        fwrite(w->conv, 1, (size_t)k, p->f.f); /* (errors: the commit's) */
        left -= (size_t)k, at += k;
    }
    p->n += c->n;
    w->folded = c->n;
    file_drop(c);
    w->next--;
    return 0;
}

int tokf_finish(tokf *w, g2e_err *err)
{
    int rc = doc_end(w, err);
    if (!rc && !w->cur.open && !w->prev.open && !w->done) /* no tokens at all: one empty file */
        rc = file_open(w, err);
    if (!rc && w->prev.open && w->cur.open && w->cur.n < w->o.shard_min)
        rc = fold(w, err);
    if (!rc && w->prev.open)
        rc = file_commit(w, &w->prev, err);
    if (!rc && w->cur.open)
        rc = file_commit(w, &w->cur, err);
    if (rc)
        tokf_abort(w);
    return rc;
}

void tokf_abort(tokf *w)
{
    g2e_err e;
    file_drop(&w->cur);
    if (w->prev.open) /* complete: it stays, as the shards before it */
        (void)file_commit(w, &w->prev, &e);
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

/* The shard number in name when it is stem_NNNNNN.ext exactly as tokf_shard_name writes it
 * (base: the stem's last component), else -1. */
static long shard_number(const char *name, const char *base, const char *ext)
{
    size_t bl = strlen(base), el = strlen(ext), n = strlen(name);
    if (n < bl + 1 + 6 + el || strncmp(name, base, bl) != 0 || name[bl] != '_' || strcmp(name + n - el, ext) != 0)
        return -1;
    const char *d = name + bl + 1;
    size_t dl = n - el - bl - 1;
    unsigned long v = 0;
    for (size_t i = 0; i < dl; i++) {
        if (d[i] < '0' || d[i] > '9' || v > 0xFFFFFFFFul / 10)
            return -1;
        v = v * 10 + (unsigned long)(d[i] - '0');
    }
    char canon[16];
    return v <= 0xFFFFFFFFul && snprintf(canon, sizeof canon, "%06lu", v) == (int)dl && memcmp(canon, d, dl) == 0
               ? (long)v : -1;
}

int tokf_remove_stale(tokf *w, tokf_stale *s, g2e_err *err)
{
    memset(s, 0, sizeof *s);
    if (!w->o.shard)
        return 0;
    const char *slash = strrchr(w->stem, '/');
    char *dir = slash ? strndup(w->stem, slash == w->stem ? 1 : (size_t)(slash - w->stem)) : strdup(".");
    const char *base = slash ? slash + 1 : w->stem;
    DIR *d = dir ? opendir(dir) : NULL;
    int rc = 0;
    if (!dir)
        rc = g2e_fail(err, G2E_ENOMEM, "out of memory");
    else if (!d)
        rc = g2e_fail(err, TOKF_E_STALE, "cannot read directory '%s' for an earlier run's shards: %s", dir,
                      strerror(errno));
    for (struct dirent *e; !rc && d && (e = readdir(d));) {
        long k = shard_number(e->d_name, base, w->ext);
        if (k < 0 || (unsigned long)k < w->done)
            continue;
        char *name = tokf_shard_name(w, (unsigned)k);
        if (!name)
            rc = g2e_fail(err, G2E_ENOMEM, "out of memory");
        else if (unlink(name) != 0 && errno != ENOENT)
            rc = g2e_fail(err, TOKF_E_STALE, "cannot remove '%s', left by an earlier run beside this run's %u shards: "
                          "%s", name, w->done, strerror(errno));
        else {
            s->lo = s->n && s->lo < (unsigned)k ? s->lo : (unsigned)k;
            s->hi = s->n && s->hi > (unsigned)k ? s->hi : (unsigned)k;
            s->n++;
        }
        free(name);
    }
    if (d)
        closedir(d);
    free(dir);
    return rc;
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
