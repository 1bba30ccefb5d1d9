/* SPDX-License-Identifier: MIT */
/* fuzz_jsonl.c — libFuzzer target for the hand-written JSON line reader (jsonl.h, on the hot
 * path of `tokenize --jsonl`): any bytes give either the text or an error whose place lies
 * in the line, with nothing left appended; what it accepts, cJSON (an independent parser)
 * accepts too and reads as the same string (where cJSON can: no NUL in it, no lone
 * surrogate in a member name); the lossy reading never fails where the strict one succeeds
 * and then gives the same bytes; the UTF-8 hint (jsonl_text_utf8) says valid exactly when the
 * text is (text_validate); the portable scan gives what the SSE2 one gives; jsonl_line, over
 * the input as lines, gives what a search for the newline and jsonl_text_utf8 give;
 * jsonl_members' spans are whole JSON values inside the line. Never a crash, a leak or an
 * out-of-bounds read. */
#define _GNU_SOURCE /* memmem */
#include "jsonl.h"
#include "text.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    bytebuf text = {0}, lossy = {0}, key = {0};
    jsonl_error e = {0};
    int rc = jsonl_text(s, size, 0, &text, &key, &e);
    int maybe_invalid = 1;
    int rl = jsonl_text_utf8(s, size, JSONL_LOSSY, &lossy, &key, &e, &maybe_invalid);
    if (!rl && maybe_invalid != (text_validate(lossy.p ? lossy.p : "", lossy.n) != lossy.n))
        abort(); /* the tokenizer would skip its check on invalid text (or check valid text) */
    bytebuf port = {0};
    int pm = 1;
    jsonl_error pe = {0};
    int rp = jsonl_text_utf8(s, size, JSONL_LOSSY | JSONL_PORTABLE, &port, &key, &pe, &pm);
    if (rp != rl || pm != maybe_invalid || port.n != lossy.n || (port.n && memcmp(port.p, lossy.p, port.n)) ||
        (rp && (pe.why != e.why || pe.at != e.at)))
        abort();
    bb_free(&port);
    for (size_t pos = 0; pos < size;) {
        bytebuf a = {0}, b = {0};
        jsonl_error ea = {0}, eb = {0};
        size_t len = 0;
        int ia = -1, ib = -1;
        unsigned flags = size % 2 ? JSONL_PORTABLE : 0;
        int ra = jsonl_line(s + pos, size - pos, flags, &a, &key, &ea, &len, &ia);
        const char *nl = memchr(s + pos, '\n', size - pos);
        if (len != (nl ? (size_t)(nl - s - pos) : size - pos))
            abort();
        if (ra != JSONL_BLANK) {
            int rb = jsonl_text_utf8(s + pos, len, flags, &b, &key, &eb, &ib);
            if (ra != rb || ia != ib || a.n != b.n || (a.n && memcmp(a.p, b.p, a.n)) ||
                (ra && (ea.why != eb.why || ea.at != eb.at)))
                abort();
        }
        bb_free(&a), bb_free(&b);
        pos += len + 1;
    }
    /* jsonl_usual_lines: each line it reads is what jsonl_line reads */
    for (size_t pos = 0; pos < size;) {
        bytebuf text2 = {0}, one = {0};
        jsonl_span sp[4];
        size_t used, k = jsonl_usual_lines(s + pos, size - pos, size % 2 ? JSONL_PORTABLE : 0, &text2, sp, 4, &used);
        size_t at = pos;
        for (size_t i = 0; i < k; i++) {
            jsonl_error eo;
            size_t len;
            int hint;
            one.n = 0;
            if (jsonl_line(s + at, size - at, size % 2 ? JSONL_PORTABLE : 0, &one, &key, &eo, &len, &hint) ||
                len != sp[i].len || hint != sp[i].maybe_invalid || one.n != sp[i].n ||
                (one.n && memcmp(one.p, text2.p + sp[i].at, one.n)))
                abort();
            at += len + 1;
        }
        if (pos + used != (at < size ? at : size))
            abort();
        const char *nl = k ? NULL : memchr(s + at, '\n', size - at);
        pos = k ? at : nl ? (size_t)(nl - s) + 1 : size;
        bb_free(&text2), bb_free(&one);
    }
    if (rc && rc != JSONL_E_SYNTAX)
        abort(); /* no allocation fails at these sizes */
    if (rc && (text.n || e.at > size || !e.why))
        abort();
    if (!rc && (rl || lossy.n != text.n || (text.n && memcmp(lossy.p, text.p, text.n))))
        abort();
    if (!rc && !memchr(text.p ? text.p : "", '\0', text.n) && !memmem(s, size, "\\ud", 3) &&
        !memmem(s, size, "\\uD", 3)) {
        cJSON *j = cJSON_ParseWithLength(s, size);
        const cJSON *t = j ? cJSON_GetObjectItemCaseSensitive(j, "text") : NULL;
        if (!cJSON_IsString(t) || strlen(t->valuestring) != text.n || memcmp(t->valuestring, text.p, text.n))
            abort();
        cJSON_Delete(j);
    }
    /* jsonl_members (--keep): its spans lie in the line and are each one whole JSON value
     * (cJSON reads all of it); a line jsonl_text accepts it accepts, "text" found there */
    static const char *const keys[] = {"text", "id", ""};
    jsonl_value v[3];
    jsonl_error me = {0};
    int rm = jsonl_members(s, size, keys, 3, v, &key, &me);
    if (rm && rm != JSONL_E_SYNTAX)
        abort();
    if (!rc && (rm || !v[0].found))
        abort();
    for (int k = 0; !rm && k < 3; k++) {
        if (!v[k].found)
            continue;
        if (v[k].at + v[k].n > size || !v[k].n)
            abort();
        if (memmem(s + v[k].at, v[k].n, "\\ud", 3) || memmem(s + v[k].at, v[k].n, "\\uD", 3))
            continue; /* (a lone surrogate escape is JSON's grammar, which cJSON refuses) */
        const char *end = NULL;
        cJSON *j = cJSON_ParseWithLengthOpts(s + v[k].at, v[k].n, &end, 0);
        if (!j || end != s + v[k].at + v[k].n)
            abort();
        cJSON_Delete(j);
    }
    bb_free(&text);
    bb_free(&lossy);
    bb_free(&key);
    return 0;
}
