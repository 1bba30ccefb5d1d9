/* SPDX-License-Identifier: MIT */
/* dl_local.c — what a download finds on this machine before it starts, and the options it
 * takes from the model catalogue and the test environment (download.h: dl_local_*). */
#include "dl_internal.h"
#include "models.h"
#include "safetensors.h"
#include "sha256.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* 0 unless the metadata records a sha256.<name> that the tensor's bytes do not match. */
static int tensors_intact(const st_file *st, g2e_err *e)
{
    for (size_t i = 0; i < st->n_tensors; i++) {
        const st_tensor *t = &st->tensors[i];
        char key[600], hex[SHA256_HEX_LEN + 1];
        snprintf(key, sizeof key, "sha256.%s", t->name);
        const char *want = st_meta_get(st, key);
        if (!want || !st->data)
            continue;
        uint8_t dg[SHA256_DIGEST_LEN];
        sha256_digest(st->data + t->begin, (size_t)(t->end - t->begin), dg);
        sha256_hex(dg, hex);
        if (strcmp(hex, want) != 0)
            return g2e_fail(e, DL_E_CHECKSUM, "the bytes of %s do not match its recorded sha256",
                            t->name);
    }
    return 0;
}

dl_local_state dl_local_check(const char *path, const char *repo, const char *revision, int full,
                              char *commit, size_t cap, g2e_err *err)
{
    struct stat sb;
    st_file *st = NULL;
    g2e_clear(err);
    if (cap)
        commit[0] = '\0';
    if (stat(path, &sb) != 0)
        return DL_LOCAL_NONE;
    if (st_open(&st, path, err) != 0)
        return DL_LOCAL_BAD;
    if (!dl_find_emb(st, "wte.weight") || !dl_find_emb(st, "wpe.weight") || tensors_intact(st, err)) {
        if (!err || err->code == 0)
            g2e_fail(err, DL_E_NO_EMBEDDINGS, "no wte/wpe");
        st_close(st);
        return DL_LOCAL_BAD;
    }
    const char *srepo = st_meta_get(st, "source_repo");
    const char *srev = st_meta_get(st, "source_revision");
    const char *c = st_meta_get(st, "source_commit");
    int same = !srepo || (strcmp(srepo, repo) == 0 && ((srev && strcmp(srev, revision) == 0) ||
                                                       (c && strcmp(c, revision) == 0)));
    int enough = same && (!full || st->n_tensors > 2);
    if (c && cap)
        snprintf(commit, cap, "%s", c);
    st_close(st);
    return enough ? DL_LOCAL_GOOD : DL_LOCAL_OTHER;
}

static void describe(char *buf, size_t cap, const st_tensor *t)
{
    char shape[256];
    snprintf(buf, cap, "%s (%s, %s)", t->name, dl_shape_str(t, shape, sizeof shape),
             st_dtype_name(t->dtype));
}

int dl_local_describe(const char *path, char *wte, char *wpe, size_t cap)
{
    st_file *st = NULL;
    if (st_open(&st, path, NULL) != 0)
        return -1;
    const st_tensor *a = dl_find_emb(st, "wte.weight"), *b = dl_find_emb(st, "wpe.weight");
    if (a)
        describe(wte, cap, a);
    if (b)
        describe(wpe, cap, b);
    st_close(st);
    return 0;
}

int dl_mkdirs(const char *path)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = buf + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char keep = *p;
        *p = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = keep;
        if (!keep)
            return 0;
    }
}

#ifdef G2E_TEST_HOOKS
/* The environment variable name as a whole number <= hi, or 0 if unset or not one. */
static int env_uint(const char *name, unsigned long hi, unsigned long *out)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return 0;
    char *end;
    errno = 0;
    unsigned long x = strtoul(v, &end, 10);
    if (errno || *end || x > hi)
        return 0;
    *out = x;
    return 1;
}
#endif

#ifdef G2E_TEST_HOOKS
/* $GPT2_EMBED_TEST_PINS: "REPO@COMMIT:TENSOR=SHA256,..." (at most 8) as d's pin table, so
 * that the tests can pin the fixture's tensors (the catalogue pins no real ones). */
static void test_pins(dl_opts *d)
{
    static char buf[4096];
    static models_pin pins[8];
    const char *v = getenv("GPT2_EMBED_TEST_PINS");
    if (!v || !*v || strlen(v) >= sizeof buf)
        return;
    strcpy(buf, v);
    size_t n = 0;
    for (char *save = NULL, *e = strtok_r(buf, ",", &save); e && n < 8; e = strtok_r(NULL, ",", &save)) {
        char *at = strchr(e, '@'), *colon = at ? strchr(at, ':') : NULL, *eq = colon ? strchr(colon, '=') : NULL;
        if (!eq)
            continue;
        *at = *colon = *eq = '\0';
        pins[n++] = (models_pin){e, at + 1, colon + 1, eq + 1};
    }
    d->pins = pins;
    d->n_pins = n;
}
#endif

/* The test suite's knobs (download.h) exist only in the objects built with G2E_TEST_HOOKS,
 * which only the tests link: the shipped program and library read no such variable. */
void dl_opts_model(dl_opts *d, const char *model)
{
    const models_info *mi = model ? models_find(model) : NULL;
    int any_shape = 0;
#ifdef G2E_TEST_HOOKS
    unsigned long v;
    any_shape = env_uint("GPT2_EMBED_TEST_ANY_SHAPE", 1, &v) && v;
    if (env_uint("GPT2_EMBED_TEST_BACKOFF_MS", 600000, &v)) {
        d->backoff_ms = v ? (unsigned)v : 1;
        d->backoff_max_ms = v ? (unsigned)v : 1;
    }
    if (env_uint("GPT2_EMBED_TEST_ATTEMPTS", 1000, &v) && v > 0)
        d->max_attempts = (int)v;
    test_pins(d);
#endif
    if (mi && !any_shape) {
        d->n_vocab = mi->n_vocab;   /* checked before a tensor byte is fetched */
        d->n_ctx = mi->n_ctx;
        d->n_embd = mi->n_embd;
        d->n_layer = mi->n_layer;
    }
}
