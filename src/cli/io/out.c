/* SPDX-License-Identifier: MIT */
/* out.c — the program's side of the output: outfile.h's destinations with their messages
 * printed, the SIGBUS guard of mapped inputs, shared formatting, the format from -o's
 * extension; see out.h. */
#include "out.h"

#include "cli.h"
#include "opt.h"
#include "text.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- destinations: outfile.h, with the message printed ---- */

int out_add_input(const char *what, const char *path, int fd)
{
    return ofile_add_input(what, path, fd);
}

void out_clear_inputs(void)
{
    ofile_clear_inputs();
}

int out_open(out_file *o, const char *path, int binary)
{
    g2e_err e;
    ofile_catch_signals(1);
    if (ofile_open(o, path, binary, &e) == 0)
        return 0;
    cli_error("%s", e.msg);
    return -1;
}

int out_commit(out_file *o)
{
    g2e_err e;
    int to_stdout = o->f == stdout;
    if (ofile_commit(o, &e) != 0) {
        cli_error("%s", e.msg);
        return -1;
    }
    return to_stdout ? cli_flush_stdout() : 0;   /* one wording, reported once per run */
}

void out_abort(out_file *o)
{
    ofile_abort(o);
}

/* ---- SIGBUS in a mapped input: the file shrank ---- */

#define N_MAPS 8
static struct {
    const char *volatile lo, *volatile hi;   /* lo NULL: a free slot */
    char msg[320];
    size_t msg_len;
} maps[N_MAPS];
static int sigbus_installed;

static atomic_flag sigbus_taken = ATOMIC_FLAG_INIT;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    const char *a = si ? (const char *)si->si_addr : NULL;
    for (int i = 0; a && i < N_MAPS; i++) {
        if (maps[i].lo && a >= maps[i].lo && a < maps[i].hi) {
            /* one message: a second thread that reads past the shrunk end meanwhile waits
             * for the first one's _exit */
            if (atomic_flag_test_and_set(&sigbus_taken))
                for (;;)
                    pause();
            ofile_remove_pending();
            ssize_t w = write(STDERR_FILENO, maps[i].msg, maps[i].msg_len);
            (void)w;
            _exit(EXIT_ERR);
        }
    }
    /* not ours: the default action, when the faulting access runs again */
    ofile_remove_pending();
    signal(sig, SIG_DFL);
}

int out_guard_mapping(const void *addr, size_t len, const char *path, const char *what)
{
    int i = 0;
    while (i < N_MAPS && maps[i].lo)
        i++;
    if (i == N_MAPS || !addr)
        return -1;
    char *vis = out_piece_visible(path, strlen(path));
    int k = snprintf(maps[i].msg, sizeof maps[i].msg,
                     "gpt2-embed: %.200s: %.40s changed size while in use "
                     "(another program truncated or rewrote it)\n", vis ? vis : "?", what);
    free(vis);
    maps[i].msg_len = k > 0 && (size_t)k < sizeof maps[i].msg ? (size_t)k : strlen(maps[i].msg);
    maps[i].hi = (const char *)addr + len;
    maps[i].lo = addr;   /* last: the handler only looks at complete entries */
    if (!sigbus_installed) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_sigbus;
        sa.sa_flags = SA_SIGINFO;
        sigemptyset(&sa.sa_mask);
        if (sigaction(SIGBUS, &sa, NULL) != 0)
            return -1;
        sigbus_installed = 1;
    }
    return 0;
}

void out_unguard_mapping(const void *addr)
{
    for (int i = 0; addr && i < N_MAPS; i++)
        if (maps[i].lo == addr)
            maps[i].lo = NULL;
}

/* ---- formatting ---- */

void out_f32(FILE *f, float v)
{
    fprintf(f, "%.9g", (double)v);
}

void out_f64(FILE *f, double v)
{
    fprintf(f, "%.17g", v);
}

/* ---- the format from -o's file name ---- */

int out_pick_format(const struct opt_cmd *cmd, const char *path, const char *const *names,
                    int given, int *fmt)
{
    if (!path || strcmp(path, "-") == 0)
        return 0;
    const char *want = NULL;
    int k = ofile_format_of_name(path, names, &want);
    if (k == -2)
        return 0;
    /* .txt says "text", not which text: an explicit json or csv there is no contradiction */
    int binary = given && (strcmp(names[*fmt], "npy") == 0 || strcmp(names[*fmt], "raw") == 0 ||
                           strcmp(names[*fmt], "png") == 0);
    if (strcmp(want, "text") == 0 && given && !binary)
        return 0;
    char list[256];
    opt_join(names, list, sizeof list);
    if (k == -1)
        return opt_usage_error(cmd, "-o %s means --format %s, which %s does not write here "
                               "(it writes %s; choose a file name to match)", path, want, cmd->name,
                               list);
    if (given && k != *fmt)
        return opt_usage_error(cmd, "-o %s means --format %s, but --format %s was given (drop "
                               "--format, or change the file name)", path, names[k], names[*fmt]);
    *fmt = k;
    return 0;
}
