/* SPDX-License-Identifier: MIT */
/* test_out.c — output destinations (atomic -o, devices, FIFOs, terminals, failures) and
 * the formatting helpers shared by the formats. Failures that need another user or a
 * resource limit run in a forked child so the test process itself is unaffected. */
#define _XOPEN_SOURCE 600   /* posix_openpt, grantpt, unlockpt, ptsname */
#include "out.h"
#include "support.h"

#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Number of entries in dir besides . and .. */
static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert(d != NULL);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

static void expect_content(const char *path, const char *want)
{
    size_t n;
    char *s = read_file(path, &n);
    cr_assert(s != NULL, "%s missing", path);
    cr_expect(n == strlen(want) && memcmp(s, want, n) == 0, "%s holds '%s', want '%s'", path, s, want);
    free(s);
}

/* stderr of the test process into a file while f runs (to check the messages). */
static char *capture_stderr_begin(const char *dir, int *saved)
{
    char *p = path_join(dir, "..stderr");
    fflush(stderr);
    *saved = dup(2);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 2);
    close(fd);
    return p;
}

static char *capture_stderr_end(char *p, int saved)
{
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    size_t n;
    char *s = read_file(p, &n);
    unlink(p);
    free(p);
    return s;
}

Test(out, new_file_is_created_atomically)
{
    umask(022);
    char *dir = test_tmpdir("out-new");
    char *p = path_join(dir, "a.txt");
    out_file o;
    cr_assert_eq(out_open(&o, p, 0), 0);
    cr_expect_eq(o.direct, 0);
    fputs("hello\n", o.f);
    struct stat st;
    cr_expect(stat(p, &st) != 0, "the target must not exist before the commit");
    cr_expect_eq(count_entries(dir), 1, "one temporary beside it");
    cr_assert_eq(out_commit(&o), 0);
    expect_content(p, "hello\n");
    cr_assert_eq(stat(p, &st), 0);
    cr_expect_eq(st.st_mode & 07777, 0644, "mode %o: 0666 & ~umask", st.st_mode & 07777);
    cr_expect_eq(count_entries(dir), 1, "no temporary left");
    out_abort(&o);   /* harmless after a commit */
    free(p), free(dir);
}

Test(out, replacing_keeps_mode_and_abort_keeps_old_content)
{
    char *dir = test_tmpdir("out-replace");
    char *p = path_join(dir, "a.txt");
    write_file(p, "old\n", 4);
    chmod(p, 0600);
    out_file o;
    cr_assert_eq(out_open(&o, p, 0), 0);
    fputs("partial new cont", o.f);
    out_abort(&o);
    expect_content(p, "old\n");
    cr_expect_eq(count_entries(dir), 1);
    cr_assert_eq(out_open(&o, p, 0), 0);
    fputs("new\n", o.f);
    cr_assert_eq(out_commit(&o), 0);
    expect_content(p, "new\n");
    struct stat st;
    stat(p, &st);
    cr_expect_eq(st.st_mode & 07777, 0600, "the replaced file's mode is kept");
    cr_expect_eq(count_entries(dir), 1);
    free(p), free(dir);
}

Test(out, symlink_target_is_replaced_link_kept)
{
    char *dir = test_tmpdir("out-link");
    char *t = path_join(dir, "target.txt"), *l = path_join(dir, "link.txt");
    write_file(t, "old", 3);
    cr_assert_eq(symlink("target.txt", l), 0);
    out_file o;
    cr_assert_eq(out_open(&o, l, 0), 0);
    fputs("new", o.f);
    cr_assert_eq(out_commit(&o), 0);
    struct stat st;
    cr_assert_eq(lstat(l, &st), 0);
    cr_expect(S_ISLNK(st.st_mode), "the link is still a link");
    expect_content(t, "new");
    cr_expect_eq(count_entries(dir), 2);
    free(t), free(l), free(dir);
}

Test(out, dev_null_is_written_in_place)
{
    out_file o;
    cr_assert_eq(out_open(&o, "/dev/null", 1), 0);
    cr_expect_eq(o.direct, 1);
    cr_expect(o.tmp == NULL);
    fputs("discarded", o.f);
    cr_assert_eq(out_commit(&o), 0);
    struct stat st;
    cr_assert_eq(stat("/dev/null", &st), 0);
    cr_expect(S_ISCHR(st.st_mode), "/dev/null is still a character device");
}

Test(out, fifo_is_written_in_place)
{
    char *dir = test_tmpdir("out-fifo");
    char *p = path_join(dir, "pipe");
    cr_assert_eq(mkfifo(p, 0644), 0);
    int rfd = open(p, O_RDONLY | O_NONBLOCK);
    cr_assert(rfd >= 0);
    out_file o;
    cr_assert_eq(out_open(&o, p, 1), 0);
    fputs("through the pipe", o.f);
    cr_assert_eq(out_commit(&o), 0);
    char buf[64] = {0};
    ssize_t n = read(rfd, buf, sizeof buf - 1);
    cr_expect_eq(n, 16);
    cr_expect_str_eq(buf, "through the pipe");
    close(rfd);
    struct stat st;
    cr_assert_eq(stat(p, &st), 0);
    cr_expect(S_ISFIFO(st.st_mode), "still a FIFO, not replaced by a file");
    cr_expect_eq(count_entries(dir), 1);
    free(p), free(dir);
}

Test(out, stdout_when_no_path)
{
    out_file o;
    cr_assert_eq(out_open(&o, NULL, 0), 0);
    cr_expect(o.f == stdout && o.direct);
    cr_assert_eq(out_commit(&o), 0);
    cr_assert_eq(out_open(&o, "-", 0), 0);
    cr_expect(o.f == stdout);
    out_abort(&o);
}

Test(out, errors_name_the_problem_and_create_nothing)
{
    char *dir = test_tmpdir("out-err");
    int saved;
    char *cap = capture_stderr_begin(dir, &saved);
    out_file o;
    char *missing = path_join(dir, "no/such/dir/x.npy");
    int r1 = out_open(&o, missing, 1);
    int r2 = out_open(&o, dir, 0);                 /* a directory */
    int r3 = out_open(&o, "", 0);
    int r4 = out_open(&o, "/proc/gpt2-embed-test.npy", 1);   /* no files can be made there */
    char *msg = capture_stderr_end(cap, saved);
    cr_expect_eq(r1, -1);
    cr_expect_eq(r2, -1);
    cr_expect_eq(r3, -1);
    cr_expect_eq(r4, -1);
    cr_expect(strstr(msg, "does not exist") != NULL, "%s", msg);
    cr_expect(strstr(msg, "is a directory") != NULL, "%s", msg);
    cr_expect(strstr(msg, "cannot create a file in directory '/proc'") != NULL, "%s", msg);
    /* one line per failure */
    int lines = 0;
    for (char *s = msg; *s; s++)
        lines += *s == '\n';
    cr_expect_eq(lines, 4, "%s", msg);
    cr_expect_eq(count_entries(dir), 0);
    free(msg), free(missing), free(dir);
}

Test(out, registered_input_is_never_replaced)
{
    char *dir = test_tmpdir("out-input");
    char *in = path_join(dir, "w.st"), *hard = path_join(dir, "hard.st"), *other = path_join(dir, "o.st");
    write_file(in, "weights", 7);
    cr_assert(link(in, hard) == 0);
    cr_assert_eq(out_add_input("weights", in, -1), 0);
    int saved;
    char *cap = capture_stderr_begin(dir, &saved);
    out_file o;
    int r1 = out_open(&o, in, 1);
    int r2 = out_open(&o, hard, 0);
    char *msg = capture_stderr_end(cap, saved);
    cr_expect_eq(r1, -1);
    cr_expect_eq(r2, -1);
    cr_expect(strstr(msg, "is the same file as the weights being read") != NULL, "%s", msg);
    expect_content(in, "weights");
    cr_expect_eq(count_entries(dir), 2, "nothing created");
    /* another file is fine, and forgetting the inputs lifts the refusal */
    cr_assert_eq(out_open(&o, other, 0), 0);
    out_abort(&o);
    out_clear_inputs();
    cr_assert_eq(out_open(&o, in, 0), 0);
    out_abort(&o);
    free(msg), free(in), free(hard), free(other), free(dir);
}

/* Runs fn in a child; returns its exit status (or 128+signal). */
static int in_child(int (*fn)(const char *), const char *arg)
{
    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0)
        _exit(fn(arg));
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int write_read_only_dir(const char *dir)
{
    /* root ignores directory permissions: become nobody first */
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
        return 10;
    char *p = path_join(dir, "x.npy");
    out_file o;
    int rc = out_open(&o, p, 1);
    return rc == -1 ? 0 : 11;
}

static int two_outputs_then_a_signal(const char *dir)
{
    char *a = path_join(dir, "a.npy"), *b = path_join(dir, "b.npy");
    out_file oa, ob;
    if (out_open(&oa, a, 1) != 0 || out_open(&ob, b, 1) != 0)
        return 10;
    fputs("partial", oa.f);
    fputs("partial", ob.f);
    raise(SIGUSR1);
    return 11;   /* not reached: SIGUSR1 ends the process */
}

Test(out, a_fatal_signal_removes_every_open_temporary)
{
    char *dir = test_tmpdir("out-sig2");
    int st = in_child(two_outputs_then_a_signal, dir);
    cr_expect_eq(st, 128 + SIGUSR1, "status %d", st);
    cr_expect_eq(count_entries(dir), 0, "a temporary was left");
    free(dir);
}

Test(out, read_only_directory_gives_one_line_and_writes_nothing)
{
    char *dir = test_tmpdir("out-ro");
    char *sub = path_join(dir, "ro");
    cr_assert_eq(mkdir(sub, 0555), 0);
    chmod(dir, 0755);
    int saved;
    char *cap = capture_stderr_begin(dir, &saved);
    int st = in_child(write_read_only_dir, sub);
    char *msg = capture_stderr_end(cap, saved);
    cr_expect_eq(st, 0, "child status %d", st);
    cr_expect(strstr(msg, "cannot create a file in directory") != NULL &&
              strstr(msg, "Permission denied") != NULL, "%s", msg);
    cr_expect_eq(count_entries(sub), 0);
    free(msg), free(sub), free(dir);
}

static int write_past_file_size_limit(const char *path)
{
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl = {1000, 1000};
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
        return 10;
    out_file o;
    if (out_open(&o, path, 0) != 0)
        return 11;
    for (int i = 0; i < 10000; i++)
        fputs("0123456789", o.f);
    return out_commit(&o) == -1 ? 0 : 12;
}

Test(out, failed_write_leaves_old_file_and_no_temporary)
{
    char *dir = test_tmpdir("out-fsize");
    char *p = path_join(dir, "big.csv");
    write_file(p, "previous\n", 9);
    int saved;
    char *cap = capture_stderr_begin(dir, &saved);
    int st = in_child(write_past_file_size_limit, p);
    char *msg = capture_stderr_end(cap, saved);
    cr_expect_eq(st, 0, "child status %d", st);
    cr_expect(strstr(msg, "failed") != NULL && strstr(msg, "big.csv") != NULL, "%s", msg);
    expect_content(p, "previous\n");
    cr_expect_eq(count_entries(dir), 1, "the temporary was removed");
    free(msg), free(p), free(dir);
}

static int stdout_full(const char *unused)
{
    (void)unused;
    int fd = open("/dev/full", O_WRONLY);
    if (fd < 0 || dup2(fd, 1) < 0)
        return 10;
    out_file o;
    if (out_open(&o, NULL, 0) != 0)
        return 11;
    for (int i = 0; i < 10000; i++)
        fputs("0123456789", o.f);
    return out_commit(&o) == -1 ? 0 : 12;
}

Test(out, write_error_on_stdout_is_reported)
{
    cr_expect_eq(in_child(stdout_full, NULL), 0);
}

static int open_pty(char **name)
{
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    cr_assert(m >= 0, "posix_openpt: %s", strerror(errno));
    cr_assert(grantpt(m) == 0 && unlockpt(m) == 0);
    *name = strdup(ptsname(m));
    return m;
}

static int binary_to_tty_stdout(const char *slave)
{
    int fd = open(slave, O_RDWR | O_NOCTTY);
    if (fd < 0 || dup2(fd, 1) < 0)
        return 10;
    out_file o;
    if (out_open(&o, NULL, 1) != -1)
        return 11;
    if (out_open(&o, NULL, 0) != 0)   /* text is fine */
        return 12;
    out_abort(&o);
    return 0;
}

Test(out, binary_refuses_a_terminal)
{
    char *slave;
    int m = open_pty(&slave);
    char *dir = test_tmpdir("out-tty");
    int saved;
    char *cap = capture_stderr_begin(dir, &saved);
    out_file o;
    int r1 = out_open(&o, slave, 1);
    int st = in_child(binary_to_tty_stdout, slave);
    char *msg = capture_stderr_end(cap, saved);
    cr_expect_eq(r1, -1, "-o /dev/pts/N with a binary format");
    cr_expect_eq(st, 0, "child status %d", st);
    cr_expect(strstr(msg, "refusing to write binary output to a terminal") != NULL, "%s", msg);
    cr_assert_eq(out_open(&o, slave, 0), 0, "text may go to a terminal");
    cr_expect_eq(o.direct, 1);
    out_abort(&o);
    close(m);
    free(msg), free(slave), free(dir);
}

/* ---- formatting ---- */

static char *format_with(void (*fn)(FILE *, float), float v)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    fn(f, v);
    fclose(f);
    return buf;
}

Test(out, f32_text_round_trips)
{
    uint32_t bits[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x007fffffu, 0x00800000u,
                       0x3dcccccdu, 0x3eaaaaabu, 0x3f800001u, 0x4b800001u, 0x7f7fffffu,
                       0xff7fffffu, 0x33d6bf95u};
    for (size_t k = 0; k < sizeof bits / sizeof bits[0] + 2000; k++) {
        uint32_t b = k < sizeof bits / sizeof bits[0] ? bits[k] : (uint32_t)(k * 2654435761u);
        float v;
        memcpy(&v, &b, 4);
        if (!isfinite(v))
            continue;
        char *s = format_with(out_f32, v);
        float back = strtof(s, NULL);
        uint32_t bb;
        memcpy(&bb, &back, 4);
        cr_expect_eq(bb, b, "%08x printed as '%s' reads back as %08x", b, s, bb);
        free(s);
    }
    char *s = format_with(out_f32, 0.1f);
    cr_expect_str_eq(s, "0.100000001");
    free(s);
}

Test(out, piece_visible)
{
    static const struct { const char *in; size_t n; const char *want; } cases[] = {
        {"", 0, ""},
        {" the", 4, "\xE2\x90\xA3the"},
        {"\n\n", 2, "\xE2\x86\xB5\xE2\x86\xB5"},
        {"\t", 1, "\xE2\x86\x92"},
        {"a\\b", 3, "a\\\\b"},
        {"\\x41", 4, "\\\\x41"},
        {"\x01", 1, "\\x01"},
        {"\r", 1, "\\x0D"},
        {"\x7f", 1, "\\x7F"},
        {"\0z", 2, "\\x00z"},
        {"\xC2\x80", 2, "\\xC2\\x80"},                 /* U+0080, a C1 control */
        {"\xE3\x81", 2, "\\xE3\\x81"},                 /* half of a character (BPE pieces do this) */
        {"\xFF", 1, "\\xFF"},
        {"\xC0\xAF", 2, "\\xC0\\xAF"},                 /* overlong '/' */
        {"\xE7\x8A\xAC", 3, "\xE7\x8A\xAC"},           /* 犬 */
        {" caf\xC3\xA9", 6, "\xE2\x90\xA3" "caf\xC3\xA9"},
        {"\xC2\xA0", 2, "\xC2\xA0"},                   /* no-break space: printable, kept */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *s = out_piece_visible(cases[k].in, cases[k].n);
        cr_assert(s != NULL);
        cr_expect_str_eq(s, cases[k].want, "case %zu", k);
        free(s);
    }
}

Test(out, display_width)
{
    cr_expect_eq(out_display_width(""), 0);
    cr_expect_eq(out_display_width("abc"), 3);
    cr_expect_eq(out_display_width("\xE7\x8A\xAC\xE3\x81\x8C"), 4, "犬が: two wide characters");
    cr_expect_eq(out_display_width("e\xCC\x81"), 1, "e + combining acute");
    cr_expect_eq(out_display_width("\xE2\x90\xA3"), 1, "␣");
    cr_expect_eq(out_display_width("\xFF" "a"), 2, "an invalid byte counts 1");
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    out_pad(f, "\xE7\x8A\xAC", 5);
    out_pad(f, "toolong", 3);
    fclose(f);
    cr_expect_str_eq(buf, "\xE7\x8A\xAC   toolong");
    free(buf);
}

static char *json_of(const char *s, size_t n)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    out_json_string(f, s, n);
    fclose(f);
    return buf;
}

Test(out, json_string)
{
    char *s = json_of("a\"b\\c\n\t\r\b\f\x01\x7f", 12);
    cr_expect_str_eq(s, "\"a\\\"b\\\\c\\n\\t\\r\\b\\f\\u0001\\u007f\"");
    free(s);
    s = json_of("\xE7\x8A\xAC\xE3\x81", 5);
    cr_expect_str_eq(s, "\"\xE7\x8A\xAC\\ufffd\"",
                     "a cut character (one maximal subpart) becomes one U+FFFD, as Python's errors=replace");
    free(s);
    s = json_of("\0", 1);
    cr_expect_str_eq(s, "\"\\u0000\"");
    free(s);
    /* python's json module agrees that the output parses back to the text */
    s = json_of(" the \"dog\"\n\xE7\x8A\xAC", 14);
    char *argv[] = {"/usr/bin/python3", "-c",
                    "import sys, json; v = json.loads(sys.argv[1]); "
                    "assert v == ' the \"dog\"\\n\\u72ac', repr(v)", s, NULL};
    run_result r = run_argv(argv, NULL, 0, NULL, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    free(s);
}

Test(out, csv_field)
{
    static const struct { const char *in, *want; } cases[] = {
        {"plain", "plain"},
        {"", ""},
        {"a,b", "\"a,b\""},
        {"say \"hi\"", "\"say \"\"hi\"\"\""},
        {"line\nbreak", "\"line\nbreak\""},
        {" lead", "\" lead\""},
        {"trail ", "\"trail \""},
        {"\xE7\x8A\xAC", "\xE7\x8A\xAC"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *buf = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&buf, &n);
        out_csv_field(f, cases[k].in, strlen(cases[k].in));
        fclose(f);
        cr_expect_str_eq(buf, cases[k].want, "case %zu", k);
        free(buf);
    }
}

/* ---- out_pick_format: the format from -o's file name ---- */

#include "opt.h"

static const opt_cmd FMT_CMD = {.name = "embed"};
static const char *const EMBED_FMTS[] = {"table", "json", "npy", "csv", "raw", NULL};

typedef struct pick_case {
    const char *path;
    int given, fmt_in;
    int rc, fmt_out;
} pick_case;

static const pick_case PICKS[] = {
    {NULL, 0, 0, 0, 0},           {"-", 0, 0, 0, 0},
    {"a.npy", 0, 0, 0, 2},        {"A.NPY", 0, 0, 0, 2},       {"dir.v1/a.Json", 0, 0, 0, 1},
    {"a.csv", 0, 0, 0, 3},        {"a.raw", 0, 0, 0, 4},       {"a.txt", 0, 2, 0, 0},
    {"a.bin", 0, 0, 0, 0},        {"a", 0, 3, 0, 3},           {"dir.npy/a", 0, 0, 0, 0},
    {".npy", 0, 0, 0, 0},         {"a.npy", 1, 2, 0, 2},       {"a.bin", 1, 1, 0, 1},
    {"a.npy", 1, 1, -1, 1},       {"a.txt", 1, 1, 0, 1},       {"a.txt", 1, 2, -1, 2},
    {"a.png", 0, 0, -1, 0},
    {"a.jsonl", 0, 0, -1, 0},
};

Test(out, pick_format_from_the_extension, .init = cr_redirect_stderr)
{
    for (size_t k = 0; k < sizeof PICKS / sizeof PICKS[0]; k++) {
        int fmt = PICKS[k].fmt_in;
        int rc = out_pick_format(&FMT_CMD, PICKS[k].path, EMBED_FMTS, PICKS[k].given, &fmt);
        cr_expect_eq(rc, PICKS[k].rc, "case %zu (%s)", k, PICKS[k].path);
        cr_expect_eq(fmt, PICKS[k].fmt_out, "case %zu (%s)", k, PICKS[k].path);
    }
    fflush(stderr);
    cr_expect_stderr_eq_str(
        "gpt2-embed embed: -o a.npy means --format npy, but --format json was given (drop --format, or change the file name)\n"
        "gpt2-embed embed: -o a.txt means --format table, but --format npy was given (drop --format, or change the file name)\n"
        "gpt2-embed embed: -o a.png means --format png, which embed does not write here (it writes table, json, npy, csv or raw; choose a file name to match)\n"
        "gpt2-embed embed: -o a.jsonl means --format jsonl, which embed does not write here (it writes table, json, npy, csv or raw; choose a file name to match)\n");
}

Test(out, pick_format_txt_means_the_text_format_a_command_has)
{
    static const char *const TOK[] = {"ids", "json", NULL};
    int fmt = 1;
    cr_expect_eq(out_pick_format(&FMT_CMD, "x.TXT", TOK, 0, &fmt), 0);
    cr_expect_eq(fmt, 0);
}
