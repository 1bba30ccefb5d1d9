/* SPDX-License-Identifier: MIT */
/* nearest_out.c — the nearest tokens as a table or JSON (see nearest_out.h). */
#include "nearest_out.h"

#include "json.h"
#include "text.h"
#include "i18n.h"
#include "textfmt.h"

#include <stdlib.h>
#include <string.h>

int nearest_partial(const gpt2embed_tokenizer *tok, uint32_t id)
{
    const uint8_t *b;
    size_t n;
    return gpt2embed_token_bytes(tok, id, &b, &n, NULL) == GPT2EMBED_OK && text_validate((const char *)b, n) != n;
}

/* One hit: a table line or a JSON object. */
static void put_hit(FILE *f, const gpt2embed_tokenizer *tok, const gpt2embed_hit *h, size_t i, int json)
{
    const uint8_t *b;
    size_t bl;
    int have = gpt2embed_token_bytes(tok, h->id, &b, &bl, NULL) == GPT2EMBED_OK;
    char *vis = have ? text_escape((const char *)b, bl, TEXT_ESC_VISIBLE) : NULL;
    if (json) {
        fprintf(f, "%s{\"rank\": %zu, \"id\": %u, \"piece\": ", i ? ", " : "", i + 1, h->id);
        if (vis) {
            json_write_string(f, (const char *)b, bl);
            fprintf(f, ", \"bytes\": [");   /* the exact bytes: "piece" has \ufffd for partial ones */
            for (size_t k = 0; k < bl; k++)
                fprintf(f, "%s%u", k ? ", " : "", b[k]);
            fprintf(f, "], \"utf8\": %s", text_validate((const char *)b, bl) == bl ? "true" : "false");
        } else {
            fprintf(f, "null");
        }
        fprintf(f, ", \"cos\": ");
        json_write_f64(f, h->cos);
        fprintf(f, "}");
    } else {
        fprintf(f, "%5zu %7u  ", i + 1, h->id);
        textfmt_pad(f, vis ? vis : "?", 24, 0);
        fprintf(f, " %.4f\n", h->cos);
    }
    free(vis);
}

void nearest_write(FILE *f, int json, const gpt2embed_tokenizer *tok, const char *query, int partial,
                   const gpt2embed_hit *hits, size_t n)
{
    if (json) {
        fprintf(f, "{\"query\": ");
        json_write_string(f, query, strlen(query));
        fprintf(f, ", \"k\": %zu, \"nearest\": [", n);
    } else {
        /* (the query's description stays English: JSON carries it too) */
        fprintf(f, _("nearest wte rows to %s by cosine:\n"), query);
        textfmt_pad(f, _("rank"), 5, 1);
        fputc(' ', f);
        textfmt_pad(f, _("id"), 7, 1);
        fputs("  ", f);
        textfmt_pad(f, _("piece"), 24, 0);
        fprintf(f, " %s\n", _("cosine"));
    }
    for (size_t i = 0; i < n; i++) {
        put_hit(f, tok, &hits[i], i, json);
        partial |= nearest_partial(tok, hits[i].id);
    }
    if (json)
        fprintf(f, "]}\n");
    else if (partial)
        fputs(_("\\xNN: a byte of a UTF-8 character that the token holds only part of; a piece shown alone "
                "has no text around it to say which character (gpt2-embed TEXT shows it, e.g. 犬 (1/3))\n"), f);
}

int nearest_query_vector(const npy_array *arr, const char *path, size_t C, float *q, g2e_err *err)
{
    if (arr->count != C || (arr->ndim == 2 && arr->shape[0] != 1) || arr->ndim > 2)
        return g2e_fail(err, G2E_EINVAL, "%s holds an array of %zu values (%d dimensions); a query needs "
                        "%zu values, shape (%zu,) or (1, %zu)", path, arr->count, arr->ndim, C, C, C);
    for (size_t c = 0; c < C; c++)
        q[c] = (float)arr->data[c];
    return 0;
}

int nearest_query_token(const gpt2embed_model *m, uint32_t id, int have_pos, uint64_t pos, float *q,
                        float *scratch, g2e_err *err)
{
    size_t V = gpt2embed_n_vocab(m), N = gpt2embed_n_ctx(m), C = gpt2embed_n_embd(m);
    gpt2embed_error e;
    if (id >= V)
        return g2e_fail(err, G2E_EINVAL, "token ID %u is outside the vocabulary (0..%zu)", id, V - 1);
    if (gpt2embed_rows(m, GPT2EMBED_WTE, id, 1, q, &e))
        return g2e_fail(err, G2E_EINVAL, "%s", e.message);
    if (!have_pos)
        return 0;
    if (pos >= N)
        return g2e_fail(err, G2E_EINVAL, "position %llu is outside wpe, which has %zu rows (0..%zu)",
                        (unsigned long long)pos, N, N - 1);
    if (gpt2embed_rows(m, GPT2EMBED_WPE, (size_t)pos, 1, scratch, &e))
        return g2e_fail(err, G2E_EINVAL, "%s", e.message);
    for (size_t c = 0; c < C; c++)
        q[c] = q[c] + scratch[c];
    return 0;
}
