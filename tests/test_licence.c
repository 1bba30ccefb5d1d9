/* SPDX-License-Identifier: MIT */
/* test_licence.c — every source file names its licence (an SPDX line in its first three
 * lines), and the licence files that make install ships exist. */
#include "support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

Test(licence, every_source_file_has_an_spdx_line)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && find src tests tools bench python completion .ci Makefile -type f "
             "\\( -name '*.c' -o -name '*.h' -o -name '*.py' -o -name '*.sh' -o -name '*.js' "
             "-o -name '*.bash' -o -name Makefile -o -name run \\) -not -path '*/node_modules/*' "
             "-not -path '*/__pycache__/*' | sort | while read -r f; do "
             "head -n 3 \"$f\" | grep -q 'SPDX-License-Identifier: ' || echo \"$f\"; done",
             G2E_SRCDIR);
    run_result r = run_argv((char *[]){"/bin/sh", "-c", cmd, NULL}, NULL, 0, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.out, "", "files without an SPDX line:\n%s", r.out);
    run_free(&r);
}

Test(licence, licence_files_exist)
{
    const char *files[] = {"LICENSE", "THIRD_PARTY.md"};
    for (size_t i = 0; i < 2; i++) {
        char *p = path_join(G2E_SRCDIR, files[i]);
        size_t n = 0;
        char *s = read_file(p, &n);
        cr_expect(s && n > 100, "%s is missing or empty", files[i]);
        if (i == 0)
            cr_expect(s && strstr(s, "MIT License"), "LICENSE is not the MIT licence");
        free(s);
        free(p);
    }
}
