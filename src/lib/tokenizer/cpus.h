/* SPDX-License-Identifier: MIT */
/* cpus.h — how many CPUs this process may use: the default thread count of every threaded
 * call (gpt2embed_cpu_count in the public header).
 *
 * The CPUs of sched_getaffinity (taskset, cpusets, a batch system's allotment), capped by
 * the CPU quota of the process's cgroup v2 (cpu.max "QUOTA PERIOD": ceil(QUOTA / PERIOD)
 * CPUs; "max" is no cap), at least 1. sysconf(_SC_NPROCESSORS_ONLN) counts the machine's
 * CPUs, which a process pinned to one CPU, or N jobs sharing a host, must not take.
 * Deliberately left out: cgroup v1 (cpu.cfs_quota_us), cpu.max of ancestor cgroups.
 */
#ifndef G2E_CPUS_H
#define G2E_CPUS_H

/* The count above; reads /proc/self/cgroup and the cgroup's cpu.max on every call. */
unsigned g2e_cpu_count(void);

/* The CPUs a cpu.max text allows (NULL or unparsable: 0 = no cap): "max 100000" -> 0,
 * "150000 100000" -> 2, "50000 100000" -> 1. For tests. */
unsigned g2e_cpu_quota(const char *cpu_max);

#endif
