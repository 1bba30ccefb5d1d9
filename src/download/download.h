/* SPDX-License-Identifier: MIT */
/* download.h — fetching GPT-2's weights from the Hugging Face Hub with libcurl.
 *
 * The Hub's protocol, as its own client speaks it:
 *   URL      $HF_ENDPOINT (default https://huggingface.co, trailing '/' dropped)
 *            + /{repo}/resolve/{revision}/{file}   (revision percent-encoded, '/' too)
 *   metadata a HEAD of that URL, following redirects on the endpoint's own origin (a
 *            renamed repo) but not the one to the CDN; from the endpoint's last answer:
 *            X-Repo-Commit, X-Linked-Etag (the file's sha256) else ETag,
 *            X-Linked-Size else Content-Length.
 *            X-Repo-Commit must be 40 hex digits (DL_E_PROTOCOL otherwise). Every header
 *            value is kept with its bytes outside printable ASCII written as \xNN, so no
 *            message quotes a server's control characters raw.
 *   auth     "Authorization: Bearer TOKEN" ($HF_TOKEN, else the file $HF_TOKEN_PATH, else
 *            <HF home>/token: $HF_HOME, $XDG_CACHE_HOME/huggingface or ~/.cache/huggingface,
 *            see locate.h; a regular file only, opened without blocking), sent ONLY to the
 *            endpoint's own origin (scheme, host and port): redirects are followed here, hop
 *            by hop, not by libcurl, so a CDN on another host never sees the token.
 *   offline  HF_HUB_OFFLINE=1 (or true/yes/on; when it is unset or empty,
 *            TRANSFORMERS_OFFLINE): no network at all, DL_E_OFFLINE.
 *
 * Two modes:
 *   embeddings only (default): Range requests for the 8-byte header length and the JSON
 *            header, which st_parse_header validates against the file size, then exactly
 *            the bytes of wte.weight and wpe.weight (with or without a "transformer."
 *            prefix). The result is a valid safetensors file holding those two tensors
 *            under their source names, in source order, with __metadata__:
 *              format (copied from the source, if any), source_repo, source_revision,
 *              source_commit, source_file, source_sha256, source_size,
 *              sha256.<tensor name> (hex sha256 of that tensor's bytes) for each tensor,
 *              created_by = "gpt2-embed download".
 *            The header is padded with spaces so that the data starts at a multiple of 8.
 *            The source's sha256 cannot be checked without the whole file: what is checked
 *            is the header, every Content-Range and byte count, and that the Hub's ETag
 *            stays the same on every request (each request goes through the endpoint).
 *            On a resume the last 64 KiB the part holds (of the tensor being resumed) are
 *            fetched again and compared: content changed under the same ETag discards the
 *            part (DL_E_CHANGED). Then every tensor's sha256 is compared with the one the
 *            catalogue pins for the repository at the commit the Hub named (models.h,
 *            opts.pins): a difference discards the part (DL_E_CHECKSUM), so bytes changed
 *            anywhere (after a resume too) are refused; when nothing is pinned for that
 *            commit the file is kept and dl_result.verified is 0 ("not verified: unknown
 *            revision").
 *   full (opts.full): the header first (checked as above), then the whole file, its
 *            sha256 compared with X-Linked-Etag.
 *
 * The Hugging Face cache (opts.hf_cache, full only: an embeddings-only file is never put
 * there, where transformers would take it for the model): the cache folder is
 * locate_hf_repo_dir(repo) (locate.h: $HF_HUB_CACHE, $HF_HOME, $XDG_CACHE_HOME...); the
 * file is downloaded into blobs/<sha256> (its part beside it) and verified, and only then
 * made visible as huggingface_hub does: snapshots/<commit>/<file> a relative symbolic link
 * to ../../blobs/<sha256>, and refs/<revision> holding the commit (40 hex digits, no
 * newline; not written when the revision is the commit). A blob already there whose bytes
 * hash to the sha256 is linked, not downloaded again.
 *
 * Never lose or corrupt anything: bytes go to <out>.part, with a sidecar <out>.part.info
 * recording what the part is (mode, repo, file, ETag, size, header length); a later call
 * with the same ETag resumes from the part's length, anything else starts over. Both are
 * opened with O_NOFOLLOW and created with O_EXCL; a symbolic link, a hard link to another
 * file, a FIFO, device or folder in their place is refused (DL_E_IO naming it), never
 * followed, truncated or written. The part is locked (flock) while written, and only once
 * the lock is held is it checked to still be the file at <out>.part (dev + inode): a part
 * another download renamed into place in between is never truncated or written (the path
 * is opened again). Only a complete, verified part is renamed onto <out>, so an existing
 * <out> is replaced only by a good file. A checksum mismatch deletes the part and leaves
 * <out> as it was.
 *
 * Slow servers: an attempt slower than opts.min_speed bytes/s over opts.stall_seconds, or
 * longer than opts.attempt_seconds, is given up (and retried); the whole call ends at
 * opts.deadline_seconds. A 2xx whose Content-Length does not match its Content-Range (or
 * the file's size, for a 200) is refused when its headers end, before any body is read.
 *
 * Transient failures (connection refused/reset, timeouts, a short body, 408, 429, 5xx)
 * are retried with exponential backoff (opts.backoff_ms doubling up to backoff_max_ms,
 * Retry-After honoured up to that cap), at most opts.max_attempts times in a row without
 * progress (an attempt that stored at least 1 MiB resets the count), at most
 * DL_MAX_RETRIES times in all, and only while the time lost to failures stays within
 * opts.retry_seconds (see there) and the deadline is not reached. A 200 answer to a Range
 * request is handled by skipping to the offset and stopping after the range.
 *
 * For the test suite only (built in only with -DG2E_TEST_HOOKS, which only the objects
 * the tests link have): $GPT2_EMBED_TEST_PART_GATE=DIR holds a download
 * right after it opened its part file (before the lock) until DIR/go exists, having created
 * DIR/opened, so that a test can force the interleaving of two downloads.
 *
 * The library never prints: it reports through opts.progress. Deliberately left out:
 * parallel connections, xet/hf_transfer, huggingface_hub's .locks (the part's flock stands in), proxies
 * beyond what libcurl takes from the environment.
 */
#ifndef G2E_DOWNLOAD_H
#define G2E_DOWNLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* Status codes (g2e_err.code). */
enum {
    DL_E_OFFLINE = G2E_BASE(DL),    /* HF_HUB_OFFLINE is set: nothing was sent */
    DL_E_ARG,              /* an option out of range (no repo, no output path, bad token) */
    DL_E_CURL,             /* libcurl could not be set up */
    DL_E_NETWORK,          /* a transport failure that persisted through the retries */
    DL_E_UNAUTHORIZED,     /* 401: private repo, or no such repo (the Hub hides which) */
    DL_E_FORBIDDEN,        /* 403: gated repo not accepted, or the token lacks access */
    DL_E_NOT_FOUND,        /* 404: no such repo, revision or file */
    DL_E_HTTP,             /* any other HTTP status (incl. 429/5xx after the retries) */
    DL_E_PROTOCOL,         /* not the Hub's protocol: metadata missing, bad Content-Range,
                              a byte count off, a redirect loop */
    DL_E_HEADER,           /* the remote safetensors header is invalid (the loader's message) */
    DL_E_NO_EMBEDDINGS,    /* no wte.weight / wpe.weight in the remote file */
    DL_E_CHANGED,          /* the file's ETag changed on the Hub during the download */
    DL_E_CHECKSUM,         /* sha256 of the downloaded bytes differs from the Hub's */
    DL_E_IO,               /* a local file operation failed (msg names path and errno) */
    DL_E_BUSY,             /* another process is writing the same .part file */
    DL_E_SHAPE,            /* the remote tensors are not the shapes or size asked for */
    DL_E_SPACE,            /* not enough free disk space for what is to be written */
    DL_CODES_END_
};
G2E_CODES_END(DL, DL_CODES_END_);

#define DL_MAX_RETRIES 100

typedef enum dl_stage {
    DL_STAGE_RESOLVE,      /* asking the endpoint for the file's metadata */
    DL_STAGE_HEADER,       /* the 8-byte length and the JSON header (embeddings only) */
    DL_STAGE_TENSORS,      /* the bytes of wte and wpe (embeddings only) */
    DL_STAGE_FILE,         /* the whole file (--full) */
    DL_STAGE_VERIFY,       /* hashing and checking what was written */
    DL_STAGE_RETRY,        /* a transient failure; waiting delay_ms before attempt */
    DL_STAGE_DONE,         /* the file is in place */
} dl_stage;

typedef struct dl_progress {
    dl_stage stage;
    int starting;          /* 1 on the first report of a stage */
    uint64_t done, total;  /* bytes of this stage, including resumed ones (total 0: unknown) */
    uint64_t transferred;  /* body bytes received over the network so far in this call */
    int attempt;           /* DL_STAGE_RETRY: the attempt about to be made (2, 3, ...) */
    unsigned delay_ms;     /* DL_STAGE_RETRY: the wait before it */
    const char *reason;    /* DL_STAGE_RETRY: what failed (valid during the callback) */
} dl_progress;

/* Called from inside dl_fetch, at most about every 256 KiB of body and at each stage
 * change; must not call back into this module. */
typedef void (*dl_progress_fn)(void *user, const dl_progress *p);

typedef struct dl_opts {
    const char *repo;           /* "openai-community/gpt2" (required) */
    const char *revision;       /* NULL: "main"; a branch, tag or commit */
    const char *filename;       /* NULL: "model.safetensors" */
    const char *endpoint;       /* NULL: $HF_ENDPOINT, else "https://huggingface.co" */
    const char *token;          /* NULL: from the environment (see top); "": send none */
    const char *out_path;       /* the destination file (required); its folder must exist */
    int full;                   /* 1: the whole file, checked against its sha256 */
    int hf_cache;               /* 1 (with full only): store it in the Hugging Face cache as
                                   huggingface_hub does instead of at out_path (see below) */
    int max_attempts;           /* attempts in a row without progress; 0: 6 */
    unsigned backoff_ms;        /* first retry delay; 0: 1000 */
    unsigned backoff_max_ms;    /* cap on a delay; 0: 30000 */
    long min_speed;             /* bytes/s an attempt must keep up over stall_seconds; 0: 10000 */
    long stall_seconds;         /* the window of min_speed, in s; 0: 20 */
    long connect_seconds;       /* connect timeout; 0: 30 */
    long attempt_seconds;       /* deadline of one request, in s; 0: 600 (a longer transfer
                                   goes on from where it stopped: this costs one reconnect) */
    long deadline_seconds;      /* deadline of the whole call, in s; 0: 21600 (6 h) */
    long retry_seconds;         /* time that may be lost to failures in all: the whole of a
                                   failed attempt that stored < 1 MiB, the rest of one after its
                                   last byte, and the waits between attempts; 0: 300 */
    /* The model asked for (0: not checked): before any tensor byte is fetched, wte must be
     * [n_vocab, n_embd] and wpe [n_ctx, n_embd] (DL_E_SHAPE otherwise), and with full the
     * file no larger than n_layer GPT-2 blocks of that shape in F32 make it. Whatever they
     * are, wte and wpe must be 2-D with the same width, and the free space of the output's
     * folder must hold what is still to be written (DL_E_SPACE). */
    uint64_t n_vocab, n_ctx, n_embd, n_layer;
    /* the tensor hashes an embeddings-only download is checked against (models.h); NULL:
     * the catalogue's (models_pins) */
    const struct models_pin *pins;
    size_t n_pins;
    dl_progress_fn progress;    /* may be NULL */
    void *progress_user;
} dl_opts;

typedef struct dl_result {
    char commit[512];           /* X-Repo-Commit */
    char sha256[512];           /* the source file's sha256 (X-Linked-Etag, unquoted) */
    uint64_t source_size;       /* X-Linked-Size */
    uint64_t out_size;          /* size of the file written */
    uint64_t transferred;       /* body bytes received over the network in this call */
    uint64_t resumed;           /* bytes already in a matching .part from an earlier call */
    int retries;                /* transient failures retried */
    char path[4096];            /* the file in place: out_path, or the cache's snapshot link */
    int reused;                 /* 1: the cache already held a blob with those bytes */
    int verified;               /* 1: full, the file's sha256 checked; embeddings only, every
                                   tensor's sha256 is the one pinned for repo at commit. 0:
                                   embeddings only and no pin for that commit ("not verified:
                                   unknown revision"; the bytes are kept) */
    char wte_name[128];         /* names of the tensors written (embeddings only) */
    char wpe_name[128];
} dl_result;

/* Downloads per opts into opts->out_path (see the top of this file). On success the file
 * is complete and verified and *res (may be NULL) describes it. On error err says what
 * went wrong in one line, and what is left: <out> untouched, and a resumable <out>.part
 * (+ .part.info) after a transport failure, or no part after a checksum mismatch, an
 * ETag change, or an invalid header. */
int dl_fetch(const dl_opts *opts, dl_result *res, g2e_err *err);

/* 1 if HF_HUB_OFFLINE asks for no network ("1", "true", "yes", "on", any case). */
int dl_offline(void);

/* 1 if the environment variable name holds a true value as huggingface_hub reads them
 * ("1", "true", "yes", "on", any case); e.g. HF_HUB_DISABLE_PROGRESS_BARS. */
int dl_env_true(const char *name);

/* The endpoint in force: endpoint if non-NULL, else $HF_ENDPOINT, else the Hub; without a
 * trailing '/'. Written into out[cap]; DL_E_ARG if it is empty or does not fit. */
int dl_endpoint(const char *endpoint, char *out, size_t cap, g2e_err *err);

/* The resolve URL {endpoint}/{repo}/resolve/{revision}/{file}, newly allocated (caller
 * frees), revision and file percent-encoded. NULL revision/filename: "main" /
 * "model.safetensors". G2E_ENOMEM or DL_E_ARG (empty repo). */
int dl_resolve_url(char **out, const char *endpoint, const char *repo, const char *revision,
                   const char *filename, g2e_err *err);

/* url as messages may show it: without user information ("user:secret@"), query and
 * fragment (a CDN's signature is a short-lived credential), every byte outside printable
 * ASCII as \xNN. Written into buf[cap] (cut if longer); returns buf. */
const char *dl_url_shown(const char *url, char *buf, size_t cap);

/* 1 if URLs a and b have the same scheme, host and port (default ports filled in), else 0
 * (also when either does not parse). */
int dl_same_origin(const char *a, const char *b);

/* ---- the program's side, kept here where it is not command-line work ----------------
 * (dl_meter.c, dl_local.c; used by `gpt2-embed download`, testable without a terminal)   */

/* A progress meter: turns the dl_progress reports into the text a terminal shows, without
 * printing it. One line per stage ("gpt2-embed: fetching the embeddings: 157.5 MB"), and,
 * when bar is set, a bar redrawn in place ("\rtensors  [####---] 12.5%  ... ETA 0:42")
 * at most every 0.1 s, completed before the next stage's line. A retry is one line. */
typedef struct dl_meter {
    int bar;                  /* 1: draw the bar (a terminal that wants one) */
    const char *repo, *revision, *endpoint;   /* named by the resolve line (not owned) */
    double (*clock)(void);    /* monotonic seconds; dl_meter_init sets the real one */
    double t0, t_stage, t_last_draw;
    dl_stage stage;
    int have_stage, bar_open;
    uint64_t done_at_stage;   /* bytes done when the stage started (resumed ones) */
    dl_progress last;         /* the last report drawn in the bar */
} dl_meter;

void dl_meter_init(dl_meter *m, int bar, const char *repo, const char *revision,
                   const char *endpoint);
/* The text for report d (may be empty) into buf[cap] (NUL-terminated, cut if longer);
 * returns its length. d->reason is copied, not kept. */
size_t dl_meter_text(dl_meter *m, const dl_progress *d, char *buf, size_t cap);
/* The same bar for other work than a download (`tokenize`'s progress): label, done of total
 * bytes since dl_meter_init (total 0: not known: no bar, no ETA), extra text after it
 * (" 12.3 M tokens"); at most every 0.1 s unless final. Into buf[cap]; returns its length
 * (0: nothing to draw yet). */
size_t dl_meter_bar(dl_meter *m, const char *label, uint64_t done, uint64_t total, const char *extra, int final,
                    char *buf, size_t cap);
/* What ends an open bar ("\n", or ""), into buf[cap]; returns its length. */
size_t dl_meter_close(dl_meter *m, char *buf, size_t cap);
/* Seconds since dl_meter_init. */
double dl_meter_elapsed(const dl_meter *m);
/* bytes for people: "512 B", "12.3 kB", "157.5 MB", "1.23 GB" (powers of 1000). */
void dl_human(char *buf, size_t cap, double bytes);

/* What is at a download's destination before it starts (dl_local_check). */
typedef enum dl_local_state {
    DL_LOCAL_NONE,            /* nothing there (stat fails) */
    DL_LOCAL_BAD,             /* a file that cannot be used: err says why */
    DL_LOCAL_OTHER,           /* usable, but not what is asked for (embeddings only where
                                 full is asked, or recorded from another repo/revision) */
    DL_LOCAL_GOOD,            /* what is asked for: nothing to download */
} dl_local_state;

/* Looks at path: a safetensors file with wte and wpe (with or without "transformer."),
 * whose recorded sha256.<tensor> values (metadata this module writes) match its bytes, and
 * that has more tensors than those two when full is asked. A file that records its source
 * (source_repo) must be of repo at revision (source_revision or source_commit equal to
 * it); a file from elsewhere is taken as it is. commit (cap >= 41) receives the recorded
 * source_commit, or "". Returns the state; err is filled for DL_LOCAL_BAD only. */
dl_local_state dl_local_check(const char *path, const char *repo, const char *revision, int full,
                              char *commit, size_t cap, g2e_err *err);

/* "wte.weight (50257 x 768, F32)" for the tensors wte and wpe of the file at path into
 * wte[cap] and wpe[cap] (each left as it is when the tensor is missing). 0, or -1 (both
 * left as they are) when the file cannot be opened. */
int dl_local_describe(const char *path, char *wte, char *wpe, size_t cap);

/* The file of repo at revision (NULL: main) in the Hugging Face cache, as the library finds
 * weights there (gpt2embed_locate_weights' last place), into out[cap]: 0 when it is there, -1
 * when not. */
int dl_in_cache(const char *repo, const char *revision, char *out, size_t cap);

/* mkdir -p path (0755); an existing component is taken as it is. 0, or -1 with errno. */
int dl_mkdirs(const char *path);

/* The shapes the model name stands for (models.h; NULL or an unknown name: none), and the
 * test-suite knobs of the environment (only with -DG2E_TEST_HOOKS): GPT2_EMBED_TEST_BACKOFF_MS
 * (first retry delay and its cap, in ms), GPT2_EMBED_TEST_ATTEMPTS (attempts in a row
 * without progress), GPT2_EMBED_TEST_ANY_SHAPE=1 (no shapes: small fixtures can stand in
 * for gpt2), GPT2_EMBED_TEST_PINS="REPO@COMMIT:TENSOR=SHA256,..." (the pins, instead of the
 * catalogue's). Sets those fields of d and leaves the others. */
void dl_opts_model(dl_opts *d, const char *model);

#endif
