/* SPDX-License-Identifier: MIT */
/* jsonl.h — the "text" member of one JSON Lines object, decoded to its exact bytes.
 *
 * A line must be one JSON object (RFC 8259) with exactly one member named "text" whose
 * value is a string; other members are checked (by cJSON: literals, numbers, nesting) and
 * skipped; white space around tokens is allowed, nothing after the object. The string is
 * decoded byte-exactly, \u0000 included, surrogate pairs joined; a lone surrogate escape is
 * an error, or U+FFFD with JSONL_LOSSY (member names always take the lossy reading, they are
 * only compared with "text"). Bytes >= 0x80 are copied as they are; a decoded text that
 * holds any is then checked as UTF-8 (text_validate), so that the caller knows whether the
 * text is valid (and the tokenizer need not check it again); repairing it (--lossy) is the
 * tokenizer's job.
 *
 * Why not cJSON for the line (it still checks the other members' values): its strings end
 * at a NUL and it refuses the lone surrogates that --lossy must replace; and this is the hot
 * path of `tokenize --jsonl`, where it reads every "text" in about a tenth of the
 * instructions cJSON_ParseWithLength takes (bench/PROGRAM.md).
 *
 * Status codes: JSONL_E_SYNTAX, G2E_ENOMEM. Errors carry a fixed English reason (the
 * text of tokenize --jsonl's messages and error objects) and the byte offset in the line
 * where the problem was found.
 * Deliberately left out: other members' values (only checked); more of line splitting than
 * finding where one line ends (jsonl_line).
 */
#ifndef G2E_JSONL_H
#define G2E_JSONL_H

#include "bytebuf.h"
#include "err.h"

#include <stddef.h>

enum { JSONL_E_SYNTAX = G2E_BASE(JSONL), JSONL_CODES_END_ };
G2E_CODES_END(JSONL, JSONL_CODES_END_);
enum { JSONL_BLANK = 1 /* jsonl_line: a blank line (not an error) */ };

#define JSONL_LOSSY 1u    /* a lone surrogate \u escape in "text" becomes U+FFFD */
#define JSONL_PORTABLE 2u /* the scan without SSE2 even where it is (for tests: the same results) */
#define JSONL_WINDOW ((size_t)1 << 20) /* jsonl_line reads longer usual lines in two passes */

typedef struct jsonl_error {
    const char *why; /* static English text, e.g. "expected ':'" */
    size_t at;       /* byte offset in the line */
} jsonl_error;

/* Decodes the "text" member of the line s[0..n) and appends its bytes to text (text->n
 * grows by the decoded length). key is scratch space for member names (reused across
 * calls). Returns 0; JSONL_E_SYNTAX with *e filled and text->n as it was; or G2E_ENOMEM
 * (text->oom or key->oom set). */
int jsonl_text(const char *s, size_t n, unsigned flags, bytebuf *text, bytebuf *key, jsonl_error *e);

/* jsonl_text, also telling whether the text is valid UTF-8: *maybe_invalid is 0 exactly
 * when it is (its raw bytes are, and \u escapes decode to whole characters only), so that
 * the tokenizer need not check it; 1 when it is not (or on error). */
int jsonl_text_utf8(const char *s, size_t n, unsigned flags, bytebuf *text, bytebuf *key, jsonl_error *e,
                    int *maybe_invalid);

/* Where a member's value lies in a line: s[at .. at + n), its raw JSON (found = 1). */
typedef struct jsonl_value {
    size_t at, n;
    int found;
} jsonl_value;

/* The raw values of the members named keys[0..nkeys) in the JSON object s[0..n) (the first
 * member of each name; found = 0 for those it lacks), each checked as JSON as jsonl_text
 * checks the members it skips. For copying members such as "id" into an answer byte for
 * byte (a number keeps its spelling). Returns 0, JSONL_E_SYNTAX (*e) or G2E_ENOMEM. */
int jsonl_members(const char *s, size_t n, const char *const *keys, size_t nkeys, jsonl_value *v, bytebuf *key,
                  jsonl_error *e);

/* The first line of s[0..n) (up to its '\n', or n): *len is its length without the '\n'.
 * A line of spaces, tabs and CRs only is blank: JSONL_BLANK, nothing appended. Otherwise
 * as jsonl_text_utf8 on s[0..*len): the same text, errors and *maybe_invalid. The usual
 * line, {"text": "..."} as Python's json.dumps writes it, is read in one pass that finds
 * its end too (a raw newline ends a JSON string's scan), instead of a search for the
 * newline first; text then grows by up to min(n, JSONL_WINDOW) + 16 bytes of capacity. */
int jsonl_line(const char *s, size_t n, unsigned flags, bytebuf *text, bytebuf *key, jsonl_error *e,
               size_t *len, int *maybe_invalid);

/* One line read by jsonl_usual_lines: its text at text->p[at .. at + n), the line's length
 * without its '\n', and the UTF-8 hint (as jsonl_text_utf8's). */
typedef struct jsonl_span {
    size_t at, n, len;
    int maybe_invalid;
} jsonl_span;

/* The usual lines at the start of s[0..n), up to max of them, read one after the other as
 * jsonl_line reads them (their texts appended to text, their spans in sp[0..max)), without
 * a call per line; it stops before the first line of another kind (blank, another shape, an
 * error: for jsonl_line), at the end of s or after max lines. Returns how many it read;
 * *used is the bytes they take with their newlines (at most n). Out of memory: text->oom
 * set, and the line it happened on not read. */
size_t jsonl_usual_lines(const char *s, size_t n, unsigned flags, bytebuf *text, jsonl_span *sp, size_t max,
                         size_t *used);

#endif
