/* SPDX-License-Identifier: MIT */
/* cpus.c — the CPUs this process may use (see cpus.h). */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "cpus.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

unsigned g2e_cpu_quota(const char *cpu_max)
{
    if (!cpu_max)
        return 0;
    char *end;
    while (*cpu_max == ' ')
        cpu_max++;
    if (strncmp(cpu_max, "max", 3) == 0)
        return 0;
    unsigned long long quota = strtoull(cpu_max, &end, 10);
    if (end == cpu_max || *end != ' ')
        return 0;
    const char *p = end + 1;
    unsigned long long period = strtoull(p, &end, 10);
    if (end == p || period == 0 || quota == 0)
        return 0;
    unsigned long long n = (quota + period - 1) / period;
    return n > 4096 ? 4096 : (unsigned)n;
}

/* The cgroup v2 path of this process ("0::/some/path" in /proc/self/cgroup) into buf. */
static int cgroup_path(char *buf, size_t cap)
{
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (!f)
        return -1;
    char line[4096];
    int found = -1;
    while (found && fgets(line, sizeof line, f)) {
        if (strncmp(line, "0::", 3) != 0)
            continue;
        line[strcspn(line, "\n")] = '\0';
        found = (size_t)snprintf(buf, cap, "/sys/fs/cgroup%s/cpu.max", line + 3) < cap ? 0 : -1;
    }
    fclose(f);
    return found;
}

static unsigned quota_cpus(void)
{
    char path[4200], text[128];
    if (cgroup_path(path, sizeof path))
        return 0;
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    int ok = fgets(text, sizeof text, f) != NULL;
    fclose(f);
    return ok ? g2e_cpu_quota(text) : 0;
}

unsigned g2e_cpu_count(void)
{
    unsigned n = 0;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        n = (unsigned)CPU_COUNT(&set);
    if (!n) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        n = c > 0 ? (unsigned)c : 1;
    }
    unsigned q = quota_cpus();
    return q && q < n ? q : n;
}
