/* SPDX-License-Identifier: MIT */
/* canvas.c — image, text, axes, colour bars and PNG encoding for the figures; see canvas.h.
 *
 * Text goes through Pango rather than cairo's toy text API: the toy API has no font
 * fallback (a label mixing Latin and kana would need the string cut into runs by hand and a
 * face chosen per run), while Pango asks fontconfig for a face per glyph from the family
 * list, shapes with HarfBuzz, and lays out Japanese as well as Latin.
 */
#include "canvas.h"
#include "text.h"

#include <fontconfig/fontconfig.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAMILIES "DejaVu Sans, IPAGothic"
#define CAP_HEIGHT 0.73   /* of the font size: DejaVu Sans's capitals */

/* Pango and fontconfig keep caches for the life of the process; under AddressSanitizer
 * (`make SANITIZE=1 test`) they are handed back at exit so that the leak check sees a clean
 * process; a normal build leaves them to the end of the process. cairo's own caches are not
 * reset (cairo_debug_reset_static_data): they stay reachable from its globals, which the
 * leak check counts as held, and the reset aborts now and then on a font still alive
 * (cairo-hash.c: live_entries == 0) after the figure was written. */
#if defined(__SANITIZE_ADDRESS__)
#define RELEASE_AT_EXIT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RELEASE_AT_EXIT 1
#endif
#endif
#ifndef RELEASE_AT_EXIT
#define RELEASE_AT_EXIT 0
#endif

static void release_caches(void)
{
    pango_cairo_font_map_set_default(NULL);
    FcFini();
}

int cv_open(canvas *c, int w, int h, g2e_err *err)
{
    static int registered;
    if (RELEASE_AT_EXIT && !registered) {
        registered = 1;
        atexit(release_caches);
    }
    memset(c, 0, sizeof *c);
    c->err = err;
    c->w = w, c->h = h;
    c->surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    c->cr = cairo_create(c->surf);
    if (cairo_status(c->cr) != CAIRO_STATUS_SUCCESS) {
        int rc = g2e_fail(err, RENDER_E_CAIRO, "cannot create a %dx%d image: %s", w, h,
                          cairo_status_to_string(cairo_status(c->cr)));
        cv_close(c);
        return rc;
    }
    c->text = pango_cairo_create_layout(c->cr);
    if (!c->text) {
        cv_close(c);
        return g2e_fail(err, G2E_ENOMEM, "out of memory for a text layout");
    }
    cairo_set_source_rgb(c->cr, 1, 1, 1);
    cairo_paint(c->cr);
    cairo_set_source_rgb(c->cr, 0, 0, 0);
    cv_font(c, FS_TICK, 0);
    return 0;
}

void cv_close(canvas *c)
{
    free(c->said);
    c->said = NULL, c->said_len = c->said_cap = 0;
    if (c->text)
        g_object_unref(c->text);
    if (c->cr)
        cairo_destroy(c->cr);
    if (c->surf)
        cairo_surface_destroy(c->surf);
    c->text = NULL, c->cr = NULL, c->surf = NULL;
}

typedef struct membuf {
    unsigned char *p;
    size_t len, cap;
} membuf;

static cairo_status_t png_append(void *closure, const unsigned char *data, unsigned int len)
{
    membuf *b = closure;
    if (len > b->cap - b->len) {
        size_t cap = b->cap ? b->cap : 65536;
        while (cap - b->len < len)
            cap *= 2;
        unsigned char *q = realloc(b->p, cap);
        if (!q)
            return CAIRO_STATUS_NO_MEMORY;
        b->p = q, b->cap = cap;
    }
    memcpy(b->p + b->len, data, len);
    b->len += len;
    return CAIRO_STATUS_SUCCESS;
}

/* CRC-32 (ISO 3309, as PNG chunks carry it) of n bytes, continuing from crc. */
static uint32_t crc32_of(uint32_t crc, const unsigned char *p, size_t n)
{
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static void put_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8), p[3] = (unsigned char)v;
}

/* The iTXt chunk "Description" (uncompressed, no language tag) with the texts drawn, put
 * before the PNG's IEND chunk (its last 12 bytes). CAIRO_STATUS_NO_MEMORY or success. */
static cairo_status_t add_description(canvas *c, membuf *b)
{
    static const char KEY[] = "Description";   /* keyword, NUL, flag 0, method 0, "", NUL, "", NUL */
    size_t head = sizeof KEY + 4, text = c->said_len, data = head + text;
    if (!text || c->said_lost || b->len < 12 || data > 0x7FFFFFFF)
        return CAIRO_STATUS_SUCCESS;
    unsigned char *chunk = malloc(data + 12);
    if (!chunk)
        return CAIRO_STATUS_NO_MEMORY;
    put_be32(chunk, (uint32_t)data);
    memcpy(chunk + 4, "iTXt", 4);
    memcpy(chunk + 8, KEY, sizeof KEY);
    memset(chunk + 8 + sizeof KEY, 0, 4);
    memcpy(chunk + 8 + head, c->said, text);
    put_be32(chunk + 8 + data, crc32_of(0, chunk + 4, data + 4));
    unsigned char iend[12];
    memcpy(iend, b->p + b->len - 12, 12);
    b->len -= 12;
    cairo_status_t st = png_append(b, chunk, (unsigned int)(data + 12));
    if (st == CAIRO_STATUS_SUCCESS)
        st = png_append(b, iend, 12);
    free(chunk);
    return st;
}

int cv_finish(canvas *c, render_png *out)
{
    out->data = NULL, out->len = 0;
    cairo_status_t st = cairo_status(c->cr);
    membuf b = {0};
    if (st == CAIRO_STATUS_SUCCESS) {
        cairo_surface_flush(c->surf);
        st = cairo_surface_write_to_png_stream(c->surf, png_append, &b);
    }
    if (st == CAIRO_STATUS_SUCCESS)
        st = add_description(c, &b);
    cv_close(c);
    if (st != CAIRO_STATUS_SUCCESS) {
        free(b.p);
        return g2e_fail(c->err, st == CAIRO_STATUS_NO_MEMORY ? G2E_ENOMEM : RENDER_E_CAIRO,
                        "drawing the figure failed: %s", cairo_status_to_string(st));
    }
    out->data = b.p, out->len = b.len;
    return 0;
}

/* ---- text ---- */

void cv_font(canvas *c, double size_px, int bold)
{
    PangoFontDescription *d = pango_font_description_from_string(FAMILIES);
    pango_font_description_set_absolute_size(d, size_px * PANGO_SCALE);
    pango_font_description_set_weight(d, bold ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL);
    pango_layout_set_font_description(c->text, d);
    pango_font_description_free(d);
}

static double font_px(canvas *c)
{
    const PangoFontDescription *d = pango_layout_get_font_description(c->text);
    return d ? pango_font_description_get_size(d) / (double)PANGO_SCALE : FS_TICK;
}

double cv_text_w(canvas *c, const char *s)
{
    pango_layout_set_text(c->text, s, -1);
    PangoRectangle logical;
    pango_layout_get_extents(c->text, NULL, &logical);
    return logical.width / (double)PANGO_SCALE;
}

/* s and a newline at the end of the canvas's record of its texts (newlines in s as spaces). */
static void record_text(canvas *c, const char *s)
{
    size_t n = strlen(s);
    if (c->said_lost || n == 0)
        return;
    if (n + 1 > c->said_cap - c->said_len) {
        size_t cap = c->said_cap ? c->said_cap : 1024;
        while (cap - c->said_len < n + 1)
            cap *= 2;
        char *q = realloc(c->said, cap);
        if (!q) {
            c->said_lost = 1;
            return;
        }
        c->said = q, c->said_cap = cap;
    }
    for (size_t i = 0; i < n; i++)
        c->said[c->said_len++] = s[i] == '\n' ? ' ' : s[i];
    c->said[c->said_len++] = '\n';
}

void cv_text(canvas *c, const char *s, double x, double y, double ax, double ay)
{
    record_text(c, s);
    double w = cv_text_w(c, s);   /* also sets the layout's text */
    double cap = CAP_HEIGHT * font_px(c);
    double base = ay <= 0.0 ? y + cap : ay < 1.0 ? y + cap / 2 : y;
    double top = base - pango_layout_get_baseline(c->text) / (double)PANGO_SCALE;
    cairo_move_to(c->cr, x - ax * w, top);
    pango_cairo_show_layout(c->cr, c->text);
}

void cv_text_vertical(canvas *c, const char *s, double x, double y)
{
    cairo_save(c->cr);
    cairo_translate(c->cr, x, y);
    cairo_rotate(c->cr, -M_PI / 2);
    pango_cairo_update_layout(c->cr, c->text);
    cv_text(c, s, 0, 0, 0.5, 0.5);
    cairo_restore(c->cr);
    pango_cairo_update_layout(c->cr, c->text);
}

void cv_fit(canvas *c, const char *s, double max_w, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s", s);
    size_t n = strlen(buf);
    while (n > 0 && ((unsigned char)buf[n] & 0xC0) == 0x80)   /* snprintf may cut a character */
        buf[--n] = '\0';
    if (n && ((unsigned char)buf[n - 1] & 0xC0) == 0xC0)
        buf[--n] = '\0';
    if (cv_text_w(c, buf) <= max_w)
        return;
    while (n > 0) {
        n--;
        while (n > 0 && ((unsigned char)buf[n] & 0xC0) == 0x80)   /* whole characters */
            n--;
        if (n + 4 > cap)
            continue;
        memcpy(buf + n, "\xE2\x80\xA6", 4);   /* … and NUL */
        if (cv_text_w(c, buf) <= max_w)
            return;
    }
    snprintf(buf, cap, "\xE2\x80\xA6");
}

void cv_title(canvas *c, const char *title, double cx, double y, double max_w)
{
    if (!title || !*title)
        return;
    double size = FS_TITLE;
    cv_font(c, size, 1);
    while (cv_text_w(c, title) > max_w && size > 10.0) {
        size -= 1.0;
        cv_font(c, size, 1);
    }
    char buf[512];
    cv_fit(c, title, max_w, buf, sizeof buf);
    cairo_set_source_rgb(c->cr, 0, 0, 0);
    cv_text(c, buf, cx, y, 0.5, 0.0);
}

/* ---- checks ---- */

int check_size(int *w, int *h, int dw, int dh, int minw, int minh, g2e_err *err)
{
    if (*w == 0)
        *w = dw;
    if (*h == 0)
        *h = dh;
    if (minw < RENDER_MIN_SIDE)
        minw = RENDER_MIN_SIDE;
    if (minh < RENDER_MIN_SIDE)
        minh = RENDER_MIN_SIDE;
    if (*w < minw || *h < minh || *w > RENDER_MAX_SIDE || *h > RENDER_MAX_SIDE)
        return g2e_fail(err, RENDER_E_ARG, "the image size %dx%d is outside %dx%d .. %dx%d", *w,
                        *h, minw, minh, RENDER_MAX_SIDE, RENDER_MAX_SIDE);
    return 0;
}

int check_text(const char *s, const char *what, g2e_err *err)
{
    /* the one UTF-8 decoder (text.h's inline step: no link to the library's objects) */
    size_t n = s ? strlen(s) : 0, k;
    for (size_t i = 0; i < n; i += k)
        if (text_step(s + i, n - i, &k) < 0)
            return g2e_fail(err, RENDER_E_ARG, "the %s is not valid UTF-8", what);
    return 0;
}

int check_cmap(render_cmap cmap, g2e_err *err)
{
    if (cmap != RENDER_CMAP_COOLWARM && cmap != RENDER_CMAP_RDBU)
        return g2e_fail(err, RENDER_E_ARG, "unknown colour map %d", (int)cmap);
    return 0;
}
