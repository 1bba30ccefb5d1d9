/* SPDX-License-Identifier: MIT */
/* err.c — filling the error record (see err.h). */
#include "err.h"
#include "text.h"

#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>

typedef const char *(*translate_fn)(const char *msgid);

#ifdef G2E_ERR_GETTEXT
/* the rendering wing's own copy (gpt2-embed-render.so, not the library): translated directly */
#include <libintl.h>
static const char *domain_tr(const char *s) { return dgettext("gpt2-embed", s); }
static _Atomic translate_fn translate = domain_tr;
#else
/* the library: English, unless the host installed its translation (g2e_set_translator); atomic,
 * as a host may change its language while other threads use the library */
static _Atomic translate_fn translate;
#endif

void g2e_set_translator(const char *(*fn)(const char *msgid))
{
    atomic_store_explicit(&translate, fn, memory_order_release);
}

/* s through the installed translator; s itself without one or for "". */
static const char *tr(const char *s)
{
    translate_fn fn = atomic_load_explicit(&translate, memory_order_acquire);
    const char *t = s && *s && fn ? fn(s) : s;
    return t ? t : s;
}

int g2e_fail(g2e_err *e, int code, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(e->msg, sizeof e->msg, tr(fmt), ap);
        /* a message longer than the record is cut between characters, never inside one */
        g2e_cut_whole(e->msg, sizeof e->msg, n);
        va_end(ap);
        e->code = code;
    }
    return code;
}

const char *g2e_tr(const char *s)
{
    return tr(s);
}

const char *g2e_trc(const char *ctx_msgid, const char *msgid)
{
    const char *t = g2e_tr(ctx_msgid);
    return strchr(t, '\004') ? msgid : t;   /* untranslated: the key came back */
}

char *g2e_vprintf_alloc(const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    char *s = n < 0 ? NULL : malloc((size_t)n + 1);
    if (s)
        vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

char *g2e_printf_alloc(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = g2e_vprintf_alloc(fmt, ap);
    va_end(ap);
    return s;
}

void g2e_clear(g2e_err *e)
{
    if (e) {
        e->code = 0;
        e->msg[0] = '\0';
    }
}

void g2e_cut_whole(char *s, size_t cap, int wanted)
{
    if (cap == 0 || wanted < 0 || (size_t)wanted < cap)
        return;
    size_t n = strlen(s);
    /* back to the lead byte of the character the cut fell in, unless it is whole */
    size_t lead = n;
    while (lead > 0 && ((unsigned char)s[lead - 1] & 0xC0) == 0x80)
        lead--;
    if (lead > 0 && ((unsigned char)s[lead - 1] & 0x80)) {
        size_t k;
        if (text_step(s + lead - 1, n - (lead - 1), &k) < 0 || lead - 1 + k != n)
            n = lead - 1;
    }
    /* room for "…" (3 bytes) and the NUL: drop whole characters until it fits */
    while (n > 0 && n + 4 > cap) {
        n--;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
    }
    if (n + 4 <= cap)
        memcpy(s + n, "\xE2\x80\xA6", 4);
    else
        s[n] = '\0';
}
