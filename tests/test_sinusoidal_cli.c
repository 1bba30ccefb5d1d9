/* SPDX-License-Identifier: MIT */
/* test_sinusoidal_cli.c — `gpt2-embed sinusoidal` and `gpt2-embed plot` through the built
 * program: every format read back (npy by numpy), values against the formula computed
 * here, figures decoded, and the errors a user can make. */
#define _XOPEN_SOURCE 600   /* posix_openpt, grantpt, unlockpt, ptsname */
#include "support.h"

#include <cairo/cairo.h>
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static double pe_ref(double pos, int j, int dim, double base)
{
    double w = exp(-(double)(j / 2 * 2) * log(base) / dim);   /* written unlike the library */
    return j % 2 ? cos(pos * w) : sin(pos * w);
}

static int lines_of(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

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

Test(sinusoidal_cli, help)
{
    run_result r = run_g2e("sinusoidal", "--help", NULL);
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "usage: gpt2-embed sinusoidal") != NULL, "%s", r.out);
    cr_expect(strstr(r.out, "--check-rotation") != NULL);
    run_free(&r);
    r = run_g2e("plot", "--help", NULL);
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "pe ") != NULL && strstr(r.out, "dot-curve") != NULL, "%s", r.out);
    run_free(&r);
    r = run_g2e("--help", NULL);
    cr_expect(strstr(r.out, "sinusoidal") != NULL && strstr(r.out, "plot") != NULL,
              "both commands are listed: %s", r.out);
    run_free(&r);
}

Test(sinusoidal_cli, csv_values_are_float32_of_the_formula)
{
    run_result r = run_g2e("sinusoidal", "--len", "9", "--dim", "6", "--base", "100",
                           "--format", "csv", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(lines_of(r.out), 10);
    cr_expect(strncmp(r.out, "pos,d0,d1,d2,d3,d4,d5\n", 22) == 0, "%s", r.out);
    char *p = strchr(r.out, '\n') + 1;
    for (int pos = 0; pos < 9; pos++) {
        char *end;
        cr_expect_eq(strtol(p, &end, 10), pos);
        p = end;
        for (int j = 0; j < 6; j++) {
            cr_assert_eq(*p, ',');
            float v = strtof(p + 1, &end);
            p = end;
            float want = (float)pe_ref(pos, j, 6, 100.0);
            /* the library's angle is computed another way: allow one float32 step */
            cr_expect(fabsf(v - want) <= 6e-8f, "pos %d dim %d: %.9g vs %.9g", pos, j, v, want);
        }
        cr_assert_eq(*p, '\n');
        p++;
    }
    run_free(&r);
}

Test(sinusoidal_cli, table_format)
{
    run_result r = run_g2e("sinusoidal", "--len", "3", "--dim", "4", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(lines_of(r.out), 4, "a header and 3 rows: %s", r.out);
    cr_expect(strstr(r.out, "pos") != NULL && strstr(r.out, "d3") != NULL);
    /* row 0: 0 1 0 1 */
    char *row0 = strchr(r.out, '\n') + 1;
    double v[5];
    cr_assert_eq(sscanf(row0, "%lf %lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3], &v[4]), 5);
    cr_expect(v[0] == 0 && v[1] == 0 && v[2] == 1 && v[3] == 0 && v[4] == 1);
    char *row2 = strchr(strchr(row0, '\n') + 1, '\n') + 1;
    cr_assert_eq(sscanf(row2, "%lf %lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3], &v[4]), 5);
    cr_expect(fabs(v[1] - sin(2.0)) < 1e-6 && fabs(v[4] - cos(2.0 / 100.0)) < 1e-6);
    run_free(&r);
}

Test(sinusoidal_cli, npy_loads_in_numpy_with_shape_and_values)
{
    char *dir = test_tmpdir("sin-npy");
    char *path = path_join(dir, "pe.npy");
    run_result r = run_g2e("sinusoidal", "--len", "1500", "--dim", "64", "--format", "npy", "-o",
                           path, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(r.out_len, 0, "nothing on stdout with -o");
    run_free(&r);
    const char *script =
        "import sys, numpy as np\n"
        "a = np.load(sys.argv[1])\n"
        "assert a.dtype == np.float32 and a.shape == (1500, 64), (a.dtype, a.shape)\n"
        "pos = np.arange(1500, dtype=np.float64)[:, None]\n"
        "ang = pos / np.power(10000.0, np.arange(0, 64, 2) / 64.0)[None, :]\n"
        "ref = np.empty((1500, 64)); ref[:, 0::2] = np.sin(ang); ref[:, 1::2] = np.cos(ang)\n"
        "ref = ref.astype(np.float32)\n"
        "d = np.abs(a.astype(np.float64) - ref)\n"
        "assert (d <= np.spacing(np.abs(ref))).all(), d.max()\n"
        "print((a == ref).mean())\n";
    char *argv[] = {"/usr/bin/python3", "-c", (char *)script, path, NULL};
    r = run_argv(argv, NULL, 0, NULL, NULL);
    cr_expect_eq(r.status, 0, "numpy: %s", r.err);
    cr_expect(strtod(r.out, NULL) > 0.99, "nearly all values bit-identical to numpy's: %s", r.out);
    run_free(&r);
    free(path), free(dir);
}

Test(sinusoidal_cli, npy_to_a_pipe_is_fine)
{
    run_result r = run_g2e("sinusoidal", "--len", "2", "--dim", "2", "--format", "npy", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_eq(r.out_len, 128 + 16);
    cr_expect(memcmp(r.out, "\x93NUMPY\x01\x00", 8) == 0);
    float v[4];
    memcpy(v, r.out + 128, 16);
    cr_expect(v[0] == 0.0f && v[1] == 1.0f && v[2] == (float)sin(1.0) && v[3] == (float)cos(1.0));
    run_free(&r);
}

Test(sinusoidal_cli, dot_curve_formats)
{
    run_result r = run_g2e("sinusoidal", "--dot-curve", "--dim", "8", "--to", "5", "--format",
                           "csv", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(lines_of(r.out), 7);
    cr_expect(strncmp(r.out, "pos,dot\n", 8) == 0);
    char *p = r.out + 8;
    for (int pos = 0; pos <= 5; pos++) {
        char *end;
        cr_expect_eq(strtol(p, &end, 10), pos);
        double v = strtod(end + 1, &end);
        double s = 0;
        for (int j = 0; j < 8; j++)
            s += pe_ref(0, j, 8, 10000.0) * pe_ref(pos, j, 8, 10000.0);
        cr_expect(fabs(v - s) < 1e-12, "pos %d: %.17g vs %.17g", pos, v, s);
        p = end + 1;
    }
    run_free(&r);
    /* default range 0..50, and --from */
    r = run_g2e("sinusoidal", "--dot-curve", "--dim", "512", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(lines_of(r.out), 52);
    cr_expect(strstr(r.out, "256.000000000") != NULL, "PE(0)·PE(0) = D/2: %s", r.out);
    run_free(&r);
    r = run_g2e("sinusoidal", "--dot-curve", "--dim", "4", "--from", "10", "--to", "12", "--format",
                "npy", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(r.out_len, 128 + 12, "a 1-D array of 3 float32");
    cr_expect(strstr(r.out + 10, "'shape': (3,)") != NULL, "after the binary preamble");
    float v;
    memcpy(&v, r.out + 128, 4);
    double s = 0;
    for (int j = 0; j < 4; j++)
        s += pe_ref(0, j, 4, 10000.0) * pe_ref(10, j, 4, 10000.0);
    cr_expect_eq(v, (float)s);
    run_free(&r);
}

Test(sinusoidal_cli, by_distance)
{
    run_result r = run_g2e("sinusoidal", "--by-distance", "--len", "64", "--dim", "16",
                           "--max-distance", "20", "--format", "csv", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(lines_of(r.out), 22);
    char *p = strchr(r.out, '\n') + 1;
    for (int d = 0; d <= 20; d++) {
        char *end;
        cr_expect_eq(strtol(p, &end, 10), d);
        double v = strtod(end + 1, &end);
        double s = 0;
        for (int j = 0; j < 16; j++)
            s += pe_ref(0, j, 16, 10000.0) * pe_ref(d, j, 16, 10000.0);
        cr_expect(fabs(v - s / 8.0) < 1e-12, "d %d: %.17g vs %.17g", d, v, s / 8.0);
        p = end + 1;
    }
    run_free(&r);
}

Test(sinusoidal_cli, check_rotation)
{
    run_result r = run_g2e("sinusoidal", "--check-rotation", "--dim", "512", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    const char *e = strstr(r.out, "largest error ");
    cr_assert(e != NULL, "%s", r.out);
    double err = strtod(e + 14, NULL);
    cr_expect(err < 1e-9, "%s", r.out);
    cr_expect(strstr(r.out, "ok") != NULL, "%s", r.out);
    run_free(&r);
    r = run_g2e("sinusoidal", "--check-rotation", "--dim", "768", "--len", "1024", "--max-k", "3",
                NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "pos 0..1023, k 0..2") != NULL, "%s", r.out);
    run_free(&r);
}

struct usage_case {
    const char *args[12];
    int status;
    const char *msg;
};

Test(sinusoidal_cli, usage_errors_are_one_line)
{
    static const struct usage_case cases[] = {
        {{"sinusoidal", "--len", "4", "--dim", "7"}, 2, "even and positive"},
        {{"sinusoidal", "--len", "4", "--dim", "0"}, 2, "sinusoidal: --dim needs an integer in 1..1048576, got '0'"},
        {{"sinusoidal", "--len", "4"}, 2, "--dim D is required"},
        {{"sinusoidal", "--dim", "4"}, 2, "--len N is required"},
        {{"sinusoidal", "--len", "0", "--dim", "4"}, 2, "--len needs an integer in 1..2^53, got '0'"},
        {{"sinusoidal", "--len", "-3", "--dim", "4"}, 2, "--len needs an integer in 1..2^53, got '-3'"},
        {{"sinusoidal", "--len", "4", "--dim", "4", "--base", "1"}, 2, "greater than 1"},
        {{"sinusoidal", "--len", "4", "--dim", "4", "--base", "nan"}, 2, "--base needs a finite number, got 'nan'"},
        {{"sinusoidal", "--len", "4", "--dim", "4", "--format", "xml"}, 2, "--format needs one of table, csv, npy or json, got 'xml'"},
        {{"sinusoidal", "--len", "4", "--dim", "4", "--bogus"}, 2, "unknown option '--bogus'"},
        {{"sinusoidal", "--len"}, 2, "--len needs an integer in 1..2^53\n"},
        {{"sinusoidal", "--dot-curve", "--dim", "4", "--from", "9", "--to", "3"}, 2, "after"},
        {{"sinusoidal", "--dot-curve", "--by-distance", "--dim", "4", "--len", "3"}, 2, "choose one"},
        {{"sinusoidal", "--len", "4", "--dim", "4", "--to", "3"}, 2, "belong to --dot-curve"},
        {{"sinusoidal", "--by-distance", "--len", "4", "--dim", "4", "--max-distance", "4"}, 2,
         "must be less than"},
        {{"sinusoidal", "--check-rotation", "--dim", "4", "--format", "csv"}, 2, "takes no"},
        {{"sinusoidal", "--len", "99999999999999999999", "--dim", "4"}, 2, "--len needs an integer"},
        {{"sinusoidal", "--len", "4", "--dim", "4", "-o", "pe.json"}, 2, "-o pe.json means --format json, which sinusoidal does not write"},
        {{"sinusoidal", "--len", "4", "--dim", "4", "-o", "pe.npy", "--format", "csv"}, 2, "-o pe.npy means --format npy, but --format csv was given"},
        {{"sinusoidal", "--len", "4", "--dim", "4", "--plot", "-", "--format", "csv"}, 2,
         "cannot both go to standard output"},
        {{"plot"}, 2, "usage: gpt2-embed plot"},
        {{"plot", "bogus"}, 2, "unknown figure 'bogus'"},
        {{"plot", "pe", "--dim", "4", "--len", "0"}, 2, "--len needs an integer in 1..32767, got '0'"},
        {{"plot", "pe", "--len", "4", "--dim", "5"}, 2, "even and positive"},
        {{"plot", "dot-curve", "--dim", "4", "--len", "3"}, 2, "unknown option '--len'"},
        {{"plot", "pe", "--len", "40000", "--dim", "4", "-o", "/dev/null"}, 2, "in 1..32767, got '40000'"},
        {{"sinusoidal", "--check-rotation", "--dim", "512", "--len", "1048576", "--max-k", "8192"}, 1,
         "the limit is 2^32"},
        {{"sinusoidal", "--by-distance", "--dim", "4096", "--len", "100000"}, 1, "the limit is 2^36"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *argv[16] = {G2E_TEST_BIN};
        int n = 1;
        for (int i = 0; i < 12 && cases[k].args[i]; i++)
            argv[n++] = (char *)cases[k].args[i];
        argv[n] = NULL;
        run_result r = run_argv(argv, NULL, 0, NULL, NULL);
        cr_expect_eq(r.status, cases[k].status, "case %zu (%s %s): status %d, stderr %s", k,
                     argv[1], argv[2] ? argv[2] : "", r.status, r.err);
        cr_expect(strstr(r.err, cases[k].msg) != NULL, "case %zu: want '%s' in: %s", k,
                  cases[k].msg, r.err);
        if (cases[k].args[0][0] != 'p' || cases[k].args[1])
            cr_expect(lines_of(r.err) == 1, "case %zu: one line: %s", k, r.err);
        cr_expect_eq(r.out_len, 0, "case %zu: nothing on stdout", k);
        run_free(&r);
    }
}

Test(sinusoidal_cli, output_files)
{
    char *dir = test_tmpdir("sin-out");
    char *path = path_join(dir, "pe.csv");
    write_file(path, "old\n", 4);
    /* a usage error leaves the previous file alone */
    run_result r = run_g2e("sinusoidal", "--len", "4", "--dim", "3", "-o", path, NULL);
    cr_expect_eq(r.status, 2);
    run_free(&r);
    size_t n;
    char *s = read_file(path, &n);
    cr_expect_str_eq(s, "old\n");
    free(s);
    r = run_g2e("sinusoidal", "--len", "4", "--dim", "2", "--format", "csv", "-o", path, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    s = read_file(path, &n);
    cr_expect(strncmp(s, "pos,d0,d1\n0,0,1\n1,", 18) == 0, "%s", s);
    free(s);
    cr_expect_eq(count_entries(dir), 1, "no temporary left");
    /* /dev/null is written, not replaced */
    r = run_g2e("sinusoidal", "--len", "4", "--dim", "2", "--format", "npy", "-o", "/dev/null", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    struct stat st;
    cr_expect(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
    /* a missing directory */
    char *missing = path_join(dir, "nope/pe.npy");
    r = run_g2e("sinusoidal", "--len", "4", "--dim", "2", "--format", "npy", "-o", missing, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "does not exist") != NULL && lines_of(r.err) == 1, "%s", r.err);
    run_free(&r);
    /* a directory where nothing can be created, even by root */
    r = run_g2e("sinusoidal", "--len", "4", "--dim", "2", "-o", "/proc/gpt2-embed-test.csv", NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "cannot create a file in directory '/proc'") != NULL, "%s", r.err);
    run_free(&r);
    free(missing), free(path), free(dir);
}

/* Runs the program with argv in a child prepared by `how`: 'u' as user nobody,
 * 'f' with a 4 KB file size limit, 't' with stdout on a new terminal. Returns the exit
 * status; stderr goes to errpath. */
static int run_special(char how, char *const argv[], const char *errpath)
{
    int master = -1;
    char *slave = NULL;
    if (how == 't') {
        master = posix_openpt(O_RDWR | O_NOCTTY);
        cr_assert(master >= 0 && grantpt(master) == 0 && unlockpt(master) == 0);
        slave = ptsname(master);
    }
    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        int e = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        dup2(e, 2);
        int dn = open("/dev/null", O_RDWR);
        dup2(dn, 0);
        dup2(dn, 1);
        if (how == 'u' && geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
            _exit(120);
        if (how == 'f') {
            signal(SIGXFSZ, SIG_IGN);
            struct rlimit rl = {4096, 4096};
            setrlimit(RLIMIT_FSIZE, &rl);
        }
        if (how == 't') {
            int t = open(slave, O_RDWR | O_NOCTTY);
            dup2(t, 1);
        }
        execv(argv[0], argv);
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    if (master >= 0)
        close(master);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

Test(sinusoidal_cli, read_only_directory)
{
    char *dir = test_tmpdir("sin-ro");
    chmod(dir, 0755);
    char *ro = path_join(dir, "ro");
    cr_assert_eq(mkdir(ro, 0555), 0);
    char *target = path_join(ro, "pe.npy"), *errp = path_join(dir, "err.txt");
    chmod(errp, 0666);
    char *argv[] = {G2E_TEST_BIN, "sinusoidal", "--len", "4", "--dim", "2", "--format", "npy",
                    "-o", target, NULL};
    int st = run_special('u', argv, errp);
    cr_expect_eq(st, 1);
    size_t n;
    char *msg = read_file(errp, &n);
    cr_expect(strstr(msg, "cannot create a file in directory") != NULL &&
              strstr(msg, "Permission denied") != NULL && lines_of(msg) == 1, "%s", msg);
    cr_expect_eq(count_entries(ro), 0, "nothing written");
    free(msg), free(errp), free(target), free(ro), free(dir);
}

Test(sinusoidal_cli, failure_while_writing_keeps_the_old_file)
{
    char *dir = test_tmpdir("sin-fsize");
    char *target = path_join(dir, "pe.csv"), *errp = path_join(dir, "..err");
    write_file(target, "previous\n", 9);
    char *argv[] = {G2E_TEST_BIN, "sinusoidal", "--len", "1000", "--dim", "64", "--format", "csv",
                    "-o", target, NULL};
    int st = run_special('f', argv, errp);
    cr_expect_eq(st, 1);
    size_t n;
    char *msg = read_file(errp, &n);
    cr_expect(strstr(msg, "pe.csv") != NULL && strstr(msg, "failed") != NULL, "%s", msg);
    free(msg);
    unlink(errp);
    char *s = read_file(target, &n);
    cr_expect_str_eq(s, "previous\n");
    free(s);
    cr_expect_eq(count_entries(dir), 1, "no temporary left");
    free(errp), free(target), free(dir);
}

Test(sinusoidal_cli, binary_refuses_a_terminal)
{
    char *dir = test_tmpdir("sin-tty");
    char *errp = path_join(dir, "err.txt");
    char *a1[] = {G2E_TEST_BIN, "sinusoidal", "--len", "4", "--dim", "2", "--format", "npy", NULL};
    cr_expect_eq(run_special('t', a1, errp), 1);
    size_t n;
    char *msg = read_file(errp, &n);
    cr_expect(strstr(msg, "refusing to write binary output to a terminal") != NULL, "%s", msg);
    free(msg);
    char *a2[] = {G2E_TEST_BIN, "plot", "pe", "--len", "4", "--dim", "2", NULL};
    cr_expect_eq(run_special('t', a2, errp), 1, "PNG to a terminal");
    char *a3[] = {G2E_TEST_BIN, "sinusoidal", "--len", "4", "--dim", "2", NULL};
    cr_expect_eq(run_special('t', a3, errp), 0, "a table may go to a terminal");
    free(errp), free(dir);
}

static cairo_surface_t *decode(const char *path, int *w, int *h)
{
    cairo_surface_t *s = cairo_image_surface_create_from_png(path);
    cr_assert_eq(cairo_surface_status(s), CAIRO_STATUS_SUCCESS, "%s", path);
    *w = cairo_image_surface_get_width(s);
    *h = cairo_image_surface_get_height(s);
    return s;
}

Test(sinusoidal_cli, figures)
{
    char *dir = test_tmpdir("sin-plot");
    char *pe = path_join(dir, "pe.png"), *dot = path_join(dir, "dot.png"),
         *dist = path_join(dir, "dist.png"), *pe2 = path_join(dir, "pe-plot.png");
    run_result r = run_g2e("sinusoidal", "--len", "100", "--dim", "128", "--plot", pe, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(r.out_len, 0, "--plot alone replaces the table");
    run_free(&r);
    r = run_g2e("plot", "pe", "--len", "100", "--dim", "128", "-o", pe2, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    size_t n1, n2;
    char *b1 = read_file(pe, &n1), *b2 = read_file(pe2, &n2);
    cr_expect(n1 == n2 && memcmp(b1, b2, n1) == 0, "the same figure either way");
    free(b1), free(b2);
    int w, h;
    cairo_surface_t *s = decode(pe, &w, &h);
    cr_expect(w == 1200 && h == 600, "the article's figsize (12, 6): %dx%d", w, h);
    cairo_surface_destroy(s);
    r = run_g2e("sinusoidal", "--dot-curve", "--dim", "512", "--plot", dot, "--format", "csv", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(lines_of(r.out), 52, "--plot with --format also prints");
    run_free(&r);
    s = decode(dot, &w, &h);
    cr_expect(w == 960 && h == 600);
    cairo_surface_destroy(s);
    r = run_g2e("sinusoidal", "--by-distance", "--len", "200", "--dim", "64", "--plot", dist,
                "--width", "800", "--height", "500", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    s = decode(dist, &w, &h);
    cr_expect(w == 800 && h == 500);
    cairo_surface_destroy(s);
    /* a PNG to a pipe */
    r = run_g2e("plot", "dot-curve", "--dim", "64", "--to", "10", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(r.out_len > 8 && memcmp(r.out, "\x89PNG\r\n\x1a\n", 8) == 0);
    run_free(&r);
    free(pe), free(pe2), free(dot), free(dist), free(dir);
}
