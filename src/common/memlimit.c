/* SPDX-License-Identifier: MIT */
/* memlimit.c — room under RLIMIT_AS (memlimit.h). */
#include "memlimit.h"

#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

/* The process's size in bytes (the first field of /proc/self/statm, in pages); 0 if unknown. */
static size_t present_size(void)
{
    FILE *f = fopen("/proc/self/statm", "re");
    unsigned long pages = 0;
    if (f) {
        if (fscanf(f, "%lu", &pages) != 1)
            pages = 0;
        fclose(f);
    }
    long ps = sysconf(_SC_PAGESIZE);
    return (size_t)pages * (size_t)(ps > 0 ? ps : 4096);
}

int memlimit_check(size_t need, const char *what, g2e_err *err)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return 0;
    size_t have = present_size(), limit = (size_t)rl.rlim_cur;
    if (have < limit && limit - have >= need)
        return 0;
    return g2e_fail(err, G2E_ENOMEM, "not enough memory for %s (limit %zu MB, %zu MB in use, about %zu MB more "
                    "needed): raise the limit (ulimit -v)", what, limit >> 20, have >> 20, need >> 20);
}
