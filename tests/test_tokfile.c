/* SPDX-License-Identifier: MIT */
/* test_tokfile.c — token files (tokfile.h) called directly: the headers byte for byte
 * (numpy's and llm.c's layouts written out here), shards packed as a greedy reference
 * packs documents (edge cases: a document that fills a shard exactly, one longer than a
 * shard after others, empty documents, no tokens at all), with a minimum shard size too,
 * <|endoftext|> before, after or around no document, an earlier run's shards removed,
 * planted links never followed, and failures that leave no partial file.
 * (test_tokenize_cli.c and test_training_cli.c read the program's files with numpy.) */
#include "support.h"
#include "tokfile.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* How to write fmt: <|endoftext|> (50256 here) before each document for llmc (llm.c's),
 * around none for the others, as before --eot. */
static tokf_opts TO(int fmt, uint32_t n_vocab, uint32_t eot, uint64_t shard)
{
    return (tokf_opts){.fmt = fmt, .n_vocab = n_vocab, .eot = eot, .shard = shard,
                       .eot_at = fmt == TOKF_LLMC ? TOKF_EOT_BEFORE : TOKF_EOT_NONE};
}
static int OPEN(tokf *w, const char *path, int fmt, uint32_t n_vocab, uint32_t eot, uint64_t shard, g2e_err *e)
{
    tokf_opts o = TO(fmt, n_vocab, eot, shard);
    return tokf_open(w, path, &o, e);
}

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

/* The shard sizes of documents doc[0..n) packed greedily into shards of `shard`; with min,
 * a document that does not fit beside fewer than min tokens fills the shard and goes on in
 * the next, and a last shard shorter than min goes into the one before. */
static size_t pack(const size_t *doc, size_t n, size_t shard, size_t min, size_t *sizes)
{
    size_t m = 0, cur = 0;
    for (size_t i = 0; i < n; i++) {
        size_t d = doc[i];
        if (cur && cur + d > shard && cur >= min)
            sizes[m++] = cur, cur = 0;
        while (cur + d > shard)
            sizes[m++] = shard, d -= shard - cur, cur = 0;
        cur += d;
    }
    if (min && m && cur < min)
        sizes[m - 1] += cur;
    else if (cur || !m)
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
 * reference's, their IDs in order, no other file; none shorter than min but a lone one. */
static void shards_agree_min(const size_t *doc, size_t n, size_t shard, size_t min, const char *what)
{
    char *dir = test_tmpdir("tokfile-shards");
    char *path = path_join(dir, "s.u16");
    tokf w;
    g2e_err e;
    tokf_opts o = TO(TOKF_U16, 50257, 50256, shard);
    o.shard_min = min;
    cr_assert_eq(tokf_open(&w, path, &o, &e), 0, "%s", e.msg);
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
    size_t sizes[4096], m = pack(doc, n, shard, min, sizes);
    cr_expect_eq(w.done, m, "%s: %u shards, want %zu", what, w.done, m);
    cr_expect_eq(entries(dir), (int)m, "%s: no other file", what);
    uint32_t at = 0;
    for (size_t k = 0; k < m; k++) {
        char name[32];
        snprintf(name, sizeof name, "s_%06zu.u16", k);
        cr_expect_eq(file_size(dir, name), 2 * sizes[k], "%s: shard %zu", what, k);
        cr_expect(m == 1 || file_size(dir, name) >= 2 * min, "%s: shard %zu shorter than %zu", what, k, min);
        cr_expect(file_size(dir, name) <= 2 * (shard + (min ? min - 1 : 0)), "%s: shard %zu too long", what, k);
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

static void shards_agree(const size_t *doc, size_t n, size_t shard, const char *what)
{
    shards_agree_min(doc, n, shard, 0, what);
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
    cr_assert_eq(OPEN(&w, path, TOKF_LLMC, 50257, 50256, 0, &e), 0, "%s", e.msg);
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
    cr_assert_eq(OPEN(&w, path, TOKF_LLMC, 50257, 50256, 0, &e), 0, "%s", e.msg);
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
    cr_expect_eq(OPEN(&w, NULL, TOKF_NPY, 50257, 50256, 0, &e), TOKF_E_SEEK, "a header needs a file");
    cr_expect_eq(OPEN(&w, "-", TOKF_LLMC, 50257, 50256, 0, &e), TOKF_E_SEEK);
    cr_expect_eq(OPEN(&w, path, TOKF_U16, 70000, 0, 0, &e), TOKF_E_WIDTH, "70,000 IDs in 16 bits");
    cr_expect_eq(OPEN(&w, path, TOKF_LLMC, 70000, 0, 0, &e), TOKF_E_WIDTH);
    cr_expect_eq(OPEN(&w, "/dev/null", TOKF_NPY, 50257, 0, 0, &e), 0);
    uint32_t one = 1;
    cr_expect_eq(tokf_put(&w, &one, 1, &e), TOKF_E_SEEK, "no header to come back to on a device: %s", e.msg);
    tokf_free(&w);
    /* a large vocabulary: 4-byte IDs in the .npy */
    cr_assert_eq(OPEN(&w, path, TOKF_NPY, 100000, 0, 0, &e), 0);
    uint32_t big[] = {99999, 5};
    cr_assert(!tokf_doc(&w, &e) && !tokf_put(&w, big, 2, &e) && !tokf_finish(&w, &e), "%s", e.msg);
    cr_expect_eq(file_size(dir, "x.npy"), 128 + 8);
    tokf_free(&w);
    /* an ID outside the vocabulary (a caller's bug) in the third shard: two complete ones stay */
    char *sp = path_join(dir, "s.u32");
    cr_assert_eq(OPEN(&w, sp, TOKF_U32, 100, 0, 4, &e), 0);
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

/* --shard-min-tokens: no shard shorter than the minimum (llm.c's loader refuses a shard of
 * fewer than B*T + 1 tokens), whatever the documents: a short last shard goes into the one
 * before, and a long document after a few tokens fills their shard instead of closing it. */
Test(tokfile, no_shard_shorter_than_the_minimum)
{
    static const size_t a[] = {3, 4, 3, 10, 1, 25, 2, 0, 0, 9, 10, 11, 1};
    shards_agree_min(a, sizeof a / sizeof *a, 10, 4, "mixed, a tail of 1");
    static const size_t b[] = {10, 10, 10};
    shards_agree_min(b, 3, 10, 10, "exactly full, the minimum a whole shard");
    static const size_t c[] = {1, 100, 1};
    shards_agree_min(c, 3, 7, 3, "a long document after a short one");
    static const size_t d[] = {2};
    shards_agree_min(d, 1, 10, 5, "one shard, shorter than the minimum: nothing to fold into");
    static const size_t f[] = {9, 9, 2};
    shards_agree_min(f, 3, 10, 3, "a last document alone in its shard");
    size_t r[300];
    for (size_t i = 0; i < 300; i++)
        r[i] = (i * 7919) % 23;
    shards_agree_min(r, 300, 16, 5, "pseudo-random");
    shards_agree_min(r, 300, 16, 16, "pseudo-random, the minimum a whole shard");
    shards_agree_min(r, 300, 1, 1, "shards of one token");
}

/* The IDs of file path after its header of hs bytes (16-bit), into got (at most max). */
static size_t ids_of(const char *path, size_t hs, uint32_t *got, size_t max)
{
    size_t n;
    unsigned char *b = (unsigned char *)read_file(path, &n);
    cr_assert(b && n >= hs, "%s", path);
    size_t k = 0;
    for (size_t j = hs; j + 1 < n && k < max; j += 2)
        got[k++] = b[j] | (uint32_t)b[j + 1] << 8;
    free(b);
    return k;
}

/* Documents "Hello world", "" and "a" as llm.c's fineweb.py lays them out (<|endoftext|>
 * first in each), as nanoGPT's openwebtext prepare.py does (after each) and with none (its
 * shakespeare prepare.py's one text); an empty document is a lone <|endoftext|>, and in
 * shards the token stays with its document. */
Test(tokfile, endoftext_before_after_or_none)
{
    char *dir = test_tmpdir("tokfile-eot");
    static const uint32_t hw[] = {15496, 995}, a = 64, E = 50256;
    static const uint32_t before[] = {E, 15496, 995, E, E, 64}, after[] = {15496, 995, E, E, 64, E},
                          none[] = {15496, 995, 64};
    const struct { int at; const uint32_t *want; size_t n; } lay[] = {
        {TOKF_EOT_BEFORE, before, 6}, {TOKF_EOT_AFTER, after, 6}, {TOKF_EOT_NONE, none, 3}};
    for (int fmt = TOKF_U16; fmt <= TOKF_LLMC; fmt += TOKF_LLMC - TOKF_U16) {
        for (size_t k = 0; k < 3; k++) {
            char *path = path_join(dir, fmt == TOKF_LLMC ? "x.bin" : "x.u16");
            tokf w;
            g2e_err e;
            tokf_opts o = {.fmt = fmt, .n_vocab = 50257, .eot = E, .eot_at = lay[k].at};
            cr_assert_eq(tokf_open(&w, path, &o, &e), 0, "%s", e.msg);
            cr_assert(!tokf_doc(&w, &e) && !tokf_put(&w, hw, 2, &e) && !tokf_doc(&w, &e) && !tokf_doc(&w, &e) &&
                      !tokf_put(&w, &a, 1, &e) && !tokf_finish(&w, &e), "%s", e.msg);
            uint32_t got[16];
            size_t n = ids_of(path, fmt == TOKF_LLMC ? 1024 : 0, got, 16);
            cr_expect(n == lay[k].n && memcmp(got, lay[k].want, n * 4) == 0, "format %d, layout %d: %zu IDs", fmt,
                      lay[k].at, n);
            tokf_free(&w);
            free(path);
        }
    }
    /* after each document, in shards of 3: [hw E] [E] [a E] -- each document with its token */
    char *path = path_join(dir, "s.u16");
    tokf w;
    g2e_err e;
    tokf_opts o = {.fmt = TOKF_U16, .n_vocab = 50257, .eot = E, .eot_at = TOKF_EOT_AFTER, .shard = 3};
    cr_assert_eq(tokf_open(&w, path, &o, &e), 0, "%s", e.msg);
    cr_assert(!tokf_doc(&w, &e) && !tokf_put(&w, hw, 2, &e) && !tokf_doc(&w, &e) && !tokf_doc(&w, &e) &&
              !tokf_put(&w, &a, 1, &e) && !tokf_finish(&w, &e), "%s", e.msg);
    cr_expect_eq(w.done, 2, "%u shards", w.done);
    uint32_t got[8];
    char *s0 = path_join(dir, "s_000000.u16"), *s1 = path_join(dir, "s_000001.u16");
    cr_expect(ids_of(s0, 0, got, 8) == 3 && got[0] == 15496 && got[2] == E, "shard 0");
    cr_expect(ids_of(s1, 0, got, 8) == 3 && got[0] == E && got[1] == 64 && got[2] == E, "shard 1");
    tokf_free(&w);
    free(s0), free(s1), free(path), free(dir);
}

/* Writes 3 shards of 2 tokens to dir/s.u16, then removes an earlier run's: what
 * tokf_remove_stale returns (*st, *e). */
static int three_shards(const char *dir, tokf_stale *st, g2e_err *e)
{
    char *path = path_join(dir, "s.u16");
    tokf w;
    cr_assert_eq(OPEN(&w, path, TOKF_U16, 50257, 50256, 2, e), 0, "%s", e->msg);
    static const uint32_t ids[] = {1, 2, 3, 4, 5, 6};
    cr_assert(!tokf_doc(&w, e) && !tokf_put(&w, ids, 6, e) && !tokf_finish(&w, e), "%s", e->msg);
    cr_assert_eq(w.done, 3);
    int rc = tokf_remove_stale(&w, st, e);
    tokf_free(&w);
    free(path);
    return rc;
}

static int exists(const char *dir, const char *name)
{
    char *p = path_join(dir, name);
    struct stat st;
    int r = lstat(p, &st) == 0;
    free(p);
    return r;
}

/* A rerun with fewer shards into the same name: the earlier run's shards beyond the new
 * ones are removed (a glob of the names then finds this run's only), and nothing else is:
 * not files of other names, extensions or spellings of the number, not what a link there
 * points at. */
Test(tokfile, an_earlier_runs_shards_are_removed_and_nothing_else)
{
    char *dir = test_tmpdir("tokfile-stale");
    static const char *const old[] = {"s_000000.u16", "s_000001.u16", "s_000002.u16", "s_000003.u16",
                                      "s_000004.u16", "s_000005.u16", "s_000009.u16", "s_1000000.u16"};
    static const char *const other[] = {"s_backup.u16", "s_0000011.u16", "s_000003.npy", "t_000005.u16",
                                        "s_00005.u16", "s_000003.u16.bak", "s_000003", "s.u16"};
    for (size_t k = 0; k < sizeof old / sizeof *old; k++) {
        char *p = path_join(dir, old[k]);
        write_file(p, "old!", 4);
        free(p);
    }
    for (size_t k = 0; k < sizeof other / sizeof *other; k++) {
        char *p = path_join(dir, other[k]);
        write_file(p, "mine", 4);
        free(p);
    }
    char *precious = path_join(dir, "precious.txt"), *link = path_join(dir, "s_000007.u16");
    write_file(precious, "keep", 4);
    cr_assert(symlink("precious.txt", link) == 0);
    tokf_stale st;
    g2e_err e;
    cr_assert_eq(three_shards(dir, &st, &e), 0, "%s", e.msg);
    cr_expect(st.n == 6 && st.lo == 3 && st.hi == 1000000, "%u removed, %u..%u", st.n, st.lo, st.hi);
    for (size_t k = 0; k < sizeof old / sizeof *old; k++)
        cr_expect_eq(exists(dir, old[k]), k < 3, "%s", old[k]);
    cr_expect(!exists(dir, "s_000007.u16"), "the link is gone");
    for (size_t k = 0; k < sizeof other / sizeof *other; k++)
        cr_expect(exists(dir, other[k]), "%s was removed", other[k]);
    size_t n;
    char *b = read_file(precious, &n);
    cr_expect(b && n == 4 && !memcmp(b, "keep", 4), "what the link pointed at is untouched");
    free(b);
    /* a directory where a shard number is: left, and the run says so */
    char *d = path_join(dir, "s_000004.u16");
    cr_assert(mkdir(d, 0755) == 0);
    cr_expect_eq(three_shards(dir, &st, &e), TOKF_E_STALE);
    cr_expect(strstr(e.msg, "s_000004.u16") && strstr(e.msg, "earlier run"), "%s", e.msg);
    /* unsharded: nothing to do */
    char *path = path_join(dir, "s.u16");
    tokf w;
    cr_assert_eq(OPEN(&w, path, TOKF_U16, 50257, 50256, 0, &e), 0, "%s", e.msg);
    cr_assert(!tokf_finish(&w, &e));
    cr_expect(tokf_remove_stale(&w, &st, &e) == 0 && st.n == 0);
    cr_expect(exists(dir, "s_000000.u16") && exists(dir, "s_000001.u16"));
    tokf_free(&w);
    free(d), free(path), free(link), free(precious), free(dir);
}

/* A symbolic link or a FIFO planted where a shard will go is replaced by the shard, never
 * followed nor opened: the file a link points at keeps its bytes, and no FIFO blocks the
 * run. (A name the user typed keeps outfile.h's rules: test_outfile.c.) */
Test(tokfile, a_link_or_fifo_at_a_shard_name_is_replaced_not_followed, .timeout = 30)
{
    char *dir = test_tmpdir("tokfile-planted");
    char *precious = path_join(dir, "precious.txt"), *l0 = path_join(dir, "s_000000.u16"),
         *f1 = path_join(dir, "s_000001.u16"), *l2 = path_join(dir, "s_000002.u16");
    write_file(precious, "keep", 4);
    cr_assert(symlink("precious.txt", l0) == 0);
    cr_assert(mkfifo(f1, 0644) == 0);
    cr_assert(symlink(dir, l2) == 0); /* a link to a directory */
    tokf_stale st;
    g2e_err e;
    cr_assert_eq(three_shards(dir, &st, &e), 0, "%s", e.msg);
    size_t n;
    char *b = read_file(precious, &n);
    cr_expect(b && n == 4 && !memcmp(b, "keep", 4), "the link was followed");
    free(b);
    const char *const names[] = {l0, f1, l2};
    for (int k = 0; k < 3; k++) {
        struct stat sb;
        cr_expect(lstat(names[k], &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size == 4, "%s is not the shard",
                  names[k]);
    }
    free(precious), free(l0), free(f1), free(l2), free(dir);
}
