/* SPDX-License-Identifier: MIT */
/* interpret.c — sentences chosen from the numbers (see interpret.h). */
#include "interpret.h"

#include <libintl.h>
#include <math.h>

#define _(s) gettext(s)
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

/* The three schemes, as the chapter names them (rows: property; columns: scheme). */
const char *const interp_schemes[INTERP_N_SCHEME_ROWS][4] = {
    {"", N_("learned absolute (GPT-2)"), N_("sinusoidal absolute"), N_("rotary relative (RoPE)")},
    {N_("how it enters"), N_("added to the token vector"), N_("added to the token vector"),
     N_("multiplies (rotates) q and k in every attention layer")},
    {N_("parameters"), N_("n_ctx x d (GPT-2: 1024 x 768 = 786,432)"), N_("none (a formula)"), N_("none (a formula)")},
    {N_("hard length limit"), N_("yes: n_ctx rows (1024)"), N_("no (positions never trained on are untested)"),
     N_("no (quality past the trained length is not promised)")},
    {N_("score q.k depends on"), N_("both absolute positions (whatever was learned)"),
     N_("both: PE(m).PE(n) alone depends on m - n, the token cross terms do not"),
     N_("only m - n: <R(m)q, R(n)k> = <R(m-n)q, k>")},
};
