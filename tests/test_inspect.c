/* SPDX-License-Identifier: MIT */
/* test_inspect.c — `gpt2-embed inspect` through the built program: the table and the JSON
 * (parsed back with cJSON) describe each fixture as the fixture's own options say it is;
 * broken files give exit status 1, one line on stderr and nothing at all on stdout. */
#include "fixture.h"
#include "support.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The tensor names and shapes a fixture written with o must hold, computed here from the
 * GPT-2 layout rather than read from the file. Returns the count. */
typedef struct want_tensor {
    char name[96];
    int ndim;
    uint64_t shape[4];
} want_tensor;

static size_t want_tensors(const fixture_opts *o, want_tensor *w)
{
    const char *p = o->prefix ? o->prefix : "";
    uint64_t C = o->n_embd;
    size_t n = 0;
#define W(nm, nd, a, b, c, d) do { snprintf(w[n].name, sizeof w[n].name, "%s%s", p, nm); \
        w[n].ndim = nd; w[n].shape[0] = a; w[n].shape[1] = b; w[n].shape[2] = c; w[n].shape[3] = d; n++; } while (0)
    W("wte.weight", 2, o->n_vocab, C, 0, 0);
    W("wpe.weight", 2, o->n_ctx, C, 0, 0);
    if (o->full_layout) {
        W("ln_f.weight", 1, C, 0, 0, 0);
        W("ln_f.bias", 1, C, 0, 0, 0);
        for (unsigned l = 0; l < o->n_layer; l++) {
            char b[64];
#define B(s, nd, a, bb, c, d) do { snprintf(b, sizeof b, "h.%u.%s", l, s); W(b, nd, a, bb, c, d); } while (0)
            B("ln_1.weight", 1, C, 0, 0, 0); B("ln_1.bias", 1, C, 0, 0, 0);
            B("attn.bias", 4, 1, 1, o->n_ctx, o->n_ctx);
            B("attn.c_attn.weight", 2, C, 3 * C, 0, 0); B("attn.c_attn.bias", 1, 3 * C, 0, 0, 0);
            B("attn.c_proj.weight", 2, C, C, 0, 0); B("attn.c_proj.bias", 1, C, 0, 0, 0);
            B("ln_2.weight", 1, C, 0, 0, 0); B("ln_2.bias", 1, C, 0, 0, 0);
            B("mlp.c_fc.weight", 2, C, 4 * C, 0, 0); B("mlp.c_fc.bias", 1, 4 * C, 0, 0, 0);
            B("mlp.c_proj.weight", 2, 4 * C, C, 0, 0); B("mlp.c_proj.bias", 1, C, 0, 0, 0);
#undef B
        }
    }
#undef W
    return n;
}

static uint64_t numel(const want_tensor *t)
{
    uint64_t n = 1;
    for (int i = 0; i < t->ndim; i++) n *= t->shape[i];
    return n;
}

static char *write_fixture(const char *dir, const char *name, const fixture_opts *o)
{
    char *path = path_join(dir, name), err[256];
    cr_assert_eq(fixture_write(path, o, err, sizeof err), 0, "%s", err);
    return path;
}

static uint64_t file_size(const char *path)
{
    struct stat sb;
    cr_assert_eq(stat(path, &sb), 0);
    return (uint64_t)sb.st_size;
}

static uint64_t ju64(const cJSON *o, const char *key)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    cr_assert(cJSON_IsNumber(x), "no number '%s'", key);
    return (uint64_t)x->valuedouble;
}

static void check_json(const char *path, const fixture_opts *o, const char *size_name)
{
    run_result r = run_g2e("inspect", path, "--format", "json", NULL);
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_expect_eq(r.err_len, 0, "stderr: %s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert_not_null(j, "not JSON: %.200s", r.out);
    cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(j, "file")->valuestring, path);
    cr_expect_eq(ju64(j, "file_size"), file_size(path));
    cr_expect_eq(ju64(j, "data_start"), 8 + ju64(j, "header_len"));
    cr_expect_eq(ju64(j, "data_start") + ju64(j, "data_len"), file_size(path));

    want_tensor *w = calloc(8 + 13 * (size_t)o->n_layer, sizeof *w);
    cr_assert(w != NULL);
    size_t n = want_tensors(o, w);
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(j, "tensors");
    cr_assert_eq((size_t)cJSON_GetArraySize(ts), n);
    uint64_t at = 0, es = o->dtype == ST_F32 ? 4 : 2;
    for (const cJSON *t = ts->child; t; t = t->next) {
        const char *nm = cJSON_GetObjectItemCaseSensitive(t, "name")->valuestring;
        const want_tensor *x = NULL;
        for (size_t i = 0; i < n; i++)
            if (strcmp(w[i].name, nm) == 0) x = &w[i];
        cr_assert_not_null(x, "unexpected tensor %s", nm);
        cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(t, "dtype")->valuestring,
                         st_dtype_name(o->dtype));
        const cJSON *sh = cJSON_GetObjectItemCaseSensitive(t, "shape");
        cr_assert_eq(cJSON_GetArraySize(sh), x->ndim, "%s", nm);
        int d = 0;
        for (const cJSON *v = sh->child; v; v = v->next, d++)
            cr_expect_eq((uint64_t)v->valuedouble, x->shape[d], "%s dim %d", nm, d);
        cr_expect_eq(ju64(t, "bytes"), numel(x) * es, "%s", nm);
        cr_expect_eq(ju64(t, "offset"), at, "%s: listed in storage order, contiguous", nm);
        at += numel(x) * es;
    }
    cr_expect_eq(at, ju64(j, "data_len"));
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "model");
    cr_assert(cJSON_IsObject(m), "model: %s", r.out);
    cr_expect_eq(ju64(m, "n_vocab"), o->n_vocab);
    cr_expect_eq(ju64(m, "n_ctx"), o->n_ctx);
    cr_expect_eq(ju64(m, "n_embd"), o->n_embd);
    cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(m, "prefix")->valuestring,
                     o->prefix ? o->prefix : "");
    const cJSON *sz = cJSON_GetObjectItemCaseSensitive(m, "size");
    if (size_name) cr_expect(cJSON_IsString(sz) && strcmp(sz->valuestring, size_name) == 0, "size");
    else cr_expect(cJSON_IsNull(sz));
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(j, "metadata");
    size_t nm_ = 0;
    for (size_t i = 0; o->meta && o->meta[i]; i += 2, nm_++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(md, o->meta[i]);
        cr_expect(cJSON_IsString(v) && strcmp(v->valuestring, o->meta[i + 1]) == 0, "meta %s", o->meta[i]);
    }
    cr_expect_eq((size_t)cJSON_GetArraySize(md), nm_);
    free(w);
    cJSON_Delete(j);
    run_free(&r);
}

Test(inspect, json_describes_every_variant)
{
    char *dir = test_tmpdir("inspect-json");
    static const st_dtype DT[] = {ST_F32, ST_F16, ST_BF16};
    static const char *const META[] = {"repo", "distilbert/distilgpt2", "note", "a \"quoted\" \xc3\xa9", NULL};
    for (int d = 0; d < 3; d++)
        for (int pre = 0; pre < 2; pre++) {
            fixture_opts o;
            fixture_tiny(&o);
            o.dtype = DT[d];
            o.prefix = pre ? "transformer." : NULL;
            o.full_layout = d != 1;
            o.meta = pre ? META : NULL;
            char *p = write_fixture(dir, "tiny.safetensors", &o);
            check_json(p, &o, NULL);
            free(p);
            fixture_gpt2(&o, DT[d], pre ? "transformer." : NULL);
            p = write_fixture(dir, "gpt2.safetensors", &o);
            check_json(p, &o, "gpt2");
            unlink(p);
            free(p);
        }
    free(dir);
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

Test(inspect, table_of_the_real_gpt2_layout)
{
    char *dir = test_tmpdir("inspect-table");
    fixture_opts o;
    fixture_gpt2(&o, ST_F32, NULL);
    char *p = write_fixture(dir, "model.safetensors", &o);
    run_result r = run_g2e("inspect", p, NULL);
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_expect(strstr(r.out, "size      548105171 bytes\n") != NULL, "%.400s", r.out);
    cr_expect(strstr(r.out, "header    14283 bytes; data section at byte 14291 (unaligned), 548090880 bytes\n") != NULL, "%.400s", r.out);
    cr_expect(strstr(r.out, "  format = pt\n") != NULL);
    cr_expect(strstr(r.out, "tensors   160 (storage order)\n") != NULL);
    cr_expect(strstr(r.out, "model     gpt2\n  n_vocab 50257\n  n_ctx   1024\n  n_embd  768\n  n_layer 12\n  prefix  (none)\n") != NULL, "%s", strstr(r.out, "model"));
    want_tensor w[160];
    size_t n = want_tensors(&o, w);
    cr_assert_eq(n, 160);
    for (size_t i = 0; i < n; i++) {
        char shape[64], line[160];
        int k = snprintf(shape, sizeof shape, "[");
        for (int d = 0; d < w[i].ndim; d++)
            k += snprintf(shape + k, sizeof shape - (size_t)k, "%s%llu", d ? ", " : "", (unsigned long long)w[i].shape[d]);
        snprintf(shape + k, sizeof shape - (size_t)k, "]");
        snprintf(line, sizeof line, "\n  %s ", w[i].name);
        const char *at = strstr(r.out, line);
        cr_assert_not_null(at, "no row for %s", w[i].name);
        const char *eol = strchr(at + 1, '\n');
        char row[256];
        snprintf(row, sizeof row, "%.*s", (int)(eol - at - 1), at + 1);
        char bytes[32];
        snprintf(bytes, sizeof bytes, " %llu ", (unsigned long long)(numel(&w[i]) * 4));
        cr_expect(strstr(row, " F32 ") && strstr(row, shape) && strstr(row, bytes), "row '%s' (want %s %s)", row, shape, bytes);
    }
    /* file, size, header, metadata + 1, tensors + heading + 160, model + 6 */
    cr_expect_eq(count_lines(r.out), 4 + 1 + 2 + 160 + 7, "%d lines", count_lines(r.out));
    unlink(p);
    free(p);
    free(dir);
    run_free(&r);
}

Test(inspect, valid_file_without_gpt2_weights_is_described)
{
    char *dir = test_tmpdir("inspect-other");
    char *p = path_join(dir, "other.safetensors");
    const char *h = "{\"__metadata__\":{\"k\":\"line1\\nline2\"},"
                    "\"wte.weight\":{\"dtype\":\"I32\",\"shape\":[2,2],\"data_offsets\":[0,16]},"
                    "\"wpe.weight\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[16,32]}}";
    char buf[512];
    size_t hl = strlen(h);
    for (int i = 0; i < 8; i++) buf[i] = (char)((uint64_t)hl >> (8 * i));
    memcpy(buf + 8, h, hl);
    memset(buf + 8 + hl, 0, 32);
    write_file(p, buf, 8 + hl + 32);
    run_result r = run_g2e("inspect", p, NULL);
    cr_expect_eq(r.status, 0, "stderr: %s", r.err);
    cr_expect(strstr(r.out, "  k = line1\\x0Aline2\n") != NULL, "%s", r.out);
    cr_expect(strstr(r.out, "model     none: 'wte.weight' is I32") != NULL, "%s", r.out);
    run_free(&r);
    r = run_g2e("inspect", "--format=json", p, NULL);
    cr_expect_eq(r.status, 0);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert_not_null(j);
    cr_expect(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, "model")));
    const cJSON *me = cJSON_GetObjectItemCaseSensitive(j, "model_error");
    cr_expect(cJSON_IsString(me) && strstr(me->valuestring, "I32"));
    cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "metadata"), "k")->valuestring, "line1\nline2");
    cJSON_Delete(j);
    run_free(&r);
    free(p);
    free(dir);
}

static void expect_clean_failure(run_result *r, int status, const char *needle, const char *what)
{
    cr_expect(!r->signaled, "%s: killed by a signal (%d)", what, r->status);
    cr_expect_eq(r->status, status, "%s: status %d, stderr %s", what, r->status, r->err);
    cr_expect_eq(r->out_len, 0, "%s: stdout not empty: %.200s", what, r->out);
    /* "gpt2-embed: " for errors found in the file, "gpt2-embed inspect: " for usage errors */
    cr_expect(strncmp(r->err, "gpt2-embed: ", 12) == 0 || strncmp(r->err, "gpt2-embed inspect: ", 20) == 0,
              "%s: stderr '%s'", what, r->err);
    cr_expect(r->err_len > 0 && r->err[r->err_len - 1] == '\n' && strchr(r->err, '\n') == r->err + r->err_len - 1,
              "%s: stderr is not one line: '%s'", what, r->err);
    if (needle) cr_expect(strstr(r->err, needle) != NULL, "%s: '%s' not in '%s'", what, needle, r->err);
}

Test(inspect, broken_files_exit_1_with_one_line_and_empty_stdout)
{
    char *dir = test_tmpdir("inspect-broken");
    /* a valid tiny file, then damaged copies of it */
    fixture_opts o;
    fixture_tiny(&o);
    char *good = write_fixture(dir, "good.safetensors", &o);
    size_t len;
    char *g = read_file(good, &len);
    cr_assert_not_null(g);
    static const struct { const char *what; int kind; const char *needle; } K[] = {
        {"truncated by one byte", 0, "truncated by 1 bytes"},
        {"one trailing byte", 1, "1 trailing bytes"},
        {"header length past the end", 2, "past the end"},
        {"NUL in the header", 3, "NUL"},
        {"four bytes", 4, "shorter than the 8-byte"},
        {"dtype damaged", 5, "unknown dtype"},
    };
    for (size_t i = 0; i < sizeof K / sizeof K[0]; i++) {
        char *b = malloc(len + 1);
        cr_assert(b != NULL);
        memcpy(b, g, len);
        size_t bl = len;
        char *dt;
        switch (K[i].kind) {
        case 0: bl = len - 1; break;
        case 1: b[len] = 0; bl = len + 1; break;
        case 2: b[0] = (char)0xFF; b[1] = (char)0xFF; break;
        case 3: b[8 + 20] = 0; break;
        case 4: bl = 4; break;
        case 5:
            dt = NULL;
            for (size_t k = 8; k + 5 <= len && !dt; k++)
                if (memcmp(b + k, "\"F32\"", 5) == 0) dt = b + k;
            cr_assert(dt);
            dt[1] = 'X';
            break;
        }
        char *p = path_join(dir, "bad.safetensors");
        write_file(p, b, bl);
        for (int f = 0; f < 2; f++) {
            run_result r = run_g2e("inspect", p, "--format", f ? "json" : "table", NULL);
            expect_clean_failure(&r, 1, K[i].needle, K[i].what);
            cr_expect(strstr(r.err, p) != NULL, "%s: path not named: %s", K[i].what, r.err);
            run_free(&r);
        }
        free(p);
        free(b);
    }
    run_result r = run_g2e("inspect", "/nonexistent/x.safetensors", NULL);
    expect_clean_failure(&r, 1, "/nonexistent/x.safetensors", "missing file");
    run_free(&r);
    r = run_g2e("inspect", dir, NULL);
    expect_clean_failure(&r, 1, "not a regular file", "directory");
    run_free(&r);
    free(g);
    free(good);
    free(dir);
}

Test(inspect, usage)
{
    run_result r = run_g2e("inspect", NULL);
    expect_clean_failure(&r, 2, "missing FILE", "no file");
    run_free(&r);
    r = run_g2e("inspect", "a", "b", NULL);
    expect_clean_failure(&r, 2, "unexpected argument 'b' (at most 1 FILE)", "two files");
    run_free(&r);
    r = run_g2e("inspect", "a", "--format", "csv", NULL);
    expect_clean_failure(&r, 2, "table or json", "bad format");
    run_free(&r);
    r = run_g2e("inspect", "a", "--format", NULL);
    expect_clean_failure(&r, 2, "--format", "format without value");
    run_free(&r);
    r = run_g2e("inspect", "--bogus", NULL);
    expect_clean_failure(&r, 2, "--bogus", "unknown option");
    run_free(&r);
    r = run_g2e("inspect", "--help", NULL);
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "usage: gpt2-embed inspect FILE") != NULL, "%s", r.out);
    run_free(&r);
    r = run_g2e("help", "inspect", NULL);
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "--format") != NULL);
    run_free(&r);
}
