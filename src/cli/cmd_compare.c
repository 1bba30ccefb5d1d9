/* cmd_compare.c — `gpt2-embed compare TEXT_A TEXT_B`: the chapter's opening puzzle as a
 * command. Two texts with the same tokens in another order (犬が猫を追いかけた /
 * 猫が犬を追いかけた) are the same bag of token vectors — a model without positions cannot
 * tell them apart — while GPT-2's inputs wte[id] + wpe[t] differ position by position.
 * The numbers come from order.h; this file parses, prints and nothing else.
 */
#include "cli.h"
#include "load.h"
#include "opt.h"
#include "order.h"
#include "out.h"

#include <stdlib.h>
#include <string.h>

typedef struct compare_opts {
    load_opts lo;
    int fmt;
    const char *out;
} compare_opts;

static const char *const FORMATS[] = {"table", "json", NULL};

static const opt_def OPTS[] = {
    {.name = "--format", .kind = OPT_CHOICE, .off = offsetof(compare_opts, fmt), .choices = FORMATS,
     .def = "table", .help = N_("aligned text, or one JSON object")},
    {.name = "--output", .short_name = 'o', .kind = OPT_FILE, .off = offsetof(compare_opts, out),
     .help = N_("write to FILE (atomically; .json picks the format)")},
    LOAD_OPT_ROWS(compare_opts, lo),
    OPT_END,
};

static const opt_cmd CMD = {
    .name = "compare",
    .synopsis = N_("[OPTIONS] TEXT_A TEXT_B"),
    .purpose = N_("Compares two texts the way the model's input sees them: their token sequences\n"
                  "side by side; whether they hold the same tokens (the same multiset); the mean of\n"
                  "each text's token vectors (the 'bag', identical when the multisets are equal, so\n"
                  "without positions the texts cannot be told apart); and, position by position, the\n"
                  "cosine of the summed input vectors wte[id] + wpe[t], which differ where the order\n"
                  "differs."),
    .examples = N_("  gpt2-embed compare 犬が猫を追いかけた 猫が犬を追いかけた\n"
                   "  gpt2-embed compare \"the dog bites the man\" \"the man bites the dog\" -o cmp.json\n"),
    .opts = OPTS,
    .min_pos = 2,
    .max_pos = 2,
    .pos_name = "TEXT",
};

typedef struct side {
    const char *text;
    tok_ids t;
} side;

/* The piece of token id, visible on one line (caller frees; "?" copy when unavailable). */
static char *piece(tok_tokenizer *tok, uint32_t id)
{
    const uint8_t *b;
    size_t n;
    char *v = NULL;
    if (tok_piece(tok, id, &b, &n, NULL) == 0)
        v = out_piece_visible((const char *)b, n);
    return v ? v : strdup("?");
}

static void table_row(FILE *f, tok_tokenizer *tok, const side *s, size_t t)
{
    if (t >= s->t.n) {
        fprintf(f, "  %6s %-12s", "", "");
        return;
    }
    char *p = piece(tok, s->t.ids[t]);
    fprintf(f, "  %6u ", s->t.ids[t]);
    out_pad(f, p ? p : "?", 12);
    free(p);
}

static void print_table(FILE *f, tok_tokenizer *tok, const side s[2], const order_cmp *c)
{
    fprintf(f, "A: %s  (%zu tokens)\nB: %s  (%zu tokens)\n\n", s[0].text, c->n_a, s[1].text, c->n_b);
    fprintf(f, "%4s  %6s %-12s  %6s %-12s  %4s  %9s  %13s\n", "pos", "A id", "A piece", "B id",
            "B piece", "same", "cos(wte)", "cos(wte+wpe)");
    size_t rows = c->n_a > c->n_b ? c->n_a : c->n_b;
    for (size_t t = 0; t < rows; t++) {
        fprintf(f, "%4zu", t);
        table_row(f, tok, &s[0], t);
        table_row(f, tok, &s[1], t);
        if (t < c->n_pos)
            fprintf(f, "  %4s  %9.4f  %13.4f", c->same_id[t] ? "yes" : "no", c->tok_cos[t],
                    c->input_cos[t]);
        fputc('\n', f);
    }
    fprintf(f, "\nsame multiset of tokens: %s\n", c->same_multiset ? "yes" : "no");
    fprintf(f, "bag of token vectors (mean of wte rows): %s, cos %.4f\n",
            c->bags_identical ? "identical bit for bit" : "different", c->bag_cos);
    fprintf(f, "summed inputs wte + wpe: %zu of %zu positions differ\n", c->n_differ, c->n_pos);
    if (c->same_multiset && c->n_differ > 0)
        fprintf(f, "conclusion: the same tokens in another order. Without positions the two texts\n"
                   "are one and the same bag of vectors; the position vectors make %zu of the %zu\n"
                   "input rows differ, and that is how GPT-2 tells the orders apart.\n",
                c->n_differ, c->n_pos);
    else if (c->same_multiset)
        fprintf(f, "conclusion: the two texts are the same token sequence; nothing tells them apart.\n");
    else
        fprintf(f, "conclusion: the texts hold different tokens, so even without positions their\n"
                   "bags of token vectors differ; the order puzzle needs the same tokens reordered.\n");
}

static void json_ids(FILE *f, tok_tokenizer *tok, const side *s)
{
    fputs("{\"text\": ", f);
    out_json_string(f, s->text, strlen(s->text));
    fputs(", \"ids\": [", f);
    for (size_t t = 0; t < s->t.n; t++)
        fprintf(f, "%s%u", t ? ", " : "", s->t.ids[t]);
    fputs("], \"pieces\": [", f);
    for (size_t t = 0; t < s->t.n; t++) {
        const uint8_t *b;
        size_t n = 0;
        if (tok_piece(tok, s->t.ids[t], &b, &n, NULL) != 0)
            b = (const uint8_t *)"", n = 0;
        fputs(t ? ", " : "", f);
        out_json_string(f, (const char *)b, n);
    }
    fputs("]}", f);
}

static void json_doubles(FILE *f, const char *key, const double *v, size_t n)
{
    fprintf(f, ", \"%s\": [", key);
    for (size_t t = 0; t < n; t++) {
        fputs(t ? ", " : "", f);
        out_f64(f, v[t]);
    }
    fputc(']', f);
}

static void json_floats(FILE *f, const char *key, const float *v, size_t n)
{
    fprintf(f, ", \"%s\": [", key);
    for (size_t t = 0; t < n; t++) {
        fputs(t ? ", " : "", f);
        out_f32(f, v[t]);
    }
    fputc(']', f);
}

static void print_json(FILE *f, tok_tokenizer *tok, const side s[2], const order_cmp *c)
{
    fputs("{\"a\": ", f);
    json_ids(f, tok, &s[0]);
    fputs(", \"b\": ", f);
    json_ids(f, tok, &s[1]);
    fprintf(f, ", \"same_multiset\": %s, \"bags_identical\": %s, \"bag_cos\": ",
            c->same_multiset ? "true" : "false", c->bags_identical ? "true" : "false");
    out_f64(f, c->bag_cos);
    json_floats(f, "bag_a", c->bag_a, c->n_embd);
    json_floats(f, "bag_b", c->bag_b, c->n_embd);
    fputs(", \"same_id\": [", f);
    for (size_t t = 0; t < c->n_pos; t++)
        fprintf(f, "%s%s", t ? ", " : "", c->same_id[t] ? "true" : "false");
    fputc(']', f);
    json_doubles(f, "token_cos", c->tok_cos, c->n_pos);
    json_doubles(f, "input_cos", c->input_cos, c->n_pos);
    fprintf(f, ", \"positions_differ\": %zu}\n", c->n_differ);
}

/* Tokenizes both texts; prints the error and returns -1 on failure. */
static int tokenize_both(tok_tokenizer *tok, side s[2])
{
    for (int k = 0; k < 2; k++) {
        g2e_err e;
        if (tok_encode(tok, s[k].text, strlen(s[k].text), TOK_SPECIAL_TEXT, 0, &s[k].t, NULL, &e)) {
            cli_error("text %c: %s", 'A' + k, e.msg);
            return -1;
        }
    }
    return 0;
}

static int run(const compare_opts *o, side s[2])
{
    tok_tokenizer *tok = NULL;
    g2e_model *m = NULL;
    order_cmp c = {0};
    out_file of = {0};
    g2e_err e;
    int rc = EXIT_ERR;
    if (load_tokenizer(o->lo.tokenizer, &tok) || tokenize_both(tok, s) ||
        load_model(o->lo.weights, o->lo.model, &m, NULL))
        goto done;
    if (order_compare(m, s[0].t.ids, s[0].t.n, s[1].t.ids, s[1].t.n, &c, &e)) {
        cli_error("%s", e.msg);
        goto done;
    }
    if (out_open(&of, o->out, 0))
        goto done;
    if (o->fmt == 1)
        print_json(of.f, tok, s, &c);
    else
        print_table(of.f, tok, s, &c);
    rc = out_commit(&of) ? EXIT_ERR : EXIT_OK;
done:
    out_abort(&of);
    order_free(&c);
    for (int k = 0; k < 2; k++)
        tok_ids_free(&s[k].t);
    model_close(m);
    tok_close(tok);
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
    int rc = run(&o, s);
    opt_free(&p);
    return rc;
}
