/* SPDX-License-Identifier: MIT */
/* cmd_inspect.c — `gpt2-embed inspect FILE [--format table|json]`: describe a safetensors
 * file (metadata, tensors in storage order) and the GPT-2 model in it.
 *
 * The whole description is built in memory and printed only once the file has been read
 * completely, so a broken file leaves stdout empty: one line on stderr, exit status 1.
 * A valid safetensors file that holds no usable GPT-2 embedding (no wte, an I32 wte, ...)
 * is still described, with the reason under "model", and exits 0: inspect is how a user
 * finds out what is in such a file. The description is the library's
 * (gpt2embed_describe_file): --format json prints its document as it is, the table reads it.
 * Deliberately left out: reading any tensor's values.
 */
#include "cli.h"
#include "gpt2embed.h"
#include "opt.h"
#include "st_describe.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

typedef struct inspect_opts {
    int fmt; /* index in FORMATS */
} inspect_opts;

static const char *const FORMATS[] = {"table", "json", NULL};

static const opt_def OPTS[] = {
    {.name = "--format", .kind = OPT_CHOICE, .off = offsetof(inspect_opts, fmt), .choices = FORMATS,
     .def = "table", .help = N_("aligned text, or the same as one JSON object")},
    OPT_END,
};

static const opt_cmd CMD = {
    .name = "inspect",
    .synopsis = N_("FILE [--format table|json]"),
    .purpose = N_("\nDescribes a safetensors file: its metadata, every tensor (name, dtype, shape, bytes,\n"
                  "offset in the data section, in storage order) and the GPT-2 model it holds\n"
                  "(n_vocab, n_ctx, n_embd, size name, name prefix). The file is checked strictly; a\n"
                  "broken one is reported on stderr with exit status 1 and nothing on stdout."),
    .examples = N_("  gpt2-embed inspect weights/gpt2.safetensors\n"
                   "  gpt2-embed inspect model.safetensors --format json\n"),
    .opts = OPTS,
    .min_pos = 1,
    .max_pos = 1,
    .pos_name = "FILE",
};
const opt_cmd *const cmd_inspect_spec = &CMD;

/* The description, built in memory (so a failure prints nothing) then written out. */
static int print_description(const char *json, int as_json)
{
    cJSON *doc = as_json ? NULL : cJSON_Parse(json);
    char *table = doc ? st_describe_text(doc) : NULL;
    cJSON_Delete(doc);
    if (!as_json && !table) {
        cli_error("inspect: out of memory");
        return -1;
    }
    fputs(as_json ? json : table, stdout);
    free(table);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cli_error("inspect: cannot write the output");
        return -1;
    }
    return 0;
}

int cmd_inspect(int argc, char **argv)
{
    inspect_opts o = {0};
    opt_parsed p;
    int r = opt_parse(&CMD, argc, argv, &o, &p);
    const char *path = r ? NULL : p.pos[0];
    opt_free(&p); /* the path points into argv, not into p */
    if (r)
        return opt_exit(r);
    char *json = NULL;
    gpt2embed_error err;
    int status = EXIT_ERR;
    if (gpt2embed_describe_file(path, &json, &err))
        cli_error("%s", err.message);
    else if (print_description(json, o.fmt == 1) == 0)
        status = EXIT_OK;
    gpt2embed_free(json);
    return status;
}
