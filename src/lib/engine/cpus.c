/* SPDX-License-Identifier: MIT */
/* cpus.c — CPUs in the affinity mask, capped by the cgroup v2 quota (cpus.h). */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT_S */
#include "cpus.h"

#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

unsigned g2e_cpu_quota(const char *s)
{
    char *e;
    if (!s)
        return 0;
    while (*s == ' ')
        s++;
    if (*s < '0' || *s > '9') /* "max", or not a number */
        return 0;
    unsigned long long q = strtoull(s, &e, 10), p = 100000;
    if (*e == ' ') {
        const char *ps = e + 1;
        if (*ps < '0' || *ps > '9')
            return 0;
        p = strtoull(ps, &e, 10);
    }
    if ((*e && *e != '\n') || !q || !p)
        return 0;
    unsigned long long c = (q + p - 1) / p;
    return c > UINT_MAX ? UINT_MAX : (unsigned)c;
}

unsigned g2e_cpu_quota_at(const char *root, const char *path)
{
    char dir[PATH_MAX], line[128];
    unsigned best = 0;
    if (snprintf(dir, sizeof dir, "%s%s", root, path) >= (int)sizeof dir)
        return 0;
    size_t rl = strlen(root);
    for (;;) {
        char f[PATH_MAX + 16];
        snprintf(f, sizeof f, "%s/cpu.max", dir);
        FILE *fp = fopen(f, "re");
        if (fp) {
            unsigned q = fgets(line, sizeof line, fp) ? g2e_cpu_quota(line) : 0;
            best = q && (!best || q < best) ? q : best;
            fclose(fp);
        }
        char *slash = strrchr(dir, '/');
        if (!slash || (size_t)(slash - dir) < rl) /* (the root itself done) */
            break;
        *slash = '\0';
    }
    return best;
}

/* The cgroup v2 mount point (mountinfo's cgroup2 line) into buf, or 0 when there is none. */
static int cgroup2_root(char *buf, size_t cap)
{
    FILE *fp = fopen("/proc/self/mountinfo", "re");
    char line[4096];
    int found = 0;
    while (fp && !found && fgets(line, sizeof line, fp)) {
        char *dash = strstr(line, " - cgroup2 ");
        char mnt[PATH_MAX];
        /* "ID PARENT MAJ:MIN ROOT MOUNTPOINT ..." */
        if (dash && sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1 && strlen(mnt) < cap) {
            snprintf(buf, cap, "%s", mnt);
            found = 1;
        }
    }
    if (fp)
        fclose(fp);
    return found;
}

/* This process's cgroup v2 path ("0::/PATH" in /proc/self/cgroup) into buf, or 0. */
static int cgroup2_path(char *buf, size_t cap)
{
    FILE *fp = fopen("/proc/self/cgroup", "re");
    char line[4096];
    int found = 0;
    while (fp && !found && fgets(line, sizeof line, fp))
        if (strncmp(line, "0::", 3) == 0) {
            line[strcspn(line, "\n")] = '\0';
            found = strlen(line + 3) < cap && snprintf(buf, cap, "%s", line + 3) >= 0;
        }
    if (fp)
        fclose(fp);
    return found;
}

/* CPUs in the affinity mask (masks for more than 1024 CPUs too), or 0. */
static unsigned affinity_cpus(void)
{
    for (int n = 1024; n <= (1 << 20); n *= 2) {
        cpu_set_t *set = CPU_ALLOC(n);
        if (!set)
            return 0;
        size_t sz = CPU_ALLOC_SIZE(n);
        int ok = sched_getaffinity(0, sz, set) == 0;
        unsigned c = ok ? (unsigned)CPU_COUNT_S(sz, set) : 0;
        CPU_FREE(set);
        if (ok)
            return c;
    }
    return 0;
}

unsigned g2e_cpu_count(void)
{
    unsigned c = affinity_cpus();
    if (!c) {
        long o = sysconf(_SC_NPROCESSORS_ONLN);
        c = o > 0 ? (unsigned)o : 1;
    }
    /* the process's cgroup first (a short file): without a v2 line there is no quota to read,
     * and the long mountinfo is read only when the usual mount point holds no cgroup2 */
    char root[PATH_MAX] = "/sys/fs/cgroup", path[PATH_MAX];
    struct stat st;
    unsigned q = 0;
    if (cgroup2_path(path, sizeof path)) {
        if (stat("/sys/fs/cgroup/cgroup.controllers", &st) != 0) {   /* unified (v2 only) */
            snprintf(root, sizeof root, "/sys/fs/cgroup/unified");    /* hybrid (systemd) */
            if (stat("/sys/fs/cgroup/unified/cgroup.controllers", &st) != 0 && !cgroup2_root(root, sizeof root))
                root[0] = '\0';
        }
        q = root[0] ? g2e_cpu_quota_at(root, path) : 0;
    }
    return q && q < c ? q : c;
}

unsigned g2e_threads_for(unsigned want, size_t items)
{
    size_t n = want ? want : g2e_cpu_count();
    n = n < G2E_THREADS_MAX ? n : G2E_THREADS_MAX;
    n = n < items ? n : items;
    return n ? (unsigned)n : 1;
}
