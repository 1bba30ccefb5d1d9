/* SPDX-License-Identifier: MIT */
/* test_manual.c — the manual, the pages and the option tables say the same thing (as curl's
 * tests/test1139.pl checks its manual against its code):
 *   - doc/gpt2-embed.1 is exactly what tools/genman.sh makes of it: the OPTIONS sections
 *     generated from the tables (gpt2-embed __man) and the Makefile's VERSION on .TH;
 *   - the option table of the main job (doc/embed.md) names every option embed declares, and
 *     no other; every --option in an example of a command with a table, on any page (README.md,
 *     README.ja.md, doc/ and doc/ja/), is declared by it;
 *   - one version everywhere: --version, the manual, the pkg-config template's placeholder.
 * Each check is also run on a tampered copy, to show it can fail. */
#include "support.h"

#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAN G2E_SRCDIR "/doc/gpt2-embed.1"
#define MAIN_PAGE G2E_SRCDIR "/doc/embed.md"

/* Every page of the documentation (README.md, README.ja.md, doc/ and doc/ja/ *.md) one after
 * another, in one string (caller frees). */
static char *read_pages(void)
{
    const char *dirs[] = {G2E_SRCDIR "/doc", G2E_SRCDIR "/doc/ja"};
    static char *all; /* (static: the stream keeps their addresses, which gcc takes for dangling) */
    static size_t n;
    all = NULL, n = 0;
    FILE *f = open_memstream(&all, &n);
    cr_assert(f);
    const char *readmes[] = {G2E_SRCDIR "/README.md", G2E_SRCDIR "/README.ja.md"};
    for (size_t i = 0; i < 2; i++) {
        size_t len;
        char *s = read_file(readmes[i], &len);
        cr_assert(s, "%s", readmes[i]);
        fprintf(f, "%s\n", s);
        free(s);
    }
    for (size_t d = 0; d < 2; d++) {
        DIR *dir = opendir(dirs[d]);
        cr_assert(dir, "%s", dirs[d]);
        for (struct dirent *e; (e = readdir(dir));) {
            size_t l = strlen(e->d_name), len;
            if (l < 4 || strcmp(e->d_name + l - 3, ".md") != 0)
                continue;
            char *path = path_join(dirs[d], e->d_name), *s = read_file(path, &len);
            cr_assert(s, "%s", path);
            fprintf(f, "%s\n", s);
            free(s);
            free(path);
        }
        closedir(dir);
    }
    fclose(f);
    return all;
}

/* tools/genman.sh on `in`; returns what it wrote (caller frees). */
static char *genman(const char *in)
{
    char *dir = test_tmpdir("genman");
    char *out = path_join(dir, "out.1");
    run_result r = run_argv((char *[]){"/bin/sh", G2E_SRCDIR "/tools/genman.sh", G2E_TEST_BIN, G2E_VERSION,
                                       (char *)in, out, NULL}, NULL, 0, NULL, NULL);
    cr_assert_eq(r.status, 0, "genman.sh: %s", r.err);
    run_free(&r);
    size_t n;
    char *s = read_file(out, &n);
    cr_assert(s);
    free(out);
    free(dir);
    return s;
}

Test(manual, man_page_is_what_the_tables_generate)
{
    size_t n;
    char *man = read_file(MAN, &n);
    cr_assert(man);
    char *gen = genman(MAN);
    cr_expect_str_eq(man, gen, "doc/gpt2-embed.1 differs from the option tables: run `make man`");
    /* every command with a table has its section, with each of its options */
    cr_expect(strstr(man, ".SS similarity\n.TP\n.BI \"\\-\\-pos \" \"A B\"\n") != NULL);
    free(gen);
    /* tampered: an option line taken out of the generated part is put back */
    char *dir = test_tmpdir("mantamper");
    char *bad = path_join(dir, "bad.1");
    char *cut = strstr(man, ".TP\n.B \"\\-\\-bos\"\n");
    cr_assert(cut, "the manual lists --bos");
    size_t keep = (size_t)(cut - man), skip = strlen(".TP\n.B \"\\-\\-bos\"\n");
    char *t = malloc(n);
    memcpy(t, man, keep);
    memcpy(t + keep, cut + skip, n - keep - skip);
    write_file(bad, t, n - skip);
    gen = genman(bad);
    cr_expect(strlen(gen) == n && memcmp(gen, man, n) == 0, "genman restores the tampered manual");
    free(gen);
    free(t);
    free(bad);
    free(dir);
    free(man);
}

Test(manual, one_version)
{
    run_result r = run_g2e("--version", NULL);
    cr_expect_str_eq(r.out, "gpt2-embed " G2E_VERSION "\n");
    run_free(&r);
    size_t n;
    char *man = read_file(MAN, &n), *pc = read_file(G2E_SRCDIR "/doc/gpt2embed.pc.in", &n);
    cr_assert(man && pc);
    cr_expect(strstr(man, "\"gpt2-embed " G2E_VERSION "\"") != NULL, "the .TH line names the version");
    cr_expect(strstr(pc, "Version: @VERSION@\n") != NULL, "the pkg-config template takes VERSION");
    free(man);
    free(pc);
}

/* The options a command declares (gpt2-embed __options CMD), as "\n--a\n--b\n" for strstr. */
static char *declared(const char *cmd)
{
    run_result r = run_g2e("__options", cmd, NULL);
    cr_assert_eq(r.status, 0, "__options %s: %s", cmd, r.err);
    char *s = malloc(r.out_len + 2);
    s[0] = '\n';
    memcpy(s + 1, r.out, r.out_len + 1);
    run_free(&r);
    return s;
}

static int is_declared(const char *list, const char *opt, size_t len)
{
    char want[64];
    if (len + 3 > sizeof want)
        return 0;
    snprintf(want, sizeof want, "\n%.*s\n", (int)len, opt);
    return strstr(list, want) != NULL || (len == 6 && strncmp(opt, "--help", 6) == 0) ||
           (len == 6 && strncmp(opt, "--lang", 6) == 0);
}

static int opt_char(char c)
{
    return islower((unsigned char)c) || c == '-';
}

/* 1 if text has the option name as a whole word ("--window" but not "--windows"). */
static int mentions(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = text; (p = strstr(p, name)); p++)
        if ((p == text || !opt_char(p[-1])) && !opt_char(p[n]))
            return 1;
    return 0;
}

/* doc/embed.md's option table of the main job against embed's table. Returns NULL if they
 * agree, else what differs (static buffer). */
static const char *check_main_table(const char *readme, const char *embed)
{
    static char why[256];
    const char *sec = strstr(readme, "\n## Options");
    const char *end = sec ? strstr(sec + 1, "\n## ") : NULL;
    if (!sec)
        return "no '## Options' section";
    size_t len = end ? (size_t)(end - sec) : strlen(sec);
    char *table = calloc(len + 1, 1);
    size_t o = 0;
    for (const char *l = sec; l && l < sec + len; l = strchr(l + 1, '\n'))
        if (strncmp(l, "\n| `", 4) == 0) {
            size_t ll = strcspn(l + 1, "\n") + 1;
            memcpy(table + o, l, ll);
            o += ll;
        }
    why[0] = '\0';
    /* every option of the table is in the page's table (long name, or its -x form) */
    for (const char *p = embed + 1; *p && !why[0]; p += strcspn(p, "\n") + 1) {
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)strcspn(p, "\n"), p);
        if (!mentions(table, name) && !(strcmp(name, "--output") == 0 && mentions(table, "-o")) &&
            !(strcmp(name, "--file") == 0 && mentions(table, "-f")))
            snprintf(why, sizeof why, "doc/embed.md's table of the main job lacks %s", name);
    }
    /* and every --option in it is declared */
    for (const char *p = table; (p = strstr(p, "--")) && !why[0]; p += 2) {
        size_t n = 2;
        while (islower((unsigned char)p[n]) || p[n] == '-')
            n++;
        if (n > 2 && !is_declared(embed, p, n))
            snprintf(why, sizeof why, "doc/embed.md's table of the main job names %.*s, which embed does not declare",
                     (int)n, p);
    }
    free(table);
    return why[0] ? why : NULL;
}

Test(manual, main_page_table_is_embeds_table)
{
    size_t n;
    char *readme = read_file(MAIN_PAGE, &n), *embed = declared("embed");
    cr_assert(readme);
    const char *why = check_main_table(readme, embed);
    cr_expect(why == NULL, "%s", why);
    /* tampered: a row taken out, or an option that does not exist */
    char *row = strstr(readme, "\n| `--bos` |");
    cr_assert(row);
    memcpy(row + 4, "--bas", 5);
    why = check_main_table(readme, embed);
    cr_expect(why && strstr(why, "lacks --bos"), "%s", why ? why : "(no difference found)");
    free(readme);
    free(embed);
}

/* Every --option after `gpt2-embed CMD` in the pages' examples is one CMD declares (for
 * the commands that have tables). Transcripts (```text blocks) are left out: they may show
 * a mistake and its message. Returns NULL or what is wrong (static buffer). */
static const char *check_examples(const char *text)
{
    char *readme = strdup(text);
    for (char *b = readme; (b = strstr(b, "```text\n"));) {
        char *e = strstr(b + 8, "\n```");
        size_t n = e ? (size_t)(e - b) : strlen(b);
        memset(b, ' ', n);
        b += n;
    }
    static const char *const CMDS[] = {"tokenize", "decode", "inspect", "compare", "exercise", "similarity",
                                       "nearest", "stats", "pca", "rope", "sinusoidal"};
    static char why[256];
    why[0] = '\0';
    for (size_t k = 0; k < sizeof CMDS / sizeof CMDS[0] && !why[0]; k++) {
        char *list = declared(CMDS[k]), pat[64];
        snprintf(pat, sizeof pat, "gpt2-embed %s ", CMDS[k]);
        for (const char *l = readme; (l = strstr(l, pat)) && !why[0]; l++) {
            size_t ll = strcspn(l, "\n#`|");
            for (const char *p = l; (p = strstr(p, "--")) && p < l + ll && !why[0]; p += 2) {
                size_t n = 2;
                while (islower((unsigned char)p[n]) || p[n] == '-')
                    n++;
                if (n > 2 && !is_declared(list, p, n))
                    snprintf(why, sizeof why, "the pages: '%.*s' uses %.*s, which %s does not declare",
                             (int)ll, l, (int)n, p, CMDS[k]);
            }
        }
        free(list);
    }
    free(readme);
    return why[0] ? why : NULL;
}

Test(manual, page_examples_use_declared_options)
{
    char *readme = read_pages();
    const char *why = check_examples(readme);
    cr_expect(why == NULL, "%s", why);
    char *l = strstr(readme, "gpt2-embed similarity --pos 0 1  ");
    cr_assert(l);
    memcpy(l + strlen("gpt2-embed similarity --"), "pso", 3);
    why = check_examples(readme);
    cr_expect(why && strstr(why, "uses --pso"), "%s", why ? why : "(no difference found)");
    free(readme);
}

/* man --warnings on a page: what troff complains about (caller frees; "" when nothing). */
static char *man_warnings(const char *page)
{
    run_result r = run_argv((char *[]){"/usr/bin/man", "--warnings", "-l", (char *)page, NULL}, NULL, 0,
                            (char *[]){"LC_ALL=C.UTF-8", "MANWIDTH=80", "-MANPAGER", "-PAGER", "-MANOPT",
                                       "-GROFF_SGR", NULL},
                            NULL);
    cr_assert_eq(r.status, 0, "man -l %s: %s", page, r.err);
    cr_assert(r.out_len > 1000, "man -l %s shows the page", page);
    char *w = strdup(r.err);
    run_free(&r);
    return w;
}

/* issue 23: both manuals format without a warning (a line that starts with ".csv" was taken
 * for a request and dropped; Japanese lines could not be broken), and genman.sh protects a
 * line of text that starts with '.' or '\''. The check is shown to fail on such a line. */
Test(manual, both_pages_format_without_warnings)
{
    const char *pages[] = {MAN, G2E_SRCDIR "/doc/ja/gpt2-embed.1"};
    for (size_t i = 0; i < 2; i++) {
        char *w = man_warnings(pages[i]);
        cr_expect_str_eq(w, "", "%s: %s", pages[i], w);
        free(w);
    }
    size_t n;
    char *man = read_file(MAN, &n);
    cr_assert(man);
    char *at = strstr(man, "\n.SH ");
    cr_assert(at);
    char *dir = test_tmpdir("manwarn"), *bad = path_join(dir, "bad.1");
    /* a wrapped sentence that puts a file extension and a quote first on their lines */
    const char *text = "\nThe formats are\n.csv and .npy, quoted as\n'gpt2-embed' says.";
    size_t keep = (size_t)(at - man), tl = strlen(text);
    char *t = malloc(n + tl);
    memcpy(t, man, keep);
    memcpy(t + keep, text, tl);
    memcpy(t + keep + tl, at, n - keep);
    write_file(bad, t, n + tl);
    char *w = man_warnings(bad);
    cr_expect(strstr(w, "csv") != NULL, "the unprotected line is what man warns about: %s", w);
    free(w);
    char *gen = genman(bad);
    cr_expect(strstr(gen, "\n\\&.csv and .npy, quoted as\n\\&'gpt2-embed' says.\n") != NULL, "%s",
              strstr(gen, "The formats") ? strstr(gen, "The formats") : gen);
    write_file(bad, gen, strlen(gen));
    w = man_warnings(bad);
    cr_expect_str_eq(w, "", "genman's output formats cleanly: %s", w);
    free(w), free(gen), free(t), free(bad), free(dir), free(man);
}

/* The names after ".TP\n.B " in a manual's COMMANDS section (the heading given), one per
 * line (caller frees). */
static char *command_list(const char *page, const char *heading)
{
    size_t n;
    char *man = read_file(page, &n);
    cr_assert(man, "%s", page);
    char *at = strstr(man, heading), *end = at ? strstr(at + 1, "\n.SH ") : NULL;
    cr_assert(at && end, "%s has no %s", page, heading);
    *end = '\0';
    char *out = calloc(1, n + 1);
    for (char *p = at; (p = strstr(p, "\n.TP\n.B ")); ) {
        p += strlen("\n.TP\n.B ");
        size_t w = strcspn(p, " \n");
        strncat(out, p, w);
        strcat(out, "\n");
    }
    free(man);
    return out;
}

/* Rendered lines of text with a space between two Japanese characters (a wrapped source line
 * joined with a space, as troff does between words): "" when there is none. Lines that show
 * a command (examples: "gpt2-embed compare 犬が… 猫が…") are arguments, kept. */
static char *stray_spaces(const char *page)
{
    run_result r = run_argv((char *[]){"/usr/bin/man", "-l", (char *)page, NULL}, NULL, 0,
                            (char *[]){"LC_ALL=C.UTF-8", "MANWIDTH=100", "-MANPAGER", "-PAGER",
                                       "-MANOPT", "-GROFF_SGR", NULL}, NULL);
    cr_assert_eq(r.status, 0, "man -l %s: %s", page, r.err);
    regex_t re;
    /* U+3000..U+30FF (punctuation, kana), U+4E00..U+9FFF (kanji), U+FF00..U+FFEF (full width) */
    const char *j = "(\xE3[\x80-\x83][\x80-\xBF]|[\xE4-\xE9][\x80-\xBF][\x80-\xBF]|\xEF[\xBC-\xBF][\x80-\xBF])";
    char pat[512];
    snprintf(pat, sizeof pat, "%s +%s", j, j);
    cr_assert_eq(regcomp(&re, pat, REG_EXTENDED | REG_NOSUB), 0);
    char *found = calloc(1, r.out_len + 1);
    for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
        const char *t = line + strspn(line, " ");
        if (strncmp(t, "gpt2-embed ", 11) != 0 && regexec(&re, line, 0, NULL, 0) == 0)
            strcat(strcat(found, line), "\n");
    }
    regfree(&re);
    run_free(&r);
    return found;
}

/* Issue 38: both manuals list the program's commands (the COMMANDS entries are generated from
 * one table), and the Japanese page shows no space between two Japanese characters where
 * its source wraps; the check finds one in a page that wraps a sentence. */
Test(manual, both_manuals_list_every_command_and_japanese_wraps_cleanly)
{
    char *en = command_list(MAN, "\n.SH COMMANDS\n");
    char *ja = command_list(G2E_SRCDIR "/doc/ja/gpt2-embed.1", "\n.SH コマンド\n");
    cr_expect_str_eq(en, ja, "the two manuals list different commands");
    run_result r = run_g2e("--help", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    for (char *name = strtok(en, "\n"); name; name = strtok(NULL, "\n")) {
        char want[64];
        snprintf(want, sizeof want, "\n  %s ", name);
        cr_expect(strstr(r.out, want), "the manual lists %s, --help does not", name);
    }
    size_t in_help = 0;
    for (const char *p = strstr(r.out, "commands:\n"); p && (p = strstr(p, "\n  ")); p += 3)
        in_help++;
    cr_expect_eq(in_help, 16, "%s", r.out);
    size_t listed = 0;
    for (const char *p = ja; (p = strchr(p, '\n')); p++)
        listed++;
    cr_expect_eq(listed, in_help, "%s", ja);
    run_free(&r);
    char *s = stray_spaces(G2E_SRCDIR "/doc/ja/gpt2-embed.1");
    cr_expect_str_eq(s, "", "doc/ja/gpt2-embed.1 shows a space inside a Japanese sentence");
    free(s);
    char *dir = test_tmpdir("manja"), *bad = path_join(dir, "bad.1");
    size_t n;
    char *page = read_file(G2E_SRCDIR "/doc/ja/gpt2-embed.1", &n), *at = strstr(page, "\n.SH 名前\n");
    cr_assert(at);
    FILE *f = fopen(bad, "w");
    fprintf(f, "%.*s\n.SH 説明\n長い文は\nここで折り返されます。%s", (int)(at - page), page, at);
    fclose(f);
    s = stray_spaces(bad);
    cr_expect(strstr(s, "長い文は ここで"), "the check finds the wrapped sentence: %s", s);
    free(s), free(page), free(bad), free(dir), free(en), free(ja);
}
