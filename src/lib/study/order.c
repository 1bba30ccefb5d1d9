/* SPDX-License-Identifier: MIT */
/* order.c — two token sequences compared with and without positions (see order.h). */
#include "order.h"

#include "embed.h"
#include "similarity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double clamp_cos(double c)
{
    return c > 1.0 ? 1.0 : c < -1.0 ? -1.0 : c;
}

static int cosine(const float *x, const float *y, size_t n, double *out, g2e_err *err)
{
    int rc = sim_cosine(x, y, n, out, err);
    if (rc == 0)
        *out = clamp_cos(*out);
    return rc;
}

/* Position-wise comparison of the first c->n_pos tokens of a and b. */
static int by_position(const g2e_model *m, const uint32_t *a, const uint32_t *b, order_cmp *c,
                       float *scratch, g2e_err *err)
{
    size_t C = m->n_embd;
    float *xa = scratch, *xb = scratch + C, *ta = scratch + 2 * C, *tb = scratch + 3 * C;
    embed_ctx ec;
    int rc = embed_init(&ec, m, EMBED_PE_LEARNED, err);
    if (rc)
        return rc;
    for (size_t t = 0; t < c->n_pos && rc == 0; t++) {
        if ((rc = embed_row(&ec, a[t], t, xa, ta, NULL, err)) ||
            (rc = embed_row(&ec, b[t], t, xb, tb, NULL, err)) ||
            (rc = cosine(ta, tb, C, &c->tok_cos[t], err)) ||
            (rc = cosine(xa, xb, C, &c->input_cos[t], err)))
            break;
        c->same_id[t] = a[t] == b[t];
        c->n_differ += memcmp(xa, xb, C * sizeof *xa) != 0;
    }
    embed_free(&ec);
    return rc;
}

/* The first token of A found at another position of B, where B does not hold it already
 * (a_s != b_s), and the cosine of its two input rows. */
static int moved_token(const g2e_model *m, const uint32_t *a, const uint32_t *b, order_cmp *c,
                       float *scratch, g2e_err *err)
{
    for (size_t t = 0; t < c->n_a; t++) {
        if (t < c->n_b && a[t] == b[t])
            continue;
        for (size_t s = 0; s < c->n_b; s++) {
            if (s == t || b[s] != a[t] || (s < c->n_a && a[s] == b[s]))
                continue;
            size_t C = m->n_embd;
            embed_ctx ec;
            int rc = embed_init(&ec, m, EMBED_PE_LEARNED, err);
            if (rc == 0 && (rc = embed_row(&ec, a[t], t, scratch, NULL, NULL, err)) == 0 &&
                (rc = embed_row(&ec, a[t], s, scratch + C, NULL, NULL, err)) == 0)
                rc = cosine(scratch, scratch + C, C, &c->moved_cos, err);
            embed_free(&ec);
            c->moved = rc == 0, c->moved_id = a[t], c->moved_a = t, c->moved_b = s;
            return rc;
        }
    }
    return 0;
}

/* Y = softmax(X Xᵀ / √C) X for the n rows of X (n, C); Y (n, C) and w (n) in double. The
 * score of a pair of rows is summed over c in one order whatever the rows' places. causal:
 * row i attends to rows 0..i only (GPT-2's mask). */
static void toy_attention(const float *X, size_t n, size_t C, int causal, double *Y, double *w)
{
    double k = 1.0 / sqrt((double)C);
    for (size_t i = 0; i < n; i++) {
        double mx = -INFINITY, z = 0, *y = Y + i * C;
        size_t nj = causal ? i + 1 : n;
        for (size_t j = 0; j < nj; j++) {
            double s = 0;
            for (size_t c = 0; c < C; c++)
                s += (double)X[i * C + c] * (double)X[j * C + c];
            w[j] = s * k;
            mx = w[j] > mx ? w[j] : mx;
        }
        for (size_t j = 0; j < nj; j++)
            z += (w[j] = exp(w[j] - mx));
        memset(y, 0, C * sizeof *y);
        for (size_t j = 0; j < nj; j++)
            for (size_t c = 0; c < C; c++)
                y[c] += w[j] / z * (double)X[j * C + c];
    }
}

/* Rows of A (na, C) with an equal row of B (nb, C), bit for bit, matched one to one
 * (equality is transitive, so matching greedily finds the most). used: nb scratch. */
static size_t equal_rows(const float *A, size_t na, const float *B, size_t nb, size_t C,
                         uint8_t *used)
{
    size_t k = 0;
    memset(used, 0, nb);
    for (size_t t = 0; t < na; t++)
        for (size_t s = 0; s < nb; s++)
            if (!used[s] && memcmp(A + t * C, B + s * C, C * sizeof *A) == 0) {
                used[s] = 1, k++;
                break;
            }
    return k;
}

static double max_abs_diff(const double *x, const double *y, size_t C)
{
    double d = 0;
    for (size_t c = 0; c < C; c++)
        d = fmax(d, fabs(x[c] - y[c]));
    return d;
}

/* B's output rows against A's: perm, out_equal, out_maxdiff, out_gap. used: na scratch. */
static void match_outputs(const double *YA, size_t na, const double *YB, size_t nb, size_t C,
                          double tol, uint8_t *used, order_view *v)
{
    memset(used, 0, na);
    double gap = INFINITY;
    for (size_t s = 0; s < nb; s++) {
        double nearest = INFINITY;
        v->perm[s] = ORDER_NONE;
        for (size_t t = 0; t < na; t++) {
            double d = max_abs_diff(YB + s * C, YA + t * C, C);
            nearest = fmin(nearest, d);
            if (!used[t] && d <= tol) {
                used[t] = 1, v->perm[s] = t, v->out_equal++;
                v->out_maxdiff = fmax(v->out_maxdiff, d);
                break;
            }
        }
        if (v->perm[s] == ORDER_NONE)
            gap = fmin(gap, nearest);
    }
    v->out_gap = v->out_equal == nb ? 0 : gap;
}

/* The causal outputs of A and B compared row t with row t, t < n. */
static void match_causal(const double *YA, const double *YB, size_t n, size_t C, double tol,
                         order_view *v)
{
    double gap = INFINITY;
    for (size_t t = 0; t < n; t++) {
        double d = max_abs_diff(YB + t * C, YA + t * C, C);
        v->causal_equal[t] = d <= tol;
        if (d <= tol)
            v->causal_n_equal++, v->causal_maxdiff = fmax(v->causal_maxdiff, d);
        else
            gap = fmin(gap, d);
    }
    v->causal_gap = v->causal_n_equal == n ? 0 : gap;
}

static float max_abs(const float *x, size_t n)
{
    float m = 0;
    for (size_t i = 0; i < n; i++)
        m = fmaxf(m, fabsf(x[i]));
    return m;
}

/* The input rows X (n, C) of ids: wte[id_t], plus wpe[t] when with_pos. */
static int input_rows(const g2e_model *m, const uint32_t *ids, size_t n, int with_pos, float *X,
                      g2e_err *err)
{
    if (with_pos)
        return embed_rows(m, EMBED_PE_LEARNED, ids, n, 0, X, NULL, NULL, err);
    for (size_t t = 0; t < n; t++) {
        int rc = model_wte_row(m, ids[t], X + t * m->n_embd, err);
        if (rc)
            return rc;
    }
    return 0;
}

/* One view (without or with positions) of both texts: c->view[with_pos]. */
static int one_view(const g2e_model *m, const uint32_t *a, const uint32_t *b, int with_pos,
                    order_cmp *c, g2e_err *err)
{
    size_t C = m->n_embd, na = c->n_a, nb = c->n_b, nmax = na > nb ? na : nb;
    order_view *v = &c->view[with_pos];
    float *xa = malloc((na + nb) * C * sizeof *xa), *xb = xa ? xa + na * C : NULL;
    double *y = malloc((na + nb) * C * sizeof *y), *w = malloc(nmax * sizeof *w);
    uint8_t *used = malloc(nmax);
    int rc;
    v->perm = malloc(nb * sizeof *v->perm);
    v->causal_equal = malloc(c->n_pos);
    if (!v->perm || !v->causal_equal || !xa || !y || !w || !used)
        rc = g2e_fail(err, G2E_ENOMEM, "out of memory comparing %zu and %zu tokens", na, nb);
    else if ((rc = input_rows(m, a, na, with_pos, xa, err)) == 0 &&
             (rc = input_rows(m, b, nb, with_pos, xb, err)) == 0) {
        v->n_equal = equal_rows(xa, na, xb, nb, C, used);
        double tol = ORDER_TOL * fmax(1.0, (double)max_abs(xa, (na + nb) * C));
        for (int causal = 0; causal < 2; causal++) {
            toy_attention(xa, na, C, causal, y, w);
            toy_attention(xb, nb, C, causal, y + na * C, w);
            if (causal)
                match_causal(y, y + na * C, c->n_pos, C, tol, v);
            else
                match_outputs(y, na, y + na * C, nb, C, tol, used, v);
        }
    }
    free(xa), free(y), free(w), free(used);
    return rc;
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

/* 1 when a[n] and b[n] hold the same IDs with the same counts. */
static int same_multiset(const uint32_t *a, const uint32_t *b, size_t n, g2e_err *err, int *out)
{
    uint32_t *s = malloc(2 * n * sizeof *s);
    if (!s)
        return g2e_fail(err, G2E_ENOMEM, "out of memory comparing %zu tokens", n);
    memcpy(s, a, n * sizeof *s);
    memcpy(s + n, b, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_u32);
    qsort(s + n, n, sizeof *s, cmp_u32);
    *out = memcmp(s, s + n, n * sizeof *s) == 0;
    free(s);
    return 0;
}

/* c->prefix_same from the IDs: the running difference of the two prefixes' counts. */
static int prefix_multisets(const g2e_model *m, const uint32_t *a, const uint32_t *b, order_cmp *c,
                            g2e_err *err)
{
    int *cnt = calloc(m->n_vocab, sizeof *cnt);
    if (!cnt)
        return g2e_fail(err, G2E_ENOMEM, "out of memory comparing %zu tokens", c->n_pos);
    long nonzero = 0;   /* IDs whose counts differ between a[0..t] and b[0..t] */
    for (size_t t = 0; t < c->n_pos; t++) {
        if (a[t] != b[t]) {
            nonzero -= cnt[a[t]] != 0, nonzero += ++cnt[a[t]] != 0;
            nonzero -= cnt[b[t]] != 0, nonzero += --cnt[b[t]] != 0;
        }
        c->prefix_same[t] = a[t] == b[t] && nonzero == 0;
    }
    free(cnt);
    return 0;
}

static order_verdict verdict(const order_cmp *c, const uint32_t *a, const uint32_t *b)
{
    if (c->n_a == c->n_b && memcmp(a, b, c->n_a * sizeof *a) == 0)
        return ORDER_SAME_SEQUENCE;
    if (!c->same_multiset)
        return ORDER_OTHER_TOKENS;
    return c->view[ORDER_POS].n_equal == c->n_a ? ORDER_INDISTINGUISHABLE : ORDER_DISTINGUISHABLE;
}

int order_compare(const g2e_model *m, const uint32_t *a, size_t n_a, const uint32_t *b,
                  size_t n_b, order_cmp *out, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    if (n_a == 0 || n_b == 0)
        return g2e_fail(err, ORDER_E_EMPTY, "nothing to compare: text %s has no tokens",
                        n_a == 0 ? "A" : "B");
    int rc;
    if ((rc = embed_check(m, EMBED_PE_LEARNED, a, n_a, 0, err)) ||
        (rc = embed_check(m, EMBED_PE_LEARNED, b, n_b, 0, err)))
        return rc;
    size_t C = m->n_embd;
    order_cmp c = {.n_a = n_a, .n_b = n_b, .n_embd = C, .n_pos = n_a < n_b ? n_a : n_b};
    float *scratch = malloc(4 * C * sizeof *scratch);
    c.same_id = malloc(c.n_pos);
    c.tok_cos = malloc(c.n_pos * sizeof *c.tok_cos);
    c.input_cos = malloc(c.n_pos * sizeof *c.input_cos);
    c.prefix_same = malloc(c.n_pos);
    if (!scratch || !c.same_id || !c.tok_cos || !c.input_cos || !c.prefix_same) {
        rc = g2e_fail(err, G2E_ENOMEM, "out of memory comparing %zu and %zu tokens", n_a, n_b);
        goto done;
    }
    if ((n_a == n_b && (rc = same_multiset(a, b, n_a, err, &c.same_multiset))) ||
        (rc = by_position(m, a, b, &c, scratch, err)) ||
        (rc = moved_token(m, a, b, &c, scratch, err)) ||
        (rc = prefix_multisets(m, a, b, &c, err)) ||
        (rc = one_view(m, a, b, ORDER_NOPOS, &c, err)) ||
        (rc = one_view(m, a, b, ORDER_POS, &c, err)))
        goto done;
    c.verdict = verdict(&c, a, b);
    *out = c;
    memset(&c, 0, sizeof c);
done:
    order_free(&c);
    free(scratch);
    return rc;
}

void order_free(order_cmp *c)
{
    if (!c)
        return;
    free(c->same_id);
    free(c->tok_cos);
    free(c->input_cos);
    free(c->prefix_same);
    for (int v = 0; v < 2; v++)
        free(c->view[v].perm), free(c->view[v].causal_equal);
    memset(c, 0, sizeof *c);
}

/* A token that is part of one character only: its bytes and that character's. */
static int piece_only(const tokchars_span *sp)
{
    return sp->n_chars == 1 && sp->head.n != 0;
}

static int other_char(const order_text *x, size_t i, const order_text *y, size_t j)
{
    const tokchars_span *p = &x->sp[i], *q = &y->sp[j];
    size_t lp = p->cend - p->cstart, lq = q->cend - q->cstart;
    return x->ids[i] == y->ids[j] && piece_only(q) &&
           (lp != lq || memcmp(x->text + p->cstart, y->text + q->cstart, lp) != 0);
}

int order_shared_piece(const order_text *x, const order_text *y, size_t *i, int *in_y, size_t *j)
{
    for (size_t k = 0; k < x->n; k++) {
        if (!piece_only(&x->sp[k]))
            continue;
        for (int side = 0; side < 2; side++) {
            const order_text *o = side ? y : x;
            for (size_t l = 0; l < o->n; l++)
                if (other_char(x, k, o, l)) {
                    *i = k, *in_y = side, *j = l;
                    return 1;
                }
        }
    }
    return 0;
}
