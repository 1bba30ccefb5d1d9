/* SPDX-License-Identifier: MIT */
/* interpret.c — sentences chosen from the numbers (see interpret.h). */
#include "interpret.h"

#include "text.h"
#include "tokchars.h"

#include <stdlib.h>
#include <math.h>

#define _(s) g2e_tr(s)   /* the host's translation, if it installed one (err.h) */
#define N_(s) s

/* Cosines this close to 1 are "the same vector" (float32 rows summed in double). */
#define SAME_EPS 1e-6

void interp_near_far(FILE *f, size_t a, size_t near, double c_near, size_t far, double c_far)
{
    if (c_near > c_far)
        fprintf(f, _("cos(pos %zu, pos %zu) = %.4f > cos(pos %zu, pos %zu) = %.4f: nearby positions "
                     "are more alike, as the chapter expects\n"),
                a, near, c_near, a, far, c_far);
    else if (c_near < c_far)
        fprintf(f, _("cos(pos %zu, pos %zu) = %.4f < cos(pos %zu, pos %zu) = %.4f: here the farther "
                     "position is more alike, the opposite of what the chapter expects of trained "
                     "weights\n"),
                a, near, c_near, a, far, c_far);
    else
        fprintf(f, _("cos(pos %zu, pos %zu) = cos(pos %zu, pos %zu) = %.4f: distance makes no "
                     "difference here, not what the chapter expects of trained weights\n"),
                a, near, a, far, c_near);
}

void interp_same_token(FILE *f, const char *piece, size_t p1, size_t p2, double c, double median,
                       size_t n_pairs)
{
    fprintf(f, _("'%s' at positions %zu and %zu: cos %.4f; 1.0 would be the same vector, and the "
                 "median over %zu random token pairs is %.4f\n"),
            piece, p1, p2, c, n_pairs, median);
    if (c >= 1.0 - SAME_EPS)
        fprintf(f, _("  -> the two inputs are the same: these positions add nothing that tells them "
                     "apart\n"));
    else if (c <= median)
        fprintf(f, _("  -> no more alike than two random tokens: the position vectors drown the "
                     "token's meaning\n"));
    else if ((c - median) / (1.0 - median) >= 0.5)
        fprintf(f, _("  -> closer to the same vector than to a random pair: the token's meaning "
                     "dominates, and the position shifts it enough to tell the places apart\n"));
    else
        fprintf(f, _("  -> closer to a random pair than to the same vector: the position changes "
                     "the input more than the token's meaning holds it together\n"));
}

void interp_pair(FILE *f, const char *what, double c, double median, size_t n_pairs)
{
    if (c >= 1.0 - SAME_EPS)
        fprintf(f, _("cos %.4f: the same direction (1.0)\n"), c);
    else if (c > median)
        fprintf(f, _("cos %.4f: more alike than the median of %zu random pairs of %s (%.4f)\n"), c,
                n_pairs, what, median);
    else
        fprintf(f, _("cos %.4f: not more alike than the median of %zu random pairs of %s (%.4f)\n"),
                c, n_pairs, what, median);
}

/* The bytes of text[a, b) as "E7 8A AC" into dst (cap >= 3 * (b - a) + 1). */
static void hex_bytes(const char *text, size_t a, size_t b, char *dst, size_t cap)
{
    size_t k = 0;
    dst[0] = '\0';
    for (size_t i = a; i < b && k + 4 <= cap; i++)
        k += (size_t)snprintf(dst + k, cap - k, "%s%02X", i > a ? " " : "", (unsigned char)text[i]);
}

/* "犬 (1/3) and 猫 (1/3) are one token, 163: ..." when order_shared_piece finds one. */
static void shared_piece(FILE *f, const order_text t[2])
{
    size_t i, j;
    int in_b;
    if (!order_shared_piece(&t[0], &t[1], &i, &in_b, &j))
        return;
    const order_text *o = &t[in_b];
    const tokchars_span *p = &t[0].sp[i], *q = &o->sp[j];
    char *lp = tokchars_display_alloc(t[0].text, p), *lq = tokchars_display_alloc(o->text, q);
    char *cp = text_escape(t[0].text + p->cstart, p->cend - p->cstart, TEXT_ESC_VISIBLE);
    char *cq = text_escape(o->text + q->cstart, q->cend - q->cstart, TEXT_ESC_VISIBLE);
    char hb[32], hp[32], hq[32];
    hex_bytes(t[0].text, p->start, p->end, hb, sizeof hb);
    hex_bytes(t[0].text, p->cstart, p->cend, hp, sizeof hp);
    hex_bytes(o->text, q->cstart, q->cend, hq, sizeof hq);
    if (lp && lq && cp && cq) {
        unsigned long nb = (unsigned long)(p->end - p->start);
        /* (one byte or several: two messages, as the translator hook has no plural forms) */
        if (p->head.lo == 1 && nb == 1)
            fprintf(f, _("%s and %s are one token, %u: both characters begin with the byte "
                         "%s (%s = %s, %s = %s)\n"), lp, lq, t[0].ids[i], hb, cp, hp, cq, hq);
        else if (p->head.lo == 1)
            fprintf(f, _("%s and %s are one token, %u: both characters begin with the bytes "
                         "%s (%s = %s, %s = %s)\n"), lp, lq, t[0].ids[i], hb, cp, hp, cq, hq);
        else if (nb == 1)
            fprintf(f, _("%s and %s are one token, %u: both characters hold the byte %s at "
                         "the same place (%s = %s, %s = %s)\n"), lp, lq, t[0].ids[i], hb, cp, hp, cq, hq);
        else
            fprintf(f, _("%s and %s are one token, %u: both characters hold the bytes %s at "
                         "the same place (%s = %s, %s = %s)\n"), lp, lq, t[0].ids[i], hb, cp, hp, cq, hq);
    }
    free(lp), free(lq), free(cp), free(cq);
}

/* Row counts of the two views and the moved token. */
static void multiset_lines(FILE *f, const order_cmp *c, const order_text t[2])
{
    fputs(_("Self-attention without a mask sees its input rows as a set (repeats counted): what "
            "matters is whether the two texts give the same multiset of rows.\n"), f);
    fprintf(f, _("  rows of A with an equal row in B, without positions (wte):      %zu of %zu\n"),
            c->view[ORDER_NOPOS].n_equal, c->n_a);
    fprintf(f, _("  rows of A with an equal row in B, with positions (wte + wpe):   %zu of %zu\n"),
            c->view[ORDER_POS].n_equal, c->n_a);
    shared_piece(f, t);
    if (!c->moved)
        return;
    char *l = tokchars_display_alloc(t[0].text, &t[0].sp[c->moved_a]);
    fprintf(f, _("moved token %u %s: position %zu in A, %zu in B; cos(wte + wpe) of its two input "
                 "rows %.4f (1 would be the same row)\n"),
            c->moved_id, l ? l : "?", c->moved_a, c->moved_b, c->moved_cos);
    free(l);
}

/* One view of the unmasked toy attention: a permutation, or how far B's outputs are from A's. */
static void attention_line(FILE *f, const order_cmp *c, int view)
{
    const order_view *v = &c->view[view];
    fputs(view == ORDER_POS ? _("  with positions:    ") : _("  without positions: "), f);
    if (v->out_equal == c->n_b && c->n_a == c->n_b) {
        fputs(_("B's output rows are A's rows permuted, B row s = A row p(s), p ="), f);
        size_t shown = c->n_b < 32 ? c->n_b : 32;
        for (size_t s = 0; s < shown; s++)
            fprintf(f, " %zu", v->perm[s]);
        fprintf(f, "%s", shown < c->n_b ? " \xE2\x80\xA6" : "");
        fprintf(f, _("; max difference %.1e\n"), v->out_maxdiff);
    } else {
        fprintf(f, _("%zu of %zu of B's output rows equal a row of A's output; the other rows are "
                     "each at least %.4g (max abs difference) from every row of A's output\n"),
                v->out_equal, c->n_b, v->out_gap);
    }
}

/* The positions t < n with flag[t] == want as "1-6, 9" into buf (cut with "…" when long). */
static void positions(const uint8_t *flag, size_t n, int want, char *buf, size_t cap)
{
    size_t k = 0;
    buf[0] = '\0';
    for (size_t t = 0; t < n; t++) {
        if ((flag[t] != 0) != want || (t > 0 && (flag[t - 1] != 0) == want))
            continue;
        size_t e = t;
        while (e + 1 < n && (flag[e + 1] != 0) == want)
            e++;
        if (k + 48 > cap) {
            snprintf(buf + k, cap - k, ", \xE2\x80\xA6");
            return;
        }
        k += (size_t)snprintf(buf + k, cap - k, e > t ? "%s%zu-%zu" : "%s%zu", k ? ", " : "", t, e);
    }
}

/* One view of the causal toy attention: which rows differ from A's at the same position. */
static void causal_line(FILE *f, const order_cmp *c, int view)
{
    const order_view *v = &c->view[view];
    size_t differ = c->n_pos - v->causal_n_equal;
    char d[200], e[200];
    positions(v->causal_equal, c->n_pos, 0, d, sizeof d);
    positions(v->causal_equal, c->n_pos, 1, e, sizeof e);
    fputs(view == ORDER_POS ? _("  with positions:    ") : _("  without positions: "), f);
    if (differ == 0)
        fprintf(f, _("all %zu rows of B's output equal A's at the same position; max difference %.1e\n"),
                c->n_pos, v->causal_maxdiff);
    else if (v->causal_n_equal == 0)
        fprintf(f, _("all %zu rows of B's output differ from A's at the same position (each by at "
                     "least %.4g)\n"), c->n_pos, v->causal_gap);
    else
        fprintf(f, _("%zu of %zu rows of B's output differ from A's at the same position (at %s, "
                     "each by at least %.4g); equal at %s\n"),
                differ, c->n_pos, d, v->causal_gap, e);
}

/* Why causal rows without positions are equal or not: a row's context is its prefix. */
static void prefix_line(FILE *f, const order_cmp *c)
{
    const order_view *v = &c->view[ORDER_NOPOS];
    size_t other = 0;   /* rows whose equality the prefixes do not explain */
    for (size_t t = 0; t < c->n_pos; t++)
        other += (v->causal_equal[t] != 0) != (c->prefix_same[t] != 0);
    if (other == 0)
        fputs(_("  without positions a causal row is equal exactly where A and B hold the same token "
                "and, before it, the same tokens in any order: its context is its prefix, seen as a "
                "set\n"), f);
    else
        fprintf(f, _("  without positions %zu causal rows are equal or differ against what their "
                     "prefixes' tokens predict: different token IDs have the same vectors here\n"),
                other);
}

/* The conclusion when with positions some row of A has no equal in B: what each of the
 * three views showed, chosen by their numbers (each sentence brings its own leading space,
 * which a language that puts none between sentences leaves out). */
static void distinguishable(FILE *f, const order_cmp *c)
{
    const order_view *np = &c->view[ORDER_NOPOS], *wp = &c->view[ORDER_POS];
    size_t causal_np = c->n_pos - np->causal_n_equal, causal_wp = c->n_pos - wp->causal_n_equal;
    fputs(_("conclusion: distinguishable."), f);
    if (np->out_equal == c->n_b && c->n_a == c->n_b)
        fputs(_(" Without positions and without a mask (the chapter's simplification) attention "
                "gives B the outputs of A permuted: it cannot tell the orders apart."), f);
    else
        fprintf(f, _(" Without positions and without a mask, %zu of B's %zu output rows already "
                     "have no equal among A's."), c->n_b - np->out_equal, c->n_b);
    if (causal_np == 0)
        fputs(_(" GPT-2's causal mask adds nothing here: without positions every row of B equals "
                "A's at the same place."), f);
    else
        fprintf(f, _(" GPT-2's causal mask already separates %zu of %zu rows without positions, "
                     "because a row sees only the tokens up to it; the rows whose prefixes hold the "
                     "same tokens stay equal, so the mask alone does not say where a token stands."),
                causal_np, c->n_pos);
    fprintf(f, _(" With wte + wpe only %zu of %zu rows of A have an equal row in B and %zu of %zu "
                 "causal rows differ: a token's input depends on where it stands. Position "
                 "embeddings are how GPT-2 knows where each token is.\n"),
            wp->n_equal, c->n_a, causal_wp, c->n_pos);
}

void interp_order(FILE *f, const order_cmp *c, const order_text t[2])
{
    multiset_lines(f, c, t);
    fputs(_("A toy self-attention, softmax(X X^T / sqrt(d)) X with identity projections, on both "
            "texts (an illustration, not GPT-2's trained attention). Unmasked, each row attends to "
            "every row, as the chapter simplifies:\n"), f);
    attention_line(f, c, ORDER_NOPOS);
    attention_line(f, c, ORDER_POS);
    fputs(_("With GPT-2's causal mask, row t attends to rows 0..t only; B's output rows against A's "
            "at the same position:\n"), f);
    causal_line(f, c, ORDER_NOPOS);
    causal_line(f, c, ORDER_POS);
    prefix_line(f, c);
    switch (c->verdict) {
    case ORDER_SAME_SEQUENCE:
        fputs(_("conclusion: the two texts are the same token sequence; nothing tells them apart.\n"), f);
        break;
    case ORDER_OTHER_TOKENS:
        fputs(_("conclusion: the texts hold different tokens, so they differ even without positions; "
                "the order puzzle needs the same tokens reordered.\n"), f);
        break;
    case ORDER_INDISTINGUISHABLE:
        fputs(_("conclusion: indistinguishable. The same tokens in another order, and even with "
                "wte + wpe every row of A has an equal row in B: these position vectors add nothing "
                "that depends on the place, so attention gives the same outputs in another order.\n"), f);
        break;
    case ORDER_DISTINGUISHABLE:
        distinguishable(f, c);
        break;
    }
}
