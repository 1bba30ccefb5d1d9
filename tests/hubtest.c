/* hubtest.c — see hubtest.h. */
#include "hubtest.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "support.h"

typedef struct ftensor {
    char name[96];
    int ndim;
    uint64_t shape[4];
    uint64_t nbytes;
} ftensor;

static int cmp_name(const void *a, const void *b)
{
    return strcmp(((const ftensor *)a)->name, ((const ftensor *)b)->name);
}

static void add(ftensor *t, size_t *n, const char *pre, const char *name, int ndim, uint64_t a,
                uint64_t b, uint64_t c, uint64_t d)
{
    ftensor *x = &t[(*n)++];
    snprintf(x->name, sizeof x->name, "%s%s", pre, name);
    x->ndim = ndim;
    uint64_t s[4] = {a, b, c, d};
    x->nbytes = 4;
    for (int i = 0; i < ndim; i++) {
        x->shape[i] = s[i];
        x->nbytes *= s[i];
    }
}

/* The pattern value of element i of a tensor seeded by seed. */
static float pattern(uint64_t seed, uint64_t i)
{
    uint64_t z = seed * 0x9E3779B97F4A7C15ull + i + 1;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (float)(z >> 40) / 8388608.0f - 1.0f;
}

static void write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t k = write(fd, c, n);
        cr_assert(k > 0, "fixture write: %s", strerror(errno));
        c += k;
        n -= (size_t)k;
    }
}

hub_layout hub_fixture(int full_shape, int prefix)
{
    uint64_t V = full_shape ? 50257 : 1000, C = full_shape ? 1024 : 64, E = full_shape ? 768 : 32;
    int L = 12;
    const char *pre = prefix ? "transformer." : "";
    ftensor t[200];
    size_t n = 0;
    char nm[64];
    for (int l = 0; l < L; l++) {
#define T(suffix, nd, a, b, c, d) \
    (snprintf(nm, sizeof nm, "h.%d.%s", l, suffix), add(t, &n, pre, nm, nd, a, b, c, d))
        T("attn.bias", 4, 1, 1, C, C);
        T("attn.c_attn.bias", 1, 3 * E, 0, 0, 0);
        T("attn.c_attn.weight", 2, E, 3 * E, 0, 0);
        T("attn.c_proj.bias", 1, E, 0, 0, 0);
        T("attn.c_proj.weight", 2, E, E, 0, 0);
        T("ln_1.bias", 1, E, 0, 0, 0);
        T("ln_1.weight", 1, E, 0, 0, 0);
        T("ln_2.bias", 1, E, 0, 0, 0);
        T("ln_2.weight", 1, E, 0, 0, 0);
        T("mlp.c_fc.bias", 1, 4 * E, 0, 0, 0);
        T("mlp.c_fc.weight", 2, E, 4 * E, 0, 0);
        T("mlp.c_proj.bias", 1, E, 0, 0, 0);
        T("mlp.c_proj.weight", 2, 4 * E, E, 0, 0);
#undef T
    }
    add(t, &n, pre, "ln_f.bias", 1, E, 0, 0, 0);
    add(t, &n, pre, "ln_f.weight", 1, E, 0, 0, 0);
    add(t, &n, pre, "wpe.weight", 2, C, E, 0, 0);
    add(t, &n, pre, "wte.weight", 2, V, E, 0, 0);
    qsort(t, n, sizeof t[0], cmp_name);

    /* the header */
    size_t cap = 65536, hl = 0;
    char *h = malloc(cap);
    cr_assert(h);
    hl += (size_t)snprintf(h + hl, cap - hl, "{\"__metadata__\":{\"format\":\"pt\"}");
    uint64_t at = 0;
    hub_layout out;
    memset(&out, 0, sizeof out);
    uint64_t wte_rel = 0, wpe_rel = 0;
    for (size_t i = 0; i < n; i++) {
        hl += (size_t)snprintf(h + hl, cap - hl, ",\"%s\":{\"dtype\":\"F32\",\"shape\":[", t[i].name);
        for (int d = 0; d < t[i].ndim; d++)
            hl += (size_t)snprintf(h + hl, cap - hl, "%s%" PRIu64, d ? "," : "", t[i].shape[d]);
        hl += (size_t)snprintf(h + hl, cap - hl, "],\"data_offsets\":[%" PRIu64 ",%" PRIu64 "]}",
                               at, at + t[i].nbytes);
        if (strstr(t[i].name, "wte.weight")) {
            wte_rel = at;
            out.wte_len = t[i].nbytes;
            snprintf(out.wte_name, sizeof out.wte_name, "%.63s", t[i].name);
        }
        if (strstr(t[i].name, "wpe.weight")) {
            wpe_rel = at;
            out.wpe_len = t[i].nbytes;
            snprintf(out.wpe_name, sizeof out.wpe_name, "%.63s", t[i].name);
        }
        at += t[i].nbytes;
        cr_assert(hl < cap - 256);
    }
    hl += (size_t)snprintf(h + hl, cap - hl, "}");
    out.header_len = hl;
    out.size = 8 + hl + at;
    out.wte_off = 8 + hl + wte_rel;
    out.wpe_off = 8 + hl + wpe_rel;
    out.n_vocab = V;
    out.n_ctx = C;
    out.n_embd = E;

    mkdir(G2E_TEST_TMP, 0755);
    char name[128];
    snprintf(name, sizeof name, "hubfix-%s-%s-v1.safetensors", full_shape ? "full" : "tiny",
             prefix ? "prefixed" : "plain");
    out.path = path_join(G2E_TEST_TMP, name);
    struct stat sb;
    if (stat(out.path, &sb) == 0 && (uint64_t)sb.st_size == out.size) {
        free(h);
        return out;
    }
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.%d.tmp", out.path, (int)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    cr_assert(fd >= 0, "create %s: %s", tmp, strerror(errno));
    uint8_t len8[8];
    for (int i = 0; i < 8; i++)
        len8[i] = (uint8_t)(hl >> (8 * i));
    write_all(fd, len8, 8);
    write_all(fd, h, hl);
    free(h);
    float *buf = malloc(1 << 20);
    cr_assert(buf);
    for (size_t i = 0; i < n; i++) {
        int seed = strstr(t[i].name, "wte.weight") ? 1 : strstr(t[i].name, "wpe.weight") ? 2 : 0;
        if (!seed) {
            cr_assert(lseek(fd, (off_t)t[i].nbytes, SEEK_CUR) >= 0);
            continue;
        }
        uint64_t ne = t[i].nbytes / 4, done = 0;
        while (done < ne) {
            size_t k = ne - done < (1 << 18) ? (size_t)(ne - done) : (1 << 18);
            for (size_t j = 0; j < k; j++)
                buf[j] = pattern((uint64_t)seed, done + j);
            write_all(fd, buf, k * 4);
            done += k;
        }
    }
    free(buf);
    cr_assert(ftruncate(fd, (off_t)out.size) == 0);
    cr_assert(close(fd) == 0);
    cr_assert(rename(tmp, out.path) == 0);
    return out;
}

void hub_layout_free(hub_layout *l)
{
    free(l->path);
    l->path = NULL;
}

void hub_start(hub_server *h, const char *file, const char *dir, const char *const *args)
{
    memset(h, 0, sizeof *h);
    h->pid = -1;
    h->in_fd = -1;
    h->log_path = path_join(dir, "hub.log");
    const char *argv[64];
    int n = 0;
    argv[n++] = "/usr/bin/python3";
    argv[n++] = G2E_SRCDIR "/tests/hub_server.py";
    argv[n++] = "--file";
    argv[n++] = file;
    argv[n++] = "--log";
    argv[n++] = h->log_path;
    for (int i = 0; args && args[i] && n < 62; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    int pin[2], pout[2];
    cr_assert(pipe(pin) == 0 && pipe(pout) == 0);
    pid_t parent = getpid();
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        /* dies with the test process, whatever happens to it */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(1);
        dup2(pin[0], 0);
        dup2(pout[1], 1);
        close(pin[0]); close(pin[1]); close(pout[0]); close(pout[1]);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(pin[0]);
    close(pout[1]);
    fcntl(pin[1], F_SETFD, FD_CLOEXEC);
    h->pid = pid;
    h->in_fd = pin[1];
    char line[128];
    size_t k = 0;
    time_t t0 = time(NULL);
    while (k < sizeof line - 1 && (k == 0 || line[k - 1] != '\n')) {
        struct pollfd p = {pout[0], POLLIN, 0};
        if (time(NULL) - t0 > 20)
            break;
        if (poll(&p, 1, 1000) <= 0)
            continue;
        ssize_t r = read(pout[0], line + k, sizeof line - 1 - k);
        if (r <= 0)
            break;
        k += (size_t)r;
    }
    line[k] = '\0';
    close(pout[0]);
    if (sscanf(line, "%d %d", &h->hub_port, &h->cdn_port) != 2) {
        hub_stop(h);
        cr_assert_fail("the hub stand-in did not start (got '%s')", line);
    }
    snprintf(h->endpoint, sizeof h->endpoint, "http://127.0.0.1:%d", h->hub_port);
}

void hub_stop(hub_server *h)
{
    if (h->in_fd >= 0) {
        close(h->in_fd);
        h->in_fd = -1;
    }
    if (h->pid > 0) {
        kill(h->pid, SIGTERM);
        for (int i = 0; i < 50; i++) {
            if (waitpid(h->pid, NULL, WNOHANG) == h->pid) {
                h->pid = -1;
                break;
            }
            usleep(20000);
        }
        if (h->pid > 0) {
            kill(h->pid, SIGKILL);
            waitpid(h->pid, NULL, 0);
            h->pid = -1;
        }
    }
}

char *hub_log(const hub_server *h)
{
    size_t n;
    char *s = read_file(h->log_path, &n);
    return s ? s : strdup("");
}

static int contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return 1;
    return 0;
}

int hub_count(const hub_server *h, const char *role, const char *needle)
{
    char *log = hub_log(h);
    int count = 0;
    size_t rl = strlen(role);
    for (char *line = strtok(log, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, role, rl) != 0 || line[rl] != ' ')
            continue;
        if (!needle || contains_nocase(line, needle))
            count++;
    }
    free(log);
    return count;
}

uint64_t hub_sent(const hub_server *h)
{
    char *log = hub_log(h);
    uint64_t total = 0;
    for (char *p = strstr(log, " sent="); p; p = strstr(p + 1, " sent="))
        total += strtoull(p + 6, NULL, 10);
    free(log);
    return total;
}

void rm_tree(const char *dir)
{
    if (!dir || strncmp(dir, G2E_TEST_TMP, strlen(G2E_TEST_TMP)) != 0)
        return;   /* only ever under the build's tmp/ */
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) {
        /* best effort */
    }
}
