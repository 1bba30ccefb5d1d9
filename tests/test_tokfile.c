/* SPDX-License-Identifier: MIT */
/* test_tokfile.c — token files (tokfile.h) called directly: the headers byte for byte
 * (numpy's and llm.c's layouts written out here), shards packed as a greedy reference
 * packs documents (edge cases: a document that fills a shard exactly, one longer than a
 * shard after others, empty documents, no tokens at all), and failures that leave no
 * partial file. (test_tokenize_cli.c reads the program's files with numpy itself.) */
#include "support.h"
#include "tokfile.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

Test(tokfile, npy_header_is_numpys_layout)
{
    unsigned char h[TOKF_NPY_HEADER];
    tokf_npy_header(h, 2, 12345);
    cr_expect(memcmp(h, "\x93NUMPY\x01\x00", 8) == 0);
    cr_expect_eq(h[8] | h[9] << 8, 118, "the dict's length: 128 - 10");
    const char dict[] = "{'descr': '<u2', 'fortran_order': False, 'shape': (12345,), }";
    cr_expect(memcmp(h + 10, dict, sizeof dict - 1) == 0);
    for (size_t i = 10 + sizeof dict - 1; i < 127; i++)
        cr_expect_eq(h[i], ' ', "padded with spaces");
    cr_expect_eq(h[127], '\n');
    tokf_npy_header(h, 4, 18446744073709551615ull); /* the longest count fits */
    cr_expect(memcmp(h + 10, "{'descr': '<u4'", 15) == 0 && h[127] == '\n');
}

Test(tokfile, llmc_header_is_llmcs_layout)
{
    unsigned char h[TOKF_LLMC_HEADER];
    tokf_llmc_header(h, 0x01020304);
    cr_expect(memcmp(h, "\x88\xD8\x34\x01", 4) == 0, "20240520 little-endian");
    cr_expect(memcmp(h + 4, "\x01\x00\x00\x00", 4) == 0, "version 1");
    cr_expect(memcmp(h + 8, "\x04\x03\x02\x01", 4) == 0, "the count");
    for (size_t i = 12; i < TOKF_LLMC_HEADER; i++)
        cr_expect_eq(h[i], 0);
}

/* The shard sizes of documents doc[0..n) packed greedily into shards of `shard`. */
static size_t pack(const size_t *doc, size_t n, size_t shard, size_t *sizes)
{
    size_t m = 0, cur = 0;
    for (size_t i = 0; i < n; i++) {
        size_t d = doc[i];
        if (cur && cur + d > shard)
            sizes[m++] = cur, cur = 0;
        while (cur + d > shard)
            sizes[m++] = shard, d -= shard - cur, cur = 0;
        cur += d;
    }
    if (cur || !m)
        sizes[m++] = cur;
    return m;
}

static size_t file_size(const char *dir, const char *name)
{
    char *p = path_join(dir, name);
    struct stat st;
    size_t n = stat(p, &st) == 0 ? (size_t)st.st_size : (size_t)-1;
    free(p);
    return n;
}

static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.' || (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."));
    closedir(d);
    return n;
}

/* Documents of the given lengths put a few IDs at a time: the shards' sizes are the
 * reference's, their IDs in order, no other file. */
static void shards_agree(const size_t *doc, size_t n, size_t shard, const char *what)
{
    char *dir = test_tmpdir("tokfile-shards");
    char *path = path_join(dir, "s.u16");
    tokf w;
    g2e_err e;
    cr_assert_eq(tokf_open(&w, path, TOKF_U16, 50257, 50256, shard, &e), 0, "%s", e.msg);
    uint32_t next = 0, ids[7];
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(tokf_doc(&w, &e), 0, "%s", e.msg);
        for (size_t left = doc[i]; left;) {
            size_t k = left < 7 ? left : 1 + left % 7;
            for (size_t j = 0; j < k; j++)
                ids[j] = next++ % 50257;
            cr_assert_eq(tokf_put(&w, ids, k, &e), 0, "%s", e.msg);
            left -= k;
        }
    }
    cr_assert_eq(tokf_finish(&w, &e), 0, "%s", e.msg);
    size_t sizes[4096], m = pack(doc, n, shard, sizes);
    cr_expect_eq(w.done, m, "%s: %u shards, want %zu", what, w.done, m);
    cr_expect_eq(entries(dir), (int)m, "%s: no other file", what);
    uint32_t at = 0;
    for (size_t k = 0; k < m; k++) {
        char name[32];
        snprintf(name, sizeof name, "s_%06zu.u16", k);
        cr_expect_eq(file_size(dir, name), 2 * sizes[k], "%s: shard %zu", what, k);
        char *p = path_join(dir, name);
        size_t len;
        unsigned char *b = (unsigned char *)read_file(p, &len);
        for (size_t j = 0; b && j + 1 < len; j += 2, at++)
            cr_assert_eq(b[j] | b[j + 1] << 8, at % 50257, "%s: shard %zu, ID %zu out of order", what, k, j / 2);
        free(b), free(p);
    }
    tokf_free(&w);
    free(path), free(dir);
}

Test(tokfile, shards_pack_documents_whole_unless_longer)
{
    static const size_t a[] = {3, 4, 3, 10, 1, 25, 2, 0, 0, 9, 10, 11, 1};
    shards_agree(a, sizeof a / sizeof *a, 10, "mixed");
    static const size_t b[] = {10, 10, 10};
    shards_agree(b, 3, 10, "exactly full");
    static const size_t c[] = {0, 0, 0};
    shards_agree(c, 3, 10, "no tokens: one empty shard");
    static const size_t d[] = {1, 100, 1};
    shards_agree(d, 3, 7, "a long document after a short one");
    size_t r[300];
    for (size_t i = 0; i < 300; i++)
        r[i] = (i * 7919) % 23;
    shards_agree(r, 300, 16, "pseudo-random");
    shards_agree(r, 300, 1, "shards of one token");
}

Test(tokfile, llmc_puts_endoftext_before_each_document)
{
    char *dir = test_tmpdir("tokfile-llmc");
    char *path = path_join(dir, "a.bin");
    tokf w;
    g2e_err e;
    cr_assert_eq(tokf_open(&w, path, TOKF_LLMC, 50257, 50256, 0, &e), 0, "%s", e.msg);
    uint32_t ids[] = {15496, 995};
    cr_assert(!tokf_doc(&w, &e) && !tokf_put(&w, ids, 2, &e) && !tokf_doc(&w, &e) && !tokf_finish(&w, &e));
    size_t n;
    unsigned char *b = (unsigned char *)read_file(path, &n);
    cr_assert_eq(n, 1024 + 2 * 4);
    cr_expect_eq(b[8], 4, "four tokens");
    static const unsigned char want[] = {0x50, 0xC4, 0x88, 0x3C, 0xE3, 0x03, 0x50, 0xC4};
    cr_expect(memcmp(b + 1024, want, 8) == 0, "EOT Hello world EOT (an empty document)");
    free(b);
    tokf_free(&w);
    /* the same through tokf_ids (the engine's callback): a start before the first ID, one at the end */
    cr_assert_eq(tokf_open(&w, path, TOKF_LLMC, 50257, 50256, 0, &e), 0, "%s", e.msg);
    size_t starts[] = {0, 2};
    cr_assert_eq(tokf_ids(&w, ids, 2, starts, 2), 0, "%s", w.err.msg);
    cr_assert_eq(tokf_finish(&w, &e), 0);
    b = (unsigned char *)read_file(path, &n);
    cr_expect(n == 1024 + 8 && memcmp(b + 1024, want, 8) == 0, "one <|endoftext|> per document: %zu bytes", n);
    free(b);
    tokf_free(&w);
    free(path), free(dir);
}

Test(tokfile, refusals_and_failures_leave_no_file)
{
    char *dir = test_tmpdir("tokfile-fail");
    char *path = path_join(dir, "x.npy");
    tokf w;
    g2e_err e;
    cr_expect_eq(tokf_open(&w, NULL, TOKF_NPY, 50257, 50256, 0, &e), TOKF_E_SEEK, "a header needs a file");
    cr_expect_eq(tokf_open(&w, "-", TOKF_LLMC, 50257, 50256, 0, &e), TOKF_E_SEEK);
    cr_expect_eq(tokf_open(&w, path, TOKF_U16, 70000, 0, 0, &e), TOKF_E_WIDTH, "70,000 IDs in 16 bits");
    cr_expect_eq(tokf_open(&w, path, TOKF_LLMC, 70000, 0, 0, &e), TOKF_E_WIDTH);
    cr_expect_eq(tokf_open(&w, "/dev/null", TOKF_NPY, 50257, 0, 0, &e), 0);
    uint32_t one = 1;
    cr_expect_eq(tokf_put(&w, &one, 1, &e), TOKF_E_SEEK, "no header to come back to on a device: %s", e.msg);
    tokf_free(&w);
    /* a large vocabulary: 4-byte IDs in the .npy */
    cr_assert_eq(tokf_open(&w, path, TOKF_NPY, 100000, 0, 0, &e), 0);
    uint32_t big[] = {99999, 5};
    cr_assert(!tokf_doc(&w, &e) && !tokf_put(&w, big, 2, &e) && !tokf_finish(&w, &e), "%s", e.msg);
    cr_expect_eq(file_size(dir, "x.npy"), 128 + 8);
    tokf_free(&w);
    /* an ID outside the vocabulary (a caller's bug) in the third shard: two complete ones stay */
    char *sp = path_join(dir, "s.u32");
    cr_assert_eq(tokf_open(&w, sp, TOKF_U32, 100, 0, 4, &e), 0);
    uint32_t ids[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 100};
    cr_assert_eq(tokf_doc(&w, &e), 0);
    cr_expect_eq(tokf_put(&w, ids, 10, &e), TOKF_E_ID);
    tokf_abort(&w);
    cr_expect_eq(w.done, 2);
    cr_expect(w.last && strstr(w.last, "s_000001.u32"), "%s", w.last);
    cr_expect_eq(file_size(dir, "s_000000.u32"), 16);
    cr_expect_eq(file_size(dir, "s_000002.u32"), (size_t)-1, "no partial shard");
    tokf_free(&w);
    DIR *d = opendir(dir);
    for (struct dirent *x; (x = readdir(d));)
        cr_expect(x->d_name[0] != '.' || !strcmp(x->d_name, ".") || !strcmp(x->d_name, ".."), "a temporary left: %s",
                  x->d_name);
    closedir(d);
    free(sp), free(path), free(dir);
}
