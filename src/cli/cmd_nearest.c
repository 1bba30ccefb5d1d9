/* cmd_nearest.c — `gpt2-embed nearest`: the k vocabulary tokens whose token embedding (wte
 * row) is nearest by cosine to a query: a token (itself left out), a token at a position
 * (the summed vector wte[id] + wpe[P]; the token itself is not left out), or a vector read
 * from an .npy file (n_embd values, float32 or float64; float64 is rounded to float32).
 * Streams all of wte once.
 */
#include "cli.h"
#include "load.h"
#include "npy.h"
#include "out.h"
#include "similarity.h"

#include <stdlib.h>
#include <string.h>

static void help(void)
{
    printf("usage: gpt2-embed nearest TOKEN [--pos P] [-k K] [--format table|json]\n"
           "       gpt2-embed nearest --id N [--pos P] [-k K] [...]\n"
           "       gpt2-embed nearest --vector FILE.npy [-k K] [...]\n"
           "       common: [--weights FILE] [--model NAME] [--tokenizer DIR]\n\n"
           "The K (default 10) tokens whose wte rows are nearest by cosine to the query: TOKEN (a\n"
           "text that is exactly one token, e.g. \" cat\") or --id N, itself left out; with --pos P\n"
           "the query is wte[id] + wpe[P]; or a vector of n_embd values from an .npy file.\n"
           "Prints rank, ID, the piece (spaces as \xE2\x90\xA3, newlines as \xE2\x86\xB5) and the cosine.\n");
}

int cmd_nearest(int argc, char **argv)
{
    load_opts lo = {0};
    const char *fmt = "table", *v;
    const char *text = NULL, *vector = NULL;
    uint64_t k = 10, id = 0, pos = 0;
    int have_id = 0, have_pos = 0, r;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            help();
            return EXIT_OK;
        }
        if ((r = load_opt(argc, argv, &i, &lo)) || (r = cli_opt(argc, argv, &i, "--format", &fmt)) ||
            (r = cli_opt(argc, argv, &i, "--vector", &vector))) {
            if (r < 0) return EXIT_USAGE;
        } else if ((r = cli_opt(argc, argv, &i, "-k", &v))) {
            if (r < 0 || cli_parse_u64(v, 1, 100000, "-k", &k)) return EXIT_USAGE;
        } else if ((r = cli_opt(argc, argv, &i, "--id", &v))) {
            if (r < 0 || cli_parse_u64(v, 0, UINT32_MAX, "--id", &id)) return EXIT_USAGE;
            have_id = 1;
        } else if ((r = cli_opt(argc, argv, &i, "--pos", &v))) {
            if (r < 0 || cli_parse_u64(v, 0, UINT32_MAX, "--pos", &pos)) return EXIT_USAGE;
            have_pos = 1;
        } else if (strcmp(a, "--") == 0 && i + 1 < argc && !text) {
            text = argv[++i];
        } else if ((a[0] != '-' || a[1] == '\0') && !text) {
            text = a;
        } else {
            cli_error("nearest: unexpected argument '%s' (see gpt2-embed nearest --help)", a);
            return EXIT_USAGE;
        }
    }
    if ((text != NULL) + have_id + (vector != NULL) != 1) {
        cli_error("nearest needs exactly one query: TOKEN, --id N or --vector FILE.npy");
        return EXIT_USAGE;
    }
    if (vector && have_pos) {
        cli_error("--pos goes with a token query, not with --vector");
        return EXIT_USAGE;
    }
    int f = cli_format(fmt, (const char *const[]){"table", "json", NULL});
    if (f < 0)
        return EXIT_USAGE;
    int json = f == 1;

    g2e_model *m = NULL;
    tok_tokenizer *tok = NULL;
    char *path = NULL;
    float *q = NULL, *p = NULL;
    sim_hit *hits = NULL;
    npy_array arr = {0};
    g2e_err e;
    int rc = EXIT_ERR;
    uint32_t qid = 0;
    if (load_model(lo.weights, lo.model, &m, &path) || load_tokenizer(lo.tokenizer, &tok))
        goto done;
    size_t C = m->n_embd;
    q = calloc(C, sizeof *q);
    p = calloc(C, sizeof *p);
    hits = calloc(k, sizeof *hits);
    if (!q || !p || !hits) {
        cli_error("out of memory");
        goto done;
    }
    if (k > m->n_vocab) {
        cli_error("-k %llu is more than the %zu rows of wte", (unsigned long long)k, m->n_vocab);
        goto done;
    }
    if (vector) {
        if (npy_read_file(vector, &arr, &e)) {
            cli_error("%s", e.msg);
            goto done;
        }
        out_add_input("vector file", vector, -1);
        if (arr.count != C || (arr.ndim == 2 && arr.shape[0] != 1) || arr.ndim > 2) {
            cli_error("%s holds an array of %zu values (%d dimensions); a query needs %zu values, "
                      "shape (%zu,) or (1, %zu)", vector, arr.count, arr.ndim, C, C, C);
            goto done;
        }
        for (size_t c = 0; c < C; c++)
            q[c] = (float)arr.data[c];
    } else {
        if (text) {
            if (load_single_token(tok, text, &qid))
                goto done;
        } else {
            qid = (uint32_t)id;
        }
        if (qid >= m->n_vocab) {
            cli_error("token ID %u is outside the vocabulary (0..%zu)", qid, m->n_vocab - 1);
            goto done;
        }
        if (model_wte_row(m, qid, q, &e)) {
            cli_error("%s", e.msg);
            goto done;
        }
        if (have_pos) {
            if (pos >= m->n_ctx) {
                cli_error("position %llu is outside wpe, which has %zu rows (0..%zu)",
                          (unsigned long long)pos, m->n_ctx, m->n_ctx - 1);
                goto done;
            }
            if (model_wpe_row(m, pos, p, &e)) {
                cli_error("%s", e.msg);
                goto done;
            }
            for (size_t c = 0; c < C; c++)
                q[c] = q[c] + p[c];
        }
    }
    size_t n = 0;
    uint32_t exclude = (vector || have_pos) ? UINT32_MAX : qid;
    if (sim_nearest(m, q, k, exclude, hits, &n, &e)) {
        cli_error("%s", e.msg);
        goto done;
    }
    /* Describe the query once, then one line (or object) per hit. */
    char query[512];
    const uint8_t *b;
    size_t bl;
    char *qv = NULL;
    if (!vector && tok_piece(tok, qid, &b, &bl, NULL) == 0)
        qv = out_piece_visible((const char *)b, bl);
    if (vector)
        snprintf(query, sizeof query, "the vector in %s", vector);
    else if (have_pos)
        snprintf(query, sizeof query, "wte[%u '%s'] + wpe[%llu]", qid, qv ? qv : "?", (unsigned long long)pos);
    else
        snprintf(query, sizeof query, "wte[%u '%s']", qid, qv ? qv : "?");
    free(qv);
    if (json) {
        printf("{\"query\": ");
        out_json_string(stdout, query, strlen(query));
        printf(", \"k\": %zu, \"nearest\": [", n);
    } else {
        printf("nearest wte rows to %s by cosine:\n%5s %7s  %-24s %s\n", query, "rank", "id", "piece", "cosine");
    }
    for (size_t i = 0; i < n; i++) {
        char *vis = NULL;
        if (tok_piece(tok, hits[i].id, &b, &bl, NULL) == 0)
            vis = out_piece_visible((const char *)b, bl);
        if (json) {
            printf("%s{\"rank\": %zu, \"id\": %u, \"piece\": ", i ? ", " : "", i + 1, hits[i].id);
            if (vis) {
                const uint8_t *raw;
                tok_piece(tok, hits[i].id, &raw, &bl, NULL);
                out_json_string(stdout, (const char *)raw, bl);
            } else {
                printf("null");
            }
            printf(", \"cos\": ");
            out_f64(stdout, hits[i].cos);
            printf("}");
        } else {
            printf("%5zu %7u  ", i + 1, hits[i].id);
            out_pad(stdout, vis ? vis : "?", 24);
            printf(" %.4f\n", hits[i].cos);
        }
        free(vis);
    }
    if (json)
        printf("]}\n");
    rc = fflush(stdout) == 0 ? EXIT_OK : EXIT_ERR;
done:
    npy_array_free(&arr);
    free(hits);
    free(q);
    free(p);
    free(path);
    tok_close(tok);
    model_close(m);
    return rc;
}
