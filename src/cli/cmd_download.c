/* cmd_download.c — `gpt2-embed download`: GPT-2's weights from the Hugging Face Hub.
 *
 * The program side of src/lib/download.{c,h}: options, the checks that make a download
 * unnecessary (a good file already in place, the model already in the Hugging Face
 * cache), progress on stderr (a bar on a terminal, one plain line per stage otherwise),
 * and a summary on stdout saying what came, how much, where it went and how to use it.
 *
 * Two environment variables exist for the test suite only and are not meant for users:
 * GPT2_EMBED_TEST_BACKOFF_MS (the first retry delay and its cap, in ms, instead of 1 s and
 * 30 s), GPT2_EMBED_TEST_ATTEMPTS (attempts in a row without progress, instead of 6) and
 * GPT2_EMBED_TEST_ANY_SHAPE=1 (the model's shapes are not checked, so that small fixtures
 * can stand in for gpt2).
 *
 * Deliberately left out: downloading anything but model.safetensors, writing into the
 * Hugging Face cache.
 */
#include "cli.h"
#include "download.h"
#include "locate.h"
#include "models.h"
#include "models.h"
#include "safetensors.h"
#include "sha256.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void help(FILE *f)
{
    fprintf(f,
        "usage: gpt2-embed download [--model NAME] [--repo REPO] [--revision REV] [--dir DIR]\n"
        "                           [--full] [--force] [--quiet]\n"
        "\n"
        "Fetches GPT-2's token and position embeddings (wte.weight, wpe.weight) from the\n"
        "Hugging Face Hub into DIR/NAME.safetensors: the 8-byte length and the header first,\n"
        "then only those two tensors' bytes (157.5 MB of gpt2's 548 MB), with the source's\n"
        "commit, sha256 and size and a sha256 of each tensor recorded in its metadata.\n"
        "\n"
        "  --model NAME     gpt2 (default), gpt2-medium, gpt2-large, gpt2-xl, distilgpt2\n"
        "  --repo REPO      the Hub repository (default: openai-community/NAME,\n"
        "                   distilbert/distilgpt2); the file is named after it unless --model\n"
        "  --revision REV   branch, tag or commit (default main)\n"
        "  --dir DIR        where to write (default weights; created if missing)\n"
        "  --full           the whole model.safetensors, checked against its sha256\n"
        "  --force          download even if the file or the Hugging Face cache has it\n"
        "  --quiet          print nothing but errors\n"
        "  --min-speed N    give up an attempt slower than N bytes/s over --stall-time (10000)\n"
        "  --stall-time S   the window of --min-speed, in seconds (20)\n"
        "  --attempt-timeout S  deadline of one request, in seconds (600); a longer transfer\n"
        "                   goes on from where it stopped\n"
        "  --timeout S      deadline of the whole download, in seconds (21600 = 6 h)\n"
        "  --retry-time S   give up once failures have cost this many seconds in all (300)\n"
        "\n"
        "An interrupted download resumes from DIR/NAME.safetensors.part when run again.\n"
        "The file in place is replaced only by a complete, verified download.\n"
        "\n"
        "environment: HF_ENDPOINT (default https://huggingface.co), HF_TOKEN or the token file\n"
        "($HF_TOKEN_PATH, $HF_HOME/token, ~/.cache/huggingface/token; sent to the endpoint's\n"
        "host only), HF_HUB_OFFLINE=1 (no network: an error), HF_HUB_CACHE / HF_HOME (where\n"
        "the Hugging Face cache is looked for), HF_HUB_DISABLE_PROGRESS_BARS=1 (no bar on a\n"
        "terminal; the one-line stage messages stay).\n");
}

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

/* One of the numeric limits (names[0..4]) at argv[*i]: 1 if it is one (*k -1 after an
 * error printed), 0 if not. Values: whole numbers 1..10^9. */
static int limit_opt(int argc, char **argv, int *i, const char *const names[5], long vals[5], int *k)
{
    for (int j = 0; j < 5; j++) {
        const char *v = NULL;
        if ((*k = cli_opt(argc, argv, i, names[j], &v)) == 0)
            continue;
        if (*k < 0)
            return 1;
        char *end;
        errno = 0;
        long x = strtol(v, &end, 10);
        if (errno || end == v || *end || x < 1 || x > 1000000000L) {
            cli_error("download: %s needs a whole number in 1..1000000000, got '%s'", names[j], v);
            *k = -1;
            return 1;
        }
        vals[j] = x;
        return 1;
    }
    return 0;
}

static int download_main(int argc, char **argv);

/* Every failed write is an error: the summary on stdout (a message says so) and progress
 * on stderr (nothing can say so; the status does). */
int cmd_download(int argc, char **argv)
{
    int rc = download_main(argc, argv);
    int out_bad = fflush(stdout) != 0 || ferror(stdout);
    int e = errno;
    if (out_bad)
        cli_error("download: writing standard output failed: %s", strerror(e));
    int err_bad = fflush(stderr) != 0 || ferror(stderr);
    return rc == EXIT_OK && (out_bad || err_bad) ? EXIT_ERR : rc;
}

static int download_main(int argc, char **argv)
{
    const char *model = NULL, *repo = NULL, *revision = "main", *dir = "weights";
    int full = 0, force = 0, quiet = 0;
    long limits[5] = {0};   /* --min-speed --stall-time --attempt-timeout --timeout --retry-time */
    static const char *const LIMITS[] = {"--min-speed", "--stall-time", "--attempt-timeout",
                                         "--timeout", "--retry-time"};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int k;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            help(stdout);
            return EXIT_OK;
        } else if (strcmp(a, "--full") == 0) {
            full = 1;
        } else if (strcmp(a, "--force") == 0) {
            force = 1;
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            quiet = 1;
        } else if ((k = cli_opt(argc, argv, &i, "--model", &v)) != 0 ||
                   (k = cli_opt(argc, argv, &i, "--repo", &v)) != 0 ||
                   (k = cli_opt(argc, argv, &i, "--revision", &v)) != 0 ||
                   (k = cli_opt(argc, argv, &i, "--dir", &v)) != 0) {
            if (k < 0)
                return EXIT_USAGE;
            if (!*v) {
                cli_error("download: %s must not be empty", a);
                return EXIT_USAGE;
            }
            const char **slot = strncmp(a, "--model", 7) == 0 ? &model
                                : strncmp(a, "--repo", 6) == 0 ? &repo
                                : strncmp(a, "--revision", 10) == 0 ? &revision : &dir;
            *slot = v;
        } else if (limit_opt(argc, argv, &i, LIMITS, limits, &k)) {
            if (k < 0)
                return EXIT_USAGE;
        } else {
            cli_error("download: unknown option '%s' (see 'gpt2-embed download --help')", a);
            return EXIT_USAGE;
        }
    }
    if (model && !locate_default_repo(model)) {
        cli_error("download: unknown model '%s' (choose one of %s, or give --repo)", model,
                  models_names());
        return EXIT_USAGE;
    }
    /* the file's name: the model's, or the repo's last part when only --repo is given */
    char name[256];
    if (!model && repo) {
        const char *b = strrchr(repo, '/');
        b = b ? b + 1 : repo;
        if (!*b || strcmp(b, ".") == 0 || strcmp(b, "..") == 0) {
            cli_error("download: --repo '%s' is not a repository name (owner/name)", repo);
            return EXIT_USAGE;
        }
        snprintf(name, sizeof name, "%s", b);
    } else {
        snprintf(name, sizeof name, "%s", model ? model : "gpt2");
    }
    int repo_given = repo != NULL;
    if (!repo)
        repo = locate_default_repo(model ? model : "gpt2");
    char out[4096];
    if (snprintf(out, sizeof out, "%s/%s.safetensors", dir, name) >= (int)sizeof out) {
        cli_error("download: --dir is too long");
        return EXIT_USAGE;
    }

    /* a good file in place already? */
    struct stat sb;
    if (!force && stat(out, &sb) == 0) {
        st_file *st = NULL;
        g2e_err e;
        g2e_clear(&e);
        if (st_open(&st, out, &e) == 0 && find_emb(st, "wte.weight") && find_emb(st, "wpe.weight") &&
            tensors_intact(st, &e)) {
            int enough = !full || st->n_tensors > 2;
            /* a file this command wrote names its source: another repo or revision asked
             * for is not "already there" (a file from elsewhere is taken as it is) */
            const char *srepo = st_meta_get(st, "source_repo");
            const char *srev = st_meta_get(st, "source_revision");
            const char *commit = st_meta_get(st, "source_commit");
            if (srepo && (strcmp(srepo, repo) != 0 ||
                          !((srev && strcmp(srev, revision) == 0) ||
                            (commit && strcmp(commit, revision) == 0))))
                enough = 0;
            char c8[32] = "";
            if (commit)
                snprintf(c8, sizeof c8, " (commit %.8s)", commit);
            st_close(st);
            if (enough) {
                if (!quiet)
                    printf("%s is already there%s; nothing to do (--force downloads it again)\n", out, c8);
                return EXIT_OK;
            }
        } else {
            if (!quiet)
                cli_note("%s is there but not usable (%s); downloading it again", out,
                         st && e.code == 0 ? "no wte/wpe" : e.msg);
            st_close(st);
        }
    }
    /* already in the Hugging Face cache? */
    char cached[8192];
    if (!force && locate_hf_cache(repo, revision, cached, sizeof cached, NULL) == 0) {
        if (!quiet) {
            printf("%s@%s is already in the Hugging Face cache:\n  %s\n", repo, revision, cached);
            printf("gpt2-embed finds it there by itself; or pass --weights %s\n", cached);
            printf("(--force downloads %s anyway)\n", out);
        }
        return EXIT_OK;
    }
    if (dl_offline()) {   /* before anything is created */
        cli_error("download: HF_HUB_OFFLINE is set: not downloading %s (unset it to download, "
                  "or point --weights at a file you have)", repo);
        return EXIT_ERR;
    }
    if (mkdirs(dir) != 0) {
        cli_error("download: cannot create the folder %s: %s", dir, strerror(errno));
        return EXIT_ERR;
    }

    char endpoint[2048];
    g2e_err err;
    if (dl_endpoint(NULL, endpoint, sizeof endpoint, &err) != 0) {
        cli_error("download: %s", err.msg);
        return EXIT_ERR;
    }
    prog p;
    memset(&p, 0, sizeof p);
    p.tty = isatty(2) && !dl_env_true("HF_HUB_DISABLE_PROGRESS_BARS");
    p.quiet = quiet;
    p.repo = repo;
    p.revision = revision;
    char endpoint_shown[2048];
    p.endpoint = dl_url_shown(endpoint, endpoint_shown, sizeof endpoint_shown);
    p.t0 = now();
    dl_opts o;
    memset(&o, 0, sizeof o);
    o.repo = repo;
    o.revision = revision;
    o.out_path = out;
    o.full = full;
    const models_info *mi = models_find(model ? model : repo_given ? NULL : "gpt2");
    unsigned long any;
    if (mi && !(env_uint("GPT2_EMBED_TEST_ANY_SHAPE", 1, &any) && any)) {
        /* the shapes are checked before a tensor byte is fetched */
        o.n_vocab = mi->n_vocab;
        o.n_ctx = mi->n_ctx;
        o.n_embd = mi->n_embd;
        o.n_layer = mi->n_layer;
    }
    o.min_speed = limits[0];
    o.stall_seconds = limits[1];
    o.attempt_seconds = limits[2];
    o.deadline_seconds = limits[3];
    o.retry_seconds = limits[4];
    o.progress = on_progress;
    o.progress_user = &p;
    unsigned long v;
    if (env_uint("GPT2_EMBED_TEST_BACKOFF_MS", 600000, &v)) {
        o.backoff_ms = v ? (unsigned)v : 1;
        o.backoff_max_ms = v ? (unsigned)v : 1;
    }
    if (env_uint("GPT2_EMBED_TEST_ATTEMPTS", 1000, &v) && v > 0)
        o.max_attempts = (int)v;
    dl_result r;
    int rc = dl_fetch(&o, &r, &err);
    close_bar(&p);
    if (rc != 0) {
        cli_error("download: %s", err.msg);
        return EXIT_ERR;
    }
    if (quiet)
        return EXIT_OK;

    double el = now() - p.t0;
    char moved[32], size[32], rate[32], resumed[32];
    human(moved, sizeof moved, (double)r.transferred);
    human(size, sizeof size, (double)r.out_size);
    human(rate, sizeof rate, el > 0 ? (double)r.transferred / el : 0.0);
    human(resumed, sizeof resumed, (double)r.resumed);
    st_file *st = NULL;
    if (full) {
        printf("downloaded %s/%s at commit %.12s: the whole file, sha256 verified\n", repo,
               "model.safetensors", r.commit);
    } else if (st_open(&st, out, &err) == 0) {
        char a[256] = "wte", b[256] = "wpe";
        const st_tensor *t1 = find_emb(st, "wte.weight"), *t2 = find_emb(st, "wpe.weight");
        if (t1) describe(a, sizeof a, t1);
        if (t2) describe(b, sizeof b, t2);
        printf("downloaded %s and %s\n  from %s at commit %.12s (%s)\n", a, b, repo, r.commit, revision);
        st_close(st);
    } else {
        printf("downloaded the embeddings of %s at commit %.12s\n", repo, r.commit);
    }
    printf("  %s transferred in %.1f s (%s/s)", moved, el, rate);
    if (r.resumed)
        printf(", resuming after %s", resumed);
    if (r.retries)
        printf(", %d retr%s", r.retries, r.retries == 1 ? "y" : "ies");
    printf("\n  written to %s (%s); source sha256 %.16s...\n", out, size, r.sha256);
    int default_place = strcmp(dir, "weights") == 0 && (!model || strcmp(name, model) == 0) &&
                        locate_default_repo(name) != NULL;
    if (default_place && strcmp(name, "gpt2") == 0)
        printf("use it: gpt2-embed \"text\"   (or gpt2-embed --weights %s \"text\")\n", out);
    else if (default_place)
        printf("use it: gpt2-embed --model %s \"text\"   (or gpt2-embed --weights %s \"text\")\n", name, out);
    else
        printf("use it: gpt2-embed --weights %s \"text\"\n", out);
    return EXIT_OK;
}
