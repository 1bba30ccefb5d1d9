/* SPDX-License-Identifier: MIT */
/* test_hostile_cli.c — the built program in a hostile world (issue 15): outputs over
 * inputs, files that change while mapped, fatal signals mid-write, full disks and file size
 * limits, FIFOs and devices where files are expected, closed standard streams, non-finite
 * numbers in weights. Every case drives G2E_TEST_BIN and checks what a careful user would
 * look at afterwards: the exit status, one line on stderr, and that no file they had was
 * lost or replaced and no temporary was left behind.
 */
#include "fixture.h"
#include "support.h"

#include <cjson/cJSON.h>

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define C 8
static char *dir, *wpath;

static void setup(void)
{
    fixture_opts o;
    memset(&o, 0, sizeof o);
    o.n_vocab = 50257;
    o.n_ctx = 1024;
    o.n_embd = C;
    o.dtype = ST_F32;
    dir = test_tmpdir("hostile");
    wpath = path_join(dir, "w.safetensors");
    char e[256];
    cr_assert_eq(fixture_write(wpath, &o, e, sizeof e), 0, "%s", e);
}

static void teardown(void)
{
    free(wpath);
    free(dir);
}

TestSuite(hostile, .init = setup, .fini = teardown);

/* ---- helpers ---- */

/* Number of entries of d besides . and .. whose name starts with '.' (temporaries). */
static int hidden_entries(const char *d)
{
    DIR *dd = opendir(d);
    cr_assert(dd != NULL);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dd)))
        if (e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(dd);
    return n;
}

static void copy_file(const char *from, const char *to)
{
    size_t n;
    char *s = read_file(from, &n);
    cr_assert(s != NULL, "cannot read %s", from);
    write_file(to, s, n);
    free(s);
}

static int same_content(const char *a, const char *b)
{
    size_t na, nb;
    char *sa = read_file(a, &na), *sb = read_file(b, &nb);
    int same = sa && sb && na == nb && memcmp(sa, sb, na) == 0;
    free(sa);
    free(sb);
    return same;
}

/* stderr is exactly one line starting "gpt2-embed: " and containing want (if non-NULL). */
static void expect_one_line(const run_result *r, const char *want)
{
    cr_expect(strncmp(r->err, "gpt2-embed: ", 12) == 0, "stderr: '%s'", r->err);
    cr_expect(r->err_len > 0 && r->err[r->err_len - 1] == '\n' && strchr(r->err, '\n') == r->err + r->err_len - 1,
              "not one line: '%s'", r->err);
    if (want)
        cr_expect(strstr(r->err, want) != NULL, "stderr lacks '%s': '%s'", want, r->err);
}

/* argv = G2E_TEST_BIN, then args (at most 62 of them), then NULL. */
static void bin_argv(char *argv[64], char *const args[])
{
    int n = 0;
    argv[n++] = (char *)G2E_TEST_BIN;
    for (int i = 0; args[i] && n < 63; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
}

static run_result g2e(char *const args[])
{
    char *argv[64];
    bin_argv(argv, args);
    return run_argv(argv, NULL, 0, NULL, NULL);
}

/* ---- item 3: an output over an input ---- */

static void expect_refused_and_kept(char *const args[], const char *victim, const char *backup)
{
    run_result r = g2e(args);
    cr_expect_eq(r.status, 1, "status %d, stderr: %s", r.status, r.err);
    expect_one_line(&r, "same file");
    cr_expect(same_content(victim, backup), "%s was changed", victim);
    cr_expect_eq(hidden_entries(dir), 0, "a temporary was left");
    run_free(&r);
}

Test(hostile, output_over_the_weights_is_refused)
{
    char *keep = path_join(dir, "keep.st");
    copy_file(wpath, keep);
    expect_refused_and_kept((char *[]){"hi", "--weights", wpath, "--format", "npy", "-o", wpath, NULL}, wpath, keep);
    /* through a hard link and a symbolic link too */
    char *hard = path_join(dir, "hard.st"), *soft = path_join(dir, "soft.st");
    cr_assert(link(wpath, hard) == 0 && symlink(wpath, soft) == 0);
    expect_refused_and_kept((char *[]){"hi", "--weights", wpath, "--format", "npy", "-o", hard, NULL}, wpath, keep);
    expect_refused_and_kept((char *[]){"hi", "--weights", soft, "--format", "npy", "-o", wpath, NULL}, wpath, keep);
    expect_refused_and_kept((char *[]){"sinusoidal", "--compare-learned", "--weights", wpath, "-o", soft, NULL}, wpath, keep);
    free(keep);
    free(hard);
    free(soft);
}

Test(hostile, output_over_the_text_file_is_refused)
{
    char *txt = path_join(dir, "in.txt"), *keep = path_join(dir, "keep.txt");
    write_file(txt, "The dog chased the cat", 22);
    copy_file(txt, keep);
    expect_refused_and_kept((char *[]){"-f", txt, "--weights", wpath, "-o", txt, NULL}, txt, keep);
    free(txt);
    free(keep);
}

Test(hostile, output_over_a_tokenizer_file_is_refused)
{
    char *tdir = path_join(dir, "tok");
    cr_assert(mkdir(tdir, 0755) == 0);
    char *sv = path_join(G2E_SRCDIR, "tokenizer/vocab.json"), *sm = path_join(G2E_SRCDIR, "tokenizer/merges.txt");
    char *v = path_join(tdir, "vocab.json"), *mg = path_join(tdir, "merges.txt");
    copy_file(sv, v);
    copy_file(sm, mg);
    expect_refused_and_kept((char *[]){"hi", "--weights", wpath, "--tokenizer", tdir, "-o", mg, NULL},
                            mg, sm);
    free(tdir);
    free(sv);
    free(sm);
    free(v);
    free(mg);
}

/* Issue 26 item 1: tokenize and count read their input after the output is open; the output
 * layer checks again before it replaces anything, so the order of a command cannot matter. */
Test(hostile, tokenize_and_count_never_replace_what_they_read)
{
    char *txt = path_join(dir, "notes.txt"), *keep = path_join(dir, "notes.keep");
    write_file(txt, "notes\n", 6);
    copy_file(txt, keep);
    expect_refused_and_kept((char *[]){"tokenize", "-f", txt, "-o", txt, NULL}, txt, keep);
    expect_refused_and_kept((char *[]){"tokenize", "-f", txt, "--format", "ids", "-o", txt, NULL}, txt, keep);
    expect_refused_and_kept((char *[]){"count", "-f", txt, "-o", txt, NULL}, txt, keep);
    /* standard input redirected from the output's file */
    char *argv[64];
    bin_argv(argv, (char *[]){"tokenize", "-", "-o", txt, NULL});
    char *sh[] = {"/bin/sh", "-c", "exec \"$0\" tokenize - -o \"$1\" < \"$1\"", argv[0], txt, NULL};
    run_result r = run_argv(sh, NULL, 0, NULL, NULL);
    cr_expect_eq(r.status, 1, "status %d, stderr: %s", r.status, r.err);
    expect_one_line(&r, "same file");
    cr_expect(same_content(txt, keep), "stdin's file was changed");
    run_free(&r);
    /* the tokenizer's own files, with a JSON output */
    char *tdir = path_join(dir, "tk");
    cr_assert(mkdir(tdir, 0755) == 0);
    char *sv = path_join(G2E_SRCDIR, "tokenizer/vocab.json"), *sm = path_join(G2E_SRCDIR, "tokenizer/merges.txt");
    char *v = path_join(tdir, "vocab.json"), *mg = path_join(tdir, "merges.txt");
    copy_file(sv, v);
    copy_file(sm, mg);
    expect_refused_and_kept((char *[]){"tokenize", "--tokenizer", tdir, "hi", "-o", v, "--format", "json", NULL}, v, sv);
    expect_refused_and_kept((char *[]){"count", "--tokenizer", tdir, "hi", "-o", mg, "--format", "json", NULL}, mg, sm);
    cr_expect_eq(hidden_entries(tdir), 0, "a temporary was left");
    free(tdir);
    free(sv);
    free(sm);
    free(v);
    free(mg);
    free(txt);
    free(keep);
}

Test(hostile, other_outputs_still_work)
{
    char *o = path_join(dir, "x.npy");
    run_result r = g2e((char *[]){"hi", "--weights", wpath, "--format", "npy", "-o", o, NULL});
    cr_expect_eq(r.status, 0, "stderr: %s", r.err);
    struct stat st;
    cr_expect(stat(o, &st) == 0 && st.st_size > 128);
    run_free(&r);
    free(o);
}

/* ---- spawning the program without waiting for it ---- */

typedef struct child {
    pid_t pid;
    int err_fd;      /* read end of its stderr */
} child;

/* How the child's stdout is set up. */
enum { OUT_NULL, OUT_FULL, OUT_CLOSED };

/* Starts G2E_TEST_BIN args with stdin /dev/null, stdout /dev/null (or /dev/full, or closed),
 * stderr a pipe (stdin from the file in, if non-NULL); with a file size limit of fsize bytes if fsize > 0 (as `ulimit -f`)
 * and an address-space limit of as bytes if as > 0 (as `ulimit -v`). */
static child spawn_in(char *const args[], rlim_t fsize, int out, const char *in, rlim_t as)
{
    char *argv[64];
    bin_argv(argv, args);
    int p[2];
    cr_assert(pipe(p) == 0);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        int dn = open("/dev/null", O_RDWR);
        dup2(dn, 0);
        dup2(dn, 1);
        dup2(p[1], 2);
        close(p[0]);
        close(p[1]);
        close(dn);
        if (in) {
            int fd = open(in, O_RDONLY);
            dup2(fd, 0);
            close(fd);
        }
        if (out == OUT_FULL) {
            int fd = open("/dev/full", O_WRONLY);
            dup2(fd, 1);
            close(fd);
        } else if (out == OUT_CLOSED) {
            close(1);
        }
        struct rlimit rl = {fsize, fsize};
        if (fsize > 0 && setrlimit(RLIMIT_FSIZE, &rl) != 0)
            _exit(126);
        struct rlimit ra = {as, as};
        if (as > 0 && setrlimit(RLIMIT_AS, &ra) != 0)
            _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    close(p[1]);
    return (child){pid, p[0]};
}

static child spawn_ex(char *const args[], rlim_t fsize, int out)
{
    return spawn_in(args, fsize, out, NULL, 0);
}

static child spawn_limited(char *const args[], rlim_t fsize)
{
    return spawn_ex(args, fsize, OUT_NULL);
}

static child spawn(char *const args[])
{
    return spawn_limited(args, 0);
}

/* Waits for c; returns its exit status or 128 + signal; *err receives its stderr. */
static int reap(child c, char **err)
{
    size_t n = 0, cap = 4096;
    char *buf = malloc(cap);
    cr_assert(buf != NULL);
    ssize_t k;
    while ((k = read(c.err_fd, buf + n, cap - n - 1)) > 0) {
        n += (size_t)k;
        if (cap - n < 2) {
            cap *= 2;
            buf = realloc(buf, cap);
            cr_assert(buf != NULL);
        }
    }
    buf[n] = '\0';
    close(c.err_fd);
    int st;
    cr_assert(waitpid(c.pid, &st, 0) == c.pid);
    *err = buf;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Waits (up to 20 s) until d holds a hidden entry: the -o temporary exists. */
static int wait_for_temporary(const char *d)
{
    for (int i = 0; i < 100000; i++) {
        if (hidden_entries(d) > 0)
            return 1;
        usleep(200);
    }
    return 0;
}

/* A text of n tokens " a" (1M tokens keep the row loop busy for a good part of a second). */
static char *long_text(const char *name, size_t n)
{
    char *p = path_join(dir, name);
    char *s = malloc(2 * n);
    cr_assert(s != NULL);
    for (size_t i = 0; i < n; i++)
        s[2 * i] = ' ', s[2 * i + 1] = 'a';
    write_file(p, s, 2 * n);
    free(s);
    return p;
}

/* ---- item 4: the weights file shrinks while mapped ---- */

Test(hostile, weights_truncated_while_in_use_is_one_line_and_no_temporary)
{
    char *txt = long_text("long.txt", 1000000);
    char *odir = path_join(dir, "out"), *o = path_join(odir, "x.npy");
    cr_assert(mkdir(odir, 0755) == 0);
    child c = spawn((char *[]){"-f", txt, "--weights", wpath, "--pe", "sinusoidal", "--format", "npy", "-o", o, NULL});
    cr_assert(wait_for_temporary(odir), "the temporary never appeared");
    kill(c.pid, SIGSTOP);   /* hold it mid-write while the file shrinks */
    cr_assert(truncate(wpath, 4096) == 0);
    kill(c.pid, SIGCONT);
    char *err;
    int st = reap(c, &err);
    cr_expect_eq(st, 1, "status %d, stderr: %s", st, err);
    cr_expect(strstr(err, "weights file changed size while in use") != NULL, "stderr: %s", err);
    cr_expect(strchr(err, '\n') == err + strlen(err) - 1, "one line: %s", err);
    cr_expect_eq(hidden_entries(odir), 0, "the temporary was left behind");
    struct stat sb;
    cr_expect(stat(o, &sb) != 0, "no output file");
    free(err), free(txt), free(o), free(odir);
}

/* ---- item 5: fatal signals and the file size limit ---- */

Test(hostile, every_fatal_signal_removes_the_temporary)
{
    static const int SIGS[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE,
                               SIGXCPU, SIGVTALRM, SIGPROF};
    char *txt = long_text("long.txt", 1000000);
    char *odir = path_join(dir, "out"), *o = path_join(odir, "x.npy");
    cr_assert(mkdir(odir, 0755) == 0);
    for (size_t k = 0; k < sizeof SIGS / sizeof SIGS[0]; k++) {
        child c = spawn((char *[]){"-f", txt, "--weights", wpath, "--pe", "sinusoidal", "--format", "npy", "-o", o, NULL});
        cr_assert(wait_for_temporary(odir), "the temporary never appeared");
        kill(c.pid, SIGS[k]);
        char *err;
        int st = reap(c, &err);
        /* it may have finished first (then the output is complete); else it died of the signal */
        struct stat sb;
        if (st == 0) {
            cr_expect(stat(o, &sb) == 0, "signal %d: status 0 but no output", SIGS[k]);
            unlink(o);
        } else {
            cr_expect_eq(st, 128 + SIGS[k], "signal %d: status %d, stderr %s", SIGS[k], st, err);
            cr_expect(stat(o, &sb) != 0, "signal %d: an output file", SIGS[k]);
        }
        cr_expect_eq(hidden_entries(odir), 0, "signal %d (%s) left the temporary", SIGS[k], strsignal(SIGS[k]));
        free(err);
        /* a temporary left by the failure would fail every later round */
        DIR *d = opendir(odir);
        struct dirent *e;
        while (d && (e = readdir(d)))
            if (e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                char *q = path_join(odir, e->d_name);
                unlink(q);
                free(q);
            }
        if (d) closedir(d);
    }
    free(txt), free(o), free(odir);
}

Test(hostile, file_size_limit_is_an_error_not_a_signal)
{
    char *odir = path_join(dir, "out"), *o = path_join(odir, "keep.npy");
    cr_assert(mkdir(odir, 0755) == 0);
    write_file(o, "precious", 8);
    /* 1024 x 8 floats of npy: 32 KB, over a 16 KB limit */
    child c = spawn_limited((char *[]){"--window", "1024", "--pe", "sinusoidal", "--ids", "1 2 3", "--weights", wpath,
                                       "--format", "npy", "-o", o, NULL}, 16384);
    char *err;
    int st = reap(c, &err);
    cr_expect_eq(st, 1, "status %d (153 = SIGXFSZ), stderr: %s", st, err);
    cr_expect(strstr(err, "File too large") != NULL, "stderr: %s", err);
    cr_expect(strchr(err, '\n') == err + strlen(err) - 1, "one line: %s", err);
    cr_expect_eq(hidden_entries(odir), 0, "the temporary was left behind");
    size_t n;
    char *kept = read_file(o, &n);
    cr_expect(kept && n == 8 && memcmp(kept, "precious", 8) == 0, "the old file was changed");
    free(kept), free(err), free(o), free(odir);
}

/* ---- item 6: a temporary name that fits whenever the final name does ---- */

Test(hostile, longest_legal_output_names_work)
{
    for (size_t len = 240; len <= 255; len += 5) {
        char name[256];
        memset(name, 'n', len);
        memcpy(name + len - 4, ".npy", 4);
        name[len] = '\0';
        char *o = path_join(dir, name);
        run_result r = g2e((char *[]){"--ids", "1 2", "--weights", wpath, "--format", "npy", "-o", o, NULL});
        cr_expect_eq(r.status, 0, "name of %zu bytes: %s", len, r.err);
        struct stat sb;
        cr_expect(stat(o, &sb) == 0 && sb.st_size == 128 + 2 * C * 4, "name of %zu bytes: no output", len);
        cr_expect_eq(hidden_entries(dir), 0);
        run_free(&r);
        unlink(o);
        free(o);
    }
}

/* ---- item 8: FIFOs and devices where a file is expected ---- */

/* Runs args with a deadline of 10 s (a hang fails the test instead of stalling it). */
static int run_deadline(char *const args[], char **err)
{
    child c = spawn(args);
    for (int i = 0; i < 1000; i++) {
        int st;
        pid_t w = waitpid(c.pid, &st, WNOHANG);
        if (w == c.pid) {
            /* already reaped: read what it wrote */
            size_t n = 0, cap = 65536;
            char *buf = malloc(cap);
            ssize_t k;
            while ((k = read(c.err_fd, buf + n, cap - n - 1)) > 0)
                n += (size_t)k;
            buf[n] = '\0';
            close(c.err_fd);
            *err = buf;
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        }
        usleep(10000);
    }
    kill(c.pid, SIGKILL);
    int st = reap(c, err);
    (void)st;
    return -1;   /* hung */
}

static void expect_refused_quickly(char *const args[], const char *want, const char *what)
{
    char *err;
    int st = run_deadline(args, &err);
    cr_expect_neq(st, -1, "%s: hung (killed after 10 s)", what);
    cr_expect(st == 1 || st == 2, "%s: status %d, stderr %s", what, st, err);
    cr_expect(strstr(err, want) != NULL, "%s: stderr lacks '%s': %s", what, want, err);
    cr_expect(strchr(err, '\n') == err + strlen(err) - 1, "%s: not one line: %s", what, err);
    free(err);
}

Test(hostile, fifos_and_devices_are_refused_not_waited_on)
{
    char *fifo = path_join(dir, "f");
    cr_assert(mkfifo(fifo, 0644) == 0);
    expect_refused_quickly((char *[]){"inspect", fifo, NULL}, "not a regular file", "inspect FIFO");
    expect_refused_quickly((char *[]){"hi", "--weights", fifo, NULL}, "not a regular file", "--weights FIFO");
    expect_refused_quickly((char *[]){"nearest", "--vector", fifo, "--weights", wpath, NULL}, "not a regular file",
                           "nearest --vector FIFO");
    expect_refused_quickly((char *[]){"nearest", "--vector", "/dev/zero", "--weights", wpath, NULL}, "not a regular file",
                           "nearest --vector /dev/zero");
    expect_refused_quickly((char *[]){"-f", fifo, "--weights", wpath, NULL}, "not a regular file", "embed -f FIFO");
    expect_refused_quickly((char *[]){"-f", "/dev/zero", "--weights", wpath, NULL}, "not a regular file", "embed -f /dev/zero");
    expect_refused_quickly((char *[]){"count", "-f", fifo, NULL}, "not a regular file", "count -f FIFO");
    expect_refused_quickly((char *[]){"tokenize", "-f", fifo, NULL}, "not a regular file", "tokenize -f FIFO");
    /* a tokenizer directory whose vocab.json is a FIFO */
    char *tdir = path_join(dir, "tok"), *v = path_join(tdir, "vocab.json"), *mg = path_join(tdir, "merges.txt");
    char *sm = path_join(G2E_SRCDIR, "tokenizer/merges.txt");
    cr_assert(mkdir(tdir, 0755) == 0 && mkfifo(v, 0644) == 0);
    copy_file(sm, mg);
    expect_refused_quickly((char *[]){"hi", "--weights", wpath, "--tokenizer", tdir, NULL}, "not a regular file",
                           "--tokenizer with a FIFO vocab.json");
    expect_refused_quickly((char *[]){"tokenize", "--tokenizer", tdir, "hi", NULL}, "not a regular file",
                           "tokenize --tokenizer with a FIFO vocab.json");
    free(fifo), free(tdir), free(v), free(mg), free(sm);
}

Test(hostile, a_pipe_on_standard_input_is_still_read)
{
    char *argv1[] = {G2E_TEST_BIN, "tokenize", "-f", "-", "--format", "ids", NULL};
    run_result r = run_argv(argv1, "Hello world", 11, NULL, NULL);
    cr_expect_eq(r.status, 0, "-f -: %s", r.err);
    cr_expect(strstr(r.out, "15496 995") != NULL, "-f -: %s", r.out);
    run_free(&r);
    char *argv2[] = {G2E_TEST_BIN, "tokenize", "-f", "/dev/stdin", "--format", "ids", NULL};
    r = run_argv(argv2, "Hello world", 11, NULL, NULL);
    cr_expect_eq(r.status, 0, "-f /dev/stdin: %s", r.err);
    cr_expect(strstr(r.out, "15496 995") != NULL, "-f /dev/stdin: %s", r.out);
    run_free(&r);
    char *argv3[] = {G2E_TEST_BIN, "-f", "-", "--weights", wpath, "--format", "csv", NULL};
    r = run_argv(argv3, "Hello world", 11, NULL, NULL);
    cr_expect_eq(r.status, 0, "embed -f -: %s", r.err);
    run_free(&r);
}

/* ---- item 13: NaN and infinities in the weights ---- */

/* Sets element col of row of tensor name in the safetensors file at path to v. */
static void poke(const char *path, const char *name, uint64_t row, uint64_t col, float v)
{
    st_file *f = NULL;
    g2e_err e;
    cr_assert_eq(st_open(&f, path, &e), 0, "%s", e.msg);
    const st_tensor *t = st_find(f, name);
    cr_assert(t != NULL);
    off_t at = (off_t)(f->data_start + t->begin + (row * t->shape[1] + col) * 4);
    st_close(f);
    int fd = open(path, O_WRONLY);
    cr_assert(fd >= 0);
    cr_assert(pwrite(fd, &v, 4, at) == 4);
    close(fd);
}

/* stdout is one valid JSON document (cJSON refuses bare nan / inf). */
static cJSON *expect_json(const run_result *r, const char *what)
{
    cJSON *j = cJSON_Parse(r->out);
    cr_expect(j != NULL, "%s: not valid JSON: %.300s", what, r->out);
    return j;
}

Test(hostile, non_finite_weights_give_errors_or_null_never_nan)
{
    char *nw = path_join(dir, "nan.safetensors");
    copy_file(wpath, nw);
    poke(nw, "wte.weight", 15496, 0, NAN);        /* "Hello" */
    poke(nw, "wte.weight", 995, 1, INFINITY);     /* " world" */
    poke(nw, "wpe.weight", 1, 0, NAN);
    /* a cosine with a non-finite input is an error, in text and in JSON */
    char *const *errs[] = {
        (char *[]){"similarity", "--tokens", " world", " cat", "--weights", nw, NULL},
        (char *[]){"similarity", "--tokens", " cat", " world", "--format", "json", "--weights", nw, NULL},
        (char *[]){"similarity", "--pos", "0", "1", "--weights", nw, NULL},
        (char *[]){"similarity", "--by-distance", "--format", "json", "--weights", nw, NULL},
        (char *[]){"nearest", "--id", "15496", "--format", "json", "--weights", nw, NULL},
        (char *[]){"exercise", "2", "--format", "json", "--weights", nw, NULL},
    };
    for (size_t k = 0; k < sizeof errs / sizeof errs[0]; k++) {
        run_result r = g2e(errs[k]);
        cr_expect_eq(r.status, 1, "case %zu: status %d, out %s err %s", k, r.status, r.out, r.err);
        expect_one_line(&r, "NaN or an infinity");
        cr_expect(strstr(r.out, "nan") == NULL && strstr(r.out, "inf") == NULL, "case %zu: %s", k, r.out);
        run_free(&r);
    }
    /* JSON that holds the values writes null for them */
    run_result r = g2e((char *[]){"--ids", "15496 995", "--format", "json", "--weights", nw, NULL});
    cr_expect_eq(r.status, 0, "%s", r.err);
    cJSON *j = expect_json(&r, "embed json");
    if (j) {
        cJSON *t0 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "tokens"), 0);
        cJSON *v = cJSON_GetObjectItem(t0, "vector");
        cr_expect(cJSON_IsNull(cJSON_GetArrayItem(v, 0)), "NaN as null: %.200s", r.out);
        cr_expect(cJSON_IsNumber(cJSON_GetArrayItem(v, 1)));
    }
    cJSON_Delete(j);
    run_free(&r);
    r = g2e((char *[]){"stats", "--format", "json", "--weights", nw, NULL});
    cr_expect_eq(r.status, 0, "%s", r.err);
    cJSON_Delete(expect_json(&r, "stats json"));
    run_free(&r);
    /* the NaN and infinite rows have no cosine: nearest skips them */
    r = g2e((char *[]){"nearest", "--id", "1", "-k", "50257", "--format", "json", "--weights", nw, NULL});
    cr_expect_eq(r.status, 0, "%s", r.err);
    j = expect_json(&r, "nearest json");
    cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "nearest")), 50257 - 3, "the query and the 2 bad rows left out");
    cJSON_Delete(j);
    run_free(&r);
    free(nw);
}

/* ---- item 14: every failed write is one line on stderr and a non-zero status ---- */

static void expect_write_failure(char *const args[], int out, rlim_t fsize, const char *want, const char *what)
{
    char *err;
    int st = reap(spawn_ex(args, fsize, out), &err);
    cr_expect_eq(st, 1, "%s: status %d, stderr '%s'", what, st, err);
    cr_expect(strstr(err, want) != NULL, "%s: stderr lacks '%s': '%s'", what, want, err);
    cr_expect(strncmp(err, "gpt2-embed", 10) == 0 && strchr(err, '\n') == err + strlen(err) - 1,
              "%s: not one line: '%s'", what, err);
    free(err);
}

Test(hostile, full_or_closed_stdout_is_reported)
{
    char *const *cmds[] = {
        (char *[]){"exercise", "1", NULL},
        (char *[]){"exercise", "2", "--weights", wpath, NULL},
        (char *[]){"similarity", "--pos", "0", "1", "--weights", wpath, NULL},
        (char *[]){"nearest", "--id", "1", "--weights", wpath, NULL},
        (char *[]){"stats", "--weights", wpath, NULL},
        (char *[]){"--help", NULL},
        (char *[]){"help", NULL},
        (char *[]){"help", "embed", NULL},
        (char *[]){"embed", "--help", NULL},
        (char *[]){"--version", NULL},
        (char *[]){"--ids", "1 2", "--weights", wpath, NULL},
        (char *[]){"tokenize", "Hello world", NULL},
    };
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
        char what[64];
        snprintf(what, sizeof what, "case %zu (%s) > /dev/full", k, cmds[k][0]);
        expect_write_failure(cmds[k], OUT_FULL, 0, "No space left on device", what);
        snprintf(what, sizeof what, "case %zu (%s) >&-", k, cmds[k][0]);
        expect_write_failure(cmds[k], OUT_CLOSED, 0, "Bad file descriptor", what);
    }
}

Test(hostile, raw_output_that_cannot_be_written_is_reported)
{
    char *odir = path_join(dir, "out"), *o = path_join(odir, "x.raw");
    cr_assert(mkdir(odir, 0755) == 0);
    /* 4096 x 8 floats: 128 KB, beyond stdio's buffer, so fwrite itself fails */
    char *big[] = {"--window", "4096", "--pe", "sinusoidal", "--ids", "1 2 3", "--weights", wpath, "--format", "raw",
                   "-o", o, NULL};
    expect_write_failure(big, OUT_NULL, 16384, "File too large", "raw over ulimit -f");
    cr_expect_eq(hidden_entries(odir), 0, "temporary left");
    char *dev[] = {"--window", "4096", "--pe", "sinusoidal", "--ids", "1 2 3", "--weights", wpath, "--format", "raw",
                   "-o", "/dev/full", NULL};
    expect_write_failure(dev, OUT_NULL, 0, "No space left on device", "raw -o /dev/full");
    char *std[] = {"--window", "4096", "--pe", "sinusoidal", "--ids", "1 2 3", "--weights", wpath, "--format", "raw", NULL};
    expect_write_failure(std, OUT_FULL, 0, "No space left on device", "raw > /dev/full");
    /* a real full file system, where this test may mount one (root) */
    char *mnt = path_join(dir, "tmpfs");
    cr_assert(mkdir(mnt, 0755) == 0);
    if (mount("tmpfs", mnt, "tmpfs", 0, "size=64k") == 0) {
        char *fo = path_join(mnt, "x.raw");
        char *full[] = {"--window", "4096", "--pe", "sinusoidal", "--ids", "1 2 3", "--weights", wpath, "--format",
                        "raw", "-o", fo, NULL};
        expect_write_failure(full, OUT_NULL, 0, "No space left on device", "raw -o on a full tmpfs");
        cr_expect_eq(hidden_entries(mnt), 0, "temporary left on the tmpfs");
        umount(mnt);
        free(fo);
    } else {
        cr_log_info("tmpfs not mountable here (%s): ENOSPC on a file system covered by /dev/full and EFBIG only",
                    strerror(errno));
    }
    free(mnt), free(o), free(odir);
}

Test(hostile, closed_standard_streams_are_reserved_at_start)
{
    /* with fd 1 closed, the -o temporary must not become fd 1 (and stdout's final close
     * must not close it): the run succeeds and writes a whole file */
    char *o = path_join(dir, "x.npy");
    char *err;
    int st = reap(spawn_ex((char *[]){"--ids", "1 2", "--weights", wpath, "--format", "npy", "-o", o, NULL}, 0,
                           OUT_CLOSED), &err);
    cr_expect_eq(st, 0, "status %d, stderr %s", st, err);
    struct stat sb;
    cr_expect(stat(o, &sb) == 0 && sb.st_size == 128 + 2 * C * 4, "the npy is incomplete");
    free(err), free(o);
}

/* ---- item 15: the small ones ---- */

Test(hostile, inputs_have_a_documented_size_limit)
{
    /* standard input: /dev/zero is read up to the 1 GiB limit, then refused */
    char *err;
    int st = reap(spawn_in((char *[]){"tokenize", "-", NULL}, 0, OUT_NULL, "/dev/zero", 0), &err);
    cr_expect_eq(st, 1, "status %d, stderr %s", st, err);
    cr_expect(strstr(err, "1 GiB") != NULL || strstr(err, "File too large") != NULL, "%s", err);
    free(err);
    /* a file over the limit is refused by its size, before reading */
    char *big = path_join(dir, "big.txt");
    int fd = open(big, O_WRONLY | O_CREAT, 0644);
    cr_assert(fd >= 0 && ftruncate(fd, (1LL << 30) + 1) == 0);
    close(fd);
    expect_refused_quickly((char *[]){"tokenize", "-f", big, NULL}, "over the input limit of 1073741824",
                           "1 GiB + 1 file, a table (read whole)");
    /* streamed (any size), a text must have a place to cut within 64 MiB: zeros have none */
    expect_refused_quickly((char *[]){"count", "-f", big, NULL}, "more than 64 MiB without a place to cut",
                           "1 GiB + 1 file of zeros, counted as a stream");
    expect_refused_quickly((char *[]){"-f", "", "--weights", wpath, NULL}, "empty", "-f ''");
    unlink(big);
    free(big);
}

Test(hostile, a_full_checkpoint_opens_in_little_address_space)
{
#if defined(__SANITIZE_ADDRESS__)
    cr_skip_test("AddressSanitizer reserves terabytes of address space: no ulimit -v run is possible");
#endif
    /* openai-community/gpt2's layout and size (548 MB, sparse on disk): only its 157 MB of
     * wte + wpe need mapping. The limit is the issue's `ulimit -v 200000` (200000 KB),
     * below the whole file (which the loader used to map); the program itself takes some
     * 10 MB besides the tensors now that LAPACK/OpenBLAS are loaded only by pca
     * (lapack_dl.h): when they were linked, ~214000 KB was the least that worked. */
    fixture_opts o;
    fixture_gpt2(&o, ST_F32, NULL);
    char *g = path_join(dir, "gpt2.safetensors");
    char e[256];
    cr_assert_eq(fixture_write(g, &o, e, sizeof e), 0, "%s", e);
    char *err;
    int st = reap(spawn_in((char *[]){"--ids", "0 1 50256", "--weights", g, "--format", "csv", NULL}, 0, OUT_NULL, NULL,
                           200000 * 1024ULL), &err);
    cr_expect_eq(st, 0, "status %d: %s", st, err);
    free(err);
    st = reap(spawn_in((char *[]){"nearest", "--id", "1", "--weights", g, NULL}, 0, OUT_NULL, NULL, 200000 * 1024ULL),
              &err);
    cr_expect_eq(st, 0, "nearest: status %d: %s", st, err);
    free(err);
    unlink(g);
    free(g);
}

Test(hostile, a_huge_sinusoidal_window_is_refused_not_padded)
{
    char *o = path_join(dir, "w.npy");
    expect_refused_quickly((char *[]){"--window", "9007199254740991", "--pe", "sinusoidal", "--ids", "1 2", "--weights",
                                      wpath, "--format", "npy", "-o", o, NULL},
                           "rows of zero padding", "--window 2^53-1");
    struct stat sb;
    cr_expect(stat(o, &sb) != 0, "an output was written");
    cr_expect_eq(hidden_entries(dir), 0);
    free(o);
}

Test(hostile, small_messages_say_what_is_true)
{
    /* the sinusoidal limit is not wpe's */
    run_result r = g2e((char *[]){"--pe", "sinusoidal", "--start-pos", "9007199254740992", "--weights", wpath, "hi", NULL});
    cr_expect_eq(r.status, 1, "%s", r.err);
    expect_one_line(&r, "sinusoidal encoding is exact only for positions 0..9007199254740991");
    cr_expect(strstr(r.err, "wpe") == NULL, "%s", r.err);
    run_free(&r);
    /* similarity has no --id option: it must not suggest one */
    r = g2e((char *[]){"similarity", "--tokens", "cat dog", " cat", "--weights", wpath, NULL});
    cr_expect_neq(r.status, 0);
    expect_one_line(&r, "is 2 tokens, not one");
    cr_expect(strstr(r.err, "--id") == NULL, "%s", r.err);
    run_free(&r);
    /* decode names the NUL (or ESC) it stopped at, escaped, not the ID before it */
    char *argv[] = {G2E_TEST_BIN, "decode", NULL};
    r = run_argv(argv, "15496\0 995", 10, NULL, NULL);
    cr_expect_neq(r.status, 0, "%s", r.err);
    expect_one_line(&r, "\\x00");
    run_free(&r);
    r = run_argv(argv, "15496\033[2J", 9, NULL, NULL);
    cr_expect_neq(r.status, 0);
    expect_one_line(&r, "\\x1B[2J");
    cr_expect(strchr(r.err, '\033') == NULL, "a raw ESC reached the terminal");
    run_free(&r);
}

/* ---- item 11 (outside the downloader): quoted outside data never drives the terminal ---- */

Test(hostile, messages_escape_control_bytes_in_names)
{
    const char *evil = "x\033]0;pwned\007\033[2J\342\200\256y";   /* OSC title, clear screen, RLO */
    char *p = path_join(dir, evil), *o = path_join("/nonexistent-dir", evil);
    char *const *cmds[] = {
        (char *[]){"-f", p, "--weights", wpath, NULL},
        (char *[]){"hi", "--weights", p, NULL},
        (char *[]){"hi", "--weights", wpath, "--format", "npy", "-o", o, NULL},
        (char *[]){"inspect", p, NULL},
        (char *[]){"nearest", "--vector", p, "--weights", wpath, NULL},
        (char *[]){"hi", "--weights", wpath, "--tokenizer", p, NULL},
    };
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
        run_result r = g2e(cmds[k]);
        cr_expect_neq(r.status, 0, "case %zu", k);
        cr_expect(strchr(r.err, '\033') == NULL && strchr(r.err, '\007') == NULL, "case %zu: raw control in '%s'", k,
                  r.err);
        cr_expect(strstr(r.err, "\342\200\256") == NULL, "case %zu: raw bidi override", k);
        /* shown escaped (the program's messages) or with '?' (the loader's, safetensors.h) */
        cr_expect(strstr(r.err, "\\x1B]0;pwned\\x07") != NULL || strstr(r.err, "x?]0;pwned?") != NULL,
                  "case %zu: the name is not shown: %s", k, r.err);
        expect_one_line(&r, NULL);
        run_free(&r);
    }
    free(p), free(o);
}

/* The text of /proc/PID/what (the caller frees it), or NULL. */
static char *proc_text(pid_t pid, const char *what)
{
    char p[64];
    snprintf(p, sizeof p, "/proc/%d/%s", (int)pid, what);
    size_t n;
    return read_file(p, &n);
}

/* 1 when /proc/PID/maps lists a mapping of a file whose path ends in name. */
static int maps_file(pid_t pid, const char *name)
{
    char *s = proc_text(pid, "maps");
    int found = s && strstr(s, name) != NULL;
    free(s);
    return found;
}

Test(hostile, text_file_truncated_while_tokenized_is_one_line)
{
    /* 256 MB and 2 bytes of " a": over TEXTIN_HUGE_MAX, so mapped, not read (and busy for seconds) */
    char *txt = long_text("mapped.txt", (128u << 20) + 1);
    child c = spawn((char *[]){"tokenize", "--format", "ids", "-f", txt, NULL});
    int seen = 0;
    for (int i = 0; i < 20000 && !seen; i++) {
        seen = maps_file(c.pid, "mapped.txt");
        if (!seen)
            usleep(100);
    }
    cr_assert(seen, "the text was never mapped");
    kill(c.pid, SIGSTOP);
    cr_assert(truncate(txt, 0) == 0);
    kill(c.pid, SIGCONT);
    char *err;
    int st = reap(c, &err);
    /* stopped within 100 us of mapping 256 MB, it is truncated long before it could finish:
     * one line, status 1 */
    cr_expect_eq(st, 1, "status %d (0: finished before the truncation; 135 = SIGBUS), stderr: %s", st, err);
    cr_expect(strstr(err, "text file changed size while in use") != NULL, "stderr: %s", err);
    cr_expect(strchr(err, '\n') == err + strlen(err) - 1, "one line: %s", err);
    unlink(txt);
    free(err), free(txt);
}

/* Bytes the process pid has read (/proc/PID/io's rchar), 0 if unknown. */
static unsigned long long bytes_read(pid_t pid)
{
    char *s = proc_text(pid, "io");
    const char *r = s ? strstr(s, "rchar:") : NULL;
    unsigned long long v = r ? strtoull(r + 6, NULL, 10) : 0;
    free(s);
    return v;
}

/* A text of 64 KB to 256 MB is read, not mapped: truncated once read, it is still
 * tokenized whole, exactly. */
Test(hostile, text_file_truncated_after_it_was_read_is_tokenized_whole)
{
    size_t pairs = 16u << 20; /* 32 MB of " a": 16 Mi tokens " a" (257), a good part of a second */
    char *txt = long_text("read.txt", pairs), *out = path_join(dir, "read.ids");
    child c = spawn((char *[]){"tokenize", "--format", "ids", "-f", txt, "-o", out, NULL});
    int done = 0, zombie = 0; /* read all of it, or ended */
    for (int i = 0; i < 100000 && !done; i++) {
        char *st = proc_text(c.pid, "stat");
        const char *r = st ? strrchr(st, ')') : NULL;
        zombie = r && r[1] == ' ' && r[2] == 'Z';
        done = zombie || bytes_read(c.pid) >= 2 * pairs;
        free(st);
        if (!done)
            usleep(100);
    }
    cr_assert(done && !zombie, "the text was %s", zombie ? "not read (mapped?) or tokenized too soon" : "never read");
    kill(c.pid, SIGSTOP);
    cr_assert(truncate(txt, 0) == 0);
    kill(c.pid, SIGCONT);
    char *err;
    int st = reap(c, &err);
    cr_expect_eq(st, 0, "status %d, stderr: %s", st, err);
    free(err);
    size_t n;
    char *s = read_file(out, &n);
    cr_assert(s != NULL);
    size_t ids = 0, bad = 0;
    for (char *p = s, *e; *p && *p != '\n'; p = *e == ' ' ? e + 1 : e, ids++) {
        bad += strtoul(p, &e, 10) != 257;
        if (e == p)
            break;
    }
    cr_expect(ids == pairs && bad == 0, "%zu IDs (%zu not 257), want %zu", ids, bad, pairs);
    unlink(txt), unlink(out);
    free(s), free(out), free(txt);
}

/* ---- issue 26: the Hugging Face cache, HOME and --revision ---- */

/* A cache under root/hub holding the fixture for openai-community/gpt2 at commit c0ffee;
 * refs/main is a FIFO when fifo_ref, else names that commit. Returns the hub folder. */
static char *fake_cache(const char *root, int fifo_ref)
{
    char *hub = path_join(root, "hub");
    char p[4096];
    snprintf(p, sizeof p, "mkdir -p '%s/models--openai-community--gpt2/refs' "
             "'%s/models--openai-community--gpt2/snapshots/c0ffee'", hub, hub);
    cr_assert(system(p) == 0);
    snprintf(p, sizeof p, "%s/models--openai-community--gpt2/refs/main", hub);
    if (fifo_ref)
        cr_assert(mkfifo(p, 0644) == 0);
    else
        write_file(p, "c0ffee", 6);
    snprintf(p, sizeof p, "%s/models--openai-community--gpt2/snapshots/c0ffee/model.safetensors", hub);
    copy_file(wpath, p);
    return hub;
}

Test(hostile, a_fifo_ref_in_the_cache_returns_at_once)
{
    char *root = path_join(dir, "fiforoot"), *cwd = path_join(dir, "fifocwd");
    cr_assert(mkdir(root, 0755) == 0 && mkdir(cwd, 0755) == 0);
    char *hub = fake_cache(root, 1), env_hub[4200];
    snprintf(env_hub, sizeof env_hub, "HF_HUB_CACHE=%s", hub);
    char *env[] = {env_hub, "-GPT2_EMBED_WEIGHTS", "-HF_HOME", "-HUGGINGFACE_HUB_CACHE", NULL};
    char *argv[] = {G2E_TEST_BIN, "hi", NULL};
    time_t t0 = time(NULL);
    run_result r = run_argv(argv, NULL, 0, env, cwd);
    cr_expect(time(NULL) - t0 < 10, "took %ld s (the FIFO was waited on)", (long)(time(NULL) - t0));
    cr_expect_eq(r.status, 1, "status %d: %s", r.status, r.err);
    cr_expect(strstr(r.err, "no weights") != NULL, "%s", r.err);
    run_free(&r);
    free(root), free(cwd), free(hub);
}

Test(hostile, no_home_means_no_cache_not_one_under_the_working_directory)
{
    /* ./.cache/huggingface/hub under the working directory holds usable weights: never used */
    char *cwd = path_join(dir, "homeless"), *dotcache = path_join(cwd, ".cache"), *hf = path_join(dotcache, "huggingface");
    cr_assert(mkdir(cwd, 0755) == 0 && mkdir(dotcache, 0755) == 0 && mkdir(hf, 0755) == 0);
    char *hub = fake_cache(hf, 0);
    char *unset[] = {"-HOME", "-GPT2_EMBED_WEIGHTS", "-HF_HOME", "-HF_HUB_CACHE", "-HUGGINGFACE_HUB_CACHE",
                     "-XDG_CACHE_HOME", NULL};
    char *empty[] = {"HOME=", "-GPT2_EMBED_WEIGHTS", "-HF_HOME", "-HF_HUB_CACHE", "-HUGGINGFACE_HUB_CACHE",
                     "-XDG_CACHE_HOME", NULL};
    char **envs[2] = {unset, empty};
    char *argv[] = {G2E_TEST_BIN, "hi", "--format", "json", NULL};
    for (int k = 0; k < 2; k++) {
        run_result r = run_argv(argv, NULL, 0, envs[k], cwd);
        cr_expect_eq(r.status, 1, "%s: status %d, stdout %.80s", k ? "HOME=''" : "no HOME", r.status, r.out);
        cr_expect(strstr(r.err, "$HOME is unset or empty") != NULL, "%s", r.err);
        expect_one_line(&r, NULL);
        run_free(&r);
    }
    /* HF_HOME given: the cache is used although HOME is not set */
    char env_hf[4200];
    snprintf(env_hf, sizeof env_hf, "HF_HOME=%s", hf);
    char *withhf[] = {"-HOME", env_hf, "-GPT2_EMBED_WEIGHTS", "-HF_HUB_CACHE", "-HUGGINGFACE_HUB_CACHE", NULL};
    run_result r = run_argv(argv, NULL, 0, withhf, cwd);
    cr_expect_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    free(cwd), free(dotcache), free(hf), free(hub);
}

Test(hostile, an_empty_revision_is_refused_not_taken_as_main)
{
    char *root = path_join(dir, "revroot"), *cwd = path_join(dir, "revcwd");
    cr_assert(mkdir(root, 0755) == 0 && mkdir(cwd, 0755) == 0);
    char *hub = fake_cache(root, 0), env_hub[4200];
    snprintf(env_hub, sizeof env_hub, "HF_HUB_CACHE=%s", hub);
    char *env[] = {env_hub, "-GPT2_EMBED_WEIGHTS", "-HF_HOME", "-HUGGINGFACE_HUB_CACHE", NULL};
    char *ok[] = {G2E_TEST_BIN, "hi", "--revision", "main", NULL};
    run_result r = run_argv(ok, NULL, 0, env, cwd);
    cr_expect_eq(r.status, 0, "the cache itself works: %s", r.err);
    run_free(&r);
    char *bad[] = {G2E_TEST_BIN, "hi", "--revision", "", NULL};
    r = run_argv(bad, NULL, 0, env, cwd);
    cr_expect_eq(r.status, 1, "status %d", r.status);
    cr_expect(strstr(r.err, "revision is empty") != NULL, "%s", r.err);
    expect_one_line(&r, NULL);
    run_free(&r);
    free(root), free(cwd), free(hub);
}

/* ---- issue 26: a --model whose shapes are not the file's ---- */

Test(hostile, a_named_model_that_is_not_the_file_is_reported)
{
    char *cwd = path_join(dir, "mm"), *wd = path_join(cwd, "weights"), *xl = path_join(wd, "gpt2-xl.safetensors");
    cr_assert(mkdir(cwd, 0755) == 0 && mkdir(wd, 0755) == 0);
    copy_file(wpath, xl);
    char envw[4200];
    snprintf(envw, sizeof envw, "GPT2_EMBED_WEIGHTS=%s", wpath);
    char *noenv[] = {"-GPT2_EMBED_WEIGHTS", "HF_HUB_OFFLINE=1", NULL};
    char *withenv[] = {envw, NULL};
    /* the name found the file (weights/gpt2-xl.safetensors): an error naming both shapes,
     * nothing on stdout */
    char *a1[] = {G2E_TEST_BIN, "hi", "--model", "gpt2-xl", "--format", "json", NULL};
    run_result r = run_argv(a1, NULL, 0, noenv, cwd);
    cr_expect_eq(r.status, 1, "status %d: %s", r.status, r.err);
    cr_expect(strstr(r.err, "not the 50257 x 1600 with 1024 of --model gpt2-xl") != NULL, "%s", r.err);
    cr_expect_eq(r.out_len, 0, "%s", r.out);
    expect_one_line(&r, NULL);
    run_free(&r);
    /* the user named the file too (--weights, or the environment): their file is used, with
     * one note that names both */
    char *a2[] = {G2E_TEST_BIN, "hi", "--model", "gpt2-xl", "--weights", wpath, "--format", "json", NULL};
    char **args[2] = {a2, a1};
    char **envs[2] = {noenv, withenv};
    for (int k = 0; k < 2; k++) {
        r = run_argv(args[k], NULL, 0, envs[k], cwd);
        cr_expect_eq(r.status, 0, "case %d: %s", k, r.err);
        cr_expect(strstr(r.err, "note: --model gpt2-xl is not used: the weights come from ") != NULL &&
                      strstr(r.err, "not the 50257 x 1600 with 1024 of --model gpt2-xl") != NULL &&
                      strstr(r.err, wpath) != NULL, "case %d: %s", k, r.err);
        expect_one_line(&r, NULL);
        run_free(&r);
    }
    /* the name that matches, and no name at all: silent */
    char *a3[] = {G2E_TEST_BIN, "hi", "--format", "json", NULL};
    r = run_argv(a3, NULL, 0, withenv, cwd);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(r.err_len, 0, "%s", r.err);
    run_free(&r);
    free(cwd), free(wd), free(xl);
}

/* ---- issue 26: ulimit -v — OpenBLAS spun for ever, GLib aborted ---- */

/* args under an address-space limit of as bytes, killed after 30 s: its status (-1: hung). */
static int run_limited_deadline(char *const args[], rlim_t as, char **err)
{
    child c = spawn_in(args, 0, OUT_NULL, NULL, as);
    for (int i = 0; i < 3000; i++) {
        siginfo_t si;
        memset(&si, 0, sizeof si);   /* ended (still waitable): reap reads its stderr */
        if (waitid(P_PID, (id_t)c.pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == c.pid)
            return reap(c, err);
        usleep(10000);
    }
    kill(c.pid, SIGKILL);
    reap(c, err);
    return -1;
}

Test(hostile, pca_and_report_under_a_memory_limit_end_with_one_line, .timeout = 120)
{
#if defined(__SANITIZE_ADDRESS__)
    cr_skip_test("AddressSanitizer reserves terabytes of address space: no ulimit -v run is possible");
#endif
    fixture_opts o;   /* GPT-2's shapes (sparse on disk): 157 MB of wte + wpe mapped */
    fixture_gpt2(&o, ST_F32, NULL);
    char *g = path_join(dir, "gpt2-mem.safetensors"), *rep = path_join(dir, "memrep"), e[256];
    cr_assert_eq(fixture_write(g, &o, e, sizeof e), 0, "%s", e);
    char *cmds[][8] = {{"pca", "--weights", g, NULL}, {"report", "-o", rep, "--weights", g, NULL}};
    for (int k = 0; k < 2; k++) {
        char *err;
        int st = run_limited_deadline(cmds[k], 300000 * 1024ULL, &err);
        cr_expect_neq(st, -1, "%s: hung under ulimit -v 300000", cmds[k][0]);
        cr_expect(st == 0 || st == 1, "%s: status %d: %s", cmds[k][0], st, err);
        if (st == 1) {
            cr_expect(strstr(err, "not enough memory") && strstr(err, "limit 292 MB"), "%s: %s", cmds[k][0], err);
            cr_expect(strchr(err, '\n') == err + strlen(err) - 1, "%s: not one line: %s", cmds[k][0], err);
        }
        free(err);
    }
    cr_expect(access(rep, F_OK) != 0, "a report written without its parts");
    unlink(g);
    free(g), free(rep);
}

/* ---- issue 26: no raw control from outside data reaches a person ---- */

/* The first raw terminal control in s[0..n): C0 (but newline and tab), DEL, C1, a bidi
 * control or a line/paragraph separator; NULL when none. */
static const char *raw_control(const char *s, size_t n)
{
    static const char *const SEQ[] = {"\302\233", "\302\205", "\342\200\256", "\342\200\255", "\342\200\250",
                                      "\342\200\251", "\342\201\246", "\342\201\247", "\342\201\251"};
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F)
            return s + i;
        for (size_t k = 0; k < sizeof SEQ / sizeof SEQ[0]; k++)
            if (n - i >= strlen(SEQ[k]) && !memcmp(s + i, SEQ[k], strlen(SEQ[k])))
                return s + i;
    }
    return NULL;
}

static void expect_no_raw_control(char *const args[], char *const env[], const char *what)
{
    char *argv[64];
    bin_argv(argv, args);
    run_result r = run_argv(argv, NULL, 0, env, NULL);
    cr_expect_eq(r.status, 0, "%s: status %d: %s", what, r.status, r.err);
    const char *o = raw_control(r.out, r.out_len), *e = raw_control(r.err, r.err_len);
    cr_expect(!o, "%s: a raw control on stdout at byte %zu: %.60s", what, o ? (size_t)(o - r.out) : 0, o ? o : "");
    cr_expect(!e, "%s: a raw control on stderr: %s", what, r.err);
    run_free(&r);
}

Test(hostile, no_raw_control_from_outside_reaches_a_person, .timeout = 120)
{
    /* a weights file whose metadata and a tensor name carry RLO, LS, ESC */
    static const char hdr[] = "{\"__metadata__\":{\"note\":\"a\\u202eb\\u2028c\\u001b[2Jd\"},"
                              "\"x\\u202ey\\u2066z\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}";
    char *st = path_join(dir, "ctl.safetensors");
    size_t hl = sizeof hdr - 1;
    char *buf = calloc(1, 8 + hl + 4);
    for (int i = 0; i < 8; i++)
        buf[i] = (char)((uint64_t)hl >> (8 * i));
    memcpy(buf + 8, hdr, hl);
    write_file(st, buf, 8 + hl + 4);
    free(buf);
    expect_no_raw_control((char *[]){"inspect", st, NULL}, NULL, "inspect");
    /* a text over 1024 tokens with RLO, LS, LRI and a C1 CSI at the cut, in a file whose name has RLO */
    char *ctl = path_join(dir, "c\342\200\256l.txt");
    size_t cap = 20000, n = 0;
    char *t = malloc(cap);
    for (int i = 0; i < 1022; i++)
        n += (size_t)snprintf(t + n, cap - n, "word ");
    n += (size_t)snprintf(t + n, cap - n, "x\342\200\256y\342\200\250z\342\201\246w\302\233v ");
    for (int i = 0; i < 50; i++)
        n += (size_t)snprintf(t + n, cap - n, "more ");
    write_file(ctl, t, n);
    free(t);
    expect_no_raw_control((char *[]){"count", "-f", ctl, NULL}, NULL, "count -f (context line, input column)");
    expect_no_raw_control((char *[]){"count", "-f", ctl, "--per-char", NULL}, NULL, "count --per-char");
    /* partial byte tokens: the character behind them, in the tables and CSV's display column */
    char *rlo = "a\342\200\256b\302\233c";
    expect_no_raw_control((char *[]){"tokenize", rlo, NULL}, NULL, "tokenize table");
    expect_no_raw_control((char *[]){rlo, "--weights", wpath, NULL}, NULL, "embed table");
    expect_no_raw_control((char *[]){rlo, "--weights", wpath, "--format", "csv", NULL}, NULL, "embed csv");
    expect_no_raw_control((char *[]){"compare", rlo, "\033[2J", "--weights", wpath, NULL}, NULL, "compare");
    /* the weights' own name in the summaries */
    char *wl = path_join(dir, "w\342\200\256\342\200\250.safetensors");
    copy_file(wpath, wl);
    expect_no_raw_control((char *[]){"hi", "--weights", wl, NULL}, NULL, "embed summary");
    expect_no_raw_control((char *[]){"stats", "--weights", wl, NULL}, NULL, "stats");
    expect_no_raw_control((char *[]){"pca", "--weights", wl, NULL}, NULL, "pca");
    expect_no_raw_control((char *[]){"similarity", "--by-distance", "--weights", wl, NULL}, NULL, "similarity");
    /* JSON stays exact: the text's own characters, escaped the JSON way */
    char *argv[] = {G2E_TEST_BIN, "tokenize", "--format", "json", rlo, NULL};
    run_result r = run_argv(argv, NULL, 0, NULL, NULL);
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "\342\200\256") || strstr(r.out, "\\u202e") || strstr(r.out, "\\u202E"), "%s", r.out);
    run_free(&r);
    free(st), free(ctl), free(wl);
}

Test(hostile, decode_escapes_controls_on_a_terminal_unless_raw)
{
    /* 215 60 15 26 79 675 276 195: ESC ] 0 ; pwned BEL */
    static const char want[] = "\033]0;pwned\007";
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' decode 215 60 15 26 79 675 276 195", G2E_TEST_BIN);
    char *pipe_argv[] = {"/bin/sh", "-c", cmd, NULL};
    run_result r = run_argv(pipe_argv, NULL, 0, NULL, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(r.out_len == sizeof want - 1 && !memcmp(r.out, want, r.out_len), "to a pipe: the exact bytes");
    run_free(&r);
    /* util-linux script(1) gives the command a pseudo-terminal */
    char *tty_argv[] = {"/usr/bin/script", "-qec", cmd, "/dev/null", NULL};
    r = run_argv(tty_argv, NULL, 0, NULL, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "\\x1B]0;pwned\\x07") != NULL, "on a terminal: escaped: %s", r.out);
    cr_expect(!memchr(r.out, '\033', r.out_len) && !memchr(r.out, '\007', r.out_len), "a raw control on the terminal");
    run_free(&r);
    snprintf(cmd, sizeof cmd, "'%s' decode --raw 215 60 15 26 79 675 276 195", G2E_TEST_BIN);
    r = run_argv(tty_argv, NULL, 0, NULL, NULL);
    cr_expect(strstr(r.out, want) != NULL, "--raw: the exact bytes on the terminal too");
    run_free(&r);
}
