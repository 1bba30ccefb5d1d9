/* SPDX-License-Identifier: MIT */
/* cmd_inspect.c — `gpt2-embed inspect FILE [--format table|json]`: describe a safetensors
 * file (metadata, tensors in storage order) and the GPT-2 model in it.
 *
 * The whole description is built in memory and printed only once the file has been read
 * completely, so a broken file leaves stdout empty: one line on stderr, exit status 1.
 * A valid safetensors file that holds no usable GPT-2 embedding (no wte, an I32 wte, ...)
 * is still described, with the reason under "model", and exits 0: inspect is how a user
 * finds out what is in such a file. Deliberately left out: reading any tensor's values.
 */
#include "cli.h"
#include "model.h"
#include "opt.h"
#include "safetensors.h"
#include "st_describe.h"

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
static int print_description(const char *path, st_file *st, g2e_model *m, const char *merr,
                             int as_json)
{
    char *out = as_json ? st_describe_json(path, st, m, merr) : st_describe_text(path, st, m, merr);
    if (!out) {
        cli_error("inspect: out of memory");
        return -1;
    }
    fputs(out, stdout);
    if (as_json)
        fputc('\n', stdout);
    free(out);
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

    int status = EXIT_ERR;
    st_file *st = NULL;
    g2e_model *m = NULL;
    g2e_err err, merr;
    g2e_clear(&err);
    g2e_clear(&merr);

    if (st_open(&st, path, &err)) {
        cli_error("%s", err.msg);
        goto done;
    }
    /* The model view gets its own, non-owning parse of the same mapping, because
     * model_from_st takes (and on error frees) the st_file it is given. */
    st_file *view = NULL;
    if (st_parse_buffer(&view, st->map, st->map_len, &merr) == 0)
        model_from_st(&m, view, &merr);
    if (print_description(path, st, m, merr.msg, o.fmt == 1) == 0)
        status = EXIT_OK;
done:
    model_close(m);
    st_close(st);
    return status;
}
