/* SPDX-License-Identifier: MIT */
/* json.h — the one JSON writer: a small streaming writer onto a FILE, used by every
 * command that writes JSON, so that every document is valid JSON (RFC 8259) and every
 * string is escaped the same way.
 *
 * Layout: one line, Python's json.dumps separators — `{"a": 1, "b": [1, 2]}`. The writer
 * puts the ", " and ": " itself; callers only say what comes next.
 *
 * Strings (json_string, json_write_string) — the one escaping:
 *   '"' -> \"   '\\' -> \\   and the short forms \n \t \r \b \f;
 *   every other C0 control and DEL -> \u00XX (lowercase hex, as Python writes them);
 *   C1 controls U+0080..U+009F and U+2028/U+2029 -> \u0080... \u2028 (a JSON document
 *   printed to a terminal cannot drive it, and it is valid JavaScript too);
 *   each maximal subpart of ill-formed UTF-8 -> \ufffd (one per subpart, exactly what
 *   Python's bytes.decode("utf-8", errors="replace") gives — a JSON text must be valid
 *   UTF-8; the exact bytes of a token piece are given separately, e.g. tokchars.h's
 *   "offset", or a command's "bytes" array);
 *   everything else (valid UTF-8, 犬 included) as it is.
 *
 * Numbers: json_write_f32 writes "%.9g" (reads back to the same float32), json_f64 "%.17g";
 * negative zero as -0.0 (a bare -0 is read as the integer 0 by Python and others);
 * NaN and ±Inf are written as null — never as the bare nan/inf that no JSON reader
 * accepts. Integers exactly.
 *
 * Misuse (a value where a key is due, a key outside an object, closing what was not
 * opened, nesting deeper than JSON_MAX_DEPTH) writes nothing and sets json_w.err; write
 * errors of the FILE are the caller's to check (ferror, out_commit).
 *
 * Deliberately left out: reading (cJSON does that), pretty-printing, sorting keys.
 */
#ifndef G2E_JSON_H
#define G2E_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

typedef struct json_w {
    FILE *f;
    int depth;                      /* open containers */
    char kind[JSON_MAX_DEPTH];      /* '{' or '[' per level */
    unsigned char n[JSON_MAX_DEPTH];/* 0: nothing written yet at this level, else 1 */
    int want_value;                 /* 1: a key was written, its value is due */
    int err;                        /* 1 after a misuse (nothing written for it) */
} json_w;

/* Starts a document on f (nothing is written yet). */
void json_init(json_w *w, FILE *f);

void json_begin_object(json_w *w);
void json_end_object(json_w *w);
void json_begin_array(json_w *w);
void json_end_array(json_w *w);

/* An object's key (a NUL-terminated string, escaped as any string). */
void json_key(json_w *w, const char *key);

/* Values. */
void json_str(json_w *w, const char *s, size_t n);
void json_cstr(json_w *w, const char *s);   /* NULL writes null */
void json_f64(json_w *w, double v);
void json_uint(json_w *w, unsigned long long v);
void json_bool(json_w *w, int v);
void json_null(json_w *w);

/* Continues an object whose opening brace (and `members` members, 0 or more) the caller
 * wrote by hand on f: the next json_key writes its ", " as needed; the caller closes the
 * object itself. For code that writes part of a document with fprintf (transitional). */
void json_resume_object(json_w *w, FILE *f, int members);

/* 1 when the document is complete (every container closed, at least one value). */
int json_done(const json_w *w);

/* Stateless: a JSON string literal (with its quotes) for s[0..n), escaped as above. */
void json_write_string(FILE *f, const char *s, size_t n);
/* The same literal in a new NUL-terminated string (for callers that build output in
 * memory); the caller frees it; NULL if out of memory. */
char *json_string_alloc(const char *s, size_t n);
/* Stateless: a float32 / double as above ("null" when not finite). */
void json_write_f32(FILE *f, float v);
void json_write_f64(FILE *f, double v);

#endif
