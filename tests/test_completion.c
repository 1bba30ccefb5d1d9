/* SPDX-License-Identifier: MIT */
/* test_completion.c — completion/gpt2-embed.bash, driven in bash as readline would drive it
 * (COMP_WORDS, COMP_CWORD, then _gpt2_embed), against the sources of truth: the command
 * table src/cli/commands.def and the library's model catalogue (models_all). */
#include "models.h"
#include "support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The words completed for the command line `words` (the last one is being completed), one
 * per line, sorted. Caller frees. */
static char *complete(const char *words)
{
    char script[8192];
    snprintf(script, sizeof script,
             "source '%s/completion/gpt2-embed.bash'; COMP_WORDS=('%s' %s); "
             "COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); _gpt2_embed; "
             "printf '%%s\\n' \"${COMPREPLY[@]}\" | sort",
             G2E_SRCDIR, G2E_TEST_BIN, words);
    run_result r = run_argv((char *[]){"/bin/bash", "-c", script, NULL}, NULL, 0, NULL, NULL);
    cr_assert_eq(r.status, 0, "bash: %s", r.err);
    char *out = strdup(r.out);
    run_free(&r);
    return out;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

Test(completion, commands_are_the_command_table)
{
    size_t len;
    char *def = read_file(G2E_SRCDIR "/src/cli/commands.def", &len);
    cr_assert(def);
    char *names[64];
    size_t n = 0;
    for (char *p = def; (p = strstr(p, "\nCMD(\"")) && n < 64; p++) {
        char *s = p + 6, *e = strchr(s, '"');
        names[n++] = strndup(s, (size_t)(e - s));
    }
    cr_assert_gt(n, 5);
    qsort(names, n, sizeof *names, cmp_str);
    char want[4096] = "";
    for (size_t i = 0; i < n; i++) {
        strcat(want, names[i]);
        strcat(want, "\n");
        free(names[i]);
    }
    char *got = complete("''");
    cr_expect_str_eq(got, want);
    free(got);
    got = complete("si");   /* a prefix */
    cr_expect_str_eq(got, "similarity\nsinusoidal\n");
    free(got);
    free(def);
}

Test(completion, model_values_are_the_librarys_catalogue)
{
    const char *names[16];
    size_t n = 0;
    const models_info *all = models_all(&n);
    cr_assert(n > 0 && n <= 16);
    for (size_t i = 0; i < n; i++)
        names[i] = all[i].name;
    qsort(names, n, sizeof *names, cmp_str);
    char want[1024] = "";
    for (size_t i = 0; i < n; i++) {
        strcat(want, names[i]);
        strcat(want, "\n");
    }
    char *got = complete("embed --model ''");
    cr_expect_str_eq(got, want);
    free(got);
    got = complete("--model gpt2-");   /* the default command */
    cr_expect_str_eq(got, "gpt2-large\ngpt2-medium\ngpt2-xl\n");
    free(got);
}

Test(completion, options_and_their_values)
{
    char *got = complete("tokenize --special ''");
    cr_expect_str_eq(got, "error\ntext\ntoken\n");
    free(got);
    got = complete("embed --pe ''");
    cr_expect_str_eq(got, "learned\nsinusoidal\n");
    free(got);
    got = complete("embed --format ''");
    cr_expect(strstr(got, "npy\n") && strstr(got, "json\n") && strstr(got, "csv\n"), "%s", got);
    free(got);
    got = complete("embed --we");
    cr_expect_str_eq(got, "--weights\n");
    free(got);
    got = complete("tokenize --");
    cr_expect(strstr(got, "--special\n") && strstr(got, "--tokenizer\n"), "%s", got);
    cr_expect(strstr(got, "--window\n") == NULL, "embed's options offered for tokenize: %s", got);
    free(got);
    /* a file argument completes file names */
    got = complete("embed --weights '" G2E_SRCDIR "/tests/data/tokenizer_c'");
    cr_expect_str_eq(got, G2E_SRCDIR "/tests/data/tokenizer_cases.jsonl\n");
    free(got);
}
