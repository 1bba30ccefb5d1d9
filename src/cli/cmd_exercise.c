/* SPDX-License-Identifier: MIT */
/* cmd_exercise.c — `gpt2-embed exercise`: the chapter's two exercises, computed from the
 * weights file and printed the way the chapter prints them (4 decimals), or as JSON at full
 * precision for programs.
 *
 * Exercise 1 is arithmetic (parameters of a position-embedding matrix: GPT-2's 1024 x 768
 * against --ctx x --dim, 4096 x 4096 by default) plus, when weights are found, the actual
 * counts of the file's wpe and wte. Exercise 2 needs the weights and the tokenizer:
 * wpe's shape, cos(wpe[0], wpe[1]), cos(wpe[0], wpe[500]), the ID of " cat" and
 * cos(wte[cat] + wpe[0], wte[cat] + wpe[5]).
 *
 * `exercise 1`, `exercise 2`, `exercise 1 2` run what they name, in any format. Plain
 * `exercise` runs both when the weights are found; without them it prints exercise 1, notes
 * on stderr where it looked, says on stdout what exercise 2 needs and exits 0 (asking for 2 by
 * name exits 1 instead, and so does a weights file named by --weights or $GPT2_EMBED_WEIGHTS
 * that cannot be used). --format table prints one row per number (exercise, quantity, value).
 *
 * The numbers and the sentences after them are the library's course call
 * (gpt2embed_course_exercise): --format json prints its document as it is, the text and the
 * table read the same document, so every format shows one computation.
 */
#include "cli.h"
#include "i18n.h"
#include "json.h"
#include "load.h"
#include "opt.h"
#include "out.h"

#include <cjson/cJSON.h>

#include <stdlib.h>
#include <string.h>

#define OTHER_CTX 4096   /* exercise 1's other model, by default (the chapter's) */
#define OTHER_DIM 4096
#define FAR_POS 500      /* exercise 2's far position, the chapter's */
#define CAT " cat"       /* the token exercise 2 places at two positions */

typedef struct exercise_opts {
    load_opts lo;
    int fmt; /* FORMATS: 0 text, 1 json, 2 table (one row per number) */
    int code;
    int64_t ctx, dim;
} exercise_opts;

static const char *const FORMATS[] = {"text", "json", "table", NULL};

static const opt_def OPTS[] = {
    {.name = "--format", .kind = OPT_CHOICE, .off = offsetof(exercise_opts, fmt), .choices = FORMATS,
     .def = "text", .help = N_("4 decimals as the chapter prints them (text, or table: one row per number), or "
                "JSON at full precision")},
    {.name = "--ctx", .kind = OPT_INT, .off = offsetof(exercise_opts, ctx), .lo = 1, .hi = 1LL << 31,
     .def = "4096", .help = N_("exercise 1: positions of the other model")},
    {.name = "--dim", .kind = OPT_INT, .off = offsetof(exercise_opts, dim), .lo = 1, .hi = 1LL << 31,
     .metavar = "D", .def = "4096", .help = N_("exercise 1: width of the other model")},
    {.name = "--code", .kind = OPT_FLAG, .off = offsetof(exercise_opts, code),
     .help = N_("print the same computations as Python code: numpy reading the same weights "
                "file, and the Hub's copy through Hugging Face transformers as an alternative")},
    LOAD_OPT_ROWS(exercise_opts, lo),
    OPT_END,
};

static const opt_cmd CMD = {
    .name = "exercise",
    .synopsis = N_("[1] [2] [OPTIONS]"),
    .purpose = N_("\nThe chapter's exercises, from the weights:\n"
                  "  1  parameters of a position-embedding matrix: GPT-2's 1024 x 768 = 786,432 against\n"
                  "     N x D (default 4096 x 4096 = 16,777,216) and their ratio; with weights, the actual\n"
                  "     sizes of the file's wpe and wte. Needs no weights.\n"
                  "  2  the shape of wpe, cos(wpe[0], wpe[1]), cos(wpe[0], wpe[500]), the ID of \" cat\",\n"
                  "     cos(wte[cat] + wpe[0], wte[cat] + wpe[5]). Needs the weights and the tokenizer.\n"
                  "Without 1 or 2, both (only 1, with a note, when no weights are found). JSON keys:\n"
                  "exercise1.{gpt2_wpe_params, wpe_params, ratio} and exercise2.{wpe_shape,\n"
                  "cos_pos0_pos1, cos_pos0_pos500, far_pos, cos_pos0_far, cat_token_id,\n"
                  "cos_cat_pos0_pos5, median_random_token_pairs, random_pairs}; a wpe without\n"
                  "position 500 uses its last (far_pos), and cos_pos0_pos500 is left out."),
    .examples = N_("  gpt2-embed exercise\n"
                   "  gpt2-embed exercise 1 --ctx 2048 --dim 1024\n"
                   "  gpt2-embed exercise 2 --format json\n"),
    .opts = OPTS,
    .min_pos = 0,
    .max_pos = 2,
    .pos_name = "exercise numbers",
};
const opt_cmd *const cmd_exercise_spec = &CMD;

/* 16777216 -> "16,777,216" */
static const char *thousands(unsigned long long v, char buf[32])
{
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%llu", v);
    int o = 0;
    for (int i = 0; i < n; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = tmp[i];
    }
    buf[o] = '\0';
    return buf;
}

/* The numbers of the exercises, read back from the course's document. */
typedef struct ex_first {
    unsigned long long gpt2_params, params, file_wpe, file_wte;   /* file_*: 0 without weights */
    double ratio;
} ex_first;

typedef struct ex_second {
    size_t rows, cols, far, n_pairs;
    double c01, c0far, ccat;
    uint32_t cat;
} ex_second;

typedef struct ex_run {
    const exercise_opts *o;
    int one, two;           /* which exercises to print */
    const gpt2embed_model *m; /* NULL: no weights (exercise 1 alone) */
    const char *shown;      /* the weights file escaped for a person (text.h) */
    int missing;            /* 1: exercise 2 was asked for implicitly and no weights were found */
    char *json;             /* the course's document (with its sentences unless --format json) */
    cJSON *doc;             /* the same, read back */
    ex_first f;
    ex_second x;
} ex_run;

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = key ? cJSON_GetObjectItem(o, key) : o;
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* The course's document for r's exercises into r->json and, read back, r->f and r->x;
 * prints the error and returns -1 when it cannot be had. */
static int compute(ex_run *r, gpt2embed_tokenizer *tok)
{
    gpt2embed_error e;
    unsigned which = (r->one || !r->two ? GPT2EMBED_EXERCISE_1 : 0) | (r->two ? GPT2EMBED_EXERCISE_2 : 0);
    if (gpt2embed_course_exercise(r->m, tok, which, (uint64_t)r->o->ctx, (uint64_t)r->o->dim,
                                  r->o->fmt == 1 ? 0 : GPT2EMBED_COURSE_SAYS, &r->json, &e)) {
        cli_error("%s", e.message);
        return -1;
    }
    if (!(r->doc = cJSON_Parse(r->json))) {
        cli_error("out of memory");
        return -1;
    }
    const cJSON *one = cJSON_GetObjectItem(r->doc, "exercise1"), *two = cJSON_GetObjectItem(r->doc, "exercise2");
    const cJSON *shape = cJSON_GetObjectItem(two, "wpe_shape");
    r->f = (ex_first){(unsigned long long)num(one, "gpt2_wpe_params"), (unsigned long long)num(one, "wpe_params"),
                      (unsigned long long)num(one, "file_wpe_params"), (unsigned long long)num(one, "file_wte_params"),
                      num(one, "ratio")};
    r->x = (ex_second){(size_t)num(cJSON_GetArrayItem(shape, 0), NULL), (size_t)num(cJSON_GetArrayItem(shape, 1), NULL),
                       (size_t)num(two, "far_pos"), (size_t)num(two, "random_pairs"), num(two, "cos_pos0_pos1"),
                       num(two, "cos_pos0_far"), num(two, "cos_cat_pos0_pos5"), (uint32_t)num(two, "cat_token_id")};
    return 0;
}

static void print_json(const ex_run *r)
{
    fputs(r->json, stdout);   /* (the document ends with its newline) */
}

/* What exercise 2 needs, on stdout after exercise 1 (the note on stderr says where it looked). */
static void print_missing(void)
{
    fputs(_("\nExercise 2 is not computed: it needs GPT-2's weights. Get them with\n"
            "`gpt2-embed download`, or name a file with --weights FILE or $GPT2_EMBED_WEIGHTS.\n"),
          stdout);
}

/* One row of --format table: exercise, quantity, value (a number, formatted into val). */
typedef struct ex_row {
    const char *ex, *what;
    char val[64];
    char own[48];   /* a label with a number in it (what points here) */
} ex_row;

static size_t table_rows(const ex_run *r, ex_row *row)
{
    size_t n = 0;
    char b[32];
    const gpt2embed_model *m = r->m;
#define ROW(e, w, ...) (row[n].ex = (e), row[n].what = (w), snprintf(row[n].val, sizeof row[n].val, __VA_ARGS__), n++)
    if (r->one) {
        ROW("1", _("GPT-2: 1024 x 768"), "%s", thousands(r->f.gpt2_params, b));
        ROW("1", _("other model: positions x width"), "%lld x %lld = %s", (long long)r->o->ctx,
            (long long)r->o->dim, thousands(r->f.params, b));
        ROW("1", C_("exercise 1", "ratio"), "%.4f", r->f.ratio);
        if (m) {
            ROW("1", _("wpe in the file"), "%zu x %zu = %s", gpt2embed_n_ctx(m), gpt2embed_n_embd(m),
                thousands(r->f.file_wpe, b));
            ROW("1", _("wte in the file"), "%zu x %zu = %s", gpt2embed_n_vocab(m), gpt2embed_n_embd(m),
                thousands(r->f.file_wte, b));
        }
    }
    if (r->two) {
        ROW("2", _("wpe shape"), "(%zu, %zu)", r->x.rows, r->x.cols);
        ROW("2", "cos(wpe[0], wpe[1])", "%.4f", r->x.c01);
        snprintf(row[n].own, sizeof row[n].own, "cos(wpe[0], wpe[%zu])", r->x.far);
        ROW("2", row[n].own, "%.4f", r->x.c0far);
        ROW("2", _("token ID of \" cat\""), "%u", r->x.cat);
        ROW("2", "cos(wte[cat] + wpe[0], wte[cat] + wpe[5])", "%.4f", r->x.ccat);
    }
#undef ROW
    return n;
}

/* --format table: one row per number, columns aligned by display width. */
static void print_table(const ex_run *r)
{
    ex_row row[10];
    size_t n = table_rows(r, row), w[2] = {out_display_width(_("exercise")), out_display_width(_("quantity"))};
    for (size_t i = 0; i < n; i++) {
        w[0] = out_display_width(row[i].ex) > w[0] ? out_display_width(row[i].ex) : w[0];
        w[1] = out_display_width(row[i].what) > w[1] ? out_display_width(row[i].what) : w[1];
    }
    out_pad(stdout, _("exercise"), w[0]);
    fputs("  ", stdout);
    out_pad(stdout, _("quantity"), w[1]);
    printf("  %s\n", _("value"));
    for (size_t i = 0; i < n; i++) {
        out_pad(stdout, row[i].ex, w[0]);
        fputs("  ", stdout);
        out_pad(stdout, row[i].what, w[1]);
        printf("  %s\n", row[i].val);
    }
    if (r->m && (r->one || r->two))
        printf(_("weights: %s\n"), r->shown);
    if (r->missing)
        print_missing();
}

/* A label padded to `width` display columns (translated labels may be wider per byte). */
static void label(const char *s, size_t width)
{
    fputs("  ", stdout);
    out_pad(stdout, s, width);
    fputc(' ', stdout);
}

static void print_text(const ex_run *r)
{
    double ratio = r->f.ratio;
    char b1[32], b2[32], b3[32];
    const gpt2embed_model *m = r->m;
    if (r->one) {
        fputs(_("Exercise 1: parameters of a position-embedding matrix (positions x width)\n"), stdout);
        char other[64];
        snprintf(other, sizeof other, "%lld x %lld", (long long)r->o->ctx, (long long)r->o->dim);
        label("GPT-2:", 14);
        printf("%-12s = %s\n", "1024 x 768", thousands(r->f.gpt2_params, b1));
        label(_("other model:"), 14);
        printf("%-12s = %s\n", other, thousands(r->f.params, b2));
        label(_("ratio:"), 14);
        printf(_("%.4f (%.1fx as many parameters)\n"), ratio, ratio);
        if (m)
            printf(_("  in %s: wpe %zu x %zu = %s, wte %zu x %zu = %s\n"), r->shown, gpt2embed_n_ctx(m),
                   gpt2embed_n_embd(m), thousands(r->f.file_wpe, b1), gpt2embed_n_vocab(m), gpt2embed_n_embd(m),
                   thousands(r->f.file_wte, b3));
    }
    if (r->two) {
        if (r->one)
            printf("\n");
        printf(_("Exercise 2: learned positions in %s\n"), r->shown);
        label(_("wpe shape:"), 44);
        printf("(%zu, %zu)\n", r->x.rows, r->x.cols);
        label(_("cos(wpe[0], wpe[1]):"), 44);
        printf("%.4f\n", r->x.c01);
        char far[48];
        snprintf(far, sizeof far, _("cos(wpe[0], wpe[%zu]):"), r->x.far);
        label(far, 44);
        printf("%.4f\n", r->x.c0far);
        label(_("token ID of \" cat\":"), 44);
        printf("%u\n", r->x.cat);
        label(_("cos(wte[cat] + wpe[0], wte[cat] + wpe[5]):"), 44);
        printf("%.4f\n", r->x.ccat);
        /* what the numbers say (the course's sentences): a model without position 500 first
         * says which position stands in for it; then a blank line and the rest */
        const cJSON *says = cJSON_GetObjectItem(r->doc, "says");
        int i = 0, n = cJSON_GetArraySize(says);
        if (r->x.far != FAR_POS && n)
            printf("%s\n", cJSON_GetArrayItem(says, i++)->valuestring);
        printf("\n");
        for (; i < n; i++)
            printf("%s\n", cJSON_GetArrayItem(says, i)->valuestring);
    }
    if (r->missing)
        print_missing();
}

/* A comment line of the printed code: "# " and the translated text. */
static void comment(const char *indent, const char *text)
{
    printf("%s# %s\n", indent, text);
}

/* The local file's part: numpy reads the safetensors file by hand (8-byte header length,
 * JSON header, raw rows), float32 sums as gpt2-embed's, cosines in float64, so the printed
 * digits agree with `gpt2-embed exercise` on the same file. */
static void print_code_local(const exercise_opts *o, const char *path, long long cat)
{
    comment("", _("gpt2-embed exercise: the same computations in Python (numpy), on the same weights file"));
    printf("import json\nimport struct\n\nimport numpy as np\n\n");
    if (path) {
        comment("", _("the file gpt2-embed read"));
        printf("PATH = ");
        out_json_string(stdout, path, strlen(path));
        printf("\n");
    } else {
        comment("", _("no weights were found here: put the path of your model.safetensors"));
        printf("PATH = \"model.safetensors\"\n");
    }
    printf("\n\ndef load(path):\n");
    comment("    ", _("safetensors read by hand: 8 bytes of header length, the JSON header, then the data"));
    printf("    with open(path, \"rb\") as f:\n"
           "        n = struct.unpack(\"<Q\", f.read(8))[0]\n"
           "        header = json.loads(f.read(n))\n"
           "    data = np.memmap(path, dtype=np.uint8, mode=\"r\", offset=8 + n)\n\n"
           "    def tensor(name):\n"
           "        t = header.get(name) or header[\"transformer.\" + name]\n"
           "        raw = data[t[\"data_offsets\"][0]:t[\"data_offsets\"][1]]\n"
           "        if t[\"dtype\"] == \"BF16\":\n"
           "            x = (raw.view(\"<u2\").astype(np.uint32) << 16).view(np.float32)\n"
           "        else:\n"
           "            x = raw.view({\"F32\": \"<f4\", \"F16\": \"<f2\"}[t[\"dtype\"]]).astype(np.float32)\n"
           "        return x.reshape(t[\"shape\"])\n"
           "    return tensor(\"wte.weight\"), tensor(\"wpe.weight\")\n\n\n"
           "def cos(a, b):\n");
    comment("    ", _("accumulated in float64, as gpt2-embed does"));
    printf("    a, b = a.astype(np.float64), b.astype(np.float64)\n"
           "    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))\n\n\n"
           "wte, wpe = load(PATH)\n");
    comment("", _("exercise 1: parameters of the position embedding"));
    printf("print(\"wpe parameters:\", wpe.size, \" other model:\", %lld * %lld)\n",
           (long long)o->ctx, (long long)o->dim);
    comment("", _("exercise 2: learned positions"));
    printf("print(\"wpe shape:\", wpe.shape)\n"
           "print(f\"cos(wpe[0], wpe[1]):   {cos(wpe[0], wpe[1]):.4f}\")\n"
           "print(f\"cos(wpe[0], wpe[500]): {cos(wpe[0], wpe[500]):.4f}\")\n");
    comment("", _("the ID of \" cat\" in GPT-2's tokenizer (tiktoken: get_encoding(\"gpt2\").encode(\" cat\"))"));
    printf("cat = %lld\n", cat);
    printf("x0, x5 = wte[cat] + wpe[0], wte[cat] + wpe[5]\n"
           "print(f\"cos(wte[cat] + wpe[0], wte[cat] + wpe[5]): {cos(x0, x5):.4f}\")\n");
}

/* The alternative: the Hub's copy through Hugging Face transformers (PyTorch), in a function
 * that runs only when called (its numbers differ from a local file of another revision). */
static void print_code_hub(const exercise_opts *o)
{
    const gpt2embed_model_info *all;
    const char *repo = "openai-community/gpt2", *name = o->lo.model ? o->lo.model : "gpt2";
    for (size_t i = 0, n = gpt2embed_known_models(&all); i < n; i++)
        if (strcmp(all[i].name, name) == 0)
            repo = all[i].repo;
    printf("\n\n");
    comment("", _("alternative: the Hub's copy with Hugging Face transformers (PyTorch); call hub()."));
    comment("", _("Its numbers are those of the Hub's file, which may differ from a local file."));
    printf("def hub():\n"
           "    import torch\n"
           "    from transformers import GPT2Model, GPT2TokenizerFast\n\n"
           "    model = GPT2Model.from_pretrained(\"%s\").eval()\n"
           "    tokenizer = GPT2TokenizerFast.from_pretrained(\"%s\")\n"
           "    wte, wpe = model.wte.weight.detach(), model.wpe.weight.detach()\n", repo, repo);
    printf("    cat = tokenizer.encode(\" cat\")[0]\n"
           "    print(\"wpe shape:\", tuple(wpe.shape))\n"
           "    print(f\"cos(wpe[0], wpe[1]):   {cos(wpe[0].numpy(), wpe[1].numpy()):.4f}\")\n"
           "    print(f\"cos(wpe[0], wpe[500]): {cos(wpe[0].numpy(), wpe[500].numpy()):.4f}\")\n"
           "    x0, x5 = (wte[cat] + wpe[0]).numpy(), (wte[cat] + wpe[5]).numpy()\n"
           "    print(\"token ID of ' cat':\", cat)\n"
           "    print(f\"cos(wte[cat] + wpe[0], wte[cat] + wpe[5]): {cos(x0, x5):.4f}\")\n");
    comment("    ", _("the model's own input layer gives the same rows (eval mode: dropout off)"));
    printf("    ids = torch.tensor([[cat] * 6])\n"
           "    with torch.no_grad():\n"
           "        h0 = model(ids, output_hidden_states=True).hidden_states[0][0]\n"
           "    print(\"hidden_states[0] == wte + wpe:\", torch.equal(h0[5], wte[cat] + wpe[5]))\n");
}

/* --code: the weights file the command would read (none: a placeholder) and " cat"'s ID. */
static int print_code(const exercise_opts *o)
{
    gpt2embed_model *m = NULL;
    gpt2embed_tokenizer *tok = NULL;
    uint32_t cat;
    gpt2embed_error e;
    load_model_err(&o->lo, &m, &e);   /* none: the code says where to put the path */
    if (load_tokenizer(o->lo.tokenizer, &tok) || load_single_token(tok, CAT, &cat)) {
        gpt2embed_model_close(m), gpt2embed_tokenizer_close(tok);
        return EXIT_ERR;
    }
    print_code_local(o, gpt2embed_model_path(m), cat);
    print_code_hub(o);
    gpt2embed_model_close(m), gpt2embed_tokenizer_close(tok);
    return cli_flush_stdout() == 0 ? EXIT_OK : EXIT_ERR;
}

/* Which exercises the positionals name (sets one, two); -1 after a usage error. */
static int which_exercises(const opt_parsed *p, int *one, int *two)
{
    *one = *two = p->npos == 0;
    for (int k = 0; k < p->npos; k++) {
        if (strcmp(p->pos[k], "1") == 0)
            *one = 1;
        else if (strcmp(p->pos[k], "2") == 0)
            *two = 1;
        else
            return opt_usage_error(&CMD, "there are exercises 1 and 2, got '%s'", p->pos[k]);
    }
    return 0;
}

int cmd_exercise(int argc, char **argv)
{
    exercise_opts o = {.ctx = OTHER_CTX, .dim = OTHER_DIM};
    opt_parsed p;
    ex_run run = {.o = &o};
    int r = opt_parse(&CMD, argc, argv, &o, &p);
    if (r == 0)
        r = which_exercises(&p, &run.one, &run.two);
    int by_name = p.npos > 0;
    opt_free(&p);
    if (r)
        return opt_exit(r);
    if (o.code)
        return print_code(&o);

    gpt2embed_model *m = NULL;
    gpt2embed_tokenizer *tok = NULL;
    int rc = EXIT_ERR, missing = 0;
    uint32_t cat;
    gpt2embed_error e;
    char *shown = NULL;
    int named = o.lo.weights || getenv("GPT2_EMBED_WEIGHTS");   /* a file the user chose */
    if (run.two && load_model_err(&o.lo, &m, &e) != 0) {
        if (named) {   /* a named file that cannot be used is an error, not a note */
            cli_error("%s", e.message);
            goto done;
        }
        missing = 1; /* exercise 1 is still printed; what 2 needs is said after it */
        run.two = 0;
    } else if (run.two && (load_tokenizer(o.lo.tokenizer, &tok) || load_single_token(tok, CAT, &cat))) {
        goto done;
    } else if (!run.two && named && load_model(&o.lo, &m)) {
        goto done;
    }
    run.m = m;
    const char *path = gpt2embed_model_path(m);
    shown = path ? text_escape(path, strlen(path), TEXT_ESC_BIDI) : NULL;
    run.shown = shown ? shown : "?";
    run.missing = missing && !by_name;
    if (compute(&run, tok))
        goto done;
    if ((run.one || run.two) && o.fmt == 1)
        print_json(&run);
    else if ((run.one || run.two) && o.fmt == 2)
        print_table(&run);
    else if (run.one || run.two)
        print_text(&run);
    rc = cli_flush_stdout() == 0 ? EXIT_OK : EXIT_ERR;
    if (missing && by_name) {
        cli_error("exercise 2 needs GPT-2's weights: %s", e.message);
        rc = EXIT_ERR;
    } else if (missing) {
        cli_note("exercise 2 needs GPT-2's weights: %s", e.message);
    }
done:
    free(shown);
    cJSON_Delete(run.doc);
    gpt2embed_free(run.json);
    gpt2embed_tokenizer_close(tok);
    gpt2embed_model_close(m);
    return rc;
}
