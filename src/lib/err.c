/* SPDX-License-Identifier: MIT */
/* err.c — filling the error record (see err.h). */
#include "err.h"

#include <libintl.h>
#include <stdarg.h>
#include <stdio.h>

int g2e_fail(g2e_err *e, int code, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        /* translated in the program's domain when a program bound it (i18n.c); a library
         * user who did not gets the English msgid back */
        vsnprintf(e->msg, sizeof e->msg, *fmt ? dgettext("gpt2-embed", fmt) : fmt, ap);
        va_end(ap);
        e->code = code;
    }
    return code;
}

const char *g2e_tr(const char *s)
{
    return s && *s ? dgettext("gpt2-embed", s) : s;
}

void g2e_clear(g2e_err *e)
{
    if (e) {
        e->code = 0;
        e->msg[0] = '\0';
    }
}
