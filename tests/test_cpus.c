/* SPDX-License-Identifier: MIT */
/* test_cpus.c — the default thread count (cpus.h): cgroup v2 cpu.max lines, the smallest
 * quota on the way up a cgroup tree made here, and the affinity mask of a child process
 * narrowed with sched_setaffinity. (tests/test_tokenize_cli.c checks that the program
 * starts no worker thread under `taskset -c 0`.) */
#define _GNU_SOURCE /* sched_setaffinity */
#include "cpus.h"
#include "support.h"

#include <criterion/criterion.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

Test(cpus, cpu_max_lines)
{
    cr_expect_eq(g2e_cpu_quota("max 100000\n"), 0, "no limit");
    cr_expect_eq(g2e_cpu_quota("max"), 0);
    cr_expect_eq(g2e_cpu_quota("100000 100000\n"), 1);
    cr_expect_eq(g2e_cpu_quota("150000 100000\n"), 2, "1.5 CPUs' time: 2 threads");
    cr_expect_eq(g2e_cpu_quota("50000 100000"), 1, "half a CPU: still 1");
    cr_expect_eq(g2e_cpu_quota("400000 100000"), 4);
    cr_expect_eq(g2e_cpu_quota("800000 200000\n"), 4);
    cr_expect_eq(g2e_cpu_quota("300000"), 3, "the default period");
    cr_expect_eq(g2e_cpu_quota(""), 0);
    cr_expect_eq(g2e_cpu_quota("0 100000"), 0);
    cr_expect_eq(g2e_cpu_quota("100000 0"), 0);
    cr_expect_eq(g2e_cpu_quota("-5 100000"), 0);
    cr_expect_eq(g2e_cpu_quota("12x 100000"), 0);
    cr_expect_eq(g2e_cpu_quota("100000 100000 7"), 0);
    cr_expect_eq(g2e_cpu_quota("abc 100"), 0);
    cr_expect_eq(g2e_cpu_quota(NULL), 0);
}

static void put(const char *dir, const char *sub, const char *line)
{
    char *d = path_join(dir, sub);
    mkdir(d, 0755);
    if (line) {
        char *f = path_join(d, "cpu.max");
        write_file(f, line, strlen(line));
        free(f);
    }
    free(d);
}

/* The smallest quota on the way from the process's cgroup up to the root counts. */
Test(cpus, the_smallest_quota_up_the_tree)
{
    char *root = test_tmpdir("cpus-tree");
    put(root, "a", "250000 100000\n");
    put(root, "a/b", "max 100000\n");
    put(root, "a/b/c", "150000 100000\n");
    put(root, "a/d", NULL);
    put(root, "e", NULL);
    cr_expect_eq(g2e_cpu_quota_at(root, "/a/b/c"), 2);
    cr_expect_eq(g2e_cpu_quota_at(root, "/a/b"), 3, "its parent's quota limits it");
    cr_expect_eq(g2e_cpu_quota_at(root, "/a/d"), 3);
    cr_expect_eq(g2e_cpu_quota_at(root, "/e"), 0, "no quota: no limit");
    cr_expect_eq(g2e_cpu_quota_at(root, "/"), 0);
    put(root, "", "100000 100000\n"); /* a quota at the root (a container's own cgroup) */
    cr_expect_eq(g2e_cpu_quota_at(root, "/e"), 1);
    cr_expect_eq(g2e_cpu_quota_at(root, "/a/b/c"), 1);
    free(root);
}

/* A child whose affinity is CPU 0 alone gets 1; the count never exceeds the mask. */
Test(cpus, the_affinity_mask_counts)
{
    cpu_set_t set;
    cr_assert_eq(sched_getaffinity(0, sizeof set, &set), 0);
    unsigned c = g2e_cpu_count();
    cr_expect(c >= 1 && c <= (unsigned)CPU_COUNT(&set), "%u CPUs, mask %d", c, CPU_COUNT(&set));
    int first = 0;
    while (!CPU_ISSET(first, &set))
        first++;
    pid_t pid = fork();
    if (pid == 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(first, &one);
        _exit(sched_setaffinity(0, sizeof one, &one) == 0 && g2e_cpu_count() == 1 ? 0 : 1);
    }
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "one CPU in the mask: 1 thread");
}
