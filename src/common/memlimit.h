/* SPDX-License-Identifier: MIT */
/* memlimit.h — room left under the address-space limit (RLIMIT_AS, `ulimit -v`, set by
 * batch systems). Some libraries do not fail cleanly when it runs out: OpenBLAS spins for
 * ever in its buffer allocation, GLib aborts (SIGTRAP) when Pango cannot start a thread. So
 * before a step that enters them the caller asks whether the address space it needs is
 * left, and reports "not enough memory" instead.
 *
 * The room is the limit minus the process's present size (/proc/self/statm); the need is
 * the caller's estimate of the step's peak. No limit (RLIM_INFINITY): always room.
 */
#ifndef G2E_MEMLIMIT_H
#define G2E_MEMLIMIT_H

#include "err.h"

#include <stddef.h>

/* Address space a step needs beyond what is mapped before it, measured (see memlimit.c). */
#define MEMLIMIT_BLAS ((size_t)256 << 20)     /* OpenBLAS: its buffers on the first call (~205 MB seen) */
/* the whole report (cairo, Pango's thread and its malloc arena, the figures, BLAS): at
 * most ~510 MB seen beyond the mapped weights of a 768-wide model */
#define MEMLIMIT_REPORT ((size_t)512 << 20)

/* 0 when need more bytes fit under the limit; else G2E_ENOMEM with "not enough memory for
 * WHAT (limit N MB, M MB in use, about K MB more needed)". */
int memlimit_check(size_t need, const char *what, g2e_err *err);

#endif
