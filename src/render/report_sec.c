/* SPDX-License-Identifier: MIT */
/* report_sec.c — the report's sections on the chapter itself: both exercises, the scale of
 * token and position vectors, the order puzzle and the context limit (see report.h). The
 * exercises and the order puzzle are the library's course documents (gpt2embed_course_*),
 * read back here: the numbers and sentences are those `exercise` and `compare` print. */
#include "report_page.h"
#include "report_text.h"

#include "fig.h"
#include "recipe.h"
#include "text.h"
#include "textfmt.h"
#include "textpos.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define OTHER_SIDE 4096   /* exercise 1's other model: 4096 positions x 4096 wide */
#define FAR_POS 500       /* exercise 2's far position */

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = key ? cJSON_GetObjectItem(o, key) : o;
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* The course's exercise document (which: GPT2EMBED_EXERCISE_*), parsed; NULL after saying why
 * (error: the library's message). */
static cJSON *exercise_doc(report_page *r, unsigned which, gpt2embed_error *e)
{
    char *json = NULL;
    cJSON *doc = NULL;
    if (gpt2embed_course_exercise(r->in->model, r->in->tokenizer, which, OTHER_SIDE, OTHER_SIDE,
                                  GPT2EMBED_COURSE_SAYS, &json, e) == GPT2EMBED_OK &&
        !(doc = cJSON_Parse(json)))
        snprintf(e->message, sizeof e->message, "out of memory");
    gpt2embed_free(json);
    return doc;
}

void rp_exercise1(report_page *r)
{
    const gpt2embed_model *m = r->in->model;
    gpt2embed_error e;
    cJSON *doc = exercise_doc(r, GPT2EMBED_EXERCISE_1, &e);
    const cJSON *f = cJSON_GetObjectItem(doc, "exercise1");
    rp_section(r, "exercise1", _(T_EX1_H));
    if (!doc) {
        rp_say(r, "report: exercise 1: %s", e.message);
        rp_failed(r, e.message);
        fputs("</section>\n", r->f);
        return;
    }
    double ratio = num(f, "ratio");
    fputs("<table>\n", r->f);
    rp_row(r, _(T_EX1_GPT2), "%llu", (unsigned long long)num(f, "gpt2_wpe_params"));
    rp_row(r, _(T_EX1_BIG), "%llu", (unsigned long long)num(f, "wpe_params"));
    rp_row(r, C_("exercise 1", "ratio"), "%.4f", ratio);
    rp_row(r, _(T_EX1_WPE), "%zu x %zu = %zu", gpt2embed_n_ctx(m), gpt2embed_n_embd(m),
           (size_t)num(f, "file_wpe_params"));
    rp_row(r, _(T_EX1_WTE), "%zu x %zu = %zu", gpt2embed_n_vocab(m), gpt2embed_n_embd(m),
           (size_t)num(f, "file_wte_params"));
    fputs("</table>\n<p class=\"says\">", r->f);
    rp_put(r, _(T_EX1_SAYS), ratio);
    fputs("</p>\n</section>\n", r->f);
    cJSON_Delete(doc);
}

/* The document's sentences from the first-th on, each a paragraph of the page. */
static void says(report_page *r, const cJSON *doc, int first)
{
    const cJSON *lines = cJSON_GetObjectItem(doc, "says");
    for (int i = first; i < cJSON_GetArraySize(lines); i++) {
        const cJSON *l = cJSON_GetArrayItem(lines, i);
        if (cJSON_IsString(l))
            rp_para(r, "says", l->valuestring);
    }
}

void rp_exercise2(report_page *r)
{
    gpt2embed_error e;
    rp_section(r, "exercise2", _(T_EX2_H));
    cJSON *doc = exercise_doc(r, GPT2EMBED_EXERCISE_2, &e);
    const cJSON *x = cJSON_GetObjectItem(doc, "exercise2"), *shape = cJSON_GetObjectItem(x, "wpe_shape");
    if (!doc) {
        rp_say(r, "report: exercise 2: %s", e.message);
        rp_failed(r, e.message);
    } else {
        size_t rows = (size_t)num(cJSON_GetArrayItem(shape, 0), NULL), far = (size_t)num(x, "far_pos");
        char *key = textfmt_printf(_(T_EX2_COS0F), far);
        fputs("<table>\n", r->f);
        rp_row(r, _(T_EX2_SHAPE), "(%zu, %zu)", rows, (size_t)num(cJSON_GetArrayItem(shape, 1), NULL));
        rp_row(r, _(T_EX2_COS01), "%.4f", num(x, "cos_pos0_pos1"));
        rp_row(r, key ? key : "", "%.4f", num(x, "cos_pos0_far"));
        free(key);
        rp_row(r, _(T_EX2_CATID), "%u", (unsigned)num(x, "cat_token_id"));
        rp_row(r, _(T_EX2_CAT), "%.4f", num(x, "cos_cat_pos0_pos5"));
        if (num(x, "random_pairs"))
            rp_row(r, _(T_EX2_MEDIAN), _("%.4f (%zu pairs)"), num(x, "median_random_token_pairs"),
                   (size_t)num(x, "random_pairs"));
        fputs("</table>\n", r->f);
        if (far != FAR_POS)   /* (the document's first sentence: the page says it in its place) */
            rp_paraf(r, NULL, _(T_EX2_FARNOTE), rows, far);
        says(r, doc, far != FAR_POS);
    }
    cJSON_Delete(doc);
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
    size_t n = gpt2embed_n_ctx(r->in->model);
    double *norm = malloc((n ? n : 1) * sizeof *norm);
    gpt2embed_norm_summary sum;
    gpt2embed_error ge;
    g2e_err e;
    render_png png = {0};
    int rc = !norm ? g2e_fail(&e, G2E_ENOMEM, "out of memory for %zu norms", n)
           : gpt2embed_wpe_norms(r->in->model, norm, &sum, &ge) ? fig_door_fail(&e, &ge) : 0;
    if (rc == 0) {
        const gpt2embed_norm_summary *q = &sum;
        fputs("<p class=\"says\">", r->f);
        if (isnan(q->first_vs_median))   /* the median is 0 */
            rp_put(r, _(T_NORMS_SAYS_NO_MEDIAN), q->first);
        else
            rp_put(r, _(T_NORMS_SAYS), q->first, q->first_vs_median, q->median);
        if (q->split > 1 && q->split < n) {
            fputs(" ", r->f);
            rp_put(r, _(T_NORMS_SPREAD), 100 * q->cv_early, q->split - 1, 100 * q->cv_late,
                   q->split, n - 1);
        }
        fputs("</p>\n", r->f);
        const char *name = fig_model_name(r->in->model);
        rc = recipe_norms_png(norm, n, q->first_vs_median, name, &png, &e);
    }
    free(norm);
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

/* <tr><th>sentence</th><td>its pieces</td></tr>, from a text of the course's document */
static void sentence_row(report_page *r, const cJSON *side)
{
    const cJSON *ids = cJSON_GetObjectItem(side, "ids"), *lab = cJSON_GetObjectItem(side, "labels"),
                *text = cJSON_GetObjectItem(side, "text");
    fputs("<tr><th>", r->f);
    rp_esc(r, cJSON_IsString(text) ? text->valuestring : "");
    fputs("</th><td>", r->f);
    for (int i = 0; i < cJSON_GetArraySize(ids); i++) {
        const cJSON *l = cJSON_GetArrayItem(lab, i);
        fprintf(r->f, "%s<code>", i ? " " : "");
        rp_put(r, "%s (%u)", cJSON_IsString(l) ? l->valuestring : "?", (unsigned)num(cJSON_GetArrayItem(ids, i), NULL));
        fputs("</code>", r->f);
    }
    fputs("</td></tr>\n", r->f);
}

/* Token i of a text as "犬 (1/3) (163)" into the page. */
static void token_cell(report_page *r, const cJSON *side, int i)
{
    const cJSON *l = cJSON_GetArrayItem(cJSON_GetObjectItem(side, "labels"), i);
    rp_put(r, "%s (%u)", cJSON_IsString(l) ? l->valuestring : "?",
           (unsigned)num(cJSON_GetArrayItem(cJSON_GetObjectItem(side, "ids"), i), NULL));
}

static void order_tables(report_page *r, const cJSON *doc, const cJSON *side[2], size_t n_pos)
{
    fputs("<table>\n", r->f);
    sentence_row(r, side[0]);
    sentence_row(r, side[1]);
    rp_row(r, _(T_ORDER_MULTISET), "%s", cJSON_IsTrue(cJSON_GetObjectItem(doc, "same_multiset")) ? _(T_YES) : _(T_NO));
    rp_row(r, _(T_ORDER_DIFFER), "%zu / %zu", (size_t)num(doc, "positions_differ"), n_pos);
    static const char *const HEAD[] = {T_ORDER_POS, "A", "B", "cos(wte)", "cos(wte + wpe)"};
    fputs("</table>\n<table class=\"small\">", r->f);
    rp_header_row(r, HEAD, 5);
    const cJSON *tc = cJSON_GetObjectItem(doc, "token_cos"), *ic = cJSON_GetObjectItem(doc, "input_cos");
    for (size_t i = 0; i < n_pos; i++) {
        fprintf(r->f, "<tr><td>%zu</td><td>", i);
        token_cell(r, side[0], (int)i);
        fputs("</td><td>", r->f);
        token_cell(r, side[1], (int)i);
        fprintf(r->f, "</td><td>%.4f</td><td>%.4f</td></tr>\n", num(cJSON_GetArrayItem(tc, (int)i), NULL),
                num(cJSON_GetArrayItem(ic, (int)i), NULL));
    }
    fputs("</table>\n", r->f);
}

/* The strips of both inputs and A - B (fig_order_png), rows labelled "t  A's | B's token". */
static void order_figure(report_page *r, const cJSON *side[2], size_t n)
{
    char **rows = calloc(n ? n : 1, sizeof *rows);
    uint32_t *ids = malloc(2 * (n ? n : 1) * sizeof *ids);
    render_png png = {0};
    g2e_err e;
    int rc = rows && ids ? 0 : g2e_fail(&e, G2E_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < n; i++) {
        const cJSON *la = cJSON_GetArrayItem(cJSON_GetObjectItem(side[0], "labels"), (int)i),
                    *lb = cJSON_GetArrayItem(cJSON_GetObjectItem(side[1], "labels"), (int)i);
        ids[i] = (uint32_t)num(cJSON_GetArrayItem(cJSON_GetObjectItem(side[0], "ids"), (int)i), NULL);
        ids[n + i] = (uint32_t)num(cJSON_GetArrayItem(cJSON_GetObjectItem(side[1], "ids"), (int)i), NULL);
        if (!(rows[i] = textfmt_printf("%zu  %s | %s", i, cJSON_IsString(la) ? la->valuestring : "?",
                                       cJSON_IsString(lb) ? lb->valuestring : "?")))
            rc = g2e_fail(&e, G2E_ENOMEM, "out of memory");
    }
    if (!rc)
        rc = fig_order_png(r->in->model, ids, ids + n, n, (const char *const *)rows, &png, &e);
    rp_figure(r, "order.png", _("A's and B's input rows and A - B per position; the rows that differ are marked"),
              rc, &png, &e);
    for (size_t i = 0; rows && i < n; i++)
        free(rows[i]);
    free(rows);
    free(ids);
}

void rp_order(report_page *r)
{
    static const char *const S[2] = {"犬が猫を追いかけた", "猫が犬を追いかけた"};
    char *json = NULL;
    cJSON *doc = NULL;
    gpt2embed_error e;
    rp_section(r, "order", _(T_ORDER_H));
    rp_para(r, NULL, _(T_ORDER_INTRO));
    if (gpt2embed_course_order(r->in->model, r->in->tokenizer, S[0], strlen(S[0]), S[1], strlen(S[1]),
                               GPT2EMBED_COURSE_SAYS, &json, &e) == GPT2EMBED_OK &&
        !(doc = cJSON_Parse(json)))
        snprintf(e.message, sizeof e.message, "out of memory");
    if (!doc) {
        rp_say(r, "report: order: %s", e.message);
        rp_failed(r, e.message);
    } else {
        const cJSON *side[2] = {cJSON_GetObjectItem(doc, "a"), cJSON_GetObjectItem(doc, "b")};
        size_t n_pos = (size_t)cJSON_GetArraySize(cJSON_GetObjectItem(doc, "same_id"));
        order_tables(r, doc, side, n_pos);
        says(r, doc, 0);
        order_figure(r, side, n_pos);
    }
    cJSON_Delete(doc);
    gpt2embed_free(json);
    fputs("</section>\n", r->f);
}

static void limit_table(report_page *r, const size_t ntok[2], const size_t nch[2], const size_t nread[2])
{
    const report_in *in = r->in;
    size_t n_ctx = gpt2embed_n_ctx(in->model);
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
    size_t n_ctx = gpt2embed_n_ctx(in->model);
    rp_put(r, _(T_LIMIT_INTRO), n_ctx);
    fputs("</p>\n", r->f);
    for (int i = 0; i < 2; i++) {
        uint32_t *ids;
        size_t *offs;
        gpt2embed_error e;
        if (gpt2embed_tokenize_ex(in->tokenizer, in->text[i], in->len[i], GPT2EMBED_SPECIAL_TEXT | GPT2EMBED_LOSSY,
                                  &ids, &offs, &ntok[i], &e)) {
            rp_say(r, "report: %s: %s", in->name[i], e.message);
            rp_failed(r, e.message);
            fputs("</section>\n", r->f);
            return;
        }
        nch[i] = textpos_chars(in->text[i], in->len[i]);
        if (ntok[i] > n_ctx) {   /* whole characters before the n_ctx-th token's end */
            textpos tp;
            cut[i] = offs[n_ctx];
            textpos_at(in->text[i], in->len[i], cut[i], &tp);
            nread[i] = tp.chr - (size_t)tp.inside;
        }
        gpt2embed_free(ids);
        gpt2embed_free(offs);
    }
    limit_table(r, ntok, nch, nread);
    for (int i = 0; i < 2; i++)
        if (ntok[i] > n_ctx)
            cut_passage(r, in->text[i], in->len[i], cut[i], n_ctx);
    fputs("</section>\n", r->f);
}
