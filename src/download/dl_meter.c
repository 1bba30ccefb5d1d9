/* SPDX-License-Identifier: MIT */
/* dl_meter.c — the download's progress as text (download.h: dl_meter). The meter only
 * composes the lines; the program writes them to stderr. The clock is a field so that the
 * tests can drive the bar's rate and ETA without waiting. */
#include "dl_internal.h"
#include "text.h"

#ifndef N_
#define N_(s) s
#endif

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void dl_human(char *buf, size_t cap, double bytes)
{
    if (bytes >= 1e9)
        snprintf(buf, cap, "%.2f GB", bytes / 1e9);
    else if (bytes >= 1e6)
        snprintf(buf, cap, "%.1f MB", bytes / 1e6);
    else if (bytes >= 1e3)
        snprintf(buf, cap, "%.1f kB", bytes / 1e3);
    else
        snprintf(buf, cap, "%.0f B", bytes);
}

/* Appends to buf[cap] at *len (cut at cap, always NUL-terminated). */
__attribute__((format(printf, 4, 5)))
static void put(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
    if (*len + 1 >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, cap - *len, fmt, ap);
    va_end(ap);
    g2e_cut_whole(buf + *len, cap - *len, n);   /* never half a character */
    if (n >= 0 && (size_t)n >= cap - *len)
        n = (int)strlen(buf + *len);
    if (n > 0)
        *len = *len + (size_t)n < cap ? *len + (size_t)n : cap - 1;
}

static const char *stage_name(dl_stage s)
{
    /* TRANSLATORS: the stages of a download, at the start of its progress bar */
    static const char *const NAMES[] = {N_("resolve"), N_("header"), N_("tensors"), N_("file"),
                                        N_("verify"),  N_("retry"),  N_("done")};
    return (unsigned)s < sizeof NAMES / sizeof NAMES[0] ? g2e_tr(NAMES[s]) : "?";
}

static int has_bar(dl_stage s)
{
    return s == DL_STAGE_TENSORS || s == DL_STAGE_FILE || s == DL_STAGE_VERIFY;
}

void dl_meter_init(dl_meter *m, int bar, const char *repo, const char *revision,
                   const char *endpoint)
{
    memset(m, 0, sizeof *m);
    m->bar = bar;
    m->repo = repo;
    m->revision = revision;
    m->endpoint = endpoint;
    m->clock = dl_now;
    m->t0 = m->t_stage = m->clock();
}

double dl_meter_elapsed(const dl_meter *m)
{
    return m->clock() - m->t0;
}

size_t dl_meter_close(dl_meter *m, char *buf, size_t cap)
{
    size_t len = 0;
    if (cap)
        buf[0] = '\0';
    if (m->bar_open)
        put(buf, cap, &len, "\n");
    m->bar_open = 0;
    return len;
}

/* "\rLABEL [####----]  12.5%  A / B  R/s  ETA m:ss EXTRA" for done of total bytes since the
 * stage began (total 0: not known, then "\rLABEL  A  R/s EXTRA"), unless a bar was drawn
 * less than 0.1 s ago (final: draw anyway). */
static void bar_text(dl_meter *m, const char *label, uint64_t done, uint64_t total, const char *extra, int final,
                     char *buf, size_t cap, size_t *len)
{
    double t = m->clock();
    if (!final && t - m->t_last_draw < 0.1)
        return;
    m->t_last_draw = t;
    char a[32], b[32], r[32], eta[32] = "--:--", bar[31];
    double el = t - m->t_stage, moved = (double)(done - m->done_at_stage);
    double rate = el > 0.05 ? moved / el : 0.0;
    dl_human(a, sizeof a, (double)done);
    dl_human(b, sizeof b, (double)total);
    dl_human(r, sizeof r, rate);
    m->bar_open = 1;
    if (!total) {
        put(buf, cap, len, "\r%-8s %s  %s/s%s\033[K", label, a, r, extra);
        return;
    }
    double frac = (double)done / (double)total;
    frac = frac > 1.0 ? 1.0 : frac;
    if (rate > 0 && total > done) {
        double left = (double)(total - done) / rate;
        if (left < 360000)
            snprintf(eta, sizeof eta, "%d:%02d", (int)left / 60, (int)left % 60);
    } else if (done >= total) {
        snprintf(eta, sizeof eta, "0:00");
    }
    int fill = (int)(frac * 30.0);
    for (int i = 0; i < 30; i++)
        bar[i] = i < fill ? '#' : '-';
    bar[30] = '\0';
    size_t w = text_width(label, strlen(label)); /* (padded by display width: a translated stage name) */
    put(buf, cap, len, "\r%s%*s [%s] %5.1f%%  %s / %s  %s/s  ETA %s%s\033[K", label, w < 8 ? (int)(8 - w) : 0, "", bar,
        frac * 100.0, a, b, r, eta, extra);
}

/* The bar for d (bar_text). */
static void draw_bar(dl_meter *m, const dl_progress *d, int final, char *buf, size_t cap,
                     size_t *len)
{
    size_t before = *len;
    bar_text(m, stage_name(d->stage), d->done, d->total, "", final, buf, cap, len);
    if (*len != before || final) {
        m->last = *d;
        m->last.reason = NULL;
    }
}

size_t dl_meter_bar(dl_meter *m, const char *label, uint64_t done, uint64_t total, const char *extra, int final,
                    char *buf, size_t cap)
{
    size_t len = 0;
    if (cap)
        buf[0] = '\0';
    bar_text(m, label, done, total, extra ? extra : "", final, buf, cap, &len);
    return len;
}

/* The line that opens stage d->stage. */
static void stage_line(const dl_meter *m, const dl_progress *d, char *buf, size_t cap, size_t *len)
{
    char b[32], a[32];
    dl_human(b, sizeof b, (double)d->total);
    dl_human(a, sizeof a, (double)d->done);
    const char *res = d->done ? g2e_tr(", resuming after ") : "", *at = d->done ? a : "";
    if (d->stage == DL_STAGE_RESOLVE)
        put(buf, cap, len, g2e_tr("gpt2-embed: resolving %s at revision %s on %s\n"), m->repo,
            m->revision, m->endpoint);
    else if (d->stage == DL_STAGE_HEADER && d->done == 0)
        put(buf, cap, len, "%s", g2e_tr("gpt2-embed: fetching the safetensors header\n"));
    else if (d->stage == DL_STAGE_TENSORS)
        put(buf, cap, len, g2e_tr("gpt2-embed: fetching the embeddings: %s%s%s\n"), b, res, at);
    else if (d->stage == DL_STAGE_FILE)
        put(buf, cap, len, g2e_tr("gpt2-embed: fetching the whole file: %s%s%s\n"), b, res, at);
    else if (d->stage == DL_STAGE_VERIFY)
        put(buf, cap, len, g2e_tr("gpt2-embed: verifying (sha256 of %s)\n"), b);
}

size_t dl_meter_text(dl_meter *m, const dl_progress *d, char *buf, size_t cap)
{
    size_t len = 0;
    if (cap)
        buf[0] = '\0';
    if (d->stage == DL_STAGE_RETRY) {
        len = dl_meter_close(m, buf, cap);
        put(buf, cap, &len, g2e_tr("gpt2-embed: %s; retrying in %.1f s (attempt %d)\n"),
            d->reason ? d->reason : g2e_tr("failure"), d->delay_ms / 1000.0, d->attempt);
        m->t_stage = m->clock();
        m->done_at_stage = d->done;
        return len;
    }
    if (d->starting || !m->have_stage || d->stage != m->stage) {
        if (m->bar && m->have_stage && has_bar(m->last.stage)) {
            /* the stage ended (however short): show it complete before the next line */
            dl_progress fin = m->last;
            if (fin.total)
                fin.done = fin.total;
            draw_bar(m, &fin, 1, buf, cap, &len);
        }
        if (m->bar_open)
            put(buf, cap, &len, "\n");
        m->bar_open = 0;
        m->last = *d;
        m->last.reason = NULL;
        m->stage = d->stage;
        m->have_stage = 1;
        m->t_stage = m->clock();
        m->done_at_stage = d->done;
        stage_line(m, d, buf, cap, &len);
        return len;
    }
    if (m->bar && has_bar(d->stage))
        draw_bar(m, d, d->total && d->done >= d->total, buf, cap, &len);
    return len;
}
