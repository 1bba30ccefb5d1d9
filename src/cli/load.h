/* SPDX-License-Identifier: MIT */
/* load.h — opening the weights and the tokenizer for a command through the library's door
 * (gpt2embed.h), with the messages a user needs when they are missing (program wing: prints
 * one line on failure), and naming one token on the command line. */
#ifndef G2E_LOAD_H
#define G2E_LOAD_H

#include "gpt2embed.h"
#include "opt.h"

#include <stddef.h>

/* The options every weights-reading command takes: --weights FILE, --model NAME,
 * --tokenizer DIR. */
typedef struct load_opts {
    const char *weights, *model, *tokenizer;
    const char *revision;   /* --revision: the Hugging Face cache's ref or commit (NULL: main) */
} load_opts;

/* Those options as rows of a command's opt_def table (opt.h), for a load_opts member `m`
 * of the command's option struct `type`:
 *     static const opt_def OPTS[] = { ..., LOAD_OPT_ROWS(struct my_opts, lo), OPT_END };
 * LOAD_WEIGHTS_ROWS leaves out --tokenizer (for commands that never tokenize). */
#define LOAD_WEIGHTS_ROWS(type, m)                                                                  \
    {.name = "--weights", .kind = OPT_FILE, .off = offsetof(type, m.weights),                      \
     .help = N_("the safetensors file (else $GPT2_EMBED_WEIGHTS, weights/MODEL.safetensors, the "   \
                "installed data, the Hugging Face cache)")},                                        \
    {.name = "--model", .kind = OPT_TEXT, .off = offsetof(type, m.model), .metavar = "NAME",        \
     .def = "gpt2", .help = N_("gpt2, gpt2-medium, gpt2-large, gpt2-xl or distilgpt2")},        \
    {.name = "--revision", .kind = OPT_TEXT, .off = offsetof(type, m.revision), .metavar = "REV", \
     .def = "main", .help = N_("the branch, tag or commit looked for in the Hugging Face cache")}
#define LOAD_OPT_ROWS(type, m)                                                                      \
    LOAD_WEIGHTS_ROWS(type, m),                                                                     \
    {.name = "--tokenizer", .kind = OPT_FILE, .off = offsetof(type, m.tokenizer), .metavar = "DIR", \
     .help = N_("vocab.json + merges.txt in DIR (else $GPT2_EMBED_TOKENIZER, tokenizer/ beside the " \
                "program, the installed data, the built-in copy)")}

/* Finds (gpt2embed_locate_weights: --weights, $GPT2_EMBED_WEIGHTS, weights/, installed, the
 * Hugging Face cache at --revision) and opens the weights of lo->model (NULL: gpt2). The file
 * is registered as an input (out.h) and its mapping guarded. On success *m is the caller's
 * (gpt2embed_model_close; gpt2embed_model_path names the file). On failure prints one line
 * (where it looked, how to download) and returns -1. */
int load_model(const load_opts *lo, gpt2embed_model **m);

/* load_model without the message: on failure it is in *e (for a command that can go on
 * without the weights and says so its own way). */
int load_model_err(const load_opts *lo, gpt2embed_model **m, gpt2embed_error *e);

/* Opens the tokenizer (gpt2embed_tokenizer_open's order, dir = --tokenizer or NULL) and
 * registers its files as inputs. Prints one line and returns -1 on failure. */
int load_tokenizer(const char *dir, gpt2embed_tokenizer **t);

/* The one token of text (e.g. " cat"): prints an error showing its tokens and returns -1
 * when text is not exactly one token. */
int load_single_token(gpt2embed_tokenizer *t, const char *text, uint32_t *id);

/* A token as the user names it wherever one token is asked for (similarity --at/--tokens,
 * nearest): "id:N" (or "#N", which a shell takes for a comment unless quoted) is the token
 * with ID N; a bare number cannot be one, since "163" is a text (token 24136). "text:X" is
 * the text X whatever it looks like. Anything else is a text that must be one token
 * (load_single_token). A text of digits gets a note naming the token it is and how to give
 * the ID instead; a text of several tokens, how to give one of them by ID. */
int load_token_arg(gpt2embed_tokenizer *t, const char *arg, uint32_t *id);

/* The piece of token id as tables show it ('␣cat'); a new string, NULL if out of memory or
 * for an ID outside the vocabulary. */
char *load_token_name(const gpt2embed_tokenizer *t, uint32_t id);

#endif
