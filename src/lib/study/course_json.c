/* SPDX-License-Identifier: MIT */
/* course_json.c — the course's results as JSON (see course_json.h). */
#include "course_json.h"

#include "json.h"
#include "tokchars.h"

#include <stdlib.h>
#include <string.h>

void course_says_json(json_w *w, const char *says)
{
    json_begin_array(w);
    for (const char *l = says; l && *l;) {
        size_t n = strcspn(l, "\n");
        json_str(w, l, n);
        l += n + (l[n] == '\n');
    }
    json_end_array(w);
}

static void says_last(json_w *w, const char *says)
{
    if (!says)
        return;
    json_key(w, "says");
    course_says_json(w, says);
}

void course_exercise_json(FILE *f, const ex_first *one, const g2e_model *m, const ex_second *two,
                          const char *path, const char *says)
{
    json_w w;
    json_init(&w, f);
    json_begin_object(&w);
    if (one) {
        json_key(&w, "exercise1");
        json_begin_object(&w);
        json_key(&w, "gpt2_wpe_params");
        json_uint(&w, one->gpt2_params);
        json_key(&w, "wpe_params");
        json_uint(&w, one->params);
        json_key(&w, "ratio");
        json_f64(&w, one->ratio);
        json_key(&w, "ctx");
        json_uint(&w, one->ctx);
        json_key(&w, "dim");
        json_uint(&w, one->dim);
        if (m) {
            json_key(&w, "file_wpe_params");
            json_uint(&w, one->file_wpe);
            json_key(&w, "file_wte_params");
            json_uint(&w, one->file_wte);
        }
        json_end_object(&w);
    }
    if (two) {
        json_key(&w, "exercise2");
        json_begin_object(&w);
        json_key(&w, "wpe_shape");
        json_begin_array(&w);
        json_uint(&w, two->rows);
        json_uint(&w, two->cols);
        json_end_array(&w);
        json_key(&w, "cos_pos0_pos1");
        json_f64(&w, two->c01);
        if (two->far == EX_FAR) {
            json_key(&w, "cos_pos0_pos500");
            json_f64(&w, two->c0far);
        }
        json_key(&w, "far_pos");
        json_uint(&w, two->far);
        json_key(&w, "cos_pos0_far");
        json_f64(&w, two->c0far);
        json_key(&w, "cat_token_id");
        json_uint(&w, two->cat);
        json_key(&w, "cos_cat_pos0_pos5");
        json_f64(&w, two->ccat);
        if (two->n_pairs) {
            json_key(&w, "median_random_token_pairs");
            json_f64(&w, two->median);
            json_key(&w, "random_pairs");
            json_uint(&w, two->n_pairs);
        }
        json_key(&w, "weights");
        json_cstr(&w, path);
        json_end_object(&w);
    }
    says_last(&w, says);
    json_end_object(&w);
    fputc('\n', f);
}

/* One text: {"text", "ids", "tokens": [{"id", "offset", "chars", "char_index", "char_part"}...]}. */
static void order_side(json_w *w, const order_text *t)
{
    json_begin_object(w);
    json_key(w, "text");
    json_str(w, t->text, t->len);
    json_key(w, "ids");
    json_begin_array(w);
    for (size_t i = 0; i < t->n; i++)
        json_uint(w, t->ids[i]);
    json_end_array(w);
    json_key(w, "tokens");
    json_begin_array(w);
    for (size_t i = 0; i < t->n; i++) {
        json_begin_object(w);
        json_key(w, "id");
        json_uint(w, t->ids[i]);
        tokchars_json(w, t->text, &t->sp[i]);
        json_end_object(w);
    }
    json_end_array(w);
    json_key(w, "labels");   /* each token as tables show it: "犬 (1/3)", "␣cat" */
    json_begin_array(w);
    for (size_t i = 0; i < t->n; i++) {
        char *l = tokchars_display_alloc(t->text, &t->sp[i]);
        json_cstr(w, l ? l : "?");
        free(l);
    }
    json_end_array(w);
    json_end_object(w);
}

void course_f64s_json(json_w *w, const char *key, const double *v, size_t n)
{
    json_key(w, key);
    json_begin_array(w);
    for (size_t t = 0; t < n; t++)
        json_f64(w, v[t]);
    json_end_array(w);
}

void course_count_json(json_w *w, const char *key, uint64_t first, size_t n)
{
    json_key(w, key);
    json_begin_array(w);
    for (size_t t = 0; t < n; t++)
        json_uint(w, first + t);
    json_end_array(w);
}

static void flags(json_w *w, const char *key, const uint8_t *v, size_t n)
{
    json_key(w, key);
    json_begin_array(w);
    for (size_t t = 0; t < n; t++)
        json_bool(w, v[t]);
    json_end_array(w);
}

/* One view: {"rows_equal", "attention": {"perm", "outputs_equal", "max_diff", "gap"},
 * "causal": {"equal", "rows_equal", "max_diff", "gap"}} */
static void order_view_json(json_w *w, const char *key, const order_view *v, size_t n_b, size_t n_pos)
{
    json_key(w, key);
    json_begin_object(w);
    json_key(w, "rows_equal");
    json_uint(w, v->n_equal);
    json_key(w, "attention");
    json_begin_object(w);
    json_key(w, "perm");
    json_begin_array(w);
    for (size_t s = 0; s < n_b; s++)
        if (v->perm[s] == ORDER_NONE)
            json_null(w);
        else
            json_uint(w, v->perm[s]);
    json_end_array(w);
    json_key(w, "outputs_equal");
    json_uint(w, v->out_equal);
    json_key(w, "max_diff");
    json_f64(w, v->out_maxdiff);
    json_key(w, "gap");
    json_f64(w, v->out_gap);
    json_end_object(w);
    json_key(w, "causal");
    json_begin_object(w);
    flags(w, "equal", v->causal_equal, n_pos);
    json_key(w, "rows_equal");
    json_uint(w, v->causal_n_equal);
    json_key(w, "max_diff");
    json_f64(w, v->causal_maxdiff);
    json_key(w, "gap");
    json_f64(w, v->causal_gap);
    json_end_object(w);
    json_end_object(w);
}

static const char *const VERDICTS[] = {"same_sequence", "other_tokens", "indistinguishable",
                                       "distinguishable"};

void course_order_json(FILE *f, const order_text t[2], const order_cmp *c, const char *says)
{
    json_w w;
    json_init(&w, f);
    json_begin_object(&w);
    json_key(&w, "a");
    order_side(&w, &t[0]);
    json_key(&w, "b");
    order_side(&w, &t[1]);
    json_key(&w, "same_multiset");
    json_bool(&w, c->same_multiset);
    json_key(&w, "verdict");
    json_cstr(&w, VERDICTS[c->verdict]);
    json_key(&w, "views");
    json_begin_object(&w);
    order_view_json(&w, "without_positions", &c->view[ORDER_NOPOS], c->n_b, c->n_pos);
    order_view_json(&w, "with_positions", &c->view[ORDER_POS], c->n_b, c->n_pos);
    json_end_object(&w);
    json_key(&w, "moved");
    if (c->moved) {
        json_begin_object(&w);
        json_key(&w, "id");
        json_uint(&w, c->moved_id);
        json_key(&w, "pos_a");
        json_uint(&w, c->moved_a);
        json_key(&w, "pos_b");
        json_uint(&w, c->moved_b);
        json_key(&w, "input_cos");
        json_f64(&w, c->moved_cos);
        json_end_object(&w);
    } else {
        json_null(&w);
    }
    flags(&w, "same_id", c->same_id, c->n_pos);
    course_f64s_json(&w, "token_cos", c->tok_cos, c->n_pos);
    course_f64s_json(&w, "input_cos", c->input_cos, c->n_pos);
    json_key(&w, "positions_differ");
    json_uint(&w, c->n_differ);
    flags(&w, "prefix_same", c->prefix_same, c->n_pos);
    says_last(&w, says);
    json_end_object(&w);
    fputc('\n', f);
}

void course_by_distance_json(FILE *f, const g2e_model *m, const char *path, size_t len,
                             size_t max_d, double base, const double *sinusoidal,
                             const double *learned, const char *says)
{
    json_w w;
    json_init(&w, f);
    json_begin_object(&w);
    json_key(&w, "model");
    json_cstr(&w, m->size_name);
    json_key(&w, "weights");
    json_cstr(&w, path);
    json_key(&w, "n_ctx");
    json_uint(&w, m->n_ctx);
    json_key(&w, "n_embd");
    json_uint(&w, m->n_embd);
    json_key(&w, "len");
    json_uint(&w, len);
    json_key(&w, "max_distance");
    json_uint(&w, max_d);
    json_key(&w, "base");
    json_f64(&w, base);
    course_count_json(&w, "distance", 0, max_d + 1);
    course_f64s_json(&w, "sinusoidal", sinusoidal, max_d + 1);
    course_f64s_json(&w, "learned", learned, max_d + 1);
    says_last(&w, says);
    json_end_object(&w);
    fputc('\n', f);
}
