/* SPDX-License-Identifier: MIT */
/* test_stats_out.c — the scale writer (stats_out.h): the JSON against numpy's own figures for
 * the fixture's wte and wpe (tests/stats_ref.py); undefined figures as nan in the table, null
 * in JSON, with the note. */
#include "stats_out.h"
#include "fixture.h"
#include "support.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

Test(stats_out, json_agrees_with_numpy)
{
    fixture_opts o;
    fixture_tiny(&o);
    char e[256];
    gpt2embed_error err;
    char *dir = test_tmpdir("stats-out"), *w = path_join(dir, "w.safetensors"), *out = path_join(dir, "s.json");
    cr_assert_eq(fixture_write(w, &o, e, sizeof e), 0, "%s", e);
    gpt2embed_model *m;
    cr_assert_eq(gpt2embed_model_open(&m, w, NULL, &err), 0, "%s", err.message);
    gpt2embed_stats s[2];
    for (int k = 0; k < 2; k++) {
        cr_assert_eq(gpt2embed_table_stats(m, k ? GPT2EMBED_WPE : GPT2EMBED_WTE, &s[k], &err), 0, "%s", err.message);
        stats_mark_undefined(&s[k]);   /* finite: unchanged */
    }
    FILE *f = fopen(out, "w");
    stats_write(f, 1, w, gpt2embed_n_embd(m), s, 3, NULL);
    fclose(f);
    char *script = path_join(G2E_SRCDIR, "tests/stats_ref.py");
    run_result r = run_argv((char *[]){"/usr/bin/python3", script, w, out, "3", NULL}, NULL, 0, NULL, NULL);
    cr_expect(strstr(r.out, "EQUAL True") != NULL, "numpy: %s%s", r.out, r.err);
    run_free(&r);
    gpt2embed_model_close(m);
    free(script), free(out), free(w), free(dir);
}

Test(stats_out, undefined_figures_are_marked)
{
    gpt2embed_stats s[2] = {{.rows = 2, .cols = 2, .norm_mean = INFINITY, .norm_min = 1, .norm_max = 2,
                       .mean = NAN, .std = 0},
                      {.rows = 2, .cols = 2, .norm_mean = 1, .norm_min = 1, .norm_max = 1, .mean_abs = 0.5,
                       .mean = 0.1, .std = 0.2}};
    stats_mark_undefined(&s[0]);
    stats_mark_undefined(&s[1]);
    cr_expect(isnan(s[0].norm_min) && isnan(s[0].std), "wte's figures are all undefined");
    cr_expect(s[1].norm_min == 1 && s[1].std == 0.2, "wpe's stay");
    char *buf;
    size_t len;
    FILE *f = open_memstream(&buf, &len);
    stats_write(f, 0, "P", 2, s, 0, NULL);
    fclose(f);
    cr_expect(strstr(buf, "wte holds a NaN or an infinity: its norms, mean and std are undefined"), "%s", buf);
    cr_expect(!strstr(buf, "wpe holds"), "%s", buf);
    free(buf);
    f = open_memstream(&buf, &len);
    stats_write(f, 1, "P", 2, s, 0, NULL);
    fclose(f);
    cr_expect(strstr(buf, "\"norm_min\": null") && !strstr(buf, "nan"), "%s", buf);
    free(buf);
}
