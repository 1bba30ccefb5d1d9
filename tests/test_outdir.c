/* SPDX-License-Identifier: MIT */
/* test_outdir.c — a directory replaced as a whole (outdir.h): new, over an earlier one
 * (whose links are replaced, never followed), refused over foreign files or a registered
 * input, abandoned without a trace. */
#include "outdir.h"
#include "outfile.h"
#include "support.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int ours(const char *name)
{
    return strstr(name, ".png") != NULL || !strcmp(name, "index.html");
}

static void put(const odir *d, const char *name, const char *text)
{
    char *p = odir_path(d, name);
    write_file(p, text, strlen(text));
    free(p);
}

static int entries(const char *d)
{
    DIR *dd = opendir(d);
    cr_assert(dd != NULL, "%s", d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dd)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(dd);
    return n;
}

Test(outdir, new_then_replaced_whole_and_links_not_followed)
{
    char *root = test_tmpdir("outdir"), *t = path_join(root, "rep"), *victim = path_join(root, "victim");
    odir d;
    g2e_err e;
    cr_assert_eq(odir_open(&d, t, ours, &e), 0, "%s", e.msg);
    cr_expect(access(t, F_OK) != 0, "the target appears only at the commit");
    put(&d, "index.html", "one");
    put(&d, "a.png", "A");
    cr_assert_eq(odir_commit(&d, &e), 0, "%s", e.msg);
    cr_expect_eq(entries(t), 2);
    cr_expect_eq(entries(root), 1, "only the target is left in its parent");
    /* an earlier one with a planted link: replaced as a name */
    write_file(victim, "v", 1);
    char *idx = path_join(t, "index.html"), *b = path_join(t, "b.png");
    unlink(idx);
    cr_assert(symlink("../victim", idx) == 0);
    cr_assert_eq(odir_open(&d, t, ours, &e), 0, "%s", e.msg);
    put(&d, "index.html", "two");
    put(&d, "b.png", "B");
    cr_assert_eq(odir_commit(&d, &e), 0, "%s", e.msg);
    size_t n;
    char *s = read_file(victim, &n), *i2 = read_file(idx, &n);
    cr_expect(s && s[0] == 'v', "the link's target was written");
    cr_expect(i2 && n == 3 && !memcmp(i2, "two", 3));
    cr_expect_eq(entries(t), 2, "a.png of the old directory is gone: the new one is whole");
    cr_expect(access(b, F_OK) == 0);
    cr_expect_eq(entries(root), 2, "the target and the victim, no temporary");
    free(s), free(i2), free(idx), free(b), free(root), free(t), free(victim);
}

Test(outdir, foreign_entries_inputs_and_abort)
{
    char *root = test_tmpdir("outdir-f"), *t = path_join(root, "rep"), *x = path_join(t, "notes.txt");
    char *idx = path_join(t, "index.html");
    cr_assert(mkdir(t, 0755) == 0);
    write_file(x, "mine", 4);
    odir d;
    g2e_err e;
    cr_expect_eq(odir_open(&d, t, ours, &e), ODIR_E_FOREIGN);
    cr_expect(strstr(e.msg, "notes.txt") != NULL, "%s", e.msg);
    unlink(x);
    write_file(idx, "in", 2);   /* an index.html that is being read */
    cr_assert_eq(ofile_add_input("text file", idx, -1), 0);
    cr_expect_eq(odir_open(&d, t, ours, &e), OFILE_E_INPUT, "%s", e.msg);
    ofile_clear_inputs();
    cr_expect_eq(odir_open(&d, x, ours, &e), 0, "a new name under the directory: %s", e.msg);
    put(&d, "a.png", "A");
    odir_abort(&d);
    cr_expect_eq(entries(t), 1, "abandoned: only the index that was there");
    cr_expect_eq(odir_open(&d, ".", ours, &e), ODIR_E_OPEN);
    free(root), free(t), free(x), free(idx);
}
