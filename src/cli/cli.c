/* cli.c — shared messages and number parsing for the subcommands (see cli.h). */
#include "cli.h"

#include "out.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void cli_start(void)
{
    signal(SIGXFSZ, SIG_IGN);
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("gpt2-embed: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void cli_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("gpt2-embed: note: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

int cli_parse_u64(const char *s, uint64_t lo, uint64_t hi, const char *what, uint64_t *out)
{
    if (!s || *s < '0' || *s > '9') {
        cli_error("%s must be a whole number from %llu to %llu, got '%s'", what,
                  (unsigned long long)lo, (unsigned long long)hi, s ? s : "");
        return -1;
    }
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end != '\0' || v < lo || v > hi) {
        cli_error("%s must be a whole number from %llu to %llu, got '%s'", what,
                  (unsigned long long)lo, (unsigned long long)hi, s);
        return -1;
    }
    *out = (uint64_t)v;
    return 0;
}

int cli_parse_double(const char *s, const char *what, double *out)
{
    errno = 0;
    char *end = NULL;
    double v = s ? strtod(s, &end) : 0.0;
    if (!s || end == s || *end != '\0' || errno || !isfinite(v)) {
        cli_error("%s must be a finite number, got '%s'", what, s ? s : "");
        return -1;
    }
    *out = v;
    return 0;
}

int cli_opt(int argc, char **argv, int *i, const char *name, const char **val)
{
    size_t n = strlen(name);
    const char *a = argv[*i];
    if (strncmp(a, name, n) != 0)
        return 0;
    if (a[n] == '=') {
        *val = a + n + 1;
        return 1;
    }
    if (a[n] != '\0')
        return 0;
    if (*i + 1 >= argc) {
        cli_error("option %s needs a value (see --help)", name);
        *val = NULL;
        return -1;
    }
    *val = argv[++*i];
    return 1;
}

int cli_format(const char *given, const char *const *names)
{
    size_t n = 0;
    while (names[n] && strcmp(given, names[n]) != 0)
        n++;
    if (names[n])
        return (int)n;
    char list[256];
    size_t o = 0;
    for (size_t k = 0; names[k]; k++)
        o += (size_t)snprintf(list + o, sizeof list - (o < sizeof list ? o : sizeof list),
                              "%s%s", k == 0 ? "" : names[k + 1] ? ", " : " or ", names[k]);
    cli_error("--format must be %s, got '%s'", list, given);
    return -1;
}

char *cli_read_stream(FILE *f, size_t *len)
{
    if (f == stdin)
        out_add_input("standard input", "standard input", STDIN_FILENO);
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    for (;;) {
        if (cap - n < 2) {
            if (cap > SIZE_MAX / 2) {
                free(buf);
                errno = ENOMEM;
                return NULL;
            }
            char *b = realloc(buf, cap * 2);
            if (!b) {
                free(buf);
                errno = ENOMEM;
                return NULL;
            }
            buf = b;
            cap *= 2;
        }
        size_t k = fread(buf + n, 1, cap - n - 1, f);
        n += k;
        if (k == 0) {
            if (ferror(f)) {
                int e = errno ? errno : EIO;
                free(buf);
                errno = e;
                return NULL;
            }
            break;
        }
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

char *cli_read_file(const char *path, const char *what, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        cli_error("cannot open '%s': %s", path, strerror(errno));
        return NULL;
    }
    out_add_input(what, path, fd);
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        cli_error("cannot read '%s': %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    char *buf = cli_read_stream(f, len);
    int e = errno;
    fclose(f);
    if (!buf)
        cli_error("cannot read '%s': %s", path, strerror(e));
    return buf;
}
