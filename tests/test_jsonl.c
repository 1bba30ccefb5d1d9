/* SPDX-License-Identifier: MIT */
/* test_jsonl.c — the "text" member of a JSON line: exact bytes, every error with its reason
 * and place; checked against hand-written cases, the library's JSON writer (json.h, a
 * round trip of random texts) and cJSON (an independent parser). */
#include "json.h"
#include "jsonl.h"
#include "tokenizer.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>
#include <utf8proc.h>

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

/* ---- the scans (SSE2 and portable), the UTF-8 check done while copying, jsonl_line ---- */

/* Whether s[0..n) is valid UTF-8, by utf8proc (an independent decoder). */
static int valid_utf8(const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        utf8proc_int32_t c;
        utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s + i, (utf8proc_ssize_t)(n - i), &c);
        if (k <= 0)
            return 0;
        i += (size_t)k;
    }
    return 1;
}

/* A piece of a JSON string: how it is written in the line, and the bytes it decodes to. */
typedef struct piece {
    const char *json, *bytes;
} piece;

static const piece PIECES[] = {
    {"a", "a"}, {"Z", "Z"}, {" ", " "}, {"0123456789abcdef", "0123456789abcdef"}, {"\\\"", "\""},
    {"\\\\", "\\"}, {"\\/", "/"}, {"\\n", "\n"}, {"\\t", "\t"}, {"\\u0000", "\0"}, {"\\u001f", "\x1F"},
    {"\x7F", "\x7F"}, {"\\u00e9", "\xC3\xA9"}, {"\\u72ac", "\xE7\x8A\xAC"}, {"\\ud83d\\ude00", "\xF0\x9F\x98\x80"},
    {"\xC3\xA9", "\xC3\xA9"}, {"\xC2\x80", "\xC2\x80"}, {"\xDF\xBF", "\xDF\xBF"}, {"\xE0\xA0\x80", "\xE0\xA0\x80"},
    {"\xE7\x8A\xAC", "\xE7\x8A\xAC"}, {"\xED\x9F\xBF", "\xED\x9F\xBF"}, {"\xEE\x80\x80", "\xEE\x80\x80"},
    {"\xEF\xBF\xBF", "\xEF\xBF\xBF"}, {"\xF0\x90\x80\x80", "\xF0\x90\x80\x80"},
    {"\xF0\x9F\x98\x80", "\xF0\x9F\x98\x80"}, {"\xF4\x8F\xBF\xBF", "\xF4\x8F\xBF\xBF"},
    /* ill-formed: lone continuations, C0/C1 and other overlong forms, surrogates, above
     * U+10FFFF, F5..FF, sequences cut short (also by an escape or the string's end) */
    {"\x80", "\x80"}, {"\xBF", "\xBF"}, {"\xC0\x80", "\xC0\x80"}, {"\xC1\xBF", "\xC1\xBF"},
    {"\xE0\x80\x80", "\xE0\x80\x80"}, {"\xE0\x9F\xBF", "\xE0\x9F\xBF"}, {"\xED\xA0\x80", "\xED\xA0\x80"},
    {"\xED\xBF\xBF", "\xED\xBF\xBF"}, {"\xF0\x80\x80\x80", "\xF0\x80\x80\x80"},
    {"\xF0\x8F\xBF\xBF", "\xF0\x8F\xBF\xBF"}, {"\xF4\x90\x80\x80", "\xF4\x90\x80\x80"}, {"\xF5\x80\x80\x80", "\xF5\x80\x80\x80"},
    {"\xFF", "\xFF"}, {"\xC3", "\xC3"}, {"\xE7\x8A", "\xE7\x8A"}, {"\xF0\x9F\x98", "\xF0\x9F\x98"}, {"\xE7", "\xE7"},
};
enum { N_PIECES = sizeof PIECES / sizeof PIECES[0] };

/* Decodes the usual line {"text": "<json>"} (in a buffer of exactly its length) with both
 * scans, through jsonl_text_utf8 and jsonl_line, and checks the bytes and the UTF-8 hint
 * against want (utf8proc's verdict) at every step. */
static void check_line(const char *json, size_t jn, const char *want, size_t wn, const char *what)
{
    size_t ll = jn + 12;
    char *line = malloc(ll);
    memcpy(line, "{\"text\": \"", 10);
    memcpy(line + 10, json, jn);
    memcpy(line + 10 + jn, "\"}", 2);
    int invalid = !valid_utf8(want, wn);
    for (unsigned flags = 0; flags <= JSONL_PORTABLE; flags += JSONL_PORTABLE) {
        bytebuf out = {0}, key = {0};
        jsonl_error e;
        int maybe_invalid = -1;
        int rc = jsonl_text_utf8(line, ll, flags, &out, &key, &e, &maybe_invalid);
        cr_assert_eq(rc, 0, "%s (flags %u): %s at %zu", what, flags, rc ? e.why : "", rc ? e.at : 0);
        cr_assert(out.n == wn && (!wn || memcmp(out.p, want, wn) == 0), "%s (flags %u): the bytes differ", what, flags);
        cr_assert_eq(maybe_invalid, invalid, "%s (flags %u): said %s", what, flags,
                     maybe_invalid ? "invalid" : "valid");
        cr_assert_eq(tok_utf8_check(want, wn) < wn, invalid, "%s: tok_utf8_check and utf8proc disagree", what);
        size_t len = 0;
        out.n = 0;
        maybe_invalid = -1;
        cr_assert_eq(jsonl_line(line, ll, flags, &out, &key, &e, &len, &maybe_invalid), 0, "%s: jsonl_line", what);
        cr_assert(len == ll && out.n == wn && (!wn || memcmp(out.p, want, wn) == 0) && maybe_invalid == invalid,
                  "%s (flags %u): jsonl_line differs", what, flags);
        bb_free(&out), bb_free(&key);
    }
    free(line);
}

/* Random strings of the pieces above, of 0 to 90 bytes (every alignment of every piece
 * against the 16- and 8-byte steps, escapes across their ends): decoded exactly by both
 * scans, and said valid exactly when utf8proc finds the decoded text valid. */
Test(jsonl, both_scans_decode_exactly_and_check_utf8_exactly)
{
    char json[1024], want[1024];
    for (int round = 0; round < 20000; round++) {
        size_t jn = 0, wn = 0, target = rnd() % 91;
        int odd = round % 2; /* half of the texts all valid, half with ill-formed pieces too */
        while (jn < target) {
            const piece *p = &PIECES[rnd() % (odd ? N_PIECES : 26)];
            if (rnd() % 3) /* mostly ASCII, so that runs are long */
                p = &PIECES[rnd() % 4];
            memcpy(json + jn, p->json, strlen(p->json));
            jn += strlen(p->json);
            size_t bl = p->bytes[0] ? strlen(p->bytes) : 1; /* ("\0") */
            memcpy(want + wn, p->bytes, bl);
            wn += bl;
        }
        char what[64];
        snprintf(what, sizeof what, "round %d", round);
        check_line(json, jn, want, wn, what);
    }
}

/* Every piece at every place of texts of 0..40 bytes of ASCII, alone and right before an
 * escape, a valid character and the closing quote. */
Test(jsonl, every_piece_at_every_place)
{
    static const char *const after[] = {"", "\\n", "\xC3\xA9", "\\u00e9"};
    static const char *const after_bytes[] = {"", "\n", "\xC3\xA9", "\xC3\xA9"};
    char json[128], want[128];
    for (size_t k = 0; k < N_PIECES; k++)
        for (size_t a = 0; a < 4; a++)
            for (size_t len = 0; len <= 40; len++)
                for (size_t at = 0; at <= len; at++) {
                    size_t pj = strlen(PIECES[k].json), pb = PIECES[k].bytes[0] ? strlen(PIECES[k].bytes) : 1;
                    size_t aj = strlen(after[a]), ab = strlen(after_bytes[a]);
                    memset(json, 'x', at);
                    memcpy(json + at, PIECES[k].json, pj);
                    memcpy(json + at + pj, after[a], aj);
                    memset(json + at + pj + aj, 'y', len - at);
                    memset(want, 'x', at);
                    memcpy(want + at, PIECES[k].bytes, pb);
                    memcpy(want + at + pb, after_bytes[a], ab);
                    memset(want + at + pb + ab, 'y', len - at);
                    char what[80];
                    snprintf(what, sizeof what, "piece %zu then %zu at %zu of %zu", k, a, at, len);
                    check_line(json, pj + aj + len, want, pb + ab + len, what);
                }
}

/* Lone surrogates (lossy: U+FFFD, valid) and pairs are whole characters: valid UTF-8
 * without a check, also next to raw bytes; a raw lead byte cut short by an escape is not. */
Test(jsonl, escapes_give_whole_characters)
{
    static const struct {
        const char *json, *want;
        int invalid;
    } cases[] = {
        {"\\ud800", "\xEF\xBF\xBD", 0},
        {"\\udfff\\ud83d", "\xEF\xBF\xBD\xEF\xBF\xBD", 0},
        {"\\ud83d\\ude00\xE7\x8A\xAC", "\xF0\x9F\x98\x80\xE7\x8A\xAC", 0},
        {"\xE7\x8A\\u00ac", "\xE7\x8A\xC2\xAC", 1},
        {"\xE7\\u008a\\u00ac", "\xE7\xC2\x8A\xC2\xAC", 1},
        {"\xC3\\n", "\xC3\n", 1},
        {"\\ud83d\xDE\x80", "\xEF\xBF\xBD\xDE\x80", 0},
        {"\\ud83d\xED\xB8\x80", "\xEF\xBF\xBD\xED\xB8\x80", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char line[64];
        int ll = snprintf(line, sizeof line, "{\"text\": \"%s\"}", cases[i].json);
        for (unsigned flags = JSONL_LOSSY; flags <= (JSONL_LOSSY | JSONL_PORTABLE); flags += JSONL_PORTABLE) {
            bytebuf out = {0}, key = {0};
            jsonl_error e;
            int maybe_invalid = -1;
            cr_assert_eq(jsonl_text_utf8(line, (size_t)ll, flags, &out, &key, &e, &maybe_invalid), 0, "case %zu", i);
            size_t wn = strlen(cases[i].want);
            cr_expect(out.n == wn && memcmp(out.p, cases[i].want, wn) == 0, "case %zu: bytes", i);
            cr_expect_eq(maybe_invalid, cases[i].invalid, "case %zu (flags %u)", i, flags);
            cr_expect_eq(!valid_utf8(out.p, out.n), cases[i].invalid, "case %zu: the table is wrong", i);
            bb_free(&out), bb_free(&key);
        }
    }
}

/* Whether lines[i] below is a usual line {"text": "..."} that jsonl_usual_lines reads. */
static int usual(size_t i, unsigned flags)
{
    return i <= 3 || i == 17 || i == 21 || (i == 15 && (flags & JSONL_LOSSY));
}

/* jsonl_line over buffers of many random lines (usual ones, other shapes, blank ones, bad
 * ones, a newline inside a string, \r before the newline, the last without its newline):
 * the same lengths, results, errors, texts and UTF-8 hints as a search for the newline
 * and jsonl_text_utf8 on each line; the buffer is exactly its length (sanitizers). */
Test(jsonl, jsonl_line_agrees_with_one_line_at_a_time)
{
    static const char *const lines[] = {
        "{\"text\": \"Hello world\\n\"}", "{\"text\": \"\xE7\x8A\xAC\\t\\\"x\\\"\"}", "{\"text\": \"\"}",
        "{\"text\": \"bad \xE7\x8A\"}", "{\"text\":\"a\"}", "  {\"text\": \"a\"}  ", "{\"text\": \"a\"}\r",
        "{\"text\": \"a\", \"id\": 3}", "{\"id\": 3, \"text\": \"b\"}", "", "   ", "\t\r", "{\"text\": \"abc",
        "{\"text\": \"a\tb\"}", "{\"text\": \"a\\qb\"}", "{\"text\": \"\\ud800\"}", "{\"text\": \"a\"} x",
        "{\"text\": \"0123456789abcdef0123456789abcdef0123\"}", "[1]", "{\"text\": \"a\"}}",
        "{\"text\": \"a\" , \"text\": \"b\"}", "{\"text\": \"x\\u00e9\xC3\xA9\\ud83d\\ude00\"}",
    };
    enum { NL = sizeof lines / sizeof lines[0] };
    for (int round = 0; round < 3000; round++) {
        bytebuf in = {0};
        size_t k = 1 + rnd() % 12, kind[12];
        for (size_t i = 0; i < k; i++) {
            kind[i] = rnd() % NL;
            bb_str(&in, lines[kind[i]]);
            if (i + 1 < k || rnd() % 2)
                bb_put(&in, "\n", 1);
        }
        char *buf = malloc(in.n ? in.n : 1);
        if (in.n)
            memcpy(buf, in.p, in.n);
        unsigned flags = (rnd() % 2 ? JSONL_LOSSY : 0) | (rnd() % 2 ? JSONL_PORTABLE : 0);
        for (size_t pos = 0; pos < in.n;) {
            bytebuf a = {0}, b = {0}, key = {0};
            jsonl_error ea = {0}, eb = {0};
            size_t len = 0;
            int ia = -1, ib = -1;
            int ra = jsonl_line(buf + pos, in.n - pos, flags, &a, &key, &ea, &len, &ia);
            const char *nl = memchr(buf + pos, '\n', in.n - pos);
            size_t want_len = nl ? (size_t)(nl - buf - pos) : in.n - pos;
            cr_assert_eq(len, want_len, "round %d at %zu: the line's length", round, pos);
            int blank_line = 1;
            for (size_t i = 0; i < len; i++)
                blank_line &= buf[pos + i] == ' ' || buf[pos + i] == '\t' || buf[pos + i] == '\r';
            if (blank_line) {
                cr_assert_eq(ra, JSONL_BLANK, "round %d at %zu: blank", round, pos);
                cr_assert_eq(a.n, 0);
            } else {
                int rb = jsonl_text_utf8(buf + pos, len, flags, &b, &key, &eb, &ib);
                cr_assert_eq(ra, rb, "round %d at %zu: status %d, want %d", round, pos, ra, rb);
                cr_assert(a.n == b.n && (!a.n || memcmp(a.p, b.p, a.n) == 0), "round %d at %zu: text", round, pos);
                cr_assert_eq(ia, ib, "round %d at %zu: the UTF-8 hint", round, pos);
                if (ra) {
                    cr_assert_str_eq(ea.why, eb.why, "round %d at %zu", round, pos);
                    cr_assert_eq(ea.at, eb.at, "round %d at %zu", round, pos);
                }
            }
            bb_free(&a), bb_free(&b), bb_free(&key);
            pos += len + 1;
        }
        /* jsonl_usual_lines from every line start: each line it reads is what jsonl_line
         * reads, and it stops only at max lines or before a line not of the usual kind */
        size_t line_no = 0;
        for (size_t pos = 0; pos < in.n;) {
            bytebuf text = {0}, one = {0}, key = {0};
            jsonl_span sp[6];
            size_t used, max = 1 + rnd() % 6, got = jsonl_usual_lines(buf + pos, in.n - pos, flags, &text, sp, max, &used);
            size_t at = pos;
            jsonl_error e;
            size_t len = 0;
            int hint = -1;
            for (size_t i = 0; i < got; i++) {
                cr_assert(usual(kind[line_no + i], flags), "round %d: line %zu is not usual", round, line_no + i);
                one.n = 0;
                cr_assert_eq(jsonl_line(buf + at, in.n - at, flags, &one, &key, &e, &len, &hint), 0, "round %d", round);
                cr_assert(len == sp[i].len && hint == sp[i].maybe_invalid && one.n == sp[i].n &&
                              (!one.n || memcmp(one.p, text.p + sp[i].at, one.n) == 0),
                          "round %d at %zu: line %zu of the batch differs", round, at, i);
                at += len + 1;
            }
            cr_assert_eq(pos + used, at < in.n ? at : in.n, "round %d: the bytes used", round);
            line_no += got;
            cr_assert(got == max || at >= in.n || !usual(kind[line_no], flags), "round %d: stopped before line %zu",
                      round, line_no);
            if (!got) { /* past the line it stopped at */
                const char *nl = memchr(buf + at, '\n', in.n - at);
                at = nl ? (size_t)(nl - buf) + 1 : in.n;
                line_no++;
            }
            pos = at;
            bb_free(&text), bb_free(&one), bb_free(&key);
        }
        free(buf);
        bb_free(&in);
    }
}

/* A usual line longer than JSONL_WINDOW is read in two passes: the same text. */
Test(jsonl, a_line_longer_than_the_window)
{
    size_t tn = JSONL_WINDOW + 1000;
    bytebuf line = {0}, out = {0}, key = {0};
    bb_str(&line, "{\"text\": \"");
    for (size_t i = 0; i < tn; i++)
        bb_put(&line, i % 1000 == 999 ? "\xC3\xA9" : "a", i % 1000 == 999 ? 2 : 1);
    bb_str(&line, "\"}\n{\"text\": \"b\"}");
    jsonl_error e;
    size_t len;
    int maybe_invalid = -1;
    cr_assert_eq(jsonl_line(line.p, line.n, 0, &out, &key, &e, &len, &maybe_invalid), 0);
    cr_expect_eq(len, line.n - 14);
    cr_expect_eq(maybe_invalid, 0);
    cr_expect(out.n == tn + tn / 1000 && memcmp(out.p, "aaa", 3) == 0 && memcmp(out.p + 999, "\xC3\xA9" "a", 3) == 0);
    bb_free(&line), bb_free(&out), bb_free(&key);
}
