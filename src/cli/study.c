/* SPDX-License-Identifier: MIT */
/* study.c — the numbers the study commands share (see study.h). */
#include "study.h"
#include "i18n.h"

#include "cli.h"
#include "json.h"
#include "out.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int study_buf_open(study_buf *b)
{
    memset(b, 0, sizeof *b);
    b->f = open_memstream(&b->s, &b->len);
    if (!b->f) {
        cli_error("out of memory");
        return -1;
    }
    return 0;
}

int study_buf_close(study_buf *b, char **out)
{
    *out = NULL;
    if (!b->f)
        return -1;
    int bad = fclose(b->f) != 0;
    b->f = NULL;
    if (bad) {
        free(b->s);
        cli_error("out of memory");
        return -1;
    }
    *out = b->s;
    return 0;
}

int study_said(int rc, const g2e_err *e)
{
    if (rc == 0)
        return 0;
    cli_error("%s", e->msg);
    return -1;
}

/* lead (a JSON separator and key) and then v as json_write_f64 writes it. */
static void put_f64(FILE *f, const char *lead, double v)
{
    fputs(lead, f);
    json_write_f64(f, v);
}

int study_norms_text(const study_norms *sn, const char *path, char **pre_json, char **pre_table)
{
    const pca_norm_summary *s = &sn->sum;
    study_buf j, t;
    if (study_buf_open(&j))
        return -1;
    if (study_buf_open(&t)) {
        study_buf_close(&j, pre_json);
        free(*pre_json);
        return -1;
    }
    FILE *jf = j.f, *tf = t.f;
    fputs("\"weights\": ", jf);
    json_write_string(jf, path, strlen(path));
    fprintf(jf, ", \"positions\": %zu, \"norm_0\": ", sn->n);
    json_write_f64(jf, s->first);
    put_f64(jf, ", \"median_norm_1_on\": ", s->median);
    put_f64(jf, ", \"norm_0_vs_median\": ", s->first_vs_median);
    fprintf(jf, ", \"split\": %zu, \"mean_before_split\": ", s->split);
    json_write_f64(jf, s->mean_early);
    put_f64(jf, ", \"cv_before_split\": ", s->cv_early);
    put_f64(jf, ", \"mean_from_split\": ", s->mean_late);
    put_f64(jf, ", \"cv_from_split\": ", s->cv_late);
    fputs(", ", jf);
    fprintf(tf, _("Norm of every wpe row against its position (%s, %zu positions)\n"), path, sn->n);
    fprintf(tf, _("position 0: norm %.4f = %.2f x the median of positions 1..%zu (%.4f)\n"),
            s->first, s->first_vs_median, sn->n - 1, s->median);
    fprintf(tf, _("positions 1..%zu: smallest %.4f (position %zu), largest %.4f (position %zu)\n"),
            sn->n - 1, s->min, s->argmin, s->max, s->argmax);
    if (s->split > 1 && s->split < sn->n)
        fprintf(tf, _("spread (std / mean): %.2f%% over positions 1..%zu, %.2f%% over %zu..%zu\n"),
                100 * s->cv_early, s->split - 1, 100 * s->cv_late, s->split, sn->n - 1);
    fputc('\n', tf);
    if (study_buf_close(&j, pre_json) || study_buf_close(&t, pre_table)) {
        free(*pre_json);
        *pre_json = NULL;
        return -1;
    }
    return 0;
}
