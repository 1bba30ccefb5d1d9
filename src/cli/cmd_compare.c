/* SPDX-License-Identifier: MIT */
/* cmd_compare.c — `gpt2-embed compare TEXT_A TEXT_B`: the chapter's opening puzzle as a
 * command. Two texts with the same tokens in another order (犬が猫を追いかけた /
 * 猫が犬を追いかけた) are the same multiset of token vectors — unmasked self-attention without
 * positions cannot tell them apart, GPT-2's causal mask separates only the rows whose prefixes
 * differ — while GPT-2's inputs wte[id] + wpe[t] depend on where a token stands. The numbers
 * and the sentences are the library's course call (gpt2embed_course_order): --format json
 * prints its document as it is, the table and the figure read the same document; this file
 * parses, prints and nothing else.
 */
#include "cli.h"
#include "figures.h"
#include "i18n.h"
#include "load.h"
#include "opt.h"
#include "out.h"
#include "textfmt.h"

#include <cjson/cJSON.h>

#include <stdlib.h>
#include <string.h>

typedef struct compare_opts {
    load_opts lo;
    int fmt;
    const char *out, *plot;
} compare_opts;

static const char *const FORMATS[] = {"table", "json", NULL};

static const opt_def OPTS[] = {
    {.name = "--format", .kind = OPT_CHOICE, .off = offsetof(compare_opts, fmt), .choices = FORMATS,
     .def = "table", .help = N_("aligned text, or one JSON object")},
    {.name = "--output", .short_name = 'o', .kind = OPT_FILE, .off = offsetof(compare_opts, out),
     .help = N_("write to FILE (atomically; .json picks the format)")},
    {.name = "--plot", .kind = OPT_FILE, .off = offsetof(compare_opts, plot),
     .help = N_("also draw FILE.png: per position, A's input row wte + wpe, B's, and A - B as "
                "colour strips (a row of A - B has the colour of 0 where the two inputs are equal)")},
    LOAD_OPT_ROWS(compare_opts, lo),
    OPT_END,
};

static const opt_cmd CMD = {
    .name = "compare",
    .synopsis = N_("[OPTIONS] TEXT_A TEXT_B"),
    .purpose = N_("Compares two texts the way the model's input sees them: their token sequences\n"
                  "side by side with, per position, the cosine of the token vectors wte[id] and of\n"
                  "the summed inputs wte[id] + wpe[t]; then the multiset view self-attention has\n"
                  "(rows of A with an equal row in B, without and with positions), a moved token at\n"
                  "its two positions, and a toy self-attention softmax(X X^T / sqrt(d)) X run on both\n"
                  "texts, unmasked and with GPT-2's causal mask (an illustration, not GPT-2's trained\n"
                  "attention). The conclusion (distinguishable or not) follows from these numbers."),
    .examples = N_("  gpt2-embed compare 犬が猫を追いかけた 猫が犬を追いかけた\n"
                   "  gpt2-embed compare \"the dog bites the man\" \"the man bites the dog\" -o cmp.json\n"),
    .opts = OPTS,
    .min_pos = 2,
    .max_pos = 2,
    .pos_name = "TEXT",
};
const opt_cmd *const cmd_compare_spec = &CMD; /* for the manual (commands.def OPTS) */

/* One text of the course's document: its IDs and each token as tables show it ("犬 (1/3)"). */
typedef struct side {
    const char *text;
    const cJSON *ids, *labels;   /* arrays of the document */
    size_t n;
} side;

/* Column widths of the table: at least the English ones, wider for wider headings. */
typedef struct widths {
    size_t pos, id, tok, same;
} widths;

static size_t wmax(size_t w, const char *s)
{
    size_t d = out_display_width(s);
    return d > w ? d : w;
}

static const char *str_at(const cJSON *a, size_t i)
{
    const cJSON *v = cJSON_GetArrayItem(a, (int)i);
    return cJSON_IsString(v) ? v->valuestring : "?";
}

static double num_at(const cJSON *a, size_t i)
{
    const cJSON *v = cJSON_GetArrayItem(a, (int)i);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static void table_row(FILE *f, const side *s, size_t t, const widths *w)
{
    fputs("  ", f);
    if (t >= s->n) {
        fprintf(f, "%*s ", (int)w->id, "");
        out_pad(f, "", w->tok);
        return;
    }
    fprintf(f, "%*u ", (int)w->id, (unsigned)num_at(s->ids, t));
    out_pad(f, str_at(s->labels, t), w->tok);
}

static void print_table(FILE *f, const side s[2], const cJSON *doc)
{
    /* the texts as a person may see them: controls, bidi controls and separators escaped */
    char *ea = text_escape(s[0].text, strlen(s[0].text), TEXT_ESC_BIDI);
    char *eb = text_escape(s[1].text, strlen(s[1].text), TEXT_ESC_BIDI);
    fprintf(f, _("A: %s  (%zu tokens)\nB: %s  (%zu tokens)\n\n"), ea ? ea : "?", s[0].n, eb ? eb : "?", s[1].n);
    free(ea);
    free(eb);
    /* headings by display width (translations are wider per byte than their columns) */
    widths w = {wmax(4, _("pos")), wmax(wmax(6, _("A id")), _("B id")),
                wmax(wmax(14, _("A token")), _("B token")), wmax(wmax(wmax(4, _("same")), _("yes")), _("no"))};
    out_rpad(f, _("pos"), w.pos);
    fputs("  ", f);
    out_rpad(f, _("A id"), w.id);
    fputc(' ', f);
    out_pad(f, _("A token"), w.tok);
    fputs("  ", f);
    out_rpad(f, _("B id"), w.id);
    fputc(' ', f);
    out_pad(f, _("B token"), w.tok);
    fputs("  ", f);
    out_rpad(f, _("same"), w.same);
    fprintf(f, "  %9s  %13s\n", "cos(wte)", "cos(wte+wpe)");
    const cJSON *same = cJSON_GetObjectItem(doc, "same_id"), *tc = cJSON_GetObjectItem(doc, "token_cos"),
                *ic = cJSON_GetObjectItem(doc, "input_cos");
    size_t rows = s[0].n > s[1].n ? s[0].n : s[1].n, n_pos = (size_t)cJSON_GetArraySize(same);
    for (size_t t = 0; t < rows; t++) {
        fprintf(f, "%*zu", (int)w.pos, t);
        table_row(f, &s[0], t, &w);
        table_row(f, &s[1], t, &w);
        if (t < n_pos) {
            fputs("  ", f);
            out_rpad(f, cJSON_IsTrue(cJSON_GetArrayItem(same, (int)t)) ? _("yes") : _("no"), w.same);
            fprintf(f, "  %9.4f  %13.4f", num_at(tc, t), num_at(ic, t));
        }
        fputc('\n', f);
    }
    fprintf(f, _("\nsame multiset of tokens: %s\n"),
            cJSON_IsTrue(cJSON_GetObjectItem(doc, "same_multiset")) ? _("yes") : _("no"));
    const cJSON *differ = cJSON_GetObjectItem(doc, "positions_differ");
    fprintf(f, _("summed inputs wte + wpe: %zu of %zu positions differ\n"),
            cJSON_IsNumber(differ) ? (size_t)differ->valuedouble : 0, n_pos);
    const cJSON *line;   /* what the numbers say (the course's sentences) */
    cJSON_ArrayForEach(line, cJSON_GetObjectItem(doc, "says"))
        fprintf(f, "%s\n", cJSON_IsString(line) ? line->valuestring : "");
}

/* The row labels of the figure: "t  A's token | B's token" (the characters behind each). */
static char *row_label(const side s[2], size_t t)
{
    const char *a = str_at(s[0].labels, t), *b = str_at(s[1].labels, t);
    size_t n = strlen(a) + strlen(b) + 32;
    char *l = malloc(n);
    if (l)
        snprintf(l, n, "%zu  %s | %s", t, a, b);
    return l;
}

/* The figure (fig_order_png): per position t < min(T_a, T_b), A's input row, B's and A - B,
 * the rows that differ marked; labelled "t  A's token | B's token". 0, or -1 after printing
 * the error. */
static int draw(const compare_opts *o, const gpt2embed_model *m, const side s[2])
{
    size_t n = s[0].n < s[1].n ? s[0].n : s[1].n;
    char **labels = calloc(n ? n : 1, sizeof *labels);
    uint32_t *ids = malloc(2 * (n ? n : 1) * sizeof *ids);
    int rc = -1, ok = labels && ids;
    for (size_t t = 0; ok && t < n; t++) {
        ids[t] = (uint32_t)num_at(s[0].ids, t);
        ids[n + t] = (uint32_t)num_at(s[1].ids, t);
        ok = (labels[t] = row_label(s, t)) != NULL;
    }
    if (!ok) {
        cli_error("out of memory");
    } else {
        render_png png;
        g2e_err e;
        rc = fig_write(fig_order_png(m, ids, ids + n, n, (const char *const *)labels, &png, &e), &png, &e, o->plot);
    }
    for (size_t t = 0; labels && t < n; t++)
        free(labels[t]);
    free(labels);
    free(ids);
    return rc;
}

/* Each text's tokens, checked before the weights are looked for (as the comparison itself
 * tokenizes them: <|endoftext|> as text); prints the error and returns -1 on failure. */
static int check_texts(gpt2embed_tokenizer *tok, const side s[2])
{
    for (int k = 0; k < 2; k++) {
        gpt2embed_error e;
        uint32_t *ids;
        size_t n;
        if (gpt2embed_tokenize_ex(tok, s[k].text, strlen(s[k].text), GPT2EMBED_SPECIAL_TEXT, &ids, NULL, &n, &e)) {
            cli_error("text %c: %s", 'A' + k, e.message);
            return -1;
        }
        gpt2embed_free(ids);
    }
    return 0;
}

static int run(const compare_opts *o, side s[2])
{
    gpt2embed_tokenizer *tok = NULL;
    gpt2embed_model *m = NULL;
    char *json = NULL;
    cJSON *doc = NULL;
    out_file of = {0};
    gpt2embed_error e;
    int rc = EXIT_ERR;
    if (load_tokenizer(o->lo.tokenizer, &tok) || check_texts(tok, s) || load_model(&o->lo, &m))
        goto done;
    if (gpt2embed_course_order(m, tok, s[0].text, strlen(s[0].text), s[1].text, strlen(s[1].text),
                               o->fmt == 1 ? 0 : GPT2EMBED_COURSE_SAYS, &json, &e)) {
        cli_error("%s", e.message);
        goto done;
    }
    if (!(doc = cJSON_Parse(json))) {
        cli_error("out of memory");
        goto done;
    }
    for (int k = 0; k < 2; k++) {
        const cJSON *side_k = cJSON_GetObjectItem(doc, k ? "b" : "a");
        s[k].ids = cJSON_GetObjectItem(side_k, "ids");
        s[k].labels = cJSON_GetObjectItem(side_k, "labels");
        s[k].n = (size_t)cJSON_GetArraySize(s[k].ids);
    }
    if (o->plot && draw(o, m, s))
        goto done;
    if (out_open(&of, o->out, 0))
        goto done;
    if (o->fmt == 1)
        fputs(json, of.f);   /* (the document ends with its newline) */
    else
        print_table(of.f, s, doc);
    rc = out_commit(&of) ? EXIT_ERR : EXIT_OK;
done:
    out_abort(&of);
    cJSON_Delete(doc);
    gpt2embed_free(json);
    gpt2embed_tokenizer_close(tok);
    gpt2embed_model_close(m);
    return rc;
}

int cmd_compare(int argc, char **argv)
{
    compare_opts o = {0};
    opt_parsed p = {0};
    int r = opt_parse(&CMD, argc, argv, &o, &p);
    if (r == 0)
        r = out_pick_format(&CMD, o.out, FORMATS, opt_given(&CMD, &p, "--format"), &o.fmt);
    if (r) {
        opt_free(&p);
        return opt_exit(r);
    }
    side s[2] = {{.text = p.pos[0]}, {.text = p.pos[1]}};
    cli_text_names_file(p.pos[0], 0);
    cli_text_names_file(p.pos[1], 0);
    int rc = run(&o, s);
    opt_free(&p);
    return rc;
}
