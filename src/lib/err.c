/* err.c — filling the error record (see err.h). */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>

int g2e_fail(g2e_err *e, int code, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
        e->code = code;
    }
    return code;
}

void g2e_clear(g2e_err *e)
{
    if (e) {
        e->code = 0;
        e->msg[0] = '\0';
    }
}
