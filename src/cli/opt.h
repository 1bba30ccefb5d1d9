/* SPDX-License-Identifier: MIT */
/* opt.h — declared options: one table per command, one parser, one wording for every parse
 * error, and --help generated from the same table (the way curl's tool keeps its options in
 * one table and turns every ParameterError into text in one place).
 *
 * A command declares
 *   - a struct of its option values (zero-initialised by the command, defaults set there or
 *     in the table's `def` text, see below),
 *   - a static table of opt_def rows, one per option, ending with OPT_END,
 *   - one opt_cmd naming the command, its synopsis, purpose paragraph and examples,
 * and its function reads:   parse (opt_parse) -> check combinations -> run.
 *
 * Accepted forms: "--name VALUE", "--name=VALUE", "-x VALUE" (short form, when declared),
 * "--" (everything after it is positional), an option given twice (the last one wins, except
 * OPTF_APPEND rows, which collect every value), "-" as a value (stdin, for OPT_FILE rows with
 * OPTF_STDIN; a plain "-" alone is a positional, and so is "-5": a word is an option when it
 * starts with '-' and a letter). A row with nargs > 1 takes its first value from "=VALUE" or
 * the next argument, the rest from the arguments after it ("--pos=0 5"). No abbreviations
 * of long names: an unknown name is an error that suggests the nearest declared name
 * ("unknown option '--pso'; did you mean '--pos'?"); a bad choice suggests the nearest choice.
 * Every command also takes -h/--help (prints the generated help on stdout, exit 0) and
 * --lang ja|en (applied by main.c before parsing, so even parse errors are in that language;
 * main.c takes it out of argv before "--", and the parser also accepts and skips it).
 *
 * Messages: every parse error is one line on stderr, "gpt2-embed CMD: <what>", produced by
 * opt.c alone (opt_usage_error); exit status 2 (EXIT_USAGE). Checks a command makes after parsing
 * that concern one option's value (e.g. a position beyond the model's n_ctx, known only once
 * the weights are open) use opt_range_error / opt_usage_error so the wording stays the same:
 *   "gpt2-embed similarity: --pos needs two integers in 0..1023, got '-1'"
 *
 * Translation: help, metavar and purpose strings in the tables are marked N_("...") and
 * translated when printed; option names and choice values never are.
 *
 * Deliberately left out: abbreviations of long options, combined short flags (-abc),
 * optional values, options after "--".
 */
#ifndef G2E_OPT_H
#define G2E_OPT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifndef N_
#define N_(s) s
#endif

typedef enum opt_kind {
    OPT_FLAG,   /* no value; dst int, set to 1 ("--flag=x" is an error)                       */
    OPT_INT,    /* dst int64_t[nargs]; a whole decimal number in [lo, hi] (no sign for lo >= 0) */
    OPT_REAL,   /* dst double[nargs]; a finite number in [rlo, rhi]                             */
    OPT_CHOICE, /* dst int: index into choices[] (exact match; a near miss is suggested)        */
    OPT_FILE,   /* dst const char *; a non-empty path ("-" only with OPTF_STDIN)                */
    OPT_TEXT,   /* dst const char *[nargs]; any string, the empty one included                  */
    OPT_IDS,    /* dst opt_ids; token IDs in the one grammar (see opt_parse_ids), or "-" = stdin */
} opt_kind;

enum {
    OPTF_STDIN = 1 << 0,  /* OPT_FILE: "-" means standard input                              */
    OPTF_APPEND = 1 << 1, /* OPT_FILE/OPT_TEXT with nargs 1: dst is opt_strs, every value kept */
    OPTF_HIDDEN = 1 << 2, /* parsed, but left out of --help and the manual (test-only knobs)   */
};

/* What OPTF_APPEND rows collect: pointers into argv (not copies); v is owned by the
 * opt_parsed the parser filled (freed by opt_free). */
typedef struct opt_strs {
    const char **v;
    size_t n;
} opt_strs;

/* What OPT_IDS rows hold: the IDs (owned by opt_parsed, freed by opt_free), or from_stdin = 1
 * when the value was "-" (the command then reads the IDs from stdin with opt_parse_ids). */
typedef struct opt_ids {
    uint32_t *v;
    size_t n;
    int from_stdin;
} opt_ids;

typedef struct opt_def {
    const char *name;       /* "--pos" (with the dashes)                                     */
    char short_name;        /* 'o' for -o, or 0                                               */
    opt_kind kind;
    int nargs;              /* values after the name (0 means 1; OPT_FLAG ignores it)         */
    int flags;              /* OPTF_*                                                         */
    size_t off;             /* offsetof(the command's option struct, field)                   */
    int64_t lo, hi;         /* OPT_INT range                                                  */
    double rlo, rhi;        /* OPT_REAL range (both 0: any finite number)                     */
    const char *const *choices; /* OPT_CHOICE: NULL-terminated list of accepted values        */
    const char *metavar;    /* "A B", "FILE", "N" ... for help (N_-marked), NULL: from kind    */
    const char *def;        /* the default as shown in help ("table", "5"), or NULL           */
    const char *help;       /* one line, N_-marked                                            */
} opt_def;

#define OPT_END {0}

typedef struct opt_cmd {
    const char *name;       /* "similarity"                                                   */
    const char *synopsis;   /* after "usage: gpt2-embed NAME ", e.g. "[OPTIONS] TEXT..." (N_)   */
    const char *purpose;    /* a paragraph (N_), may hold newlines                              */
    const char *examples;   /* example lines (N_), or NULL                                     */
    const opt_def *opts;    /* the table, ending with OPT_END                                   */
    int min_pos, max_pos;   /* how many positional arguments (max_pos -1: no limit)             */
    const char *pos_name;   /* for messages: "TEXT", "FIGURE" ...                               */
} opt_cmd;

/* The result of a parse: positionals (pointers into argv, in order) and which rows were given. */
typedef struct opt_parsed {
    const char **pos;       /* owned; the strings are argv's                                   */
    int npos;
    uint64_t given;         /* bit i set: row i of the table was given at least once           */
    void *owned[64];        /* allocations made for OPTF_APPEND and OPT_IDS rows               */
    int n_owned;
} opt_parsed;

/* Parses argv[1..argc) (argv[0] is the command's name) into the struct at dst as the table
 * says. Returns 0 on success; 1 when --help was given (help already printed on stdout: the
 * command returns EXIT_OK); 2 when --help was given but writing it failed (an error line
 * printed: EXIT_ERR); -1 after printing one error line (the command returns EXIT_USAGE).
 * opt_exit turns any non-zero result into that exit status. On every return *p must be
 * released with opt_free. A value that is "--", --help or a declared long option counts as
 * missing ("-o --format json": -o needs a file name). */
int opt_parse(const opt_cmd *cmd, int argc, char **argv, void *dst, opt_parsed *p);

/* The exit status for a non-zero opt_parse result: 1 -> 0, 2 -> 1, -1 -> 2. */
int opt_exit(int r);

/* Releases what opt_parse allocated; accepts a zeroed opt_parsed. */
void opt_free(opt_parsed *p);

/* 1 if the option named `name` ("--pos") was given (rows 0..63 of a table). Asking for a name the table does not
 * declare is a programming error (aborts in debug builds, returns 0 otherwise). */
int opt_given(const opt_cmd *cmd, const opt_parsed *p, const char *name);

/* The generated help: usage line, purpose, one line per visible option (name, metavar,
 * help, default, range or choices), examples. Returns 0, or -1 if writing failed. */
int opt_help(const opt_cmd *cmd, FILE *f);

/* Writes text from display column col (where the caller's output stands) to the end of
 * the line, further lines indented by `indent` columns, every line ending before display
 * column 96, and a newline. Lines break at spaces and, in Japanese, between characters,
 * by the line-breaking rules: no line begins with a character opt_no_line_start names
 * (、。）」ャー… and ASCII ) ] , . : ; ! ? %), none ends with one opt_no_line_end names
 * (（「『【 and ASCII ( [ {). A newline in text joins its lines (with a space between
 * narrow characters, without one next to a wide character). keep (may be NULL): a last
 * piece never broken (" [default: x]"), on a line of its own when it does not fit. */
void opt_wrap(FILE *f, const char *text, size_t col, size_t indent, const char *keep);
int opt_no_line_start(int32_t c);
int opt_no_line_end(int32_t c);

/* The OPTIONS part of the manual page for cmd, in troff (.TP per option), from the table:
 * the man page and README checks compare against this. Returns 0, or -1 on a write error. */
int opt_man(const opt_cmd *cmd, FILE *f);

/* Prose s as troff text (backslashes, '-' and a leading '.' escaped); with bold_options, an
 * option name that starts a word (--pos, -o) is set in bold. */
void opt_man_text(FILE *f, const char *s, int bold_options);

/* Post-parse checks in the parser's wording; both print one line and return -1:
 *   opt_range_error(cmd, "--pos", 0, 1023, "-1", 2)
 *       -> "gpt2-embed similarity: --pos needs two integers in 0..1023, got '-1'"
 *   opt_usage_error(cmd, "--window cannot be combined with --truncate")
 *       -> "gpt2-embed embed: --window cannot be combined with --truncate"  */
int opt_range_error(const opt_cmd *cmd, const char *name, int64_t lo, int64_t hi,
                    const char *given, int nargs);
int opt_usage_error(const opt_cmd *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A whole decimal number in [lo, hi] as OPT_INT rows take it (no sign when lo >= 0, no
 * spaces, no '+'), for values a row cannot declare alone (e.g. the positions of --at TEXT P1
 * P2). Returns 0 with *out set, or -1 (nothing printed). */
int opt_parse_int(const char *s, int64_t lo, int64_t hi, int64_t *out);

/* The one ID-list grammar (--ids, decode, stdin): integers separated by spaces, commas or
 * both, optionally inside one pair of brackets "[464, 3797]"; newlines count as spaces; an
 * empty list is allowed. Each ID must be < n_vocab (pass UINT32_MAX to skip that check).
 * On success *ids (caller frees) and *n are set, 0 returned; on failure -1 and a message in
 * err (what was found, at which character). */
int opt_parse_ids(const char *s, size_t len, uint32_t n_vocab, uint32_t **ids, size_t *n,
                  char *err, size_t errlen);

/* The NULL-terminated names as "a, b or c" (a sentence's list) into buf[len]. */
void opt_join(const char *const *names, char *buf, size_t len);

/* Edit distance (Damerau–Levenshtein, optimal string alignment) of two ASCII strings, for
 * "did you mean" suggestions of commands and options. */
size_t opt_edit_distance(const char *a, const char *b);

/* The nearest of names[0..n) to s, if it is close enough to be a typo (distance 1 for
 * names up to 4 characters, 2 up to 8, 3 beyond), else NULL. The one rule behind every
 * "did you mean" (options, choices, commands). */
const char *opt_nearest(const char *s, const char *const *names, size_t n);

#endif
