/* SPDX-License-Identifier: MIT */
/* support.c — see support.h. */
#define _GNU_SOURCE /* memfd_create */
#include "support.h"

#include "../src/gpt2embed.h"

#include "engine.h"
#include "fixture.h"
#include "model.h"
#include "text.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void append(char **buf, size_t *len, size_t *cap, const char *src, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t nc = (*cap ? *cap * 2 : 4096);
        while (nc < *len + n + 1)
            nc *= 2;
        char *nb = realloc(*buf, nc);
        cr_assert(nb != NULL, "out of memory");
        *buf = nb;
        *cap = nc;
    }
    memcpy(*buf + *len, src, n);
    *len += n;
    (*buf)[*len] = '\0';
}

int run_timeout_s = 60;

run_result run_argv(char *const argv[], const char *in, size_t in_len,
                    char *const env[], const char *cwd)
{
    int pin[2], pout[2], perr[2];
    cr_assert(pipe(pin) == 0 && pipe(pout) == 0 && pipe(perr) == 0, "pipe: %s", strerror(errno));
    pid_t pid = fork();
    cr_assert(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        dup2(pin[0], 0);
        dup2(pout[1], 1);
        dup2(perr[1], 2);
        close(pin[0]); close(pin[1]); close(pout[0]); close(pout[1]); close(perr[0]); close(perr[1]);
        if (!in) {
            int dn = open("/dev/null", O_RDONLY);
            if (dn >= 0) { dup2(dn, 0); close(dn); }
        }
        for (size_t i = 0; env && env[i]; i++) {
            if (env[i][0] == '-') {          /* "-NAME" removes NAME */
                unsetenv(env[i] + 1);
                continue;
            }
            char *kv = strdup(env[i]);
            char *eq = kv ? strchr(kv, '=') : NULL;
            if (!eq) _exit(126);
            *eq = '\0';
            setenv(kv, eq + 1, 1);
        }
        if (cwd && chdir(cwd) != 0) _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    close(pin[0]); close(pout[1]); close(perr[1]);
    signal(SIGPIPE, SIG_IGN);
    run_result r = {0};
    size_t ocap = 0, ecap = 0, written = 0;
    append(&r.out, &r.out_len, &ocap, "", 0);
    append(&r.err, &r.err_len, &ecap, "", 0);
    int infd = pin[1];
    if (!in || in_len == 0) { close(infd); infd = -1; }
    /* never block in a write: a child that streams (reads some, writes some) would block on
     * its output while this waits for it to read (a deadlock) */
    if (infd >= 0)
        fcntl(infd, F_SETFL, fcntl(infd, F_GETFL) | O_NONBLOCK);
    int open_out = 1, open_err = 1;
    time_t start = time(NULL);
    while (open_out || open_err) {
        struct pollfd p[3] = {{pout[0], POLLIN, 0}, {perr[0], POLLIN, 0}, {infd, POLLOUT, 0}};
        int n = poll(p, infd >= 0 ? 3 : 2, 1000);
        if (time(NULL) - start > run_timeout_s) {
            kill(pid, SIGKILL);
            cr_log_error("command timed out after %d s: %s", run_timeout_s, argv[0]);
            break;
        }
        if (n <= 0) continue;
        char buf[65536];
        if (open_out && (p[0].revents & (POLLIN | POLLHUP))) {
            ssize_t k = read(pout[0], buf, sizeof buf);
            if (k > 0) append(&r.out, &r.out_len, &ocap, buf, (size_t)k); else open_out = 0;
        }
        if (open_err && (p[1].revents & (POLLIN | POLLHUP))) {
            ssize_t k = read(perr[0], buf, sizeof buf);
            if (k > 0) append(&r.err, &r.err_len, &ecap, buf, (size_t)k); else open_err = 0;
        }
        if (infd >= 0 && (p[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
            ssize_t k = write(infd, in + written, in_len - written > 65536 ? 65536 : in_len - written);
            if (k > 0) written += (size_t)k;
            if ((k < 0 && errno != EAGAIN) || k == 0 || written == in_len) { close(infd); infd = -1; }
        }
    }
    if (infd >= 0) close(infd);
    close(pout[0]); close(perr[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    if (WIFSIGNALED(st)) { r.signaled = 1; r.status = 128 + WTERMSIG(st); }
    else r.status = WEXITSTATUS(st);
    return r;
}

run_result run_g2e(const char *arg1, ...)
{
    char *argv[256];
    int n = 0;
    argv[n++] = (char *)G2E_TEST_BIN;
    va_list ap;
    va_start(ap, arg1);
    for (const char *a = arg1; a && n < 255; a = va_arg(ap, const char *))
        argv[n++] = (char *)a;
    va_end(ap);
    argv[n] = NULL;
    return run_argv(argv, NULL, 0, NULL, NULL);
}

void run_free(run_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

const char *test_tmproot(void)
{
    static char root[4096];
    if (!root[0]) {
        const char *d = getenv("G2E_TEST_TMPDIR");
        size_t n = strlen(G2E_TEST_TMP);
        if (!d || !*d)
            d = G2E_TEST_TMP;
        cr_assert(strncmp(d, G2E_TEST_TMP, n) == 0 && (d[n] == '\0' || d[n] == '/') &&
                  strlen(d) < sizeof root, "G2E_TEST_TMPDIR=%s is not under %s", d, G2E_TEST_TMP);
        mkdir(G2E_TEST_TMP, 0755);
        mkdir(d, 0755);
        strcpy(root, d);
    }
    return root;
}

char *test_tmpdir(const char *tag)
{
    const char *root = test_tmproot();
    size_t n = strlen(root) + strlen(tag) + 32;
    char *p = malloc(n);
    cr_assert(p != NULL);
    snprintf(p, n, "%s/%s-XXXXXX", root, tag);
    cr_assert(mkdtemp(p) != NULL, "mkdtemp %s: %s", p, strerror(errno));
    return p;
}

char *path_join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    cr_assert(p != NULL);
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

void write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    cr_assert(f != NULL, "open %s: %s", path, strerror(errno));
    cr_assert(len == 0 || fwrite(data, 1, len, f) == len, "write %s", path);
    cr_assert(fclose(f) == 0, "close %s", path);
}

char *mem_file(const void *data, size_t len, int reps)
{
    int fd = memfd_create("g2e-test", 0); /* not close-on-exec: the programs started inherit it */
    cr_assert(fd >= 0, "memfd_create: %s", strerror(errno));
    for (int k = 0; k < reps; k++)
        for (size_t done = 0; done < len;) {
            ssize_t w = write(fd, (const char *)data + done, len - done);
            cr_assert(w > 0 || (w < 0 && errno == EINTR), "write to memory file: %s", strerror(errno));
            done += w > 0 ? (size_t)w : 0;
        }
    char name[32];
    snprintf(name, sizeof name, "/dev/fd/%d", fd);
    return strdup(name);
}

char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t n = 0, cap = 0;
    char tmp[65536];
    size_t k;
    while ((k = fread(tmp, 1, sizeof tmp, f)) > 0)
        append(&buf, &n, &cap, tmp, k);
    fclose(f);
    if (!buf) { buf = calloc(1, 1); }
    if (len) *len = n;
    return buf;
}

eng *open_repo_eng(size_t chunk)
{
    tok_tokenizer *t;
    eng *e;
    g2e_err err;
    cr_assert_eq(tok_open(G2E_SRCDIR "/tokenizer", 0, &t, &err), 0, "%s", err.msg);
    cr_assert_eq(eng_new(&e, t, &err), 0, "%s", err.msg);
    if (chunk)
        eng_set_chunk(e, chunk);
    return e;
}

/* The fixture o written as m.safetensors in a fresh directory named after tag (caller frees). */
static char *fixture_file(const fixture_opts *o, const char *tag)
{
    char *dir = test_tmpdir(tag);
    char *path = path_join(dir, "m.safetensors");
    char e[256];
    cr_assert_eq(fixture_write(path, o, e, sizeof e), 0, "%s", e);
    free(dir);
    return path;
}

gpt2embed_model *open_fixture_door(const fixture_opts *o, const char *tag)
{
    char *path = fixture_file(o, tag);
    gpt2embed_model *m = NULL;
    gpt2embed_error err;
    cr_assert_eq(gpt2embed_model_open(&m, path, NULL, &err), 0, "%s", err.message);
    free(path);
    return m;
}

g2e_model *open_fixture_model(const fixture_opts *o, const char *tag)
{
    char *path = fixture_file(o, tag);
    g2e_model *m = NULL;
    g2e_err err;
    cr_assert_eq(model_open(&m, path, &err), 0, "%s", err.msg);
    free(path);
    return m;
}

size_t ref_chars(const char *s, size_t n)
{
    size_t c = 0, k;
    for (size_t i = 0; i < n; i += k, c++)
        text_step(s + i, n - i, &k);
    return c;
}
