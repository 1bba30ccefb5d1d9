/* SPDX-License-Identifier: MIT */
/* test_opt.c — the declared-option parser: every accepted form, every error's exact wording
 * (table-driven, stderr captured per case), the ID grammar, the edit distance, the
 * generated help and manual lines. */
#include "opt.h"
#include "support.h"

#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct topts {
    int flag, fmt;
    int64_t n, pos[2], shift;
    double r, any;
    const char *file, *in, *text;
    opt_strs inc;
    opt_ids ids;
} topts;

static const char *const FORMATS[] = {"table", "json", "npy", NULL};

static const opt_def T_OPTS[] = {
    {.name = "--flag", .kind = OPT_FLAG, .off = offsetof(topts, flag), .help = "a flag"},
    {.name = "--n", .short_name = 'n', .kind = OPT_INT, .off = offsetof(topts, n), .lo = 1,
     .hi = 100, .def = "5", .help = "a count"},
    {.name = "--pos", .kind = OPT_INT, .nargs = 2, .off = offsetof(topts, pos), .lo = 0, .hi = 1023,
     .metavar = "A B", .help = "two positions"},
    {.name = "--shift", .kind = OPT_INT, .off = offsetof(topts, shift), .lo = -10, .hi = 10,
     .help = "a signed integer"},
    {.name = "--scale", .kind = OPT_REAL, .off = offsetof(topts, r), .rlo = 0, .rhi = 1,
     .help = "a fraction"},
    {.name = "--any", .kind = OPT_REAL, .off = offsetof(topts, any), .help = "any real"},
    {.name = "--format", .kind = OPT_CHOICE, .off = offsetof(topts, fmt), .choices = FORMATS,
     .def = "table", .help = "output format"},
    {.name = "--file", .short_name = 'f', .kind = OPT_FILE, .flags = OPTF_STDIN,
     .off = offsetof(topts, in), .help = "read the text from FILE"},
    {.name = "--output", .short_name = 'o', .kind = OPT_FILE, .off = offsetof(topts, file),
     .help = "write to FILE"},
    {.name = "--text", .kind = OPT_TEXT, .off = offsetof(topts, text), .help = "a text"},
    {.name = "--include", .short_name = 'I', .kind = OPT_FILE, .flags = OPTF_APPEND,
     .off = offsetof(topts, inc), .help = "collects"},
    {.name = "--ids", .kind = OPT_IDS, .off = offsetof(topts, ids), .help = "token IDs"},
    {.name = "--secret", .kind = OPT_FLAG, .flags = OPTF_HIDDEN, .off = offsetof(topts, flag),
     .help = "hidden"},
    OPT_END,
};

static const opt_cmd T_CMD = {
    .name = "similarity",
    .synopsis = "[OPTIONS] TEXT...",
    .purpose = "Test command.",
    .examples = "  gpt2-embed similarity --pos 0 1\n",
    .opts = T_OPTS,
    .min_pos = 0,
    .max_pos = 2,
    .pos_name = "TEXT",
};

/* Runs opt_parse for cmd on args (NULL-terminated, argv[0] added) with stderr captured into
 * err. */
static int parse_cmd(const opt_cmd *cmd, const char *const *args, void *o, size_t osize,
                     opt_parsed *p, char *err, size_t errlen)
{
    char *argv[32] = {(char *)"similarity"};
    int argc = 1;
    for (; args[argc - 1]; argc++)
        argv[argc] = (char *)args[argc - 1];
    char *dir = test_tmpdir("opt");
    char *path = path_join(dir, "stderr");
    fflush(stderr);
    int saved = dup(2);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    cr_assert(fd >= 0 && saved >= 0);
    dup2(fd, 2);
    close(fd);
    if (o)
        memset(o, 0, osize);
    int r = opt_parse(cmd, argc, argv, o, p);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    size_t n;
    char *s = read_file(path, &n);
    cr_assert(s);
    snprintf(err, errlen, "%s", s);
    free(s);
    free(path);
    free(dir);
    return r;
}

static int parse(const char *const *args, topts *o, opt_parsed *p, char *err, size_t errlen)
{
    return parse_cmd(&T_CMD, args, o, sizeof *o, p, err, errlen);
}

#define A(...) ((const char *const[]){__VA_ARGS__, NULL})

typedef struct err_case {
    const char *const *args;
    const char *err; /* the exact line on stderr */
} err_case;

static const err_case ERRORS[] = {
    {A("--pos", "-1", "5"), "gpt2-embed similarity: --pos needs two integers in 0..1023, got '-1'\n"},
    {A("--pos", "0", "1024"), "gpt2-embed similarity: --pos needs two integers in 0..1023, got '1024'\n"},
    {A("--pos", "0"), "gpt2-embed similarity: --pos needs two integers in 0..1023\n"},
    {A("--pos"), "gpt2-embed similarity: --pos needs two integers in 0..1023\n"},
    {A("--n", "0"), "gpt2-embed similarity: --n needs an integer in 1..100, got '0'\n"},
    {A("--n", "1.5"), "gpt2-embed similarity: --n needs an integer in 1..100, got '1.5'\n"},
    {A("--n", " 5"), "gpt2-embed similarity: --n needs an integer in 1..100, got ' 5'\n"},
    {A("--n", "+5"), "gpt2-embed similarity: --n needs an integer in 1..100, got '+5'\n"},
    {A("--n", ""), "gpt2-embed similarity: --n needs an integer in 1..100, got ''\n"},
    {A("--n", "99999999999999999999"),
     "gpt2-embed similarity: --n needs an integer in 1..100, got '99999999999999999999'\n"},
    {A("-n"), "gpt2-embed similarity: --n needs an integer in 1..100\n"},
    {A("--shift", "-11"), "gpt2-embed similarity: --shift needs an integer in -10..10, got '-11'\n"},
    {A("--scale", "1.5"), "gpt2-embed similarity: --scale needs a number in 0..1, got '1.5'\n"},
    {A("--scale", "nan"), "gpt2-embed similarity: --scale needs a number in 0..1, got 'nan'\n"},
    {A("--any", "inf"), "gpt2-embed similarity: --any needs a finite number, got 'inf'\n"},
    {A("--any", "1e999"), "gpt2-embed similarity: --any needs a finite number, got '1e999'\n"},
    {A("--any", "x"), "gpt2-embed similarity: --any needs a finite number, got 'x'\n"},
    {A("--format", "jsn"),
     "gpt2-embed similarity: --format needs one of table, json or npy, got 'jsn'; did you mean 'json'?\n"},
    {A("--format=xml"), "gpt2-embed similarity: --format needs one of table, json or npy, got 'xml'\n"},
    {A("--format"), "gpt2-embed similarity: --format needs one of table, json or npy\n"},
    {A("--flag=1"), "gpt2-embed similarity: --flag takes no value, got '--flag=1'\n"},
    {A("--pso", "0", "1"),
     "gpt2-embed similarity: unknown option '--pso'; did you mean '--pos'? (see 'gpt2-embed similarity --help')\n"},
    {A("--fromat=json"),
     "gpt2-embed similarity: unknown option '--fromat'; did you mean '--format'? (see 'gpt2-embed similarity --help')\n"},
    {A("--window"), "gpt2-embed similarity: unknown option '--window' (see 'gpt2-embed similarity --help')\n"},
    {A("-x"), "gpt2-embed similarity: unknown option '-x' (see 'gpt2-embed similarity --help')\n"},
    {A("-of"), "gpt2-embed similarity: unknown option '-of' (see 'gpt2-embed similarity --help')\n"},
    {A("--secre"), /* hidden rows are never suggested */
     "gpt2-embed similarity: unknown option '--secre' (see 'gpt2-embed similarity --help')\n"},
    {A("-f", ""), "gpt2-embed similarity: --file needs a file name (or - for standard input), got an empty one ('')\n"},
    {A("-o", "-"),
     "gpt2-embed similarity: --output needs a file name, got '-' (standard input/output is not possible here)\n"},
    {A("-o"), "gpt2-embed similarity: --output needs a file name\n"},
    {A("-o", "--format", "json"), "gpt2-embed similarity: --output needs a file name\n"},
    {A("-o", "--"), "gpt2-embed similarity: --output needs a file name\n"},
    {A("--text"), "gpt2-embed similarity: --text needs a value\n"},
    {A("a", "b", "c"), "gpt2-embed similarity: unexpected argument 'c' (at most 2 TEXT)\n"},
    {A("--ids", "1 x"),
     "gpt2-embed similarity: --ids: expected a token ID (a whole number) at character 3, got 'x'\n"},
    {A("--ids"),
     "gpt2-embed similarity: --ids needs token IDs (\"464 3797\", \"[464, 3797]\" or - for standard input)\n"},
    {A("--lang"), "gpt2-embed similarity: --lang needs one of ja or en\n"},
};

Test(opt, every_error_has_its_one_line)
{
    for (size_t k = 0; k < sizeof ERRORS / sizeof ERRORS[0]; k++) {
        topts o;
        opt_parsed p;
        char err[1024];
        int r = parse(ERRORS[k].args, &o, &p, err, sizeof err);
        cr_expect_eq(r, -1, "case %zu (%s): r = %d", k, ERRORS[k].args[0], r);
        cr_expect_str_eq(err, ERRORS[k].err, "case %zu", k);
        cr_expect_eq(opt_exit(r), 2);
        opt_free(&p);
    }
}

Test(opt, values_in_every_form)
{
    topts o;
    opt_parsed p;
    char err[512];
    int r = parse(A("--pos", "3", "1023", "--n=7", "--flag", "-o", "out.npy", "--format=json",
                    "--scale", "0.25", "--shift", "-10", "--any=-1e3", "--text=", "word", "-f", "-"),
                  &o, &p, err, sizeof err);
    cr_assert_eq(r, 0, "%s", err);
    cr_expect_str_eq(err, "");
    cr_expect_eq(o.pos[0], 3);
    cr_expect_eq(o.pos[1], 1023);
    cr_expect_eq(o.n, 7);
    cr_expect_eq(o.flag, 1);
    cr_expect_str_eq(o.file, "out.npy");
    cr_expect_eq(o.fmt, 1);
    cr_expect_eq(o.r, 0.25);
    cr_expect_eq(o.shift, -10);
    cr_expect_eq(o.any, -1000.0);
    cr_expect_str_eq(o.text, "");
    cr_expect_str_eq(o.in, "-");
    cr_expect_eq(p.npos, 1);
    cr_expect_str_eq(p.pos[0], "word");
    cr_expect(opt_given(&T_CMD, &p, "--pos"));
    cr_expect(opt_given(&T_CMD, &p, "--output"));
    cr_expect(!opt_given(&T_CMD, &p, "--ids"));
    cr_expect(!opt_given(&T_CMD, &p, "--include"));
    opt_free(&p);
}

Test(opt, pos_with_equals_takes_the_rest_from_the_next_argument)
{
    topts o;
    opt_parsed p;
    char err[512];
    cr_assert_eq(parse(A("--pos=4", "9"), &o, &p, err, sizeof err), 0, "%s", err);
    cr_expect_eq(o.pos[0], 4);
    cr_expect_eq(o.pos[1], 9);
    opt_free(&p);
}

Test(opt, double_dash_and_dash_and_negative_numbers_are_positional)
{
    topts o;
    opt_parsed p;
    char err[512];
    cr_assert_eq(parse(A("-5", "--", "--flag"), &o, &p, err, sizeof err), 0, "%s", err);
    cr_expect_eq(o.flag, 0);
    cr_assert_eq(p.npos, 2);
    cr_expect_str_eq(p.pos[0], "-5");
    cr_expect_str_eq(p.pos[1], "--flag");
    opt_free(&p);
    cr_assert_eq(parse(A("-"), &o, &p, err, sizeof err), 0, "%s", err);
    cr_expect_str_eq(p.pos[0], "-");
    opt_free(&p);
}

Test(opt, repeated_last_wins_append_collects)
{
    topts o;
    opt_parsed p;
    char err[512];
    cr_assert_eq(parse(A("--n", "3", "--n=9", "-I", "a", "--include=b", "-I", "c", "--ids", "1 2",
                         "--ids", "[7]"),
                       &o, &p, err, sizeof err),
                 0, "%s", err);
    cr_expect_eq(o.n, 9);
    cr_assert_eq(o.inc.n, 3);
    cr_expect_str_eq(o.inc.v[0], "a");
    cr_expect_str_eq(o.inc.v[1], "b");
    cr_expect_str_eq(o.inc.v[2], "c");
    cr_assert_eq(o.ids.n, 1);
    cr_expect_eq(o.ids.v[0], 7);
    opt_free(&p);
    cr_assert_eq(parse(A("--ids", "5", "--ids", "-"), &o, &p, err, sizeof err), 0, "%s", err);
    cr_expect_eq(o.ids.from_stdin, 1);
    cr_expect_eq(o.ids.n, 0);
    opt_free(&p);
}

Test(opt, lang_is_accepted_and_skipped)
{
    topts o;
    opt_parsed p;
    char err[512];
    cr_assert_eq(parse(A("--lang", "ja", "x", "--lang=en"), &o, &p, err, sizeof err), 0, "%s", err);
    cr_expect_eq(p.npos, 1);
    opt_free(&p);
}

Test(opt, help_is_generated_from_the_table, .init = cr_redirect_stdout)
{
    topts o;
    opt_parsed p;
    char err[512];
    int r = parse(A("--n", "3", "--help", "--bogus"), &o, &p, err, sizeof err);
    cr_expect_eq(r, 1);
    cr_expect_eq(opt_exit(r), 0);
    opt_free(&p);
    fflush(stdout);
    cr_expect_stdout_eq_str(
        "usage: gpt2-embed similarity [OPTIONS] TEXT...\n"
        "Test command.\n"
        "\noptions:\n"
        "      --flag                   a flag\n"
        "  -n, --n N                    a count (1..100) [default: 5]\n"
        "      --pos A B                two positions (0..1023)\n"
        "      --shift N                a signed integer (-10..10)\n"
        "      --scale X                a fraction (0..1)\n"
        "      --any X                  any real\n"
        "      --format table|json|npy  output format [default: table]\n"
        "  -f, --file FILE              read the text from FILE\n"
        "  -o, --output FILE            write to FILE\n"
        "      --text VALUE             a text\n"
        "  -I, --include FILE           collects\n"
        "      --ids IDS                token IDs\n"
        "  -h, --help                   this help\n"
        "\nexamples:\n"
        "  gpt2-embed similarity --pos 0 1\n");
}

Test(opt, help_write_failure_is_an_error)
{
    FILE *f = fopen("/dev/full", "w");
    cr_assert(f);
    cr_expect_eq(opt_help(&T_CMD, f), -1);
    fclose(f);
}

static const char *const AB[] = {"a", "b", NULL};

Test(opt, man_lines_from_the_table, .init = cr_redirect_stdout)
{
    static const opt_def rows[] = {
        {.name = "--pos", .kind = OPT_INT, .nargs = 2, .lo = 0, .hi = 1023, .metavar = "A B",
         .help = "two positions"},
        {.name = "--output", .short_name = 'o', .kind = OPT_FILE, .help = "write to FILE"},
        {.name = "--x", .kind = OPT_FLAG, .flags = OPTF_HIDDEN},
        {.name = "--fmt", .kind = OPT_CHOICE, .choices = AB, .help = "pick"},
        {.name = "--flag", .kind = OPT_FLAG, .help = ".starts with a dot"},
        OPT_END,
    };
    opt_cmd c = {.name = "t", .opts = rows};
    cr_assert_eq(opt_man(&c, stdout), 0);
    fflush(stdout);
    cr_expect_stdout_eq_str(".TP\n.BI \"\\-\\-pos \" \"A B\"\ntwo positions (0..1023)\n"
                            ".TP\n.BI \"\\-o, \\-\\-output \" \"FILE\"\nwrite to FILE\n"
                            ".TP\n.B \"\\-\\-fmt a|b\"\npick\n"
                            ".TP\n.B \"\\-\\-flag\"\n\\&.starts with a dot\n");
}

Test(opt, positional_counts)
{
    static const opt_def none[] = {OPT_END};
    opt_cmd c = {.name = "exercise", .opts = none, .min_pos = 1, .max_pos = 1, .pos_name = "N"};
    opt_parsed p;
    char err[512];
    cr_expect_eq(parse_cmd(&c, (const char *const[]){NULL}, NULL, 0, &p, err, sizeof err), -1);
    cr_expect_str_eq(err, "gpt2-embed exercise: missing N (see 'gpt2-embed exercise --help')\n");
    opt_free(&p);
    c.min_pos = 0;
    c.max_pos = 0;
    cr_expect_eq(parse_cmd(&c, A("x"), NULL, 0, &p, err, sizeof err), -1);
    cr_expect_str_eq(err, "gpt2-embed exercise: unexpected argument 'x' (this command takes no N)\n");
    opt_free(&p);
    c.max_pos = -1;
    cr_expect_eq(parse_cmd(&c, A("x", "y", "z"), NULL, 0, &p, err, sizeof err), 0, "%s", err);
    cr_expect_eq(p.npos, 3);
    opt_free(&p);
}

/* ---- the ID grammar is the library's (tests/test_idlist.c); opt_parse_ids hands its
 * message over in the program's buffer ---- */

Test(opt, id_grammar_through_the_program_wrapper)
{
    uint32_t *v = NULL;
    size_t n = 0;
    char err[160] = "";
    cr_assert_eq(opt_parse_ids("[464, 3797]", 11, 50257, &v, &n, err, sizeof err), 0, "%s", err);
    cr_expect(n == 2 && v[0] == 464 && v[1] == 3797);
    free(v);
    cr_expect_eq(opt_parse_ids("1,", 2, 50257, &v, &n, err, sizeof err), -1);
    cr_expect_str_eq(err, "expected a token ID after ',' at the end");
    char small[12];
    cr_expect_eq(opt_parse_ids("x", 1, 50257, &v, &n, small, sizeof small), -1);
    cr_expect_str_eq(small, "expected a ");   /* cut to the buffer, still terminated */
}

Test(opt, edit_distance)
{
    static const struct { const char *a, *b; size_t d; } D[] = {
        {"", "", 0},           {"exercise", "exercise", 0}, {"exercies", "exercise", 1},
        {"tokenise", "tokenize", 1}, {"similarty", "similarity", 1}, {"pso", "pos", 1},
        {"ab", "ba", 1},       {"abc", "", 3},              {"", "abc", 3},
        {"kitten", "sitting", 3}, {"ca", "abc", 3}, /* OSA, not full Damerau (which says 2) */
        {"embed", "decode", 4},
    };
    for (size_t k = 0; k < sizeof D / sizeof D[0]; k++) {
        cr_expect_eq(opt_edit_distance(D[k].a, D[k].b), D[k].d, "%s/%s", D[k].a, D[k].b);
        cr_expect_eq(opt_edit_distance(D[k].b, D[k].a), D[k].d, "%s/%s", D[k].b, D[k].a);
    }
}

Test(opt, range_and_usage_errors_after_parsing, .init = cr_redirect_stderr)
{
    cr_expect_eq(opt_range_error(&T_CMD, "--pos", 0, 1023, "1500", 2), -1);
    cr_expect_eq(opt_usage_error(&T_CMD, "%s cannot be combined with %s", "--a", "--b"), -1);
    fflush(stderr);
    cr_expect_stderr_eq_str("gpt2-embed similarity: --pos needs two integers in 0..1023, got '1500'\n"
                            "gpt2-embed similarity: --a cannot be combined with --b\n");
}

/* ---- issue 23: help wrapped by the Japanese line-breaking rules ---- */

/* The code point at s (UTF-8, valid) and its length in *k. */
static int32_t cp_at(const char *s, size_t *k)
{
    const unsigned char *u = (const unsigned char *)s;
    if (u[0] < 0x80) return *k = 1, u[0];
    if (u[0] < 0xE0) return *k = 2, (u[0] & 0x1F) << 6 | (u[1] & 0x3F);
    if (u[0] < 0xF0) return *k = 3, (u[0] & 0x0F) << 12 | (u[1] & 0x3F) << 6 | (u[2] & 0x3F);
    return *k = 4, (u[0] & 0x07) << 18 | (u[1] & 0x3F) << 12 | (u[2] & 0x3F) << 6 | (u[3] & 0x3F);
}

/* Display columns of [s, e): two for the CJK blocks and full-width forms the help uses. */
static size_t cols_of(const char *s, const char *e)
{
    size_t w = 0, k;
    for (; s < e; s += k) {
        int32_t c = cp_at(s, &k);
        w += (c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0xA4CF) || (c >= 0xAC00 && c <= 0xD7A3) ||
             (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFF00 && c <= 0xFF60) || (c >= 0xFFE0 && c <= 0xFFE6) ? 2 : 1;
    }
    return w;
}

/* Checks every line of out: at most 96 columns (but a usage or example command), not starting (after its indentation) with a
 * character that may not begin a line, not ending with one that may not end a line. Returns
 * what is wrong ("" when nothing), in a static buffer. */
static const char *line_rules(const char *out)
{
    static char why[1024];
    why[0] = '\0';
    int n = 1;
    for (const char *l = out; *l; n++) {
        const char *e = strchr(l, '\n');
        if (!e)
            e = l + strlen(l);
        const char *t = l;
        while (t < e && *t == ' ')
            t++;
        const char *last = e;
        while (last > t && (((unsigned char)last[-1] & 0xC0) == 0x80))
            last--;
        size_t k;
        /* usage and example lines are commands, never wrapped (in English neither) */
        int command = strncmp(t, "gpt2-embed ", 11) == 0 || strncmp(t, "使い方: gpt2-embed", 21) == 0;
        if (!command && cols_of(l, e) > 96)
            snprintf(why, sizeof why, "line %d is %zu columns: %.*s", n, cols_of(l, e), (int)(e - l), l);
        else if (t < e && opt_no_line_start(cp_at(t, &k)))
            snprintf(why, sizeof why, "line %d starts with '%.*s': %.*s", n, (int)k, t, (int)(e - l), l);
        else if (last > t && opt_no_line_end(cp_at(last - 1, &k)))
            snprintf(why, sizeof why, "line %d ends with '%.*s': %.*s", n, (int)k, last - 1, (int)(e - l), l);
        if (why[0])
            return why;
        l = *e ? e + 1 : e;
    }
    return why;
}

static char *wrap_to_string(const char *text, size_t col, size_t indent, const char *keep)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert(f);
    opt_wrap(f, text, col, indent, keep);
    fclose(f);
    return buf;
}

/* s without spaces and newlines: what a wrap must keep, character for character. */
static char *squeezed(const char *s)
{
    char *o = malloc(strlen(s) + 1), *q = o;
    for (; *s; s++)
        if (*s != ' ' && *s != '\n')
            *q++ = *s;
    *q = '\0';
    return o;
}

static char *repeat(const char *unit, int n, const char *tail)
{
    char *s = malloc(strlen(unit) * (size_t)n + strlen(tail) + 1);
    s[0] = '\0';
    for (int i = 0; i < n; i++)
        strcat(s, unit);
    return strcat(s, tail);
}

Test(opt, wrap_follows_the_line_breaking_rules)
{
    /* 47 kanji fill 94 columns: a naive wrap puts the small ャ, the 、 or the ） first on the
     * next line, or leaves the （ last on this one */
    struct { const char *tail; const char *next_starts; } cases[] = {
        {"キャッシュ", "キャッシュ"},
        {"字、次", "字、次"},
        {"字）次", "字）次"},
        {"（注）", "（注）"},
        {"ーー", "漢ーー"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *text = repeat("漢", i == 1 || i == 2 ? 47 : i == 4 ? 48 : 47, cases[i].tail);
        char *out = wrap_to_string(text, 0, 0, NULL);
        cr_expect_str_eq(line_rules(out), "", "%s", out);
        const char *second = strchr(out, '\n');
        cr_expect(second && strncmp(second + 1, cases[i].next_starts, strlen(cases[i].next_starts)) == 0,
                  "case %zu:\n%s", i, out);
        char *a = squeezed(text), *b = squeezed(out);
        cr_expect_str_eq(b, a, "nothing lost or added");
        free(a), free(b), free(out), free(text);
    }
    /* the default is kept whole, on the next line when it does not fit */
    char *text = repeat("漢", 40, "");
    char *out = wrap_to_string(text, 10, 10, " [既定値: learned]");
    cr_expect(strstr(out, "\n          [既定値: learned]\n") != NULL, "%s", out);
    free(out), free(text);
    /* English wraps at spaces only, as before; a newline in the text joins its lines */
    out = wrap_to_string("The sinusoidal PE heatmap as the article draws it: x = position, y = dimension\n"
                         "(0 at the bottom), colours fixed to [-1, 1], a labelled colour bar.", 15, 15, NULL);
    cr_expect_str_eq(out, "The sinusoidal PE heatmap as the article draws it: x = position, y = dimension (0\n"
                          "               at the bottom), colours fixed to [-1, 1], a labelled colour bar.\n");
    free(out);
    out = wrap_to_string("学習済みの wpe と\n同じ埋め込み次元の正弦波", 0, 0, NULL);
    cr_expect_str_eq(out, "学習済みの wpe と同じ埋め込み次元の正弦波\n", "no space where Japanese lines join");
    free(out);
    /* the check itself finds a broken line */
    cr_expect_str_neq(line_rules("漢字\n、次\n"), "");
    cr_expect_str_neq(line_rules("漢字（\n次\n"), "");
}

/* Every command's --help in Japanese obeys the rules, through the program. */
Test(opt, japanese_help_of_every_command_follows_the_rules)
{
    const char *cmds[] = {"embed", "tokenize", "decode", "count", "similarity", "sinusoidal", "exercise",
                          "inspect", "nearest", "download", "plot", "stats", "pca", "rope", "report",
                          "compare", NULL};
    for (size_t i = 0; cmds[i]; i++) {
        run_result r = run_argv((char *[]){G2E_TEST_BIN, "--lang", "ja", (char *)cmds[i], "--help", NULL}, NULL, 0,
                                NULL, NULL);
        cr_expect_eq(r.status, 0, "%s: %s", cmds[i], r.err);
        const char *why = line_rules(r.out);
        cr_expect_str_eq(why, "", "%s --help: %s", cmds[i], why);
        run_free(&r);
    }
}
