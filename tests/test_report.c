/* SPDX-License-Identifier: MIT */
/* test_report.c — `gpt2-embed report` in a real browser: headless Chromium (Debian's
 * chromium) loads the page from a file:// URL, and a script the test adds to a copy of the page
 * (not the report's own code) writes every image's natural size into the DOM, which
 * --dump-dom returns; every figure must have loaded. Also: the page's numbers are the
 * commands' numbers (exercise, pca), nothing is fetched from elsewhere, the self-contained
 * file embeds every figure and leaves no temporary files, and a screenshot is written to
 * build/tmp for a person to look at. */
#include "fixture.h"
#include "pngcheck.h"
#include "support.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define FIGURES 13

/* A dense fixture big enough for every section: GPT-2's vocabulary (" cat", the Japanese
 * sentences' tokens), 600 positions (cos(wpe[0], wpe[500])), width 32. */
static char *report_fixture(const char *tag)
{
    fixture_opts o;
    fixture_tiny(&o);
    o.n_vocab = 50257, o.n_ctx = 600, o.n_embd = 32;
    char *dir = test_tmpdir(tag), *path = path_join(dir, "m.safetensors"), e[256];
    free(dir);
    cr_assert_eq(fixture_write(path, &o, e, sizeof e), 0, "%s", e);
    return path;
}

static size_t count(const char *s, const char *needle)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* Runs headless Chromium on url with extra arguments (NULL-terminated, at most 4). */
static run_result chromium(const char *profile_tag, const char *url, const char *a1, const char *a2)
{
    char *profile = test_tmpdir(profile_tag), ud[4200];
    snprintf(ud, sizeof ud, "--user-data-dir=%s", profile);
    char *argv[] = {"/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu",
                    "--disable-quic", "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", ud,
                    "--virtual-time-budget=20000", (char *)a1, (char *)a2, (char *)url, NULL};
    if (!a2)
        argv[12] = (char *)url, argv[13] = NULL;
    run_result r = run_argv(argv, NULL, 0, NULL, NULL);
    free(profile);
    return r;
}

/* Copies page (in its directory, so relative figures resolve) with script added at its end,
 * which on load writes its findings into <pre id="probe">MARK ... END</pre>; returns what
 * Chromium's DOM (--dump-dom, with extra, an argument or NULL) says between MARK and END. */
static char *probe(const char *page, const char *tag, const char *script, const char *mark,
                   const char *extra)
{
    size_t len;
    char *html = read_file(page, &len);
    cr_assert(html, "no page at %s", page);
    char *add = g2e_printf_alloc("<script>window.addEventListener('load', function () { %s"
                                 " var p = document.createElement('pre'); p.id = 'probe'; p.textContent = '%s ' +"
                                 " found + ' END'; document.body.appendChild(p); });</script>\n", script, mark);
    cr_assert(add);
    char *copy = malloc(strlen(page) + 16), *both = malloc(len + strlen(add) + 1), url[4200];
    sprintf(copy, "%s.probe.html", page);
    memcpy(both, html, len);
    strcpy(both + len, add);
    write_file(copy, both, len + strlen(add));
    snprintf(url, sizeof url, "file://%s", copy);
    run_result r = chromium(tag, url, "--dump-dom", extra);
    cr_assert_eq(r.status, 0, "chromium: %s", r.err);
    char want[64];
    snprintf(want, sizeof want, "<pre id=\"probe\">%s ", mark);
    char *a = strstr(r.out, want), *b = a ? strstr(a, "END</pre>") : NULL;
    cr_assert(a && b, "the probe did not run; DOM: %.300s", r.out);
    a += strlen(want);
    char *out = strndup(a, b > a ? (size_t)(b - a) : 0);
    size_t n = strlen(out);
    if (n && out[n - 1] == ' ')
        out[n - 1] = '\0';
    run_free(&r);
    free(html), free(both), free(copy), free(add);
    return out;
}

/* Every image's natural size once the page loaded: "WxH WxH ..." (caller frees). */
static char *loaded_images(const char *page, const char *tag)
{
    return probe(page, tag, "var r = []; for (var i = 0; i < document.images.length; i++) {"
                 " var im = document.images[i]; r.push(im.naturalWidth + 'x' + im.naturalHeight); }"
                 " var found = r.join(' ');", "IMGS", NULL);
}

/* Chromium's layout of page in a narrow window (700 px): every table heading that a line
 * break cuts between two letters of a Japanese word (kana or kanji on both sides: トーク|ン),
 * as "heading@character" ("" when none), joined by " | ". A break at punctuation such as
 * "wte|（トークン）" is where Japanese lines may break. */
static char *wrapped_headings(const char *page, const char *tag)
{
    return probe(page, tag, "var bad = []; var jp = /[\\u3041-\\u30ff\\u4e00-\\u9fff]/;"
                 " var ths = document.querySelectorAll('th'); for (var i = 0; i < ths.length; i++) {"
                 " var w = document.createTreeWalker(ths[i], NodeFilter.SHOW_TEXT); var n, prev = null, top = null;"
                 " while ((n = w.nextNode())) for (var k = 0; k < n.data.length; k++) {"
                 " var rg = document.createRange(); rg.setStart(n, k); rg.setEnd(n, k + 1);"
                 " var rs = rg.getClientRects(); if (!rs.length) continue; var t = Math.round(rs[0].top);"
                 " if (top !== null && t > top + 2 && prev && jp.test(prev) && jp.test(n.data[k]))"
                 " bad.push(ths[i].textContent + '@' + n.data[k]); top = t; prev = n.data[k]; } }"
                 " var found = bad.join(' | ');", "WRAPPED", "--window-size=700,2000");
}

static void expect_all_loaded(const char *sizes, size_t want)
{
    size_t n = 0;
    char *dup = strdup(sizes);
    for (char *t = strtok(dup, " "); t; t = strtok(NULL, " ")) {
        int w = 0, h = 0;
        cr_expect(sscanf(t, "%dx%d", &w, &h) == 2 && w >= 300 && h >= 200,
                  "image %zu did not load: %s", n, t);
        n++;
    }
    cr_expect_eq(n, want, "the page has %zu images, expected %zu: %s", n, want, sizes);
    free(dup);
}

/* Nothing in the page points outside it. */
static void expect_offline(const char *html)
{
    cr_expect(!strstr(html, "http://") && !strstr(html, "https://") && !strstr(html, "src=\"//") &&
              !strstr(html, "href=\"//") && !strstr(html, "@import"),
              "the page refers to the network");
}

Test(report, directory_page_loads_every_figure_in_chromium, .timeout = 240)
{
    char *w = report_fixture("report-dir-w"), *dir = test_tmpdir("report-dir");
    char *out = path_join(dir, "rep"), *index = path_join(out, "index.html");
    run_result r = run_g2e("report", "-o", out, "--weights", w, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(!strstr(r.err, "could not be computed"), "a section failed: %s", r.err);
    run_free(&r);
    size_t len;
    char *html = read_file(index, &len);
    cr_assert(html);
    expect_offline(html);
    cr_expect_eq(count(html, "<img "), FIGURES);
    cr_expect(!strstr(html, "Not available"), "a section failed");
    /* each src names a PNG beside the page */
    for (const char *p = html; (p = strstr(p, "src=\"")); p += 5) {
        char name[128];
        cr_assert(sscanf(p + 5, "%127[^\"]", name) == 1);
        char *f = path_join(out, name);
        png img = pngcheck_load(f);
        cr_expect(img.w >= 300, "%s", name);
        pngcheck_free(&img);
        free(f);
    }
    char *sizes = loaded_images(index, "report-dir-chromium");
    expect_all_loaded(sizes, FIGURES);
    free(sizes);
    /* a screenshot for a person to look at (build/tmp/report-shot.png) */
    char *shot = path_join(dir, "report-shot.png"), sarg[4200], url[4200];
    snprintf(sarg, sizeof sarg, "--screenshot=%s", shot);
    snprintf(url, sizeof url, "file://%s", index);
    r = chromium("report-dir-shot", url, sarg, "--window-size=1400,3000");
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    png s = pngcheck_load(shot);
    cr_expect(s.w == 1400 && pngcheck_dark(&s, 0, 0, s.w, s.h) > 5000, "screenshot %dx%d", s.w, s.h);
    pngcheck_free(&s);
    free(shot), free(html), free(index), free(out), free(dir), free(w);
}

Test(report, single_file_embeds_every_figure, .timeout = 240)
{
    char *w = report_fixture("report-one-w"), *dir = test_tmpdir("report-one");
    char *out = path_join(dir, "r.html");
    run_result r = run_g2e("report", "-o", out, "--weights", w, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    size_t len;
    char *html = read_file(out, &len);
    cr_assert(html);
    expect_offline(html);
    cr_expect_eq(count(html, "src=\"data:image/png;base64,iVBORw0KGgo"), FIGURES);
    /* nothing left beside it but the page (the temporary figures are gone) */
    DIR *d = opendir(dir);
    size_t entries = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            entries++;
            cr_expect_str_eq(e->d_name, "r.html");
        }
    closedir(d);
    cr_expect_eq(entries, 1);
    char *sizes = loaded_images(out, "report-one-chromium");
    expect_all_loaded(sizes, FIGURES);
    free(sizes), free(html), free(out), free(dir), free(w);
}

/* The page shows the commands' numbers. */
/* Every number of both exercises in the page at html is `exercise --format json`'s on the
 * same weights w (issue 37: one function computes them for both). */
static void expect_exercises_of(const char *html, const char *w)
{
    run_result r = run_g2e("exercise", "--format", "json", "--weights", w, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *j = cJSON_Parse(r.out), *one = cJSON_GetObjectItem(j, "exercise1");
    cJSON *ex = cJSON_GetObjectItem(j, "exercise2");
    cr_assert(one && ex, "%s", r.out);
#define NUM(o, k) (cJSON_GetObjectItem(o, k) ? cJSON_GetObjectItem(o, k)->valuedouble : -99)
    char want[300];
    snprintf(want, sizeof want, "<th>GPT-2: 1024 positions x 768 dimensions</th><td>%.0f</td>",
             NUM(one, "gpt2_wpe_params"));
    cr_expect(strstr(html, want), "page lacks %s", want);
    snprintf(want, sizeof want, "<th>4096 positions x 4096 dimensions</th><td>%.0f</td>", NUM(one, "wpe_params"));
    cr_expect(strstr(html, want), "page lacks %s", want);
    snprintf(want, sizeof want, "<th>ratio</th><td>%.4f</td>", NUM(one, "ratio"));
    cr_expect(strstr(html, want), "page lacks %s", want);
    snprintf(want, sizeof want, "= %.0f</td>", NUM(one, "file_wpe_params"));
    cr_expect(strstr(html, want), "page lacks %s", want);
    snprintf(want, sizeof want, "= %.0f</td>", NUM(one, "file_wte_params"));
    cr_expect(strstr(html, want), "page lacks %s", want);
    cJSON *shape = cJSON_GetObjectItem(ex, "wpe_shape");
    snprintf(want, sizeof want, "<th>shape of wpe</th><td>(%d, %d)</td>",
             cJSON_GetArrayItem(shape, 0)->valueint, cJSON_GetArrayItem(shape, 1)->valueint);
    cr_expect(strstr(html, want), "page lacks %s", want);
    snprintf(want, sizeof want, "<th>cos(wpe[0], wpe[1])</th><td>%.4f</td>", NUM(ex, "cos_pos0_pos1"));
    cr_expect(strstr(html, want), "page lacks %s", want);
    snprintf(want, sizeof want, "<th>cos(wpe[0], wpe[%.0f])</th><td>%.4f</td>", NUM(ex, "far_pos"),
             NUM(ex, "cos_pos0_far"));
    cr_expect(strstr(html, want), "page lacks %s", want);
    snprintf(want, sizeof want, "<th>token ID of &quot; cat&quot;</th><td>%.0f</td>", NUM(ex, "cat_token_id"));
    cr_expect(strstr(html, want), "page lacks %s", want);
    snprintf(want, sizeof want, "<th>cos(wte[cat] + wpe[0], wte[cat] + wpe[5])</th><td>%.4f</td>",
             NUM(ex, "cos_cat_pos0_pos5"));
    cr_expect(strstr(html, want), "page lacks %s", want);
    snprintf(want, sizeof want, "<td>%.4f (%.0f pairs)</td>", NUM(ex, "median_random_token_pairs"),
             NUM(ex, "random_pairs"));
    cr_expect(strstr(html, want), "page lacks %s", want);
#undef NUM
    cJSON_Delete(j);
    run_free(&r);
}

Test(report, exercises_are_exercise_json_on_a_short_wpe, .timeout = 120)
{
    /* 300 positions: no wpe[500], so both take the last position (the report and `exercise`
     * had a rule each) */
    fixture_opts o;
    fixture_tiny(&o);
    o.n_vocab = 50257, o.n_ctx = 300, o.n_embd = 16;
    char *dir = test_tmpdir("report-ex300"), *w = path_join(dir, "m.safetensors"), e[256];
    cr_assert_eq(fixture_write(w, &o, e, sizeof e), 0, "%s", e);
    char *out = path_join(dir, "r.html");
    run_result r = run_g2e("report", "-o", out, "--weights", w, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    size_t len;
    char *html = read_file(out, &len);
    cr_assert(html);
    expect_exercises_of(html, w);
    cr_expect(strstr(html, "<th>cos(wpe[0], wpe[299])</th>"));
    free(html), free(out), free(w), free(dir);
}

Test(report, numbers_are_the_commands_numbers, .timeout = 120)
{
    char *w = report_fixture("report-num-w"), *dir = test_tmpdir("report-num");
    char *out = path_join(dir, "r.html");
    run_result r = run_g2e("report", "-o", out, "--weights", w, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    size_t len;
    char *html = read_file(out, &len);
    expect_exercises_of(html, w);
    char want[256];
    cr_expect(strstr(html, "<th>cos(wpe[0], wpe[500])</th>"));
    r = run_g2e("pca", "--skip", "1", "--format", "json", "--weights", w, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    snprintf(want, sizeof want, "<tr><td>PC1</td><td>%.5g</td><td>%.4f</td>",
             cJSON_GetArrayItem(cJSON_GetObjectItem(j, "variance"), 0)->valuedouble,
             cJSON_GetArrayItem(cJSON_GetObjectItem(j, "ratio"), 0)->valuedouble);
    cr_expect(strstr(html, want), "page lacks %s", want);
    cJSON_Delete(j);
    run_free(&r);
    /* the order puzzle: the same multiset, and every line `compare` says after its table */
    cr_expect(strstr(html, "<th>the same multiset of tokens</th><td>yes</td>"));
    r = run_g2e("compare", "犬が猫を追いかけた", "猫が犬を追いかけた", "--weights", w, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char *says = strstr(r.out, "Self-attention without a mask sees");
    cr_assert(says, "%s", r.out);
    size_t lines = 0;
    for (char *line = strtok(says, "\n"); line; line = strtok(NULL, "\n"), lines++) {
        while (*line == ' ')
            line++;
        cr_expect(strstr(html, line), "the report lacks compare's line: %s", line);
    }
    cr_expect_geq(lines, 8);
    cr_expect(strstr(html, "conclusion: distinguishable."));
    run_free(&r);
    /* issue 23: the context section's Japanese text goes over the limit (the built-in texts
     * are tests/data/count_*.txt: the same bytes, characters and tokens), and the page says
     * how much of it GPT-2 reads, as count says where the cut is */
    cr_expect(strstr(html, "<tr><td>built-in Japanese text</td><td>3449</td><td>1193</td><td>1635</td>"));
    cr_expect(strstr(html, "<tr><td>built-in English text</td><td>2747</td><td>2747</td><td>600</td>"));
    r = run_g2e("count", "-f", G2E_SRCDIR "/tests/data/count_ja.txt", "--ctx", "600", "--format", "json", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *cj = cJSON_Parse(r.out);
    cJSON *cut = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(cj, "inputs"), 0), "cut");
    cr_assert(cut, "%s", r.out);
    snprintf(want, sizeof want, "built-in Japanese text does not fit: GPT-2 reads its first 600 tokens, "
             "which hold %d of its 1193 characters", cJSON_GetObjectItem(cut, "chars_before")->valueint);
    cr_expect(strstr(html, want), "page lacks %s", want);
    cr_expect(!strstr(html, "built-in English text does not fit"));
    /* issue 38: the passage around the cut, marked where count says it falls */
    const char *snip = cJSON_GetObjectItem(cut, "snippet") ? cJSON_GetObjectItem(cut, "snippet")->valuestring : NULL;
    cr_assert(snip, "count's cut has a snippet: %s", r.out);
    const char *bar = strchr(snip, '|');
    cr_assert(bar && strncmp(snip, "\xE2\x80\xA6", 3) == 0, "%s", snip);
    char around[400];
    snprintf(around, sizeof around, "%.*s<span class=\"cut\">\xE2\x9C\x82</span>%.12s",
             (int)(bar - snip - 3), snip + 3, bar + 1);
    cr_expect(strstr(html, around), "page lacks the cut as count shows it: %s", around);
    cr_expect(strstr(html, "the rows that differ are marked"), "the order figure");
    cJSON_Delete(cj);
    run_free(&r);
    /* and the article's second point, the rotation, checked */
    cr_expect(strstr(html, "The article&#39;s second point") || strstr(html, "The article's second point"));
    cr_expect(strstr(html, "rounding only."));
    free(html), free(out), free(dir), free(w);
}

/* What the page says of position 0 follows the median of the other positions: a ratio when
 * it is positive (the fixture: every row written), none when it is 0 (only rows 0..k written,
 * k below half of them: the rest read as zero vectors), in English and Japanese. */
Test(report, position_0_has_a_ratio_to_the_median_only_when_there_is_one, .timeout = 180)
{
    char *full = report_fixture("report-median-full"), *dir = test_tmpdir("report-median");
    fixture_opts o;
    fixture_tiny(&o);
    o.n_vocab = 50257, o.n_ctx = 600, o.n_embd = 32, o.sparse = 1;
    static const uint64_t rows[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    o.wpe_rows = rows, o.n_wpe_rows = 10;
    char *zero = path_join(dir, "zero.safetensors"), *out = path_join(dir, "r.html"), e[256];
    cr_assert_eq(fixture_write(zero, &o, e, sizeof e), 0, "%s", e);
    for (int z = 0; z < 2; z++)
        for (int ja = 0; ja < 2; ja++) {
            run_result r = ja ? run_g2e("--lang", "ja", "report", "-o", out, "--weights", z ? zero : full, NULL)
                              : run_g2e("report", "-o", out, "--weights", z ? zero : full, NULL);
            cr_assert_eq(r.status, 0, "%s", r.err);
            run_free(&r);
            size_t len;
            char *html = read_file(out, &len);
            const char *none = ja ? "中央値との比は定まりません" : "so no ratio to the median is defined";
            const char *ratio = ja ? "倍です" : "times the median of the other positions";
            cr_expect((strstr(html, none) != NULL) == z, "zero median %d, ja %d", z, ja);
            cr_expect((strstr(html, ratio) != NULL) == !z, "zero median %d, ja %d", z, ja);
            free(html);
        }
    free(full), free(zero), free(out), free(dir);
}

Test(report, errors)
{
    run_result r = run_g2e("report", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "-o DIR or -o FILE.html is required"), "%s", r.err);
    run_free(&r);
    char *dir = test_tmpdir("report-err"), *file = path_join(dir, "plain");
    write_file(file, "x", 1);
    char *w = report_fixture("report-err-w");
    r = run_g2e("report", "-o", file, "--weights", w, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "is not a directory"), "%s", r.err);
    run_free(&r);
    r = run_g2e("report", "-o", file, "--weights", "/nonexistent.safetensors", NULL);
    cr_expect_eq(r.status, 1);
    run_free(&r);
    size_t len;
    char *kept = read_file(file, &len);
    cr_expect(len == 1 && kept[0] == 'x', "the file the user had is untouched");
    /* a FIFO as the text is refused at once, never waited on; the weights are never replaced */
    char *fifo = path_join(dir, "fifo"), *html = path_join(dir, "r.html");
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    r = run_g2e("report", "-o", html, "--text-ja", fifo, "--weights", w, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "not a regular file"), "%s", r.err);
    run_free(&r);
    r = run_g2e("report", "-o", w, "--weights", w, NULL);
    cr_expect_neq(r.status, 0, "-o over the weights must fail");
    run_free(&r);
    char *wk = read_file(w, &len);
    cr_expect(wk && len > 1000 && memcmp(wk + 8, "{", 1) == 0, "the weights are intact");
    free(wk), free(fifo), free(html);
    free(kept), free(file), free(dir), free(w);
}

/* --lang ja translates the page's own text (report_text.h is in the catalogue), the numbers
 * stay the same. */
Test(report, japanese_page, .timeout = 120)
{
    char *w = report_fixture("report-ja-w"), *dir = test_tmpdir("report-ja");
    char *en = path_join(dir, "en.html"), *ja = path_join(dir, "ja.html");
    run_result r = run_g2e("--lang", "ja", "report", "-o", ja, "--weights", w, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    r = run_g2e("report", "-o", en, "--weights", w, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    size_t len;
    char *h = read_file(ja, &len), *e = read_file(en, &len);
    cr_expect(strstr(h, "<html lang=\"ja\">") && strstr(e, "<html lang=\"en\">"));
    cr_expect(!strstr(h, "GPT-2's embedding stage on these weights"), "the title is translated");
    cr_expect(!strstr(h, "Contents</b>"), "the contents line is translated");
    const char *k = strstr(e, "<th>cos(wpe[0], wpe[1])</th><td>");
    cr_assert(k);
    char num[64];
    cr_assert(sscanf(k + strlen("<th>cos(wpe[0], wpe[1])</th><td>"), "%63[^<]", num) == 1);
    cr_expect(strstr(h, num), "the same cosine %s on the Japanese page", num);
    /* issue 38: a Japanese heading is never broken inside a word (wte（トーク / ン）) */
    char *wrapped = wrapped_headings(ja, "report-ja-wrap");
    cr_expect_str_eq(wrapped, "", "headings broken over lines: %s", wrapped);
    free(wrapped);
    free(h), free(e), free(en), free(ja), free(dir), free(w);
}

/* ---- -o DIR as a whole (issue 26): old or new, never a mixture; links not followed ---- */

/* Starts the program (stdout, stderr to /dev/null) with a file size limit (0: none). */
static pid_t start_report(char *const argv[], rlim_t fsize)
{
    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        int dn = open("/dev/null", O_RDWR);
        dup2(dn, 1), dup2(dn, 2);
        struct rlimit rl = {fsize, fsize};
        if (fsize && setrlimit(RLIMIT_FSIZE, &rl) != 0)
            _exit(126);
        signal(SIGXFSZ, SIG_IGN);
        execv(argv[0], argv);
        _exit(127);
    }
    return pid;
}

/* The directory's entries (hidden ones included) as "name:size name:size ..." sorted. */
static char *listing(const char *d)
{
    struct dirent **es;
    int n = scandir(d, &es, NULL, alphasort);
    cr_assert(n >= 0, "cannot list %s", d);
    size_t cap = 16 + (size_t)n * 300, len = 0;
    char *s = malloc(cap);
    s[0] = '\0';
    for (int i = 0; i < n; i++) {
        char p[4200];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", d, es[i]->d_name);
        if (strcmp(es[i]->d_name, ".") && strcmp(es[i]->d_name, "..") && lstat(p, &st) == 0)
            len += (size_t)snprintf(s + len, cap - len, "%s:%lld ", es[i]->d_name, (long long)st.st_size);
        free(es[i]);
    }
    free(es);
    return s;
}

/* 1 when the parent folder holds a hidden entry (a temporary directory left behind). */
static int hidden_in(const char *d)
{
    DIR *dd = opendir(d);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(dd)))
        n += e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(dd);
    return n;
}

Test(report, a_planted_link_is_replaced_not_followed, .timeout = 120)
{
    char *w = report_fixture("report-link-w"), *dir = test_tmpdir("report-link");
    char *rep = path_join(dir, "rep"), *victim = path_join(dir, "victim.txt"), *idx = path_join(rep, "index.html");
    cr_assert(mkdir(rep, 0755) == 0);
    write_file(victim, "keep me", 7);
    cr_assert(symlink("../victim.txt", idx) == 0);
    run_result r = run_g2e("report", "-o", rep, "--weights", w, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    size_t len;
    char *v = read_file(victim, &len);
    cr_expect(v && len == 7 && !memcmp(v, "keep me", 7), "the file the link pointed at was written");
    struct stat st;
    cr_expect(lstat(idx, &st) == 0 && S_ISREG(st.st_mode), "index.html is the report's own file now");
    cr_expect_eq(hidden_in(dir), 0, "a temporary directory was left beside the report");
    /* a directory holding something else is refused untouched */
    char *notes = path_join(rep, "notes.txt"), *before = listing(rep);
    write_file(notes, "mine", 4);
    r = run_g2e("report", "-o", rep, "--weights", w, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "notes.txt") != NULL, "%s", r.err);
    run_free(&r);
    cr_expect(access(notes, F_OK) == 0 && access(idx, F_OK) == 0);
    free(v), free(notes), free(before), free(w), free(dir), free(rep), free(victim), free(idx);
}

Test(report, a_failed_write_is_an_error_and_leaves_the_old_report, .timeout = 180)
{
    char *w = report_fixture("report-fail-w"), *dir = test_tmpdir("report-fail"), *rep = path_join(dir, "rep");
    run_result r = run_g2e("report", "-o", rep, "--weights", w, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    char *before = listing(rep);
    /* figures over 64 KB cannot be written (ulimit -f): exit 1 naming the file and the reason */
    char *argv[] = {G2E_TEST_BIN, "--lang", "ja", "report", "-o", rep, "--weights", w, NULL};
    char *sh_argv[] = {"/bin/sh", "-c", NULL, NULL};
    char cmd[8400];
    snprintf(cmd, sizeof cmd, "ulimit -f 64; exec '%s' report -o '%s' --weights '%s'", G2E_TEST_BIN, rep, w);
    sh_argv[2] = cmd;
    r = run_argv(sh_argv, NULL, 0, NULL, NULL);
    cr_expect_eq(r.status, 1, "status %d: %s", r.status, r.err);
    cr_expect(strstr(r.err, "failed: File too large") != NULL, "%s", r.err);
    cr_expect(strstr(r.err, "could not be computed") == NULL, "a write failure blamed on the weights: %s", r.err);
    cr_expect(strchr(r.err, '\n') == r.err + r.err_len - 1, "not one line: %s", r.err);
    run_free(&r);
    char *after = listing(rep);
    cr_expect_str_eq(after, before, "the old report changed");
    cr_expect_eq(hidden_in(dir), 0, "a temporary directory was left");
    free(after);
    /* interrupted (SIGTERM once the new figures are being written): the old report, whole */
    int checked = 0;
    for (int tries = 0; tries < 3 && !checked; tries++) {
        pid_t pid = start_report(argv, 0);
        int seen = 0;
        for (int i = 0; i < 3000 && !seen; i++) {   /* until a PNG is in the temporary directory */
            char c2[8400];
            snprintf(c2, sizeof c2, "ls '%s'/.rep.*/*.png >/dev/null 2>&1", dir);
            seen = system(c2) == 0;
            if (!seen)
                usleep(5000);
        }
        kill(pid, SIGTERM);
        int st;
        waitpid(pid, &st, 0);
        if (!seen) {
            cr_log_warn("no figure seen before the report ended (try %d)", tries);
            continue;
        }
        cr_expect(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "status %d", st);
        after = listing(rep);
        cr_expect_str_eq(after, before, "an interrupted report left a mixture");
        cr_expect_eq(hidden_in(dir), 0, "an interrupted report left its temporary directory");
        free(after);
        checked = 1;
    }
    cr_expect(checked, "in 3 tries no figure was seen before the report ended: the interruption was not tested");
    free(before), free(w), free(dir), free(rep);
}
