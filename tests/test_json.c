/* SPDX-License-Identifier: MIT */
/* test_json.c — the JSON writer: every document it writes is read back by Python's json
 * module (an independent reader) and compared with what was meant; strings of arbitrary
 * bytes decode to exactly bytes.decode("utf-8", errors="replace"); non-finite numbers are
 * null; float32 values read back bit for bit; misuse is refused. */
#include "fixture.h"
#include "json.h"
#include "support.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct mem {
    char *buf;
    size_t len;
    FILE *f;
} mem;

static void mem_open(mem *m)
{
    m->buf = NULL;
    m->len = 0;
    m->f = open_memstream(&m->buf, &m->len);
    cr_assert(m->f);
}

static char *mem_close(mem *m)
{
    fclose(m->f);
    return m->buf;
}

/* Runs python: json.loads(doc) must satisfy the expression `check` (with v the value). */
static void python_check(const char *doc, const char *check)
{
    char prog[4096];
    snprintf(prog, sizeof prog,
             "import sys, json, math, struct\n"
             "d = open(sys.argv[1], 'rb').read()\n"
             "v = json.loads(d.decode('utf-8'))\n"
             "assert %s, repr(v)\n", check);
    char *dir = test_tmpdir("json-py");
    char *p = path_join(dir, "doc.json");
    write_file(p, doc, strlen(doc));
    run_result r = run_argv((char *[]){"/usr/bin/python3", "-c", prog, p, NULL}, NULL, 0, NULL, NULL);
    cr_expect_eq(r.status, 0, "python rejects %s: %s", doc, r.err);
    run_free(&r);
    free(p), free(dir);
}

Test(json, document_layout_and_python_reads_it)
{
    mem m;
    mem_open(&m);
    json_w w;
    json_init(&w, m.f);
    json_begin_object(&w);
    json_key(&w, "name");
    json_cstr(&w, "gpt2");
    json_key(&w, "n");
    json_uint(&w, 50257);
    json_key(&w, "ok");
    json_bool(&w, 1);
    json_key(&w, "none");
    json_cstr(&w, NULL);
    json_key(&w, "list");
    json_begin_array(&w);
    json_begin_object(&w);
    json_end_object(&w);
    json_begin_array(&w);
    json_end_array(&w);
    json_f64(&w, 0.5);
    json_end_array(&w);
    json_end_object(&w);
    cr_expect(json_done(&w));
    char *doc = mem_close(&m);
    cr_expect_str_eq(doc, "{\"name\": \"gpt2\", \"n\": 50257, \"ok\": true, \"none\": null, "
                          "\"list\": [{}, [], 0.5]}");
    python_check(doc, "v == {'name': 'gpt2', 'n': 50257, 'ok': True, 'none': None, "
                      "'list': [{}, [], 0.5]}");
    free(doc);
}

Test(json, non_finite_numbers_are_null_and_floats_round_trip)
{
    float vals[] = {NAN, INFINITY, -INFINITY, 0.1f, -0.0f, 3.4028235e38f, 1e-45f, 1.0f / 3.0f};
    mem m;
    mem_open(&m);
    /* the stateless writers, as the embedding rows use them: [[f32...], f64, f64, f64] */
    fputs("[[", m.f);
    for (size_t i = 0; i < 8; i++) {
        fputs(i ? ", " : "", m.f);
        json_write_f32(m.f, vals[i]);
    }
    fputs("]", m.f);
    const double d[] = {NAN, -INFINITY, 0.1};
    for (size_t i = 0; i < 3; i++) {
        fputs(", ", m.f);
        json_write_f64(m.f, d[i]);
    }
    fputs("]", m.f);
    char *doc = mem_close(&m);
    cr_expect(strstr(doc, "nan") == NULL && strstr(doc, "inf") == NULL, "%s", doc);
    /* Python's float32 of each printed value equals the float32 we wrote, bit for bit */
    python_check(doc, "v[0][:3] == [None, None, None] and v[1:3] == [None, None] and v[3] == 0.1 and "
                      "[struct.pack('<f', x) for x in v[0][3:]] == "
                      "[bytes.fromhex(h) for h in ('cdcccc3d', '00000080', 'ffff7f7f', '01000000', 'abaaaa3e')]");
    free(doc);
}

Test(json, strings_decode_as_python_replace)
{
    /* every control, DEL, C1, U+2028, quotes, a cut character, stray bytes, an overlong,
     * a surrogate and 4-byte characters */
    char s[512];
    size_t n = 0;
    for (int c = 0; c < 0x20; c++)
        s[n++] = (char)c;
    const char tail[] = "\x7F\"\\/\xC2\x80\xC2\x9F\xC2\xA0\xE2\x80\xA8\xE2\x80\xA9"
                        "\xE7\x8A\xE7\x8A\xAC\x80\xFF\xC0\xAF\xED\xA0\x80\xF0\x9F\x98\x80\xF4\x90";
    memcpy(s + n, tail, sizeof tail - 1);
    n += sizeof tail - 1;
    mem m;
    mem_open(&m);
    json_write_string(m.f, s, n);
    char *doc = mem_close(&m);
    /* ASCII-only except the untouched printable characters */
    cr_expect(strstr(doc, "\\u001f") && strstr(doc, "\\u007f") && strstr(doc, "\\u0080") &&
                  strstr(doc, "\\u009f") && strstr(doc, "\\u2028") && strstr(doc, "\\n"),
              "%s", doc);
    char hex[1100];
    for (size_t i = 0; i < n; i++)
        snprintf(hex + 2 * i, 3, "%02x", (unsigned char)s[i]);
    char check[1400];
    snprintf(check, sizeof check, "v == bytes.fromhex('%s').decode('utf-8', errors='replace')", hex);
    python_check(doc, check);
    free(doc);
}

Test(json, misuse_is_refused)
{
    mem m;
    mem_open(&m);
    json_w w;
    json_init(&w, m.f);
    json_begin_object(&w);
    json_uint(&w, 1);   /* a value where a key is due */
    cr_expect(w.err);
    json_init(&w, m.f);
    json_begin_array(&w);
    json_key(&w, "k");   /* a key in an array */
    cr_expect(w.err);
    json_init(&w, m.f);
    json_begin_array(&w);
    json_end_object(&w);
    cr_expect(w.err);
    json_init(&w, m.f);
    for (int i = 0; i < JSON_MAX_DEPTH + 2; i++)
        json_begin_array(&w);
    cr_expect(w.err);
    json_init(&w, m.f);
    json_uint(&w, 1);
    json_uint(&w, 2);   /* two top-level values */
    cr_expect(w.err);
    json_init(&w, m.f);
    json_begin_object(&w);
    cr_expect(!json_done(&w), "an open object is not a document");
    free(mem_close(&m));
}

/* The piece strings of `tokenize --format json` and of the main job's JSON come from the one
 * escaper: byte for byte the same literals for the same tokens (a cut character, controls,
 * quotes, a backslash). */
Test(json, tokenize_and_embed_write_pieces_alike)
{
    fixture_opts o;
    fixture_tiny(&o);
    o.n_vocab = 50257;
    o.n_ctx = 1024;
    o.n_embd = 4;
    char *dir = test_tmpdir("json-pieces");
    char *w = path_join(dir, "w.safetensors");
    char e[256];
    cr_assert_eq(fixture_write(w, &o, e, sizeof e), 0, "%s", e);
    const char *text = "犬 a\x01\x7f\"\\\xE2\x80\xA8";
    run_result t = run_g2e("tokenize", "--format", "json", "--", text, NULL);
    run_result m = run_g2e("embed", "--weights", w, "--format", "json", "--", text, NULL);
    cr_assert_eq(t.status, 0, "%s", t.err);
    cr_assert_eq(m.status, 0, "%s", m.err);
    /* tokenize: "pieces":[a,b,...]; embed: "piece": a ... for each token, in order */
    const char *tp = strstr(t.out, "\"pieces\":");
    cr_assert(tp, "%s", t.out);
    tp = strchr(tp, '[') + 1;
    const char *mp = m.out;
    size_t n = 0;
    while (*tp == '"') {
        const char *end = tp + 1;
        while (*end != '"')
            end += *end == '\\' ? 2 : 1;
        size_t len = (size_t)(end + 1 - tp);
        mp = strstr(mp, "\"piece\": ");
        cr_assert(mp, "embed has fewer pieces than tokenize (%zu)", n);
        mp += strlen("\"piece\": ");
        cr_expect(strncmp(mp, tp, len) == 0, "piece %zu: tokenize %.*s, embed %.*s", n, (int)len, tp,
                  (int)len, mp);
        n++;
        tp = end + 1;
        if (*tp == ',')
            tp++;
    }
    cr_expect_eq(n, 10, "10 tokens (U+2028 is two: cut characters)");
    cr_expect(strstr(t.out, "\\ufffd") && strstr(t.out, "\\u0001") && strstr(t.out, "\\u007f"), "%s", t.out);
    run_free(&t), run_free(&m);
    free(w), free(dir);
}
