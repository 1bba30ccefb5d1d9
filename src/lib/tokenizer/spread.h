/* SPDX-License-Identifier: MIT */
/* spread.h — worker threads that start on another CPU than the thread that makes them.
 *
 * A thread made with pthread_create starts on the CPU the scheduler picks for it. On this
 * project's 2-vCPU machine (a Firecracker VM whose kernel packs tasks onto busy vCPUs) that
 * is the creator's own, busy CPU: the new thread waited 0.7-1.8 ms there before the load
 * balancer moved it to the idle one, where it started 0.1 ms after creation when told to
 * (bench/THREADS.md, "the serial start"). For a job of 50-60 ms on two threads that wait is
 * 2-3 % of the run, each time a crew of threads is made.
 *
 * spread_create makes the thread with an initial affinity of one CPU of the caller's allowed
 * set other than the one the caller is on (the k-th such CPU, round robin), so it starts
 * there; its first act is to take back the caller's whole allowed set, so it is never pinned:
 * the scheduler moves it as it likes from then on. With one allowed CPU, or when the CPU set
 * cannot be read or set, it is a plain pthread_create. Nothing is printed; no state is kept.
 */
#ifndef G2E_SPREAD_H
#define G2E_SPREAD_H

#include <pthread.h>
#include <stddef.h>
#include <sched.h> /* cpu_set_t: include with _GNU_SOURCE defined */

/* pthread_create(th, NULL, fn, arg) as above (k: which other CPU, 0 for the first). Returns
 * 0 or pthread_create's error; on success fn(arg) runs in the new thread, to be joined. */
int spread_create(pthread_t *th, void *(*fn)(void *), void *arg, unsigned k);

#define SPREAD_MAX 64

/* Runs fn on the n (<= SPREAD_MAX) items items[0..n) of `size` bytes each: items 1.. each in a
 * thread of its own (spread_create, on other CPUs), item 0 in the calling thread; returns
 * when all are done. An item whose thread could not be started is run in the calling thread
 * afterwards when run_unstarted is set (work given to that item alone), else left out (work
 * shared through a queue, which the others take). */
void spread_run(void *(*fn)(void *), void *items, size_t size, unsigned n, int run_unstarted);

/* The CPU spread_create starts its k-th thread on: the k-th CPU (round robin) of `all` after
 * `me` other than me, or -1 when `all` holds no other (exposed for the tests). */
int spread_cpu(const cpu_set_t *all, int me, unsigned k);

#endif
