/* SPDX-License-Identifier: MIT */
/* err.c — filling the error record (see err.h). */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>

#ifdef G2E_ERR_GETTEXT
/* the rendering wing's own copy (gpt2-embed-render.so, not the library): translated directly */
#include <libintl.h>
static const char *domain_tr(const char *s) { return dgettext("gpt2-embed", s); }
static const char *(*translate)(const char *) = domain_tr;
#else
/* the library: English, unless the program installed its translation (g2e_set_translator) */
static const char *(*translate)(const char *);
#endif

void g2e_set_translator(const char *(*fn)(const char *msgid))
{
    translate = fn;
}

int g2e_fail(g2e_err *e, int code, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, *fmt && translate ? translate(fmt) : fmt, ap);
        va_end(ap);
        e->code = code;
    }
    return code;
}

const char *g2e_tr(const char *s)
{
    return s && *s && translate ? translate(s) : s;
}

void g2e_clear(g2e_err *e)
{
    if (e) {
        e->code = 0;
        e->msg[0] = '\0';
    }
}
