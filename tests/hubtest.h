/* SPDX-License-Identifier: MIT */
/* hubtest.h — for the downloader's tests: a GPT-2-layout safetensors source file, and the
 * loopback Hub stand-in tests/hub_server.py, started and stopped by the test itself. */
#ifndef G2E_TEST_HUBTEST_H
#define G2E_TEST_HUBTEST_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "fixture.h"

/* The source files the stand-in serves, written by tests/fixture.c (every tensor filled,
 * nothing sparse, so that every byte of wte and wpe is checked):
 *   HUB_GPT2         openai-community/gpt2's layout and sizes: 160 F32 tensors, header
 *                    14,283 bytes, 548,105,171 bytes in all
 *   HUB_TINY         the same layout, 2 blocks, vocab 1000, ctx 64, embd 32, F32
 *   HUB_TINY_BF16    as HUB_TINY in BF16 with every name prefixed "transformer." */
typedef enum hub_kind { HUB_GPT2, HUB_TINY, HUB_TINY_BF16 } hub_kind;

/* What the writer put where, read back from the header with cJSON (not with the loader
 * under test): byte offsets in the file, not in the data section. */
typedef struct hub_layout {
    char *path;                       /* owned */
    fixture_opts o;                   /* how it was written: fixture_expected() values */
    uint64_t size;                    /* file size */
    uint64_t header_len;              /* N */
    uint64_t wte_off, wte_len;        /* absolute offset and length of wte's bytes */
    uint64_t wpe_off, wpe_len;
    char wte_name[64], wpe_name[64];
    uint64_t n_vocab, n_ctx, n_embd;
} hub_layout;

/* Writes the file once per build (cached under the build's tmp/); aborts the test on error. */
hub_layout hub_fixture(hub_kind kind);
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
