/* SPDX-License-Identifier: MIT */
/* test_layers.c — the build keeps the house (doc/ARCHITECTURE.md): a source file compiled with
 * the include options the Makefile gives it (make print-inc) cannot include a header its
 * folder may not use, shown with a probe that includes one; no source of the program's wings
 * names a header by a path around those options; no two modules include each other. */
#include "support.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static run_result sh(const char *cmd)
{
    return run_argv((char *[]){"/bin/bash", "-c", (char *)cmd, NULL}, NULL, 0, NULL, NULL);
}

/* Compiles a file holding `#include "HEADER"` with the include options of src_file; the
 * compiler's exit status (0: the header was found). */
static int probe(const char *src_file, const char *header)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "set -o pipefail; flags=$(make -s --no-print-directory -C '%s' BUILDDIR='%s' print-inc FILE='%s') "
             "&& cd '%s' && printf '#include \"%s\"\\n' | cc -fsyntax-only -std=c11 -D_DEFAULT_SOURCE "
             "-DG2E_VERSION='\"0\"' $flags $(pkg-config --cflags libcjson) -x c -",
             G2E_SRCDIR, G2E_TEST_BUILD, src_file, G2E_SRCDIR, header);
    run_result r = sh(cmd);
    int status = r.status;
    if (status != 0)
        cr_expect(strstr(r.err, "No such file") != NULL, "%s: %s", header, r.err);
    run_free(&r);
    return status;
}

/* The arrows doc/ARCHITECTURE.md forbids, each a compile error; the ones it draws, not. */
Test(layers, a_forbidden_include_fails_to_compile)
{
    run_timeout_s = 120;
    /* the program on the door: the public header and the toolkit, its own folders */
    const char *prog = "src/cli/cmd_decode.c";
    cr_expect_eq(probe(prog, "gpt2embed.h"), 0);
    cr_expect_eq(probe(prog, "text.h"), 0);
    cr_expect_eq(probe(prog, "out.h"), 0);
    cr_expect_neq(probe(prog, "engine.h"), 0, "the program reaches the engine only through the door");
    cr_expect_neq(probe(prog, "tokenizer.h"), 0);
    cr_expect_neq(probe(prog, "model.h"), 0);
    cr_expect_neq(probe(prog, "api_internal.h"), 0);
    /* the token writers too: the door, the toolkit's reader, never the engine or the core */
    static const char *const writers[] = {"src/cli/cmd_tokenize.c", "src/cli/io/tokwrite.c"};
    for (size_t i = 0; i < 2; i++) {
        cr_expect_eq(probe(writers[i], "gpt2embed.h"), 0, "%s", writers[i]);
        cr_expect_eq(probe(writers[i], "rdbuf.h"), 0, "%s", writers[i]);
        cr_expect_neq(probe(writers[i], "engine.h"), 0, "%s reaches the engine only through the door", writers[i]);
        cr_expect_neq(probe(writers[i], "tok_internal.h"), 0, "%s", writers[i]);
        cr_expect_neq(probe(writers[i], "tokenizer.h"), 0, "%s", writers[i]);
    }
    /* the tokenizer's core knows nothing of the engine that runs it on threads */
    const char *core = "src/lib/tokenizer/tok_pretok.c";
    cr_expect_eq(probe(core, "text.h"), 0);
    cr_expect_neq(probe(core, "engine.h"), 0);
    /* the rendering wing: the door and the toolkit; PCA and RoPE only through the door */
    cr_expect_neq(probe("src/render/fig.c", "pcasrc.h"), 0);
    cr_expect_neq(probe("src/render/fig.c", "rope.h"), 0);
    cr_expect_eq(probe("src/render/fig.c", "gpt2embed.h"), 0);
    cr_expect_eq(probe("src/render/fig.c", "recipe.h"), 0);
    cr_expect_neq(probe("src/render/fig.c", "model.h"), 0);
    cr_expect_neq(probe("src/render/fig.c", "out.h"), 0, "the rendering wing knows nothing of the program");
    /* PCA and RoPE are the library's: the program reaches them only through the door */
    cr_expect_neq(probe(prog, "pca.h"), 0);
    cr_expect_neq(probe(prog, "lapack_dl.h"), 0);
    cr_expect_eq(probe("src/lib/study/pcasrc.c", "sinusoid.h"), 0);
    cr_expect_neq(probe("src/lib/study/pcasrc.c", "cli.h"), 0);
    cr_expect_neq(probe("src/lib/study/pcasrc.c", "fig.h"), 0);
    /* the program archive: the library's modules it uses, never the program or the engine */
    cr_expect_eq(probe("src/download/dl_local.c", "safetensors.h"), 0);
    cr_expect_neq(probe("src/download/dl_local.c", "engine.h"), 0);
    cr_expect_neq(probe("src/download/dl_local.c", "fig.h"), 0);
    /* the library knows nothing of the program; the toolkit nothing of either */
    cr_expect_neq(probe("src/lib/api.c", "cli.h"), 0);
    cr_expect_neq(probe("src/lib/api.c", "report.h"), 0);
    cr_expect_neq(probe("src/lib/api.c", "fig.h"), 0);
    cr_expect_neq(probe("src/lib/weights/model.c", "tokenizer.h"), 0);
    cr_expect_neq(probe("src/common/json.c", "model.h"), 0);
    cr_expect_neq(probe("src/common/json.c", "out.h"), 0);
}

/* The source files (.c, .h, .def) under dir, recursively, appended to *list (one per line). */
static void sources(const char *dir, char **list, size_t *len)
{
    DIR *d = opendir(dir);
    cr_assert(d, "%s", dir);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char *p = path_join(dir, e->d_name);
        const char *dot = strrchr(e->d_name, '.');
        if (e->d_type == DT_DIR) {
            sources(p, list, len);
        } else if (dot && (!strcmp(dot, ".c") || !strcmp(dot, ".h") || !strcmp(dot, ".def"))) {
            size_t n = strlen(p);
            *list = realloc(*list, *len + n + 2);
            memcpy(*list + *len, p, n);
            (*list)[*len + n] = '\n';
            *len += n + 1;
            (*list)[*len] = '\0';
        }
        free(p);
    }
    closedir(d);
}

/* `#include "NAME"` lines of the file at path: NAMEs appended to out, one per line. */
static void includes_of(const char *path, char *out, size_t cap)
{
    size_t len;
    char *s = read_file(path, &len);
    cr_assert(s, "%s", path);
    out[0] = '\0';
    for (char *line = s; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        const char *q = line;
        while (*q == ' ' || *q == '\t')
            q++;
        if (strncmp(q, "#include \"", 10) == 0) {
            const char *a = q + 10, *b = strchr(a, '"');
            if (b && strlen(out) + (size_t)(b - a) + 2 < cap)
                strcat(strncat(out, a, (size_t)(b - a)), "\n");
        }
        line = nl ? nl + 1 : NULL;
    }
    free(s);
}

/* A header is named by its file name alone: a path ("../lib/x.h", "lib/engine/engine.h")
 * would reach around the include options. */
Test(layers, the_program_names_headers_by_file_name_alone)
{
    const char *wings[] = {"src/cli", "src/render", "src/download"};
    for (size_t w = 0; w < 3; w++) {
        char *list = NULL, *dir = path_join(G2E_SRCDIR, wings[w]);
        size_t len = 0;
        sources(dir, &list, &len);
        for (char *f = list; f && *f;) {
            char *nl = strchr(f, '\n');
            *nl = '\0';
            char inc[8192];
            includes_of(f, inc, sizeof inc);
            cr_expect(strchr(inc, '/') == NULL, "%s includes by a path:\n%s", f, inc);
            f = nl + 1;
        }
        free(list), free(dir);
    }
}

/* The module of a file or header: its name without the extension; a header X_internal.h is
 * its module's own (tok_internal.h is the tokenizer's), not a module of its own. */
static void module_of(const char *name, char *out, size_t cap)
{
    const char *base = strrchr(name, '/');
    snprintf(out, cap, "%s", base ? base + 1 : name);
    char *dot = strrchr(out, '.');
    if (dot)
        *dot = '\0';
}

Test(layers, no_two_modules_include_each_other)
{
    char *list = NULL, *dir = path_join(G2E_SRCDIR, "src");
    size_t len = 0, n = 0;
    sources(dir, &list, &len);
    enum { MAX = 512 };
    /* each file's module, and the modules it includes as "\nA\nB\n" */
    static char mod[MAX][64], deps[MAX][8192];
    for (char *f = list; f && *f && n < MAX; n++) {
        char *nl = strchr(f, '\n'), inc[8192];
        *nl = '\0';
        module_of(f, mod[n], sizeof mod[n]);
        includes_of(f, inc, sizeof inc);
        strcpy(deps[n], "\n");
        for (char *h = inc; *h;) {
            char *e = strchr(h, '\n'), other[64];
            *e = '\0';
            module_of(h, other, sizeof other);
            if (strcmp(other, mod[n]) && !strstr(other, "_internal") &&
                strlen(deps[n]) + strlen(other) + 2 < sizeof deps[n])
                strcat(strcat(deps[n], other), "\n");
            h = e + 1;
        }
        f = nl + 1;
    }
    cr_assert(n > 100 && n < MAX, "%zu source files", n);
    for (size_t i = 0; i < n; i++) {
        if (strstr(mod[i], "_internal"))
            continue;
        char me[80];
        snprintf(me, sizeof me, "\n%s\n", mod[i]);
        for (size_t j = 0; j < n; j++) {
            char them[80];
            snprintf(them, sizeof them, "\n%s\n", mod[j]);
            cr_expect(!(strcmp(mod[i], mod[j]) && strstr(deps[i], them) && strstr(deps[j], me)),
                      "%s and %s include each other", mod[i], mod[j]);
        }
    }
    free(list), free(dir);
}
