/* main.c — gpt2-embed's entry point: a table of subcommands and nothing else.
 *
 * `gpt2-embed TEXT` (no subcommand) runs the main job, `embed`. A first argument
 * that names a subcommand selects it; to embed a text that is itself a command
 * name, write `gpt2-embed embed -- inspect`.
 */
#include "cli.h"

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

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gpt2-embed [OPTIONS] TEXT        GPT-2 input vectors of TEXT (see 'gpt2-embed embed --help')\n"
            "       gpt2-embed COMMAND [OPTIONS]     (each COMMAND has --help)\n\ncommands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(f, "  %-11s %s\n", COMMANDS[i].name, COMMANDS[i].summary);
    fprintf(f, "\ngpt2-embed %s — exact, fast GPT-2 embedding stage\n", G2E_VERSION);
}

static const struct command *find(const char *name)
{
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(COMMANDS[i].name, name) == 0)
            return &COMMANDS[i];
    return NULL;
}

int main(int argc, char **argv)
{
    cli_start();
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *a = argv[1];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0 || strcmp(a, "help") == 0) {
        if (argc > 2 && strcmp(a, "help") == 0) {
            const struct command *c = find(argv[2]);
            if (!c) {
                cli_error("unknown command '%s' (see 'gpt2-embed --help')", argv[2]);
                return EXIT_USAGE;
            }
            char *hargv[] = {(char *)c->name, "--help", NULL};
            return c->run(2, hargv);
        }
        usage(stdout);
        return EXIT_OK;
    }
    if (strcmp(a, "--version") == 0) {
        printf("gpt2-embed %s\n", G2E_VERSION);
        return EXIT_OK;
    }
    const struct command *c = find(a);
    if (c)
        return c->run(argc - 1, argv + 1);
    /* No subcommand: the whole command line belongs to the main job. */
    c = find("embed");
    argv[0] = (char *)"embed";
    return c->run(argc, argv);
}
