/* hubtest.h — for the downloader's tests: a GPT-2-layout safetensors source file, and the
 * loopback Hub stand-in tests/hub_server.py, started and stopped by the test itself. */
#ifndef G2E_TEST_HUBTEST_H
#define G2E_TEST_HUBTEST_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What the writer put where: byte offsets in the file (not the data section). */
typedef struct hub_layout {
    char *path;                       /* owned */
    uint64_t size;                    /* file size */
    uint64_t header_len;              /* N */
    uint64_t wte_off, wte_len;        /* absolute offset and length of wte's bytes */
    uint64_t wpe_off, wpe_len;
    char wte_name[64], wpe_name[64];
    uint64_t n_vocab, n_ctx, n_embd;
} hub_layout;

/* A GPT-2-layout file (every tensor of the real model, names sorted as the Hub's file is,
 * F32 only): wte and wpe filled with a seeded pattern, the other tensors left as holes.
 * full_shape: gpt2's real shapes (548 MB, sparse); else 12 layers of a tiny model
 * (vocab 1000, ctx 64, embd 32). prefix: "transformer." before every name. Cached under
 * the build's tmp/ (rebuilt when missing). Aborts the test on failure. */
hub_layout hub_fixture(int full_shape, int prefix);
void hub_layout_free(hub_layout *l);

typedef struct hub_server {
    pid_t pid;
    int in_fd;           /* its stdin: closing it stops the server */
    int hub_port, cdn_port;
    char endpoint[64];   /* "http://127.0.0.1:<hub_port>" */
    char *log_path;      /* owned */
} hub_server;

/* Starts tests/hub_server.py serving file, with extra arguments (NULL-terminated list,
 * may be NULL), logging to dir/hub.log. Waits at most 20 s for its ports. */
void hub_start(hub_server *h, const char *file, const char *dir, const char *const *args);
/* Stops it (SIGTERM, then SIGKILL) and reaps it; safe to call twice. */
void hub_stop(hub_server *h);
/* The request log so far (caller frees). */
char *hub_log(const hub_server *h);
/* Number of log lines starting with role ("hub" / "cdn"), and of those containing needle
 * (case-insensitive; NULL: all). */
int hub_count(const hub_server *h, const char *role, const char *needle);
/* Sum of "sent=" over all log lines. */
uint64_t hub_sent(const hub_server *h);

/* Removes a directory tree (best effort). */
void rm_tree(const char *dir);

#endif
