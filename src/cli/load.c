/* SPDX-License-Identifier: MIT */
/* load.c — weights and tokenizer for the commands (see load.h). */
#include "load.h"

#include "cli.h"
#include "i18n.h"
#include "locate.h"
#include "models.h"
#include "out.h"

#include <stdlib.h>
#include <string.h>

int load_model_err(const char *weights, const char *model_name, g2e_model **m, char **path,
                   g2e_err *e)
{
    load_opts lo = {.weights = weights, .model = model_name};
    return load_model_lo_err(&lo, m, path, e);
}

int load_model_lo(const load_opts *lo, g2e_model **m, char **path)
{
    g2e_err e;
    if (load_model_lo_err(lo, m, path, &e) != 0) {
        cli_error("%s", e.msg);
        return -1;
    }
    return 0;
}

/* A --model name whose tables are not the file's shapes: an error (-1) when the name is what
 * found the file (weights/NAME.safetensors, the installed data, the Hugging Face cache); a
 * note naming both (1) when the user named the file too (--weights, $GPT2_EMBED_WEIGHTS:
 * their file wins, and the note says it is not that model). 0 when the shapes agree or no
 * --model was given. */
static int check_named_model(const load_opts *lo, const g2e_model *m, const char *path,
                             const char *src, g2e_err *e)
{
    const models_info *mi = lo->model ? models_find(lo->model) : NULL;
    if (!mi || (mi->n_vocab == m->n_vocab && mi->n_ctx == m->n_ctx && mi->n_embd == m->n_embd))
        return 0;
    if (src && (strcmp(src, "--weights") == 0 || strcmp(src, "$GPT2_EMBED_WEIGHTS") == 0)) {
        cli_note("--model %s is not used: the weights come from %s (%s: %zu tokens x %zu dimensions with "
                 "%zu positions, not the %zu x %zu with %zu of --model %s)",
                 mi->name, src, path, m->n_vocab, m->n_embd, m->n_ctx, mi->n_vocab, mi->n_embd, mi->n_ctx,
                 mi->name);
        return 1;
    }
    g2e_fail(e, MODEL_E_SHAPE, "%s (%s) is %zu tokens x %zu dimensions with %zu positions, "
                    "not the %zu x %zu with %zu of --model %s",
                    path, src ? src : "?", m->n_vocab, m->n_embd, m->n_ctx, mi->n_vocab, mi->n_embd,
                    mi->n_ctx, mi->name);
    return -1;
}

int load_model_lo_err(const load_opts *lo, g2e_model **m, char **path, g2e_err *e)
{
    char p[4096];
    const char *src = NULL;
    int rc = locate_weights_at(lo->model, lo->revision, lo->weights, p, sizeof p, &src, e);
    if (rc != 0) {
        /* the library names no option: the program says which of its own would help */
        char why[sizeof e->msg];
        memcpy(why, e->msg, sizeof why);
        if (rc == LOCATE_E_MISSING && lo->weights)
            g2e_fail(e, rc, _("--weights %s"), why);
        else if (rc == LOCATE_E_NOT_FOUND)
            g2e_fail(e, rc, _("%s; give --weights FILE, or get them with: gpt2-embed download --model %s"),
                     why, lo->model ? lo->model : "gpt2");
        return -1;
    }
    if (model_open(m, p, e) != 0)
        return -1;
    int named = check_named_model(lo, *m, p, src, e);
    if (named < 0) {
        model_close(*m);
        *m = NULL;
        return -1;
    }
    /* a named file wins over --model: say so rather than answer for another model (once:
     * a --model whose shapes differ was said above, with both shapes) */
    if (!named && lo->model && src && (strcmp(src, "--weights") == 0 || strcmp(src, "$GPT2_EMBED_WEIGHTS") == 0))
        cli_note("--model %s is not used: the weights come from %s (%s)", lo->model, src, p);
    out_add_input("weights", p, -1);
    /* rows are read from the mapping: a file truncated meanwhile is reported, not a crash */
    const st_tensor *ts[2] = {(*m)->wte, (*m)->wpe};
    for (int k = 0; k < 2; k++)
        out_guard_mapping(ts[k]->bytes, (size_t)st_tensor_nbytes(ts[k]), p, "weights file");
    if (path && !(*path = strdup(p))) {
        model_close(*m);
        *m = NULL;
        g2e_fail(e, G2E_ENOMEM, "out of memory");
        return -1;
    }
    return 0;
}

int load_model(const char *weights, const char *model_name, g2e_model **m, char **path)
{
    g2e_err e;
    if (load_model_err(weights, model_name, m, path, &e) != 0) {
        cli_error("%s", e.msg);
        return -1;
    }
    return 0;
}

int load_engine(const char *dir, eng **e)
{
    tok_tokenizer *t;
    g2e_err err;
    if (load_tokenizer(dir, &t))
        return -1;
    if (eng_new(e, t, &err)) { /* (t is closed) */
        cli_error("%s", err.msg);
        return -1;
    }
    return 0;
}

int load_tokenizer(const char *dir, tok_tokenizer **t)
{
    g2e_err e;
    if (tok_locate(dir, t, &e) != 0) {
        cli_error("%s", e.msg);
        return -1;
    }
    /* whichever spelling the directory has (tokenizer.h); built-in data has no files */
    static const char *const FILES[] = {"vocab.json", "merges.txt", "encoder.json", "vocab.bpe"};
    const char *src = tok_source(*t);
    for (size_t i = 0; strcmp(src, "built-in") != 0 && i < sizeof FILES / sizeof FILES[0]; i++) {
        char p[4096];
        if ((size_t)snprintf(p, sizeof p, "%s/%s", src, FILES[i]) < sizeof p)
            out_add_input("tokenizer file", p, -1);
    }
    return 0;
}

int load_single_token(tok_tokenizer *t, const char *text, uint32_t *id)
{
    tok_ids r;
    g2e_err e;
    if (tok_encode(t, text, strlen(text), TOK_SPECIAL_TOKEN, 0, &r, NULL, &e) != 0) {
        cli_error("%s", e.msg);
        return -1;
    }
    if (r.n == 1) {
        *id = r.ids[0];
        tok_ids_free(&r);
        return 0;
    }
    /* Show how the text splits, so the user can pick one of its tokens. */
    char shown[1024];
    size_t o = 0;
    for (size_t i = 0; i < r.n && o + 64 < sizeof shown; i++) {
        const uint8_t *b;
        size_t n;
        char *v = NULL;
        if (tok_piece(t, r.ids[i], &b, &n, NULL) == 0)
            v = out_piece_visible((const char *)b, n);
        o += (size_t)snprintf(shown + o, sizeof shown - o, "%s%u '%.40s'", i ? ", " : "", r.ids[i],
                              v ? v : "?");
        free(v);
    }
    shown[o] = '\0';
    char *vis = out_piece_visible(text, strlen(text));
    if (r.n)   /* one line: the pieces, and how to give one of them (load_token_arg's id:N) */
        cli_error("'%s' is %zu tokens, not one: %s (give one of them by its ID, e.g. id:%u)",
                  vis ? vis : text, r.n, shown, r.ids[0]);
    else
        cli_error("'%s' is 0 tokens, not one: (empty)", vis ? vis : text);
    free(vis);
    tok_ids_free(&r);
    return -1;
}

/* The digits of "id:N" or "#N" (N decimal digits and nothing else), or NULL. */
static const char *id_syntax(const char *s)
{
    const char *d = strncmp(s, "id:", 3) == 0 ? s + 3 : s[0] == '#' ? s + 1 : NULL;
    return d && *d && strspn(d, "0123456789") == strlen(d) ? d : NULL;
}

int load_token_arg(tok_tokenizer *t, const char *arg, uint32_t *id)
{
    const char *d = id_syntax(arg);
    if (d) {
        int64_t v;
        if (strlen(d) > 10 || opt_parse_int(d, 0, (int64_t)tok_n_vocab(t) - 1, &v)) {
            cli_error("'%s': no token has ID %s (IDs are 0..%u)", arg, d, tok_n_vocab(t) - 1);
            return -1;
        }
        *id = (uint32_t)v;
        return 0;
    }
    const char *text = strncmp(arg, "text:", 5) == 0 ? arg + 5 : arg;   /* "text:id:3": the text */
    if (load_single_token(t, text, id))
        return -1;
    if (text == arg && *text && strspn(text, "0123456789") == strlen(text)) {
        char *v = load_token_name(t, *id);
        cli_note("'%s' is read as text: token %u '%s'; for the token with ID %s write id:%s", text, *id,
                 v ? v : "?", text, text);
        free(v);
    }
    return 0;
}

char *load_token_name(tok_tokenizer *t, uint32_t id)
{
    const uint8_t *b;
    size_t n;
    return tok_piece(t, id, &b, &n, NULL) == 0 ? out_piece_visible((const char *)b, n) : NULL;
}
