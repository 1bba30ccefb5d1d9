/* SPDX-License-Identifier: MIT */
/* cmd_nearest.c — `gpt2-embed nearest`: the k vocabulary tokens whose token embedding (wte
 * row) is nearest by cosine to a query: a token (itself left out), a token at a position
 * (the summed vector wte[id] + wpe[P]; the token itself is not left out), or a vector read
 * from an .npy file (n_embd values, float32 or float64; float64 is rounded to float32).
 * Streams all of wte once.
 *
 * A piece is shown alone, with no text around it, so a token that holds only part of a UTF-8
 * character cannot say which character (E7 begins 犬 and hundreds of others): such bytes are
 * shown as \xNN, as everywhere, and the table says once what that means; the JSON gives every
 * piece's exact "bytes" and whether it is valid UTF-8 on its own ("utf8"). The commands that
 * have the text (embed, tokenize, count) show 犬 (1/3) instead.
 */
#include "cli.h"
#include "i18n.h"
#include "opt.h"
#include "load.h"
#include "npy.h"
#include "out.h"
#include "nearest_out.h"

#include <stdlib.h>
#include <string.h>

typedef struct nearest_opts {
    load_opts lo;
    int fmt;           /* 0 table, 1 json */
    const char *vector;
    int64_t k, id, pos;
} nearest_opts;

static const char *const FORMATS[] = {"table", "json", NULL};

static const opt_def OPTS[] = {
    {.name = "--id", .kind = OPT_INT, .off = offsetof(nearest_opts, id), .lo = 0, .hi = UINT32_MAX,
     .help = N_("the query token by its ID instead of TOKEN")},
    {.name = "--pos", .kind = OPT_INT, .off = offsetof(nearest_opts, pos), .lo = 0, .hi = UINT32_MAX,
     .metavar = "P", .help = N_("the query is wte[id] + wpe[P] (the token itself is not left out)")},
    {.name = "--vector", .kind = OPT_FILE, .off = offsetof(nearest_opts, vector), .metavar = "FILE.npy",
     .help = N_("the query is n_embd values from an .npy file (float32 or float64)")},
    {.name = "--top", .short_name = 'k', .kind = OPT_INT, .off = offsetof(nearest_opts, k), .lo = 1,
     .hi = 100000, .metavar = "K", .def = "10", .help = N_("how many tokens to list")},
    {.name = "--format", .kind = OPT_CHOICE, .off = offsetof(nearest_opts, fmt), .choices = FORMATS,
     .def = "table", .help = N_("aligned text, or one JSON object")},
    LOAD_OPT_ROWS(nearest_opts, lo),
    OPT_END,
};

static const opt_cmd CMD = {
    .name = "nearest",
    .synopsis = N_("TOKEN | --id N | --vector FILE.npy [OPTIONS]"),
    .purpose = N_("\nThe K tokens whose wte rows are nearest by cosine to the query: TOKEN (a text that\n"
                  "is exactly one token, e.g. \" cat\", or id:N for the ID N) or --id N, itself left\n"
                  "out; with --pos P the query is wte[id] + wpe[P]; or a vector of n_embd values\n"
                  "from an .npy file.\n"
                  "Prints rank, ID, the piece (spaces as \xE2\x90\xA3, newlines as \xE2\x86\xB5) and the cosine."),
    .examples = N_("  gpt2-embed nearest \" cat\" -k 5\n"
                   "  gpt2-embed nearest --id 3797 --pos 10 --format json\n"),
    .opts = OPTS,
    .min_pos = 0,
    .max_pos = 1,
    .pos_name = "TOKEN",
};
const opt_cmd *const cmd_nearest_spec = &CMD;

typedef struct nq_query {
    float *q, *p;      /* (C,) the query vector; scratch for the wpe row */
    uint32_t id;       /* the token, when the query is one */
    npy_array arr;
} nq_query;

/* The query vector from --vector, TOKEN or --id (+ --pos). Prints and returns -1 on error. */
static int make_query(const nearest_opts *o, const char *text, int have_pos, const gpt2embed_model *m,
                      gpt2embed_tokenizer *tok, nq_query *qu)
{
    g2e_err e;
    if (o->vector) {
        int rc = npy_read_file(o->vector, &qu->arr, &e);
        if (rc == 0) {
            out_add_input("vector file", o->vector, -1);
            rc = nearest_query_vector(&qu->arr, o->vector, gpt2embed_n_embd(m), qu->q, &e);
        }
        if (rc)
            cli_error("%s", e.msg);
        return rc ? -1 : 0;
    }
    if (text ? load_token_arg(tok, text, &qu->id) : (qu->id = (uint32_t)o->id, 0))
        return -1;
    if (nearest_query_token(m, qu->id, have_pos, (uint64_t)o->pos, qu->q, qu->p, &e)) {
        cli_error("%s", e.msg);
        return -1;
    }
    return 0;
}

/* Describes the query once, then one line (or object) per hit. */
static int print_hits(const nearest_opts *o, int have_pos, const gpt2embed_tokenizer *tok, uint32_t qid,
                      const gpt2embed_hit *hits, size_t n)
{
    char query[512];
    char *qv = o->vector ? NULL : load_token_name(tok, qid);
    if (o->vector) {
        char *vv = text_escape(o->vector, strlen(o->vector), TEXT_ESC_BIDI);   /* shown to a person */
        snprintf(query, sizeof query, "the vector in %s", vv ? vv : "?");
        free(vv);
    } else if (have_pos)
        snprintf(query, sizeof query, "wte[%u '%s'] + wpe[%llu]", qid, qv ? qv : "?",
                 (unsigned long long)o->pos);
    else
        snprintf(query, sizeof query, "wte[%u '%s']", qid, qv ? qv : "?");
    free(qv);
    nearest_write(stdout, o->fmt == 1, tok, query, !o->vector && nearest_partial(tok, qid), hits, n);
    return cli_flush_stdout() == 0 ? 0 : -1;
}

static int run(const nearest_opts *o, const char *text, int have_pos)
{
    gpt2embed_model *m = NULL;
    gpt2embed_tokenizer *tok = NULL;
    nq_query qu = {0};
    gpt2embed_hit *hits = NULL;
    gpt2embed_error e;
    int rc = EXIT_ERR;
    if (load_model(&o->lo, &m) || load_tokenizer(o->lo.tokenizer, &tok))
        goto done;
    size_t C = gpt2embed_n_embd(m), k = (size_t)o->k;
    qu.q = calloc(C, sizeof *qu.q);
    qu.p = calloc(C, sizeof *qu.p);
    hits = calloc(k, sizeof *hits);
    if (!qu.q || !qu.p || !hits) {
        cli_error("out of memory");
        goto done;
    }
    if (k > gpt2embed_n_vocab(m)) {
        cli_error("-k %zu is more than the %zu rows of wte", k, gpt2embed_n_vocab(m));
        goto done;
    }
    if (make_query(o, text, have_pos, m, tok, &qu))
        goto done;
    size_t n = 0;
    uint32_t exclude = (o->vector || have_pos) ? GPT2EMBED_NO_ID : qu.id;
    if (gpt2embed_nearest(m, qu.q, k, exclude, hits, &n, &e)) {
        cli_error("%s", e.message);
        goto done;
    }
    rc = print_hits(o, have_pos, tok, qu.id, hits, n) ? EXIT_ERR : EXIT_OK;
done:
    npy_array_free(&qu.arr);
    free(hits);
    free(qu.q);
    free(qu.p);
    gpt2embed_tokenizer_close(tok);
    gpt2embed_model_close(m);
    return rc;
}

int cmd_nearest(int argc, char **argv)
{
    nearest_opts o = {.k = 10};
    opt_parsed p;
    int r = opt_parse(&CMD, argc, argv, &o, &p);
    if (r) {
        opt_free(&p);
        return opt_exit(r);
    }
    const char *text = p.npos ? p.pos[0] : NULL;
    int have_id = opt_given(&CMD, &p, "--id"), have_pos = opt_given(&CMD, &p, "--pos");
    opt_free(&p);
    if ((text != NULL) + have_id + (o.vector != NULL) != 1) {
        opt_usage_error(&CMD, "needs exactly one query: TOKEN, --id N or --vector FILE.npy");
        return EXIT_USAGE;
    }
    if (o.vector && have_pos) {
        opt_usage_error(&CMD, "--pos goes with a token query, not with --vector");
        return EXIT_USAGE;
    }
    return run(&o, text, have_pos);
}
