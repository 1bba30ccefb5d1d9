/* SPDX-License-Identifier: MIT */
/* load.c — weights and tokenizer for the commands, through the door (see load.h). */
#include "load.h"

#include "cli.h"
#include "i18n.h"
#include "out.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 1 when the environment variable name is set and not empty. */
static int getenv_nonempty(const char *name)
{
    const char *v = getenv(name);
    return v && *v;
}

/* Fills *e with status s and the formatted message (already translated by the caller). */
static void set_error(gpt2embed_error *e, gpt2embed_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_error(gpt2embed_error *e, gpt2embed_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g2e_vprintf_alloc(fmt, ap);
    va_end(ap);
    *e = (gpt2embed_error){.status = s, .offset = GPT2EMBED_NONE, .index = GPT2EMBED_NONE};
    int n = snprintf(e->message, sizeof e->message, "%s", msg ? msg : "out of memory");
    g2e_cut_whole(e->message, sizeof e->message, n);
    free(msg);
}

/* The catalogue's entry called name, or NULL. */
static const gpt2embed_model_info *known(const char *name)
{
    const gpt2embed_model_info *all;
    size_t n = gpt2embed_known_models(&all);
    for (size_t i = 0; name && i < n; i++)
        if (strcmp(all[i].name, name) == 0)
            return &all[i];
    return NULL;
}

/* The option or variable that named the file, for messages; NULL when a --model name found it. */
static const char *named_by(gpt2embed_weights_from from)
{
    return from == GPT2EMBED_FROM_PATH ? "--weights" : from == GPT2EMBED_FROM_ENV ? "$GPT2_EMBED_WEIGHTS" : NULL;
}

/* A --model name whose tables are not the file's shapes: an error (-1) when the name is what
 * found the file (weights/NAME.safetensors, the installed data, the Hugging Face cache); a
 * note naming both (1) when the user named the file too (--weights, $GPT2_EMBED_WEIGHTS:
 * their file wins, and the note says it is not that model). 0 when the shapes agree or no
 * --model was given. */
static int check_named_model(const load_opts *lo, const gpt2embed_model *m, gpt2embed_weights_from from,
                             gpt2embed_error *e)
{
    const gpt2embed_model_info *mi = lo->model ? known(lo->model) : NULL;
    size_t V = gpt2embed_n_vocab(m), N = gpt2embed_n_ctx(m), C = gpt2embed_n_embd(m);
    const char *path = gpt2embed_model_path(m), *by = named_by(from);
    if (!mi || (mi->n_vocab == V && mi->n_ctx == N && mi->n_embd == C))
        return 0;
    if (by) {
        cli_note("--model %s is not used: the weights come from %s (%s: %zu tokens x %zu dimensions with "
                 "%zu positions, not the %zu x %zu with %zu of --model %s)",
                 mi->name, by, path, V, C, N, mi->n_vocab, mi->n_embd, mi->n_ctx, mi->name);
        return 1;
    }
    static const char *const FROM[] = {"--weights", "$GPT2_EMBED_WEIGHTS", "weights/", "installed data directory",
                                       "Hugging Face cache"};
    set_error(e, GPT2EMBED_E_NOT_GPT2,
              _("%s (%s) is %zu tokens x %zu dimensions with %zu positions, not the %zu x %zu with %zu of --model %s"),
              path, (unsigned)from < 5 ? FROM[from] : "?", V, C, N, mi->n_vocab, mi->n_embd, mi->n_ctx, mi->name);
    return -1;
}

/* The bytes of wte or wpe in the file's mapping, guarded against the file shrinking under us. */
static void guard_table(const gpt2embed_model *m, gpt2embed_table which)
{
    const void *data;
    size_t rows, cols;
    gpt2embed_dtype dt;
    if (gpt2embed_table_data(m, which, &data, &rows, &cols, &dt, NULL) == GPT2EMBED_OK)
        out_guard_mapping(data, rows * cols * (dt == GPT2EMBED_F32 ? 4 : 2), gpt2embed_model_path(m),
                          "weights file");
}

int load_model_err(const load_opts *lo, gpt2embed_model **m, gpt2embed_error *e)
{
    char *p = NULL;
    gpt2embed_weights_from from;
    *m = NULL;
    if (gpt2embed_locate_weights(lo->weights, lo->model, lo->revision, &p, &from, e)) {
        /* the library names no option: the program says which of its own would help */
        if (e->status == GPT2EMBED_E_NOT_FOUND && lo->weights) {
            set_error(e, e->status, _("--weights %s"), e->message);
        } else if (e->status == GPT2EMBED_E_NOT_FOUND && !getenv_nonempty("GPT2_EMBED_WEIGHTS")) {
            set_error(e, e->status, _("%s; give --weights FILE, or get them with: gpt2-embed download --model %s"),
                      e->message, lo->model ? lo->model : "gpt2");
        }
        return -1;
    }
    gpt2embed_status s = gpt2embed_model_open(m, p, NULL, e);
    free(p);
    if (s)
        return -1;
    int named = check_named_model(lo, *m, from, e);
    if (named < 0) {
        gpt2embed_model_close(*m);
        *m = NULL;
        return -1;
    }
    /* a named file wins over --model: say so rather than answer for another model (once:
     * a --model whose shapes differ was said above, with both shapes) */
    if (!named && lo->model && named_by(from))
        cli_note("--model %s is not used: the weights come from %s (%s)", lo->model, named_by(from),
                 gpt2embed_model_path(*m));
    out_add_input("weights", gpt2embed_model_path(*m), -1);
    /* rows are read from the mapping: a file truncated meanwhile is reported, not a crash */
    guard_table(*m, GPT2EMBED_WTE);
    guard_table(*m, GPT2EMBED_WPE);
    return 0;
}

int load_model(const load_opts *lo, gpt2embed_model **m)
{
    gpt2embed_error e;
    if (load_model_err(lo, m, &e) != 0) {
        cli_error("%s", e.message);
        return -1;
    }
    return 0;
}

int load_tokenizer(const char *dir, gpt2embed_tokenizer **t)
{
    gpt2embed_error e;
    if (gpt2embed_tokenizer_open(t, dir, &e) != GPT2EMBED_OK) {
        cli_error("%s", e.message);
        return -1;
    }
    /* whichever spelling the directory has (gpt2embed.h); built-in data has no files */
    static const char *const FILES[] = {"vocab.json", "merges.txt", "encoder.json", "vocab.bpe"};
    const char *src = gpt2embed_tokenizer_source(*t);
    for (size_t i = 0; strcmp(src, "built-in") != 0 && i < sizeof FILES / sizeof FILES[0]; i++) {
        char p[4096];
        if ((size_t)snprintf(p, sizeof p, "%s/%s", src, FILES[i]) < sizeof p)
            out_add_input("tokenizer file", p, -1);
    }
    return 0;
}

int load_single_token(gpt2embed_tokenizer *t, const char *text, uint32_t *id)
{
    uint32_t *ids = NULL;
    size_t n = 0;
    gpt2embed_error e;
    if (gpt2embed_tokenize(t, text, strlen(text), &ids, &n, &e) != GPT2EMBED_OK) {
        cli_error("%s", e.message);
        return -1;
    }
    if (n == 1) {
        *id = ids[0];
        gpt2embed_free(ids);
        return 0;
    }
    /* Show how the text splits, so the user can pick one of its tokens. */
    char shown[1024];
    size_t o = 0;
    for (size_t i = 0; i < n && o + 64 < sizeof shown; i++) {
        char *v = load_token_name(t, ids[i]);
        o += (size_t)snprintf(shown + o, sizeof shown - o, "%s%u '%.40s'", i ? ", " : "", ids[i], v ? v : "?");
        free(v);
    }
    shown[o] = '\0';
    char *vis = out_piece_visible(text, strlen(text));
    if (n)   /* one line: the pieces, and how to give one of them (load_token_arg's id:N) */
        cli_error("'%s' is %zu tokens, not one: %s (give one of them by its ID, e.g. id:%u)",
                  vis ? vis : text, n, shown, ids[0]);
    else
        cli_error("'%s' is 0 tokens, not one: (empty)", vis ? vis : text);
    free(vis);
    gpt2embed_free(ids);
    return -1;
}

/* The digits of "id:N" or "#N" (N decimal digits and nothing else), or NULL. */
static const char *id_syntax(const char *s)
{
    const char *d = strncmp(s, "id:", 3) == 0 ? s + 3 : s[0] == '#' ? s + 1 : NULL;
    return d && *d && strspn(d, "0123456789") == strlen(d) ? d : NULL;
}

int load_token_arg(gpt2embed_tokenizer *t, const char *arg, uint32_t *id)
{
    const char *d = id_syntax(arg);
    if (d) {
        int64_t v;
        size_t nv = gpt2embed_tokenizer_n_vocab(t);
        if (strlen(d) > 10 || opt_parse_int(d, 0, (int64_t)nv - 1, &v)) {
            cli_error("'%s': no token has ID %s (IDs are 0..%u)", arg, d, (unsigned)(nv - 1));
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

char *load_token_name(const gpt2embed_tokenizer *t, uint32_t id)
{
    const uint8_t *b;
    size_t n;
    return gpt2embed_token_bytes(t, id, &b, &n, NULL) == GPT2EMBED_OK ? out_piece_visible((const char *)b, n)
                                                                       : NULL;
}
