/* SPDX-License-Identifier: MIT */
/* hubtest.c — see hubtest.h. */
#include "hubtest.h"

#include <cjson/cJSON.h>
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

static const char *const META[] = {"format", "pt", NULL};

/* Absolute offset and length of tensor name in the file at path, by cJSON. */
static void locate_tensor(const char *path, const char *name, uint64_t *off, uint64_t *len,
                          uint64_t *header_len)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f, "open %s", path);
    uint8_t b8[8];
    cr_assert(fread(b8, 1, 8, f) == 8);
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--)
        n = n << 8 | b8[i];
    cr_assert(n < 1000000);
    char *h = malloc(n + 1);
    cr_assert(h && fread(h, 1, n, f) == n);
    fclose(f);
    h[n] = '\0';
    cJSON *j = cJSON_Parse(h);
    cr_assert(j, "fixture header is not JSON");
    cJSON *o = cJSON_GetObjectItemCaseSensitive(j, name);
    cr_assert(o, "fixture has no %s", name);
    cJSON *d = cJSON_GetObjectItemCaseSensitive(o, "data_offsets");
    cr_assert(cJSON_GetArraySize(d) == 2);
    uint64_t b = (uint64_t)cJSON_GetArrayItem(d, 0)->valuedouble;
    uint64_t e = (uint64_t)cJSON_GetArrayItem(d, 1)->valuedouble;
    *off = 8 + n + b;
    *len = e - b;
    *header_len = n;
    cJSON_Delete(j);
    free(h);
}

hub_layout hub_fixture(hub_kind kind)
{
    hub_layout out;
    memset(&out, 0, sizeof out);
    fixture_opts *o = &out.o;
    if (kind == HUB_GPT2) {
        fixture_gpt2(o, ST_F32, NULL);   /* the real file's header length and size */
        o->sparse = 0;                   /* but every row written */
        o->wte_rows = o->wpe_rows = NULL;
        o->n_wte_rows = o->n_wpe_rows = 0;
    } else {
        fixture_tiny(o);
        o->n_vocab = 1000;
        o->n_ctx = 64;
        o->n_embd = 32;
        o->full_layout = 1;
        o->n_layer = 2;
        o->meta = META;
        if (kind == HUB_TINY_BF16) {
            o->dtype = ST_BF16;
            o->prefix = "transformer.";
        }
    }
    static const char *const NAMES[] = {"gpt2", "tiny", "tiny-bf16"};
    const char *pre = o->prefix ? o->prefix : "";
    snprintf(out.wte_name, sizeof out.wte_name, "%swte.weight", pre);
    snprintf(out.wpe_name, sizeof out.wpe_name, "%swpe.weight", pre);
    out.n_vocab = o->n_vocab;
    out.n_ctx = o->n_ctx;
    out.n_embd = o->n_embd;

    mkdir(G2E_TEST_TMP, 0755);
    char name[128];
    snprintf(name, sizeof name, "hub-%s-v2.safetensors", NAMES[kind]);
    out.path = path_join(G2E_TEST_TMP, name);
    struct stat sb;
    if (stat(out.path, &sb) != 0) {
        char e[256];
        cr_assert(fixture_write(out.path, o, e, sizeof e) == 0, "fixture: %s", e);
        cr_assert(stat(out.path, &sb) == 0);
    }
    out.size = (uint64_t)sb.st_size;
    uint64_t h1, h2;
    locate_tensor(out.path, out.wte_name, &out.wte_off, &out.wte_len, &h1);
    locate_tensor(out.path, out.wpe_name, &out.wpe_off, &out.wpe_len, &h2);
    out.header_len = h1;
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
