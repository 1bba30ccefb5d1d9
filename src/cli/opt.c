/* SPDX-License-Identifier: MIT */
/* opt.c — the declared-option parser, its one set of messages, and the generated help and
 * manual sections (see opt.h for the contract).
 *
 * Every parse error goes through report(): "gpt2-embed CMD: " + one sentence, built from
 * what the row says it needs (needs()), so a missing value, a bad value and a range check
 * after parsing all read the same way. Hand-written because getopt_long cannot say what a
 * value must be, check ranges or choices, or suggest names; the table is the point.
 */
#include "opt.h"

#include "idlist.h"

#include "cli.h"

#include "text.h"
#include "textfmt.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <libintl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define TR(s) ((s) && *(s) ? gettext(s) : (s))
#ifndef _
#define _(s) gettext(s)
#endif


/* ---- messages ---- */

int opt_usage_error(const opt_cmd *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_verror(cmd->name, gettext(fmt), ap); /* report/opt_usage_error literals are in the .pot */
    va_end(ap);
    return -1;
}
#define report opt_usage_error /* the one place every message of this file goes through */

void opt_join(const char *const *c, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t k = 0; c[k] && o < len; k++)
        /* TRANSLATORS: between the last two of a list of choices: "table, json or npy" */
        o += (size_t)snprintf(buf + o, len - o, "%s%s", k == 0 ? "" : c[k + 1] ? ", " : _(" or "), c[k]);
}

static int nargs_of(const opt_def *d)
{
    return d->kind == OPT_FLAG ? 0 : d->nargs > 0 ? d->nargs : 1;
}

/* Whole phrases (not words glued together), so that each can be translated. */
static void int_needs(int nargs, int64_t lo, int64_t hi, char *buf, size_t len)
{
    if (hi == INT64_MAX) {
        switch (nargs) {
        case 1: snprintf(buf, len, _("an integer >= %" PRId64), lo); break;
        case 2: snprintf(buf, len, _("two integers >= %" PRId64), lo); break;
        case 3: snprintf(buf, len, _("three integers >= %" PRId64), lo); break;
        case 4: snprintf(buf, len, _("four integers >= %" PRId64), lo); break;
        default: snprintf(buf, len, _("%d integers >= %" PRId64), nargs, lo);
        }
        return;
    }
    char top[32];
    if (hi > (int64_t)UINT32_MAX && (hi & (hi - 1)) == 0) /* 2^53 reads better than its digits */
        snprintf(top, sizeof top, "2^%d", __builtin_ctzll((unsigned long long)hi));
    else
        snprintf(top, sizeof top, "%" PRId64, hi);
    switch (nargs) {
    case 1: snprintf(buf, len, _("an integer in %" PRId64 "..%s"), lo, top); break;
    case 2: snprintf(buf, len, _("two integers in %" PRId64 "..%s"), lo, top); break;
    case 3: snprintf(buf, len, _("three integers in %" PRId64 "..%s"), lo, top); break;
    case 4: snprintf(buf, len, _("four integers in %" PRId64 "..%s"), lo, top); break;
    default: snprintf(buf, len, _("%d integers in %" PRId64 "..%s"), nargs, lo, top);
    }
}

/* What a row's value must be, as a phrase after "--name needs ": "two integers in 0..1023",
 * "one of table, json or npy", "a file name". */
static void needs(const opt_def *d, char *buf, size_t len)
{
    int n = nargs_of(d);
    char list[512];
    switch (d->kind) {
    case OPT_INT:
        int_needs(n, d->lo, d->hi, buf, len);
        break;
    case OPT_REAL:
        if (d->rlo == 0 && d->rhi == 0)
            snprintf(buf, len, "%s", n > 1 ? _("finite numbers") : _("a finite number"));
        else if (n > 1)
            snprintf(buf, len, _("numbers in %g..%g"), d->rlo, d->rhi);
        else
            snprintf(buf, len, _("a number in %g..%g"), d->rlo, d->rhi);
        break;
    case OPT_CHOICE:
        opt_join(d->choices, list, sizeof list);
        if (d->choices[0] && d->choices[1] && !d->choices[2])
            snprintf(buf, len, "%s", list); /* "table or json" */
        else
            snprintf(buf, len, _("one of %s"), list);
        break;
    case OPT_FILE:
        if (d->metavar && strcmp(d->metavar, "DIR") == 0)
            snprintf(buf, len, "%s", _("a directory"));
        else
            snprintf(buf, len, "%s", (d->flags & OPTF_STDIN) ? _("a file name (or - for standard input)")
                                                               : _("a file name"));
        break;
    case OPT_TEXT: /* "--at needs TEXT P1 P2" says more than "values" */
        if (d->metavar)
            snprintf(buf, len, "%s", d->metavar);
        else
            snprintf(buf, len, "%s", n > 1 ? _("values") : _("a value"));
        break;
    case OPT_IDS:
        snprintf(buf, len, "%s", _("token IDs (\"464 3797\", \"[464, 3797]\" or - for standard input)"));
        break;
    default:
        snprintf(buf, len, "%s", _("no value"));
    }
}

int opt_range_error(const opt_cmd *cmd, const char *name, int64_t lo, int64_t hi,
                    const char *given, int nargs)
{
    char what[128];
    int_needs(nargs > 0 ? nargs : 1, lo, hi, what, sizeof what);
    return report(cmd, "%s needs %s, got '%s'", name, what, given ? given : "");
}

static int bad_value(const opt_cmd *cmd, const opt_def *d, const char *given)
{
    char what[600];
    needs(d, what, sizeof what);
    return report(cmd, "%s needs %s, got '%s'", d->name, what, given);
}

/* ---- suggestions ---- */

size_t opt_edit_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 64 || m > 64) /* names are short; long words are far from every name */
        return n > m ? n : m;
    size_t d[65][65];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            size_t v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < v)
                v = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[n][m];
}

const char *opt_nearest(const char *s, const char *const *names, size_t n)
{
    const char *best = NULL;
    size_t bd = SIZE_MAX, len = strlen(s);
    size_t limit = len <= 4 ? 1 : len <= 8 ? 2 : 3;
    for (size_t k = 0; k < n; k++) {
        size_t dd = opt_edit_distance(s, names[k]);
        if (dd < bd) {
            bd = dd;
            best = names[k];
        }
    }
    return bd <= limit ? best : NULL;
}

static int unknown_option(const opt_cmd *cmd, const char *arg, size_t len)
{
    const char *names[66];
    size_t n = 0;
    for (const opt_def *d = cmd->opts; d && d->name && n < 64; d++)
        if (!(d->flags & OPTF_HIDDEN))
            names[n++] = d->name;
    names[n++] = "--help";
    char given[128];
    snprintf(given, sizeof given, "%.*s", (int)(len < 100 ? len : 100), arg);
    const char *near = given[1] == '-' ? opt_nearest(given, names, n) : NULL;
    if (near)
        return report(cmd, "unknown option '%s'; did you mean '%s'? (see 'gpt2-embed %s --help')",
                      given, near, cmd->name);
    return report(cmd, "unknown option '%s' (see 'gpt2-embed %s --help')", given, cmd->name);
}

/* ---- values ---- */

int opt_parse_int(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    if (!*s || (*s == '-' && lo >= 0) || !(*s == '-' || (*s >= '0' && *s <= '9')))
        return -1;
    errno = 0;
    char *end = NULL;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || end == s || v < lo || v > hi)
        return -1;
    *out = (int64_t)v;
    return 0;
}

static int parse_real(const char *s, double lo, double hi, double *out)
{
    if (!*s || !(*s == '-' || *s == '.' || (*s >= '0' && *s <= '9')))
        return -1; /* no leading space, '+', "inf" or "nan" */
    errno = 0;
    char *end = NULL;
    double v = strtod(s, &end);
    if (errno || *end || end == s || !isfinite(v))
        return -1;
    if (!(lo == 0 && hi == 0) && (v < lo || v > hi))
        return -1;
    *out = v;
    return 0;
}

static int own(opt_parsed *p, void *ptr, void *old)
{
    for (int k = 0; k < p->n_owned; k++)
        if (old && p->owned[k] == old) {
            p->owned[k] = ptr;
            return 0;
        }
    if (p->n_owned == (int)(sizeof p->owned / sizeof p->owned[0]))
        return -1;
    p->owned[p->n_owned++] = ptr;
    return 0;
}

static void disown(opt_parsed *p, void *ptr)
{
    for (int k = 0; k < p->n_owned; k++)
        if (p->owned[k] == ptr) {
            free(ptr);
            p->owned[k] = p->owned[--p->n_owned];
            return;
        }
}

static int set_choice(const opt_cmd *cmd, const opt_def *d, const char *v, int *dst)
{
    size_t n = 0;
    while (d->choices[n] && strcmp(d->choices[n], v) != 0)
        n++;
    if (d->choices[n]) {
        *dst = (int)n;
        return 0;
    }
    char what[600];
    needs(d, what, sizeof what);
    const char *near = opt_nearest(v, d->choices, n);
    if (near)
        return report(cmd, "%s needs %s, got '%s'; did you mean '%s'?", d->name, what, v, near);
    return report(cmd, "%s needs %s, got '%s'", d->name, what, v);
}

static int set_ids(const opt_cmd *cmd, const opt_def *d, const char *v, opt_ids *dst, opt_parsed *p)
{
    disown(p, dst->v);
    memset(dst, 0, sizeof *dst);
    if (strcmp(v, "-") == 0) {
        dst->from_stdin = 1;
        return 0;
    }
    char err[160];
    if (opt_parse_ids(v, strlen(v), UINT32_MAX, &dst->v, &dst->n, err, sizeof err))
        return report(cmd, "%s: %s", d->name, err);
    if (dst->v && own(p, dst->v, NULL)) {
        free(dst->v);
        dst->v = NULL;
        return report(cmd, "too many options");
    }
    return 0;
}

static int append(const opt_cmd *cmd, const char *v, opt_strs *dst, opt_parsed *p)
{
    const char **nv = realloc(dst->v, (dst->n + 1) * sizeof *nv);
    if (!nv)
        return report(cmd, "out of memory");
    if (own(p, nv, dst->v)) {
        free(nv);
        dst->v = NULL;
        return report(cmd, "too many options");
    }
    dst->v = nv;
    dst->v[dst->n++] = v;
    return 0;
}

/* Stores value number k (0-based) of row d. */
static int store(const opt_cmd *cmd, const opt_def *d, int k, const char *v, char *dst, opt_parsed *p)
{
    char *at = dst + d->off;
    switch (d->kind) {
    case OPT_INT:
        return opt_parse_int(v, d->lo, d->hi, (int64_t *)at + k) ? bad_value(cmd, d, v) : 0;
    case OPT_REAL:
        return parse_real(v, d->rlo, d->rhi, (double *)at + k) ? bad_value(cmd, d, v) : 0;
    case OPT_CHOICE:
        return set_choice(cmd, d, v, (int *)at);
    case OPT_FILE:
        if (!*v) {
            char what[600];
            needs(d, what, sizeof what);
            return report(cmd, "%s needs %s, got an empty one ('')", d->name, what);
        }
        if (strcmp(v, "-") == 0 && !(d->flags & OPTF_STDIN))
            return report(cmd, "%s needs a file name, got '-' (standard input/output is not "
                          "possible here)", d->name);
        /* fall through */
    case OPT_TEXT:
        if (d->flags & OPTF_APPEND)
            return append(cmd, v, (opt_strs *)at, p);
        ((const char **)at)[k] = v;
        return 0;
    case OPT_IDS:
        return set_ids(cmd, d, v, (opt_ids *)at, p);
    default:
        return -1;
    }
}

/* ---- the parser ---- */

static const opt_def *find_long(const opt_cmd *cmd, const char *a, size_t len)
{
    for (const opt_def *d = cmd->opts; d && d->name; d++)
        if (strlen(d->name) == len && strncmp(d->name, a, len) == 0)
            return d;
    return NULL;
}

static const opt_def *find_short(const opt_cmd *cmd, char c)
{
    for (const opt_def *d = cmd->opts; d && d->name; d++)
        if (d->short_name && d->short_name == c)
            return d;
    return NULL;
}

/* A value that is really the next option ("-o --format json"): "--", --help or a declared
 * long name, with or without "=VALUE". */
static int looks_like_option(const opt_cmd *cmd, const char *a)
{
    if (strncmp(a, "--", 2) != 0)
        return 0;
    const char *eq = strchr(a, '=');
    size_t len = eq ? (size_t)(eq - a) : strlen(a);
    return len == 2 || strcmp(a, "--help") == 0 || find_long(cmd, a, len) != NULL;
}

/* One option at argv[*i] (already known to start with '-'): finds its row, takes its values
 * (from "=VALUE" and/or the following arguments), stores them. */
static int one_option(const opt_cmd *cmd, int argc, char **argv, int *i, char *dst, opt_parsed *p)
{
    const char *a = argv[*i];
    const char *eq = a[1] == '-' ? strchr(a, '=') : NULL;
    size_t len = eq ? (size_t)(eq - a) : strlen(a);
    const opt_def *d = a[1] == '-' ? find_long(cmd, a, len) : a[2] ? NULL : find_short(cmd, a[1]);
    if (!d)
        return unknown_option(cmd, a, len);
    if (d - cmd->opts < 64)
        p->given |= UINT64_C(1) << (d - cmd->opts);
    if (d->kind == OPT_FLAG) {
        if (eq)
            return report(cmd, "%s takes no value, got '%s'", d->name, a);
        *(int *)(dst + d->off) = 1;
        return 0;
    }
    int n = nargs_of(d), k = 0;
    if (eq && store(cmd, d, k++, eq + 1, dst, p))
        return -1;
    for (; k < n; k++) {
        if (*i + 1 >= argc || looks_like_option(cmd, argv[*i + 1])) {
            char what[600];
            needs(d, what, sizeof what);
            return report(cmd, "%s needs %s", d->name, what);
        }
        if (store(cmd, d, k, argv[++*i], dst, p))
            return -1;
    }
    return 0;
}

/* --lang VALUE / --lang=VALUE: applied by main.c (i18n), skipped here. */
static int skip_lang(const opt_cmd *cmd, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    if (strncmp(a, "--lang", 6) != 0 || (a[6] != '\0' && a[6] != '='))
        return 0;
    if (a[6] == '=')
        return 1;
    if (*i + 1 >= argc)
        return report(cmd, "--lang needs one of ja or en");
    ++*i;
    return 1;
}

static int is_option(const char *a)
{
    /* "-" alone is standard input and "-5" a number: both are positionals */
    return a[0] == '-' && a[1] && !(a[1] >= '0' && a[1] <= '9') && a[1] != '.';
}

static int check_positionals(const opt_cmd *cmd, const opt_parsed *p)
{
    const char *what = cmd->pos_name ? cmd->pos_name : "argument";
    if (p->npos < cmd->min_pos)
        return report(cmd, "missing %s (see 'gpt2-embed %s --help')", what, cmd->name);
    if (cmd->max_pos >= 0 && p->npos > cmd->max_pos) {
        if (cmd->max_pos == 0)
            return report(cmd, "unexpected argument '%s' (this command takes no %s)",
                          p->pos[0], what);
        return report(cmd, "unexpected argument '%s' (at most %d %s)", p->pos[cmd->max_pos],
                      cmd->max_pos, what);
    }
    return 0;
}

int opt_parse(const opt_cmd *cmd, int argc, char **argv, void *dst, opt_parsed *p)
{
    memset(p, 0, sizeof *p);
    p->pos = calloc((size_t)(argc > 0 ? argc : 1), sizeof *p->pos);
    if (!p->pos)
        return report(cmd, "out of memory");
    int dashdash = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (dashdash || !is_option(a)) {
            p->pos[p->npos++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            dashdash = 1;
            continue;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            if (opt_help(cmd, stdout) == 0)
                return 1;
            cli_error("cannot write the help: %s", strerror(errno ? errno : EIO));
            return 2;
        }
        int r = skip_lang(cmd, argc, argv, &i);
        if (r < 0)
            return -1;
        if (r == 0 && one_option(cmd, argc, argv, &i, dst, p))
            return -1;
    }
    return check_positionals(cmd, p);
}

void opt_free(opt_parsed *p)
{
    if (!p)
        return;
    free(p->pos);
    for (int k = 0; k < p->n_owned; k++)
        free(p->owned[k]);
    memset(p, 0, sizeof *p);
}

int opt_exit(int r)
{
    return r == 1 ? 0 : r == 2 ? 1 : r < 0 ? 2 : 0;
}

int opt_given(const opt_cmd *cmd, const opt_parsed *p, const char *name)
{
    for (const opt_def *d = cmd->opts; d && d->name; d++)
        if (strcmp(d->name, name) == 0)
            return (p->given >> (d - cmd->opts)) & 1;
#ifndef NDEBUG
    fprintf(stderr, "opt_given: %s declares no option %s\n", cmd->name, name);
    abort();
#endif
    return 0;
}

/* ---- the ID grammar: the library's (idlist.c), its message in the program's buffer ---- */

int opt_parse_ids(const char *s, size_t len, uint32_t n_vocab, uint32_t **ids, size_t *n,
                  char *err, size_t errlen)
{
    g2e_err e;
    if (!idlist_parse(s, len, n_vocab, ids, n, &e))
        return 0;
    snprintf(err, errlen, "%s", e.msg);
    return -1;
}

/* ---- help and manual ---- */

static const char *metavar_of(const opt_def *d)
{
    if (d->metavar)
        return TR(d->metavar);
    switch (d->kind) {
    case OPT_FLAG: return "";
    case OPT_INT: return d->nargs > 1 ? "N..." : "N";
    case OPT_REAL: return "X";
    case OPT_CHOICE: return "NAME";
    case OPT_FILE: return "FILE";
    case OPT_IDS: return "IDS";
    default: return "VALUE";
    }
}

/* The left column: "-o, --output FILE", "    --pos A B", "    --format table|json". */
static void left_column(const opt_def *d, const char *mv, char *buf, size_t len)
{
    char choices[256];
    if (d->kind == OPT_CHOICE && !d->metavar) {
        size_t o = 0;
        choices[0] = '\0';
        for (size_t k = 0; d->choices[k] && o < sizeof choices; k++)
            o += (size_t)snprintf(choices + o, sizeof choices - o, "%s%s", k ? "|" : "", d->choices[k]);
        mv = choices;
    }
    if (d->short_name)
        snprintf(buf, len, "-%c, %s%s%s", d->short_name, d->name, *mv ? " " : "", mv);
    else
        snprintf(buf, len, "    %s%s%s", d->name, *mv ? " " : "", mv);
}

/* The tail of a help line, in two new strings (caller frees; NULL when there is none or
 * out of memory): *range " (0..1023)" or " (table, json or npy)", *def " [default: x]"
 * (kept whole when the help is wrapped). */
static void tail_parts(const opt_def *d, char **range, char **def)
{
    char list[512] = "";   /* the program's own choice names: far below the size */
    if (d->kind == OPT_CHOICE && d->metavar)
        opt_join(d->choices, list, sizeof list);
    else if (d->kind == OPT_INT && d->hi < (int64_t)UINT32_MAX) /* huge ranges say nothing */
        snprintf(list, sizeof list, "%" PRId64 "..%" PRId64, d->lo, d->hi);
    else if (d->kind == OPT_REAL && !(d->rlo == 0 && d->rhi == 0))
        snprintf(list, sizeof list, "%g..%g", d->rlo, d->rhi);
    *range = *list ? textfmt_printf(" (%s)", list) : NULL;
    *def = d->def ? textfmt_printf(_(" [default: %s]"), d->def) : NULL;
}

/* ---- wrapping help text ---- */

#define HELP_COLUMNS 96   /* help lines end before this display column */

/* Japanese line-breaking rules (kinsoku shori, the common subset of JIS X 4051): characters
 * that may not begin a line (closing brackets, punctuation, small kana, the long-vowel mark,
 * the iteration mark) and characters that may not end one (opening brackets); the ASCII
 * counterparts likewise. */
static const int32_t NO_START[] = {
    0x3001, 0x3002, 0xFF0C, 0xFF0E, 0xFF09, 0x300D, 0x300F, 0x3011, 0x3015, 0x3009, 0x300B,
    0xFF5D, 0xFF3D, 0x30FB, 0x30FC, 0xFF01, 0xFF1F, 0xFF1A, 0xFF1B, 0x2026, 0x2025, 0x3005,
    0x301C, 0x3041, 0x3043, 0x3045, 0x3047, 0x3049, 0x3063, 0x3083, 0x3085, 0x3087, 0x308E,
    0x3095, 0x3096, 0x30A1, 0x30A3, 0x30A5, 0x30A7, 0x30A9, 0x30C3, 0x30E3, 0x30E5, 0x30E7,
    0x30EE, 0x30F5, 0x30F6, 0x309D, 0x309E, 0x30FD, 0x30FE, ')', ']', '}', ',', '.', ':', ';',
    '!', '?', '%'};
static const int32_t NO_END[] = {0xFF08, 0x300C, 0x300E, 0x3010, 0x3014, 0x3008, 0x300A, 0xFF5B,
                                 0xFF3B, '(', '[', '{'};

static int in_set(int32_t c, const int32_t *set, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (set[i] == c)
            return 1;
    return 0;
}

int opt_no_line_start(int32_t c)
{
    return in_set(c, NO_START, sizeof NO_START / sizeof *NO_START);
}

int opt_no_line_end(int32_t c)
{
    return in_set(c, NO_END, sizeof NO_END / sizeof *NO_END);
}

/* The next atom of text[0..n): one wide (East Asian) character, or a run of narrow
 * characters up to a space or a wide character. *w: its display width, *last: its last
 * code point. Returns its length in bytes (>= 1 when n > 0). */
static size_t help_atom(const char *text, size_t n, size_t *w, int32_t *last)
{
    size_t at = 0, k;
    *w = 0;
    while (at < n && text[at] != ' ') {
        int32_t c = text_step(text + at, n - at, &k);
        int cw = text_cp_width(c);
        if (cw == 2 && at > 0)
            break;
        at += k;
        *w += (size_t)(cw > 0 ? cw : 0);
        *last = c;
        if (cw == 2)
            break;
    }
    return at;
}

/* The next unit of help text that must not be broken (text[0..n) does not start with a
 * space): atoms joined while the one before may not end a line or the next may not begin
 * one. *w receives its display width; returns its length in bytes. */
static size_t help_unit(const char *text, size_t n, size_t *w)
{
    size_t at = 0, aw, k;
    int32_t last = 0;
    *w = 0;
    while (at < n && text[at] != ' ') {
        at += help_atom(text + at, n - at, &aw, &last);
        *w += aw;
        if (at >= n || text[at] == ' ')
            break;
        int32_t next = text_step(text + at, n - at, &k);
        if (!opt_no_line_end(last) && !opt_no_line_start(next))
            break;
    }
    return at;
}

/* Writes text[0..n) from display column *col (lines after the first indented by `indent`),
 * breaking lines before column HELP_COLUMNS at spaces and between units (help_unit); a
 * break replaces the spaces at it. */
static void wrap_run(FILE *f, const char *text, size_t n, size_t indent, size_t *col)
{
    size_t at = 0;
    int space = 0;   /* a space came before this unit */
    while (at < n && text[at] == ' ')
        at++, space = 1;
    while (at < n) {
        size_t w, len = help_unit(text + at, n - at, &w);
        if (*col > indent && *col + (size_t)space + w > HELP_COLUMNS) {
            fprintf(f, "\n%*s", (int)indent, "");
            *col = indent;
        } else if (*col > indent && space) {
            fputc(' ', f);
            ++*col;
        }
        fwrite(text + at, 1, len, f);
        *col += w;
        at += len;
        space = at < n && text[at] == ' ';
        while (at < n && text[at] == ' ')
            at++;
    }
}

/* text with each newline joined: as a space between narrow characters, as nothing where a
 * wide character stands on either side (Japanese lines join without a space). A new string
 * (caller frees), NULL when out of memory. */
static char *join_lines(const char *text)
{
    size_t n = strlen(text), o = 0, k;
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (text[i] != '\n') {
            out[o++] = text[i];
            continue;
        }
        size_t j = i;   /* the character before the newline: back to its lead byte */
        while (j > 0 && ((unsigned char)text[j - 1] & 0xC0) == 0x80)
            j--;
        int wide_before = j > 0 && text_cp_width(text_step(text + j - 1, n - (j - 1), &k)) == 2;
        int wide_after = i + 1 < n && text_cp_width(text_step(text + i + 1, n - i - 1, &k)) == 2;
        if (!wide_before && !wide_after && o > 0 && i + 1 < n)
            out[o++] = ' ';
    }
    out[o] = '\0';
    return out;
}

void opt_wrap(FILE *f, const char *text, size_t col, size_t indent, const char *keep)
{
    char *joined = join_lines(text);
    const char *t = joined ? joined : text;
    wrap_run(f, t, strlen(t), indent, &col);
    if (keep && *keep) {   /* one unit, on the next line when it does not fit */
        const char *k = keep + strspn(keep, " ");
        size_t w = text_width(k, strlen(k));
        if (col > indent && col + 1 + w > HELP_COLUMNS) {
            fprintf(f, "\n%*s", (int)indent, "");
            col = indent;
        } else if (col > indent && k != keep) {
            fputc(' ', f);
        }
        fputs(k, f);
    }
    fputc('\n', f);
    free(joined);
}

int opt_help(const opt_cmd *cmd, FILE *f)
{
    fprintf(f, _("usage: gpt2-embed %s %s\n"), cmd->name, TR(cmd->synopsis) ? TR(cmd->synopsis) : "");
    if (cmd->purpose)
        fprintf(f, "%s\n", TR(cmd->purpose));
    fputs(_("\noptions:\n"), f);
    char left[300];
    int width = 10; /* "-h, --help" */
    for (const opt_def *d = cmd->opts; d && d->name; d++) {
        left_column(d, metavar_of(d), left, sizeof left);
        if (!(d->flags & OPTF_HIDDEN) && (int)strlen(left) > width)
            width = (int)strlen(left) > 28 ? 28 : (int)strlen(left);
    }
    for (const opt_def *d = cmd->opts; d && d->name; d++) {
        if (d->flags & OPTF_HIDDEN)
            continue;
        left_column(d, metavar_of(d), left, sizeof left);
        char *range = NULL, *def = NULL;
        tail_parts(d, &range, &def);
        char *text = textfmt_printf("%s%s", TR(d->help) ? TR(d->help) : "", range ? range : "");
        if ((int)strlen(left) > width) /* a long one gets a line of its own */
            fprintf(f, "  %s\n  %-*s  ", left, width, "");
        else
            fprintf(f, "  %-*s  ", width, left);
        opt_wrap(f, text ? text : "", (size_t)width + 4, (size_t)width + 4, def);
        free(text), free(range), free(def);
    }
    fprintf(f, "  %-*s  %s\n", width, "-h, --help", gettext("this help"));
    if (cmd->examples)
        fprintf(f, _("\nexamples:\n%s"), TR(cmd->examples));
    fflush(f);
    return ferror(f) ? -1 : 0;
}

/* Text for troff: backslashes doubled, '-' as \-, a leading '.' or '\'' protected. */
static void troff(FILE *f, const char *s)
{
    if (*s == '.' || *s == '\'')
        fputs("\\&", f);
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\e", f);
        else if (*s == '-')
            fputs("\\-", f);
        else
            fputc(*s, f);
    }
}

/* 1 if an option name starts at s (at the start of a word of text): "--pos", "-o". */
static int option_at(const char *text, const char *s)
{
    int word_start = s == text || !(isalnum((unsigned char)s[-1]) || s[-1] == '-' || s[-1] == '_');
    return word_start && s[0] == '-' &&
           (s[1] == '-' ? isalpha((unsigned char)s[2]) : isalpha((unsigned char)s[1]) && !isalnum((unsigned char)s[2]));
}

void opt_man_text(FILE *f, const char *s, int bold_options)
{
    if (*s == '.' || *s == '\'')
        fputs("\\&", f);
    for (const char *p = s; *p;) {
        if (bold_options && option_at(s, p)) {
            size_t n = strspn(p, "-abcdefghijklmnopqrstuvwxyz0123456789");
            char *name = strndup(p, n);
            fputs("\\fB", f);
            troff(f, name ? name : "");
            fputs("\\fR", f);
            free(name);
            p += n;
            continue;
        }
        if (*p == '\\')
            fputs("\\e", f);
        else if (*p == '-')
            fputs("\\-", f);
        else
            fputc(*p, f);
        p++;
    }
}

int opt_man(const opt_cmd *cmd, FILE *f)
{
    char choices[256];
    for (const opt_def *d = cmd->opts; d && d->name; d++) {
        if (d->flags & OPTF_HIDDEN)
            continue;
        const char *mv = d->metavar ? d->metavar : d->kind == OPT_FLAG ? "" : metavar_of(d);
        if (d->kind == OPT_CHOICE && !d->metavar) { /* "\-\-pe learned|sinusoidal", all bold */
            size_t o = 0;
            choices[0] = '\0';
            for (size_t k = 0; d->choices[k] && o < sizeof choices; k++)
                o += (size_t)snprintf(choices + o, sizeof choices - o, "%s%s", k ? "|" : "", d->choices[k]);
        }
        fputs(".TP\n", f);
        fputs(*mv && !(d->kind == OPT_CHOICE && !d->metavar) ? ".BI \"" : ".B \"", f);
        if (d->short_name)
            fprintf(f, "\\-%c, ", d->short_name);
        troff(f, d->name);
        if (d->kind == OPT_CHOICE && !d->metavar) {
            fputc(' ', f);
            troff(f, choices);
            fputs("\"", f);
        } else if (*mv) {
            fputs(" \" \"", f);
            for (const char *c = mv; *c; c++)
                fputs(*c == '"' ? "\\(dq" : (char[]){*c, 0}, f);
            fputc('"', f);
        } else {
            fputc('"', f);
        }
        fputc('\n', f);
        char *range = NULL, *def = NULL;
        tail_parts(d, &range, &def);
        troff(f, d->help ? TR(d->help) : "");   /* the Japanese manual: --lang ja __man */
        troff(f, range ? range : "");
        troff(f, def ? def : "");
        free(range), free(def);
        fputc('\n', f);
    }
    fflush(f);
    return ferror(f) ? -1 : 0;
}
