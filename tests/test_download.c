/* test_download.c — the downloader against a real HTTP server on 127.0.0.1
 * (tests/hub_server.py: a Hub stand-in redirecting to a second "CDN" port), with faults.
 *
 * References are independent of the code under test: tensor bytes are compared with the
 * bytes the fixture writer put at offsets it computed itself, the source sha256 with the
 * one Python's hashlib gives the server, byte counts with the server's own log. */
#include "download.h"
#include "hubtest.h"
#include "safetensors.h"
#include "sha256.h"
#include "support.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static hub_server srv;
static char *dir;

static void setup(void)
{
    dir = test_tmpdir("download");
    /* nothing may leave loopback, and nothing from the machine may steer the test */
    unsetenv("http_proxy"); unsetenv("https_proxy"); unsetenv("HTTP_PROXY");
    unsetenv("HTTPS_PROXY"); unsetenv("ALL_PROXY"); unsetenv("all_proxy");
    setenv("NO_PROXY", "127.0.0.1,localhost", 1);
    unsetenv("HF_TOKEN"); unsetenv("HF_HUB_OFFLINE"); unsetenv("HF_ENDPOINT");
    unsetenv("HF_TOKEN_PATH");
    char *hh = path_join(dir, "hf-home");
    setenv("HF_HOME", hh, 1);   /* no token file there unless a test writes one */
    free(hh);
    srv.pid = -1;
    srv.in_fd = -1;
}

static void teardown(void)
{
    hub_stop(&srv);
    free(srv.log_path);
    srv.log_path = NULL;
    rm_tree(dir);
    free(dir);
}

TestSuite(download, .init = setup, .fini = teardown, .timeout = 120);

static dl_opts opts_for(const char *out)
{
    dl_opts o;
    memset(&o, 0, sizeof o);
    o.repo = "openai-community/gpt2";
    o.endpoint = srv.endpoint;
    o.out_path = out;
    o.backoff_ms = 10;
    o.backoff_max_ms = 50;
    o.stall_seconds = 10;
    o.connect_seconds = 5;
    return o;
}

static uint8_t *slurp(const char *path, size_t *n)
{
    uint8_t *b = (uint8_t *)read_file(path, n);
    cr_assert(b, "cannot read %s", path);
    return b;
}

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* The hex sha256 the server computed with hashlib (its cache file). */
static void server_sha(const hub_layout *l, char out[65])
{
    char *p = malloc(strlen(l->path) + 8);
    sprintf(p, "%s.sha256", l->path);
    size_t n;
    char *s = read_file(p, &n);
    cr_assert(s && n > 65, "no %s", p);
    char *sp = strrchr(s, ' ');
    cr_assert(sp);
    memcpy(out, sp + 1, 64);
    out[64] = '\0';
    free(s);
    free(p);
}

/* Checks that path holds exactly src's wte and wpe (bytes, names, order) and metadata. */
static void expect_embeddings_file(const char *path, const hub_layout *l)
{
    size_t n, sn;
    uint8_t *b = slurp(path, &n);
    uint8_t *src = slurp(l->path, &sn);
    cr_assert_eq(sn, l->size);
    cr_assert(n > 8);
    uint64_t hl = le64(b);
    cr_assert(hl < n - 8);
    uint64_t data = 8 + hl;
    /* source order: wpe before wte in a GPT-2 file sorted by name */
    int wpe_first = l->wpe_off < l->wte_off;
    uint64_t first = wpe_first ? l->wpe_len : l->wte_len;
    cr_assert_eq(n, data + l->wte_len + l->wpe_len, "size %zu", n);
    const uint8_t *wte = b + data + (wpe_first ? first : 0);
    const uint8_t *wpe = b + data + (wpe_first ? 0 : first);
    cr_expect(memcmp(wte, src + l->wte_off, l->wte_len) == 0, "wte bytes differ");
    cr_expect(memcmp(wpe, src + l->wpe_off, l->wpe_len) == 0, "wpe bytes differ");

    /* the loader accepts it, and its metadata is what the Hub said */
    st_file *st = NULL;
    g2e_err e;
    cr_assert_eq(st_open(&st, path, &e), 0, "%s", e.msg);
    cr_expect_eq(st->n_tensors, 2);
    const st_tensor *t = st_find(st, l->wte_name);
    cr_assert(t, "no %s", l->wte_name);
    cr_expect_eq(t->ndim, 2);
    cr_expect_eq(t->shape[0], l->n_vocab);
    cr_expect_eq(t->shape[1], l->n_embd);
    t = st_find(st, l->wpe_name);
    cr_assert(t, "no %s", l->wpe_name);
    cr_expect_eq(t->shape[0], l->n_ctx);
    char sha[65], num[32];
    server_sha(l, sha);
    snprintf(num, sizeof num, "%" PRIu64, l->size);
    cr_expect_str_eq(st_meta_get(st, "source_sha256"), sha);
    cr_expect_str_eq(st_meta_get(st, "source_size"), num);
    cr_expect_str_eq(st_meta_get(st, "source_repo"), "openai-community/gpt2");
    cr_expect_str_eq(st_meta_get(st, "source_commit"), "607a30d783dfa663caf39e06633721c8d4cfcd7e");
    cr_expect_str_eq(st_meta_get(st, "format"), "pt");
    uint8_t dg[32];
    char hex[65], key[128];
    sha256_digest(src + l->wte_off, l->wte_len, dg);
    sha256_hex(dg, hex);
    snprintf(key, sizeof key, "sha256.%s", l->wte_name);
    cr_expect_str_eq(st_meta_get(st, key), hex);
    sha256_digest(src + l->wpe_off, l->wpe_len, dg);
    sha256_hex(dg, hex);
    snprintf(key, sizeof key, "sha256.%s", l->wpe_name);
    cr_expect_str_eq(st_meta_get(st, key), hex);
    st_close(st);
    free(b);
    free(src);
}

static int exists(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0;
}

Test(download, embeddings_only_full_shape_is_byte_identical_and_small)
{
    hub_layout l = hub_fixture(1, 0);
    hub_start(&srv, l.path, dir, NULL);
    char *out = path_join(dir, "gpt2.safetensors");
    dl_opts o = opts_for(out);
    dl_result r;
    g2e_err e;
    cr_assert_eq(dl_fetch(&o, &r, &e), 0, "%s", e.msg);
    expect_embeddings_file(out, &l);
    /* only the length, the header and the two tensors crossed the wire */
    uint64_t want = 8 + l.header_len + l.wte_len + l.wpe_len;
    uint64_t sent = hub_sent(&srv);
    cr_expect(sent >= want && sent < want + 4096, "server sent %" PRIu64 ", want ~%" PRIu64, sent, want);
    cr_expect(r.transferred >= want && r.transferred < want + 4096, "transferred %" PRIu64, r.transferred);
    cr_expect_eq(r.source_size, l.size);
    cr_expect_eq(r.retries, 0);
    cr_expect_eq(r.resumed, 0);
    cr_expect(!exists("x"));
    char *part = malloc(strlen(out) + 16);
    sprintf(part, "%s.part", out);
    cr_expect(!exists(part), "the .part is gone");
    strcat(part, ".info");
    cr_expect(!exists(part), "the sidecar is gone");
    free(part);
    free(out);
    hub_layout_free(&l);
}
