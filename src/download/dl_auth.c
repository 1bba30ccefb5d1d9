/* SPDX-License-Identifier: MIT */
/* dl_auth.c — who we are to the Hub: the token ($HF_TOKEN, else the token file, read
 * without blocking and only when it is a regular file) and the offline switch, read as
 * huggingface_hub reads them (see download.h).
 *
 * Deliberately left out: stored named tokens (huggingface_hub's stored_tokens), git
 * credential helpers. */
#include "dl_internal.h"
#include "locate.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

int dl_env_true(const char *name)
{
    const char *v = getenv(name);
    if (!v)
        return 0;
    return strcmp(v, "1") == 0 || strcasecmp(v, "true") == 0 || strcasecmp(v, "yes") == 0 ||
           strcasecmp(v, "on") == 0;
}

int dl_offline(void)
{
    /* as huggingface_hub: HF_HUB_OFFLINE if set and non-empty, else TRANSFORMERS_OFFLINE */
    const char *v = getenv("HF_HUB_OFFLINE");
    return dl_env_true(v && *v ? "HF_HUB_OFFLINE" : "TRANSFORMERS_OFFLINE");
}

/* The token from $HF_TOKEN, else $HF_TOKEN_PATH, $HF_HOME/token, ~/.cache/huggingface/token.
 * *tok receives a malloc'd string or NULL when there is none. */
int dl_read_token(const char *given, char **tok, g2e_err *err)
{
    *tok = NULL;
    char *t = NULL;
    if (given) {
        if (!*given)
            return 0;
        t = strdup(given);
    } else if (getenv("HF_TOKEN") && *getenv("HF_TOKEN")) {
        t = strdup(getenv("HF_TOKEN"));
    } else {
        char path[4096];
        if (locate_hf_token_path(path, sizeof path, NULL) != 0)
            return 0;
        /* O_NONBLOCK and fstat first: a FIFO or a device there must not block or flood us */
        int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            return 0;   /* no token file: anonymous, as the Hub's client does */
        struct stat sb;
        if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
            close(fd);
            return g2e_fail(err, DL_E_ARG, "the token file %s is not a regular file (a FIFO, "
                            "device or folder?); point HF_TOKEN_PATH at a file, or set HF_TOKEN",
                            path);
        }
        char buf[1024];
        size_t n = 0;
        while (n < sizeof buf - 1) {
            ssize_t z = read(fd, buf + n, sizeof buf - 1 - n);
            if (z < 0 && errno == EINTR)
                continue;
            if (z <= 0)
                break;
            n += (size_t)z;
        }
        close(fd);
        buf[n] = '\0';
        t = strdup(buf);
    }
    if (!t)
        return g2e_fail(err, G2E_ENOMEM, "out of memory");
    /* trim surrounding white space; anything else below '!' would corrupt the header */
    char *s = t;
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        n--;
    s[n] = '\0';
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x21 || (unsigned char)s[i] == 0x7f) {
            free(t);
            return g2e_fail(err, DL_E_ARG, "the Hugging Face token contains spaces or control "
                                           "characters; check $HF_TOKEN or the token file");
        }
    if (n == 0) {
        free(t);
        return 0;
    }
    memmove(t, s, n + 1);
    *tok = t;
    return 0;
}
