/* SPDX-License-Identifier: MIT */
/* cmd_download.c — `gpt2-embed download`: GPT-2's weights from the Hugging Face Hub.
 *
 * The program side of src/lib/download.{c,h}: the option table, the checks that make a
 * download unnecessary (a good file already in place, the model already in the Hugging Face
 * cache), progress on stderr (a bar on a terminal, one plain line per stage otherwise), and
 * a summary on stdout saying what came, how much, where it went and how to use it.
 *
 * Three environment variables exist for the test suite only and are not meant for users:
 * GPT2_EMBED_TEST_BACKOFF_MS (the first retry delay and its cap, in ms, instead of 1 s and
 * 30 s), GPT2_EMBED_TEST_ATTEMPTS (attempts in a row without progress, instead of 6) and
 * GPT2_EMBED_TEST_ANY_SHAPE=1 (the model's shapes are not checked, so that small fixtures
 * can stand in for gpt2).
 *
 * Deliberately left out: downloading anything but model.safetensors.
 */
#include "cli.h"
#include "download.h"
#include "locate.h"
#include "models.h"
#include "opt.h"
#include "safetensors.h"
#include "sha256.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct download_opts {
    const char *model, *repo, *revision, *dir;
    int full, hf_cache, force, quiet;
    int64_t min_speed, stall_time, attempt_timeout, timeout, retry_time;
} download_opts;

#define SECONDS(field, opt, dflt, text)                                                          \
    {.name = opt, .kind = OPT_INT, .off = offsetof(download_opts, field), .lo = 1,                \
     .hi = 1000000000, .metavar = "S", .def = dflt, .help = text}

static const opt_def OPTS[] = {
    {.name = "--model", .kind = OPT_TEXT, .off = offsetof(download_opts, model), .metavar = "NAME",
     .def = "gpt2", .help = N_("gpt2, gpt2-medium, gpt2-large, gpt2-xl or distilgpt2")},
    {.name = "--repo", .kind = OPT_TEXT, .off = offsetof(download_opts, repo), .metavar = "REPO",
     .help = N_("the Hub repository (default: the model's); the file is named after it unless "
                "--model is given")},
    {.name = "--revision", .kind = OPT_TEXT, .off = offsetof(download_opts, revision),
     .metavar = "REV", .def = "main", .help = N_("branch, tag or commit")},
    {.name = "--dir", .kind = OPT_FILE, .off = offsetof(download_opts, dir), .metavar = "DIR",
     .def = "weights", .help = N_("where to write (created if missing)")},
    {.name = "--full", .kind = OPT_FLAG, .off = offsetof(download_opts, full),
     .help = N_("the whole model.safetensors, checked against its sha256")},
    {.name = "--hf-cache", .kind = OPT_FLAG, .off = offsetof(download_opts, hf_cache),
     .help = N_("with --full: store it in the Hugging Face cache as huggingface_hub does "
                "(blobs/, snapshots/, refs/), where transformers reuses it")},
    {.name = "--force", .kind = OPT_FLAG, .off = offsetof(download_opts, force),
     .help = N_("download even if the file or the Hugging Face cache has it")},
    {.name = "--quiet", .short_name = 'q', .kind = OPT_FLAG, .off = offsetof(download_opts, quiet),
     .help = N_("print nothing but errors")},
    {.name = "--min-speed", .kind = OPT_INT, .off = offsetof(download_opts, min_speed), .lo = 1,
     .hi = 1000000000, .metavar = "N", .def = "10000",
     .help = N_("give up an attempt slower than N bytes/s over --stall-time")},
    SECONDS(stall_time, "--stall-time", "20", N_("the window of --min-speed, in seconds")),
    SECONDS(attempt_timeout, "--attempt-timeout", "600",
            N_("deadline of one request, in seconds (a longer transfer goes on where it stopped)")),
    SECONDS(timeout, "--timeout", "21600", N_("deadline of the whole download, in seconds")),
    SECONDS(retry_time, "--retry-time", "300",
            N_("give up once failures have cost this many seconds in all")),
    OPT_END,
};

static const opt_cmd CMD = {
    .name = "download",
    .synopsis = N_("[--model NAME] [--repo REPO] [--revision REV] [--dir DIR] [--full [--hf-cache]] "
                   "[--force] [--quiet]"),
    .purpose = N_("\nFetches GPT-2's token and position embeddings (wte.weight, wpe.weight) from the\n"
                  "Hugging Face Hub into DIR/NAME.safetensors: the 8-byte length and the header first,\n"
                  "then only those two tensors' bytes (157.5 MB of gpt2's 548 MB), with the source's\n"
                  "commit, sha256 and size and a sha256 of each tensor recorded in its metadata.\n"
                  "An interrupted download resumes from DIR/NAME.safetensors.part when run again;\n"
                  "the file in place is replaced only by a complete, verified download.\n"
                  "\n"
                  "environment: HF_ENDPOINT (default https://huggingface.co), HF_TOKEN or the token\n"
                  "file ($HF_TOKEN_PATH, else token in $HF_HOME, $XDG_CACHE_HOME/huggingface or\n"
                  "~/.cache/huggingface; sent to the endpoint's host only), HF_HUB_OFFLINE=1 (no\n"
                  "network: an error), HF_HUB_CACHE / HF_HOME / XDG_CACHE_HOME (where the Hugging\n"
                  "Face cache is), HF_HUB_DISABLE_PROGRESS_BARS=1 (no bar on a terminal; the one-line\n"
                  "stage messages stay)."),
    .examples = N_("  gpt2-embed download\n"
                   "  gpt2-embed download --model gpt2-xl\n"
                   "  gpt2-embed download --full --hf-cache\n"),
    .opts = OPTS,
    .min_pos = 0,
    .max_pos = 0,
};

/* ---- progress ---------------------------------------------------------------------- */

typedef struct prog {
    int tty, quiet;
    dl_stage stage;
    int have_stage;
    double t_stage, t_last_draw, t0;
    uint64_t done_at_stage;   /* bytes done when the stage started (resumed ones) */
    int bar_open;
    dl_progress last;         /* the last report drawn in the bar */
    const char *repo, *revision, *endpoint, *wte, *wpe;
} prog;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void human(char *buf, size_t cap, double bytes)
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

static const char *stage_name(dl_stage s)
{
    switch (s) {
    case DL_STAGE_RESOLVE: return "resolve";
    case DL_STAGE_HEADER: return "header";
    case DL_STAGE_TENSORS: return "tensors";
    case DL_STAGE_FILE: return "file";
    case DL_STAGE_VERIFY: return "verify";
    case DL_STAGE_RETRY: return "retry";
    case DL_STAGE_DONE: return "done";
    }
    return "?";
}

static void close_bar(prog *p)
{
    if (p->bar_open) {
        fputc('\n', stderr);
        p->bar_open = 0;
    }
}

static void draw_bar(prog *p, const dl_progress *d, int final)
{
    double t = now();
    if (!final && t - p->t_last_draw < 0.1)
        return;
    p->t_last_draw = t;
    char a[32], b[32], r[32], eta[32] = "--:--";
    double el = t - p->t_stage;
    double moved = (double)(d->done - p->done_at_stage);
    double rate = el > 0.05 ? moved / el : 0.0;
    human(a, sizeof a, (double)d->done);
    human(b, sizeof b, (double)d->total);
    human(r, sizeof r, rate);
    double frac = d->total ? (double)d->done / (double)d->total : 0.0;
    if (frac > 1.0)
        frac = 1.0;
    if (rate > 0 && d->total > d->done) {
        double left = (double)(d->total - d->done) / rate;
        if (left < 360000)
            snprintf(eta, sizeof eta, "%d:%02d", (int)left / 60, (int)left % 60);
    } else if (d->total && d->done >= d->total) {
        snprintf(eta, sizeof eta, "0:00");
    }
    char bar[31];
    int fill = (int)(frac * 30.0);
    for (int i = 0; i < 30; i++)
        bar[i] = i < fill ? '#' : '-';
    bar[30] = '\0';
    fprintf(stderr, "\r%-8s [%s] %5.1f%%  %s / %s  %s/s  ETA %s\033[K", stage_name(d->stage), bar,
            frac * 100.0, a, b, r, eta);
    fflush(stderr);
    p->bar_open = 1;
    p->last = *d;
}

static void on_progress(void *user, const dl_progress *d)
{
    prog *p = user;
    if (p->quiet)
        return;
    if (d->stage == DL_STAGE_RETRY) {
        close_bar(p);
        fprintf(stderr, "gpt2-embed: %s; retrying in %.1f s (attempt %d)\n", d->reason ? d->reason : "failure",
                d->delay_ms / 1000.0, d->attempt);
        p->t_stage = now();
        p->done_at_stage = d->done;
        return;
    }
    if (d->starting || !p->have_stage || d->stage != p->stage) {
        if (p->tty && p->have_stage && (p->last.stage == DL_STAGE_TENSORS ||
                                        p->last.stage == DL_STAGE_FILE ||
                                        p->last.stage == DL_STAGE_VERIFY)) {
            /* the stage ended (however short): show it complete before the next line */
            dl_progress fin = p->last;
            if (fin.total)
                fin.done = fin.total;
            draw_bar(p, &fin, 1);
        }
        close_bar(p);
        p->last = *d;
        p->stage = d->stage;
        p->have_stage = 1;
        p->t_stage = now();
        p->done_at_stage = d->done;
        char b[32], a[32];
        human(b, sizeof b, (double)d->total);
        human(a, sizeof a, (double)d->done);
        switch (d->stage) {
        case DL_STAGE_RESOLVE:
            fprintf(stderr, "gpt2-embed: resolving %s at revision %s on %s\n", p->repo, p->revision,
                    p->endpoint);
            break;
        case DL_STAGE_HEADER:
            if (d->done == 0)
                fprintf(stderr, "gpt2-embed: fetching the safetensors header\n");
            break;
        case DL_STAGE_TENSORS:
            fprintf(stderr, "gpt2-embed: fetching the embeddings: %s%s%s\n", b,
                    d->done ? ", resuming after " : "", d->done ? a : "");
            break;
        case DL_STAGE_FILE:
            fprintf(stderr, "gpt2-embed: fetching the whole file: %s%s%s\n", b,
                    d->done ? ", resuming after " : "", d->done ? a : "");
            break;
        case DL_STAGE_VERIFY:
            fprintf(stderr, "gpt2-embed: verifying (sha256 of %s)\n", b);
            break;
        case DL_STAGE_DONE:
        case DL_STAGE_RETRY:
            break;
        }
        return;
    }
    if (p->tty && (d->stage == DL_STAGE_TENSORS || d->stage == DL_STAGE_FILE ||
                   d->stage == DL_STAGE_VERIFY))
        draw_bar(p, d, d->total && d->done >= d->total);
}

/* 1 unless the file's metadata records a sha256.<name> that its bytes do not match
 * (a file this command wrote, damaged since); e says which. */
static int tensors_intact(const st_file *st, g2e_err *e)
{
    g2e_clear(e);
    for (size_t i = 0; i < st->n_tensors; i++) {
        const st_tensor *t = &st->tensors[i];
        char key[600], hex[SHA256_HEX_LEN + 1];
        snprintf(key, sizeof key, "sha256.%s", t->name);
        const char *want = st_meta_get(st, key);
        if (!want || !st->data)
            continue;
        uint8_t dg[SHA256_DIGEST_LEN];
        sha256_digest(st->data + t->begin, (size_t)(t->end - t->begin), dg);
        sha256_hex(dg, hex);
        if (strcmp(hex, want) != 0) {
            g2e_fail(e, DL_E_CHECKSUM, "the bytes of %s do not match its recorded sha256", t->name);
            return 0;
        }
    }
    return 1;
}

/* ---- what is already there --------------------------------------------------------- */

static const st_tensor *find_emb(const st_file *st, const char *name)
{
    char pre[64];
    const st_tensor *t = st_find(st, name);
    if (t)
        return t;
    snprintf(pre, sizeof pre, "transformer.%s", name);
    return st_find(st, pre);
}

static int mkdirs(const char *path)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return -1;
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
        return -1;
    return 0;
}

static void describe(char *buf, size_t cap, const st_tensor *t)
{
    size_t k = (size_t)snprintf(buf, cap, "%s (", t->name);
    for (int d = 0; d < t->ndim && k < cap; d++)
        k += (size_t)snprintf(buf + k, cap - k, "%s%" PRIu64, d ? " x " : "", t->shape[d]);
    if (k < cap)
        snprintf(buf + k, cap - k, ", %s)", st_dtype_name(t->dtype));
}

static int env_uint(const char *name, unsigned long hi, unsigned long *out)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return 0;
    char *end;
    errno = 0;
    unsigned long x = strtoul(v, &end, 10);
    if (errno || *end || x > hi)
        return 0;
    *out = x;
    return 1;
}

/* What one run is about, from the options: the repo, the file's name and path. */
typedef struct job {
    const download_opts *o;
    const char *repo;
    char name[256], out[4096];
} job;

/* The checks of combinations and names; fills j. EXIT_OK, or EXIT_USAGE after a message. */
static int check(const download_opts *o, job *j)
{
    j->o = o;
    if (o->hf_cache && !o->full)
        return opt_usage_error(&CMD, "--hf-cache stores only the full checkpoint (add --full): an "
                               "embeddings-only file in the cache would be taken for the model"),
               EXIT_USAGE;
    const char *empty = o->model && !*o->model ? "--model" : o->repo && !*o->repo ? "--repo"
                        : !*o->revision ? "--revision" : NULL;
    if (empty)
        return opt_usage_error(&CMD, "%s must not be empty", empty), EXIT_USAGE;
    if (o->model && !locate_default_repo(o->model))
        return opt_usage_error(&CMD, "unknown model '%s' (choose one of %s, or give --repo)",
                               o->model, models_names()), EXIT_USAGE;
    /* the file's name: the model's, or the repo's last part when only --repo is given */
    if (!o->model && o->repo) {
        const char *b = strrchr(o->repo, '/');
        b = b ? b + 1 : o->repo;
        if (!*b || strcmp(b, ".") == 0 || strcmp(b, "..") == 0)
            return opt_usage_error(&CMD, "--repo '%s' is not a repository name (owner/name)",
                                   o->repo), EXIT_USAGE;
        snprintf(j->name, sizeof j->name, "%s", b);
    } else {
        snprintf(j->name, sizeof j->name, "%s", o->model ? o->model : "gpt2");
    }
    j->repo = o->repo ? o->repo : locate_default_repo(o->model ? o->model : "gpt2");
    if (snprintf(j->out, sizeof j->out, "%s/%s.safetensors", o->dir, j->name) >= (int)sizeof j->out)
        return opt_usage_error(&CMD, "--dir is too long"), EXIT_USAGE;
    return EXIT_OK;
}

/* 1 if a good file from the same source is in place already (said so); 0 to download. */
static int in_place(const job *j)
{
    const download_opts *o = j->o;
    struct stat sb;
    if (o->force || o->hf_cache || stat(j->out, &sb) != 0)
        return 0;
    st_file *st = NULL;
    g2e_err e;
    g2e_clear(&e);
    if (st_open(&st, j->out, &e) != 0 || !find_emb(st, "wte.weight") ||
        !find_emb(st, "wpe.weight") || !tensors_intact(st, &e)) {
        if (!o->quiet)
            cli_note("%s is there but not usable (%s); downloading it again", j->out,
                     st && e.code == 0 ? "no wte/wpe" : e.msg);
        st_close(st);
        return 0;
    }
    int enough = !o->full || st->n_tensors > 2;
    /* a file this command wrote names its source: another repo or revision asked for is
     * not "already there" (a file from elsewhere is taken as it is) */
    const char *srepo = st_meta_get(st, "source_repo");
    const char *srev = st_meta_get(st, "source_revision");
    const char *commit = st_meta_get(st, "source_commit");
    if (srepo && (strcmp(srepo, j->repo) != 0 ||
                  !((srev && strcmp(srev, o->revision) == 0) ||
                    (commit && strcmp(commit, o->revision) == 0))))
        enough = 0;
    char c8[32] = "";
    if (commit)
        snprintf(c8, sizeof c8, " (commit %.8s)", commit);
    st_close(st);
    if (enough && !o->quiet)
        printf("%s is already there%s; nothing to do (--force downloads it again)\n", j->out, c8);
    return enough;
}

/* 1 if the Hugging Face cache has the model at that revision (said so). */
static int in_cache(const job *j)
{
    const download_opts *o = j->o;
    char cached[8192];
    if (o->force || locate_hf_cache(j->repo, o->revision, cached, sizeof cached, NULL) != 0)
        return 0;
    if (!o->quiet) {
        printf("%s@%s is already in the Hugging Face cache:\n  %s\n", j->repo, o->revision, cached);
        printf("gpt2-embed finds it there by itself; or pass --weights %s\n", cached);
        printf("(--force downloads %s anyway)\n", o->hf_cache ? "it" : j->out);
    }
    return 1;
}

/* The library's options for j (pointers into j and o stay valid while they are used). */
static dl_opts lib_opts(const job *j, prog *p)
{
    const download_opts *o = j->o;
    dl_opts d;
    memset(&d, 0, sizeof d);
    d.repo = j->repo;
    d.revision = o->revision;
    d.out_path = j->out;
    d.full = o->full;
    d.hf_cache = o->hf_cache;
    const models_info *mi = models_find(o->model ? o->model : o->repo ? NULL : "gpt2");
    unsigned long v;
    if (mi && !(env_uint("GPT2_EMBED_TEST_ANY_SHAPE", 1, &v) && v)) {
        /* the shapes are checked before a tensor byte is fetched */
        d.n_vocab = mi->n_vocab;
        d.n_ctx = mi->n_ctx;
        d.n_embd = mi->n_embd;
        d.n_layer = mi->n_layer;
    }
    d.min_speed = (long)o->min_speed;
    d.stall_seconds = (long)o->stall_time;
    d.attempt_seconds = (long)o->attempt_timeout;
    d.deadline_seconds = (long)o->timeout;
    d.retry_seconds = (long)o->retry_time;
    d.progress = on_progress;
    d.progress_user = p;
    if (env_uint("GPT2_EMBED_TEST_BACKOFF_MS", 600000, &v)) {
        d.backoff_ms = v ? (unsigned)v : 1;
        d.backoff_max_ms = v ? (unsigned)v : 1;
    }
    if (env_uint("GPT2_EMBED_TEST_ATTEMPTS", 1000, &v) && v > 0)
        d.max_attempts = (int)v;
    return d;
}

/* What came, how much, where it went, how to use it. */
static void summary(const job *j, const dl_result *r, double el)
{
    const download_opts *o = j->o;
    char moved[32], size[32], rate[32], resumed[32];
    human(moved, sizeof moved, (double)r->transferred);
    human(size, sizeof size, (double)r->out_size);
    human(rate, sizeof rate, el > 0 ? (double)r->transferred / el : 0.0);
    human(resumed, sizeof resumed, (double)r->resumed);
    st_file *st = NULL;
    g2e_err e;
    if (o->full) {
        printf("downloaded %s/%s at commit %.12s: the whole file, sha256 verified\n", j->repo,
               "model.safetensors", r->commit);
    } else if (st_open(&st, j->out, &e) == 0) {
        char a[256] = "wte", b[256] = "wpe";
        const st_tensor *t1 = find_emb(st, "wte.weight"), *t2 = find_emb(st, "wpe.weight");
        if (t1) describe(a, sizeof a, t1);
        if (t2) describe(b, sizeof b, t2);
        printf("downloaded %s and %s\n  from %s at commit %.12s (%s)\n", a, b, j->repo, r->commit,
               o->revision);
        st_close(st);
    } else {
        printf("downloaded the embeddings of %s at commit %.12s\n", j->repo, r->commit);
    }
    printf("  %s transferred in %.1f s (%s/s)", moved, el, rate);
    if (r->resumed)
        printf(", resuming after %s", resumed);
    if (r->retries)
        printf(", %d retr%s", r->retries, r->retries == 1 ? "y" : "ies");
    if (o->hf_cache) {
        printf("\n  %s the Hugging Face cache (%s): %s\n", r->reused ? "already in" : "stored in",
               size, r->path);
        printf("use it: gpt2-embed \"text\" and transformers both find it there\n");
        return;
    }
    printf("\n  written to %s (%s); source sha256 %.16s...\n", j->out, size, r->sha256);
    int default_place = strcmp(o->dir, "weights") == 0 && (!o->model || strcmp(j->name, o->model) == 0) &&
                        locate_default_repo(j->name) != NULL;
    if (default_place && strcmp(j->name, "gpt2") == 0)
        printf("use it: gpt2-embed \"text\"   (or gpt2-embed --weights %s \"text\")\n", j->out);
    else if (default_place)
        printf("use it: gpt2-embed --model %s \"text\"   (or gpt2-embed --weights %s \"text\")\n",
               j->name, j->out);
    else
        printf("use it: gpt2-embed --weights %s \"text\"\n", j->out);
}

/* The download itself, with progress, then the summary. */
static int run(const job *j)
{
    const download_opts *o = j->o;
    if (dl_offline()) {   /* before anything is created */
        cli_error("download: HF_HUB_OFFLINE is set: not downloading %s (unset it to download, "
                  "or point --weights at a file you have)", j->repo);
        return EXIT_ERR;
    }
    if (!o->hf_cache && mkdirs(o->dir) != 0) {
        cli_error("download: cannot create the folder %s: %s", o->dir, strerror(errno));
        return EXIT_ERR;
    }
    char endpoint[2048], shown[2048];
    g2e_err err;
    if (dl_endpoint(NULL, endpoint, sizeof endpoint, &err) != 0) {
        cli_error("download: %s", err.msg);
        return EXIT_ERR;
    }
    prog p;
    memset(&p, 0, sizeof p);
    p.tty = isatty(2) && !dl_env_true("HF_HUB_DISABLE_PROGRESS_BARS");
    p.quiet = o->quiet;
    p.repo = j->repo;
    p.revision = o->revision;
    p.endpoint = dl_url_shown(endpoint, shown, sizeof shown);
    p.t0 = now();
    dl_opts d = lib_opts(j, &p);
    dl_result r;
    int rc = dl_fetch(&d, &r, &err);
    close_bar(&p);
    if (rc != 0) {
        cli_error("download: %s", err.msg);
        return EXIT_ERR;
    }
    if (!o->quiet)
        summary(j, &r, now() - p.t0);
    return EXIT_OK;
}

/* Every failed write is an error: of the summary on stdout (said once, by cli.c's check)
 * and of the progress on stderr (nothing can say so; the status does, at exit). */
int cmd_download(int argc, char **argv)
{
    download_opts o = {.revision = "main", .dir = "weights"};
    opt_parsed p;
    int r = opt_parse(&CMD, argc, argv, &o, &p);
    opt_free(&p);
    if (r)
        return opt_exit(r);
    job j;
    int rc = check(&o, &j);
    if (rc == EXIT_OK && !in_place(&j) && !in_cache(&j))
        rc = run(&j);
    if (rc == EXIT_OK && cli_flush_stdout() != 0)
        rc = EXIT_ERR;
    return rc;
}
