/* SPDX-License-Identifier: MIT */
/* main.c — gpt2-embed's entry point: a table of subcommands and nothing else.
 *
 * `gpt2-embed TEXT` (no subcommand) runs the main job, `embed`. A first argument
 * that names a subcommand selects it; to embed a text that is itself a command
 * name, write `gpt2-embed embed -- inspect`. A first argument that is one word close to a
 * command (a typo, or another spelling such as `tokenise` or `version`) is refused with a
 * suggestion rather than embedded: a mistyped command must not print numbers with status 0.
 * (distance 1, or 2 for words of 8 letters or more). A text of several words in one argument,
 * or a word farther from every command, is the main job's.
 * The same holds after global options (the main job's, with their values): `gpt2-embed
 * --weights FILE exercise` runs exercise with --weights FILE, `... exercies` is refused.
 * `--lang ja|en` anywhere before `--` is taken out here, for every command (opt.c skips it too).
 */
#include "cli.h"
#include "i18n.h"
#include "opt.h"

#include <string.h>

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct command COMMANDS[] = {
#define CMD(name, fn, summary) {name, fn, summary},
#include "commands.def"
#undef CMD
};
#define N_COMMANDS (sizeof COMMANDS / sizeof COMMANDS[0])

/* The commands with declared option tables, for the manual. */
static const struct spec {
    const char *name;
    const opt_cmd *const *spec;
} SPECS[] = {
#define OPTS(name, spec) {name, &spec},
#include "commands.def"
};
#define N_SPECS (sizeof SPECS / sizeof SPECS[0])

/* The commands' entries of the manual's COMMANDS section. */
static const struct doc {
    const char *name, *args, *text;
} DOCS[] = {
#define DOC(name, args, text) {name, args, text},
#include "commands.def"
};
#define N_DOCS (sizeof DOCS / sizeof DOCS[0])

/* The COMMANDS section's entries, in the language of the messages. */
static int man_commands(void)
{
    for (size_t i = 0; i < N_DOCS; i++) {
        printf(".TP\n.B %s", DOCS[i].name);
        if (*DOCS[i].args) {
            fputs(" \\fI", stdout);
            opt_man_text(stdout, DOCS[i].args, 0);
            fputs("\\fR", stdout);
        }
        fputc('\n', stdout);
        opt_man_text(stdout, gettext(DOCS[i].text), 1);
        fputc('\n', stdout);
    }
    return fflush(stdout) ? EXIT_ERR : EXIT_OK;
}

/* Hidden, for the build and the manual check (not in --help):
 *   gpt2-embed __man            the OPTIONS sections of the manual, in troff (tools/genman.sh)
 *   gpt2-embed __man commands   the entries of its COMMANDS section
 *   gpt2-embed __options CMD    CMD's visible option names, one per line */
static int hidden(int argc, char **argv)
{
    if (strcmp(argv[1], "__man") == 0 && argc == 3 && strcmp(argv[2], "commands") == 0)
        return man_commands();
    if (strcmp(argv[1], "__man") == 0 && argc == 2) {
        for (size_t i = 0; i < N_SPECS; i++) {
            printf(".SS %s\n", SPECS[i].name);
            if (opt_man(*SPECS[i].spec, stdout))
                return EXIT_ERR;
        }
        return fflush(stdout) ? EXIT_ERR : EXIT_OK;
    }
    for (size_t i = 0; argc == 3 && i < N_SPECS; i++)
        if (strcmp(SPECS[i].name, argv[2]) == 0) {
            for (const opt_def *d = (*SPECS[i].spec)->opts; d->name; d++)
                if (!(d->flags & OPTF_HIDDEN))
                    printf("%s\n", d->name);
            return fflush(stdout) ? EXIT_ERR : EXIT_OK;
        }
    cli_error("%s: no such hidden command or command without a table", argv[1]);
    return EXIT_USAGE;
}

/* Other spellings of a command (or of --version) that are too far for the edit distance. */
static const char *const ALIASES[][2] = {
    {"version", "--version"},   {"tokenise", "tokenize"},   {"tokens", "tokenize"},
    {"similar", "similarity"},  {"cosine", "similarity"},   {"sinusoid", "sinusoidal"},
    {"detokenize", "decode"},   {"fetch", "download"},      {"exercises", "exercise"},
};

static void usage(FILE *f)
{
    fputs(_("usage: gpt2-embed [OPTIONS] TEXT        GPT-2 input vectors of TEXT (see 'gpt2-embed embed --help')\n"
            "       gpt2-embed COMMAND [OPTIONS]     (each COMMAND has --help)\n\ncommands:\n"), f);
    for (size_t i = 0; i < N_COMMANDS; i++)   /* summaries: xgettext --keyword=CMD:3 */
        fprintf(f, "  %-11s %s\n", COMMANDS[i].name, gettext(COMMANDS[i].summary));
    fprintf(f, _("\ngpt2-embed %s — exact, fast GPT-2 embedding stage\n"), G2E_VERSION);
}

static const struct command *find(const char *name)
{
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(COMMANDS[i].name, name) == 0)
            return &COMMANDS[i];
    return NULL;
}

/* The command (or "--version") a single word a most likely meant, or NULL. */
static const char *meant(const char *a)
{
    if (!*a || a[0] == '-' || strpbrk(a, " \t\n\r\v\f"))
        return NULL;
    for (size_t k = 0; k < sizeof ALIASES / sizeof ALIASES[0]; k++)
        if (strcmp(a, ALIASES[k][0]) == 0)
            return ALIASES[k][1];
    /* stricter than opt_nearest: a text is more often a real word ("hello" is 2 from "help") */
    size_t limit = strlen(a) >= 8 ? 2 : 1;
    for (size_t i = 0; i <= N_COMMANDS; i++) {
        const char *name = i < N_COMMANDS ? COMMANDS[i].name : "help";
        if (opt_edit_distance(a, name) <= limit)
            return name;
    }
    return NULL;
}

static int unknown_command(const char *a, int embed_hint)
{
    const char *m = meant(a);
    if (m && embed_hint)
        cli_error("unknown command '%s'; did you mean '%s'? (to embed this text, use: gpt2-embed "
                  "embed -- %s)", a, m, a);
    else if (m)
        cli_error("unknown command '%s'; did you mean '%s'? (see 'gpt2-embed --help')", a, m);
    else
        cli_error("unknown command '%s' (see 'gpt2-embed --help')", a);
    return EXIT_USAGE;
}

static int help_command(int argc, char **argv)
{
    if (argc > 2) {
        const struct command *c = find(argv[2]);
        if (!c)
            return unknown_command(argv[2], 0);
        char *hargv[] = {(char *)c->name, "--help", NULL};
        return c->run(2, hargv);
    }
    usage(stdout);
    return EXIT_OK;
}

/* Takes every "--lang X" / "--lang=X" before "--" out of argv (i18n_init has read them), so
 * that every command accepts it, converted to opt.h or not. Returns the new argc, or -1
 * after an error (--lang without a value). */
static int strip_lang(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0;) {
        if (strncmp(argv[i], "--lang", 6) != 0 || (argv[i][6] != '=' && argv[i][6] != '\0')) {
            i++;
            continue;
        }
        int k = argv[i][6] == '=' ? 1 : 2;
        if (i + k > argc) {
            cli_error("--lang needs one of ja or en");
            return -1;
        }
        memmove(argv + i, argv + i + k, (size_t)(argc - i - k + 1) * sizeof *argv); /* keeps the NULL */
        argc -= k;
    }
    return argc;
}

/* The option of the main job's table that a names ("--weights", "--weights=F", "-o"), or NULL. */
static const opt_def *embed_option(const char *a)
{
    const opt_cmd *embed = NULL;
    for (size_t i = 0; i < N_SPECS; i++)
        if (strcmp(SPECS[i].name, "embed") == 0)
            embed = *SPECS[i].spec;
    for (const opt_def *d = embed ? embed->opts : NULL; d && d->name; d++) {
        size_t n = strlen(d->name);
        if ((strncmp(a, d->name, n) == 0 && (a[n] == '\0' || a[n] == '=')) ||
            (d->short_name && a[0] == '-' && a[1] == d->short_name))
            return d;
    }
    return NULL;
}

/* The index of the first word after the global options that start the command line
 * (`gpt2-embed --weights FILE exercise`: the main job's options, with their values), or 0
 * when there is none or an option is not the main job's. */
static int word_after_options(int argc, char **argv)
{
    for (int i = 1; i < argc;) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] == '\0')
            return i;
        const opt_def *d = strcmp(a, "--") == 0 ? NULL : embed_option(a);
        if (!d)
            return 0;
        int attached = strchr(a, '=') != NULL || (a[1] != '-' && a[2] != '\0');
        i += d->kind == OPT_FLAG || attached ? 1 : 1 + (d->nargs > 0 ? d->nargs : 1);
    }
    return 0;
}

/* argv[k] names a command, after global options: that command with the options moved after
 * its name; a word close to one: refused as at the front. -1: neither (the main job's). */
static int command_after_options(int argc, char **argv)
{
    int k = word_after_options(argc, argv);
    if (k <= 1)
        return -1;
    if (strcmp(argv[k], "help") == 0) {   /* `--weights F help`: the usage, as `help` alone */
        usage(stdout);
        return EXIT_OK;
    }
    const struct command *c = find(argv[k]);
    if (!c)
        return meant(argv[k]) ? unknown_command(argv[k], 1) : -1;
    char *name = argv[k];
    memmove(argv + 2, argv + 1, (size_t)(k - 1) * sizeof *argv);
    argv[1] = name;
    return c->run(argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
    cli_start();
    /* before anything is printed, so even usage errors are in the chosen language */
    const char *bad_lang = NULL;
    if (i18n_init(argc, argv, &bad_lang) != 0) {
        cli_error("--lang needs one of ja or en, got '%s'", bad_lang);
        return EXIT_USAGE;
    }
    argc = strip_lang(argc, argv);
    if (argc < 0)
        return EXIT_USAGE;
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *a = argv[1];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0 || strcmp(a, "help") == 0)
        return help_command(argc, argv);
    if (strncmp(a, "__", 2) == 0)
        return hidden(argc, argv);
    if (strcmp(a, "--version") == 0) {
        printf("gpt2-embed %s\n", G2E_VERSION);
        return EXIT_OK;
    }
    const struct command *c = find(a);
    if (c)
        return c->run(argc - 1, argv + 1);
    if (meant(a))
        return unknown_command(a, 1);
    int rc = command_after_options(argc, argv);
    if (rc >= 0)
        return rc;
    /* No subcommand: the whole command line belongs to the main job. */
    c = find("embed");
    argv[0] = (char *)"embed";
    return c->run(argc, argv);
}
