/* api.c — the public API (src/gpt2embed.h) over the internal modules. */
#include "../gpt2embed.h"

#include "embed.h"
#include "locate.h"
#include "model.h"
#include "tokenizer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gpt2embed_model {
    g2e_model *m;
};

struct gpt2embed_tokenizer {
    tok_tokenizer *t;
};

static int fail(const g2e_err *e, int rc, char *err, size_t errlen)
{
    if (err && errlen)
        snprintf(err, errlen, "%s", e->msg);
    return rc;
}

int gpt2embed_model_open(gpt2embed_model **out, const char *path, const char *model_name,
                         char *err, size_t errlen)
{
    g2e_err e;
    char found[4096];
    *out = NULL;
    int rc = locate_weights(model_name, path, found, sizeof found, NULL, &e);
    if (rc)
        return fail(&e, rc, err, errlen);
    gpt2embed_model *w = malloc(sizeof *w);
    if (!w) {
        g2e_fail(&e, G2E_ENOMEM, "out of memory");
        return fail(&e, G2E_ENOMEM, err, errlen);
    }
    if ((rc = model_open(&w->m, found, &e))) {
        free(w);
        return fail(&e, rc, err, errlen);
    }
    *out = w;
    return 0;
}

void gpt2embed_model_close(gpt2embed_model *m)
{
    if (m) {
        model_close(m->m);
        free(m);
    }
}

size_t gpt2embed_n_vocab(const gpt2embed_model *m) { return m->m->n_vocab; }
size_t gpt2embed_n_ctx(const gpt2embed_model *m) { return m->m->n_ctx; }
size_t gpt2embed_n_embd(const gpt2embed_model *m) { return m->m->n_embd; }
const char *gpt2embed_model_name(const gpt2embed_model *m) { return m->m->size_name; }

int gpt2embed_tokenizer_open(gpt2embed_tokenizer **out, const char *dir, char *err, size_t errlen)
{
    g2e_err e;
    *out = NULL;
    gpt2embed_tokenizer *t = malloc(sizeof *t);
    if (!t) {
        g2e_fail(&e, G2E_ENOMEM, "out of memory");
        return fail(&e, G2E_ENOMEM, err, errlen);
    }
    int rc = tok_locate(dir, &t->t, &e);
    if (rc) {
        free(t);
        return fail(&e, rc, err, errlen);
    }
    *out = t;
    return 0;
}

void gpt2embed_tokenizer_close(gpt2embed_tokenizer *t)
{
    if (t) {
        tok_close(t->t);
        free(t);
    }
}

int gpt2embed_tokenize(gpt2embed_tokenizer *t, const char *text, size_t len, uint32_t **ids,
                       size_t *n, char *err, size_t errlen)
{
    g2e_err e;
    tok_ids r;
    *ids = NULL;
    *n = 0;
    int rc = tok_encode(t->t, text, len, TOK_SPECIAL_TOKEN, TOK_NO_OFFSETS, &r, NULL, &e);
    if (rc)
        return fail(&e, rc, err, errlen);
    *ids = r.ids;   /* ownership passes to the caller; offsets were not made */
    *n = r.n;
    return 0;
}

int gpt2embed_embed(const gpt2embed_model *m, const uint32_t *ids, size_t n, size_t start,
                    float *out, char *err, size_t errlen)
{
    g2e_err e;
    int rc = embed_rows(m->m, EMBED_PE_LEARNED, ids, n, start, out, NULL, NULL, &e);
    return rc ? fail(&e, rc, err, errlen) : 0;
}

void gpt2embed_free(void *p)
{
    free(p);
}
