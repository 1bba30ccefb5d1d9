/* SPDX-License-Identifier: MIT */
/* mkfixture.c — writes a GPT-2-layout safetensors fixture from the command line, for shell
 * benchmarks, seed corpora and the downloader's local HTTP test server. A thin front end
 * to tests/fixture.c: see fixture.h for what the files contain and the values in them.
 *
 *   mkfixture OUT [--shape gpt2|tiny] [--dtype F32|F16|BF16] [--prefix] [--sparse]
 *                 [--full-layout] [--layers N] [--vocab N --ctx N --embd N]
 *                 [--meta KEY=VALUE]... [--aligned]
 *
 * --shape gpt2 is openai-community/gpt2's layout (sparse, full layout, 548,105,171 bytes in
 * F32 without prefix); --shape tiny (default) is 64 x 8 / 16 x 8 with every row written
 * (with --sparse: only the first and last row of wte and wpe). Values: fixture.h.
 */
#include "../tests/fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: mkfixture OUT [--shape gpt2|tiny] [--dtype F32|F16|BF16] [--prefix]\n"
               "                 [--sparse] [--full-layout] [--layers N] [--vocab N] [--ctx N]\n"
               "                 [--embd N] [--meta KEY=VALUE]... [--aligned]\n");
}

static int num(const char *s, uint64_t *v)
{
    char *end = NULL;
    if (!s || *s < '0' || *s > '9') return -1;
    unsigned long long x = strtoull(s, &end, 10);
    if (*end) return -1;
    *v = x;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argv[1][0] == '-') {
        usage(argc >= 2 && strcmp(argv[1], "--help") == 0 ? stdout : stderr);
        return argc >= 2 && strcmp(argv[1], "--help") == 0 ? 0 : 2;
    }
    const char *out = argv[1], *shape = "tiny";
    st_dtype dtype = ST_F32;
    int prefix = 0, sparse = -1, full = -1, aligned = 0;
    uint64_t layers = 0, vocab = 0, ctx = 0, embd = 0;
    const char *meta[66] = {0};
    char *kv[32] = {0};
    size_t nm = 0;
    int rc = 2;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--shape") == 0 && v) { shape = v; i++; }
        else if (strcmp(a, "--dtype") == 0 && v) {
            int d = st_dtype_from_name(v);
            if (d != ST_F32 && d != ST_F16 && d != ST_BF16) { fprintf(stderr, "mkfixture: bad dtype '%s'\n", v); goto out; }
            dtype = (st_dtype)d;
            i++;
        }
        else if (strcmp(a, "--prefix") == 0) prefix = 1;
        else if (strcmp(a, "--sparse") == 0) sparse = 1;
        else if (strcmp(a, "--full-layout") == 0) full = 1;
        else if (strcmp(a, "--aligned") == 0) aligned = 1;
        else if (strcmp(a, "--layers") == 0 && !num(v, &layers)) i++;
        else if (strcmp(a, "--vocab") == 0 && !num(v, &vocab)) i++;
        else if (strcmp(a, "--ctx") == 0 && !num(v, &ctx)) i++;
        else if (strcmp(a, "--embd") == 0 && !num(v, &embd)) i++;
        else if (strcmp(a, "--meta") == 0 && v && strchr(v, '=') && nm < 32) {
            kv[nm] = strdup(v);
            if (!kv[nm]) goto out;
            char *eq = strchr(kv[nm], '=');
            *eq = '\0';
            meta[2 * nm] = kv[nm];
            meta[2 * nm + 1] = eq + 1;
            nm++;
            i++;
        } else {
            fprintf(stderr, "mkfixture: bad argument '%s'\n", a);
            usage(stderr);
            goto out;
        }
    }
    fixture_opts o;
    if (strcmp(shape, "gpt2") == 0) fixture_gpt2(&o, dtype, prefix ? "transformer." : NULL);
    else if (strcmp(shape, "tiny") == 0) {
        fixture_tiny(&o);
        o.dtype = dtype;
        o.prefix = prefix ? "transformer." : NULL;
    } else {
        fprintf(stderr, "mkfixture: --shape must be gpt2 or tiny\n");
        goto out;
    }
    if (sparse >= 0) o.sparse = sparse;
    if (full >= 0) o.full_layout = full;
    if (layers) o.n_layer = (unsigned)layers;
    if (vocab) o.n_vocab = vocab;
    if (ctx) o.n_ctx = ctx;
    if (embd) o.n_embd = embd;
    if (aligned) { o.aligned = 1; o.header_len = 0; }
    /* The real file's header length only fits the real layout. */
    if (vocab || ctx || embd || layers || full == 0) o.header_len = 0;
    if (nm) { o.meta = meta; o.header_len = 0; }
    if (o.sparse && !o.wte_rows) { /* tiny made sparse: first and last rows */
        static uint64_t wr[2], pr[2];
        wr[0] = 0; wr[1] = o.n_vocab - 1; pr[0] = 0; pr[1] = o.n_ctx - 1;
        o.wte_rows = wr; o.n_wte_rows = o.n_vocab > 1 ? 2 : 1;
        o.wpe_rows = pr; o.n_wpe_rows = o.n_ctx > 1 ? 2 : 1;
    }
    char e[512];
    if (fixture_write(out, &o, e, sizeof e) != 0) {
        fprintf(stderr, "mkfixture: %s\n", e);
        rc = 1;
        goto out;
    }
    rc = 0;
out:
    for (size_t i = 0; i < nm; i++) free(kv[i]);
    return rc;
}
