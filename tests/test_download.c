/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* memmem */
/* test_download.c — the downloader against a real HTTP server on 127.0.0.1
 * (tests/hub_server.py: a Hub stand-in redirecting to a second "CDN" port), with faults.
 *
 * References are independent of the code under test: tensor bytes are compared with the
 * bytes the fixture writer put at offsets it computed itself, the source sha256 with the
 * one Python's hashlib gives the server, byte counts with the server's own log. */
#include "download.h"
#include "hubtest.h"
#include "locate.h"
#include "models.h"
#include "safetensors.h"
#include "sha256.h"
#include "support.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
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

/* The stored rows hold the values the fixture writer meant: every row of a small file,
 * every 61st and the last of the full-shape one. */
static void expect_values(const hub_layout *l, int which, const uint8_t *base)
{
    size_t es = l->o.dtype == ST_F32 ? 4 : 2;
    uint64_t rows = which == FIXTURE_WTE ? l->n_vocab : l->n_ctx;
    uint64_t step = rows > 5000 ? 61 : 1;
    int bad = 0;
    for (uint64_t r = 0; r < rows; r = r + step < rows || r == rows - 1 ? r + step : rows - 1) {
        for (uint64_t c = 0; c < l->n_embd; c++) {
            const uint8_t *p = base + (r * l->n_embd + c) * es;
            float got;
            if (es == 4) {
                memcpy(&got, p, 4);
            } else {
                uint16_t u = (uint16_t)(p[0] | p[1] << 8);
                got = l->o.dtype == ST_BF16 ? fixture_bf16_to_f32(u) : fixture_f16_to_f32(u);
            }
            float want = fixture_expected(&l->o, which, r, c);
            if (memcmp(&got, &want, 4) != 0 && bad++ < 3)
                cr_expect_fail("%s[%" PRIu64 "][%" PRIu64 "] = %g, want %g",
                               which == FIXTURE_WTE ? "wte" : "wpe", r, c, (double)got, (double)want);
        }
    }
}

/* Checks that path holds exactly src's wte and wpe (bytes, names, order) and metadata. */
static void expect_embeddings_file_of(const char *path, const hub_layout *l, const char *repo)
{
    size_t n, sn;
    uint8_t *b = slurp(path, &n);
    uint8_t *src = slurp(l->path, &sn);
    cr_assert_eq(sn, l->size);
    cr_assert(n > 8);
    uint64_t hl = le64(b);
    cr_assert(hl < n - 8);
    cr_expect_eq((8 + hl) % 8, 0, "data section at %" PRIu64 ", not 8-aligned", 8 + hl);
    uint64_t data = 8 + hl;
    /* source order: wpe before wte in a GPT-2 file sorted by name */
    int wpe_first = l->wpe_off < l->wte_off;
    uint64_t first = wpe_first ? l->wpe_len : l->wte_len;
    cr_assert_eq(n, data + l->wte_len + l->wpe_len, "size %zu", n);
    const uint8_t *wte = b + data + (wpe_first ? first : 0);
    const uint8_t *wpe = b + data + (wpe_first ? 0 : first);
    cr_expect(memcmp(wte, src + l->wte_off, l->wte_len) == 0, "wte bytes differ");
    cr_expect(memcmp(wpe, src + l->wpe_off, l->wpe_len) == 0, "wpe bytes differ");
    /* and they hold the values the fixture writer meant (every row of a small file,
     * every 61st and the last of the full-shape one) */
    for (int which = 0; which < 2; which++)
        expect_values(l, which, which == FIXTURE_WTE ? wte : wpe);

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
    cr_expect_str_eq(st_meta_get(st, "source_repo"), repo);
    cr_expect_str_eq(st_meta_get(st, "source_commit"), "607a30d783dfa663caf39e06633721c8d4cfcd7e");
    cr_expect_str_eq(st_meta_get(st, "format"), "pt");
    cr_expect_eq(t->dtype, l->o.dtype);
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

static void expect_embeddings_file(const char *path, const hub_layout *l)
{
    expect_embeddings_file_of(path, l, "openai-community/gpt2");
}

static int exists(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0;
}

Test(download, embeddings_only_full_shape_is_byte_identical_and_small)
{
    hub_layout l = hub_fixture(HUB_GPT2);
    hub_start(&srv, l.path, dir, NULL);
    char *out = path_join(dir, "gpt2.safetensors");
    dl_opts o = opts_for(out);
    dl_result r;
    g2e_err e;
    cr_assert_eq(dl_fetch(&o, &r, &e), 0, "%s", e.msg);
    expect_embeddings_file(out, &l);
    /* only the length, the header and the two tensors crossed the wire: for gpt2's
     * layout 8 + 14,283 + 50257 x 768 x 4 + 1024 x 768 x 4 = 157,549,523 of 548,105,171 */
    uint64_t want = 8 + l.header_len + l.wte_len + l.wpe_len;
    cr_expect_eq(l.size, FIXTURE_GPT2_FILE_SIZE);
    cr_expect_eq(want, 157549523ull);
    uint64_t sent = hub_sent(&srv);
    cr_expect(sent >= want && sent < want + 4096, "server sent %" PRIu64 ", want ~%" PRIu64, sent, want);
    cr_expect(r.transferred >= want && r.transferred < want + 4096, "transferred %" PRIu64, r.transferred);
    cr_expect_eq(r.source_size, l.size);
    cr_expect_eq(r.retries, 0);
    cr_expect_eq(r.resumed, 0);
    /* the metadata came from the Hub's own answer: no HEAD went to the CDN */
    cr_expect_eq(hub_count(&srv, "hub", "HEAD"), 1);
    cr_expect_eq(hub_count(&srv, "cdn", "HEAD"), 0);
    char *part = malloc(strlen(out) + 16);
    sprintf(part, "%s.part", out);
    cr_expect(!exists(part), "the .part is gone");
    strcat(part, ".info");
    cr_expect(!exists(part), "the sidecar is gone");
    free(part);
    free(out);
    hub_layout_free(&l);
}

static char *part_of(const char *out, const char *suffix)
{
    char *p = malloc(strlen(out) + strlen(suffix) + 1);
    sprintf(p, "%s%s", out, suffix);
    return p;
}

static uint64_t file_size(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 ? (uint64_t)sb.st_size : 0;
}

/* Serves fixture l with the given faults; downloads into dir/out.safetensors. */
static int fetch_with(const hub_layout *l, const char *const *args, int full, dl_result *r,
                      g2e_err *e, char **out_path)
{
    hub_start(&srv, l->path, dir, args);
    *out_path = path_join(dir, "out.safetensors");
    dl_opts o = opts_for(*out_path);
    o.full = full;
    return dl_fetch(&o, r, e);
}

static void expect_same_file(const char *a, const char *b)
{
    size_t na, nb;
    uint8_t *x = slurp(a, &na), *y = slurp(b, &nb);
    cr_expect_eq(na, nb, "%s is %zu bytes, %s %zu", a, na, b, nb);
    cr_expect(na == nb && memcmp(x, y, na) == 0, "%s and %s differ", a, b);
    free(x);
    free(y);
}

Test(download, prefixed_names_are_kept)
{
    hub_layout l = hub_fixture(HUB_TINY_BF16);
    char *out;
    dl_result r;
    g2e_err e;
    cr_assert_eq(fetch_with(&l, NULL, 0, &r, &e, &out), 0, "%s", e.msg);
    cr_expect_str_eq(r.wte_name, "transformer.wte.weight");
    cr_expect_str_eq(r.wpe_name, "transformer.wpe.weight");
    expect_embeddings_file(out, &l);
    free(out);
    hub_layout_free(&l);
}

Test(download, full_file_verified_against_sha256)
{
    hub_layout l = hub_fixture(HUB_TINY);
    char *out;
    dl_result r;
    g2e_err e;
    cr_assert_eq(fetch_with(&l, NULL, 1, &r, &e, &out), 0, "%s", e.msg);
    expect_same_file(out, l.path);
    char sha[65];
    server_sha(&l, sha);
    cr_expect_str_eq(r.sha256, sha);
    cr_expect_eq(r.out_size, l.size);
    free(out);
    hub_layout_free(&l);
}

LongTest(download, full_shape_full_file)
{
    hub_layout l = hub_fixture(HUB_GPT2);
    char *out;
    dl_result r;
    g2e_err e;
    cr_assert_eq(fetch_with(&l, NULL, 1, &r, &e, &out), 0, "%s", e.msg);
    cr_expect_eq(file_size(out), l.size);
    /* the header is fetched (and checked) first, then the whole file */
    cr_expect(r.transferred >= l.size + 8 + l.header_len &&
              r.transferred < l.size + 8 + l.header_len + 4096, "%" PRIu64, r.transferred);
    expect_same_file(out, l.path);
    free(out);
    hub_layout_free(&l);
}

Test(download, resume_after_a_dropped_connection)
{
    hub_layout l = hub_fixture(HUB_GPT2);
    const char *args[] = {"--fault", "drop:after=30000000", NULL};
    char *out;
    dl_result r;
    g2e_err e;
    cr_assert_eq(fetch_with(&l, args, 0, &r, &e, &out), 0, "%s", e.msg);
    cr_expect_eq(r.retries, 1);
    expect_embeddings_file(out, &l);
    /* the retry asked for the rest only: no byte of the tensors came twice */
    uint64_t want = 8 + l.header_len + l.wte_len + l.wpe_len;
    cr_expect(r.transferred >= want && r.transferred < want + 8192,
              "transferred %" PRIu64 " for %" PRIu64, r.transferred, want);
    /* length, header, wpe, wte, and wte again from where the drop left it */
    cr_expect_eq(hub_count(&srv, "cdn", "status=206"), 5);
    free(out);
    hub_layout_free(&l);
}

Test(download, short_body_is_retried)
{
    hub_layout l = hub_fixture(HUB_TINY);
    const char *args[] = {"--fault", "short:after=1000", NULL};
    char *out;
    dl_result r;
    g2e_err e;
    cr_assert_eq(fetch_with(&l, args, 0, &r, &e, &out), 0, "%s", e.msg);
    cr_expect_eq(r.retries, 1);
    expect_embeddings_file(out, &l);
    free(out);
    hub_layout_free(&l);
}

Test(download, resume_across_calls_from_the_part_file)
{
    hub_layout l = hub_fixture(HUB_GPT2);
    const char *args[] = {"--fault", "drop:after=40000000", NULL};
    hub_start(&srv, l.path, dir, args);
    char *out = path_join(dir, "gpt2.safetensors");
    char *part = part_of(out, ".part"), *info = part_of(out, ".part.info");
    dl_opts o = opts_for(out);
    o.max_attempts = 1;
    dl_result r;
    g2e_err e;
    cr_assert_eq(dl_fetch(&o, &r, &e), DL_E_NETWORK, "rc %d: %s", e.code, e.msg);
    cr_expect(strstr(e.msg, "giving up after 1 attempt:") != NULL, "%s", e.msg);
    cr_expect(strstr(e.msg, "run again to resume") != NULL, "%s", e.msg);
    cr_expect(!exists(out), "no file in place after a failure");
    uint64_t have = file_size(part);
    /* the sidecar's format is what earlier versions wrote, so their parts resume too */
    size_t il;
    char *is = read_file(info, &il);
    cr_expect(is && strncmp(is, "gpt2-embed part v1\nmode embeddings\nrepo openai-community/gpt2\n",
                            62) == 0, "sidecar: %s", is ? is : "(none)");
    free(is);
    /* the part keeps what arrived (a reset may lose what was in flight) */
    cr_expect(have > 8 + l.header_len + l.wpe_len + 10000000, "part: %" PRIu64, have);
    cr_expect(exists(info));
    hub_stop(&srv);
    free(srv.log_path);

    hub_start(&srv, l.path, dir, NULL);   /* a new server, the same file */
    o = opts_for(out);
    cr_assert_eq(dl_fetch(&o, &r, &e), 0, "%s", e.msg);
    cr_expect_eq(r.resumed, have);
    /* only the rest, the length and header again, and the 64 KiB overlap checked */
    uint64_t total = 8 + l.header_len + l.wte_len + l.wpe_len;
    cr_expect(r.transferred >= total - have + 65536 &&
              r.transferred < total - have + 65536 + 8 + l.header_len + 4096,
              "transferred %" PRIu64 " of %" PRIu64 " with %" PRIu64 " resumed", r.transferred, total, have);
    expect_embeddings_file(out, &l);
    cr_expect(!exists(part) && !exists(info));
    free(part);
    free(info);
    free(out);
    hub_layout_free(&l);
}

Test(download, full_mode_resumes_across_calls_and_still_checks_the_whole_sha256)
{
    hub_layout l = hub_fixture(HUB_TINY);
    const char *args[] = {"--fault", "short:after=100000", NULL};
    hub_start(&srv, l.path, dir, args);
    char *out = path_join(dir, "gpt2.safetensors");
    char *part = part_of(out, ".part");
    dl_opts o = opts_for(out);
    o.full = 1;
    o.max_attempts = 1;
    dl_result r;
    g2e_err e;
    cr_assert_eq(dl_fetch(&o, &r, &e), DL_E_NETWORK, "%s", e.msg);
    cr_expect_eq(file_size(part), 100000);
    o.max_attempts = 0;
    cr_assert_eq(dl_fetch(&o, &r, &e), 0, "%s", e.msg);
    cr_expect_eq(r.resumed, 100000);
    expect_same_file(out, l.path);
    /* a part whose kept bytes were damaged meanwhile fails the whole-file sha256 */
    unlink(out);
    o.max_attempts = 1;
    hub_stop(&srv);
    free(srv.log_path);
    hub_start(&srv, l.path, dir, args);
    cr_assert_eq(dl_fetch(&o, &r, &e), DL_E_NETWORK, "%s", e.msg);
    FILE *f = fopen(part, "r+b");
    cr_assert(f);
    fseek(f, 5000, SEEK_SET);
    fputc('!', f);
    fclose(f);
    o.max_attempts = 0;
    cr_expect_eq(dl_fetch(&o, &r, &e), DL_E_CHECKSUM, "%s", e.msg);
    cr_expect(!exists(out) && !exists(part));
    free(part);
    free(out);
    hub_layout_free(&l);
}

Test(download, a_part_of_another_file_is_not_resumed)
{
    hub_layout l = hub_fixture(HUB_TINY);
    hub_start(&srv, l.path, dir, NULL);
    char *out = path_join(dir, "gpt2.safetensors");
    char *part = part_of(out, ".part"), *info = part_of(out, ".part.info");
    write_file(part, "garbage garbage garbage", 23);
    write_file(info, "gpt2-embed part v1\nmode embeddings\netag 00\n", 43);
    dl_opts o = opts_for(out);
    dl_result r;
    g2e_err e;
    cr_assert_eq(dl_fetch(&o, &r, &e), 0, "%s", e.msg);
    cr_expect_eq(r.resumed, 0);
    expect_embeddings_file(out, &l);
    free(part);
    free(info);
    free(out);
    hub_layout_free(&l);
}

Test(download, a_200_answer_to_a_range_request)
{
    hub_layout l = hub_fixture(HUB_TINY);
    const char *args[] = {"--fault", "ignore_range", NULL};
    char *out;
    dl_result r;
    g2e_err e;
    cr_assert_eq(fetch_with(&l, args, 0, &r, &e, &out), 0, "%s", e.msg);
    expect_embeddings_file(out, &l);
    cr_expect(hub_count(&srv, "cdn", "status=200") >= 3);
    cr_expect_eq(hub_count(&srv, "cdn", "status=206"), 0);
    free(out);
    hub_layout_free(&l);
}

Test(download, a_200_answer_in_full_mode_after_a_drop)
{
    /* resuming, the server ignores Range: the bytes before the offset are skipped */
    hub_layout l = hub_fixture(HUB_TINY);
    /* the first two are the length and the header, taken whole and cut short by us */
    const char *args[] = {"--fault", "drop:after=50000:times=3", "--fault", "ignore_range", NULL};
    char *out;
    dl_result r;
    g2e_err e;
    cr_assert_eq(fetch_with(&l, args, 1, &r, &e, &out), 0, "%s", e.msg);
    cr_expect_eq(r.retries, 1);
    expect_same_file(out, l.path);
    free(out);
    hub_layout_free(&l);
}

Test(download, retry_after_500_once)
{
    hub_layout l = hub_fixture(HUB_TINY);
    const char *args[] = {"--fault", "status:code=500:where=cdn", "--fault",
                          "status:code=503:where=hub:times=2", NULL};
    char *out;
    dl_result r;
    g2e_err e;
    cr_assert_eq(fetch_with(&l, args, 0, &r, &e, &out), 0, "%s", e.msg);
    cr_expect_eq(r.retries, 3);
    cr_expect_eq(hub_count(&srv, "cdn", "status=500"), 1);
    cr_expect_eq(hub_count(&srv, "hub", "status=503"), 2);
    expect_embeddings_file(out, &l);
    free(out);
    hub_layout_free(&l);
}

Test(download, persistent_429_gives_up_after_the_bound)
{
    hub_layout l = hub_fixture(HUB_TINY);
    const char *args[] = {"--fault", "status:code=429:where=hub:times=-1", NULL};
    hub_start(&srv, l.path, dir, args);
    char *out = path_join(dir, "gpt2.safetensors");
    dl_opts o = opts_for(out);
    o.max_attempts = 3;
    dl_result r;
    g2e_err e;
    cr_expect_eq(dl_fetch(&o, &r, &e), DL_E_HTTP);
    cr_expect(strstr(e.msg, "giving up after 3 attempts") && strstr(e.msg, "429"), "%s", e.msg);
    char *log = hub_log(&srv);
    cr_expect_eq(hub_count(&srv, "hub", NULL), 3, "%s", log);
    free(log);
    cr_expect(!exists(out));
    free(out);
    hub_layout_free(&l);
}

static double t_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Serves l with the faults in args, downloads with o (endpoint and output filled in);
 * expects code and needle in the one-line message, and no file in place. */
static void expect_slow_failure(const hub_layout *l, const char *const *args, dl_opts *o,
                                int code, const char *needle, const char *label)
{
    hub_start(&srv, l->path, dir, args);
    char *out = path_join(dir, "gpt2.safetensors");
    o->endpoint = srv.endpoint;
    o->out_path = out;
    dl_result r;
    g2e_err e;
    double t0 = t_now();
    int rc = dl_fetch(o, &r, &e);
    double el = t_now() - t0;
    cr_log_info("%s: %.2f s until: %s", label, el, e.msg);
    cr_expect_eq(rc, code, "%s: rc %d: %s", label, e.code, e.msg);
    cr_expect(strstr(e.msg, needle) != NULL, "%s: %s", label, e.msg);
    cr_expect(strchr(e.msg, '\n') == NULL, "one line: %s", e.msg);
    cr_expect(!exists(out), "%s: a file in place", label);
    free(out);
}

/* expect_slow_failure on the tiny fixture, labelled by the needle. */
static void expect_failure(const char *const *args, dl_opts *o, int code, const char *needle)
{
    hub_layout l = hub_fixture(HUB_TINY);
    expect_slow_failure(&l, args, o, code, needle, needle);
    hub_layout_free(&l);
}

/* Serves l with the faults in args, downloads with o (endpoint and output filled in) into
 * dir/gpt2.safetensors: one retry, then the embeddings file. */
static void expect_resumed_once(const hub_layout *l, const char *const *args, dl_opts *o)
{
    hub_start(&srv, l->path, dir, args);
    char *out = path_join(dir, "gpt2.safetensors");
    o->endpoint = srv.endpoint;
    o->out_path = out;
    dl_result r;
    g2e_err e;
    cr_assert_eq(dl_fetch(o, &r, &e), 0, "%s", e.msg);
    cr_expect_eq(r.retries, 1);
    expect_embeddings_file(out, l);
    free(out);
}

Test(download, not_found_repo)
{
    dl_opts o = opts_for("");
    o.repo = "nobody/nothing";
    expect_failure(NULL, &o, DL_E_NOT_FOUND, "no repository 'nobody/nothing'");
}

Test(download, not_found_revision)
{
    dl_opts o = opts_for("");
    o.revision = "v9";
    expect_failure(NULL, &o, DL_E_NOT_FOUND, "has no revision 'v9'");
}

Test(download, not_found_file)
{
    dl_opts o = opts_for("");
    o.filename = "pytorch_model.bin";
    expect_failure(NULL, &o, DL_E_NOT_FOUND, "has no file 'pytorch_model.bin'");
}

Test(download, unauthorized_without_token)
{
    const char *args[] = {"--token", "sekrit", NULL};
    dl_opts o = opts_for("");
    expect_failure(args, &o, DL_E_UNAUTHORIZED, "private");
}

Test(download, gated_repo)
{
    const char *args[] = {"--gated", NULL};
    dl_opts o = opts_for("");
    expect_failure(args, &o, DL_E_FORBIDDEN, "gated");
}

Test(download, offline_sends_nothing)
{
    setenv("HF_HUB_OFFLINE", "1", 1);
    dl_opts o = opts_for("");
    expect_failure(NULL, &o, DL_E_OFFLINE, "HF_HUB_OFFLINE");
    cr_expect_eq(hub_count(&srv, "hub", NULL) + hub_count(&srv, "cdn", NULL), 0);
}

Test(download, token_reaches_the_endpoint_but_never_the_cdn)
{
    setenv("HF_TOKEN", "sekrit", 1);
    hub_layout l = hub_fixture(HUB_TINY);
    const char *args[] = {"--token", "sekrit", NULL};
    char *out;
    dl_result r;
    g2e_err e;
    cr_assert_eq(fetch_with(&l, args, 0, &r, &e, &out), 0, "%s", e.msg);
    int hub_all = hub_count(&srv, "hub", NULL);
    cr_expect(hub_all >= 4);
    cr_expect_eq(hub_count(&srv, "hub", "Authorization: Bearer sekrit"), hub_all);
    cr_expect(hub_count(&srv, "cdn", NULL) >= 4);
    cr_expect_eq(hub_count(&srv, "cdn", "Authorization"), 0);
    cr_expect_eq(hub_count(&srv, "cdn", "sekrit"), 0);
    expect_embeddings_file(out, &l);
    free(out);
    hub_layout_free(&l);
}

Test(download, a_renamed_repo_is_followed_on_the_same_host_with_the_token)
{
    setenv("HF_TOKEN", "sekrit", 1);
    hub_layout l = hub_fixture(HUB_TINY);
    const char *args[] = {"--renamed", "gpt2", "--token", "sekrit", NULL};
    hub_start(&srv, l.path, dir, args);
    char *out = path_join(dir, "gpt2.safetensors");
    dl_opts o = opts_for(out);
    o.repo = "gpt2";
    dl_result r;
    g2e_err e;
    cr_assert_eq(dl_fetch(&o, &r, &e), 0, "%s", e.msg);
    int moved = hub_count(&srv, "hub", "status=307");
    cr_expect(moved >= 4);
    cr_expect_eq(hub_count(&srv, "hub", "status=302"), moved);
    cr_expect_eq(hub_count(&srv, "hub", "Bearer sekrit"), 2 * moved);
    cr_expect_eq(hub_count(&srv, "cdn", "sekrit"), 0);
    char sha[65];
    server_sha(&l, sha);
    cr_expect_str_eq(r.sha256, sha);
    free(out);
    hub_layout_free(&l);
}

Test(download, a_part_being_written_is_not_touched)
{
    hub_layout l = hub_fixture(HUB_TINY);
    hub_start(&srv, l.path, dir, NULL);
    char *out = path_join(dir, "gpt2.safetensors");
    char *part = part_of(out, ".part");
    int fd = open(part, O_RDWR | O_CREAT, 0644);
    cr_assert(fd >= 0);
    cr_assert(write(fd, "busy", 4) == 4);
    cr_assert_eq(flock(fd, LOCK_EX), 0);
    dl_opts o = opts_for(out);
    dl_result r;
    g2e_err e;
    cr_expect_eq(dl_fetch(&o, &r, &e), DL_E_BUSY, "%s", e.msg);
    cr_expect_eq(file_size(part), 4);
    close(fd);
    free(part);
    free(out);
    hub_layout_free(&l);
}

Test(download, token_from_the_hf_home_file)
{
    char *tok = path_join(getenv("HF_HOME"), "token");
    mkdir(getenv("HF_HOME"), 0755);
    write_file(tok, "  sekrit\n", 9);
    hub_layout l = hub_fixture(HUB_TINY);
    const char *args[] = {"--token", "sekrit", NULL};
    char *out;
    dl_result r;
    g2e_err e;
    cr_assert_eq(fetch_with(&l, args, 0, &r, &e, &out), 0, "%s", e.msg);
    cr_expect_eq(hub_count(&srv, "cdn", "Authorization"), 0);
    free(tok);
    free(out);
    hub_layout_free(&l);
}

Test(download, checksum_mismatch_leaves_no_file)
{
    hub_layout l = hub_fixture(HUB_TINY);
    char arg[64];
    snprintf(arg, sizeof arg, "corrupt:offset=%" PRIu64, l.wte_off + 12345);
    const char *args[] = {"--fault", arg, NULL};
    char *out;
    dl_result r;
    g2e_err e;
    cr_expect_eq(fetch_with(&l, args, 1, &r, &e, &out), DL_E_CHECKSUM, "%s", e.msg);
    cr_expect(strstr(e.msg, "sha256 mismatch") != NULL, "%s", e.msg);
    char *part = part_of(out, ".part"), *info = part_of(out, ".part.info");
    cr_expect(!exists(out) && !exists(part) && !exists(info));
    free(part);
    free(info);
    free(out);
    hub_layout_free(&l);
}

Test(download, checksum_mismatch_keeps_the_good_file)
{
    hub_layout l = hub_fixture(HUB_TINY);
    char arg[64];
    snprintf(arg, sizeof arg, "corrupt:offset=%" PRIu64, l.size - 1);
    const char *args[] = {"--fault", arg, NULL};
    hub_start(&srv, l.path, dir, args);
    char *out = path_join(dir, "gpt2.safetensors");
    write_file(out, "the good old file", 17);
    dl_opts o = opts_for(out);
    o.full = 1;
    dl_result r;
    g2e_err e;
    cr_expect_eq(dl_fetch(&o, &r, &e), DL_E_CHECKSUM, "%s", e.msg);
    cr_expect(strstr(e.msg, "left as it was") != NULL, "%s", e.msg);
    size_t n;
    char *s = read_file(out, &n);
    cr_expect(s && n == 17 && memcmp(s, "the good old file", 17) == 0, "the old file changed");
    free(s);
    free(out);
    hub_layout_free(&l);
}

Test(download, a_failed_download_keeps_the_good_file)
{
    hub_layout l = hub_fixture(HUB_TINY);
    const char *args[] = {"--fault", "status:code=500:where=cdn:times=-1", NULL};
    hub_start(&srv, l.path, dir, args);
    char *out = path_join(dir, "gpt2.safetensors");
    write_file(out, "the good old file", 17);
    dl_opts o = opts_for(out);
    o.max_attempts = 2;
    dl_result r;
    g2e_err e;
    cr_expect_eq(dl_fetch(&o, &r, &e), DL_E_HTTP, "%s", e.msg);
    cr_expect(strstr(e.msg, "HTTP 500 from http://127.0.0.1:") != NULL, "%s", e.msg);
    cr_expect(strstr(e.msg, "sig=") == NULL, "the CDN's signed query stays out: %s", e.msg);
    size_t n;
    char *s = read_file(out, &n);
    cr_expect(s && n == 17 && memcmp(s, "the good old file", 17) == 0, "the old file changed");
    free(s);
    free(out);
    hub_layout_free(&l);
}

Test(download, etag_change_mid_download_discards_the_part)
{
    hub_layout l = hub_fixture(HUB_TINY);
    const char *args[] = {"--fault", "etag_change:after=3", NULL};
    char *out;
    dl_result r;
    g2e_err e;
    cr_expect_eq(fetch_with(&l, args, 0, &r, &e, &out), DL_E_CHANGED, "%s", e.msg);
    cr_expect(strstr(e.msg, "changed on the Hub") != NULL, "%s", e.msg);
    /* caught at the Hub's answer: no byte of the other version was even asked for */
    cr_expect_eq(hub_count(&srv, "cdn", NULL), 2);
    char *part = part_of(out, ".part");
    cr_expect(!exists(out) && !exists(part));
    free(part);
    free(out);
    hub_layout_free(&l);
}

Test(download, a_wrong_content_range_is_refused_and_the_part_dropped)
{
    hub_layout l = hub_fixture(HUB_TINY);
    const char *args[] = {"--fault", "shift_range", NULL};
    char *out;
    dl_result r;
    g2e_err e;
    cr_expect_eq(fetch_with(&l, args, 0, &r, &e, &out), DL_E_PROTOCOL, "%s", e.msg);
    cr_expect(strstr(e.msg, "asked for bytes 0-7, the server sent 1-") != NULL, "%s", e.msg);
    char *part = part_of(out, ".part");
    cr_expect(!exists(out) && !exists(part));
    free(part);
    free(out);
    hub_layout_free(&l);
}

Test(download, an_encoded_body_is_refused)
{
    hub_layout l = hub_fixture(HUB_TINY);
    const char *args[] = {"--fault", "encoded", NULL};
    char *out;
    dl_result r;
    g2e_err e;
    cr_expect_eq(fetch_with(&l, args, 0, &r, &e, &out), DL_E_PROTOCOL, "%s", e.msg);
    cr_expect(strstr(e.msg, "gzip-encoded") != NULL, "%s", e.msg);
    cr_expect(!exists(out));
    free(out);
    hub_layout_free(&l);
}

/* A source whose header is not valid safetensors, and one without embeddings. */
static void serve_bytes(const char *bytes, size_t n, int code, const char *needle)
{
    char *src = path_join(dir, "model.safetensors");
    write_file(src, bytes, n);
    hub_start(&srv, src, dir, NULL);
    char *out = path_join(dir, "gpt2.safetensors");
    dl_opts o = opts_for(out);
    dl_result r;
    g2e_err e;
    cr_expect_eq(dl_fetch(&o, &r, &e), code, "rc %d: %s", e.code, e.msg);
    cr_expect(strstr(e.msg, needle) != NULL, "%s", e.msg);
    char *part = part_of(out, ".part");
    cr_expect(!exists(out) && !exists(part));
    free(part);
    free(out);
    free(src);
}

Test(download, invalid_remote_header)
{
    const char bad[] = "\x0a\0\0\0\0\0\0\0{\"a\": nope";
    serve_bytes(bad, sizeof bad - 1, DL_E_HEADER, "not valid safetensors");
}

Test(download, header_length_past_the_end)
{
    const char bad[] = "\xff\xff\0\0\0\0\0\0{}";
    serve_bytes(bad, sizeof bad - 1, DL_E_HEADER, "past");
}

Test(download, no_embeddings_in_the_file)
{
    const char h[] = "{\"x\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}";
    char buf[128];
    size_t hl = sizeof h - 1;
    memset(buf, 0, sizeof buf);
    buf[0] = (char)hl;
    memcpy(buf + 8, h, hl);
    serve_bytes(buf, 8 + hl + 4, DL_E_NO_EMBEDDINGS, "wte.weight");
}

Test(download, etag_and_content_length_when_the_hub_serves_the_file_itself)
{
    hub_layout l = hub_fixture(HUB_TINY_BF16);
    const char *args[] = {"--direct", NULL};
    char *out;
    dl_result r;
    g2e_err e;
    cr_assert_eq(fetch_with(&l, args, 0, &r, &e, &out), 0, "%s", e.msg);
    cr_expect_eq(r.source_size, l.size);
    cr_expect_eq(hub_count(&srv, "cdn", NULL), 0);
    expect_embeddings_file(out, &l);
    unlink(out);
    dl_opts o = opts_for(out);
    o.full = 1;
    cr_assert_eq(dl_fetch(&o, &r, &e), 0, "%s", e.msg);
    expect_same_file(out, l.path);
    free(out);
    hub_layout_free(&l);
}

LongTest(download, a_stalled_transfer_times_out_and_resumes)
{
    hub_layout l = hub_fixture(HUB_TINY);
    const char *args[] = {"--fault", "stall:after=20000:seconds=4", NULL};
    dl_opts o = opts_for("");
    o.stall_seconds = 1;
    expect_resumed_once(&l, args, &o);
    hub_layout_free(&l);
}

Test(download, connection_refused_is_retried_then_reported)
{
    /* a port nobody listens on: start a server, note its port, stop it */
    hub_layout l = hub_fixture(HUB_TINY);
    hub_start(&srv, l.path, dir, NULL);
    char ep[64];
    snprintf(ep, sizeof ep, "%s", srv.endpoint);
    hub_stop(&srv);
    char *out = path_join(dir, "gpt2.safetensors");
    dl_opts o = opts_for(out);
    o.endpoint = ep;
    o.max_attempts = 2;
    dl_result r;
    g2e_err e;
    cr_expect_eq(dl_fetch(&o, &r, &e), DL_E_NETWORK, "%s", e.msg);
    cr_expect(strstr(e.msg, "giving up after 2 attempts") != NULL, "%s", e.msg);
    cr_expect_eq(r.retries, 1);
    cr_expect(!exists(out));
    free(out);
    hub_layout_free(&l);
}

Test(download, urls_and_origins)
{
    char *u;
    g2e_err e;
    cr_assert_eq(dl_resolve_url(&u, "http://h:1/", "org/name", "refs/pr/1", NULL, &e), 0);
    cr_expect_str_eq(u, "http://h:1/org/name/resolve/refs%2Fpr%2F1/model.safetensors");
    free(u);
    setenv("HF_ENDPOINT", "https://mirror.example//", 1);
    cr_assert_eq(dl_resolve_url(&u, NULL, "gpt2", NULL, "a b.json", &e), 0);
    cr_expect_str_eq(u, "https://mirror.example/gpt2/resolve/main/a%20b.json");
    free(u);
    unsetenv("HF_ENDPOINT");
    cr_assert_eq(dl_resolve_url(&u, NULL, "gpt2", "main", NULL, &e), 0);
    cr_expect_str_eq(u, "https://huggingface.co/gpt2/resolve/main/model.safetensors");
    free(u);
    cr_expect_eq(dl_resolve_url(&u, NULL, "", NULL, NULL, &e), DL_E_ARG);
    cr_expect_eq(dl_same_origin("https://huggingface.co/a", "https://HuggingFace.co:443/b"), 1);
    cr_expect_eq(dl_same_origin("http://127.0.0.1:8000/a", "http://127.0.0.1:8001/a"), 0);
    cr_expect_eq(dl_same_origin("http://huggingface.co/a", "https://huggingface.co/a"), 0);
    cr_expect_eq(dl_same_origin("https://cdn-lfs.huggingface.co/x", "https://huggingface.co"), 0);
    cr_expect_eq(dl_same_origin("not a url", "https://huggingface.co"), 0);
}

Test(download, offline_values)
{
    static const char *yes[] = {"1", "true", "TRUE", "yes", "On"};
    static const char *no[] = {"0", "", "false", "no"};
    for (size_t i = 0; i < 5; i++) {
        setenv("HF_HUB_OFFLINE", yes[i], 1);
        cr_expect_eq(dl_offline(), 1, "%s", yes[i]);
    }
    for (size_t i = 0; i < 4; i++) {
        setenv("HF_HUB_OFFLINE", no[i], 1);
        cr_expect_eq(dl_offline(), 0, "%s", no[i]);
    }
    unsetenv("HF_HUB_OFFLINE");
    cr_expect_eq(dl_offline(), 0);
}

Test(download, bad_arguments)
{
    dl_opts o;
    memset(&o, 0, sizeof o);
    g2e_err e;
    cr_expect_eq(dl_fetch(&o, NULL, &e), DL_E_ARG);
    cr_expect_eq(dl_fetch(NULL, NULL, &e), DL_E_ARG);
    o.repo = "a/b";
    o.out_path = "x";
    o.endpoint = "http://127.0.0.1:1";   /* never reached: the token is refused first */
    setenv("HF_TOKEN", "bad token", 1);
    cr_expect_eq(dl_fetch(&o, NULL, &e), DL_E_ARG);
    cr_expect(strstr(e.msg, "token") != NULL, "%s", e.msg);
}

/* ---- the command ---------------------------------------------------------------- */

/* Runs gpt2-embed download ARGS... in dir against the running server. */
static run_result cli(char *const extra_env[], const char *a1, ...)
{
    char *argv[32];
    int n = 0;
    argv[n++] = (char *)G2E_HOOK_BIN;
    argv[n++] = (char *)"download";
    va_list ap;
    va_start(ap, a1);
    for (const char *a = a1; a && n < 30; a = va_arg(ap, const char *))
        argv[n++] = (char *)a;
    va_end(ap);
    argv[n] = NULL;
    char ep[128];
    snprintf(ep, sizeof ep, "HF_ENDPOINT=%s", srv.endpoint);
    char *env[16];
    int k = 0;
    env[k++] = ep;
    env[k++] = (char *)"GPT2_EMBED_TEST_BACKOFF_MS=10";
    env[k++] = (char *)"GPT2_EMBED_TEST_ANY_SHAPE=1";   /* small fixtures stand in for gpt2 */
    for (int i = 0; extra_env && extra_env[i] && k < 15; i++)
        env[k++] = extra_env[i];
    env[k] = NULL;
    return run_argv(argv, NULL, 0, env, dir);
}

static int lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

Test(download, cli_help_and_usage_errors)
{
    run_result r = run_g2e("download", "--help", NULL);
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "usage: gpt2-embed download") != NULL, "%s", r.out);
    run_free(&r);
    r = run_g2e("download", "--bogus", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect_eq(lines(r.err), 1, "%s", r.err);
    run_free(&r);
    r = run_g2e("download", "--model", "gpt5", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "unknown model 'gpt5'") != NULL, "%s", r.err);
    run_free(&r);
    r = run_g2e("download", "--dir", NULL);
    cr_expect_eq(r.status, 2);
    run_free(&r);
}

Test(download, cli_downloads_then_finds_it_there)
{
    hub_layout l = hub_fixture(HUB_TINY);
    hub_start(&srv, l.path, dir, NULL);
    run_result r = cli(NULL, NULL);
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    char *out = path_join(dir, "weights/gpt2.safetensors");
    expect_embeddings_file(out, &l);
    /* not a terminal: plain lines per stage, no bar */
    cr_expect(strstr(r.err, "fetching the embeddings") != NULL, "%s", r.err);
    cr_expect(strchr(r.err, '\r') == NULL && strchr(r.err, '\033') == NULL, "%s", r.err);
    /* the summary: what, how much, where, how to use it */
    cr_expect(strstr(r.out, "wte.weight (1000 x 32, F32)") != NULL, "%s", r.out);
    cr_expect(strstr(r.out, "wpe.weight (64 x 32, F32)") != NULL, "%s", r.out);
    cr_expect(strstr(r.out, "transferred") != NULL, "%s", r.out);
    cr_expect(strstr(r.out, "written to weights/gpt2.safetensors") != NULL, "%s", r.out);
    cr_expect(strstr(r.out, "use it: gpt2-embed \"text\"") != NULL, "%s", r.out);
    run_free(&r);
    int before = hub_count(&srv, "hub", NULL);
    r = cli(NULL, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "already there") != NULL, "%s", r.out);
    cr_expect_eq(hub_count(&srv, "hub", NULL), before, "no request for a file in place");
    run_free(&r);
    /* the same file asked for by its commit is there too; another revision is not */
    r = cli(NULL, "--revision", "607a30d783dfa663caf39e06633721c8d4cfcd7e", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "already there") != NULL, "%s", r.out);
    run_free(&r);
    r = cli(NULL, "--revision", "v2", NULL);
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect(strstr(r.err, "no revision 'v2'") != NULL, "%s", r.err);
    run_free(&r);
    expect_embeddings_file(out, &l);
    /* a damaged file in place is noticed by its recorded sha256 and replaced */
    FILE *f = fopen(out, "r+b");
    cr_assert(f);
    cr_assert(fseek(f, -5, SEEK_END) == 0);
    int ch = fgetc(f);
    cr_assert(fseek(f, -5, SEEK_END) == 0);
    fputc(ch ^ 0x40, f);
    fclose(f);
    r = cli(NULL, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, "do not match its recorded sha256") != NULL, "%s", r.err);
    expect_embeddings_file(out, &l);
    run_free(&r);
    /* --full wants more than the embeddings file holds */
    r = cli(NULL, "--full", "--quiet", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(r.out_len + r.err_len, 0, "quiet: %s%s", r.out, r.err);
    expect_same_file(out, l.path);
    run_free(&r);
    free(out);
    hub_layout_free(&l);
}

/* issue 23: in Japanese the stage lines ("resolving ... at revision main"), the summary and
 * the "already there" answer are Japanese too. */
Test(download, cli_speaks_japanese)
{
    hub_layout l = hub_fixture(HUB_TINY);
    hub_start(&srv, l.path, dir, NULL);
    char *ja[] = {(char *)"LANGUAGE=ja", (char *)"-LC_ALL", (char *)"-LC_MESSAGES", NULL};
    run_result r = cli(ja, NULL);
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_expect(strstr(r.err, "gpt2-embed: http://127.0.0.1:") != NULL && strstr(r.err, "を解決しています") != NULL,
              "%s", r.err);
    cr_expect(strstr(r.err, "埋め込みを取得しています") != NULL, "%s", r.err);
    cr_expect(strstr(r.err, "resolving") == NULL && strstr(r.err, "fetching") == NULL, "%s", r.err);
    cr_expect(strstr(r.out, "ダウンロードしました") != NULL && strstr(r.out, "使うには: gpt2-embed \"text\"") != NULL,
              "%s", r.out);
    cr_expect(strstr(r.out, "downloaded") == NULL && strstr(r.out, "use it") == NULL, "%s", r.out);
    run_free(&r);
    r = cli(ja, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "はすでにあります") != NULL && strstr(r.out, "already") == NULL, "%s", r.out);
    run_free(&r);
    hub_layout_free(&l);
}

Test(download, cli_model_repo_and_dir)
{
    hub_layout l = hub_fixture(HUB_TINY);
    const char *args[] = {"--repo", "someone/tiny-gpt2", NULL};
    hub_start(&srv, l.path, dir, args);
    run_result r = cli(NULL, "--repo", "someone/tiny-gpt2", "--dir", "a/b", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char *out = path_join(dir, "a/b/tiny-gpt2.safetensors");
    expect_embeddings_file_of(out, &l, "someone/tiny-gpt2");
    cr_expect(strstr(r.out, "gpt2-embed --weights a/b/tiny-gpt2.safetensors") != NULL, "%s", r.out);
    run_free(&r);
    free(out);
    hub_layout_free(&l);
}

Test(download, cli_errors_are_one_line)
{
    hub_layout l = hub_fixture(HUB_TINY);
    hub_start(&srv, l.path, dir, NULL);
    run_result r = cli(NULL, "--revision", "nope", NULL);
    cr_expect_eq(r.status, 1);
    const char *msg = strstr(r.err, "gpt2-embed: download: HTTP 404");
    cr_expect(msg && lines(msg) == 1, "the error, one line, last: %s", r.err);
    cr_expect(strstr(r.err, "no revision 'nope'") != NULL, "%s", r.err);
    char *out = path_join(dir, "weights/gpt2.safetensors");
    cr_expect(!exists(out));
    run_free(&r);
    free(out);
    hub_layout_free(&l);
}

Test(download, cli_offline_sends_nothing_creates_nothing)
{
    hub_layout l = hub_fixture(HUB_TINY);
    hub_start(&srv, l.path, dir, NULL);
    char *env[] = {(char *)"HF_HUB_OFFLINE=1", NULL};
    run_result r = cli(env, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect_eq(lines(r.err), 1, "%s", r.err);
    cr_expect(strstr(r.err, "HF_HUB_OFFLINE") != NULL, "%s", r.err);
    char *w = path_join(dir, "weights");
    cr_expect(!exists(w));
    cr_expect_eq(hub_count(&srv, "hub", NULL) + hub_count(&srv, "cdn", NULL), 0);
    run_free(&r);
    free(w);
    hub_layout_free(&l);
}

Test(download, cli_uses_the_hugging_face_cache)
{
    hub_layout l = hub_fixture(HUB_TINY);
    hub_start(&srv, l.path, dir, NULL);
    const char *commit = "607a30d783dfa663caf39e06633721c8d4cfcd7e";
    char p[4096];
    snprintf(p, sizeof p, "mkdir -p '%s/hub/models--openai-community--gpt2/refs' "
             "'%s/hub/models--openai-community--gpt2/snapshots/%s' && printf %s > "
             "'%s/hub/models--openai-community--gpt2/refs/main' && cp '%s' "
             "'%s/hub/models--openai-community--gpt2/snapshots/%s/model.safetensors'",
             dir, dir, commit, commit, dir, l.path, dir, commit);
    cr_assert_eq(system(p), 0);
    char cache[4200];
    snprintf(cache, sizeof cache, "HF_HUB_CACHE=%s/hub", dir);
    char *env[] = {cache, NULL};
    run_result r = cli(env, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    snprintf(p, sizeof p, "%s/hub/models--openai-community--gpt2/snapshots/%s/model.safetensors",
             dir, commit);
    cr_expect(strstr(r.out, p) != NULL, "says where: %s", r.out);
    cr_expect_eq(hub_count(&srv, "hub", NULL), 0, "no request");
    char *out = path_join(dir, "weights/gpt2.safetensors");
    cr_expect(!exists(out));
    run_free(&r);
    r = cli(env, "--force", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    expect_embeddings_file(out, &l);
    run_free(&r);
    free(out);
    hub_layout_free(&l);
}

Test(download, cli_resumes_across_runs)
{
    hub_layout l = hub_fixture(HUB_GPT2);
    const char *args[] = {"--fault", "drop:after=50000000", NULL};
    hub_start(&srv, l.path, dir, args);
    char *env[] = {(char *)"GPT2_EMBED_TEST_ATTEMPTS=1", NULL};
    run_result r = cli(env, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "giving up after 1 attempt") != NULL, "%s", r.err);
    char *out = path_join(dir, "weights/gpt2.safetensors");
    char *part = part_of(out, ".part");
    cr_expect(!exists(out) && file_size(part) > 10000000);
    run_free(&r);
    r = cli(NULL, NULL);   /* the fault was used up: the same server serves the rest */
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, "resuming after") != NULL, "%s", r.err);
    cr_expect(strstr(r.out, "resuming after") != NULL, "%s", r.out);
    expect_embeddings_file(out, &l);
    run_free(&r);
    free(part);
    free(out);
    hub_layout_free(&l);
}

Test(download, cli_draws_a_bar_on_a_terminal)
{
    hub_layout l = hub_fixture(HUB_TINY);
    hub_start(&srv, l.path, dir, NULL);
    /* util-linux script(1) gives the command a pseudo-terminal */
    char *argv[] = {(char *)"/usr/bin/script", (char *)"-qec",
                    (char *)G2E_HOOK_BIN " download", (char *)"/dev/null", NULL};
    char ep[128];
    snprintf(ep, sizeof ep, "HF_ENDPOINT=%s", srv.endpoint);
    char *env[] = {ep, (char *)"GPT2_EMBED_TEST_ANY_SHAPE=1", NULL};
    run_result r = run_argv(argv, NULL, 0, env, dir);
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "\rtensors  [##############################] 100.0%") != NULL,
              "%s", r.out);
    cr_expect(strstr(r.out, "/s  ETA ") != NULL, "%s", r.out);
    cr_expect(strstr(r.out, "written to weights/gpt2.safetensors") != NULL, "%s", r.out);
    run_free(&r);
    hub_layout_free(&l);
}

Test(download, cli_reports_retries)
{
    hub_layout l = hub_fixture(HUB_TINY);
    const char *args[] = {"--fault", "status:code=502:where=cdn", NULL};
    hub_start(&srv, l.path, dir, args);
    run_result r = cli(NULL, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, "HTTP 502") && strstr(r.err, "retrying in"), "%s", r.err);
    cr_expect(strstr(r.out, "1 retry") != NULL, "%s", r.out);
    run_free(&r);
    hub_layout_free(&l);
}

/* ---- races, links and special files (issue 15, items 1 and 2) -------------------- */

static void wait_for(const char *path)
{
    for (int i = 0; i < 3000 && !exists(path); i++)
        usleep(10000);
    cr_assert(exists(path), "%s never appeared", path);
}

Test(download, a_part_renamed_into_place_meanwhile_is_never_truncated)
{
    /* B opens gpt2.safetensors.part and is held (the test-only gate) before its lock; A
     * downloads the same file, renames the part into place and exits; then B goes on.
     * B's descriptor now is the finished file: B must notice and leave it alone. */
    hub_layout l = hub_fixture(HUB_TINY);
    hub_start(&srv, l.path, dir, NULL);
    hub_server bad;
    char *bdir = path_join(dir, "b");
    mkdir(bdir, 0755);
    const char *fail[] = {"--fault", "drop:after=100000:times=-1", NULL};
    hub_start(&bad, l.path, bdir, fail);
    char *out = path_join(dir, "gpt2.safetensors");
    char *gate = path_join(dir, "gate");
    mkdir(gate, 0755);
    char *opened = path_join(gate, "opened"), *go = path_join(gate, "go");
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        setenv("GPT2_EMBED_TEST_PART_GATE", gate, 1);
        dl_opts o = opts_for(out);
        o.endpoint = bad.endpoint;
        o.full = 1;
        o.max_attempts = 1;
        g2e_err e;
        int rc = dl_fetch(&o, NULL, &e);
        _exit(rc == 0 ? 0 : rc == DL_E_NETWORK ? 10 : 11);
    }
    wait_for(opened);
    dl_opts o = opts_for(out);
    o.full = 1;
    dl_result r;
    g2e_err e;
    cr_expect_eq(dl_fetch(&o, &r, &e), 0, "A: %s", e.msg);
    write_file(go, "", 0);
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 10, "B: status %d", st);
    expect_same_file(out, l.path);
    hub_stop(&bad);
    free(bad.log_path);
    free(opened);
    free(go);
    free(gate);
    free(bdir);
    free(out);
    hub_layout_free(&l);
}

/* A planted link or special file where the part or its sidecar goes: refused with a
 * message naming it, the file it points to untouched, nothing renamed into place. */
static void expect_planted_refused(const char *suffix, const char *kind, const char *needle)
{
    hub_layout l = hub_fixture(HUB_TINY);
    hub_start(&srv, l.path, dir, NULL);
    char *out = path_join(dir, "gpt2.safetensors");
    char *victim = path_join(dir, "precious.txt");
    char *planted = part_of(out, suffix);
    write_file(victim, "precious", 8);
    if (strcmp(suffix, ".part.info") == 0) {
        char *part = part_of(out, ".part");
        write_file(part, "", 0);
        free(part);
    }
    if (strcmp(kind, "symlink") == 0)
        cr_assert_eq(symlink(victim, planted), 0);
    else if (strcmp(kind, "hardlink") == 0)
        cr_assert_eq(link(victim, planted), 0);
    else if (strcmp(kind, "dangling") == 0)
        cr_assert_eq(symlink("nowhere/precious", planted), 0);
    else
        cr_assert_eq(mkfifo(planted, 0644), 0);
    for (int full = 0; full < 2; full++) {
        dl_opts o = opts_for(out);
        o.full = full;
        dl_result r;
        g2e_err e;
        cr_expect_eq(dl_fetch(&o, &r, &e), DL_E_IO, "%s %s: rc %d %s", suffix, kind, e.code, e.msg);
        cr_expect(strstr(e.msg, needle) != NULL && strstr(e.msg, planted) != NULL,
                  "%s %s: %s", suffix, kind, e.msg);
        size_t n;
        char *s = read_file(victim, &n);
        cr_expect(s && n == 8 && memcmp(s, "precious", 8) == 0, "%s %s: the victim changed", suffix, kind);
        free(s);
        struct stat sb;
        cr_expect(lstat(out, &sb) != 0, "%s %s: something was put in place", suffix, kind);
    }
    free(planted);
    free(victim);
    free(out);
    hub_layout_free(&l);
}

Test(download, a_planted_part_symlink_is_refused)
{
    expect_planted_refused(".part", "symlink", "symbolic link");
}

Test(download, a_planted_dangling_part_symlink_is_refused)
{
    expect_planted_refused(".part", "dangling", "symbolic link");
}

Test(download, a_planted_part_hard_link_is_refused)
{
    expect_planted_refused(".part", "hardlink", "other hard link");
}

Test(download, a_part_fifo_is_refused_without_blocking)
{
    expect_planted_refused(".part", "fifo", "not a regular file");
}

Test(download, a_planted_sidecar_symlink_is_refused)
{
    expect_planted_refused(".part.info", "symlink", "symbolic link");
}

Test(download, a_sidecar_fifo_is_refused_without_blocking)
{
    expect_planted_refused(".part.info", "fifo", "not a regular file");
}

/* ---- slow and lying servers (issue 15, item 7): each ends in a clear error within a
 * few seconds of the small limits the test sets; the time it took is logged ---------- */

Test(download, a_trickling_server_is_given_up_by_the_speed_floor)
{
    hub_layout l = hub_fixture(HUB_TINY);
    const char *args[] = {"--fault", "trickle:rate=2:times=-1", NULL};
    dl_opts o = opts_for("");
    o.min_speed = 1000;
    o.stall_seconds = 1;
    o.max_attempts = 1;
    expect_slow_failure(&l, args, &o, DL_E_NETWORK, "slower than 1000 bytes/s for 1 s", "trickle");
    hub_layout_free(&l);
}

LongTest(download, a_server_silent_after_its_headers_is_given_up)
{
    hub_layout l = hub_fixture(HUB_TINY);
    const char *args[] = {"--fault", "stall:after=0:seconds=30:times=-1", NULL};
    dl_opts o = opts_for("");
    o.stall_seconds = 1;
    o.max_attempts = 2;
    expect_slow_failure(&l, args, &o, DL_E_NETWORK, "giving up after 2 attempts: slower than",
                        "stall after headers");
    hub_layout_free(&l);
}

LongTest(download, half_of_each_range_then_silence_is_capped_by_time_lost)
{
    /* every attempt stores half of what is left (MBs: progress, which resets the count of
     * attempts) and then stalls: only the time lost to failures bounds it */
    hub_layout l = hub_fixture(HUB_GPT2);
    const char *args[] = {"--fault", "half_stall:seconds=5:after=1000000", NULL};
    dl_opts o = opts_for("");
    o.stall_seconds = 1;
    o.max_attempts = 100;   /* the count alone would allow minutes of this */
    o.retry_seconds = 3;
    expect_slow_failure(&l, args, &o, DL_E_NETWORK, "lost to failures (the limit is 3 s)",
                        "half then stall");
    hub_layout_free(&l);
}

Test(download, a_content_length_beyond_the_range_is_refused_before_the_body)
{
    hub_layout l = hub_fixture(HUB_TINY);
    const char *args[] = {"--fault", "long_length", NULL};
    dl_opts o = opts_for("");
    expect_slow_failure(&l, args, &o, DL_E_PROTOCOL, "with Content-Length", "long Content-Length");
    hub_layout_free(&l);
}

LongTest(download, the_whole_download_has_a_deadline)
{
    hub_layout l = hub_fixture(HUB_TINY);
    const char *args[] = {"--fault", "trickle:rate=20000:times=-1", NULL};
    dl_opts o = opts_for("");
    o.min_speed = 100;
    o.deadline_seconds = 2;
    expect_slow_failure(&l, args, &o, DL_E_NETWORK, "deadline of 2 s", "deadline");
    hub_layout_free(&l);
}

Test(download, an_attempt_over_its_deadline_is_resumed)
{
    hub_layout l = hub_fixture(HUB_TINY);
    const char *args[] = {"--fault", "trickle:rate=20000:after=100000", NULL};
    dl_opts o = opts_for("");
    o.min_speed = 100;
    o.attempt_seconds = 1;
    expect_resumed_once(&l, args, &o);
    hub_layout_free(&l);
}

Test(download, cli_limits_reach_the_library)
{
    hub_layout l = hub_fixture(HUB_TINY);
    const char *args[] = {"--fault", "stall:after=0:seconds=30:times=-1", NULL};
    hub_start(&srv, l.path, dir, args);
    char *env[] = {(char *)"GPT2_EMBED_TEST_ATTEMPTS=100", NULL};
    run_result r = cli(env, "--stall-time", "1", "--retry-time", "2", NULL);
    cr_expect_eq(r.status, 1, "%s", r.err);
    const char *msg = strstr(r.err, "gpt2-embed: download: giving up");
    cr_expect(msg && lines(msg) == 1, "%s", r.err);
    cr_expect(strstr(r.err, "lost to failures (the limit is 2 s)") != NULL, "%s", r.err);
    run_free(&r);
    r = cli(NULL, "--timeout", "0", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "--timeout needs an integer in 1..1000000000") != NULL, "%s", r.err);
    run_free(&r);
    hub_layout_free(&l);
}

/* ---- shapes and sizes against the model asked for; free space (issue 15, item 9) -- */

/* A sparse safetensors file: the JSON header given, data_bytes of zeros (not on disk). */
static char *sparse_source(const char *name, const char *json, uint64_t data_bytes)
{
    char *p = path_join(dir, name);
    size_t n = strlen(json);
    uint8_t len8[8];
    for (int i = 0; i < 8; i++)
        len8[i] = (uint8_t)((uint64_t)n >> (8 * i));
    FILE *f = fopen(p, "wb");
    cr_assert(f);
    cr_assert(fwrite(len8, 1, 8, f) == 8 && fwrite(json, 1, n, f) == n);
    cr_assert(fclose(f) == 0);
    cr_assert(truncate(p, (off_t)(8 + n + data_bytes)) == 0);
    return p;
}

static const char FAKE_SHA[] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

static void set_gpt2(dl_opts *o)
{
    o->n_vocab = 50257;
    o->n_ctx = 1024;
    o->n_embd = 768;
    o->n_layer = 12;
}

Test(download, a_wte_larger_than_the_model_asked_for_is_not_fetched)
{
    /* 2,000,000 x 64 F32 = 512 MB claimed for gpt2 */
    char *src = sparse_source("huge.safetensors",
        "{\"wpe.weight\":{\"dtype\":\"F32\",\"shape\":[1024,64],\"data_offsets\":[0,262144]},"
        "\"wte.weight\":{\"dtype\":\"F32\",\"shape\":[2000000,64],\"data_offsets\":[262144,512262144]}}",
        512262144);
    const char *args[] = {"--etag", FAKE_SHA, NULL};
    hub_start(&srv, src, dir, args);
    char *out = path_join(dir, "gpt2.safetensors");
    for (int full = 0; full < 2; full++) {
        dl_opts o = opts_for(out);
        set_gpt2(&o);
        o.full = full;
        g2e_err e;
        cr_expect_eq(dl_fetch(&o, NULL, &e), DL_E_SHAPE, "rc %d: %s", e.code, e.msg);
        cr_expect(strstr(e.msg, "wte.weight is 2000000 x 64") && strstr(e.msg, "50257 x 768"),
                  "%s", e.msg);
    }
    cr_expect(hub_sent(&srv) < 10000, "sent %" PRIu64, hub_sent(&srv));
    cr_expect(!exists(out));
    /* the command asks for gpt2's shapes by itself */
    char *env[] = {(char *)"-GPT2_EMBED_TEST_ANY_SHAPE", NULL};
    run_result r = cli(env, NULL);
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect(strstr(r.err, "but the model asked for has 50257 x 768") != NULL, "%s", r.err);
    run_free(&r);
    free(out);
    free(src);
}

Test(download, a_full_file_larger_than_the_model_can_be_is_not_fetched)
{
    /* gpt2's wte and wpe, and a 10 GB tensor besides */
    char *src = sparse_source("padded.safetensors",
        "{\"wpe.weight\":{\"dtype\":\"F32\",\"shape\":[1024,768],\"data_offsets\":[0,3145728]},"
        "\"wte.weight\":{\"dtype\":\"F32\",\"shape\":[50257,768],\"data_offsets\":[3145728,157535232]},"
        "\"h.0.x\":{\"dtype\":\"U8\",\"shape\":[10000000000],\"data_offsets\":[157535232,10157535232]}}",
        10157535232ull);
    const char *args[] = {"--etag", FAKE_SHA, NULL};
    hub_start(&srv, src, dir, args);
    char *out = path_join(dir, "gpt2.safetensors");
    dl_opts o = opts_for(out);
    set_gpt2(&o);
    o.full = 1;
    g2e_err e;
    cr_expect_eq(dl_fetch(&o, NULL, &e), DL_E_SHAPE, "rc %d: %s", e.code, e.msg);
    cr_expect(strstr(e.msg, "more than a model of this shape can be") != NULL, "%s", e.msg);
    cr_expect(hub_sent(&srv) < 10000);
    cr_expect(!exists(out));
    free(out);
    free(src);
}

Test(download, not_enough_free_space_is_said_before_fetching)
{
    /* 8 TiB of wte: more than this disk has free, whatever the model */
    char *src = sparse_source("vast.safetensors",
        "{\"wpe.weight\":{\"dtype\":\"F32\",\"shape\":[1024,1024],\"data_offsets\":[0,4194304]},"
        "\"wte.weight\":{\"dtype\":\"F32\",\"shape\":[2147483648,1024],"
        "\"data_offsets\":[4194304,8796097216512]}}", 8796097216512ull);
    const char *args[] = {"--etag", FAKE_SHA, NULL};
    hub_start(&srv, src, dir, args);
    char *out = path_join(dir, "gpt2.safetensors");
    dl_opts o = opts_for(out);
    g2e_err e;
    cr_expect_eq(dl_fetch(&o, NULL, &e), DL_E_SPACE, "rc %d: %s", e.code, e.msg);
    cr_expect(strstr(e.msg, "not enough free space in") && strstr(e.msg, "more bytes"), "%s", e.msg);
    cr_expect(hub_sent(&srv) < 10000);
    cr_expect(!exists(out));
    char *part = part_of(out, ".part"), *info = part_of(out, ".part.info");
    cr_expect(!exists(part) && !exists(info), "no empty part left");
    free(part);
    free(info);
    free(out);
    free(src);
}

/* ---- content changed under the same ETag (issue 15, item 10) ------------------------ */

/* A first run stops inside wte (a clean short body); the second server serves bytes that
 * differ just before that point and after it, under the same ETag. */
static void changed_under_the_same_etag(int full)
{
    hub_layout l = hub_fixture(HUB_TINY);
    const char *first[] = {"--fault", "short:after=50000", NULL};
    hub_start(&srv, l.path, dir, first);
    char *out = path_join(dir, "gpt2.safetensors");
    char *part = part_of(out, ".part");
    dl_opts o = opts_for(out);
    o.full = full;
    o.max_attempts = 1;
    g2e_err e;
    cr_assert_eq(dl_fetch(&o, NULL, &e), DL_E_NETWORK, "%s", e.msg);
    cr_assert(exists(part));
    hub_stop(&srv);
    free(srv.log_path);
    uint64_t base = full ? 0 : l.wte_off;
    char c1[64], c2[64];
    snprintf(c1, sizeof c1, "corrupt:offset=%" PRIu64, base + 50000 - 10);
    snprintf(c2, sizeof c2, "corrupt:offset=%" PRIu64, base + 60000);
    const char *second[] = {"--fault", c1, "--fault", c2, NULL};
    hub_start(&srv, l.path, dir, second);
    o = opts_for(out);
    o.full = full;
    cr_expect_eq(dl_fetch(&o, NULL, &e), DL_E_CHANGED, "rc %d: %s", e.code, e.msg);
    cr_expect(strstr(e.msg, "changed under the same ETag") != NULL, "%s", e.msg);
    cr_expect(!exists(out) && !exists(part), "part dropped, nothing in place");
    free(part);
    free(out);
    hub_layout_free(&l);
}

Test(download, a_resume_checks_an_overlap_before_the_resume_point)
{
    changed_under_the_same_etag(0);
}

Test(download, a_full_resume_checks_the_overlap_too)
{
    changed_under_the_same_etag(1);
}

/* ---- what is printed (issue 15, items 11 and 12) ------------------------------------ */

/* 1 if s holds no control character, DEL or byte >= 0x80 (the messages are ASCII). */
static int printable(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if ((*p < 0x20 && *p != '\n') || *p >= 0x7f)
            return 0;
    return 1;
}

Test(download, terminal_escapes_in_a_server_error_are_not_printed_raw)
{
    hub_layout l = hub_fixture(HUB_TINY);
    const char *args[] = {"--fault", "hostile_error", NULL};
    dl_opts o = opts_for("");
    expect_failure(args, &o, DL_E_HTTP, "HTTP 400");
    hub_stop(&srv);
    free(srv.log_path);
    hub_start(&srv, l.path, dir, args);
    char *out = path_join(dir, "gpt2.safetensors");
    o = opts_for(out);
    g2e_err e;
    cr_expect_eq(dl_fetch(&o, NULL, &e), DL_E_HTTP, "%s", e.msg);
    cr_expect(printable(e.msg), "raw control bytes: %s", e.msg);
    cr_expect(strstr(e.msg, "\\x1b]0;pwned\\x07\\x1b[2Jbad \\x9b1m request") != NULL, "%s", e.msg);
    hub_stop(&srv);
    free(srv.log_path);
    hub_start(&srv, l.path, dir, args);
    run_result r = cli(NULL, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(printable(r.err) && printable(r.out), "raw control bytes: %s", r.err);
    run_free(&r);
    free(out);
    hub_layout_free(&l);
}

Test(download, a_commit_that_is_not_40_hex_digits_is_refused)
{
    hub_layout l = hub_fixture(HUB_TINY);
    const char *args[] = {"--fault", "hostile_commit", NULL};
    dl_opts o = opts_for("");
    expect_failure(args, &o, DL_E_PROTOCOL, "not a commit id (40 hex digits)");
    run_result r = cli(NULL, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "not a commit id") != NULL, "%s", r.err);
    cr_expect(printable(r.err) && printable(r.out), "raw control bytes: %s%s", r.out, r.err);
    run_free(&r);
    hub_layout_free(&l);
}

Test(download, urls_are_shown_without_credentials_or_query)
{
    char b[256];
    cr_expect_str_eq(dl_url_shown("http://user:secret@h:1/a/b?x=1#f", b, sizeof b), "http://h:1/a/b");
    cr_expect_str_eq(dl_url_shown("https://a@b@host/x", b, sizeof b), "https://host/x");
    cr_expect_str_eq(dl_url_shown("https://host/p@q?sig=abc", b, sizeof b), "https://host/p@q");
    cr_expect_str_eq(dl_url_shown("https://host?u=a@b", b, sizeof b), "https://host");
    cr_expect_str_eq(dl_url_shown("http://h/\x1b[2J", b, sizeof b), "http://h/\\x1b[2J");
    cr_expect_str_eq(dl_url_shown("no url at all", b, sizeof b), "no\\x20url\\x20at\\x20all");
    cr_expect_str_eq(dl_url_shown("http://h/abcdef", b, 10), "http://h/");
}

Test(download, cli_never_prints_the_endpoint_password)
{
    hub_layout l = hub_fixture(HUB_TINY);
    hub_start(&srv, l.path, dir, NULL);
    char ep[256];
    snprintf(ep, sizeof ep, "HF_ENDPOINT=http://user:secret@127.0.0.1:%d", srv.hub_port);
    char *env[] = {ep, NULL};
    /* an error that quotes the URL, then a download that succeeds */
    run_result r = cli(env, "--repo", "nobody/nothing", NULL);
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect(strstr(r.err, "127.0.0.1") != NULL, "%s", r.err);
    cr_expect(!strstr(r.err, "secret") && !strstr(r.out, "secret"), "%s%s", r.out, r.err);
    run_free(&r);
    r = cli(env, "--full", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, "on http://127.0.0.1:") != NULL, "%s", r.err);
    cr_expect(!strstr(r.err, "secret") && !strstr(r.out, "secret"), "%s%s", r.out, r.err);
    run_free(&r);
    hub_layout_free(&l);
}

/* ---- failed writes and progress bars (issue 15 item 14, issue 13 item 6) ------------ */

/* gpt2-embed download ARGS with its output redirected by the shell (redir: "2>/dev/full"). */
static run_result cli_redirected(const char *redir, const char *args, char *const extra[])
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "exec '%s' download %s %s", G2E_HOOK_BIN, args, redir);
    char *argv[] = {(char *)"/bin/sh", (char *)"-c", cmd, NULL};
    char ep[128];
    snprintf(ep, sizeof ep, "HF_ENDPOINT=%s", srv.endpoint);
    char *env[8] = {ep, (char *)"GPT2_EMBED_TEST_ANY_SHAPE=1", NULL};
    for (int i = 0; extra && extra[i] && i < 5; i++)
        env[2 + i] = extra[i], env[3 + i] = NULL;
    return run_argv(argv, NULL, 0, env, dir);
}

Test(download, cli_failed_writes_are_errors)
{
    hub_layout l = hub_fixture(HUB_TINY);
    hub_start(&srv, l.path, dir, NULL);
    /* progress to a full disk: the download happens, the status says the writes failed */
    run_result r = cli_redirected("2>/dev/full", "", NULL);
    cr_expect_eq(r.status, 1, "%s", r.out);
    run_free(&r);
    /* the summary to a full disk: one line on stderr */
    r = cli_redirected(">/dev/full", "", NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "writing standard output failed") && lines(r.err) == 1, "%s", r.err);
    run_free(&r);
    r = cli_redirected(">/dev/full", "--help", NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "cannot write the help: No space left on device") && lines(r.err) == 1, "%s",
              r.err);
    run_free(&r);
    hub_layout_free(&l);
}

Test(download, cli_no_bar_when_progress_bars_are_disabled)
{
    hub_layout l = hub_fixture(HUB_TINY);
    hub_start(&srv, l.path, dir, NULL);
    char *argv[] = {(char *)"/usr/bin/script", (char *)"-qec",
                    (char *)G2E_HOOK_BIN " download", (char *)"/dev/null", NULL};
    char ep[128];
    snprintf(ep, sizeof ep, "HF_ENDPOINT=%s", srv.endpoint);
    char *env[] = {ep, (char *)"GPT2_EMBED_TEST_ANY_SHAPE=1",
                   (char *)"HF_HUB_DISABLE_PROGRESS_BARS=1", NULL};
    run_result r = run_argv(argv, NULL, 0, env, dir);
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "fetching the embeddings") != NULL, "%s", r.out);
    cr_expect(strstr(r.out, "\rtensors") == NULL && strstr(r.out, "ETA") == NULL, "%s", r.out);
    run_free(&r);
    hub_layout_free(&l);
}

/* ---- small ones (issue 15, item 15) -------------------------------------------------- */

Test(download, a_200_kb_location_header_is_a_clear_error)
{
    const char *args[] = {"--fault", "huge_location:bytes=200000", NULL};
    dl_opts o = opts_for("");
    o.max_attempts = 2;
    expect_failure(args, &o, DL_E_PROTOCOL, "header");
}

Test(download, a_token_path_that_is_a_fifo_does_not_block)
{
    char *fifo = path_join(dir, "token-fifo");
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    setenv("HF_TOKEN_PATH", fifo, 1);
    dl_opts o = opts_for("");
    expect_failure(NULL, &o, DL_E_ARG, "not a regular file");
    free(fifo);
}

Test(download, a_50_kb_location_header_is_a_clear_error)
{
    const char *args[] = {"--fault", "huge_location:bytes=50000", NULL};
    dl_opts o = opts_for("");
    expect_failure(args, &o, DL_E_PROTOCOL, "has a header line of 50");
}

/* ---- the Hugging Face cache, written (issue 13, item 6) ------------------------------ */

#include <dirent.h>
#include <limits.h>

/* Reads repo_dir the way huggingface_hub's cache scan does: every file under refs/ names
 * (its whole content) a commit that must be a folder under snapshots/; every file under a
 * snapshot resolves (through its link) to an existing blob. Returns the number of snapshot
 * files, and checks each link is relative and points into blobs/ at a blob named after the
 * sha256 of its bytes. */
static int scan_like_huggingface_hub(const char *repo_dir, const char *want_ref,
                                     const char *want_commit)
{
    char p[PATH_MAX], q[PATH_MAX];
    snprintf(p, sizeof p, "%s/refs/%s", repo_dir, want_ref);
    size_t n;
    char *ref = read_file(p, &n);
    cr_assert(ref, "no %s", p);
    cr_expect_eq(n, 40, "refs/%s holds %zu bytes (40 hex digits, no newline)", want_ref, n);
    cr_expect(n == 40 && memcmp(ref, want_commit, 40) == 0, "refs/%s: %s", want_ref, ref);
    snprintf(p, sizeof p, "%s/snapshots/%.40s", repo_dir, ref);
    free(ref);
    struct stat sb;
    cr_assert(stat(p, &sb) == 0 && S_ISDIR(sb.st_mode), "no snapshot folder %s", p);
    DIR *d = opendir(p);
    cr_assert(d);
    int files = 0;
    char blobs[PATH_MAX], real_blobs[PATH_MAX];
    snprintf(blobs, sizeof blobs, "%s/blobs", repo_dir);
    cr_assert(realpath(blobs, real_blobs));
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(q, sizeof q, "%s/%s", p, e->d_name);
        char target[PATH_MAX], real[PATH_MAX];
        ssize_t k = readlink(q, target, sizeof target - 1);
        cr_assert(k > 0, "%s is not a symbolic link", q);
        target[k] = '\0';
        cr_expect(target[0] != '/', "the link %s -> %s is not relative", q, target);
        cr_assert(realpath(q, real), "broken link %s -> %s", q, target);
        cr_expect(strncmp(real, real_blobs, strlen(real_blobs)) == 0, "%s is not in blobs/", real);
        size_t bn;
        uint8_t *b = (uint8_t *)read_file(real, &bn);
        uint8_t dg[32];
        char hex[65];
        sha256_digest(b, bn, dg);
        sha256_hex(dg, hex);
        cr_expect_str_eq(strrchr(real, '/') + 1, hex, "a blob is named after its sha256");
        free(b);
        files++;
    }
    closedir(d);
    return files;
}

Test(download, cli_full_into_the_hugging_face_cache_as_huggingface_hub_lays_it_out)
{
    hub_layout l = hub_fixture(HUB_TINY);
    hub_start(&srv, l.path, dir, NULL);
    const char *commit = "607a30d783dfa663caf39e06633721c8d4cfcd7e";
    char xdg[4200];
    snprintf(xdg, sizeof xdg, "XDG_CACHE_HOME=%s/xdg", dir);
    char *env[] = {xdg, (char *)"-HF_HOME", (char *)"-HF_HUB_CACHE", NULL};
    /* the embeddings-only file never goes there */
    run_result r = cli(env, "--hf-cache", NULL);
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect(strstr(r.err, "only the full checkpoint") != NULL, "%s", r.err);
    run_free(&r);
    char *x = path_join(dir, "xdg");
    cr_expect(!exists(x), "nothing created for a refused --hf-cache");
    free(x);
    r = cli(env, "--full", "--hf-cache", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char repo_dir[4200], snap[4400];
    snprintf(repo_dir, sizeof repo_dir, "%s/xdg/huggingface/hub/models--openai-community--gpt2", dir);
    snprintf(snap, sizeof snap, "%s/snapshots/%s/model.safetensors", repo_dir, commit);
    cr_expect(strstr(r.out, snap) != NULL, "says where: %s", r.out);
    run_free(&r);
    cr_expect_eq(scan_like_huggingface_hub(repo_dir, "main", commit), 1);
    expect_same_file(snap, l.path);
    char link[PATH_MAX], sha[65], want[100];
    ssize_t k = readlink(snap, link, sizeof link - 1);
    cr_assert(k > 0);
    link[k] = '\0';
    server_sha(&l, sha);
    snprintf(want, sizeof want, "../../blobs/%s", sha);
    cr_expect_str_eq(link, want);
    char *w = path_join(dir, "weights");
    cr_expect(!exists(w), "no second copy in weights/");
    free(w);
    /* the lookup finds it there (and so would transformers); a second run has nothing to do */
    setenv("XDG_CACHE_HOME", strchr(xdg, '=') + 1, 1);
    unsetenv("HF_HOME");
    char found[4400];
    g2e_err e;
    cr_expect_eq(locate_hf_cache("openai-community/gpt2", "main", found, sizeof found, &e), 0, "%s", e.msg);
    cr_expect_str_eq(found, snap);
    int before = hub_count(&srv, "hub", NULL);
    r = cli(env, "--full", "--hf-cache", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "already in the Hugging Face cache") != NULL, "%s", r.out);
    cr_expect_eq(hub_count(&srv, "hub", NULL), before);
    run_free(&r);
    /* by commit: the blob is reused, the snapshot linked, no ref written for a commit */
    r = cli(env, "--full", "--hf-cache", "--force", "--revision", commit, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "already in the Hugging Face cache") != NULL, "%s", r.out);
    run_free(&r);
    char refc[4400];
    snprintf(refc, sizeof refc, "%s/refs/%s", repo_dir, commit);
    cr_expect(!exists(refc));
    hub_layout_free(&l);
}

Test(download, a_bad_checksum_puts_nothing_into_the_cache)
{
    hub_layout l = hub_fixture(HUB_TINY);
    char arg[64];
    snprintf(arg, sizeof arg, "corrupt:offset=%" PRIu64, l.size - 1);
    const char *args[] = {"--fault", arg, NULL};
    hub_start(&srv, l.path, dir, args);
    char *hub = path_join(dir, "hub");
    setenv("HF_HUB_CACHE", hub, 1);
    dl_opts o = opts_for(NULL);
    o.full = 1;
    o.hf_cache = 1;
    dl_result r;
    g2e_err e;
    cr_expect_eq(dl_fetch(&o, &r, &e), DL_E_CHECKSUM, "%s", e.msg);
    char p[4400];
    snprintf(p, sizeof p, "%s/models--openai-community--gpt2/snapshots", hub);
    cr_expect(!exists(p), "no snapshot");
    snprintf(p, sizeof p, "%s/models--openai-community--gpt2/refs", hub);
    cr_expect(!exists(p), "no ref");
    char sha[65];
    server_sha(&l, sha);
    snprintf(p, sizeof p, "%s/models--openai-community--gpt2/blobs/%s", hub, sha);
    cr_expect(!exists(p), "no blob");
    /* and the library refuses an embeddings-only file for the cache */
    o.full = 0;
    cr_expect_eq(dl_fetch(&o, &r, &e), DL_E_ARG, "%s", e.msg);
    unsetenv("HF_HUB_CACHE");
    free(hub);
    hub_layout_free(&l);
}

/* ---- test hooks stay in the tests (issue 26) ------------------------------------- */

/* 1 when the file at path contains the bytes of s (the `strings | grep` of a binary). */
static int file_has(const char *path, const char *s)
{
    size_t n;
    char *d = read_file(path, &n);
    cr_assert(d != NULL, "cannot read %s", path);
    int found = memmem(d, n, s, strlen(s)) != NULL;
    free(d);
    return found;
}

Test(download, release_builds_read_no_test_hooks)
{
    /* the program the tests drive for downloads has them (so the search can see them)... */
    cr_assert(file_has(G2E_HOOK_BIN, "GPT2_EMBED_TEST_ANY_SHAPE"));
    cr_assert(file_has(G2E_HOOK_BIN, "GPT2_EMBED_TEST_PART_GATE"));
    /* ...the program, the shared and the static library that are installed have none */
    const char *shipped[] = {G2E_TEST_BIN, G2E_TEST_BUILD "/libgpt2embed.so." G2E_VERSION,
                             G2E_TEST_BUILD "/libgpt2embed.a"};
    for (size_t i = 0; i < sizeof shipped / sizeof shipped[0]; i++)
        cr_expect(!file_has(shipped[i], "GPT2_EMBED_TEST_"), "%s reads a test hook", shipped[i]);
    /* and the shipped program ignores the one that switched the shape check off */
    hub_layout l = hub_fixture(HUB_TINY);
    hub_start(&srv, l.path, dir, NULL);
    char ep[128];
    snprintf(ep, sizeof ep, "HF_ENDPOINT=%s", srv.endpoint);
    char *env[] = {ep, (char *)"GPT2_EMBED_TEST_ANY_SHAPE=1", (char *)"GPT2_EMBED_TEST_BACKOFF_MS=10", NULL};
    char *argv[] = {(char *)G2E_TEST_BIN, (char *)"download", NULL};
    run_result r = run_argv(argv, NULL, 0, env, dir);
    cr_expect_neq(r.status, 0, "a tiny fixture was taken for gpt2: %s", r.err);
    cr_expect(strstr(r.err, "shape") != NULL || strstr(r.err, "50257") != NULL, "%s", r.err);
    run_free(&r);
    hub_layout_free(&l);
}

/* ---- pinned tensor hashes (issue 26) -------------------------------------------- */

#define HUB_COMMIT "607a30d783dfa663caf39e06633721c8d4cfcd7e"   /* hub_server.py's default */

/* hex sha256 of the source file's bytes [off, off + len), read here (not by the code under test) */
static void bytes_sha(const hub_layout *l, uint64_t off, uint64_t len, char hex[65])
{
    size_t n;
    uint8_t *b = slurp(l->path, &n), d[SHA256_DIGEST_LEN];
    cr_assert(off + len <= n);
    sha256_digest(b + off, (size_t)len, d);
    sha256_hex(d, hex);
    free(b);
}

typedef struct pinset {
    char wte[65], wpe[65];
    models_pin p[2];
} pinset;

/* The fixture's wte and wpe pinned at commit (their true hashes, or wrong ones) */
static void pin_fixture(pinset *s, const hub_layout *l, const char *commit, int wrong)
{
    bytes_sha(l, l->wte_off, l->wte_len, s->wte);
    bytes_sha(l, l->wpe_off, l->wpe_len, s->wpe);
    if (wrong)
        s->wte[0] = s->wte[0] == '0' ? '1' : '0';
    s->p[0] = (models_pin){"openai-community/gpt2", commit, l->wte_name, s->wte};
    s->p[1] = (models_pin){"openai-community/gpt2", commit, l->wpe_name, s->wpe};
}

Test(download, tensors_are_checked_against_the_pins)
{
    hub_layout l = hub_fixture(HUB_TINY);
    hub_start(&srv, l.path, dir, NULL);
    char *out = path_join(dir, "gpt2.safetensors"), *part = path_join(dir, "gpt2.safetensors.part");
    pinset s;
    dl_result r;
    g2e_err e;
    /* pinned, the same bytes: verified */
    pin_fixture(&s, &l, HUB_COMMIT, 0);
    dl_opts o = opts_for(out);
    o.pins = s.p, o.n_pins = 2;
    cr_assert_eq(dl_fetch(&o, &r, &e), 0, "%s", e.msg);
    cr_expect_eq(r.verified, 1);
    expect_embeddings_file(out, &l);
    /* nothing pinned for this commit: kept, and said to be unverified */
    unlink(out);
    pin_fixture(&s, &l, "0000000000000000000000000000000000000000", 0);
    cr_assert_eq(dl_fetch(&o, &r, &e), 0, "%s", e.msg);
    cr_expect_eq(r.verified, 0);
    /* the catalogue pins no real model: unverified too */
    unlink(out);
    o.pins = NULL, o.n_pins = 0;
    cr_assert_eq(dl_fetch(&o, &r, &e), 0, "%s", e.msg);
    cr_expect_eq(r.verified, 0);
    size_t np;
    models_pins(&np);
    cr_expect_eq(np, 0, "the catalogue pins hashes nobody here computed from downloaded bytes");
    /* a pin that differs: refused, nothing kept */
    unlink(out);
    pin_fixture(&s, &l, HUB_COMMIT, 1);
    o.pins = s.p, o.n_pins = 2;
    cr_expect_eq(dl_fetch(&o, &r, &e), DL_E_CHECKSUM, "%s", e.msg);
    cr_expect(strstr(e.msg, "pinned") != NULL, "%s", e.msg);
    cr_expect(!exists(out) && !exists(part), "a refused download left a file");
    free(out), free(part);
    hub_layout_free(&l);
}

/* The case: the connection drops inside wte, and the resumed request gets other
 * bytes beyond the 64 KiB re-checked before the resume point, under the same ETag. */
Test(download, changed_bytes_after_a_resume_are_refused_by_the_pins)
{
    hub_layout l = hub_fixture(HUB_TINY);
    char drop[64], corrupt[96];
    snprintf(drop, sizeof drop, "drop:after=%" PRIu64, (uint64_t)20000);
    snprintf(corrupt, sizeof corrupt, "corrupt:offset=%" PRIu64 ":after_drop=1", l.wte_off + 100000);
    cr_assert(l.wte_len > 100000 + 20000);
    const char *args[] = {"--fault", drop, "--fault", corrupt, NULL};
    hub_start(&srv, l.path, dir, args);
    char *out = path_join(dir, "gpt2.safetensors"), *part = path_join(dir, "gpt2.safetensors.part");
    pinset s;
    pin_fixture(&s, &l, HUB_COMMIT, 0);
    dl_opts o = opts_for(out);
    o.pins = s.p, o.n_pins = 2;
    dl_result r;
    g2e_err e;
    cr_expect_eq(dl_fetch(&o, &r, &e), DL_E_CHECKSUM, "changed bytes accepted: %s", e.msg);
    cr_expect(strstr(e.msg, l.wte_name) != NULL, "%s", e.msg);
    cr_expect(!exists(out) && !exists(part), "a refused download left a file");
    cr_expect(hub_count(&srv, "cdn", NULL) >= 2, "the connection was not dropped and resumed");
    free(out), free(part);
    hub_layout_free(&l);
}

Test(download, cli_says_not_verified_and_refuses_changed_bytes)
{
    hub_layout l = hub_fixture(HUB_TINY);
    pinset s;
    pin_fixture(&s, &l, HUB_COMMIT, 0);
    char pins[512];
    snprintf(pins, sizeof pins, "GPT2_EMBED_TEST_PINS=openai-community/gpt2@%s:%s=%s,openai-community/gpt2@%s:%s=%s",
             HUB_COMMIT, l.wte_name, s.wte, HUB_COMMIT, l.wpe_name, s.wpe);
    hub_start(&srv, l.path, dir, NULL);
    run_result r = cli(NULL, NULL);   /* nothing pinned (the release catalogue) */
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, "not verified: unknown revision") != NULL, "%s", r.err);
    run_free(&r);
    char *out = path_join(dir, "weights/gpt2.safetensors");
    unlink(out);
    char *env[] = {pins, NULL};
    r = cli(env, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, "not verified") == NULL, "%s", r.err);
    cr_expect(strstr(r.out, "pinned for commit 607a30d783df") != NULL, "%s", r.out);
    run_free(&r);
    unlink(out);
    hub_stop(&srv);
    free(srv.log_path); /* (hub_start starts afresh: the first server's log name is done with) */
    char drop[64], corrupt[96];
    snprintf(drop, sizeof drop, "drop:after=%" PRIu64, (uint64_t)20000);
    snprintf(corrupt, sizeof corrupt, "corrupt:offset=%" PRIu64 ":after_drop=1", l.wte_off + 100000);
    const char *args[] = {"--fault", drop, "--fault", corrupt, NULL};
    hub_start(&srv, l.path, dir, args);
    r = cli(env, NULL);
    cr_expect_eq(r.status, 1, "changed bytes accepted: %s", r.err);
    cr_expect(strstr(r.err, "the bytes changed") != NULL, "%s", r.err);
    cr_expect(!exists(out), "a refused download left the file");
    run_free(&r);
    free(out);
    hub_layout_free(&l);
}
