/* SPDX-License-Identifier: MIT */
/* cmd_compare.c — `gpt2-embed compare TEXT_A TEXT_B`: the chapter's opening puzzle as a
 * command. Two texts with the same tokens in another order (犬が猫を追いかけた /
 * 猫が犬を追いかけた) are the same multiset of token vectors — unmasked self-attention without
 * positions cannot tell them apart, GPT-2's causal mask separates only the rows whose prefixes
 * differ — while GPT-2's inputs wte[id] + wpe[t] depend on where a token stands. The numbers
 * come from order.h, the sentences from interpret.h; this file parses, prints and nothing else.
 */
#include "bridge.h"
#include "cli.h"
#include "course_json.h"
#include "embed.h"
#include "figures.h"
#include "i18n.h"
#include "interpret.h"
#include "load.h"
#include "json.h"
#include "opt.h"
#include "order.h"
#include "out.h"
#include "textfmt.h"
#include "tokchars.h"

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

typedef struct side {
    const char *text;
    tok_ids t;
    tokchars_span *sp;      /* (t.n): the characters behind each token */
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

static void table_row(FILE *f, const side *s, size_t t, const widths *w)
{
    fputs("  ", f);
    if (t >= s->t.n) {
        fprintf(f, "%*s ", (int)w->id, "");
        out_pad(f, "", w->tok);
        return;
    }
    char *p = tokchars_display_alloc(s->text, &s->sp[t]);
    fprintf(f, "%*u ", (int)w->id, s->t.ids[t]);
    out_pad(f, p ? p : "?", w->tok);
    free(p);
}

static void print_table(FILE *f, const side s[2], const order_cmp *c)
{
    /* the texts as a person may see them: controls, bidi controls and separators escaped */
    char *ea = text_escape(s[0].text, strlen(s[0].text), TEXT_ESC_BIDI);
    char *eb = text_escape(s[1].text, strlen(s[1].text), TEXT_ESC_BIDI);
    fprintf(f, _("A: %s  (%zu tokens)\nB: %s  (%zu tokens)\n\n"), ea ? ea : "?", c->n_a, eb ? eb : "?", c->n_b);
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
    size_t rows = c->n_a > c->n_b ? c->n_a : c->n_b;
    for (size_t t = 0; t < rows; t++) {
        fprintf(f, "%*zu", (int)w.pos, t);
        table_row(f, &s[0], t, &w);
        table_row(f, &s[1], t, &w);
        if (t < c->n_pos) {
            fputs("  ", f);
            out_rpad(f, c->same_id[t] ? _("yes") : _("no"), w.same);
            fprintf(f, "  %9.4f  %13.4f", c->tok_cos[t], c->input_cos[t]);
        }
        fputc('\n', f);
    }
    fprintf(f, _("\nsame multiset of tokens: %s\n"), c->same_multiset ? _("yes") : _("no"));
    fprintf(f, _("summed inputs wte + wpe: %zu of %zu positions differ\n"), c->n_differ, c->n_pos);
    order_text t[2] = {{s[0].text, s[0].t.ids, s[0].sp, s[0].t.n, strlen(s[0].text)},
                       {s[1].text, s[1].t.ids, s[1].sp, s[1].t.n, strlen(s[1].text)}};
    interp_order(f, c, t);
}

static void print_json(FILE *f, const side s[2], const order_cmp *c)
{
    order_text t[2] = {{s[0].text, s[0].t.ids, s[0].sp, s[0].t.n, strlen(s[0].text)},
                       {s[1].text, s[1].t.ids, s[1].sp, s[1].t.n, strlen(s[1].text)}};
    course_order_json(f, t, c, NULL);
}

/* The row labels of the figure: "t  A's token | B's token" (the characters behind each). */
static char *row_label(const side s[2], size_t t)
{
    char *a = tokchars_display_alloc(s[0].text, &s[0].sp[t]);
    char *b = tokchars_display_alloc(s[1].text, &s[1].sp[t]);
    size_t n = (a ? strlen(a) : 1) + (b ? strlen(b) : 1) + 32;
    char *l = malloc(n);
    if (l)
        snprintf(l, n, "%zu  %s | %s", t, a ? a : "?", b ? b : "?");
    free(a);
    free(b);
    return l;
}

/* The figure (fig_order_png): per position t < min(T_a, T_b), A's input row, B's and A - B,
 * the rows that differ marked; labelled "t  A's token | B's token". 0, or -1 after printing
 * the error. */
static int draw(const compare_opts *o, const gpt2embed_model *m, const side s[2], const order_cmp *c)
{
    size_t n = c->n_pos;
    char **labels = calloc(n, sizeof *labels);
    int rc = -1;
    for (size_t t = 0; labels && t < n; t++)
        if (!(labels[t] = row_label(s, t))) {
            for (size_t k = 0; k < t; k++)
                free(labels[k]);
            free(labels);
            labels = NULL;
        }
    if (!labels) {
        cli_error("out of memory");
        return -1;
    }
    render_png png;
    g2e_err e;
    rc = fig_write(fig_order_png(m, s[0].t.ids, s[1].t.ids, n, (const char *const *)labels, &png, &e),
                   &png, &e, o->plot);
    for (size_t t = 0; t < n; t++)
        free(labels[t]);
    free(labels);
    return rc;
}

/* Tokenizes both texts; prints the error and returns -1 on failure. */
static int tokenize_both(tok_tokenizer *tok, side s[2])
{
    for (int k = 0; k < 2; k++) {
        g2e_err e;
        size_t len = strlen(s[k].text);
        if (tok_encode(tok, s[k].text, len, TOK_SPECIAL_TEXT, 0, &s[k].t, NULL, &e)) {
            cli_error("text %c: %s", 'A' + k, e.msg);
            return -1;
        }
        if (!(s[k].sp = malloc((s[k].t.n + 1) * sizeof *s[k].sp))) {
            cli_error("out of memory");
            return -1;
        }
        if (tokchars_spans(s[k].text, len, s[k].t.offsets, s[k].t.n, s[k].sp, &e)) {
            cli_error("text %c: %s", 'A' + k, e.msg);
            return -1;
        }
    }
    return 0;
}

static int run(const compare_opts *o, side s[2])
{
    gpt2embed_tokenizer *gt = NULL;
    gpt2embed_model *gm = NULL;
    tok_tokenizer *tok = NULL;
    const g2e_model *m = NULL;
    order_cmp c = {0};
    out_file of = {0};
    g2e_err e;
    int rc = EXIT_ERR;
    if (load_tokenizer(o->lo.tokenizer, &gt) || !(tok = bridge_take(gt)) || tokenize_both(tok, s) ||
        load_model(&o->lo, &gm))
        goto done;
    m = bridge_model(gm);
    if (order_compare(m, s[0].t.ids, s[0].t.n, s[1].t.ids, s[1].t.n, &c, &e)) {
        cli_error("%s", e.msg);
        goto done;
    }
    if (o->plot && draw(o, gm, s, &c))
        goto done;
    if (out_open(&of, o->out, 0))
        goto done;
    if (o->fmt == 1)
        print_json(of.f, s, &c);
    else
        print_table(of.f, s, &c);
    rc = out_commit(&of) ? EXIT_ERR : EXIT_OK;
done:
    out_abort(&of);
    order_free(&c);
    for (int k = 0; k < 2; k++) {
        tok_ids_free(&s[k].t);
        free(s[k].sp);
    }
    bridge_give(gt, tok);
    gpt2embed_tokenizer_close(gt);
    gpt2embed_model_close(gm);
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
