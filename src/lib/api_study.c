/* SPDX-License-Identifier: MIT */
/* api_study.c — the public door's course calls (gpt2embed.h, "the course"): the numbers of
 * src/lib/study computed as the program's commands compute them, returned as the JSON the
 * commands print (course_json.h), with the sentences of interpret.h when asked; and the
 * principal components, wpe's norms and RoPE as structs and arrays (pca.h, pcasrc.h, rope.h). Texts are
 * tokenized through the door's own calls; errors become the public status as api.c's do. */
#include "../gpt2embed.h"
#include "api_internal.h"

#include "course_json.h"
#include "exercise.h"
#include "interpret.h"
#include "json.h"
#include "order.h"
#include "pcasrc.h"
#include "reference.h"
#include "rope.h"
#include "similarity.h"
#include "sinusoid.h"
#include "sinusoid_grid.h"
#include "text.h"
#include "tokchars.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NULL_ARG(fn) g2e_api_say(GPT2EMBED_E_ARG, err, fn ": NULL argument")

/* An argument outside its range: the message (a g2e_fail format, so translated as every
 * library message is) as GPT2EMBED_E_ARG. */
#define COURSE_ARG_FAIL(...)                                                   \
    do {                                                                \
        g2e_err arg_e_;                                                 \
        return g2e_api_fail(&arg_e_, g2e_fail(&arg_e_, G2E_EINVAL, __VA_ARGS__), err); \
    } while (0)

void gpt2embed_set_translator(gpt2embed_translate_fn translate)
{
    g2e_set_translator(translate);
}

/* A document written by write(f, user) into a new string *out; E_NOMEM when it cannot be. */
static gpt2embed_status to_string(void (*write)(FILE *f, const void *user), const void *user,
                                  char **out, gpt2embed_error *err)
{
    size_t n = 0;
    *out = NULL;
    FILE *f = open_memstream(out, &n);
    if (!f)
        return g2e_api_say(GPT2EMBED_E_NOMEM, err, "out of memory for a JSON document");
    write(f, user);
    if (fclose(f) != 0 || !*out) {
        free(*out);
        *out = NULL;
        return g2e_api_say(GPT2EMBED_E_NOMEM, err, "out of memory for a JSON document");
    }
    return GPT2EMBED_OK;
}

/* ---- the exercises ---- */

typedef struct ex_doc {
    const ex_first *one;
    const g2e_model *m;
    const ex_second *two;
    const char *path, *says;
} ex_doc;

static void write_ex(FILE *f, const void *user)
{
    const ex_doc *d = user;
    course_exercise_json(f, d->one, d->m, d->two, d->path, d->says);
}

static void write_ex_says(FILE *f, const void *user)
{
    const ex_second *x = user;
    if (x->far != EX_FAR) {
        fprintf(f, g2e_tr("This model has %zu positions, so position %zu stands in for 500."), x->rows, x->far);
        fputc('\n', f);
    }
    interp_near_far(f, 0, 1, x->c01, x->far, x->c0far);
    if (x->n_pairs)
        interp_same_token(f, "\u2423cat", 0, EX_NEAR_TOKEN_POS, x->ccat, x->median, x->n_pairs);
}

/* The ID of " cat" through the door (one token, or E_ARG naming how it splits). */
static gpt2embed_status cat_id(gpt2embed_tokenizer *t, uint32_t *id, gpt2embed_error *err)
{
    uint32_t *ids = NULL;
    size_t n = 0;
    gpt2embed_status s = gpt2embed_tokenize_ex(t, EX_CAT, strlen(EX_CAT), 0, &ids, NULL, &n, err);
    if (s == GPT2EMBED_OK && n != 1) {
        g2e_err e;
        s = g2e_api_fail(&e, g2e_fail(&e, G2E_EINVAL, "\" cat\" is %zu tokens in this tokenizer, not one", n), err);
    } else if (s == GPT2EMBED_OK) {
        *id = ids[0];
    }
    gpt2embed_free(ids);
    return s;
}

gpt2embed_status gpt2embed_course_exercise(const gpt2embed_model *m, gpt2embed_tokenizer *t,
                                           unsigned which, uint64_t ctx, uint64_t dim,
                                           unsigned flags, char **json, gpt2embed_error *err)
{
    if (!json)
        return NULL_ARG("gpt2embed_course_exercise");
    *json = NULL;
    const unsigned all = GPT2EMBED_EXERCISE_1 | GPT2EMBED_EXERCISE_2;
    if (!which || (which & ~all) || (flags & ~GPT2EMBED_COURSE_SAYS))
        COURSE_ARG_FAIL("gpt2embed_course_exercise: which is a set of GPT2EMBED_EXERCISE_1 and _2, "
                 "flags of GPT2EMBED_COURSE_SAYS");
    if ((which & GPT2EMBED_EXERCISE_2) && (!m || !t))
        COURSE_ARG_FAIL("gpt2embed_course_exercise: exercise 2 needs the weights and the tokenizer");
    if (ctx < 1 || ctx > ((uint64_t)1 << 31) || dim < 1 || dim > ((uint64_t)1 << 31))
        COURSE_ARG_FAIL("gpt2embed_course_exercise: ctx and dim must be 1 .. 2^31");
    const g2e_model *gm = g2e_api_model(m);
    ex_first one;
    ex_second two;
    ex_first_compute(ctx, dim, gm, &one);
    char *says = NULL;
    gpt2embed_status s = GPT2EMBED_OK;
    if (which & GPT2EMBED_EXERCISE_2) {
        uint32_t cat = 0;
        g2e_err e;
        int rc;
        if ((s = cat_id(t, &cat, err)) != GPT2EMBED_OK)
            return s;
        if ((rc = ex_second_compute(gm, cat, &two, &e)))
            return g2e_api_fail(&e, rc, err);
        if ((flags & GPT2EMBED_COURSE_SAYS) && (s = to_string(write_ex_says, &two, &says, err)))
            return s;
    }
    ex_doc d = {which & GPT2EMBED_EXERCISE_1 ? &one : NULL, gm,
                which & GPT2EMBED_EXERCISE_2 ? &two : NULL, g2e_api_model_path(m),
                (flags & GPT2EMBED_COURSE_SAYS) ? (says ? says : "") : NULL};
    s = to_string(write_ex, &d, json, err);
    free(says);
    return s;
}

/* ---- the order puzzle ---- */

/* One text tokenized through the door, with the characters behind each token. */
typedef struct course_text {
    uint32_t *ids;
    size_t *offsets, n;
    tokchars_span *sp;
} course_text;

static void text_free(course_text *x)
{
    gpt2embed_free(x->ids);
    gpt2embed_free(x->offsets);
    free(x->sp);
}

static gpt2embed_status text_of(gpt2embed_tokenizer *t, const char *s, size_t len, course_text *x,
                                gpt2embed_error *err)
{
    memset(x, 0, sizeof *x);
    gpt2embed_status st = gpt2embed_tokenize_ex(t, s, len, GPT2EMBED_SPECIAL_TEXT, &x->ids,
                                                &x->offsets, &x->n, err);
    if (st)
        return st;
    if (!(x->sp = malloc((x->n + 1) * sizeof *x->sp)))
        return g2e_api_say(GPT2EMBED_E_NOMEM, err, "out of memory");
    g2e_err e;
    int rc = tokchars_spans(s, len, x->offsets, x->n, x->sp, &e);
    return rc ? g2e_api_fail(&e, rc, err) : GPT2EMBED_OK;
}

typedef struct order_doc {
    const order_text *t;
    const order_cmp *c;
    const char *says;
} order_doc;

static void write_order(FILE *f, const void *user)
{
    const order_doc *d = user;
    course_order_json(f, d->t, d->c, d->says);
}

static void write_order_says(FILE *f, const void *user)
{
    const order_doc *d = user;
    interp_order(f, d->c, d->t);
}

gpt2embed_status gpt2embed_course_order(const gpt2embed_model *m, gpt2embed_tokenizer *t,
                                        const char *a, size_t a_len, const char *b, size_t b_len,
                                        unsigned flags, char **json, gpt2embed_error *err)
{
    if (json)
        *json = NULL;
    if (!m || !t || !json || (a_len && !a) || (b_len && !b))
        return NULL_ARG("gpt2embed_course_order");
    if (flags & ~GPT2EMBED_COURSE_SAYS)
        COURSE_ARG_FAIL("gpt2embed_course_order: unknown flags");
    course_text x[2];
    memset(x, 0, sizeof x);
    order_cmp c = {0};
    char *says = NULL;
    g2e_err e;
    gpt2embed_status s = text_of(t, a_len ? a : "", a_len, &x[0], err);
    int which = 0;   /* the text that failed, named in the message as compare names it */
    if (!s && (s = text_of(t, b_len ? b : "", b_len, &x[1], err)))
        which = 1;
    if (s && err) {
        char msg[GPT2EMBED_ERROR_MAX];
        snprintf(msg, sizeof msg, "text %c: %s", 'A' + which, err->message);
        memcpy(err->message, msg, sizeof msg);
    }
    int rc = s ? 0 : order_compare(g2e_api_model(m), x[0].ids, x[0].n, x[1].ids, x[1].n, &c, &e);
    if (!s && rc)
        s = g2e_api_fail(&e, rc, err);
    if (!s) {
        order_text ot[2] = {{a_len ? a : "", x[0].ids, x[0].sp, x[0].n, a_len},
                            {b_len ? b : "", x[1].ids, x[1].sp, x[1].n, b_len}};
        order_doc d = {ot, &c, NULL};
        if (!(flags & GPT2EMBED_COURSE_SAYS) || !(s = to_string(write_order_says, &d, &says, err))) {
            d.says = says;
            s = to_string(write_order, &d, json, err);
        }
    }
    free(says);
    order_free(&c);
    text_free(&x[0]), text_free(&x[1]);
    return s;
}

/* ---- learned against sinusoidal ---- */

typedef struct dist_doc {
    const g2e_model *m;
    const char *path;
    size_t len, max_d;
    double base;
    const double *sinus, *learned;
} dist_doc;

static void write_dist(FILE *f, const void *user)
{
    const dist_doc *d = user;
    course_by_distance_json(f, d->m, d->path, d->len, d->max_d, d->base, d->sinus, d->learned, NULL);
}

gpt2embed_status gpt2embed_course_by_distance(const gpt2embed_model *m, size_t len, size_t max_d,
                                              double base, unsigned flags, char **json,
                                              gpt2embed_error *err)
{
    if (json)
        *json = NULL;
    if (!m || !json)
        return NULL_ARG("gpt2embed_course_by_distance");
    const g2e_model *gm = g2e_api_model(m);
    len = len ? len : gm->n_ctx;
    if ((flags & ~GPT2EMBED_COURSE_SAYS) || len > gm->n_ctx || max_d >= len)
        COURSE_ARG_FAIL("gpt2embed_course_by_distance: len must be 1..%zu and max_d below it (got %zu and "
                 "%zu), flags GPT2EMBED_COURSE_SAYS or 0", gm->n_ctx, len, max_d);
    double *curves = malloc(2 * (max_d + 1) * sizeof *curves);
    if (!curves)
        return g2e_api_say(GPT2EMBED_E_NOMEM, err, "out of memory");
    g2e_err e;
    int rc = sim_learned_and_sinusoidal(gm, len, max_d, base, curves, curves + max_d + 1, &e);
    gpt2embed_status s = rc ? g2e_api_fail(&e, rc, err) : GPT2EMBED_OK;
    if (!s) {
        dist_doc d = {gm, g2e_api_model_path(m), len, max_d, base, curves, curves + max_d + 1};
        s = to_string(write_dist, &d, json, err);
    }
    free(curves);
    return s;
}

/* ---- a pair of the model's vectors ---- */

/* "3797 '␣cat'": a token as every command shows it, into buf[cap]. */
static void token_label(const gpt2embed_tokenizer *t, uint32_t id, char *buf, size_t cap)
{
    const uint8_t *b;
    size_t n;
    char *v = t && gpt2embed_token_bytes(t, id, &b, &n, NULL) == GPT2EMBED_OK
                  ? text_escape((const char *)b, n, TEXT_ESC_VISIBLE) : NULL;
    snprintf(buf, cap, "%u '%s'", id, v ? v : "?");
    free(v);
}

typedef struct pair_doc {
    const char *what;
    double c;
    const char *says;
} pair_doc;

static void write_pair(FILE *f, const void *user)
{
    const pair_doc *d = user;
    json_w w;
    json_init(&w, f);
    json_begin_object(&w);
    json_key(&w, "what");
    json_cstr(&w, d->what);
    json_key(&w, "cos");
    json_f64(&w, d->c);
    if (d->says) {
        json_key(&w, "says");
        course_says_json(&w, d->says);
    }
    json_end_object(&w);
    fputc('\n', f);
}

typedef struct pair_says {
    const g2e_model *m;
    unsigned kind;
    const char *piece;      /* GPT2EMBED_PAIR_AT: the token as tables show it */
    size_t p1, p2;
    double c;
} pair_says;

/* The line after a pair's cosine: beside the median of random pairs of the same matrix's
 * rows, and for one token at two positions between that and 1.0 (nothing without a
 * reference). */
static void write_pair_says(FILE *f, const void *user)
{
    const pair_says *p = user;
    double med;
    size_t n;
    if (ref_median_cosine(p->m, p->kind == GPT2EMBED_PAIR_POSITIONS, REF_PAIRS, REF_SEED, &med, &n, NULL) != 0)
        return;
    if (p->kind == GPT2EMBED_PAIR_AT)
        interp_same_token(f, p->piece, p->p1, p->p2, p->c, med, n);
    else
        interp_pair(f, p->kind == GPT2EMBED_PAIR_POSITIONS ? g2e_tr("positions") : g2e_tr("tokens"), p->c, med, n);
}

gpt2embed_status gpt2embed_course_pair(const gpt2embed_model *m, const gpt2embed_tokenizer *t, unsigned kind,
                                       const uint32_t tokens[2], const size_t positions[2], unsigned flags,
                                       char **json, gpt2embed_error *err)
{
    if (json)
        *json = NULL;
    int at = kind == GPT2EMBED_PAIR_AT, by_pos = kind == GPT2EMBED_PAIR_POSITIONS;
    if (!m || !json || (!by_pos && !tokens) || (kind != GPT2EMBED_PAIR_TOKENS && !positions))
        return NULL_ARG("gpt2embed_course_pair");
    if ((kind < GPT2EMBED_PAIR_POSITIONS || kind > GPT2EMBED_PAIR_AT) || (flags & ~GPT2EMBED_COURSE_SAYS))
        COURSE_ARG_FAIL("gpt2embed_course_pair: kind is GPT2EMBED_PAIR_POSITIONS, _TOKENS or _AT, flags "
                        "GPT2EMBED_COURSE_SAYS or 0");
    const g2e_model *gm = g2e_api_model(m);
    long long id[2] = {-1, -1}, pos[2] = {-1, -1};
    char what[600], la[160], lb[160];
    if (by_pos) {
        pos[0] = (long long)positions[0], pos[1] = (long long)positions[1];
        snprintf(what, sizeof what, "cos(wpe[%zu], wpe[%zu])", positions[0], positions[1]);
    } else {
        id[0] = tokens[0], id[1] = at ? tokens[0] : tokens[1];
        token_label(t, tokens[0], la, sizeof la);
        token_label(t, (uint32_t)id[1], lb, sizeof lb);
        if (at) {
            pos[0] = (long long)positions[0], pos[1] = (long long)positions[1];
            snprintf(what, sizeof what, "cos(wte[%s] + wpe[%zu], wte[%s] + wpe[%zu])", la, positions[0], la,
                     positions[1]);
        } else {
            snprintf(what, sizeof what, "cos(wte[%s], wte[%s])", la, lb);
        }
    }
    double c;
    g2e_err e;
    int rc = sim_input_cosine(gm, id, pos, &c, &e);
    if (rc == SIM_E_ZERO || rc == SIM_E_NONFINITE) {   /* which pair has no cosine */
        g2e_err why = e;
        g2e_fail(&e, rc, "%s: %s", what, why.msg);
    }
    if (rc)
        return g2e_api_fail(&e, rc, err);
    char *says = NULL, piece[160] = "?";
    gpt2embed_status s = GPT2EMBED_OK;
    if (flags & GPT2EMBED_COURSE_SAYS) {
        const uint8_t *b;
        size_t n;
        char *v = at && t && gpt2embed_token_bytes(t, tokens[0], &b, &n, NULL) == GPT2EMBED_OK
                      ? text_escape((const char *)b, n, TEXT_ESC_VISIBLE) : NULL;
        if (v)
            snprintf(piece, sizeof piece, "%s", v);
        free(v);
        pair_says p = {gm, kind, piece, at ? positions[0] : 0, at ? positions[1] : 0, c};
        s = to_string(write_pair_says, &p, &says, err);
    }
    if (!s) {
        pair_doc d = {what, c, (flags & GPT2EMBED_COURSE_SAYS) ? (says ? says : "") : NULL};
        s = to_string(write_pair, &d, json, err);
    }
    free(says);
    return s;
}

/* ---- the rotation, words ---- */

/* One pair (2i, 2i+1) as the position grows, p = 0..n-1: the sinusoidal encoding's
 * (cos, sin) (rope 0), or (x0, y0) rotated as RoPE turns it (rope 1); the angle per position
 * into *angle (may be NULL). pair GPT2EMBED_PAIR_DEFAULT: the pair the figures show. */
static gpt2embed_status pair_path(int rope, size_t n, size_t dim, size_t pair, double base, double x0,
                                  double y0, double *x, double *y, double *angle, gpt2embed_error *err)
{
    g2e_err e;
    int rc = sin_check_params(dim, base, &e);
    if (rc)
        return g2e_api_fail(&e, rc, err);
    if (pair == GPT2EMBED_PAIR_DEFAULT)
        pair = sin_demo_pair(dim);
    rc = rope ? rope_pair_path(dim, base, pair, x0, y0, n, x, y, &e)
              : sin_pair_points(n, dim, pair, base, x, y, &e);
    if (rc)
        return g2e_api_fail(&e, rc, err);
    if (angle)
        *angle = sin_omega(pair, dim, base);
    return GPT2EMBED_OK;
}

gpt2embed_status gpt2embed_sinusoid_pair(size_t n, size_t dim, size_t pair, double base,
                                         double *x, double *y, double *omega, gpt2embed_error *err)
{
    if (n && (!x || !y))
        return NULL_ARG("gpt2embed_sinusoid_pair");
    if (n > 1000000)
        COURSE_ARG_FAIL("gpt2embed_sinusoid_pair: at most 1000000 positions, got %zu", n);
    return pair_path(0, n, dim, pair, base, 1.0, 0.0, x, y, omega, err);
}

size_t gpt2embed_english_words(const char *text, size_t len, int *english)
{
    if (english)
        *english = 0;
    return text || !len ? text_english_words(text ? text : "", len, english) : 0;
}

/* ---- principal components, wpe's norms ---- */

void gpt2embed_pca_free(gpt2embed_pca_result *p)
{
    if (!p)
        return;
    free(p->row_id), free(p->mean), free(p->variance), free(p->ratio);
    free(p->components), free(p->proj);   /* (cumulative shares ratio's block) */
    free(p);
}

gpt2embed_status gpt2embed_pca(const gpt2embed_model *m, const gpt2embed_pca_source *src, size_t k,
                               gpt2embed_pca_result **out, gpt2embed_error *err)
{
    if (out)
        *out = NULL;
    if (!src || !out || (src->of != GPT2EMBED_PCA_SINUSOIDAL && !m) || (src->n_ids && !src->ids))
        return NULL_ARG("gpt2embed_pca");
    if (src->of != GPT2EMBED_PCA_WPE && src->of != GPT2EMBED_PCA_WTE && src->of != GPT2EMBED_PCA_SINUSOIDAL)
        COURSE_ARG_FAIL("gpt2embed_pca: the source is GPT2EMBED_PCA_WPE, _WTE or _SINUSOIDAL, not %d", src->of);
    pcasrc_spec spec = {.of = src->of, .m = src->of == GPT2EMBED_PCA_SINUSOIDAL ? NULL : g2e_api_model(m),
                        .ids = src->ids, .n_ids = src->n_ids, .len = src->len, .dim = src->dim,
                        .base = src->base, .skip = src->skip};
    pca_result r;
    double *row_id = NULL;
    size_t bad = GPT2EMBED_NONE;
    g2e_err e;
    int rc = pcasrc_pca(&spec, k, &r, &row_id, &bad, &e);
    if (rc) {
        gpt2embed_status s = g2e_api_fail(&e, rc, err);
        if (err && s == GPT2EMBED_E_TOKEN_ID)
            err->index = bad;
        return s;
    }
    gpt2embed_pca_result *p = calloc(1, sizeof *p);
    double *ratio = malloc(2 * r.d * sizeof *ratio);
    if (!p || !ratio) {
        free(p), free(ratio), free(row_id);
        pca_free(&r);
        return g2e_api_say(GPT2EMBED_E_NOMEM, err, "out of memory for principal components");
    }
    *p = (gpt2embed_pca_result){.n = r.n, .d = r.d, .k = r.k, .row_id = row_id, .mean = r.mean,
                         .variance = r.variance, .ratio = ratio, .cumulative = ratio + r.d,
                         .total = r.total, .floor = r.floor, .n_signal = pca_signal_count(&r),
                         .components = r.components, .proj = r.proj};
    double cum = 0;
    for (size_t i = 0; i < r.d; i++) {
        ratio[i] = pca_ratio(&r, i);
        p->cumulative[i] = (cum += ratio[i]);
    }
    *out = p;   /* the arrays pass from r to p */
    return GPT2EMBED_OK;
}

typedef struct pca_doc {
    const gpt2embed_pca_result *r;
    const char *of, *source;
} pca_doc;

static void write_pca(FILE *f, const void *user)
{
    const pca_doc *d = user;
    const gpt2embed_pca_result *r = d->r;
    json_w w;
    json_init(&w, f);
    json_begin_object(&w);
    json_key(&w, "of");
    json_cstr(&w, d->of);
    json_key(&w, "source");
    json_cstr(&w, d->source);
    json_key(&w, "rows");
    json_uint(&w, r->n);
    json_key(&w, "cols");
    json_uint(&w, r->d);
    json_key(&w, "total_variance");
    json_f64(&w, r->total);
    json_key(&w, "floor");
    json_f64(&w, r->floor);
    course_count_json(&w, "component", 1, r->d);
    course_f64s_json(&w, "variance", r->variance, r->d);
    course_f64s_json(&w, "ratio", r->ratio, r->d);
    course_f64s_json(&w, "cumulative", r->cumulative, r->d);
    json_end_object(&w);
    fputc('\n', f);
}

gpt2embed_status gpt2embed_pca_json(const gpt2embed_pca_result *r, const gpt2embed_model *m,
                                    const gpt2embed_pca_source *src, char **json, gpt2embed_error *err)
{
    if (json)
        *json = NULL;
    if (!r || !src || !json || (src->of != GPT2EMBED_PCA_SINUSOIDAL && !m) ||
        (r->d && (!r->variance || !r->ratio || !r->cumulative)))
        return NULL_ARG("gpt2embed_pca_json");
    static const char *const OF[] = {"wpe", "wte", "sinusoidal"};   /* GPT2EMBED_PCA_* */
    if (src->of < 0 || src->of > GPT2EMBED_PCA_SINUSOIDAL)
        COURSE_ARG_FAIL("gpt2embed_pca_json: the source is GPT2EMBED_PCA_WPE, _WTE or _SINUSOIDAL, not %d",
                        src->of);
    const char *path = src->of == GPT2EMBED_PCA_SINUSOIDAL ? NULL : g2e_api_model_path(m);
    pca_doc d = {r, OF[src->of], path ? path : ""};
    return to_string(write_pca, &d, json, err);
}

gpt2embed_status gpt2embed_wpe_norms(const gpt2embed_model *m, double *norms,
                                     gpt2embed_norm_summary *summary, gpt2embed_error *err)
{
    if (!m || !norms)
        return NULL_ARG("gpt2embed_wpe_norms");
    pcasrc_norms sn;
    g2e_err e;
    int rc = pcasrc_wpe_norms(g2e_api_model(m), &sn, &e);
    if (rc)
        return g2e_api_fail(&e, rc, err);
    memcpy(norms, sn.norm, sn.n * sizeof *norms);
    if (summary)
        *summary = sn.sum;
    pcasrc_norms_free(&sn);
    return GPT2EMBED_OK;
}

typedef struct norms_doc {
    const char *path;
    const pcasrc_norms *sn;
} norms_doc;

static void write_norms(FILE *f, const void *user)
{
    const norms_doc *d = user;
    const gpt2embed_norm_summary *s = &d->sn->sum;
    size_t n = d->sn->n;
    json_w w;
    json_init(&w, f);
    json_begin_object(&w);
    json_key(&w, "weights");
    json_cstr(&w, d->path);
    json_key(&w, "positions");
    json_uint(&w, n);
    static const char *const KEYS[] = {"norm_0", "median_norm_1_on", "norm_0_vs_median", "split",
                                       "mean_before_split", "cv_before_split", "mean_from_split",
                                       "cv_from_split"};
    const double v[] = {s->first, s->median, s->first_vs_median, 0, s->mean_early, s->cv_early,
                        s->mean_late, s->cv_late};
    for (size_t i = 0; i < sizeof KEYS / sizeof *KEYS; i++) {
        json_key(&w, KEYS[i]);
        if (i == 3)
            json_uint(&w, s->split);
        else
            json_f64(&w, v[i]);
    }
    course_count_json(&w, "position", 0, n);
    course_f64s_json(&w, "norm", d->sn->norm, n);
    json_key(&w, "vs_median");
    json_begin_array(&w);
    for (size_t p = 0; p < n; p++)
        json_f64(&w, s->median > 0 ? d->sn->norm[p] / s->median : NAN);   /* NaN: null */
    json_end_array(&w);
    json_end_object(&w);
    fputc('\n', f);
}

gpt2embed_status gpt2embed_wpe_norms_json(const gpt2embed_model *m, char **json, gpt2embed_error *err)
{
    if (json)
        *json = NULL;
    if (!m || !json)
        return NULL_ARG("gpt2embed_wpe_norms_json");
    pcasrc_norms sn;
    g2e_err e;
    int rc = pcasrc_wpe_norms(g2e_api_model(m), &sn, &e);
    if (rc)
        return g2e_api_fail(&e, rc, err);
    norms_doc d = {g2e_api_model_path(m), &sn};
    gpt2embed_status s = to_string(write_norms, &d, json, err);
    pcasrc_norms_free(&sn);
    return s;
}

/* ---- RoPE ---- */

gpt2embed_status gpt2embed_rope_check_relative(size_t dim, double base, uint64_t max_pos, size_t n_pairs,
                                               uint64_t seed, gpt2embed_rope_check *out,
                                               gpt2embed_error *err)
{
    if (!out)
        return NULL_ARG("gpt2embed_rope_check_relative");
    g2e_err e;
    int rc = rope_check_relative(dim, base, max_pos, n_pairs, seed, out, &e);
    return rc ? g2e_api_fail(&e, rc, err) : GPT2EMBED_OK;
}

gpt2embed_status gpt2embed_rope_dot_curve(size_t dim, double base, uint64_t from, uint64_t to,
                                          size_t n_samples, uint64_t seed, double *mean,
                                          double *expected, gpt2embed_error *err)
{
    if (!mean)
        return NULL_ARG("gpt2embed_rope_dot_curve");
    g2e_err e;
    int rc = rope_dot_curve(dim, base, from, to, n_samples, seed, mean, expected, &e);
    return rc ? g2e_api_fail(&e, rc, err) : GPT2EMBED_OK;
}

gpt2embed_status gpt2embed_rope_rotation(size_t dim, double base, size_t pair, double x0, double y0,
                                         size_t n, double *x, double *y, double *theta,
                                         gpt2embed_error *err)
{
    if (!x || !y)
        return NULL_ARG("gpt2embed_rope_rotation");
    return pair_path(1, n, dim, pair, base, x0, y0, x, y, theta, err);
}

const char *gpt2embed_rope_scheme(size_t row, size_t col)
{
    return row < ROPE_N_SCHEME_ROWS && col < 4 ? rope_schemes[row][col] : NULL;
}

/* The mode's numbers, computed for the document. */
typedef struct rope_doc {
    const gpt2embed_rope_params *p;
    gpt2embed_rope_check check;
    size_t n;                 /* DOT_CURVE: offsets; ROTATION: positions */
    double *a, *b;            /* DOT_CURVE: mean, expected; ROTATION: x, y */
    size_t pair;              /* ROTATION: the pair taken */
    double theta;
} rope_doc;

static void write_rope(FILE *f, const void *user)
{
    const rope_doc *d = user;
    const gpt2embed_rope_params *p = d->p;
    json_w w;
    json_init(&w, f);
    json_begin_object(&w);
    if (p->mode == GPT2EMBED_ROPE_SCHEMES) {
        static const char *const ROWS[] = {"name", "enters", "parameters", "length_limit",
                                           "score_depends_on"};
        json_key(&w, "schemes");
        json_begin_array(&w);
        for (size_t c = 1; c < 4; c++) {
            json_begin_object(&w);
            for (size_t r = 0; r < ROPE_N_SCHEME_ROWS; r++) {
                json_key(&w, ROWS[r]);
                json_cstr(&w, rope_schemes[r][c]);
            }
            json_end_object(&w);
        }
        json_end_array(&w);
    }
    json_key(&w, "dim");
    json_uint(&w, p->dim);
    json_key(&w, "base");
    json_f64(&w, p->base);
    if (p->mode == GPT2EMBED_ROPE_SCHEMES) {
        json_key(&w, "longest_wavelength");
        json_f64(&w, 2 * 3.141592653589793 * pow(p->base, (double)(p->dim - 2) / (double)p->dim));
    } else if (p->mode == GPT2EMBED_ROPE_CHECK_RELATIVE) {
        const gpt2embed_rope_check *c = &d->check;
        json_key(&w, "max_pos");
        json_uint(&w, p->max_pos);
        json_key(&w, "pairs");
        json_uint(&w, c->pairs);
        json_key(&w, "seed");
        json_uint(&w, p->seed);
        json_key(&w, "max_deviation");
        json_f64(&w, c->max_dev);
        json_key(&w, "at_m");
        json_uint(&w, c->at_m);
        json_key(&w, "at_n");
        json_uint(&w, c->at_n);
        json_key(&w, "mean_deviation");
        json_f64(&w, c->mean_dev);
        json_key(&w, "rounding_bound");
        json_f64(&w, c->rounding_bound);
        json_key(&w, "relative");
        json_bool(&w, c->relative);
    } else if (p->mode == GPT2EMBED_ROPE_DOT_CURVE) {
        json_key(&w, "samples");
        json_uint(&w, p->samples);
        json_key(&w, "seed");
        json_uint(&w, p->seed);
        course_count_json(&w, "k", p->from, d->n);
        course_f64s_json(&w, "mean_dot", d->a, d->n);
        course_f64s_json(&w, "expected", d->b, d->n);
    } else {
        json_key(&w, "pair");
        json_uint(&w, d->pair);
        json_key(&w, "theta");
        json_f64(&w, d->theta);
        course_count_json(&w, "position", 0, d->n);
        course_f64s_json(&w, "x_2i", d->a, d->n);
        course_f64s_json(&w, "x_2i+1", d->b, d->n);
    }
    json_end_object(&w);
    fputc('\n', f);
}

/* d's numbers for its mode (d->a, d->b: the caller frees them). */
static gpt2embed_status rope_compute(rope_doc *d, gpt2embed_error *err)
{
    const gpt2embed_rope_params *p = d->p;
    g2e_err e;
    int rc;
    if (p->mode == GPT2EMBED_ROPE_SCHEMES) {
        rc = sin_check_params(p->dim, p->base, &e);
        return rc ? g2e_api_fail(&e, rc, err) : GPT2EMBED_OK;
    }
    if (p->mode == GPT2EMBED_ROPE_CHECK_RELATIVE)
        return gpt2embed_rope_check_relative(p->dim, p->base, p->max_pos, p->pairs, p->seed, &d->check, err);
    if (p->mode == GPT2EMBED_ROPE_DOT_CURVE) {
        if ((rc = rope_dot_curve_check(p->dim, p->base, p->from, p->to, p->samples, &e)))
            return g2e_api_fail(&e, rc, err);
        d->n = (size_t)(p->to - p->from) + 1;   /* at most 2^32 (checked) */
    } else {
        d->pair = p->pair == GPT2EMBED_PAIR_DEFAULT ? sin_demo_pair(p->dim) : p->pair;
        if (p->len == 0 || p->len > ROPE_MAX_POS)   /* its message, before the arrays */
            return gpt2embed_rope_rotation(p->dim, p->base, d->pair, 1.0, 0.0, p->len, &d->theta,
                                           &d->theta, NULL, err);
        d->n = p->len;
    }
    d->a = d->n <= SIZE_MAX / (2 * sizeof *d->a) ? malloc(2 * d->n * sizeof *d->a) : NULL;
    if (!d->a)
        return g2e_api_fail(&e, g2e_fail(&e, G2E_ENOMEM, "out of memory for a curve of %zu points", d->n), err);
    d->b = d->a + d->n;
    if (p->mode == GPT2EMBED_ROPE_DOT_CURVE)
        return gpt2embed_rope_dot_curve(p->dim, p->base, p->from, p->to, p->samples, p->seed, d->a,
                                        d->b, err);
    return gpt2embed_rope_rotation(p->dim, p->base, d->pair, 1.0, 0.0, d->n, d->a, d->b, &d->theta, err);
}

gpt2embed_status gpt2embed_rope_json(const gpt2embed_rope_params *p, char **json, gpt2embed_error *err)
{
    if (json)
        *json = NULL;
    if (!p || !json)
        return NULL_ARG("gpt2embed_rope_json");
    if (p->mode < GPT2EMBED_ROPE_SCHEMES || p->mode > GPT2EMBED_ROPE_ROTATION)
        COURSE_ARG_FAIL("gpt2embed_rope_json: the mode is GPT2EMBED_ROPE_SCHEMES, _CHECK_RELATIVE, "
                        "_DOT_CURVE or _ROTATION, not %d", p->mode);
    rope_doc d = {.p = p};
    gpt2embed_status s = rope_compute(&d, err);
    if (s == GPT2EMBED_OK)
        s = to_string(write_rope, &d, json, err);
    free(d.a);
    return s;
}
