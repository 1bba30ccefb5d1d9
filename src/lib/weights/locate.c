/* SPDX-License-Identifier: MIT */
/* locate.c — finding the weights file (see locate.h for the order). */
#include "locate.h"
#include "models.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef G2E_DATADIR
#define G2E_DATADIR "/usr/local/share/gpt2-embed"
#endif

const char *locate_default_repo(const char *model)
{
    const models_info *m = models_find(model);
    return m ? m->repo : NULL;
}

static int is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Why p is not usable as a weights file. */
static const char *why_not_file(const char *p)
{
    struct stat st;
    if (stat(p, &st) != 0)
        return strerror(errno);
    return S_ISDIR(st.st_mode) ? g2e_tr("is a directory") : g2e_tr("not a regular file");
}

/* snprintf into out, failing with LOCATE_E_TOO_LONG when it does not fit. */
static int fmt_path(char *out, size_t outlen, g2e_err *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fmt_path(char *out, size_t outlen, g2e_err *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out, outlen, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= outlen)
        return g2e_fail(err, LOCATE_E_TOO_LONG, "path too long: %.120s...", out);
    return 0;
}

/* "models--" + repo with every '/' as "--" (huggingface_hub's folder of a model repo). */
static int repo_folder(const char *repo, char *folder, size_t cap)
{
    size_t j = (size_t)snprintf(folder, cap, "models--");
    for (const char *p = repo; *p; p++) {
        if (j + 3 >= cap)
            return -1;
        if (*p == '/') {
            folder[j++] = '-';
            folder[j++] = '-';
        } else {
            folder[j++] = *p;
        }
    }
    folder[j] = '\0';
    return 0;
}

/* An environment variable's value with a leading "~/" (or a lone "~") expanded to $HOME,
 * as huggingface_hub's expanduser does; NULL when unset or empty. */
static const char *env_path(const char *name, char *buf, size_t cap)
{
    const char *v = getenv(name), *home = getenv("HOME");
    if (!v || !*v)
        return NULL;
    if (v[0] == '~' && (v[1] == '/' || v[1] == '\0') && home && *home) {
        int n = snprintf(buf, cap, "%s%s", home, v + 1);
        return n > 0 && (size_t)n < cap ? buf : NULL;
    }
    return v;
}

int locate_hf_home(char *out, size_t outlen, g2e_err *err)
{
    char b[4096];
    const char *v = env_path("HF_HOME", b, sizeof b);
    if (v)
        return fmt_path(out, outlen, err, "%s", v);
    if ((v = env_path("XDG_CACHE_HOME", b, sizeof b)) != NULL)
        return fmt_path(out, outlen, err, "%s/huggingface", v);
    const char *home = getenv("HOME");
    if (!home || !*home)   /* never ./.cache relative to wherever the program runs */
        return g2e_fail(err, LOCATE_E_NOT_FOUND, "no Hugging Face cache ($HOME is unset or empty; "
                        "set HF_HOME or HF_HUB_CACHE to use one)");
    return fmt_path(out, outlen, err, "%s/.cache/huggingface", home);
}

int locate_hf_hub_dir(char *out, size_t outlen, g2e_err *err)
{
    char b[4096];
    const char *v = env_path("HF_HUB_CACHE", b, sizeof b);
    if (!v)
        v = env_path("HUGGINGFACE_HUB_CACHE", b, sizeof b);   /* the older name */
    if (v)
        return fmt_path(out, outlen, err, "%s", v);
    char home[4096];
    int rc = locate_hf_home(home, sizeof home, err);
    return rc ? rc : fmt_path(out, outlen, err, "%s/hub", home);
}

int locate_hf_token_path(char *out, size_t outlen, g2e_err *err)
{
    char b[4096];
    const char *v = env_path("HF_TOKEN_PATH", b, sizeof b);
    if (v)
        return fmt_path(out, outlen, err, "%s", v);
    char home[4096];
    int rc = locate_hf_home(home, sizeof home, err);
    return rc ? rc : fmt_path(out, outlen, err, "%s/token", home);
}

int locate_hf_repo_dir(const char *repo, char *out, size_t outlen, g2e_err *err)
{
    char hub[4096], folder[512];
    int rc = locate_hf_hub_dir(hub, sizeof hub, err);
    if (rc)
        return rc;
    if (repo_folder(repo, folder, sizeof folder) != 0)
        return g2e_fail(err, LOCATE_E_TOO_LONG, "repository name too long: %.120s", repo);
    return fmt_path(out, outlen, err, "%s/%s", hub, folder);
}

/* Reads the commit id from refs/<revision>: one line of [0-9a-zA-Z] (no path characters). */
static int read_ref(const char *path, char *commit, size_t len)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);   /* a FIFO is never waited on */
    struct stat st;
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return -1;
    }
    ssize_t r = read(fd, commit, len - 1);
    close(fd);
    size_t n = r > 0 ? (size_t)r : 0;
    commit[n] = '\0';
    while (n > 0 && (commit[n - 1] == '\n' || commit[n - 1] == '\r' || commit[n - 1] == ' '))
        commit[--n] = '\0';
    if (n == 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        char c = commit[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
            return -1;
    }
    return 0;
}

/* One cache folder: models--<repo with / as -->/refs/<rev> -> snapshots/<commit>/model.safetensors.
 * A revision that is itself a commit id names the snapshot directly. */
static int try_cache_folder(const char *hub, const char *folder, const char *revision,
                            char *out, size_t outlen, g2e_err *err)
{
    char ref[4096], commit[128];
    if (fmt_path(ref, sizeof ref, err, "%s/%s/refs/%s", hub, folder, revision))
        return -1;
    const char *snap = revision;
    if (read_ref(ref, commit, sizeof commit) == 0)
        snap = commit;
    else if (strchr(revision, '/') || strstr(revision, ".."))
        return -1;
    if (fmt_path(out, outlen, err, "%s/%s/snapshots/%s/model.safetensors", hub, folder, snap))
        return -1;
    return is_file(out) ? 0 : -1;
}

int locate_hf_cache(const char *repo, const char *revision, char *out, size_t outlen,
                    g2e_err *err)
{
    char hub[4096], folder[512];
    if (!revision)
        revision = "main";
    int rc = locate_hf_hub_dir(hub, sizeof hub, err);
    if (rc)
        return rc;
    /* models--org--name, then the legacy models--name (repos moved under organisations). */
    if (repo_folder(repo, folder, sizeof folder) != 0)
        return g2e_fail(err, LOCATE_E_TOO_LONG, "repository name too long: %.120s", repo);
    if (try_cache_folder(hub, folder, revision, out, outlen, NULL) == 0)
        return 0;
    const char *slash = strrchr(repo, '/');
    if (slash) {
        char legacy[512];
        snprintf(legacy, sizeof legacy, "models--%s", slash + 1);
        if (try_cache_folder(hub, legacy, revision, out, outlen, NULL) == 0)
            return 0;
    }
    return g2e_fail(err, LOCATE_E_NOT_FOUND, "%s/%s/snapshots/<refs/%s>/model.safetensors", hub,
                    folder, revision);
}

int locate_weights(const char *model, const char *explicit_path, char *out, size_t outlen,
                   locate_from *source, g2e_err *err)
{
    return locate_weights_at(model, NULL, explicit_path, out, outlen, source, err);
}

int locate_weights_at(const char *model, const char *revision, const char *explicit_path,
                      char *out, size_t outlen, locate_from *source, g2e_err *err)
{
    if (revision && !*revision)   /* not taken as main: an empty name names nothing */
        return g2e_fail(err, G2E_EINVAL, "the revision is empty (give a branch, tag or commit, "
                        "or leave the option out for main)");
    if (!revision)
        revision = "main";
    if (!model)
        model = "gpt2";
    const char *repo = locate_default_repo(model);
    if (!repo)
        return g2e_fail(err, LOCATE_E_UNKNOWN_MODEL,
                        "unknown model '%s' (known: %s)", model, models_names());
    locate_from src;
    int rc;
    if (explicit_path) {
        if (!is_file(explicit_path))
            return g2e_fail(err, LOCATE_E_MISSING, "%s: %s", explicit_path,
                            why_not_file(explicit_path));
        src = LOCATE_FROM_PATH;
        rc = fmt_path(out, outlen, err, "%s", explicit_path);
        goto done;
    }
    const char *env = getenv("GPT2_EMBED_WEIGHTS");
    if (env && *env) {
        if (!is_file(env))
            return g2e_fail(err, LOCATE_E_MISSING, "$GPT2_EMBED_WEIGHTS=%s: %s", env, why_not_file(env));
        src = LOCATE_FROM_ENV;
        rc = fmt_path(out, outlen, err, "%s", env);
        goto done;
    }
    char local[4096], installed[4096], cache[4096];
    snprintf(local, sizeof local, "weights/%s.safetensors", model);
    if (is_file(local)) {
        src = LOCATE_FROM_WORKDIR;
        rc = fmt_path(out, outlen, err, "%s", local);
        goto done;
    }
    snprintf(installed, sizeof installed, "%s/weights/%s.safetensors", G2E_DATADIR, model);
    if (is_file(installed)) {
        src = LOCATE_FROM_DATADIR;
        rc = fmt_path(out, outlen, err, "%s", installed);
        goto done;
    }
    g2e_err cerr;
    g2e_clear(&cerr);
    if (locate_hf_cache(repo, revision, cache, sizeof cache, &cerr) == 0) {
        src = LOCATE_FROM_HF_CACHE;
        rc = fmt_path(out, outlen, err, "%s", cache);
        goto done;
    }
    return g2e_fail(err, LOCATE_E_NOT_FOUND,
                    "no weights for %s: looked at $GPT2_EMBED_WEIGHTS (not set), %s, %s, %s",
                    model, local, installed, cerr.msg);
done:
    if (rc == 0 && source)
        *source = src;
    return rc;
}
