/* SPDX-License-Identifier: MIT */
/* test_outfile.c — the library's atomic output files (outfile.h), called directly: status
 * codes and messages instead of printed lines, the target untouched until commit, the
 * first write error remembered, inputs never replaced, signals caught only when asked.
 * (tests/test_out.c drives the same code through the program's out_open wrappers.) */
#include "outfile.h"
#include "support.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int hidden_entries(const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert(d != NULL);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

Test(outfile, target_is_untouched_until_commit_and_keeps_its_mode)
{
    char *dir = test_tmpdir("ofile-commit");
    char *p = path_join(dir, "a.txt");
    write_file(p, "old", 3);
    chmod(p, 0640);
    ofile o;
    g2e_err e;
    cr_assert_eq(ofile_open(&o, p, 0, &e), 0, "%s", e.msg);
    fputs("new content", o.f);
    fflush(o.f);
    size_t n;
    char *s = read_file(p, &n);
    cr_expect(n == 3 && memcmp(s, "old", 3) == 0, "the target changed before commit");
    free(s);
    cr_expect_eq(hidden_entries(dir), 1, "one temporary beside the target");
    cr_assert_eq(ofile_commit(&o, &e), 0, "%s", e.msg);
    s = read_file(p, &n);
    cr_expect(n == 11 && memcmp(s, "new content", 11) == 0);
    free(s);
    struct stat st;
    cr_assert_eq(stat(p, &st), 0);
    cr_expect_eq(st.st_mode & 07777, 0640, "mode %o", st.st_mode & 07777);
    cr_expect_eq(hidden_entries(dir), 0, "the temporary is gone");
    free(p), free(dir);
}

Test(outfile, abort_removes_the_temporary_and_keeps_the_target)
{
    char *dir = test_tmpdir("ofile-abort");
    char *p = path_join(dir, "b.npy");
    write_file(p, "precious", 8);
    ofile o;
    cr_assert_eq(ofile_open(&o, p, 1, NULL), 0);
    fputs("half", o.f);
    ofile_abort(&o);
    ofile_abort(&o);   /* harmless twice */
    size_t n;
    char *s = read_file(p, &n);
    cr_expect(n == 8 && memcmp(s, "precious", 8) == 0);
    cr_expect_eq(hidden_entries(dir), 0);
    free(s), free(p), free(dir);
}

Test(outfile, errors_are_codes_with_one_line_messages)
{
    char *dir = test_tmpdir("ofile-err");
    char *missing = path_join(dir, "no/such/dir/x.txt");
    ofile o;
    g2e_err e;
    cr_expect_eq(ofile_open(&o, dir, 0, &e), OFILE_E_OPEN);
    cr_expect(strstr(e.msg, "it is a directory") != NULL, "%s", e.msg);
    cr_expect_eq(ofile_open(&o, "", 0, &e), OFILE_E_OPEN);
    cr_expect_str_eq(e.msg, "the output file name is empty");
    cr_expect_eq(ofile_open(&o, missing, 0, &e), OFILE_E_OPEN);
    cr_expect(strstr(e.msg, "does not exist") != NULL, "%s", e.msg);
    cr_expect(strchr(e.msg, '\n') == NULL);
    free(missing), free(dir);
}

Test(outfile, a_registered_input_is_never_replaced)
{
    char *dir = test_tmpdir("ofile-input");
    char *in = path_join(dir, "w.safetensors"), *link = path_join(dir, "l.npy");
    write_file(in, "weights", 7);
    cr_assert_eq(symlink(in, link), 0);
    cr_assert_eq(ofile_add_input("weights", in, -1), 0);
    ofile o;
    g2e_err e;
    cr_expect_eq(ofile_open(&o, link, 1, &e), OFILE_E_INPUT);
    cr_expect(strstr(e.msg, "is the same file as the weights being read") != NULL, "%s", e.msg);
    ofile_clear_inputs();
    cr_expect_eq(ofile_open(&o, link, 1, &e), 0, "%s", e.msg);
    ofile_abort(&o);
    size_t n;
    char *s = read_file(in, &n);
    cr_expect(n == 7 && memcmp(s, "weights", 7) == 0);
    free(s), free(in), free(link), free(dir);
}

Test(outfile, the_first_write_error_is_the_reason_given)
{
    ofile o;
    g2e_err e;
    cr_assert_eq(ofile_open(&o, "/dev/full", 1, &e), 0, "%s", e.msg);
    cr_expect_eq(o.direct, 1, "a device is written in place");
    for (int i = 0; i < 100000; i++)
        fputs("xxxxxxxx", o.f);   /* fails long before the commit */
    cr_expect_eq(ofile_commit(&o, &e), OFILE_E_WRITE);
    cr_expect(strstr(e.msg, strerror(ENOSPC)) != NULL, "%s", e.msg);
}

/* In a child: opens a temporary, then SIGUSR1 (ends the process). */
static int signal_child(const char *p, int catch)
{
    pid_t pid = fork();
    if (pid == 0) {
        ofile o;
        ofile_catch_signals(catch);
        if (ofile_open(&o, p, 0, NULL) != 0)
            _exit(3);
        raise(SIGUSR1);
        _exit(4);
    }
    int st;
    waitpid(pid, &st, 0);
    return WIFSIGNALED(st) ? WTERMSIG(st) : -1;
}

Test(outfile, signals_remove_temporaries_only_when_asked)
{
    char *dir = test_tmpdir("ofile-sig");
    char *p = path_join(dir, "s.txt");
    cr_expect_eq(signal_child(p, 0), SIGUSR1);
    cr_expect_eq(hidden_entries(dir), 1, "no handler by default: the temporary stays");
    char *d2 = test_tmpdir("ofile-sig2");
    char *p2 = path_join(d2, "s.txt");
    cr_expect_eq(signal_child(p2, 1), SIGUSR1, "still dies of the signal");
    cr_expect_eq(hidden_entries(d2), 0, "caught: the temporary is removed");
    free(p), free(dir), free(p2), free(d2);
}

Test(outfile, the_format_a_file_name_asks_for)
{
    static const char *const names[] = {"table", "json", "npy", "csv", NULL};
    const char *want = "untouched";
    cr_expect_eq(ofile_format_of_name("a.npy", names, &want), 2);
    cr_expect_eq(ofile_format_of_name("dir.x/B.JSON", names, &want), 1, "any case");
    cr_expect_eq(ofile_format_of_name("x.txt", names, &want), 0);
    cr_expect_str_eq(want, "text");
    cr_expect_eq(ofile_format_of_name("x.raw", names, &want), -1);
    cr_expect_str_eq(want, "raw", "asked for, not written");
    want = "untouched";
    cr_expect_eq(ofile_format_of_name(".npy", names, &want), -2, "a dot file has no extension");
    cr_expect_eq(ofile_format_of_name("dir.npy/x", names, &want), -2, "a directory's dot is not one");
    cr_expect_eq(ofile_format_of_name("x.dat", names, &want), -2);
    cr_expect_str_eq(want, "untouched");
}
