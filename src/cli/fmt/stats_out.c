/* SPDX-License-Identifier: MIT */
/* stats_out.c — the scale of wte and wpe as a table or JSON (see stats_out.h). */
#include "stats_out.h"

#include "json.h"
#include "textfmt.h"
#include "text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N_(s) s   /* a message marked for xgettext, translated where it is shown */

static void json_matrix(FILE *f, const char *name, const gpt2embed_stats *s, size_t top)
{
    fprintf(f, "\"%s\": {\"rows\": %zu, \"cols\": %zu, \"norm_mean\": ", name, s->rows, s->cols);
    json_write_f64(f, s->norm_mean);
    fprintf(f, ", \"norm_min\": ");
    json_write_f64(f, s->norm_min);
    fprintf(f, ", \"norm_min_row\": %zu, \"norm_max\": ", s->argmin);
    json_write_f64(f, s->norm_max);
    fprintf(f, ", \"norm_max_row\": %zu, \"mean_abs\": ", s->argmax);
    json_write_f64(f, s->mean_abs);
    fprintf(f, ", \"mean\": ");
    json_write_f64(f, s->mean);
    fprintf(f, ", \"std\": ");
    json_write_f64(f, s->std);
    fprintf(f, ", \"largest_norms\": [");
    for (size_t i = 0; i < top && i < s->n_top; i++) {
        fprintf(f, "%s{\"row\": %zu, \"norm\": ", i ? ", " : "", s->top[i]);
        json_write_f64(f, s->top_norm[i]);
        fprintf(f, "}");
    }
    fprintf(f, "]}");
}

static void table_top(FILE *f, const gpt2embed_stats *s, size_t top, const gpt2embed_tokenizer *tok)
{
    /* TRANSLATORS: between the items of a list on one line ("、" in Japanese) */
    const char *sep = g2e_tr(", ");
    fputs(g2e_tr("\nlargest wte rows:"), f);
    for (size_t i = 0; i < top && i < s[0].n_top; i++) {
        const uint8_t *b;
        size_t n;
        char *vis = NULL;
        if (gpt2embed_token_bytes(tok, (uint32_t)s[0].top[i], &b, &n, NULL) == GPT2EMBED_OK)
            vis = text_escape((const char *)b, n, TEXT_ESC_VISIBLE);
        fprintf(f, "%s%zu '%s' (%.3f)", i ? sep : " ", s[0].top[i], vis ? vis : "?", s[0].top_norm[i]);
        free(vis);
    }
    fputs(g2e_tr("\nlargest wpe rows:"), f);
    for (size_t i = 0; i < top && i < s[1].n_top; i++) {
        fputs(i ? sep : " ", f);
        fprintf(f, g2e_tr("position %zu (%.3f)"), s[1].top[i], s[1].top_norm[i]);
    }
    fprintf(f, "\n");
}

/* A row label padded by display width (translated labels are wider per byte). */
static void label(FILE *f, const char *s)
{
    textfmt_pad(f, s, 22, 0);
    fputc(' ', f);
}

static void table(FILE *f, const char *path, size_t n_embd, const gpt2embed_stats *s, size_t top,
                  const gpt2embed_tokenizer *tok)
{
    char *vp = text_escape(path, strlen(path), TEXT_ESC_BIDI);   /* shown to a person */
    fprintf(f, g2e_tr("Scale of the embeddings in %s (n_embd %zu)\n\n"), vp ? vp : "?", n_embd);
    free(vp);
    /* each column as wide as its heading's display width, at least 14 */
    const char *head[2] = {g2e_tr("wte (tokens)"), g2e_tr("wpe (positions)")};
    int w[2];
    for (int k = 0; k < 2; k++) {
        size_t d = text_width(head[k], strlen(head[k]));
        w[k] = d > 14 ? (int)d : 14;
    }
    label(f, "");
    textfmt_pad(f, head[0], (size_t)w[0], 1);
    fputc(' ', f);
    textfmt_pad(f, head[1], (size_t)w[1], 1);
    fputc('\n', f);
    label(f, g2e_tr("rows"));
    fprintf(f, "%*zu %*zu\n", w[0], s[0].rows, w[1], s[1].rows);
    static const char *const KEYS[] = {N_("mean row norm"), N_("smallest row norm"), N_("largest row norm"),
                                       N_("mean |x|"), N_("mean x"), N_("std of x")};
    for (int k = 0; k < 6; k++) {
        double v[2];
        for (int m = 0; m < 2; m++)
            v[m] = k == 0 ? s[m].norm_mean : k == 1 ? s[m].norm_min : k == 2 ? s[m].norm_max
                 : k == 3 ? s[m].mean_abs : k == 4 ? s[m].mean : s[m].std;
        label(f, g2e_tr(KEYS[k]));
        fprintf(f, k < 3 ? "%*.4f %*.4f\n" : "%*.6f %*.6f\n", w[0], v[0], w[1], v[1]);
    }
    fprintf(f, g2e_tr("\nmean token norm / mean position norm = %.2f\n"), s[0].norm_mean / s[1].norm_mean);
    if (top > 0)
        table_top(f, s, top, tok);
}

/* 1 when the matrix holds a NaN or an infinity (its sums are then not finite). */
static int undefined(const gpt2embed_stats *s)
{
    return !isfinite(s->norm_mean) || !isfinite(s->mean) || !isfinite(s->mean_abs);
}

static void undefined_note(FILE *f, const gpt2embed_stats *s)
{
    for (int w = 0; w < 2; w++)
        if (isnan(s[w].std))
            fprintf(f, "%s holds a NaN or an infinity: its norms, mean and std are undefined (nan "
                       "here, null in JSON)\n", w ? "wpe" : "wte");
}

void stats_mark_undefined(gpt2embed_stats *s)
{
    /* A NaN or an infinity makes the sums non-finite; the library then still gives std 0 and
     * the min/max over the other rows, which must not read as results. */
    if (undefined(s)) {
        s->norm_mean = s->norm_min = s->norm_max = NAN;
        s->mean = s->mean_abs = s->std = NAN;
    }
}

void stats_write(FILE *f, int json, const char *path, size_t n_embd, const gpt2embed_stats s[2],
                 size_t top, const gpt2embed_tokenizer *tok)
{
    if (!json) {
        table(f, path, n_embd, s, top, tok);
        undefined_note(f, s);
        return;
    }
    fprintf(f, "{\"weights\": ");
    json_write_string(f, path, strlen(path));
    fprintf(f, ", ");
    json_matrix(f, "wte", &s[0], top);
    fprintf(f, ", ");
    json_matrix(f, "wpe", &s[1], top);
    fprintf(f, ", \"norm_ratio_wte_to_wpe\": ");
    json_write_f64(f, s[0].norm_mean / s[1].norm_mean);
    fprintf(f, "}\n");
}
