/* SPDX-License-Identifier: MIT */
/* textin.c — the program's side of textin.h: which files may be read, and messages. */
#include "cli.h"
#include "out.h"
#include "textin.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cli_textin_open(textin *in, const char *path, const char *what)
{
    memset(in, 0, sizeof *in);
    path = path && strcmp(path, "-") == 0 ? NULL : path;
    if (path && !*path) {
        cli_error("an empty file name was given for the %s", what);
        return -1;
    }
    /* a FIFO or device is refused, not waited on (cli_open_file); stdin may be a pipe */
    int fd = path ? cli_open_file(path, what) : STDIN_FILENO;
    if (fd < 0)
        return -1;
    if (!path)
        out_add_input("standard input", "standard input", fd);
    char name[4200] = "standard input";
    if (path)
        snprintf(name, sizeof name, "'%s'", path);
    g2e_err err;
    int rc = textin_fd(in, fd, name, &err);
    if (path)
        close(fd);
    if (!rc && in->map) /* truncated by another program while read: one line, not "Bus error" */
        out_guard_mapping(in->map, in->map_len, path ? path : "standard input", what);
    return rc ? cli_error("%s", err.msg), -1 : 0;
}

void cli_textin_close(textin *in)
{
    if (in->map)
        out_unguard_mapping(in->map);
    textin_close(in);
}

void cli_text_names_file(const char *text, int has_f)
{
    struct stat st;
    if (!text || !*text || strcmp(text, "-") == 0 || stat(text, &st) != 0 || !S_ISREG(st.st_mode))
        return;
    if (has_f)
        cli_note("'%s' is a file name; to read the file use -f %s (here the name itself is the text)",
                 text, text);
    else
        cli_note("'%s' is a file name; this command takes texts, not files (here the name itself "
                 "is the text)", text);
}
