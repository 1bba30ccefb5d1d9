/* SPDX-License-Identifier: MIT */
/* test_textin.c — a descriptor's whole text: regular files mapped or read onto huge pages
 * by size, from where the descriptor stands; pipes read, the 1 GiB limit and read errors as
 * codes with their messages. */
#include "support.h"
#include "textin.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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
    cr_expect(in.map != NULL && in.buf == NULL && in.huge == NULL);
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

/* A file of n bytes of a pattern that no offset repeats soon; returns the bytes. */
static unsigned char *pattern_file(const char *p, size_t n)
{
    unsigned char *b = malloc(n ? n : 1);
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(i * 7 + i / 251);
    write_file(p, b, n);
    return b;
}

/* THPeligible of the mapping that holds addr (/proc/self/smaps), -1 if not found. */
static int thp_eligible(const void *addr)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    cr_assert(f != NULL);
    char line[512];
    int in = 0, v = -1;
    while (v < 0 && fgets(line, sizeof line, f)) {
        unsigned long a, b;
        if (sscanf(line, "%lx-%lx ", &a, &b) == 2 && strchr(line, '-') < strchr(line, ' '))
            in = (uintptr_t)addr >= a && (uintptr_t)addr < b;
        else if (in && strncmp(line, "THPeligible:", 12) == 0)
            v = atoi(line + 12);
    }
    fclose(f);
    return v;
}

/* Whether the kernel grants huge pages to memory advised to them. */
static int thp_on(void)
{
    size_t n;
    char *s = read_file("/sys/kernel/mm/transparent_hugepage/enabled", &n);
    int on = s && !strstr(s, "[never]");
    free(s);
    return on;
}

/* From TEXTIN_HUGE_MIN to TEXTIN_HUGE_MAX bytes a regular file is read into memory on huge
 * pages (aligned to 2 MB, advised); outside, it is mapped. The bytes are the file's either way. */
Test(textin, from_64_kb_to_256_mb_a_file_is_read_onto_huge_pages)
{
    char *dir = test_tmpdir("textin_huge"), *p = path_join(dir, "a.txt");
    for (size_t n = TEXTIN_HUGE_MIN - 1; n <= TEXTIN_HUGE_MIN + 1; n++) {
        unsigned char *b = pattern_file(p, n);
        int fd = open(p, O_RDONLY);
        textin in;
        g2e_err err;
        cr_assert_eq(textin_fd(&in, fd, "'a.txt'", &err), 0, "%s", err.msg);
        cr_expect_eq(in.huge != NULL, n >= TEXTIN_HUGE_MIN, "%zu bytes", n);
        cr_expect_eq(in.map != NULL, n < TEXTIN_HUGE_MIN, "%zu bytes", n);
        cr_expect(in.len == n && memcmp(in.data, b, n) == 0, "%zu bytes", n);
        if (in.huge) {
            cr_expect_eq((uintptr_t)in.data % (2u << 20), 0);
            cr_expect_eq(thp_eligible(in.data), thp_on(), "THPeligible of the copy");
        }
        textin_close(&in);
        cr_expect(in.huge == NULL && in.data == NULL);
        close(fd);
        free(b);
    }
    /* the upper bound, on sparse files (read as zeros) */
    for (size_t n = TEXTIN_HUGE_MAX; n <= TEXTIN_HUGE_MAX + 1; n++) {
        int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
        cr_assert(fd >= 0 && ftruncate(fd, (off_t)n) == 0);
        textin in;
        g2e_err err;
        cr_assert_eq(textin_fd(&in, fd, "'a.txt'", &err), 0, "%s", err.msg);
        cr_expect_eq(in.huge != NULL, n == TEXTIN_HUGE_MAX, "%zu bytes", n);
        cr_expect_eq(in.map != NULL, n > TEXTIN_HUGE_MAX, "%zu bytes", n);
        cr_expect(in.len == n && in.data[0] == 0 && in.data[n - 1] == 0);
        textin_close(&in);
        close(fd);
    }
    unlink(p);
    free(p), free(dir);
}

/* The text begins where the descriptor stands (`{ head -c 6 >/dev/null; gpt2-embed ...; } <
 * file`), mapped (at an offset inside a page) or read, and the descriptor is left at the end. */
Test(textin, the_text_begins_where_the_descriptor_stands)
{
    char *dir = test_tmpdir("textin_at"), *p = path_join(dir, "a.txt");
    static const struct {
        size_t n, at;
    } cases[] = {{10000, 5000}, {10000, 6}, {10000, 9999}, {10000, 10000}, {10000, 20000},
                 {3 * TEXTIN_HUGE_MIN, TEXTIN_HUGE_MIN + 1}, {3 * TEXTIN_HUGE_MIN, 2 * TEXTIN_HUGE_MIN + 1}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t n = cases[c].n, at = cases[c].at, want = at < n ? n - at : 0;
        unsigned char *b = pattern_file(p, n);
        int fd = open(p, O_RDONLY);
        cr_assert_eq(lseek(fd, (off_t)at, SEEK_SET), (off_t)at);
        textin in;
        g2e_err err;
        cr_assert_eq(textin_fd(&in, fd, "'a.txt'", &err), 0, "%s", err.msg);
        cr_expect_eq(in.len, want, "%zu bytes from %zu", n, at);
        cr_expect(in.data && (want ? memcmp(in.data, b + at, want) == 0 : !*in.data), "%zu bytes from %zu", n, at);
        cr_expect_eq(in.huge != NULL, want >= TEXTIN_HUGE_MIN, "%zu bytes from %zu", n, at);
        cr_expect_eq(lseek(fd, 0, SEEK_CUR), (off_t)(at > n ? at : n), "%zu bytes from %zu", n, at);
        textin_close(&in);
        close(fd);
        free(b);
    }
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
