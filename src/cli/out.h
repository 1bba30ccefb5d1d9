/* out.h — where every command's output goes, and the small formatting helpers the
 * formats (table, json, csv) share.
 *
 * Destinations (out_open):
 *   - no -o (path NULL or "-"): standard output;
 *   - -o FILE naming a regular file or nothing yet: written to a temporary file created
 *     with mkstemp in FILE's directory, then flushed, fsync'ed and renamed over FILE by
 *     out_commit. Until then FILE is untouched; on any failure (or out_abort) the
 *     temporary is removed and FILE keeps its previous content. A symbolic link is
 *     followed: its target is replaced, the link stays. The new file gets the mode of
 *     the file it replaces, or 0666 & ~umask for a new one (mkstemp's 0600 would
 *     surprise);
 *   - -o naming something that exists and is not a regular file (/dev/null, /dev/stdout,
 *     a FIFO, a terminal): written directly, never replaced or removed.
 * Binary formats (out_open with binary = 1) refuse a terminal, whichever way it is
 * reached, with a message that says to use -o or a redirection.
 *
 * These functions belong to the program wing: on failure they print one line through
 * cli_error and return -1; the caller exits with status 1.
 *
 * Deliberately left out: appending, compression, writing several files at once.
 */
#ifndef G2E_OUT_H
#define G2E_OUT_H

#include <stddef.h>
#include <stdio.h>

typedef struct out_file {
    FILE *f;        /* write here between out_open and out_commit/out_abort */
    char *target;   /* the path being replaced atomically (owned), or NULL */
    char *tmp;      /* the temporary file's path (owned), or NULL */
    const char *name;   /* for messages: the -o argument or "standard output" */
    int direct;     /* 1: f is stdout or a non-regular file opened in place */
    int own_f;      /* 1: f must be fclose'd (not stdout) */
} out_file;

/* Opens the destination. path NULL or "-" means standard output. binary = 1 refuses a
 * terminal. On success *o is ready and must be finished by out_commit or out_abort; on
 * failure an error is printed, nothing was created, *o needs no cleanup, -1 returned. */
int out_open(out_file *o, const char *path, int binary);

/* Finishes: flushes and checks for write errors; for an atomic target also fsyncs,
 * sets the mode, renames over the target and fsyncs the directory. Returns 0, or -1
 * after printing an error and removing the temporary (the target is then untouched).
 * *o is finished either way (calling out_abort afterwards is harmless). */
int out_commit(out_file *o);

/* Abandons the output: closes, removes the temporary (never the target or a
 * non-regular file). Accepts a zeroed or already finished out_file. */
void out_abort(out_file *o);

/* ---- formatting helpers (write to any FILE) ---- */

/* A float32 as "%.9g": the shortest fixed format that always reads back to the same
 * float32 (9 significant digits). Non-finite values print as nan / inf / -inf. */
void out_f32(FILE *f, float v);
/* A double as "%.17g" (round-trips any double). */
void out_f64(FILE *f, double v);

/* Makes a token piece (bytes, not necessarily valid UTF-8: a BPE piece may be part of a
 * multi-byte character) visible on one line, into a new NUL-terminated string the
 * caller frees (NULL if out of memory):
 *   ' '  -> '␣' (U+2423)    '\n' -> '↵' (U+21B5)    '\t' -> '→' (U+2192)
 *   '\\' -> "\\\\"          other C0 controls, DEL, C1 controls (U+0080..U+009F) and
 *   bytes that are not part of valid UTF-8 -> "\xNN" per byte (uppercase hex).
 * Every other valid UTF-8 character is kept as it is. Because the backslash is doubled,
 * "\xNN" in the result always means an escaped byte. (text_escape with TEXT_ESC_VISIBLE.) */
char *out_piece_visible(const char *s, size_t n);

/* Display width in terminal columns of a UTF-8 string (wide East Asian characters
 * count 2, combining marks 0); each maximal subpart of invalid UTF-8 counts 1
 * (text_width). */
size_t out_display_width(const char *s);
/* Writes s then spaces up to `width` columns (nothing extra if it is wider). */
void out_pad(FILE *f, const char *s, size_t width);

/* A JSON string literal (with the quotes) for bytes s[n], escaped as every JSON string
 * of the program is (json.h: json_write_string): '"', '\\', the short forms \n \t \r
 * \b \f, other C0 controls, DEL, C1 controls and U+2028/9 as \u00XX, each maximal
 * subpart of invalid UTF-8 as \ufffd (Python's errors="replace"), the rest as is. */
void out_json_string(FILE *f, const char *s, size_t n);

/* A CSV field (RFC 4180): quoted, with quotes doubled, if it holds ',', '"', CR or LF
 * or starts or ends with a space; written as is otherwise. */
void out_csv_field(FILE *f, const char *s, size_t n);

#endif
