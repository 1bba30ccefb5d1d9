/* cmd_similarity.c — `gpt2-embed similarity`: how GPT-2's learned vectors relate.
 *
 *   --pos A B          cos(wpe[A], wpe[B])
 *   --tokens A B       cos(wte[A], wte[B]) for two texts that are one token each
 *   --at TEXT P1 P2    cos(wte[t] + wpe[P1], wte[t] + wpe[P2]): one token at two positions
 *   --matrix           the n_ctx x n_ctx cosine matrix of wpe (to -o FILE as npy float32 or
 *                      csv) and a summary on stdout: mean and spread by distance, and the
 *                      nearest and farthest position of a few positions
 *   --by-distance      mean (and spread) of cos(wpe[p], wpe[p + d]) over p, for every d
 * Everything is accumulated in double (similarity.h).
 */
#include "cli.h"
#include "load.h"
#include "npy.h"
#include "out.h"
#include "similarity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void help(void)
{
    printf("usage: gpt2-embed similarity --pos A B | --tokens TEXT_A TEXT_B | --at TEXT P1 P2\n"
           "       gpt2-embed similarity --matrix [-o FILE.npy|FILE.csv] [--format npy|csv]\n"
           "       gpt2-embed similarity --by-distance [--max-distance D] [--format table|csv|json] [-o FILE]\n"
           "       common: [--format text|json for pairs] [--weights FILE] [--model NAME] [--tokenizer DIR]\n\n"
           "Cosine similarity (accumulated in double) of GPT-2's learned vectors:\n"
           "  --pos A B        two position vectors wpe[A], wpe[B]\n"
           "  --tokens A B     two token vectors wte[a], wte[b]; each text must be one token\n"
           "  --at TEXT P1 P2  the same token at two positions: wte[t] + wpe[P1] vs wte[t] + wpe[P2]\n"
           "  --matrix         all n_ctx x n_ctx cosines of wpe; -o FILE saves the matrix (npy float32,\n"
           "                   or csv with 9 significant digits); stdout gets a summary: mean and\n"
           "                   spread at each distance, nearest and farthest position of a few positions\n"
           "  --by-distance    for each distance d, the mean and standard deviation over p of\n"
           "                   cos(wpe[p], wpe[p + d]): the learned counterpart of the sinusoidal\n"
           "                   curve (see gpt2-embed sinusoidal --by-distance)\n");
}

enum mode { M_NONE, M_POS, M_TOKENS, M_AT, M_MATRIX, M_DIST };

/* The cosine matrix of wpe; prints errors. *out (R x R) is the caller's to free. */
static int wpe_matrix(const g2e_model *m, double **out)
{
    float *w = NULL;
    g2e_err e;
    size_t R = m->n_ctx;
    double *M = malloc(R * R * sizeof *M);
    if (!M) {
        cli_error("out of memory for a %zu x %zu matrix", R, R);
        return -1;
    }
    if (sim_load_wpe(m, &w, &e) || sim_cosine_matrix(w, R, m->n_embd, M, &e)) {
        cli_error("wpe: %s", e.msg);
        free(w);
        free(M);
        return -1;
    }
    free(w);
    *out = M;
    return 0;
}

static int write_matrix(const double *M, size_t R, const char *path, const char *fmt)
{
    int csv = fmt ? strcmp(fmt, "csv") == 0 : (strlen(path) > 4 && strcmp(path + strlen(path) - 4, ".csv") == 0);
    if (fmt && !csv && strcmp(fmt, "npy") != 0) {
        cli_error("--format for --matrix must be npy or csv, got '%s'", fmt);
        return -1;
    }
    out_file o;
    if (out_open(&o, path, !csv))
        return -1;
    g2e_err e;
    if (csv) {
        for (size_t i = 0; i < R; i++)
            for (size_t j = 0; j < R; j++)
                fprintf(o.f, "%.9g%c", M[i * R + j], j + 1 < R ? ',' : '\n');
    } else {
        npy_writer w;
        size_t shape[2] = {R, R};
        if (npy_writer_begin(&w, o.f, shape, 2, &e)) {
            cli_error("%s", e.msg);
            out_abort(&o);
            return -1;
        }
        float row[4096];
        for (size_t i = 0; i < R; i++)
            for (size_t j0 = 0; j0 < R; j0 += 4096) {
                size_t n = R - j0 < 4096 ? R - j0 : 4096;
                for (size_t j = 0; j < n; j++)
                    row[j] = (float)M[i * R + j0 + j];
                if (npy_writer_put(&w, row, n, &e)) {
                    cli_error("%s", e.msg);
                    out_abort(&o);
                    return -1;
                }
            }
        if (npy_writer_end(&w, &e)) {
            cli_error("%s", e.msg);
            out_abort(&o);
            return -1;
        }
    }
    return out_commit(&o);
}

static void matrix_summary(const double *M, size_t R, const char *path, const char *saved)
{
    double *mean = malloc(R * sizeof *mean), *sd = malloc(R * sizeof *sd);
    if (!mean || !sd) {
        free(mean);
        free(sd);
        return;
    }
    sim_by_distance(M, R, mean, sd);
    printf("cosine similarity of the %zu learned positions of %s%s%s\n\n", R, path,
           saved ? "; matrix written to " : "", saved ? saved : "");
    printf("%9s %10s %10s %8s\n", "distance", "mean", "std", "pairs");
    for (size_t d = 1; d < R; d = d * 2) {
        printf("%9zu %10.4f %10.4f %8zu\n", d, mean[d], sd[d], R - d);
        if (d * 2 >= R && d != R - 1)
            printf("%9zu %10.4f %10.4f %8zu\n", R - 1, mean[R - 1], sd[R - 1], (size_t)1);
    }
    printf("\n%9s %18s %18s\n", "position", "nearest (cos)", "farthest (cos)");
    size_t picks[] = {0, 1, 2, 10, 100, 500, R - 1};
    for (size_t k = 0; k < sizeof picks / sizeof picks[0]; k++) {
        size_t p = picks[k];
        if (p >= R || (k > 0 && p <= picks[k - 1]))
            continue;
        size_t near = p, far = p;
        double best = -2, worst = 2;
        for (size_t q = 0; q < R; q++) {
            if (q == p) continue;
            double c = M[p * R + q];
            if (c > best) { best = c; near = q; }
            if (c < worst) { worst = c; far = q; }
        }
        if (R > 1)
            printf("%9zu %9zu (%6.3f) %9zu (%6.3f)\n", p, near, best, far, worst);
    }
    free(mean);
    free(sd);
}

static int by_distance(const g2e_model *m, uint64_t maxd, const char *fmt, const char *outpath,
                       const char *path)
{
    double *M = NULL;
    size_t R = m->n_ctx;
    if (maxd >= R)
        maxd = R - 1;
    int f = cli_format(fmt, (const char *const[]){"table", "csv", "json", NULL});
    if (f < 0)
        return -1;
    int csv = f == 1, json = f == 2;
    if (wpe_matrix(m, &M))
        return -1;
    double *mean = malloc(R * sizeof *mean), *sd = malloc(R * sizeof *sd);
    out_file o;
    int rc = -1;
    if (!mean || !sd) {
        cli_error("out of memory");
        goto done;
    }
    sim_by_distance(M, R, mean, sd);
    if (out_open(&o, outpath, 0))
        goto done;
    if (json) {
        fprintf(o.f, "{\"weights\": ");
        out_json_string(o.f, path, strlen(path));
        fprintf(o.f, ", \"n_ctx\": %zu, \"by_distance\": [", R);
    } else if (csv) {
        fprintf(o.f, "distance,mean_cos,std_cos,pairs\n");
    } else {
        fprintf(o.f, "mean cosine similarity of wpe[p] and wpe[p + d] over p (%s)\n%9s %12s %12s %6s\n",
                path, "distance", "mean", "std", "pairs");
    }
    for (size_t d = 0; d <= maxd; d++) {
        if (json) {
            fprintf(o.f, "%s{\"distance\": %zu, \"mean\": ", d ? ", " : "", d);
            out_json_f64(o.f, mean[d]);
            fprintf(o.f, ", \"std\": ");
            out_json_f64(o.f, sd[d]);
            fprintf(o.f, ", \"pairs\": %zu}", R - d);
        } else if (csv) {
            fprintf(o.f, "%zu,%.17g,%.17g,%zu\n", d, mean[d], sd[d], R - d);
        } else {
            fprintf(o.f, "%9zu %12.6f %12.6f %6zu\n", d, mean[d], sd[d], R - d);
        }
    }
    if (json)
        fprintf(o.f, "]}\n");
    rc = out_commit(&o);
done:
    free(mean);
    free(sd);
    free(M);
    return rc;
}

/* Reads a vector: wpe[pos], or wte[id] (+ wpe[pos] when pos >= 0). Prints errors. */
static int vec(const g2e_model *m, long long id, long long pos, float *out, float *tmp)
{
    g2e_err e;
    if (pos >= 0 && (uint64_t)pos >= m->n_ctx) {
        cli_error("position %lld is outside wpe, which has %zu rows (0..%zu)", pos, m->n_ctx, m->n_ctx - 1);
        return -1;
    }
    if (id >= 0 && (uint64_t)id >= m->n_vocab) {
        cli_error("token ID %lld is outside wte, which has %zu rows", id, m->n_vocab);
        return -1;
    }
    if (id < 0)
        return model_wpe_row(m, (uint64_t)pos, out, &e) ? (cli_error("%s", e.msg), -1) : 0;
    if (model_wte_row(m, (uint64_t)id, out, &e)) {
        cli_error("%s", e.msg);
        return -1;
    }
    if (pos >= 0) {
        if (model_wpe_row(m, (uint64_t)pos, tmp, &e)) {
            cli_error("%s", e.msg);
            return -1;
        }
        for (size_t c = 0; c < m->n_embd; c++)
            out[c] = out[c] + tmp[c];
    }
    return 0;
}

int cmd_similarity(int argc, char **argv)
{
    load_opts lo = {0};
    const char *fmt = NULL, *outpath = NULL, *v;
    const char *args[3] = {NULL, NULL, NULL};
    uint64_t maxd = UINT64_MAX;
    enum mode mode = M_NONE;
    int nargs = 0, need = 0, r;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        enum mode nm = M_NONE;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            help();
            return EXIT_OK;
        }
        if ((r = load_opt(argc, argv, &i, &lo)) || (r = cli_opt(argc, argv, &i, "--format", &fmt)) ||
            (r = cli_opt(argc, argv, &i, "-o", &outpath))) {
            if (r < 0) return EXIT_USAGE;
            continue;
        } else if ((r = cli_opt(argc, argv, &i, "--max-distance", &v))) {
            if (r < 0 || cli_parse_u64(v, 0, UINT32_MAX, "--max-distance", &maxd)) return EXIT_USAGE;
            continue;
        }
        if (strcmp(a, "--pos") == 0) { nm = M_POS; need = 2; }
        else if (strcmp(a, "--tokens") == 0) { nm = M_TOKENS; need = 2; }
        else if (strcmp(a, "--at") == 0) { nm = M_AT; need = 3; }
        else if (strcmp(a, "--matrix") == 0) { nm = M_MATRIX; need = 0; }
        else if (strcmp(a, "--by-distance") == 0) { nm = M_DIST; need = 0; }
        if (nm != M_NONE) {
            if (mode != M_NONE) {
                cli_error("choose one of --pos, --tokens, --at, --matrix, --by-distance");
                return EXIT_USAGE;
            }
            mode = nm;
            for (nargs = 0; nargs < need; nargs++) {
                if (i + 1 >= argc) {
                    cli_error("%s needs %d values (see gpt2-embed similarity --help)", a, need);
                    return EXIT_USAGE;
                }
                args[nargs] = argv[++i];
            }
            continue;
        }
        cli_error("similarity: unexpected argument '%s' (see gpt2-embed similarity --help)", a);
        return EXIT_USAGE;
    }
    if (mode == M_NONE) {
        cli_error("similarity needs one of --pos A B, --tokens A B, --at TEXT P1 P2, --matrix, --by-distance");
        return EXIT_USAGE;
    }
    uint64_t p1 = 0, p2 = 0;
    if (mode == M_POS && (cli_parse_u64(args[0], 0, UINT32_MAX, "position", &p1) ||
                          cli_parse_u64(args[1], 0, UINT32_MAX, "position", &p2)))
        return EXIT_USAGE;
    if (mode == M_AT && (cli_parse_u64(args[1], 0, UINT32_MAX, "position", &p1) ||
                         cli_parse_u64(args[2], 0, UINT32_MAX, "position", &p2)))
        return EXIT_USAGE;
    if ((mode == M_POS || mode == M_TOKENS || mode == M_AT) && outpath) {
        cli_error("-o goes with --matrix or --by-distance");
        return EXIT_USAGE;
    }
    if (mode == M_MATRIX && !outpath && fmt) {
        cli_error("--matrix writes the matrix only to a file: add -o FILE");
        return EXIT_USAGE;
    }

    g2e_model *m = NULL;
    tok_tokenizer *tok = NULL;
    char *path = NULL;
    float *a = NULL, *b = NULL, *tmp = NULL;
    double *M = NULL;
    int rc = EXIT_ERR;
    if (load_model(lo.weights, lo.model, &m, &path))
        goto done;
    if (mode == M_MATRIX) {
        if (wpe_matrix(m, &M) || (outpath && write_matrix(M, m->n_ctx, outpath, fmt)))
            goto done;
        matrix_summary(M, m->n_ctx, path, outpath);
        rc = cli_flush_stdout() == 0 ? EXIT_OK : EXIT_ERR;
        goto done;
    }
    if (mode == M_DIST) {
        rc = by_distance(m, maxd, fmt ? fmt : "table", outpath, path) ? EXIT_ERR : EXIT_OK;
        goto done;
    }
    int f = cli_format(fmt ? fmt : "text", (const char *const[]){"text", "json", "table", NULL});
    if (f < 0) {
        rc = EXIT_USAGE;
        goto done;
    }
    int json = f == 1;
    size_t C = m->n_embd;
    a = calloc(C, sizeof *a);
    b = calloc(C, sizeof *b);
    tmp = calloc(C, sizeof *tmp);
    if (!a || !b || !tmp) {
        cli_error("out of memory");
        goto done;
    }
    uint32_t ta = 0, tb = 0;
    char what[512];
    if (mode == M_POS) {
        if (vec(m, -1, (long long)p1, a, tmp) || vec(m, -1, (long long)p2, b, tmp))
            goto done;
        snprintf(what, sizeof what, "cos(wpe[%llu], wpe[%llu])", (unsigned long long)p1, (unsigned long long)p2);
    } else {
        if (load_tokenizer(lo.tokenizer, &tok) || load_single_token(tok, args[0], &ta))
            goto done;
        if (mode == M_TOKENS) {
            if (load_single_token(tok, args[1], &tb) || vec(m, ta, -1, a, tmp) || vec(m, tb, -1, b, tmp))
                goto done;
            snprintf(what, sizeof what, "cos(wte[%u], wte[%u])", ta, tb);
        } else {
            if (vec(m, ta, (long long)p1, a, tmp) || vec(m, ta, (long long)p2, b, tmp))
                goto done;
            snprintf(what, sizeof what, "cos(wte[%u] + wpe[%llu], wte[%u] + wpe[%llu])", ta,
                     (unsigned long long)p1, ta, (unsigned long long)p2);
        }
    }
    double c;
    g2e_err e;
    if (sim_cosine(a, b, C, &c, &e)) {
        cli_error("%s: %s", what, e.msg);
        goto done;
    }
    if (json) {
        printf("{\"what\": ");
        out_json_string(stdout, what, strlen(what));
        printf(", \"cos\": ");
        out_json_f64(stdout, c);
        printf("}\n");
    } else {
        printf("%s = %.6f\n", what, c);
    }
    rc = cli_flush_stdout() == 0 ? EXIT_OK : EXIT_ERR;
done:
    free(a);
    free(b);
    free(tmp);
    free(M);
    free(path);
    tok_close(tok);
    model_close(m);
    return rc;
}
