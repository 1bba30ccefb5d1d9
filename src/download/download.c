/* SPDX-License-Identifier: MIT */
/* download.c — the two modes (embeddings only, full) and the entry point dl_fetch (see
 * download.h): the remote header fetched and checked, the output header written, the
 * tensors or the whole file fetched into the part, verified, put in place.
 *
 * The other pieces: dl_url.c (URLs), dl_auth.c (token, offline), dl_http.c (one exchange and
 * its retries), dl_store.c (the part file, free space, the Hugging Face cache). */
#include "download.h"
#include "dl_internal.h"
#include "locate.h"
#include "models.h"

#include "curl_dl.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* JSON string body of s (escaped) appended at *k in buf (NULL: just count). */
static size_t json_str(char *buf, size_t k, const char *s)
{
    static const char X[] = "0123456789abcdef";
    if (buf) buf[k] = '"';
    k++;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            if (buf) { buf[k] = '\\'; buf[k + 1] = (char)*p; }
            k += 2;
        } else if (*p < 0x20) {
            if (buf) {
                memcpy(buf + k, "\\u00", 4);
                buf[k + 4] = X[*p >> 4];
                buf[k + 5] = X[*p & 15];
            }
            k += 6;
        } else {
            if (buf) buf[k] = (char)*p;
            k++;
        }
    }
    if (buf) buf[k] = '"';
    return k + 1;
}

static size_t json_raw(char *buf, size_t k, const char *s)
{
    size_t n = strlen(s);
    if (buf) memcpy(buf + k, s, n);
    return k + n;
}

/* The output header for tensors t[0..1] (source order) with hashes hx[i] (64 hex each). */
static size_t build_header(char *buf, const dl_ctx *c, const char *format,
                           const st_tensor *const t[2], const char hx[2][65])
{
    const dl_opts *o = c->o;
    char num[64];
    size_t k = 0;
    k = json_raw(buf, k, "{\"__metadata__\":{");
    if (format) {
        k = json_str(buf, k, "format");
        k = json_raw(buf, k, ":");
        k = json_str(buf, k, format);
        k = json_raw(buf, k, ",");
    }
    const char *kv[][2] = {
        {"source_repo", o->repo},
        {"source_revision", o->revision ? o->revision : "main"},
        {"source_commit", c->commit},
        {"source_file", o->filename ? o->filename : "model.safetensors"},
        {"source_sha256", c->etag},
    };
    for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++) {
        k = json_str(buf, k, kv[i][0]);
        k = json_raw(buf, k, ":");
        k = json_str(buf, k, kv[i][1]);
        k = json_raw(buf, k, ",");
    }
    snprintf(num, sizeof num, "%" PRIu64, c->size);
    k = json_str(buf, k, "source_size");
    k = json_raw(buf, k, ":");
    k = json_str(buf, k, num);
    for (int i = 0; i < 2; i++) {
        char key[600];
        snprintf(key, sizeof key, "sha256.%s", t[i]->name);
        k = json_raw(buf, k, ",");
        k = json_str(buf, k, key);
        k = json_raw(buf, k, ":");
        k = json_str(buf, k, hx[i]);
    }
    k = json_raw(buf, k, ",\"created_by\":\"gpt2-embed download\"}");
    uint64_t at = 0;
    for (int i = 0; i < 2; i++) {
        uint64_t nb = t[i]->end - t[i]->begin;
        k = json_raw(buf, k, ",");
        k = json_str(buf, k, t[i]->name);
        k = json_raw(buf, k, ":{\"dtype\":");
        k = json_str(buf, k, st_dtype_name(t[i]->dtype));
        k = json_raw(buf, k, ",\"shape\":[");
        for (int d = 0; d < t[i]->ndim; d++) {
            snprintf(num, sizeof num, "%s%" PRIu64, d ? "," : "", t[i]->shape[d]);
            k = json_raw(buf, k, num);
        }
        snprintf(num, sizeof num, "],\"data_offsets\":[%" PRIu64 ",%" PRIu64 "]}", at, at + nb);
        k = json_raw(buf, k, num);
        at += nb;
    }
    return json_raw(buf, k, "}");
}

static void put_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

const st_tensor *dl_find_emb(const st_file *st, const char *name)
{
    char pre[64];
    const st_tensor *t = st_find(st, name);
    if (t)
        return t;
    snprintf(pre, sizeof pre, "transformer.%s", name);
    return st_find(st, pre);
}

const char *dl_shape_str(const st_tensor *t, char *buf, size_t cap)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int d = 0; d < t->ndim && k < cap; d++)
        k += (size_t)snprintf(buf + k, cap - k, "%s%" PRIu64, d ? " x " : "", t->shape[d]);
    if (t->ndim == 0)
        snprintf(buf, cap, "a scalar");
    return buf;
}

int dl_check_shapes(const dl_opts *o, uint64_t file_size, const st_file *st,
                    const st_tensor *wte, const st_tensor *wpe, const char *what, g2e_err *err)
{
    char a[96], b[96];
    if (wte->ndim != 2 || wpe->ndim != 2 || wte->shape[1] != wpe->shape[1])
        return g2e_fail(err, DL_E_SHAPE, "%s: %s is %s and %s is %s: not the embeddings of a "
                        "GPT-2 model (two matrices of the same width)", what, wte->name,
                        dl_shape_str(wte, a, sizeof a), wpe->name, dl_shape_str(wpe, b, sizeof b));
    if (o->n_vocab && o->n_ctx && o->n_embd &&
        (wte->shape[0] != o->n_vocab || wpe->shape[0] != o->n_ctx || wte->shape[1] != o->n_embd))
        return g2e_fail(err, DL_E_SHAPE, "%s: %s is %s and %s is %s, but the model asked for has "
                        "%" PRIu64 " x %" PRIu64 " and %" PRIu64 " x %" PRIu64 "; not downloading "
                        "it (check --model and --repo)", what, wte->name,
                        dl_shape_str(wte, a, sizeof a), wpe->name, dl_shape_str(wpe, b, sizeof b),
                        o->n_vocab, o->n_embd, o->n_ctx, o->n_embd);
    if (o->full && o->n_layer && o->n_vocab && o->n_ctx && o->n_embd) {
        /* every tensor of GPT2Model in F32: wte, wpe, per block ln_1, attn.c_attn, attn.c_proj,
         * ln_2, mlp.c_fc, mlp.c_proj (12 E^2 + 13 E) and the attn.bias mask (C^2), ln_f */
        uint64_t E = o->n_embd, C = o->n_ctx, V = o->n_vocab, L = o->n_layer;
        if (E > (1u << 20) || C > (1u << 24) || V > (1u << 24) || L > 4096)
            return g2e_fail(err, DL_E_ARG, "the model asked for has implausible shapes");
        uint64_t params = V * E + C * E + L * (12 * E * E + 13 * E + C * C) + 2 * E;
        uint64_t most = st->data_start + 4 * params;
        if (file_size > most)
            return g2e_fail(err, DL_E_SHAPE, "%s is %" PRIu64 " bytes, more than a model of this "
                            "shape can be in F32 (%" PRIu64 "); not downloading it",
                            what, file_size, most);
    }
    return 0;
}

/* The remote file's length and header by two Range requests, validated by the loader;
 * *st (caller closes) and its wte/wpe, checked against the model asked for. */
static int fetch_header(dl_ctx *c, st_file **st, const st_tensor **wte_out,
                        const st_tensor **wpe_out, g2e_err *err)
{
    uint8_t len8[8], *json = NULL;
    g2e_err e2;
    int rc;
    *st = NULL;
    if (c->size < 8)
        return g2e_fail(err, DL_E_HEADER, "%s is %" PRIu64 " bytes: too short for safetensors",
                        c->shown_url, c->size);
    dl_set_stage(c, DL_STAGE_HEADER, 0, 8);
    if ((rc = dl_with_retries(c, 0, 8, len8, -1, 0, NULL, NULL, err)) != 0)
        return rc;
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--)
        n = n << 8 | len8[i];
    if (n > ST_MAX_HEADER || n > c->size - 8)
        return g2e_fail(err, DL_E_HEADER, "%s: header length %" PRIu64 " is over the limit or "
                        "past the end of the %" PRIu64 "-byte file", c->shown_url, n, c->size);
    if (n == 0)
        return g2e_fail(err, DL_E_HEADER, "%s: the header is empty", c->shown_url);
    if (!(json = malloc((size_t)n)))
        return g2e_fail(err, G2E_ENOMEM, "out of memory for a %" PRIu64 "-byte header", n);
    dl_set_stage(c, DL_STAGE_HEADER, 8, 8 + n);
    if ((rc = dl_with_retries(c, 8, n, json, -1, 0, NULL, NULL, err)) != 0)
        goto fail;
    if (st_parse_header(st, json, (size_t)n, c->size - 8 - n, &e2) != 0) {
        rc = g2e_fail(err, DL_E_HEADER, "the header of %s is not valid safetensors: %s",
                      c->shown_url, e2.msg);
        goto fail;
    }
    const st_tensor *wte = dl_find_emb(*st, "wte.weight"), *wpe = dl_find_emb(*st, "wpe.weight");
    if (!wte || !wpe) {
        rc = g2e_fail(err, DL_E_NO_EMBEDDINGS, "%s has no %s: not a GPT-2 model?", c->shown_url,
                      !wte ? "wte.weight (nor transformer.wte.weight)"
                           : "wpe.weight (nor transformer.wpe.weight)");
        goto fail;
    }
    if ((rc = dl_check_shapes(c->o, c->size, *st, wte, wpe, c->shown_url, err)) != 0)
        goto fail;
    *wte_out = wte;
    *wpe_out = wpe;
    free(json);
    return 0;
fail:
    st_close(*st);
    *st = NULL;
    free(json);
    return rc;
}

/* On resume: the last `ov` bytes the part holds of a source range (at part_at in the part,
 * src_at in the source) are fetched again and compared, so that a server whose bytes
 * changed under the same ETag is caught before new bytes are joined to old ones. A
 * mismatch discards the part (DL_E_CHANGED). */
static int check_overlap(dl_ctx *c, dl_part *p, uint64_t part_at, uint64_t src_at, uint64_t ov,
                         g2e_err *err)
{
    uint8_t *a = malloc(ov ? ov : 1), *b = malloc(ov ? ov : 1);
    int rc = 0;
    if (!a || !b) {
        rc = g2e_fail(err, G2E_ENOMEM, "out of memory");
    } else if (dl_read_all_at(p->fd, a, (size_t)ov, part_at) != 0) {
        rc = g2e_fail(err, DL_E_IO, "cannot read back %s: %s", p->path,
                      errno ? strerror(errno) : "file too short");
    } else if ((rc = dl_with_retries(c, src_at, ov, b, -1, 0, NULL, NULL, err)) == 0 &&
               memcmp(a, b, (size_t)ov) != 0) {
        dl_part_discard(p);
        rc = g2e_fail(err, DL_E_CHANGED, "the %" PRIu64 " bytes before the resume point differ "
                      "from what %s serves now: its content changed under the same ETag %s; the "
                      "part was discarded, run again to download from the start", ov,
                      c->shown_url, c->etag);
    }
    free(a);
    free(b);
    return rc;
}

static int fetch_full(dl_ctx *c, g2e_err *err)
{
    const dl_opts *o = c->o;
    char info[4096];
    dl_part p = {0};
    p.fd = -1;
    int rc;
    if (!dl_is_sha256_hex(c->etag)) {
        return g2e_fail(err, DL_E_PROTOCOL, "the Hub gives no sha256 for %s (ETag '%s'), so a "
                        "full download cannot be verified", c->shown_url, c->etag);
    }
    st_file *hs = NULL;
    const st_tensor *wte, *wpe;
    if ((rc = fetch_header(c, &hs, &wte, &wpe, err)) != 0)
        return rc;
    st_close(hs);
    snprintf(info, sizeof info, "gpt2-embed part v1\nmode full\nrepo %s\nfile %s\netag %s\nsize %" PRIu64 "\n",
             o->repo, o->filename ? o->filename : "model.safetensors", c->etag, c->size);
    if ((rc = dl_part_open(&p, c->out_path, info, c->size, err)) != 0)
        goto fail;
    c->res->resumed = p.size;
    if ((rc = dl_check_space(p.path, c->size - p.size, err)) != 0) {
        if (p.size == 0)
            dl_part_discard(&p);
        goto fail;
    }
    if (p.size > 0) {
        uint64_t ov = p.size < DL_OVERLAP ? p.size : DL_OVERLAP;
        if ((rc = check_overlap(c, &p, p.size - ov, p.size - ov, ov, err)) != 0)
            goto fail;
    }
    sha256_ctx h;
    sha256_init(&h);
    if (p.size > 0) {
        dl_set_stage(c, DL_STAGE_VERIFY, 0, p.size);
        if ((rc = dl_hash_file_range(c, p.fd, 0, p.size, &h, err, p.path)) != 0)
            goto fail;
    }
    dl_set_stage(c, DL_STAGE_FILE, p.size, c->size);
    if (p.size < c->size &&
        (rc = dl_with_retries(c, p.size, c->size - p.size, NULL, p.fd, p.size, &h, NULL, err)) != 0) {
        if (rc == DL_E_CHANGED || rc == DL_E_PROTOCOL)
            dl_part_discard(&p);
        dl_part_kept(&p, rc, err);
        goto fail;
    }
    dl_set_stage(c, DL_STAGE_VERIFY, c->size, c->size);
    char hex[65];
    dl_hash_hex(&h, hex);
    if (strcmp(hex, c->etag) != 0) {
        dl_part_discard(&p);
        rc = g2e_fail(err, DL_E_CHECKSUM, "sha256 mismatch for %s: the Hub says %s, the download "
                      "gives %s; the download was discarded and %s left as it was",
                      c->shown_url, c->etag, hex, c->out_path);
        goto fail;
    }
    st_file *st = NULL;
    g2e_err e2;
    if (st_open(&st, p.path, &e2) != 0) {
        dl_part_discard(&p);
        rc = g2e_fail(err, DL_E_HEADER, "the downloaded file is not valid safetensors: %s", e2.msg);
        goto fail;
    }
    st_close(st);
    if ((rc = dl_part_commit(&p, c->out_path, err)) != 0)
        goto fail;
    c->res->out_size = c->size;
    dl_part_close(&p);
    return 0;
fail:
    dl_part_close(&p);
    return rc;
}

/* The tensors' hashes against the pins for repo at the commit the Hub named: 0 with
 * res->verified 1 (all pinned and equal) or 0 (a tensor not pinned); DL_E_CHECKSUM when a
 * pinned hash differs (the bytes changed, a resume included: they are not kept). */
static int check_pins(dl_ctx *c, const st_tensor *const t[2], const char hx[2][65], g2e_err *err)
{
    const dl_opts *o = c->o;
    int all = 1;
    for (int i = 0; i < 2; i++) {
        const models_pin *pin = models_pin_find(o->pins, o->n_pins, o->repo, c->commit, t[i]->name);
        if (!pin) {
            all = 0;
            continue;
        }
        if (strcmp(pin->sha256, hx[i]) != 0)
            return g2e_fail(err, DL_E_CHECKSUM, "sha256 of %s from %s at commit %.12s is %.16s..., not "
                            "the %.16s... pinned for that commit: the bytes changed (the download is "
                            "discarded)", t[i]->name, o->repo, c->commit, hx[i], pin->sha256);
    }
    c->res->verified = all;
    return 0;
}

/* An embeddings-only file's layout: the two tensors in file order, the new header (their
 * hashes placeholders of the final length until the bytes are in), the sizes. */
typedef struct emb_layout {
    const st_tensor *t[2];
    const char *format;
    char hx[2][65];
    char *hdr;       /* 8 + hl bytes (owned) */
    size_t hl;
    uint64_t nb[2], total;
} emb_layout;

static int layout_init(dl_ctx *c, const st_file *st, const st_tensor *wte, const st_tensor *wpe, emb_layout *L,
                       g2e_err *err)
{
    L->t[0] = wpe->begin < wte->begin ? wpe : wte;
    L->t[1] = wpe->begin < wte->begin ? wte : wpe;
    snprintf(c->res->wte_name, sizeof c->res->wte_name, "%s", wte->name);
    snprintf(c->res->wpe_name, sizeof c->res->wpe_name, "%s", wpe->name);
    L->format = st_meta_get(st, "format");
    memset(L->hx, '0', sizeof L->hx);
    L->hx[0][64] = L->hx[1][64] = '\0';
    /* spaces after the JSON put the data at a multiple of 8, as the reference writer does */
    size_t json_len = build_header(NULL, c, L->format, L->t, (const char(*)[65])L->hx);
    L->hl = json_len + (8 - json_len % 8) % 8;
    if (!(L->hdr = malloc(8 + L->hl)))
        return g2e_fail(err, G2E_ENOMEM, "out of memory");
    memset(L->hdr + 8 + json_len, ' ', L->hl - json_len);
    put_le64((uint8_t *)L->hdr, L->hl);
    build_header(L->hdr + 8, c, L->format, L->t, (const char(*)[65])L->hx);
    L->nb[0] = L->t[0]->end - L->t[0]->begin;
    L->nb[1] = L->t[1]->end - L->t[1]->begin;
    L->total = 8 + L->hl + L->nb[0] + L->nb[1];
    return 0;
}

/* The part file for L: opened (or an earlier run's found), room checked, the header written,
 * and where a resumed tensor stops its last stored bytes compared with the Hub's again. */
static int part_prepare(dl_ctx *c, const st_file *st, const emb_layout *L, dl_part *p, g2e_err *err)
{
    const dl_opts *o = c->o;
    const st_tensor *const *t = L->t;
    char info[4096];
    snprintf(info, sizeof info,
             "gpt2-embed part v1\nmode embeddings\nrepo %s\nfile %s\netag %s\nsize %" PRIu64
             "\nheader %zu\n%s %" PRIu64 "-%" PRIu64 "\n%s %" PRIu64 "-%" PRIu64 "\n",
             o->repo, o->filename ? o->filename : "model.safetensors", c->etag, c->size, L->hl,
             t[0]->name, t[0]->begin, t[0]->end, t[1]->name, t[1]->begin, t[1]->end);
    int rc = dl_part_open(p, c->out_path, info, L->total, err);
    if (rc)
        return rc;
    c->res->resumed = p->size;
    if ((rc = dl_check_space(p->path, L->total - p->size, err)) != 0) {
        if (p->size == 0)
            dl_part_discard(p);
        return rc;
    }
    uint64_t data = 8 + L->hl;
    if (p->size < data) {
        if (dl_write_all_at(p->fd, L->hdr, data, 0) != 0)
            return g2e_fail(err, DL_E_IO, "cannot write %s: %s", p->path, strerror(errno));
        p->size = data;
    }
    /* resuming inside (or at the end of) a tensor: its last stored bytes again, compared */
    for (int i = 0; i < 2 && p->size > data; i++) {
        uint64_t start = data + (i ? L->nb[0] : 0);
        if (p->size > start && p->size <= start + L->nb[i]) {
            uint64_t have = p->size - start, ov = have < DL_OVERLAP ? have : DL_OVERLAP;
            return check_overlap(c, p, p->size - ov, st->data_start + t[i]->begin + have - ov, ov, err);
        }
    }
    return 0;
}

/* The tensors' hashes: first over what an earlier run left, then the missing bytes fetched
 * and hashed as they arrive. */
static int fetch_tensors(dl_ctx *c, const st_file *st, const emb_layout *L, dl_part *p, sha256_ctx h[2],
                         g2e_err *err)
{
    uint64_t at = 8 + L->hl;
    int rc;
    if (p->size > at)
        dl_set_stage(c, DL_STAGE_VERIFY, 0, p->size - at);
    for (int i = 0; i < 2; i++) {
        sha256_init(&h[i]);
        uint64_t have = p->size > at ? p->size - at : 0;
        if (have > L->nb[i])
            have = L->nb[i];
        if (have && (rc = dl_hash_file_range(c, p->fd, at, have, &h[i], err, p->path)) != 0)
            return rc;
        at += L->nb[i];
    }
    dl_set_stage(c, DL_STAGE_TENSORS, p->size - 8 - L->hl, L->nb[0] + L->nb[1]);
    at = 8 + L->hl;
    for (int i = 0; i < 2; i++) {
        uint64_t end = at + L->nb[i];
        if (p->size < end) {
            uint64_t skip = p->size - at;
            rc = dl_with_retries(c, st->data_start + L->t[i]->begin + skip, L->nb[i] - skip, NULL, p->fd,
                                 p->size, &h[i], NULL, err);
            if (rc) {
                if (rc == DL_E_CHANGED || rc == DL_E_PROTOCOL)
                    dl_part_discard(p);
                dl_part_kept(p, rc, err);
                return rc;
            }
            p->size = end;
        }
        at = end;
    }
    return 0;
}

/* The hashes checked against the pins and written into the header; the file cut to its size,
 * read back as safetensors, and renamed into place. */
static int finish_part(dl_ctx *c, emb_layout *L, dl_part *p, const st_tensor *wte, const st_tensor *wpe,
                       sha256_ctx h[2], g2e_err *err)
{
    dl_set_stage(c, DL_STAGE_VERIFY, L->nb[0] + L->nb[1], L->nb[0] + L->nb[1]);
    for (int i = 0; i < 2; i++)
        dl_hash_hex(&h[i], L->hx[i]);
    int rc = check_pins(c, L->t, (const char(*)[65])L->hx, err);
    if (rc) {
        dl_part_discard(p);
        return rc;
    }
    build_header(L->hdr + 8, c, L->format, L->t, (const char(*)[65])L->hx);
    if (dl_write_all_at(p->fd, L->hdr, 8 + L->hl, 0) != 0)
        return g2e_fail(err, DL_E_IO, "cannot write %s: %s", p->path, strerror(errno));
    if (ftruncate(p->fd, (off_t)L->total) != 0)
        return g2e_fail(err, DL_E_IO, "cannot truncate %s: %s", p->path, strerror(errno));
    st_file *chk = NULL;
    g2e_err e2;
    if (st_open(&chk, p->path, &e2) != 0 || !st_find(chk, wte->name) || !st_find(chk, wpe->name)) {
        dl_part_discard(p);
        rc = g2e_fail(err, DL_E_HEADER, "the file written is not valid safetensors (%s); "
                      "discarded", chk ? "a tensor is missing" : e2.msg);
    }
    st_close(chk);
    if (!rc && !(rc = dl_part_commit(p, c->out_path, err)))
        c->res->out_size = L->total;
    return rc;
}

static int fetch_embeddings(dl_ctx *c, g2e_err *err)
{
    st_file *st = NULL;
    dl_part p = {0};
    p.fd = -1;
    const st_tensor *wte, *wpe;
    int rc = fetch_header(c, &st, &wte, &wpe, err);
    if (rc)
        return rc;
    emb_layout L = {0};
    sha256_ctx h[2];
    if (!(rc = layout_init(c, st, wte, wpe, &L, err)) && !(rc = part_prepare(c, st, &L, &p, err)) &&
        !(rc = fetch_tensors(c, st, &L, &p, h, err)))
        rc = finish_part(c, &L, &p, wte, wpe, h, err);
    st_close(st);
    free(L.hdr);
    dl_part_close(&p);
    return rc;
}

/* The context's fixed parts from opts: the output path, the limits, the endpoint and the URLs
 * (as shown), the token and its header. 0, or a DL_E_* code with err filled (c->token and
 * c->url may then be set: dl_fetch frees them). */
static int ctx_init(dl_ctx *c, const dl_opts *opts, dl_result *res, g2e_err *err)
{
    if (!opts || !opts->repo || !*opts->repo ||
        (!opts->hf_cache && (!opts->out_path || !*opts->out_path)))
        return g2e_fail(err, DL_E_ARG, "a repository and an output path are required");
    if (opts->hf_cache && !opts->full)
        return g2e_fail(err, DL_E_ARG, "only the full, verified checkpoint goes into the Hugging "
                        "Face cache: an embeddings-only file there would be taken for the model");
    if (!opts->hf_cache && snprintf(c->out_path, sizeof c->out_path, "%s", opts->out_path) >=
                               (int)sizeof c->out_path)
        return g2e_fail(err, DL_E_ARG, "the output path is too long");
    c->o = opts;
    c->res = res;
    c->t0 = dl_now();
    c->deadline = opts->deadline_seconds > 0 ? opts->deadline_seconds : 21600;
    c->attempt_limit = opts->attempt_seconds > 0 ? opts->attempt_seconds : 600;
    c->retry_limit = opts->retry_seconds > 0 ? opts->retry_seconds : 300;
    if (dl_offline())
        return g2e_fail(err, DL_E_OFFLINE, "HF_HUB_OFFLINE is set: not downloading %s (unset it "
                        "to download, or point --weights at a file you have)", opts->repo);
    int rc;
    if ((rc = dl_endpoint(opts->endpoint, c->endpoint, sizeof c->endpoint, err)) != 0 ||
        (rc = dl_resolve_url(&c->url, opts->endpoint, opts->repo, opts->revision, opts->filename, err)) != 0)
        return rc;
    dl_url_shown(c->url, c->shown_url, sizeof c->shown_url);
    dl_url_shown(c->endpoint, c->shown_endpoint, sizeof c->shown_endpoint);
    if ((rc = dl_read_token(opts->token, &c->token, err)) != 0)
        return rc;
    if (c->token) {
        if (strlen(c->token) > sizeof c->auth_header - 32)
            return g2e_fail(err, DL_E_ARG, "the Hugging Face token is too long");
        snprintf(c->auth_header, sizeof c->auth_header, "Authorization: Bearer %s", c->token);
    }
    return 0;
}

/* libcurl's easy handle with the options every request shares, into c->h. */
static int open_handle(dl_ctx *c, g2e_err *err)
{
    const dl_opts *opts = c->o;
    if (!dl_cu && !(dl_cu = curl_dl(DL_E_CURL, err)))
        return DL_E_CURL;
    c->h = dl_cu->easy_init(); /* (curl_global_init: once, by curl_dl) */
    if (!c->h)
        return g2e_fail(err, DL_E_CURL, "libcurl could not be initialised");
    dl_cu->easy_setopt(c->h, CURLOPT_NOSIGNAL, 1L);
    dl_cu->easy_setopt(c->h, CURLOPT_FOLLOWLOCATION, 0L);
    dl_cu->easy_setopt(c->h, CURLOPT_PROTOCOLS_STR, "http,https");
    dl_cu->easy_setopt(c->h, CURLOPT_USERAGENT, "gpt2-embed/" G2E_VERSION " (libcurl)");
    dl_cu->easy_setopt(c->h, CURLOPT_HEADERFUNCTION, dl_on_header);
    dl_cu->easy_setopt(c->h, CURLOPT_WRITEFUNCTION, dl_on_body);
    dl_cu->easy_setopt(c->h, CURLOPT_CONNECTTIMEOUT, opts->connect_seconds > 0 ? opts->connect_seconds : 30L);
    dl_cu->easy_setopt(c->h, CURLOPT_LOW_SPEED_LIMIT, opts->min_speed > 0 ? opts->min_speed : 10000L);
    dl_cu->easy_setopt(c->h, CURLOPT_LOW_SPEED_TIME, opts->stall_seconds > 0 ? opts->stall_seconds : 20L);
    return 0;
}

/* The file's metadata, as the Hub's client gets it (a HEAD, redirects not followed off-host):
 * its ETag, commit and size into c and res. */
static int resolve(dl_ctx *c, dl_result *res, g2e_err *err)
{
    dl_set_stage(c, DL_STAGE_RESOLVE, 0, 0);
    dl_resp m;
    int rc = dl_with_retries(c, 0, 0, NULL, -1, 0, NULL, &m, err);
    if (rc)
        return rc;
    dl_meta_etag(&m, c->etag, sizeof c->etag);
    snprintf(c->commit, sizeof c->commit, "%s", m.commit);
    const char *sz = m.linked_size[0] ? m.linked_size : m.content_length;
    if (!c->commit[0] || !c->etag[0] || !sz[0] || dl_parse_u64(sz, &c->size) != 0)
        return g2e_fail(err, DL_E_PROTOCOL, "%s did not give the file's metadata (X-Repo-Commit, "
                        "X-Linked-Etag/ETag, X-Linked-Size/Content-Length): is %s a Hugging Face Hub?",
                        c->shown_url, c->shown_endpoint);
    if (!dl_is_hex(c->commit, 40))
        return g2e_fail(err, DL_E_PROTOCOL, "%s gave X-Repo-Commit '%.80s', not a commit id (40 hex "
                        "digits): is %s a Hugging Face Hub?", c->shown_url, c->commit, c->shown_endpoint);
    snprintf(res->commit, sizeof res->commit, "%s", c->commit);
    snprintf(res->sha256, sizeof res->sha256, "%s", c->etag);
    res->source_size = c->size;
    return 0;
}

/* The bytes: reused from the Hugging Face cache, or fetched whole or as the two tables. */
static int fetch(dl_ctx *c, dl_result *res, g2e_err *err)
{
    const dl_opts *opts = c->o;
    int reuse = 0, rc = 0;
    if (opts->hf_cache && (rc = dl_cache_prepare(c, &reuse, err)) != 0)
        return rc;
    if (reuse)
        res->out_size = c->size;
    else
        rc = opts->full ? fetch_full(c, err) : fetch_embeddings(c, err);
    if (rc == 0 && opts->hf_cache)
        rc = dl_cache_link(c, err);
    if (rc == 0) {
        if (!opts->hf_cache)
            snprintf(res->path, sizeof res->path, "%s", c->out_path);
        res->reused = reuse;
        if (opts->full)
            res->verified = 1;   /* the whole file's sha256 was checked */
        dl_set_stage(c, DL_STAGE_DONE, res->out_size, res->out_size);
    }
    return rc;
}

int dl_fetch(const dl_opts *opts, dl_result *res, g2e_err *err)
{
    dl_result dummy;
    dl_ctx c;
    memset(&c, 0, sizeof c);
    if (!res)
        res = &dummy;
    memset(res, 0, sizeof *res);
    g2e_clear(err);
    int rc = ctx_init(&c, opts, res, err);
    if (!rc && !(rc = open_handle(&c, err)) && !(rc = resolve(&c, res, err)))
        rc = fetch(&c, res, err);
    if (c.h)
        dl_cu->easy_cleanup(c.h);
    if (c.token) {
        memset(c.token, 0, strlen(c.token));
        free(c.token);
    }
    memset(c.auth_header, 0, sizeof c.auth_header);
    free(c.url);
    return rc;
}
