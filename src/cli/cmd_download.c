/* SPDX-License-Identifier: MIT */
/* cmd_download.c — `gpt2-embed download`: GPT-2's weights from the Hugging Face Hub.
 *
 * The program side of src/lib/download.{c,h}: the option table, the checks that make a
 * download unnecessary (a good file already in place, the model already in the Hugging Face
 * cache), progress on stderr (a bar on a terminal, one plain line per stage otherwise), and
 * a summary on stdout saying what came, how much, where it went and how to use it.
 *
 * The test suite's environment knobs are read by dl_opts_model (download.h).
 *
 * Deliberately left out: downloading anything but model.safetensors.
 */
#include "cli.h"
#include "i18n.h"
#include "download.h"
#include "gpt2embed.h"
#include "opt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
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

/* The progress on stderr: the library's meter composes it (download.h: dl_meter). */
typedef struct prog {
    int quiet;
    dl_meter m;
} prog;

static void on_progress(void *user, const dl_progress *d)
{
    prog *p = user;
    char buf[1024];
    if (!p->quiet && dl_meter_text(&p->m, d, buf, sizeof buf)) {
        fputs(buf, stderr);
        fflush(stderr);
    }
}

/* What one run is about, from the options: the repo, the file's name and path. */
typedef struct job {
    const download_opts *o;
    const char *repo;
    char name[256], out[4096];
} job;

/* The Hub repository of a model the library knows ("openai-community/gpt2"), or NULL. */
static const char *repo_of(const char *model)
{
    const gpt2embed_model_info *all;
    size_t n = gpt2embed_known_models(&all);
    for (size_t i = 0; i < n; i++)
        if (strcmp(all[i].name, model) == 0)
            return all[i].repo;
    return NULL;
}

/* The known models' names for a message: "gpt2, gpt2-medium, ..." (static). */
static const char *model_names(void)
{
    static char names[256];
    const gpt2embed_model_info *all;
    size_t n = gpt2embed_known_models(&all), o = 0;
    for (size_t i = 0; i < n && o < sizeof names; i++)
        o += (size_t)snprintf(names + o, sizeof names - o, "%s%s", i ? ", " : "", all[i].name);
    return names;
}

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
    if (o->model && !repo_of(o->model))
        return opt_usage_error(&CMD, "unknown model '%s' (choose one of %s, or give --repo)",
                               o->model, model_names()), EXIT_USAGE;
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
    j->repo = o->repo ? o->repo : repo_of(o->model ? o->model : "gpt2");
    if (snprintf(j->out, sizeof j->out, "%s/%s.safetensors", o->dir, j->name) >= (int)sizeof j->out)
        return opt_usage_error(&CMD, "--dir is too long"), EXIT_USAGE;
    return EXIT_OK;
}

/* 1 if a good file from the same source is in place already (said so); 0 to download. */
static int in_place(const job *j)
{
    const download_opts *o = j->o;
    char commit[64], c8[32] = "";
    g2e_err e;
    if (o->force || o->hf_cache)
        return 0;
    dl_local_state st = dl_local_check(j->out, j->repo, o->revision, o->full, commit, sizeof commit, &e);
    if (st == DL_LOCAL_BAD && !o->quiet)
        cli_note("%s is there but not usable (%s); downloading it again", j->out, e.msg);
    if (*commit)
        snprintf(c8, sizeof c8, " (commit %.8s)", commit);   /* no words to translate */
    if (st == DL_LOCAL_GOOD && !o->quiet)
        printf(_("%s is already there%s; nothing to do (--force downloads it again)\n"), j->out, c8);
    return st == DL_LOCAL_GOOD;
}

/* 1 if the Hugging Face cache has the model at that revision (said so). */
static int in_cache(const job *j)
{
    const download_opts *o = j->o;
    char cached[8192];
    if (o->force || dl_in_cache(j->repo, o->revision, cached, sizeof cached) != 0)
        return 0;
    if (!o->quiet) {
        printf(_("%s@%s is already in the Hugging Face cache:\n  %s\n"), j->repo, o->revision, cached);
        printf(_("gpt2-embed finds it there by itself; or pass --weights %s\n"), cached);
        if (o->hf_cache)
            fputs(_("(--force downloads it anyway)\n"), stdout);
        else
            printf(_("(--force downloads %s anyway)\n"), j->out);
    }
    return 1;
}

/* The library's options for j (pointers into j and o stay valid while they are used). */
static dl_opts lib_opts(const job *j, prog *p)
{
    const download_opts *o = j->o;
    dl_opts d = {.repo = j->repo, .revision = o->revision, .out_path = j->out, .full = o->full,
                 .hf_cache = o->hf_cache, .min_speed = (long)o->min_speed,
                 .stall_seconds = (long)o->stall_time, .attempt_seconds = (long)o->attempt_timeout,
                 .deadline_seconds = (long)o->timeout, .retry_seconds = (long)o->retry_time,
                 .progress = on_progress, .progress_user = p};
    dl_opts_model(&d, o->model ? o->model : o->repo ? NULL : "gpt2");
    return d;
}

/* What came, how much, where it went, how to use it. */
static void summary(const job *j, const dl_result *r, double el)
{
    const download_opts *o = j->o;
    char moved[32], size[32], rate[32], resumed[32];
    dl_human(moved, sizeof moved, (double)r->transferred);
    dl_human(size, sizeof size, (double)r->out_size);
    dl_human(rate, sizeof rate, el > 0 ? (double)r->transferred / el : 0.0);
    dl_human(resumed, sizeof resumed, (double)r->resumed);
    char a[256] = "wte", b[256] = "wpe";
    if (o->full)
        printf(_("downloaded %s/%s at commit %.12s: the whole file, sha256 verified\n"), j->repo,
               "model.safetensors", r->commit);
    else if (dl_local_describe(j->out, a, b, sizeof a) == 0)
        printf(_("downloaded %s and %s\n  from %s at commit %.12s (%s)\n"), a, b, j->repo, r->commit,
               o->revision);
    else
        printf(_("downloaded the embeddings of %s at commit %.12s\n"), j->repo, r->commit);
    printf(_("  %s transferred in %.1f s (%s/s)"), moved, el, rate);
    if (r->resumed)
        printf(_(", resuming after %s"), resumed);
    if (r->retries == 1)
        fputs(_(", 1 retry"), stdout);
    else if (r->retries)
        printf(_(", %d retries"), r->retries);
    if (o->hf_cache) {
        printf(r->reused ? _("\n  already in the Hugging Face cache (%s): %s\n")
                         : _("\n  stored in the Hugging Face cache (%s): %s\n"), size, r->path);
        fputs(_("use it: gpt2-embed \"text\" and transformers both find it there\n"), stdout);
        return;
    }
    printf(_("\n  written to %s (%s); source sha256 %.16s...\n"), j->out, size, r->sha256);
    int default_place = strcmp(o->dir, "weights") == 0 && (!o->model || strcmp(j->name, o->model) == 0) &&
                        repo_of(j->name) != NULL;
    if (default_place && strcmp(j->name, "gpt2") == 0)
        printf(_("use it: gpt2-embed \"text\"   (or gpt2-embed --weights %s \"text\")\n"), j->out);
    else if (default_place)
        printf(_("use it: gpt2-embed --model %s \"text\"   (or gpt2-embed --weights %s \"text\")\n"),
               j->name, j->out);
    else
        printf(_("use it: gpt2-embed --weights %s \"text\"\n"), j->out);
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
    if (!o->hf_cache && dl_mkdirs(o->dir) != 0) {
        cli_error("download: cannot create the folder %s: %s", o->dir, strerror(errno));
        return EXIT_ERR;
    }
    char endpoint[2048], shown[2048];
    g2e_err err;
    if (dl_endpoint(NULL, endpoint, sizeof endpoint, &err) != 0) {
        cli_error("download: %s", err.msg);
        return EXIT_ERR;
    }
    prog p = {.quiet = o->quiet};
    dl_meter_init(&p.m, isatty(2) && !dl_env_true("HF_HUB_DISABLE_PROGRESS_BARS"), j->repo,
                  o->revision, dl_url_shown(endpoint, shown, sizeof shown));
    dl_opts d = lib_opts(j, &p);
    dl_result r;
    int rc = dl_fetch(&d, &r, &err);
    char nl[4];
    if (dl_meter_close(&p.m, nl, sizeof nl))
        fputs(nl, stderr);
    if (rc != 0) {
        cli_error("download: %s", err.msg);
        return EXIT_ERR;
    }
    if (!o->quiet)
        summary(j, &r, dl_meter_elapsed(&p.m));
    if (!o->full && !r.verified)   /* said even with --quiet: the bytes were not checked */
        cli_note("not verified: unknown revision (no sha256 of its tensors is pinned for %s at commit "
                 "%.12s, so bytes changed on the server would not be noticed)", j->repo, r.commit);
    else if (!o->full && !o->quiet)
        printf(_("  the tensors' sha256 are the ones pinned for commit %.12s\n"), r.commit);
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
