/* test_cli.c — the program's command line as a user meets it: dispatch, help, bad usage. */
#include "support.h"

#include <criterion/criterion.h>
#include <string.h>

Test(cli, no_arguments_is_a_usage_error)
{
    run_result r = run_g2e(NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "usage:") != NULL, "stderr: %s", r.err);
    cr_expect_eq(r.out_len, 0);
    run_free(&r);
}

Test(cli, help_lists_commands_on_stdout)
{
    run_result r = run_g2e("--help", NULL);
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "usage: gpt2-embed") != NULL, "stdout: %s", r.out);
    run_free(&r);
}

Test(cli, version)
{
    run_result r = run_g2e("--version", NULL);
    cr_expect_eq(r.status, 0);
    cr_expect(strncmp(r.out, "gpt2-embed ", 11) == 0, "stdout: %s", r.out);
    run_free(&r);
}

Test(cli, help_for_unknown_command)
{
    run_result r = run_g2e("help", "no-such-command", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "unknown command 'no-such-command'") != NULL, "stderr: %s", r.err);
    run_free(&r);
}
