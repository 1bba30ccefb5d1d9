/* SPDX-License-Identifier: MIT */
/* test_readin.c — whole-input reading (readin.h): a regular file read exactly, a FIFO and a
 * device refused at once with their kind named, a sparse file over the 1 GiB limit refused
 * before any read, and the input registered so that no output may replace it. */
#include "readin.h"
#include "outfile.h"
#include "support.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

Test(readin, a_regular_file_is_read_exactly_and_registered)
{
    char *dir = test_tmpdir("readin-reg"), *p = path_join(dir, "t.txt");
    static const char data[] = "a\0b\xff\ncat";
    write_file(p, data, sizeof data - 1);
    size_t n;
    g2e_err e;
    char *s = readin_file(p, "text file", &n, &e);
    cr_assert(s, "%s", e.msg);
    cr_expect_eq(n, sizeof data - 1);
    cr_expect(memcmp(s, data, n) == 0 && s[n] == '\0');
    free(s);
    ofile o;
    cr_expect_eq(ofile_open(&o, p, 0, &e), OFILE_E_INPUT, "an input may not be replaced");
    cr_expect(strstr(e.msg, "the text file being read") != NULL, "%s", e.msg);
    ofile_clear_inputs();
    free(p), free(dir);
}

Test(readin, a_fifo_and_a_device_are_refused_at_once)
{
    char *dir = test_tmpdir("readin-fifo"), *p = path_join(dir, "f");
    cr_assert_eq(mkfifo(p, 0600), 0);
    size_t n;
    g2e_err e;
    cr_expect_null(readin_file(p, "text file", &n, &e), "no writer: must not wait");
    cr_expect_eq(e.code, READIN_E_KIND);
    cr_expect(strstr(e.msg, "not a regular file (a FIFO)") != NULL, "%s", e.msg);
    cr_expect_eq(readin_open("/dev/zero", "text file", &e), -1);
    cr_expect(strstr(e.msg, "(a character device)") != NULL, "%s", e.msg);
    cr_expect_null(readin_file("", "text file", &n, &e));
    cr_expect_str_eq(e.msg, "the text file name is empty");
    free(p), free(dir);
}

Test(readin, over_the_limit_is_refused_before_reading)
{
    char *dir = test_tmpdir("readin-big"), *p = path_join(dir, "big");
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    cr_assert(fd >= 0);
    cr_assert_eq(ftruncate(fd, (off_t)READIN_MAX + 1), 0);   /* sparse: no disk used */
    close(fd);
    size_t n;
    g2e_err e;
    cr_expect_null(readin_file(p, "text file", &n, &e));
    cr_expect_eq(e.code, READIN_E_SIZE);
    cr_expect(strstr(e.msg, "it is 1073741825 bytes, over the input limit of 1073741824") != NULL,
              "%s", e.msg);
    unlink(p);
    free(p), free(dir);
}

Test(readin, a_stream_is_read_to_its_end)
{
    FILE *f = tmpfile();
    cr_assert(f);
    for (int i = 0; i < 100000; i++)
        fputs("0123456789", f);
    rewind(f);
    size_t n;
    char *s = readin_stream(f, &n);
    cr_assert(s);
    cr_expect_eq(n, 1000000);
    cr_expect(memcmp(s + 999990, "0123456789", 10) == 0 && s[n] == '\0');
    free(s);
    fclose(f);
}
