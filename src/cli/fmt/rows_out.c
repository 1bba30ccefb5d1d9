/* SPDX-License-Identifier: MIT */
/* rows_out.c — embedding rows in npy, raw, JSON, CSV and the text table (see rows_out.h). */
#include "rows_out.h"

#include "textfmt.h"

#include "json.h"
#include "text.h"
#include "textpos.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- 1. a float32 matrix, streamed ---- */

int rows_out_begin(rows_out *w, FILE *f, int npy, const size_t *shape, int ndim, g2e_err *err)
{
    w->f = f;
    w->npy = npy;
    return npy ? npy_writer_begin(&w->nw, f, shape, ndim, err) : 0;
}

int rows_out_put(rows_out *w, const float *v, size_t n, g2e_err *err)
{
    if (w->npy)
        return npy_writer_put(&w->nw, v, n, err);
    fwrite(v, sizeof *v, n, w->f);   /* the stream's error flag tells of a short write */
    return 0;
}

int rows_out_end(rows_out *w, g2e_err *err)
{
    return w->npy ? npy_writer_end(&w->nw, err) : 0;
}

/* ---- 2. the tokens ---- */

static int nomem(g2e_err *err)
{
    return g2e_fail(err, G2E_ENOMEM, "out of memory");
}

int rows_tokens_text(rows_tokens *r, gpt2embed_tokenizer *t, const char *text, size_t len, unsigned flags,
                     int bos, gpt2embed_error *err)
{
    memset(r, 0, sizeof *r);
    r->text = text;
    r->text_len = len;
    uint32_t *ids;
    size_t *offs, n;
    gpt2embed_status s = gpt2embed_tokenize_ex(t, text, len, flags, &ids, &offs, &n, err);
    if (s)
        return s;
    size_t extra = bos ? 1 : 0;
    r->ids = malloc((n + extra + 1) * sizeof *r->ids);
    r->offs = malloc((n + extra + 1) * sizeof *r->offs);
    r->spans = malloc((n + extra + 1) * sizeof *r->spans);
    g2e_err e;
    int rc = r->ids && r->offs && r->spans ? 0 : nomem(&e);
    if (!rc) {
        if (extra) {
            r->ids[0] = GPT2EMBED_TOKEN_EOT;
            r->offs[0] = 0;
        }
        if (n)
            memcpy(r->ids + extra, ids, n * sizeof *ids);
        memcpy(r->offs + extra, offs, (n + 1) * sizeof *offs);
        r->T = n + extra;
        rc = tokchars_spans(text, len, r->offs, r->T, r->spans, &e);
    }
    gpt2embed_free(ids);
    gpt2embed_free(offs);
    if (rc && err)
        *err = (gpt2embed_error){.status = rc == G2E_ENOMEM ? GPT2EMBED_E_NOMEM : GPT2EMBED_E_INTERNAL,
                                 .offset = GPT2EMBED_NONE, .index = GPT2EMBED_NONE};
    if (rc && err)
        snprintf(err->message, sizeof err->message, "%s", e.msg);
    return rc ? (rc == G2E_ENOMEM ? GPT2EMBED_E_NOMEM : GPT2EMBED_E_INTERNAL) : 0;
}

/* IDs: the characters behind the tokens are those of the IDs' bytes one after another (what
 * `decode` gives), so that "163 232 105" shows 犬 (1/3), 犬 (2/3), 犬 (3/3) too. */
int rows_tokens_ids(rows_tokens *r, const gpt2embed_tokenizer *t, const uint32_t *ids, size_t T, g2e_err *err)
{
    memset(r, 0, sizeof *r);
    r->from_ids = 1;
    r->ids = malloc((T ? T : 1) * sizeof *r->ids);
    if (!r->ids)
        return nomem(err);
    if (T)
        memcpy(r->ids, ids, T * sizeof *ids);
    r->T = T;
    size_t len = 0, *offs = malloc((T + 1) * sizeof *offs);
    const uint8_t *b;
    size_t n;
    for (size_t i = 0; offs && i < T; i++) {
        offs[i] = len;
        len += gpt2embed_token_bytes(t, ids[i], &b, &n, NULL) == GPT2EMBED_OK ? n : 0;
    }
    r->ids_text = offs ? malloc(len + 1) : NULL;
    r->spans = malloc((T ? T : 1) * sizeof *r->spans);
    int rc = -1;
    if (r->ids_text && r->spans) {
        offs[T] = len;
        for (size_t i = 0; i < T; i++)
            if (gpt2embed_token_bytes(t, ids[i], &b, &n, NULL) == GPT2EMBED_OK)
                memcpy(r->ids_text + offs[i], b, n);
        r->ids_text[len] = '\0';
        r->text = r->ids_text;
        r->text_len = len;
        rc = tokchars_spans(r->ids_text, len, offs, T, r->spans, NULL);
    }
    free(offs);
    if (rc) {   /* display only: without it the pieces are shown as they are */
        free(r->spans);
        r->spans = NULL;
    }
    return 0;
}

void rows_tokens_free(rows_tokens *r)
{
    free(r->ids);
    free(r->offs);
    free(r->spans);
    free(r->ids_text);
    memset(r, 0, sizeof *r);
}

void rows_piece(const gpt2embed_tokenizer *t, const rows_tokens *r, size_t i, const uint8_t **b, size_t *n)
{
    if (gpt2embed_token_bytes(t, r->ids[i], b, n, NULL) != GPT2EMBED_OK) {
        *b = (const uint8_t *)"";
        *n = 0;
    }
}

char *rows_shown(const gpt2embed_tokenizer *t, const rows_tokens *r, size_t i)
{
    if (r->spans && (r->spans[i].head.n || r->spans[i].tail.n))
        return tokchars_display_alloc(r->text, &r->spans[i]);
    const uint8_t *b;
    size_t n;
    rows_piece(t, r, i, &b, &n);
    return text_escape((const char *)b, n, TEXT_ESC_VISIBLE);
}

/* ---- the plan ---- */

int rows_plan_make(rows_plan *p, size_t T, size_t start, size_t window, size_t stride, g2e_err *err)
{
    *p = (rows_plan){.T = T, .start = start, .window = window, .stride = stride, .n_windows = 1, .W = T};
    if (!window)
        return 0;
    if (start)
        return g2e_fail(err, G2E_EINVAL, "windows start at position 0, not %zu", start);
    gpt2embed_error e;
    if (gpt2embed_windows(T, window, stride, &p->n_windows, NULL, &e))
        return g2e_fail(err, G2E_EINVAL, "%s", e.message);
    p->W = window;
    return 0;
}

size_t rows_plan_token(const rows_plan *p, size_t w, size_t r)
{
    size_t t = p->window ? w * p->stride + r : r;
    return t < p->T ? t : SIZE_MAX;
}

size_t rows_plan_position(const rows_plan *p, size_t w, size_t r)
{
    (void)w;
    return p->window ? r : p->start + r;
}

/* ---- 3. the document ---- */

enum { BLOCK = 64 };   /* rows made by one call of the door */

/* The rows being written: the token, position and sum rows of window w, rows [r0, r0 + nb),
 * made by one gpt2embed_embed_ex (consecutive tokens at consecutive positions), and the
 * three vectors of the row asked for last. */
typedef struct maker {
    const rows_doc *d;
    size_t C, w, r0, nb;
    float *blk;              /* (3, BLOCK, C): token, position, sum rows */
    float *buf;              /* (3, C): the row asked for */
} maker;

static int maker_init(maker *k, const rows_doc *d, g2e_err *err)
{
    *k = (maker){.d = d, .C = gpt2embed_n_embd(d->m)};
    k->blk = malloc(3 * (BLOCK + 1) * k->C * sizeof *k->blk);
    k->buf = k->blk ? k->blk + 3 * BLOCK * k->C : NULL;
    return k->blk ? 0 : nomem(err);
}

/* k->buf = token, position and sum rows of window w, row r; zeros and *pad = 1 for a padding
 * row. An error names the row. */
static int get_row(maker *k, size_t w, size_t r, int *pad, g2e_err *err)
{
    const rows_plan *p = k->d->plan;
    size_t C = k->C, t = rows_plan_token(p, w, r);
    *pad = t == SIZE_MAX;
    if (*pad) {
        memset(k->buf, 0, 3 * C * sizeof *k->buf);
        return 0;
    }
    if (!(k->nb && k->w == w && r >= k->r0 && r < k->r0 + k->nb)) {
        size_t n = p->W - r < BLOCK ? p->W - r : BLOCK;
        n = n < p->T - t ? n : p->T - t;
        gpt2embed_error e;
        float *tok = k->blk, *pos = tok + BLOCK * C, *sum = pos + BLOCK * C;
        k->nb = 0;
        if (gpt2embed_embed_ex(k->d->m, k->d->tok->ids + t, n, rows_plan_position(p, w, r), k->d->pe,
                               k->d->pe_scale, sum, tok, pos, &e))   /* (the IDs and positions were checked) */
            return g2e_fail(err, G2E_EINVAL, "internal error: row %zu could not be read", t);
        k->w = w, k->r0 = r, k->nb = n;
    }
    for (int part = 0; part < 3; part++)
        memcpy(k->buf + (size_t)part * C, k->blk + ((size_t)part * BLOCK + (r - k->r0)) * C, C * sizeof *k->buf);
    return 0;
}

static int write_binary(const rows_doc *d, FILE *f, int npy, maker *k, g2e_err *err)
{
    const rows_plan *p = d->plan;
    size_t C = k->C, shape[4], nd = 0;
    if (d->parts) shape[nd++] = 3;
    if (p->window) shape[nd++] = p->n_windows;
    shape[nd++] = p->W;
    shape[nd++] = C;
    rows_out ro;
    int rc = rows_out_begin(&ro, f, npy, shape, (int)nd, err), pad;
    for (int part = d->parts ? 0 : 2; part < 3 && rc == 0; part++)
        for (size_t w = 0; w < p->n_windows && rc == 0; w++)
            for (size_t r = 0; r < p->W && rc == 0; r++)
                if (!(rc = get_row(k, w, r, &pad, err)))
                    rc = rows_out_put(&ro, k->buf + (size_t)part * C, C, err);
    return rc ? rc : rows_out_end(&ro, err);
}

static void json_vec(FILE *f, const float *v, size_t C)
{
    fputc('[', f);
    for (size_t c = 0; c < C; c++) {
        if (c) fputs(", ", f);
        json_write_f32(f, v[c]);
    }
    fputc(']', f);
}

static void json_head(const rows_doc *d, FILE *f)
{
    const gpt2embed_model *m = d->m;
    size_t C = gpt2embed_n_embd(m);
    const char *name = gpt2embed_model_name(m);
    fprintf(f, "{\"model\": {\"name\": \"%s\", \"weights\": ", name ? name : "unknown");
    json_write_string(f, d->weights, strlen(d->weights));
    fprintf(f, ", \"n_vocab\": %zu, \"n_ctx\": %zu, \"n_embd\": %zu, \"dtype\": \"%s\"}, \"pe\": \"%s\", "
               "\"n_tokens\": %zu, \"start_pos\": %zu", gpt2embed_n_vocab(m), gpt2embed_n_ctx(m), C,
            gpt2embed_dtype_name(gpt2embed_table_dtype(m, GPT2EMBED_WTE)),
            d->pe == GPT2EMBED_PE_LEARNED ? "learned" : "sinusoidal", d->plan->T, d->plan->start);
    if (d->pe == GPT2EMBED_PE_SINUSOIDAL) {   /* the scale, as the table's summary states it */
        fputs(", \"pe_scale\": ", f);
        json_write_f64(f, d->pe_scale);
        fputs(", \"pe_norm\": ", f);
        json_write_f64(f, d->pe_scale * sqrt((double)C / 2.0));
        fputs(", \"wte_norm_mean\": ", f);
        json_write_f64(f, d->wte_norm);
        if (d->wpe_norm > 0) {
            fputs(", \"wpe_norm_mean\": ", f);
            json_write_f64(f, d->wpe_norm);
        }
    }
    if (d->plan->window)
        fprintf(f, ", \"window\": %zu, \"stride\": %zu, \"windows\": [", d->plan->W, d->plan->stride);
    else
        fprintf(f, ", \"tokens\": [");
}

/* One token object of the JSON document (buf: its three vectors). */
static void json_token(const rows_doc *d, FILE *f, size_t t, const float *buf)
{
    size_t C = gpt2embed_n_embd(d->m);
    const uint8_t *b;
    size_t n;
    rows_piece(d->tz, d->tok, t, &b, &n);
    fprintf(f, "\"index\": %zu, \"id\": %u, \"piece\": ", t, d->tok->ids[t]);
    json_write_string(f, (const char *)b, n);
    if (d->tok->spans && !d->tok->from_ids) {   /* offset, chars, char_index, char_part */
        json_w jw;
        json_resume_object(&jw, f, 1);
        tokchars_json(&jw, d->tok->text, &d->tok->spans[t]);
    }
    fprintf(f, ", \"vector\": ");
    json_vec(f, buf + 2 * C, C);
    if (d->parts) {
        fprintf(f, ", \"token_vector\": ");
        json_vec(f, buf, C);
        fprintf(f, ", \"position_vector\": ");
        json_vec(f, buf + C, C);
    }
}

static int write_json(const rows_doc *d, FILE *f, maker *k, g2e_err *err)
{
    const rows_plan *p = d->plan;
    json_head(d, f);
    for (size_t w = 0; w < p->n_windows; w++) {
        if (p->window)
            fprintf(f, "%s{\"window\": %zu, \"tokens\": [", w ? ", " : "", w);
        for (size_t r = 0; r < p->W; r++) {
            int pad;
            if (get_row(k, w, r, &pad, err))
                return -1;
            fprintf(f, "%s{\"pos\": %zu, ", r ? ", " : "", rows_plan_position(p, w, r));
            if (pad) {
                fprintf(f, "\"padding\": true, \"vector\": ");
                json_vec(f, k->buf, k->C);
            } else {
                json_token(d, f, rows_plan_token(p, w, r), k->buf);
            }
            fputc('}', f);
        }
        if (p->window)
            fputs("]}", f);
    }
    fputs("]}\n", f);
    return 0;
}

/* CSV: the columns before the numbers of one row (and part). */
static void csv_fields(const rows_doc *d, FILE *f, size_t w, size_t r, int part)
{
    static const char *const PART[3] = {"token", "position", "sum"};
    size_t t = rows_plan_token(d->plan, w, r), position = rows_plan_position(d->plan, w, r);
    if (d->plan->window) fprintf(f, "%zu,", w);
    if (t == SIZE_MAX) {
        fprintf(f, "%zu,,,(padding),,", position);
    } else {
        const uint8_t *b;
        size_t n;
        rows_piece(d->tz, d->tok, t, &b, &n);
        char *vis = text_escape((const char *)b, n, TEXT_ESC_VISIBLE), *disp = rows_shown(d->tz, d->tok, t);
        fprintf(f, "%zu,%zu,%u,", position, t, d->tok->ids[t]);
        textfmt_csv_field(f, vis ? vis : "", vis ? strlen(vis) : 0);
        fputc(',', f);
        textfmt_csv_field(f, disp ? disp : "", disp ? strlen(disp) : 0);
        fputc(',', f);
        free(vis);
        free(disp);
    }
    if (d->parts) fprintf(f, "%s,", PART[part]);
}

static int write_csv(const rows_doc *d, FILE *f, maker *k, g2e_err *err)
{
    size_t C = k->C;
    if (d->plan->window) fputs("window,", f);
    fputs("pos,index,id,piece,display,", f);
    if (d->parts) fputs("part,", f);
    for (size_t c = 0; c < C; c++)
        fprintf(f, "c%zu%s", c, c + 1 < C ? "," : "\n");
    for (size_t w = 0; w < d->plan->n_windows; w++)
        for (size_t r = 0; r < d->plan->W; r++) {
            int pad;
            if (get_row(k, w, r, &pad, err))
                return -1;
            for (int part = d->parts ? 0 : 2; part < 3; part++) {
                csv_fields(d, f, w, r, part);
                for (size_t c = 0; c < C; c++) {
                    fprintf(f, "%.9g", (double)k->buf[(size_t)part * C + c]);
                    fputc(c + 1 < C ? ',' : '\n', f);
                }
            }
        }
    return 0;
}

/* ---- the text table ---- */

static double norm(const float *v, size_t C)
{
    double s = 0;
    for (size_t c = 0; c < C; c++)
        s += (double)v[c] * v[c];
    return sqrt(s);
}

/* Window w's line above its rows, and the headings (by display width: translated ones are
 * wider per byte). */
static void table_head(const rows_doc *d, FILE *f, size_t w, size_t show)
{
    const rows_plan *p = d->plan;
    if (p->window) {
        size_t first = w * p->stride, last = first + p->W < p->T ? first + p->W : p->T;
        fprintf(f, g2e_tr("%swindow %zu: tokens %zu..%zu at positions 0..%zu\n"), w ? "\n" : "", w,
                first, last - 1, last - first - 1);
    }
    textfmt_pad(f, g2e_tr("pos"), 5, 1);
    fputc(' ', f);
    textfmt_pad(f, g2e_tr("id"), 6, 1);
    fputs("  ", f);
    textfmt_pad(f, g2e_tr("piece"), 18, 0);
    /* TRANSLATORS: the norms of the token, position and sum vectors, headings of 8 columns */
    const char *norms[3] = {g2e_tr("|token|"), g2e_tr("|pos|"), g2e_tr("|sum|")};
    for (int k = 0; k < 3; k++) {
        fputc(' ', f);
        textfmt_pad(f, norms[k], 8, 1);
    }
    fputs("  ", f);
    fprintf(f, g2e_tr("sum[0..%zu]\n"), show ? show - 1 : 0);
}

/* The rows of window w; the rest of the last window (padding) as one line. */
static int table_rows(const rows_doc *d, FILE *f, size_t w, size_t show, maker *k, g2e_err *err)
{
    size_t C = k->C, R = d->plan->W;
    const float *buf = k->buf;
    for (size_t r = 0; r < R; r++) {
        size_t t = rows_plan_token(d->plan, w, r), position = rows_plan_position(d->plan, w, r);
        int pad;
        if (t == SIZE_MAX) {
            if (R - r == 1)
                fprintf(f, g2e_tr("%5s %6s  ... 1 zero row of padding (position %zu in npy/raw output)\n"),
                        "", "", position);
            else
                fprintf(f, g2e_tr("%5s %6s  ... %zu zero rows of padding (positions %zu..%zu in npy/raw "
                        "output)\n"), "", "", R - r, position, R - 1);
            break;
        }
        if (get_row(k, w, r, &pad, err))
            return -1;
        char *vis = rows_shown(d->tz, d->tok, t);
        fprintf(f, "%5zu %6u  ", position, d->tok->ids[t]);
        textfmt_pad(f, vis ? vis : "?", 18, 0);
        free(vis);
        fprintf(f, " %8.4f %8.4f %8.4f ", norm(buf, C), norm(buf + C, C), norm(buf + 2 * C, C));
        for (size_t c = 0; c < show; c++)
            fprintf(f, " %9.5f", (double)buf[2 * C + c]);
        fputs(show < C ? " ...\n" : "\n", f);
    }
    return 0;
}

static void table_summary(const rows_doc *d, FILE *f)
{
    const rows_plan *p = d->plan;
    const gpt2embed_model *m = d->m;
    const char *name = gpt2embed_model_name(m);
    int learned = d->pe == GPT2EMBED_PE_LEARNED;
    size_t used = p->window ? (p->T < p->W ? p->T : p->W) : p->T;
    char *vw = text_escape(d->weights, strlen(d->weights), TEXT_ESC_BIDI);   /* shown to a person */
    /* one token, one window: the singular (two messages; g2e_tr has no plural forms) */
    fprintf(f, p->T == 1 ? g2e_tr("model %s (%s): n_embd %zu, %s positions; %zu token")
                         : g2e_tr("model %s (%s): n_embd %zu, %s positions; %zu tokens"),
            name ? name : g2e_tr("unknown"), vw ? vw : "?", gpt2embed_n_embd(m),
            learned ? g2e_tr("learned") : g2e_tr("sinusoidal"), p->T);
    free(vw);
    if (p->window)
        fprintf(f, p->n_windows == 1 ? g2e_tr(" in %zu window of %zu (stride %llu)")
                                     : g2e_tr(" in %zu windows of %zu (stride %llu)"),
                p->n_windows, p->W, (unsigned long long)p->stride);
    if (learned)
        fprintf(f, g2e_tr(", %zu of %zu positions used\n"), p->start + used, gpt2embed_n_ctx(m));
    else
        fprintf(f, g2e_tr(", positions %llu..%llu\n"), (unsigned long long)p->start,
                (unsigned long long)(p->start + used - (used ? 1 : 0)));
    if (!learned) {
        char *st = rows_pe_statement(d);
        fprintf(f, "%s\n", st ? st : g2e_tr("(out of memory)"));
        free(st);
    }
}

static int write_table(const rows_doc *d, FILE *f, maker *k, g2e_err *err)
{
    size_t show = d->show < k->C ? d->show : k->C;
    for (size_t w = 0; w < d->plan->n_windows; w++) {
        table_head(d, f, w, show);
        if (table_rows(d, f, w, show, k, err))
            return -1;
    }
    table_summary(d, f);
    return 0;
}

char *rows_pe_statement(const rows_doc *d)
{
    size_t C = gpt2embed_n_embd(d->m);
    double s = d->pe_scale, pe = s * sqrt((double)C / 2.0);
    char *a, *b;
    if (s != 1.0 && d->wpe_norm > 0)
        a = textfmt_printf(g2e_tr("sinusoidal positions scaled by %.6g (--pe-scale wpe: mean |wpe| %.4f / "
                           "sqrt(%zu/2)), each value in double, rounded once to float32: |PE| = %.4f"), s,
                           d->wpe_norm, C, pe);
    else if (s != 1.0)
        a = textfmt_printf(g2e_tr("sinusoidal positions scaled by %.6g (--pe-scale), each value in double, "
                           "rounded once to float32: |PE| = %.6g x sqrt(%zu/2) = %.4f"), s, s, C, pe);
    else
        a = textfmt_printf(g2e_tr("sinusoidal positions, not what GPT-2 was trained with: |PE| = sqrt(%zu/2) "
                           "= %.4f"), C, pe);
    if (!a)
        return NULL;
    if (d->wte_norm > 0)
        b = textfmt_printf(g2e_tr("%s, %.2f times the mean |wte| row (%.4f)%s"), a, pe / d->wte_norm,
                           d->wte_norm, s == 1.0 ? g2e_tr("; --pe-scale wpe brings it to wpe's size") : "");
    else
        b = textfmt_printf("%s%s", a, g2e_tr(" (this file's wte rows are all zero)"));
    free(a);
    return b;
}

int rows_write(FILE *f, int fmt, const rows_doc *d, g2e_err *err)
{
    maker k;
    if (maker_init(&k, d, err))
        return G2E_ENOMEM;
    int rc;
    switch (fmt) {
    case ROWS_NPY: rc = write_binary(d, f, 1, &k, err); break;
    case ROWS_RAW: rc = write_binary(d, f, 0, &k, err); break;
    case ROWS_JSON: rc = write_json(d, f, &k, err); break;
    case ROWS_CSV: rc = write_csv(d, f, &k, err); break;
    default: rc = write_table(d, f, &k, err); break;
    }
    free(k.blk);
    return rc;
}

/* ---- for messages and figures ---- */

void rows_where(const rows_tokens *r, size_t n, size_t last, int upto, char *buf, size_t cap)
{
    textpos tp;
    int k = 0;
    if (upto) {   /* where the first n tokens end, as " (up to character C, line L: SNIPPET)" */
        if (r->offs) {
            textpos_at(r->text, r->text_len, r->offs[n], &tp);
            if (tp.inside)
                k = snprintf(buf, cap, g2e_tr(" (up to inside character %zu (line %zu, column %zu): %s)"),
                         tp.chr, tp.line, tp.col - 1, tp.snippet);
            else
                k = snprintf(buf, cap, g2e_tr(" (up to character %zu, line %zu: %s)"), tp.chr, tp.line, tp.snippet);
            g2e_cut_whole(buf, cap, k);
        }
        return;
    }
    if (!r->offs) {
        k = snprintf(buf, cap, g2e_tr("the %zu%s ID (position %zu) is %u"), n, textfmt_ordinal(n), last, r->ids[n - 1]);
        g2e_cut_whole(buf, cap, k);
        return;
    }
    textpos_at(r->text, r->text_len, r->offs[n], &tp);
    /* tp is where the next character starts: the last one inside is just before it (at the
     * end of the line before when the next one starts a line) */
    if (tp.inside)   /* the words of count's cut line (cmd_count.c) */
        k = snprintf(buf, cap, g2e_tr("the %zu%s token (position %zu) ends inside character %zu "
                 "(line %zu, column %zu), which the cut splits: %s"), n, textfmt_ordinal(n), last,
                 tp.chr, tp.line, tp.col - 1, tp.snippet);
    else if (tp.col > 1)
        k = snprintf(buf, cap, g2e_tr("the %zu%s token (position %zu) ends at character %zu "
                 "(line %zu, column %zu): %s"), n, textfmt_ordinal(n), last, tp.chr, tp.line, tp.col - 1, tp.snippet);
    else
        k = snprintf(buf, cap, g2e_tr("the %zu%s token (position %zu) ends at character %zu "
                 "(the end of line %zu): %s"), n, textfmt_ordinal(n), last, tp.chr, tp.line > 1 ? tp.line - 1 : 1,
                 tp.snippet);
    g2e_cut_whole(buf, cap, k);
}

/* The fixed encoding's rows have norm exactly sqrt(n_embd / 2) (sin^2 + cos^2 = 1 in each of
 * n_embd/2 pairs). */
char *rows_pe_caveat(const gpt2embed_model *m, double wte_norm)
{
    size_t C = gpt2embed_n_embd(m);
    double pe = sqrt((double)C / 2.0), tok = wte_norm;
    gpt2embed_stats st;
    if (tok <= 0 && gpt2embed_table_stats(m, GPT2EMBED_WTE, &st, NULL) == GPT2EMBED_OK)
        tok = st.norm_mean;
    if (tok > 0 && pe / tok >= 2.0)   /* the chapter's warning: position swamps meaning */
        return textfmt_printf(g2e_tr("its vectors (norm sqrt(%zu/2) = %.1f) are %.1f times as long as this model's "
                              "token vectors (mean norm %.2f), so they drown the meaning; --pe-scale wpe scales them "
                              "to wpe's size"), C, pe, pe / tok, tok);
    if (tok > 0)
        return textfmt_printf(g2e_tr("its vectors (norm sqrt(%zu/2) = %.1f) are %.1f times as long as this model's "
                              "token vectors (mean norm %.2f); --pe-scale wpe scales them to wpe's size"),
                              C, pe, pe / tok, tok);
    return textfmt_printf(g2e_tr("its vectors have norm sqrt(%zu/2) = %.1f (this file's token vectors are all "
                              "zero); --pe-scale wpe scales them to wpe's size"), C, pe);
}

int rows_strips(const rows_doc *d, size_t R, float *data, char **labels, size_t *n, g2e_err *err)
{
    maker k;
    if (maker_init(&k, d, err))
        return G2E_ENOMEM;
    size_t C = k.C;
    int pad = 0, rc = 0;
    for (*n = 0; rc == 0 && *n < R; ++*n) {
        size_t r = *n, t = rows_plan_token(d->plan, 0, r);
        if ((rc = get_row(&k, 0, r, &pad, err)) != 0)
            break;
        if (pad)
            break;
        for (int part = 0; part < 3; part++)
            memcpy(data + (size_t)part * R * C + r * C, k.buf + (size_t)part * C, C * sizeof *k.buf);
        char *vis = rows_shown(d->tz, d->tok, t);
        size_t ll = (vis ? strlen(vis) : 0) + 32;
        if ((labels[r] = malloc(ll)) != NULL)
            snprintf(labels[r], ll, "%zu %s", rows_plan_position(d->plan, 0, r), vis ? vis : "?");
        free(vis);
        if (!labels[r])
            rc = nomem(err);
    }
    free(k.blk);
    if (rc)
        return rc;
    /* Pack the n filled rows of each part together (a strip reads (n, C) per part). */
    memmove(data + *n * C, data + R * C, *n * C * sizeof *data);
    memmove(data + 2 * *n * C, data + 2 * R * C, *n * C * sizeof *data);
    return 0;
}
