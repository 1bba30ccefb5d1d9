/* SPDX-License-Identifier: MIT */
/* render_load.c — render.h's calls in the program: loads gpt2-embed-render.so with dlopen on
 * the first call and forwards to its table (render_impl.h), as curl_dl.c does for libcurl.
 * This file links no cairo; a program that never draws never loads it.
 *
 * Where the object is looked for, in order: beside the running executable
 * (/proc/self/exe's directory: the build tree, where make puts both), then
 * G2E_RENDER_DIR (make install's $(PREFIX)/lib/gpt2-embed). A binary that links the
 * drawing objects itself (the rendering tests) defines g2e_render_api and uses it directly.
 */
#include "render.h"
#include "render_impl.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef G2E_RENDER_DIR
#define G2E_RENDER_DIR "/usr/local/lib/gpt2-embed"
#endif
#define RENDER_SO "gpt2-embed-render.so"

/* Defined only when the drawing objects are linked in (weak: NULL otherwise). */
extern const render_api g2e_render_api __attribute__((weak));

static const render_api *api;

/* dlopen of dir/RENDER_SO; NULL with the reason in why[cap]. */
static void *open_in(const char *dir, char *why, size_t cap)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", dir, RENDER_SO) >= (int)sizeof path)
        return NULL;
    if (access(path, F_OK) != 0)
        return NULL;
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        snprintf(why, cap, "%s", e ? e : path);
    }
    return lib;
}

static const render_api *load(g2e_err *err)
{
    if (api)
        return api;
    if (&g2e_render_api)
        return api = &g2e_render_api;
    char self[PATH_MAX], why[400] = "";
    void *lib = NULL;
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = '\0';
            lib = open_in(self, why, sizeof why);
        }
    }
    if (!lib)
        lib = open_in(G2E_RENDER_DIR, why, sizeof why);
    if (!lib) {
        g2e_fail(err, RENDER_E_LOAD, "figures need %s (beside the program or in %s), which %s%s; "
                 "it needs cairo and Pango: apt-get install libcairo2 libpangocairo-1.0-0 fonts-ipafont-gothic",
                 RENDER_SO, G2E_RENDER_DIR, *why ? "cannot be loaded: " : "is not there", why);
        return NULL;
    }
    const render_api *t = dlsym(lib, RENDER_API_SYMBOL);
    if (!t || t->abi != RENDER_ABI) {
        g2e_fail(err, RENDER_E_LOAD, "%s is from another version of gpt2-embed (%s); reinstall it",
                 RENDER_SO, t ? "a different interface number" : "no drawing table");
        dlclose(lib);
        return NULL;
    }
    return api = t;   /* kept loaded for the life of the process */
}

void render_png_free(render_png *p)
{
    if (!p)
        return;
    free(p->data);
    p->data = NULL;
    p->len = 0;
}

#define FORWARD(call, ...)                        \
    const render_api *a = load(err);              \
    return a ? a->call(__VA_ARGS__) : RENDER_E_LOAD

int render_cmap_rgb(render_cmap cmap, double t, unsigned char rgb[3], g2e_err *err)
{
    FORWARD(cmap_rgb, cmap, t, rgb, err);
}

int render_heatmap_layout(const render_heatmap *h, render_layout *l, g2e_err *err)
{
    FORWARD(heatmap_layout, h, l, err);
}

int render_heatmap_png(const render_heatmap *h, render_png *out, g2e_err *err)
{
    out->data = NULL, out->len = 0;
    FORWARD(heatmap_png, h, out, err);
}

int render_lines_png(const render_lines *p, render_png *out, g2e_err *err)
{
    out->data = NULL, out->len = 0;
    FORWARD(lines_png, p, out, err);
}

int render_scatter_png(const render_scatter *s, render_png *out, g2e_err *err)
{
    out->data = NULL, out->len = 0;
    FORWARD(scatter_png, s, out, err);
}

int render_bars_png(const render_bars *b, render_png *out, g2e_err *err)
{
    out->data = NULL, out->len = 0;
    FORWARD(bars_png, b, out, err);
}

int render_strips_png(const render_strips *s, render_png *out, g2e_err *err)
{
    out->data = NULL, out->len = 0;
    FORWARD(strips_png, s, out, err);
}

int render_text_size(const char *s, double size_px, int *w, int *h, int *unknown, g2e_err *err)
{
    FORWARD(text_size, s, size_px, w, h, unknown, err);
}
