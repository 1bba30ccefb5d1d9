/* SPDX-License-Identifier: MIT */
/* cpus.h — how many CPUs this process may run on: the default thread count of every
 * threaded call (gpt2embed_cpu_count in the public header).
 *
 * The CPUs in the process's affinity mask (sched_getaffinity: taskset, cpusets, a
 * container's CPU list), capped by the cgroup v2 CPU quota (cpu.max: "QUOTA PERIOD" allows
 * QUOTA/PERIOD CPUs' time, rounded up; "max" none) of the process's cgroup and of every
 * cgroup above it, the smallest one counting. At least 1. Read each time it is asked for
 * (a few small files; a process can be moved).
 *
 * Deliberately left out: cgroup v1's cpu.cfs_quota_us, CPU shares/weights (a share is no
 * limit when the host is idle), hot-plugged CPUs after the call.
 */
#ifndef G2E_CPUS_H
#define G2E_CPUS_H

#include <stddef.h>

/* The default thread count: CPUs in the affinity mask, capped by the cgroup v2 quota. */
unsigned g2e_cpu_count(void);

#define G2E_THREADS_MAX 64u /* the most threads any call of the library starts */

/* The threads a call asked for `want` (0: g2e_cpu_count()) runs `items` work items on: at
 * most G2E_THREADS_MAX, at most items, at least 1 (gpt2embed_threads_for). */
unsigned g2e_threads_for(unsigned want, size_t items);

/* The CPUs a cgroup v2 cpu.max line allows: ceil(quota / period), at least 1; 0 for "max",
 * NULL, or for anything that is not "QUOTA [PERIOD]" with positive integers (PERIOD 100000 when
 * missing, as the kernel's default). */
unsigned g2e_cpu_quota(const char *cpu_max);

/* The smallest quota (g2e_cpu_quota) of the cpu.max files in the cgroup v2 directory
 * root/path and its parents up to root, or 0 when none limits. */
unsigned g2e_cpu_quota_at(const char *root, const char *path);

#endif
