/* SPDX-License-Identifier: MIT */
/* bench_sha256.c — the download's verification step alone: SHA-256 of a file the size of
 * gpt2's model.safetensors (548,105,171 bytes, sparse: the disk is not what is measured),
 * read in 1 MiB pieces as the downloader's hash_file_range does; median of 5 runs, with
 * coreutils' sha256sum on the same file as the peer in the same run. The process's CPU time
 * is printed too: on a shared machine it moves less than the wall clock. */
#include "bench_util.h"
#include "sha256.h"

#include <fcntl.h>
#include <unistd.h>

#define RUNS 5
#define SIZE 548105171LL

static int hash_file(const char *path, char hex[SHA256_HEX_LEN + 1])
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    static unsigned char buf[1 << 20];
    sha256_ctx c;
    sha256_init(&c);
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        sha256_update(&c, buf, (size_t)n);
    close(fd);
    uint8_t dg[SHA256_DIGEST_LEN];
    sha256_final(&c, dg);
    sha256_hex(dg, hex);
    return n < 0 ? -1 : 0;
}

int main(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/bench-sha256-548MB.%ld.bin", G2E_TEST_TMP, (long)getpid());
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ftruncate(fd, SIZE) != 0 || pwrite(fd, "gpt2", 4, SIZE / 2) != 4) {
        fprintf(stderr, "bench_sha256: cannot write %s\n", path);
        return 1;
    }
    close(fd);
    double t[RUNS], p[RUNS], cpu[RUNS];
    char hex[SHA256_HEX_LEN + 1], peer[SHA256_HEX_LEN + 1] = "";
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "sha256sum '%s'", path);
    for (int r = 0; r < RUNS; r++) {
        struct timespec c0, c1;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
        double t0 = bench_now_ms();
        if (hash_file(path, hex) != 0) {
            fprintf(stderr, "bench_sha256: cannot read %s\n", path);
            return 1;
        }
        t[r] = bench_now_ms() - t0;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
        cpu[r] = (double)(c1.tv_sec - c0.tv_sec) * 1e3 + (double)(c1.tv_nsec - c0.tv_nsec) / 1e6;
        t0 = bench_now_ms();
        FILE *f = popen(cmd, "r");
        if (!f || fread(peer, 1, SHA256_HEX_LEN, f) != SHA256_HEX_LEN) {
            fprintf(stderr, "bench_sha256: sha256sum failed\n");
            return 1;
        }
        pclose(f);
        p[r] = bench_now_ms() - t0;
    }
    unlink(path);
    if (strcmp(hex, peer) != 0) {
        fprintf(stderr, "bench_sha256: digest %s differs from sha256sum's %s\n", hex, peer);
        return 1;
    }
    double mt = bench_median(t, RUNS), mp = bench_median(p, RUNS), mc = bench_median(cpu, RUNS);
    printf("sha256 of 548 MB (1 MiB reads), median of %d: gpt2-embed %.0f ms = %.0f MB/s "
           "(CPU %.0f ms); sha256sum %.0f ms = %.0f MB/s\n",
           RUNS, mt, (double)SIZE / mt / 1e3, mc, mp, (double)SIZE / mp / 1e3);
    return 0;
}
