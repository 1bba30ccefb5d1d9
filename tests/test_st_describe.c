/* SPDX-License-Identifier: MIT */
/* test_st_describe.c — the description of a safetensors file (gpt2embed_describe_file and
 * the program's table of it, st_describe.h): the JSON against Python's own parse of the
 * header (tests/st_describe_ref.py), the table's lines and escaping, and a file without a
 * usable model. */
#include "../src/gpt2embed.h"
#include "st_describe.h"
#include "fixture.h"
#include "support.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static void describe(const fixture_opts *o, const char *tag, char **json, char **table)
{
    char e[256];
    gpt2embed_error err;
    char *dir = test_tmpdir(tag), *path = path_join(dir, "w.safetensors");
    cr_assert_eq(fixture_write(path, o, e, sizeof e), 0, "%s", e);
    cr_assert_eq(gpt2embed_describe_file(path, json, &err), 0, "%s", err.message);
    cJSON *doc = cJSON_Parse(*json);
    cr_assert(doc, "%s", *json);
    *table = st_describe_text(doc);
    cr_assert(*table);
    cJSON_Delete(doc);
    char *out = path_join(dir, "d.json");
    write_file(out, *json, strlen(*json));
    char *script = path_join(G2E_SRCDIR, "tests/st_describe_ref.py");
    run_result r = run_argv((char *[]){"/usr/bin/python3", script, path, out, NULL}, NULL, 0, NULL, NULL);
    cr_expect(strstr(r.out, "EQUAL True") != NULL, "python: %s%s", r.out, r.err);
    run_free(&r);
    free(script), free(out), free(path), free(dir);
}

Test(st_describe, json_agrees_with_pythons_parse_of_the_header)
{
    fixture_opts o;
    fixture_tiny(&o);
    o.full_layout = 1;
    o.n_layer = 2;
    o.dtype = ST_BF16;
    o.prefix = "transformer.";
    static const char *const meta[] = {"format", "pt", "note", "a\x01" "b", NULL};
    o.meta = meta;
    char *json, *table;
    describe(&o, "desc-full", &json, &table);
    cr_expect(strstr(table, "  note = a\\x01b\n"), "control bytes escaped:\n%s", table);
    cr_expect(strstr(table, "  prefix  transformer.\n"), "%s", table);
    cr_expect(strstr(table, "  dtype   wte BF16, wpe BF16\n"), "%s", table);
    cr_expect(strstr(table, "  n_vocab 64\n  n_ctx   16\n  n_embd  8\n  n_layer 2\n"), "%s", table);
    free(json), free(table);
}

Test(st_describe, a_file_without_a_model_says_why)
{
    char e[256];
    char *dir = test_tmpdir("desc-none"), *path = path_join(dir, "x.safetensors");
    fixture_opts o;
    fixture_tiny(&o);
    o.prefix = "model.";   /* model.wte.weight: not a name GPT-2 uses, so no model */
    cr_assert_eq(fixture_write(path, &o, e, sizeof e), 0, "%s", e);
    char *json;
    cr_assert_eq(gpt2embed_describe_file(path, &json, NULL), 0);
    cJSON *j = cJSON_Parse(json);
    cr_assert(j != NULL, "%s", json);
    cr_expect(cJSON_IsNull(cJSON_GetObjectItem(j, "model")), "%s", json);
    cJSON *me = cJSON_GetObjectItem(j, "model_error");
    cr_expect(cJSON_IsString(me) && strstr(me->valuestring, "wte"), "%s", json);
    cr_expect(strchr(json, '\n') == json + strlen(json) - 1, "one line: %s", json);
    char *table = st_describe_text(j);
    cr_expect(strstr(table, "model     none: ") && strstr(table, "wte"), "%s", table);
    cr_expect(strstr(table, "tensors   2 (storage order)\n"), "%s", table);
    cJSON_Delete(j);
    free(json), free(table);
    cr_expect_eq(gpt2embed_describe_file("/nonexistent/x.safetensors", &json, NULL), GPT2EMBED_E_IO);
    cr_expect_null(json);
    free(path), free(dir);
}
