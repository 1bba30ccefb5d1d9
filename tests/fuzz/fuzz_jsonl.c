/* SPDX-License-Identifier: MIT */
/* fuzz_jsonl.c — libFuzzer target for the hand-written JSON line reader (jsonl.h, on the hot
 * path of `tokenize --jsonl`): any bytes give either the text or an error whose place lies
 * in the line, with nothing left appended; what it accepts, cJSON (an independent parser)
 * accepts too and reads as the same string (where cJSON can: no NUL in it, no lone
 * surrogate in a member name); the lossy reading never fails where the strict one succeeds
 * and then gives the same bytes; a text said to need no UTF-8 check (jsonl_text_utf8) is
 * valid UTF-8. Never a crash, a leak or an out-of-bounds read. */
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
    if (!rl && !maybe_invalid && text_validate(lossy.p ? lossy.p : "", lossy.n) != lossy.n)
        abort(); /* the tokenizer would skip its check on invalid text */
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
    bb_free(&text);
    bb_free(&lossy);
    bb_free(&key);
    return 0;
}
