/* SPDX-License-Identifier: MIT */
/* test_cpus.c — the CPUs this process may use: affinity (as taskset sets it) and the cgroup
 * v2 quota's text. */
#define _GNU_SOURCE
#include "cpus.h"

#include <criterion/criterion.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

Test(cpus, quota_text)
{
    cr_expect_eq(g2e_cpu_quota("max 100000\n"), 0);
    cr_expect_eq(g2e_cpu_quota("150000 100000\n"), 2);
    cr_expect_eq(g2e_cpu_quota("100000 100000"), 1);
    cr_expect_eq(g2e_cpu_quota("50000 100000"), 1);
    cr_expect_eq(g2e_cpu_quota("800000 100000"), 8);
    cr_expect_eq(g2e_cpu_quota(""), 0);
    cr_expect_eq(g2e_cpu_quota("abc 100"), 0);
    cr_expect_eq(g2e_cpu_quota("100 0"), 0);
    cr_expect_eq(g2e_cpu_quota(NULL), 0);
}

/* A child pinned to one CPU (taskset -c 0) counts 1, whatever the machine has. */
Test(cpus, affinity_of_one_cpu_is_one)
{
    cr_expect(g2e_cpu_count() >= 1);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(0, &one);
        if (sched_setaffinity(0, sizeof one, &one) != 0)
            _exit(2);
        _exit(g2e_cpu_count() == 1 ? 0 : 1);
    }
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
}
