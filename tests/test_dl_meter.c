/* SPDX-License-Identifier: MIT */
/* test_dl_meter.c — the download's progress text (download.h: dl_meter) driven by a fake
 * clock: the stage lines, the bar's fill, rate and ETA worked out by hand, the 0.1 s
 * redraw limit, a stage's bar completed before the next line, retries, and the byte units. */
#include "download.h"

#include <criterion/criterion.h>
#include <string.h>

static double fake_now;
static double fake_clock(void) { return fake_now; }

static void start(dl_meter *m, int bar)
{
    fake_now = 100.0;
    dl_meter_init(m, bar, "openai-community/gpt2", "main", "http://127.0.0.1:1");
    m->clock = fake_clock;
    m->t0 = fake_now;
}

static const char *text(dl_meter *m, dl_stage s, int starting, uint64_t done, uint64_t total)
{
    static char buf[1024];
    dl_progress d = {.stage = s, .starting = starting, .done = done, .total = total};
    dl_meter_text(m, &d, buf, sizeof buf);
    return buf;
}

Test(dl_meter, human_units)
{
    char b[32];
    dl_human(b, sizeof b, 999);
    cr_expect_str_eq(b, "999 B");
    dl_human(b, sizeof b, 1000);
    cr_expect_str_eq(b, "1.0 kB");
    dl_human(b, sizeof b, 157519872);
    cr_expect_str_eq(b, "157.5 MB");
    dl_human(b, sizeof b, 548105171);
    cr_expect_str_eq(b, "548.1 MB");
    dl_human(b, sizeof b, 6.4e9);
    cr_expect_str_eq(b, "6.40 GB");
}

Test(dl_meter, stage_lines_without_a_bar)
{
    dl_meter m;
    start(&m, 0);
    cr_expect_str_eq(text(&m, DL_STAGE_RESOLVE, 1, 0, 0),
                     "gpt2-embed: resolving openai-community/gpt2 at revision main on http://127.0.0.1:1\n");
    cr_expect_str_eq(text(&m, DL_STAGE_HEADER, 1, 0, 8), "gpt2-embed: fetching the safetensors header\n");
    cr_expect_str_eq(text(&m, DL_STAGE_TENSORS, 1, 2000, 10000),
                     "gpt2-embed: fetching the embeddings: 10.0 kB, resuming after 2.0 kB\n");
    fake_now += 5;
    cr_expect_str_eq(text(&m, DL_STAGE_TENSORS, 0, 5000, 10000), "");   /* no bar: nothing */
    cr_expect_str_eq(text(&m, DL_STAGE_VERIFY, 1, 0, 3000000), "gpt2-embed: verifying (sha256 of 3.0 MB)\n");
    char nl[4];
    cr_expect_eq(dl_meter_close(&m, nl, sizeof nl), 0);
}

Test(dl_meter, bar_rate_eta_and_redraw_limit)
{
    dl_meter m;
    start(&m, 1);
    text(&m, DL_STAGE_FILE, 1, 0, 1000000);
    fake_now += 10;   /* 250 kB in 10 s: 25 kB/s, 750 kB left: 30 s */
    cr_expect_str_eq(text(&m, DL_STAGE_FILE, 0, 250000, 1000000),
                     "\rfile     [#######-----------------------]  25.0%  250.0 kB / 1.0 MB  25.0 kB/s"
                     "  ETA 0:30\033[K");
    fake_now += 0.05;   /* too soon to redraw */
    cr_expect_str_eq(text(&m, DL_STAGE_FILE, 0, 260000, 1000000), "");
    fake_now += 0.06;
    cr_expect(strstr(text(&m, DL_STAGE_FILE, 0, 260000, 1000000), " 26.0%") != NULL);
    char nl[4];
    cr_expect_eq(dl_meter_close(&m, nl, sizeof nl), 1);
    cr_expect_str_eq(nl, "\n");
    cr_expect_eq(dl_meter_close(&m, nl, sizeof nl), 0);
}

Test(dl_meter, stage_end_completes_the_bar_then_the_next_line)
{
    dl_meter m;
    start(&m, 1);
    text(&m, DL_STAGE_TENSORS, 1, 0, 2000);
    fake_now += 1;
    const char *s = text(&m, DL_STAGE_VERIFY, 1, 0, 2000);
    cr_expect_str_eq(s, "\rtensors  [##############################] 100.0%  2.0 kB / 2.0 kB  2.0 kB/s"
                        "  ETA 0:00\033[K\ngpt2-embed: verifying (sha256 of 2.0 kB)\n");
}

Test(dl_meter, retry_closes_the_bar_and_says_why)
{
    dl_meter m;
    start(&m, 1);
    text(&m, DL_STAGE_FILE, 1, 0, 1000);
    fake_now += 1;
    text(&m, DL_STAGE_FILE, 0, 500, 1000);
    char buf[256];
    dl_progress d = {.stage = DL_STAGE_RETRY, .done = 500, .total = 1000, .attempt = 2,
                     .delay_ms = 1500, .reason = "HTTP 502"};
    dl_meter_text(&m, &d, buf, sizeof buf);
    cr_expect_str_eq(buf, "\ngpt2-embed: HTTP 502; retrying in 1.5 s (attempt 2)\n");
    d.reason = NULL;
    dl_meter_text(&m, &d, buf, sizeof buf);
    cr_expect_str_eq(buf, "gpt2-embed: failure; retrying in 1.5 s (attempt 2)\n");
}

Test(dl_meter, text_is_cut_to_the_buffer)
{
    dl_meter m;
    start(&m, 0);
    char buf[16];
    dl_progress d = {.stage = DL_STAGE_RESOLVE, .starting = 1};
    size_t n = dl_meter_text(&m, &d, buf, sizeof buf);
    /* cut after a whole character, marked with an ellipsis (issue 23: never half a character) */
    cr_expect_eq(n, 15);
    cr_expect_str_eq(buf, "gpt2-embed: \xE2\x80\xA6");
    /* a cut that falls inside a character of the repo's name moves back before it */
    dl_meter_init(&m, 0, "\xE3\x81\x82\xE3\x81\x84\xE3\x81\x86/x", "main", "http://127.0.0.1:1");
    char b2[31];   /* "gpt2-embed: resolving " is 22 bytes, then あいう: 30 bytes end inside う */
    n = dl_meter_text(&m, &d, b2, sizeof b2);
    cr_expect_str_eq(b2, "gpt2-embed: resolving \xE3\x81\x82\xE2\x80\xA6");
    cr_expect_eq(n, strlen(b2));
}
