/* SPDX-License-Identifier: MIT */
/* test_report_html.c — the report's page (report.h) as a module: which figures it hands to
 * save() and links, that the embedded page carries exactly those PNGs (decoded back from its
 * data: URIs here with nettle, compared byte for byte), and that a part the weights cannot
 * give is said through say() and on the page while the rest is still written. The page in
 * a browser and its numbers against the commands: test_report.c. */
#include "fixture.h"
#include "model.h"
#include "pngcheck.h"
#include "report.h"
#include "support.h"
#include "tokenizer.h"

#include <criterion/criterion.h>
#include <nettle/base64.h>
#include <stdlib.h>
#include <string.h>

#define FIGURES 13

typedef struct sink {
    char *name[32];
    render_png png[32];
    size_t n;
    char said[4096];
} sink;

static int save(void *ctx, const char *name, const render_png *img)
{
    sink *s = ctx;
    cr_assert(s->n < 32);
    s->name[s->n] = strdup(name);
    s->png[s->n].data = malloc(img->len);
    memcpy(s->png[s->n].data, img->data, img->len);
    s->png[s->n++].len = img->len;
    return 0;
}

static void say(void *ctx, const char *msg)
{
    sink *s = ctx;
    size_t n = strlen(s->said);
    snprintf(s->said + n, sizeof s->said - n, "%s\n", msg);
}

static void sink_free(sink *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->name[i]), render_png_free(&s->png[i]);
}

/* The page for the weights at path (caller frees); *failed the parts that failed. */
static char *page(const fixture_opts *o, const char *tag, int embed, sink *s, int *failed)
{
    gpt2embed_model *gm = open_fixture_door(o, tag);
    gpt2embed_tokenizer *tok;
    cr_assert_eq(gpt2embed_tokenizer_open(&tok, NULL, NULL), 0);
    static const char en[] = "Hello world.", ja[] = "こんにちは世界。";
    report_in in = {.model = gm, .tokenizer = tok, .weights = "w.safetensors", .text = {en, ja},
                    .name = {"en", "ja"}, .len = {strlen(en), strlen(ja)}, .embed = embed,
                    .save = save, .say = say, .ctx = s};
    char *html = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&html, &len);
    *failed = report_html(f, &in);
    cr_assert_eq(fclose(f), 0);
    gpt2embed_tokenizer_close(tok);
    gpt2embed_model_close(gm);
    return html;
}

static fixture_opts big(void)
{
    fixture_opts o;
    fixture_tiny(&o);
    o.n_vocab = 50257, o.n_ctx = 600, o.n_embd = 32;
    return o;
}

Test(report_html, linked_figures_are_the_saved_ones_and_embedded_the_same, .timeout = 240)
{
    fixture_opts o = big();
    sink a = {0}, b = {0};
    int failed;
    char *html = page(&o, "rh-linked", 0, &a, &failed);
    cr_expect_eq(failed, 0, "%s", a.said);
    cr_expect_str_eq(a.said, "");
    cr_assert_eq(a.n, FIGURES);
    static const char *const NAMES[FIGURES] = {
        "norms.png", "order.png", "pe-heatmap.png", "pe-dot.png", "wpe-heatmap.png", "wpe-cosine.png",
        "wpe-by-distance.png", "pca-variance.png", "pca-components.png", "pca-pc1-pc2.png",
        "pca-pc2-pc3.png", "rope-dot.png", "rope-rotation.png"};
    char *dir = test_tmpdir("rh-linked-png");
    for (size_t i = 0; i < FIGURES; i++) {
        cr_expect_str_eq(a.name[i], NAMES[i]);
        char want[128];
        snprintf(want, sizeof want, "\" src=\"%s\"><figcaption>", NAMES[i]);
        cr_expect(strstr(html, want), "the page links %s", NAMES[i]);
        char *path = path_join(dir, NAMES[i]);
        write_file(path, a.png[i].data, a.png[i].len);
        png img = pngcheck_load(path);
        cr_expect(img.w >= 300 && img.h >= 200, "%s is %dx%d", NAMES[i], img.w, img.h);
        pngcheck_free(&img);
        free(path);
    }
    free(html);
    html = page(&o, "rh-embedded", 1, &b, &failed);
    cr_expect_eq(b.n, 0, "nothing saved when embedding");
    const char *p = html;
    static const char mark[] = "src=\"data:image/png;base64,";
    for (size_t i = 0; i < FIGURES; i++) {
        p = strstr(p, mark);
        cr_assert(p, "figure %zu is not embedded", i);
        p += sizeof mark - 1;
        size_t n = strcspn(p, "\"");
        uint8_t *bytes = malloc(BASE64_DECODE_LENGTH(n));
        size_t got = BASE64_DECODE_LENGTH(n);
        struct base64_decode_ctx ctx;
        base64_decode_init(&ctx);
        cr_assert(base64_decode_update(&ctx, &got, bytes, n, p) && base64_decode_final(&ctx));
        cr_expect(got == a.png[i].len && memcmp(bytes, a.png[i].data, got) == 0,
                  "embedded figure %zu differs from the linked one", i);
        free(bytes);
    }
    cr_expect(!strstr(p, mark), "exactly %d figures", FIGURES);
    free(html), free(dir);
    sink_free(&a), sink_free(&b);
}

Test(report_html, parts_the_weights_cannot_give_are_said_and_the_rest_written, .timeout = 120)
{
    fixture_opts o;
    fixture_tiny(&o);   /* 64 tokens: no " cat", no Japanese pieces */
    sink s = {0};
    int failed;
    char *html = page(&o, "rh-small", 0, &s, &failed);
    cr_expect_eq(failed, 2, "%s", s.said);
    cr_expect(strstr(s.said, "report: exercise 2: token ID 3797 of \" cat\" is outside this file's wte (64 rows)"),
              "%s", s.said);
    cr_expect(strstr(s.said, "report: order: "), "%s", s.said);
    cr_expect(strstr(html, "<p class=\"failed\">Not available for these weights: "), "on the page");
    cr_expect(strstr(html, "</footer>\n</body>\n</html>\n"), "the page is whole");
    cr_expect_eq(s.n, FIGURES - 1, "every figure still drawn but the order puzzle's");
    free(html);
    sink_free(&s);
}
