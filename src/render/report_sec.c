/* SPDX-License-Identifier: MIT */
/* report_sec.c — the report's sections on the chapter itself: both exercises, the scale of
 * token and position vectors, the order puzzle and the context limit (see report.h). */
#include "report_page.h"
#include "report_text.h"

#include "exercise.h"
#include "fig.h"
#include "interpret.h"
#include "model.h"
#include "order.h"
#include "pcasrc.h"
#include "similarity.h"
#include "text.h"
#include "textfmt.h"
#include "textpos.h"
#include "tokchars.h"
#include "tokenizer.h"

#include <stdlib.h>
#include <string.h>

void rp_exercise1(report_page *r)
{
    const g2e_model *m = r->in->m;
    ex_first f;
    ex_first_compute(EX_OTHER_CTX, EX_OTHER_DIM, m, &f);
    rp_section(r, "exercise1", _(T_EX1_H));
    fputs("<table>\n", r->f);
    rp_row(r, _(T_EX1_GPT2), "%llu", f.gpt2_params);
    rp_row(r, _(T_EX1_BIG), "%llu", f.params);
    rp_row(r, C_("exercise 1", "ratio"), "%.4f", f.ratio);
    rp_row(r, _(T_EX1_WPE), "%zu x %zu = %zu", m->n_ctx, m->n_embd, f.file_wpe);
    rp_row(r, _(T_EX1_WTE), "%zu x %zu = %zu", m->n_vocab, m->n_embd, f.file_wte);
    fputs("</table>\n<p class=\"says\">", r->f);
    rp_put(r, _(T_EX1_SAYS), f.ratio);
    fputs("</p>\n</section>\n", r->f);
}

/* The token ID of " cat": 0, -1 (said) when it is not one token. */
static int cat_id(report_page *r, uint32_t *id)
{
    tok_ids t;
    g2e_err e;
    if (tok_encode(r->in->tok, EX_CAT, strlen(EX_CAT), TOK_SPECIAL_TOKEN, 0, &t, NULL, &e) != 0) {
        rp_say(r, "%s", e.msg);
        return -1;
    }
    int rc = t.n == 1 ? 0 : -1;
    if (rc == 0)
        *id = t.ids[0];
    else
        rp_say(r, "report: exercise 2: \" cat\" is %zu tokens in this tokenizer, not one", t.n);
    tok_ids_free(&t);
    return rc;
}

/* interpret.c's lines for the two results of exercise 2, escaped into the page */
static void ex2_interpretation(report_page *r, const ex_second *x)
{
    char *s = NULL;
    size_t n = 0;
    FILE *mf = open_memstream(&s, &n);
    if (!mf)
        return;
    interp_near_far(mf, 0, 1, x->c01, x->far, x->c0far);
    if (x->n_pairs)
        interp_same_token(mf, "\u2423cat", 0, EX_NEAR_TOKEN_POS, x->ccat, x->median, x->n_pairs);
    if (fclose(mf) == 0 && s) {
        for (char *line = strtok(s, "\n"); line; line = strtok(NULL, "\n"))
            rp_para(r, "says", line);
    }
    free(s);
}

void rp_exercise2(report_page *r)
{
    const g2e_model *m = r->in->m;
    ex_second x;
    uint32_t cat;
    g2e_err e;
    rp_section(r, "exercise2", _(T_EX2_H));
    if (cat_id(r, &cat) != 0) {
        rp_failed(r, _("exercise 2 (needs 6 positions and the token \" cat\")"));
    } else if (ex_second_compute(m, cat, &x, &e)) {
        rp_say(r, "report: exercise 2: %s", e.msg);
        rp_failed(r, e.msg);
    } else {
        char *key = textfmt_printf(_(T_EX2_COS0F), x.far);
        fputs("<table>\n", r->f);
        rp_row(r, _(T_EX2_SHAPE), "(%zu, %zu)", x.rows, x.cols);
        rp_row(r, _(T_EX2_COS01), "%.4f", x.c01);
        rp_row(r, key ? key : "", "%.4f", x.c0far);
        free(key);
        rp_row(r, _(T_EX2_CATID), "%u", x.cat);
        rp_row(r, _(T_EX2_CAT), "%.4f", x.ccat);
        if (x.n_pairs)
            rp_row(r, _(T_EX2_MEDIAN), _("%.4f (%zu pairs)"), x.median, x.n_pairs);
        fputs("</table>\n", r->f);
        if (x.far != EX_FAR)
            rp_paraf(r, NULL, _(T_EX2_FARNOTE), x.rows, x.far);
        ex2_interpretation(r, &x);
    }
    fputs("</section>\n", r->f);
}

/* the two columns of gpt2embed_stats (wte, wpe) as rows of the scale table */
static void scale_table(report_page *r, const gpt2embed_stats s[2])
{
    static const char *const HEAD[] = {"", T_SCALE_COL_WTE, T_SCALE_COL_WPE};
    static const char *const KEYS[] = {T_SCALE_ROWS, T_SCALE_NORM, T_SCALE_MIN, T_SCALE_MAX,
                                       T_SCALE_ABS, T_SCALE_STD};
    fputs("<div class=\"row\"><div class=\"nums\"><table>\n", r->f);
    rp_header_row(r, HEAD, 3);
    for (int k = 0; k < 6; k++) {
        double v[2];
        for (int w = 0; w < 2; w++)
            v[w] = k == 0 ? (double)s[w].rows : k == 1 ? s[w].norm_mean : k == 2 ? s[w].norm_min
                 : k == 3 ? s[w].norm_max : k == 4 ? s[w].mean_abs : s[w].std;
        fputs("<tr><th>", r->f);
        rp_esc(r, _(KEYS[k]));
        fprintf(r->f, k ? "</th><td>%.4f</td><td>%.4f</td></tr>\n" : "</th><td>%.0f</td><td>%.0f</td></tr>\n",
                v[0], v[1]);
    }
    double ratio = s[0].norm_mean / s[1].norm_mean;
    rp_row(r, _(T_SCALE_RATIO), "%.3f", ratio);
    fputs("</table>\n", r->f);
    rp_paraf(r, "says", ratio > 0.2 && ratio < 5 ? _(T_SCALE_SAYS_EVEN) : _(T_SCALE_SAYS_UNEVEN),
             ratio);
}

/* what the norms of wpe's rows say, and their figure */
static void scale_norms(report_page *r)
{
    pcasrc_norms sn;
    g2e_err e;
    render_png png = {0};
    int rc = pcasrc_wpe_norms(r->in->model, &sn, &e);
    if (rc == 0) {
        const pca_norm_summary *q = &sn.sum;
        fputs("<p class=\"says\">", r->f);
        rp_put(r, _(T_NORMS_SAYS), q->first, q->first_vs_median, q->median);
        if (q->split > 1 && q->split < sn.n) {
            fputs(" ", r->f);
            rp_put(r, _(T_NORMS_SPREAD), 100 * q->cv_early, q->split - 1, 100 * q->cv_late,
                   q->split, sn.n - 1);
        }
        fputs("</p>\n", r->f);
        const char *name = fig_model_name(r->in->model);
        rc = fig_norms_png(&sn, name, &png, &e);
        pcasrc_norms_free(&sn);
    }
    fputs("</div>\n", r->f);
    rp_figure(r, "norms.png", _("|wpe[p]| against position p"), rc, &png, &e);
}

void rp_scale(report_page *r)
{
    gpt2embed_stats s[2];
    gpt2embed_error e;
    rp_section(r, "scale", _(T_SCALE_H));
    if (gpt2embed_table_stats(r->in->model, GPT2EMBED_WTE, &s[0], &e) ||
        gpt2embed_table_stats(r->in->model, GPT2EMBED_WPE, &s[1], &e)) {
        rp_say(r, "report: scale: %s", e.message);
        rp_failed(r, e.message);
        fputs("</section>\n", r->f);
        return;
    }
    scale_table(r, s);
    scale_norms(r);
    fputs("</div>\n</section>\n", r->f);
}

/* Each token of text as the characters behind it ("犬 (1/3)", tokchars.h) into a new array
 * of strings (caller frees each and the array); NULL when out of memory or on bad offsets. */
static char **token_labels(const char *text, size_t len, const tok_ids *t)
{
    tokchars_span *sp = malloc((t->n ? t->n : 1) * sizeof *sp);
    char **lab = calloc(t->n ? t->n : 1, sizeof *lab);
    int ok = sp && lab && tokchars_spans(text, len, t->offsets, t->n, sp, NULL) == 0;
    for (size_t i = 0; ok && i < t->n; i++)
        ok = (lab[i] = tokchars_display_alloc(text, &sp[i])) != NULL;
    free(sp);
    if (!ok && lab) {
        for (size_t i = 0; i < t->n; i++)
            free(lab[i]);
        free(lab);
        lab = NULL;
    }
    return lab;
}

static void free_labels(char **lab, size_t n)
{
    for (size_t i = 0; lab && i < n; i++)
        free(lab[i]);
    free(lab);
}

/* <tr><th>sentence</th><td>its pieces</td></tr> */
static void sentence_row(report_page *r, const char *text, char *const *lab, const tok_ids *t)
{
    fputs("<tr><th>", r->f);
    rp_esc(r, text);
    fputs("</th><td>", r->f);
    for (size_t i = 0; i < t->n; i++) {
        fprintf(r->f, "%s<code>", i ? " " : "");
        rp_put(r, "%s (%u)", lab ? lab[i] : "?", t->ids[i]);
        fputs("</code>", r->f);
    }
    fputs("</td></tr>\n", r->f);
}

static void order_tables(report_page *r, const char *const s[2], char **const lab[2],
                         const tok_ids t[2], const order_cmp *c)
{
    fputs("<table>\n", r->f);
    sentence_row(r, s[0], lab[0], &t[0]);
    sentence_row(r, s[1], lab[1], &t[1]);
    rp_row(r, _(T_ORDER_MULTISET), "%s", c->same_multiset ? _(T_YES) : _(T_NO));
    rp_row(r, _(T_ORDER_DIFFER), "%zu / %zu", c->n_differ, c->n_pos);
    static const char *const HEAD[] = {T_ORDER_POS, "A", "B", "cos(wte)", "cos(wte + wpe)"};
    fputs("</table>\n<table class=\"small\">", r->f);
    rp_header_row(r, HEAD, 5);
    for (size_t i = 0; i < c->n_pos; i++) {
        fprintf(r->f, "<tr><td>%zu</td><td>", i);
        rp_put(r, "%s (%u)", lab[0] ? lab[0][i] : "?", t[0].ids[i]);
        fputs("</td><td>", r->f);
        rp_put(r, "%s (%u)", lab[1] ? lab[1][i] : "?", t[1].ids[i]);
        fprintf(r->f, "</td><td>%.4f</td><td>%.4f</td></tr>\n", c->tok_cos[i], c->input_cos[i]);
    }
    fputs("</table>\n", r->f);
}

/* interpret.c's lines for the order puzzle (the same as `compare` prints), escaped */
static void order_interpretation(report_page *r, const order_cmp *c, const order_text t[2])
{
    char *s = NULL;
    size_t n = 0;
    FILE *mf = open_memstream(&s, &n);
    if (!mf)
        return;
    interp_order(mf, c, t);
    if (fclose(mf) == 0 && s) {
        for (char *line = strtok(s, "\n"); line; line = strtok(NULL, "\n"))
            rp_para(r, "says", line);
    }
    free(s);
}

/* The strips of both inputs and A - B (fig_order_png), rows labelled "t  A's | B's token". */
static void order_figure(report_page *r, char **const lab[2], const tok_ids t[2], size_t n)
{
    char **rows = calloc(n, sizeof *rows);
    render_png png = {0};
    g2e_err e;
    int rc = rows ? 0 : g2e_fail(&e, G2E_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < n; i++)
        if (!(rows[i] = textfmt_printf("%zu  %s | %s", i, lab[0] ? lab[0][i] : "?", lab[1] ? lab[1][i] : "?")))
            rc = g2e_fail(&e, G2E_ENOMEM, "out of memory");
    if (!rc)
        rc = fig_order_png(r->in->model, t[0].ids, t[1].ids, n, (const char *const *)rows, &png, &e);
    rp_figure(r, "order.png", _("A's and B's input rows and A - B per position; the rows that differ are marked"),
              rc, &png, &e);
    for (size_t i = 0; rows && i < n; i++)
        free(rows[i]);
    free(rows);
}

/* The spans behind both sentences' tokens, then the interpretation. */
static void order_spans(report_page *r, const char *const S[2], const tok_ids t[2],
                        const order_cmp *c)
{
    tokchars_span *sp[2] = {malloc((t[0].n + 1) * sizeof *sp[0]), malloc((t[1].n + 1) * sizeof *sp[1])};
    g2e_err e;
    if (sp[0] && sp[1] &&
        !tokchars_spans(S[0], strlen(S[0]), t[0].offsets, t[0].n, sp[0], &e) &&
        !tokchars_spans(S[1], strlen(S[1]), t[1].offsets, t[1].n, sp[1], &e)) {
        order_text ot[2] = {{S[0], t[0].ids, sp[0], t[0].n, strlen(S[0])}, {S[1], t[1].ids, sp[1], t[1].n, strlen(S[1])}};
        order_interpretation(r, c, ot);
    }
    free(sp[0]), free(sp[1]);
}

void rp_order(report_page *r)
{
    static const char *const S[2] = {"犬が猫を追いかけた", "猫が犬を追いかけた"};
    tok_ids t[2] = {{0}, {0}};
    order_cmp c = {0};
    g2e_err e;
    rp_section(r, "order", _(T_ORDER_H));
    rp_para(r, NULL, _(T_ORDER_INTRO));
    if (tok_encode(r->in->tok, S[0], strlen(S[0]), TOK_SPECIAL_TEXT, 0, &t[0], NULL, &e) ||
        tok_encode(r->in->tok, S[1], strlen(S[1]), TOK_SPECIAL_TEXT, 0, &t[1], NULL, &e) ||
        order_compare(r->in->m, t[0].ids, t[0].n, t[1].ids, t[1].n, &c, &e)) {
        rp_say(r, "report: order: %s", e.msg);
        rp_failed(r, e.msg);
    } else {
        char **lab[2] = {token_labels(S[0], strlen(S[0]), &t[0]),
                         token_labels(S[1], strlen(S[1]), &t[1])};
        order_tables(r, S, lab, t, &c);
        order_spans(r, S, t, &c);
        order_figure(r, lab, t, c.n_pos);
        free_labels(lab[0], t[0].n), free_labels(lab[1], t[1].n);
    }
    order_free(&c);
    tok_ids_free(&t[0]), tok_ids_free(&t[1]);
    fputs("</section>\n", r->f);
}

static void limit_table(report_page *r, const size_t ntok[2], const size_t nch[2], const size_t nread[2])
{
    const report_in *in = r->in;
    size_t n_ctx = in->m->n_ctx;
    static const char *const COLS[] = {T_LIMIT_TEXT, T_LIMIT_BYTES, T_LIMIT_CHARS, T_LIMIT_TOKENS,
                                       T_LIMIT_CPT, T_LIMIT_FITS, T_LIMIT_CAP};
    fputs("<table>\n", r->f);
    rp_header_row(r, COLS, 7);
    for (int i = 0; i < 2; i++) {
        double cpt = ntok[i] ? (double)nch[i] / (double)ntok[i] : 0;
        fputs("<tr><td>", r->f);
        rp_esc(r, in->name[i]);
        fprintf(r->f, "</td><td>%zu</td><td>%zu</td><td>%zu</td><td>%.2f</td><td>", in->len[i],
                nch[i], ntok[i], cpt);
        rp_esc(r, ntok[i] <= n_ctx ? _(T_YES) : _(T_NO));
        fprintf(r->f, "</td><td>%.0f</td></tr>\n", cpt * (double)n_ctx);
    }
    fputs("</table>\n", r->f);
    if (ntok[0])
        rp_paraf(r, "says", _(T_LIMIT_SAYS), (double)ntok[1] / (double)ntok[0], ntok[1], ntok[0]);
    for (int i = 0; i < 2; i++)   /* a text over the limit: how much of it GPT-2 reads */
        if (ntok[i] > n_ctx && nch[i]) {
            fputs("<p class=\"says\">", r->f);
            rp_put(r, _(T_LIMIT_CUT), in->name[i], n_ctx, nread[i], nch[i],
                   100.0 * (double)nread[i] / (double)nch[i]);
            fputs("</p>\n", r->f);
        }
}

/* Walks n characters back (dir -1) or on (dir 1) from byte at of text[len]. */
static size_t chars_from(const char *text, size_t len, size_t at, int dir, size_t n)
{
    for (; n && (dir < 0 ? at > 0 : at < len); n--)
        do
            at += (size_t)dir;
        while (at > 0 && at < len && ((unsigned char)text[at] & 0xC0) == 0x80);
    return at;
}

/* The passage of text around byte cut, where GPT-2's context ends: the text before, a mark,
 * the text after; a character the cut falls inside is shown as its two parts, "角 (1-2/3)|
 * 角 (3/3)" as count shows it. */
static void cut_passage(report_page *r, const char *text, size_t len, size_t cut, size_t n_ctx)
{
    size_t lead = cut;
    while (lead > 0 && lead < len && ((unsigned char)text[lead] & 0xC0) == 0x80)
        lead--;
    size_t k, end = lead;
    if (lead < len) {
        text_step(text + lead, len - lead, &k);
        end = lead + k;
    }
    int inside = lead < cut && cut < end;
    size_t from = chars_from(text, len, lead, -1, 80), to = chars_from(text, len, inside ? end : cut, 1, 40);
    fputs("<p class=\"passage\">", r->f);
    rp_put(r, _("Where GPT-2's %zu-token context ends in this text (the cut is marked \xE2\x9C\x82):"), n_ctx);
    fputs("<br>", r->f);
    char *before = strndup(text + from, lead - from), *after = inside ? strndup(text + end, to - end)
                                                                       : strndup(text + cut, to - cut);
    rp_put(r, "%s%s", from ? "\xE2\x80\xA6" : "", before ? before : "");
    if (inside) {   /* its bytes 1..b before the cut, b+1..n after: "角 (1-2/3)", "角 (3/3)" */
        char *ch = strndup(text + lead, end - lead);
        size_t b = cut - lead, nb = end - lead;
        fputs("<mark>", r->f);
        if (b == 1)
            rp_put(r, "%s (1/%zu)", ch ? ch : "?", nb);
        else
            rp_put(r, "%s (1-%zu/%zu)", ch ? ch : "?", b, nb);
        fputs("</mark><span class=\"cut\">\xE2\x9C\x82</span><mark>", r->f);
        if (b + 1 == nb)
            rp_put(r, "%s (%zu/%zu)", ch ? ch : "?", nb, nb);
        else
            rp_put(r, "%s (%zu-%zu/%zu)", ch ? ch : "?", b + 1, nb, nb);
        fputs("</mark>", r->f);
        free(ch);
    } else {
        fputs("<span class=\"cut\">\xE2\x9C\x82</span>", r->f);
    }
    rp_put(r, "%s%s", after ? after : "", to < len ? "\xE2\x80\xA6" : "");
    fputs("</p>\n", r->f);
    free(before), free(after);
}

void rp_limit(report_page *r)
{
    const report_in *in = r->in;
    size_t ntok[2] = {0}, nch[2], nread[2] = {0}, cut[2] = {0};
    rp_section(r, "limit", _(T_LIMIT_H));
    fputs("<p>", r->f);
    rp_put(r, _(T_LIMIT_INTRO), in->m->n_ctx);
    fputs("</p>\n", r->f);
    for (int i = 0; i < 2; i++) {
        tok_ids t;
        g2e_err e;
        if (tok_encode(in->tok, in->text[i], in->len[i], TOK_SPECIAL_TEXT, TOK_LOSSY, &t, NULL, &e)) {
            rp_say(r, "report: %s: %s", in->name[i], e.msg);
            rp_failed(r, e.msg);
            fputs("</section>\n", r->f);
            return;
        }
        ntok[i] = t.n;
        nch[i] = textpos_chars(in->text[i], in->len[i]);
        if (t.n > in->m->n_ctx) {   /* whole characters before the n_ctx-th token's end */
            textpos tp;
            cut[i] = t.offsets[in->m->n_ctx];
            textpos_at(in->text[i], in->len[i], cut[i], &tp);
            nread[i] = tp.chr - (size_t)tp.inside;
        }
        tok_ids_free(&t);
    }
    limit_table(r, ntok, nch, nread);
    for (int i = 0; i < 2; i++)
        if (ntok[i] > in->m->n_ctx)
            cut_passage(r, in->text[i], in->len[i], cut[i], in->m->n_ctx);
    fputs("</section>\n", r->f);
}
