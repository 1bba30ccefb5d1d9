/* SPDX-License-Identifier: MIT */
/* test_jsonl.c — the "text" member of a JSON line: exact bytes, every error with its reason
 * and place; checked against hand-written cases, the library's JSON writer (json.h, a
 * round trip of random texts) and cJSON (an independent parser). */
#include "json.h"
#include "jsonl.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

/* Decodes line into *out (a new NUL-terminated copy, *n its length); returns the status. */
static int decode(const char *line, size_t len, unsigned flags, char **out, size_t *n, jsonl_error *e)
{
    bytebuf text = {0}, key = {0};
    bb_put(&text, "#", 1); /* something before: the text is appended after it */
    int rc = jsonl_text(line, len, flags, &text, &key, e);
    cr_assert(text.n >= 1 && text.p[0] == '#');
    *n = text.n - 1;
    *out = malloc(*n + 1);
    memcpy(*out, text.p + 1, *n);
    (*out)[*n] = '\0';
    bb_free(&text);
    bb_free(&key);
    return rc;
}

Test(jsonl, exact_bytes_of_the_text_member)
{
    static const struct {
        const char *line;
        size_t line_len; /* 0: strlen */
        const char *want;
        size_t want_len;
    } cases[] = {
        {"{\"text\": \"Hello world\"}", 0, "Hello world", 11},
        {"{\"text\":\"a\"}", 0, "a", 1},
        {"  {  \"text\"  :  \"a\"  }  \r", 0, "a", 1},
        {"{\"text\": \"\"}", 0, "", 0},
        {"{\"text\": \"\\\"\\\\\\/\\b\\f\\n\\r\\t\"}", 0, "\"\\/\b\f\n\r\t", 8},
        {"{\"text\": \"a\\u0000b\"}", 0, "a\0b", 3},
        {"{\"text\": \"\\u00e9\\u72AC\"}", 0, "\xC3\xA9\xE7\x8A\xAC", 5},
        {"{\"text\": \"\\ud83d\\ude00\"}", 0, "\xF0\x9F\x98\x80", 4},
        {"{\"text\": \"\xE7\x8A\xAC \xF0\x9F\x98\x80\"}", 0, "\xE7\x8A\xAC \xF0\x9F\x98\x80", 8},
        {"{\"id\": 7, \"text\": \"x\", \"tags\": [1, {\"a\": null}], \"ok\": true}", 0, "x", 1},
        {"{\"t\\u0065xt\": \"escaped name\"}", 0, "escaped name", 12},
        {"{\"text\": \"x\", \"text2\": \"y\"}", 0, "x", 1},
        {"{\"text\": \"0123456789abcdef0123456789abcdef\\n\"}", 0, "0123456789abcdef0123456789abcdef\n", 33},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *out;
        size_t n;
        jsonl_error e;
        size_t ll = cases[i].line_len ? cases[i].line_len : strlen(cases[i].line);
        int rc = decode(cases[i].line, ll, 0, &out, &n, &e);
        cr_expect_eq(rc, 0, "case %zu (%s): %s at %zu", i, cases[i].line, rc ? e.why : "", rc ? e.at : 0);
        cr_expect(n == cases[i].want_len && memcmp(out, cases[i].want, n) == 0, "case %zu: got %zu bytes '%s'", i,
                  n, out);
        free(out);
    }
}

Test(jsonl, every_error_names_its_reason_and_place)
{
    static const struct {
        const char *line, *why;
        size_t at;
    } cases[] = {
        {"", "expected a JSON object {\"text\": \"...\"}", 0},
        {"  [1]", "expected a JSON object {\"text\": \"...\"}", 2},
        {"{}", "no \"text\" member", 1},
        {"{\"a\": 1}", "no \"text\" member", 7},
        {"{\"text\" \"x\"}", "expected ':'", 8},
        {"{\"text\": 5}", "expected a string", 9},
        {"{\"text\": \"abc", "unterminated string", 9},
        {"{\"text\": \"a\tb\"}", "control character in a string", 11},
        {"{\"text\": \"a\\qb\"}", "bad escape", 11},
        {"{\"text\": \"a\\", "bad escape", 11},
        {"{\"text\": \"\\u12G4\"}", "bad \\u escape", 10},
        {"{\"text\": \"\\u12\"}", "bad \\u escape", 10},
        {"{\"text\": \"\\ud800\"}", "lone surrogate \\u escape (use --lossy to replace it)", 10},
        {"{\"text\": \"x\\udc00y\"}", "lone surrogate \\u escape (use --lossy to replace it)", 11},
        {"{\"text\": \"a\", \"text\": \"b\"}", "\"text\" given twice", 14},
        {"{\"text\": \"a\", \"t\\u0065xt\": \"b\"}", "\"text\" given twice", 14},
        {"{\"text\": \"a\", \"n\": tru}", "invalid JSON value", 19},
        {"{\"text\": \"a\",}", "expected a string", 13},
        {"{\"text\": \"a\" \"b\"}", "expected ',' or '}'", 13},
        {"{\"text\": \"a\"} x", "trailing characters after the object", 14},
        {"{\"text\": \"a\"}}", "trailing characters after the object", 13},
        {"{\"text\": \"a\"", "expected ',' or '}'", 12},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *out;
        size_t n;
        jsonl_error e = {0};
        int rc = decode(cases[i].line, strlen(cases[i].line), 0, &out, &n, &e);
        cr_expect_eq(rc, JSONL_E_SYNTAX, "case %zu (%s): status %d", i, cases[i].line, rc);
        if (rc == JSONL_E_SYNTAX) {
            cr_expect_str_eq(e.why, cases[i].why, "case %zu (%s)", i, cases[i].line);
            cr_expect_eq(e.at, cases[i].at, "case %zu (%s): at %zu", i, cases[i].line, e.at);
        }
        cr_expect_eq(n, 0, "case %zu: the text taken back on error (%zu bytes left)", i, n);
        free(out);
    }
}

Test(jsonl, lossy_replaces_lone_surrogates_only)
{
    char *out;
    size_t n;
    jsonl_error e;
    const char *line = "{\"text\": \"a\\ud800b\\udc00\\ud83d\\ude00\"}";
    cr_assert_eq(decode(line, strlen(line), JSONL_LOSSY, &out, &n, &e), 0);
    const char want[] = "a\xEF\xBF\xBD" "b\xEF\xBF\xBD\xF0\x9F\x98\x80";
    cr_expect(n == sizeof want - 1 && memcmp(out, want, n) == 0);
    free(out);
    /* member names never fail on a lone surrogate: they are only compared with "text" */
    line = "{\"\\ud800\": 1, \"text\": \"ok\"}";
    cr_assert_eq(decode(line, strlen(line), 0, &out, &n, &e), 0);
    cr_expect_str_eq(out, "ok");
    free(out);
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

/* A random well-formed UTF-8 text of n characters: controls, quotes, backslashes, NULs,
 * ASCII, 2-, 3- and 4-byte characters. */
static size_t random_text(char *buf, size_t n)
{
    static const char *const pick[] = {"\"", "\\", "/", "\n", "\t", "\x01", "\x1F", "\x7F", "a", "Z", " ",
                                       "\xC3\xA9", "\xE7\x8A\xAC", "\xF0\x9F\x98\x80", "\xEF\xBF\xBF"};
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t r = rnd() % 20;
        if (r == 0) {
            buf[o++] = '\0';
        } else {
            const char *s = pick[r % (sizeof pick / sizeof pick[0])];
            memcpy(buf + o, s, strlen(s));
            o += strlen(s);
        }
    }
    return o;
}

/* Random texts written by the library's one JSON writer (json.h) read back byte for byte,
 * in the lines' usual shape and with other members and white space around them; and
 * cJSON, an independent parser, reads the same string (where it can: its strings end at a
 * NUL). */
Test(jsonl, random_texts_round_trip_and_agree_with_cjson)
{
    char text[4 * 200], line[8 * 1024];
    for (int round = 0; round < 3000; round++) {
        size_t tn = random_text(text, rnd() % 200);
        char *lit = json_string_alloc(text, tn);
        cr_assert(lit != NULL);
        int shape = round % 3;
        int ll = shape == 0   ? snprintf(line, sizeof line, "{\"text\": %s}", lit)
                 : shape == 1 ? snprintf(line, sizeof line, " { \"n\" : [1, 2.5e3, \"}\"] ,\"text\":%s } ", lit)
                              : snprintf(line, sizeof line, "{\"text\"\t:\t%s, \"more\": {\"text\": 1}}", lit);
        cr_assert(ll > 0 && (size_t)ll < sizeof line);
        char *out;
        size_t n;
        jsonl_error e;
        int rc = decode(line, (size_t)ll, 0, &out, &n, &e);
        cr_assert_eq(rc, 0, "round %d: %s at %zu in %s", round, rc ? e.why : "", rc ? e.at : 0, line);
        cr_assert(n == tn && memcmp(out, text, n) == 0, "round %d: the text differs", round);
        if (!memchr(text, '\0', tn)) {
            cJSON *j = cJSON_ParseWithLength(line, (size_t)ll);
            cr_assert(j != NULL, "cJSON refuses %s", line);
            const cJSON *t = cJSON_GetObjectItemCaseSensitive(j, "text");
            cr_assert(cJSON_IsString(t));
            cr_expect_str_eq(t->valuestring, out, "round %d", round);
            cJSON_Delete(j);
        }
        free(out);
        free(lit);
    }
}

/* Every prefix of a good line is an error, never a read past its end (sanitizers check). */
Test(jsonl, every_prefix_is_refused)
{
    const char *line = "{\"text\": \"a\\u00e9\\ud83d\\ude00\\n\", \"x\": [true, null]}";
    size_t len = strlen(line);
    for (size_t k = 0; k < len; k++) {
        char *cut = malloc(k ? k : 1);
        memcpy(cut, line, k);
        char *out;
        size_t n;
        jsonl_error e;
        cr_expect_eq(decode(cut, k, 0, &out, &n, &e), JSONL_E_SYNTAX, "prefix of %zu bytes", k);
        cr_expect(e.at <= k);
        free(out);
        free(cut);
    }
}

/* The string scanner's every alignment: texts of 0..70 bytes with one byte that must be
 * escaped (or a raw é) at every place, each line in a buffer of exactly its length (the
 * sanitizers see any read past it), decoded exactly; and jsonl_text_utf8 never says "may be
 * invalid" for these valid texts (raw é, ASCII or \u escapes). */
Test(jsonl, every_length_and_place_and_the_utf8_hint)
{
    static const char *const odd[] = {"\"", "\\", "\n", "\x01", "\xC3\xA9"};
    for (size_t len = 0; len <= 70; len++) {
        for (size_t at = 0; at <= len; at++) {
            for (size_t k = 0; k < sizeof odd / sizeof odd[0]; k++) {
                char text[80];
                memset(text, 'x', len);
                size_t ol = strlen(odd[k]), tn = at < len ? len - 1 + ol : len;
                if (at < len) {
                    memmove(text + at + ol, text + at + 1, len - at - 1);
                    memcpy(text + at, odd[k], ol);
                }
                char *lit = json_string_alloc(text, tn);
                size_t ll = strlen(lit) + 10;
                char *line = malloc(ll);
                memcpy(line, "{\"text\": ", 9);
                memcpy(line + 9, lit, ll - 10);
                line[ll - 1] = '}';
                bytebuf out = {0}, key = {0};
                jsonl_error e;
                int maybe_invalid = -1;
                cr_assert_eq(jsonl_text_utf8(line, ll, 0, &out, &key, &e, &maybe_invalid), 0, "%zu/%zu/%zu", len,
                             at, k);
                cr_assert(out.n == tn && (!tn || memcmp(out.p, text, tn) == 0), "len %zu, at %zu, case %zu", len,
                          at, k);
                cr_assert_eq(maybe_invalid, 0, "len %zu, at %zu, case %zu: valid UTF-8", len, at, k);
                bb_free(&out), bb_free(&key);
                free(line), free(lit);
            }
        }
    }
    /* \u escapes of non-ASCII characters are valid UTF-8 without a check */
    const char *esc = "{\"text\": \"\\u00e9\\u72ac\\ud83d\\ude00\"}";
    bytebuf out = {0}, key = {0};
    jsonl_error e;
    int maybe_invalid = -1;
    cr_assert_eq(jsonl_text_utf8(esc, strlen(esc), 0, &out, &key, &e, &maybe_invalid), 0);
    cr_expect_eq(maybe_invalid, 0);
    cr_expect(out.n == 9 && memcmp(out.p, "\xC3\xA9\xE7\x8A\xAC\xF0\x9F\x98\x80", 9) == 0);
    bb_free(&out), bb_free(&key);
}
