/* SPDX-License-Identifier: MIT */
/* test_textin.c — a descriptor's whole text: regular files mapped, pipes read, the 1 GiB
 * limit and read errors as codes with their messages. */
#include "support.h"
#include "textin.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

Test(textin, a_regular_file_is_mapped)
{
    char *dir = test_tmpdir("textin_map"), *p = path_join(dir, "a.txt");
    write_file(p, "Hello\0world", 11);
    int fd = open(p, O_RDONLY);
    textin in;
    g2e_err err;
    cr_assert_eq(textin_fd(&in, fd, "'a.txt'", &err), 0, "%s", err.msg);
    cr_expect(in.map != NULL && in.buf == NULL);
    cr_expect(in.len == 11 && memcmp(in.data, "Hello\0world", 11) == 0);
    textin_close(&in);
    cr_expect(in.data == NULL && in.len == 0 && in.map == NULL);
    textin_close(&in); /* a zeroed textin again */
    close(fd);
    write_file(p, "", 0); /* empty: "" and nothing held */
    fd = open(p, O_RDONLY);
    cr_assert_eq(textin_fd(&in, fd, "'a.txt'", &err), 0);
    cr_expect(in.len == 0 && in.data && !*in.data);
    textin_close(&in);
    close(fd);
    free(p), free(dir);
}

Test(textin, a_pipe_is_read_to_its_end)
{
    int p[2];
    cr_assert_eq(pipe(p), 0);
    pid_t pid = fork();
    if (pid == 0) { /* 200 KB in pieces, more than one read */
        close(p[0]);
        char block[1000];
        for (int k = 0; k < 200; k++) {
            memset(block, 'a' + k % 26, sizeof block);
            if (write(p[1], block, sizeof block) != (ssize_t)sizeof block)
                _exit(1);
        }
        _exit(0);
    }
    close(p[1]);
    textin in;
    g2e_err err;
    cr_assert_eq(textin_fd(&in, p[0], "standard input", &err), 0);
    cr_expect(in.map == NULL && in.buf != NULL && in.len == 200000);
    for (size_t i = 0; i < in.len; i += 1000)
        cr_assert_eq(in.data[i], 'a' + (int)(i / 1000) % 26);
    textin_close(&in);
    close(p[0]);
}

Test(textin, more_than_a_gibibyte_is_refused_unread)
{
    char *dir = test_tmpdir("textin_big"), *p = path_join(dir, "big.txt");
    int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
    cr_assert(fd >= 0);
    cr_assert_eq(ftruncate(fd, (off_t)TEXTIN_MAX + 1), 0); /* sparse: nothing written */
    textin in;
    g2e_err err;
    cr_expect_eq(textin_fd(&in, fd, "'big.txt'", &err), TEXTIN_E_TOO_LARGE);
    cr_expect_str_eq(err.msg, "'big.txt' is larger than 1 GiB, the most this command reads");
    cr_expect(in.data == NULL && in.map == NULL && in.buf == NULL);
    cr_assert_eq(ftruncate(fd, (off_t)TEXTIN_MAX), 0); /* exactly 1 GiB is allowed (mapped) */
    cr_expect_eq(textin_fd(&in, fd, "'big.txt'", &err), 0, "%s", err.msg);
    cr_expect_eq(in.len, TEXTIN_MAX);
    textin_close(&in);
    close(fd);
    unlink(p);
    free(p), free(dir);
}

Test(textin, a_read_error_names_the_input)
{
    char *dir = test_tmpdir("textin_dir");
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    textin in;
    g2e_err err;
    cr_expect_eq(textin_fd(&in, fd, "'d'", &err), TEXTIN_E_READ);
    cr_expect_str_eq(err.msg, "cannot read 'd': Is a directory");
    cr_expect(in.data == NULL && in.buf == NULL);
    close(fd);
    free(dir);
}
