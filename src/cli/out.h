/* SPDX-License-Identifier: MIT */
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
    struct out_sink *sink;   /* own_f: f's descriptor and its first write error (owned) */
} out_file;

/* ---- inputs an output must never replace ----
 * A command registers every file it reads (the weights, a text file, a --vector file, the
 * tokenizer's files: load.c and cli_read_file do it for them); out_open then refuses an
 * output that is the same file (same device and inode: also through a hard or symbolic
 * link, or a regular file as standard output) as any of them, before anything is created:
 * "-o FILE is the same file as the weights being read (PATH): choose another output name".
 *
 * Registers the file open on fd (fd >= 0) or else at path; what names its role ("weights",
 * "text file", ...) and path names it in the message (both are copied). Files that cannot be
 * stat'ed and non-regular ones (pipes, terminals) are ignored: nothing could replace them.
 * Returns 0, or -1 only when out of memory (nothing printed: the registry is a safeguard,
 * the read itself goes on). */
int out_add_input(const char *what, const char *path, int fd);

/* Forgets every registered input (for tests and long-lived callers). */
void out_clear_inputs(void);

/* ---- a mapped input that shrinks ----
 * Reading a page of a mapping past the end of a file that another process truncated raises
 * SIGBUS. The weights are mapped (safetensors.h), and so is a text file (textin.h);
 * out_guard_mapping turns such a SIGBUS, when its address lies inside [addr, addr + len),
 * into the line "gpt2-embed: PATH: WHAT changed size while in use (...)" on stderr (WHAT:
 * "weights file", "text file"), removes the -o temporaries, and ends the process with
 * status 1 (from the handler, with async-signal-safe calls only: the state the fault
 * interrupted is not resumed). A SIGBUS elsewhere keeps its default action. Costs nothing
 * per row read. Up to 8 ranges; returns -1 (nothing printed) when full. */
int out_guard_mapping(const void *addr, size_t len, const char *path, const char *what);
/* Forgets the range starting at addr (before it is unmapped). */
void out_unguard_mapping(const void *addr);

/* Standard output as one of out.c's streams that remember why a write failed (stdio keeps
 * only a flag; the reason is gone by the time anyone looks): cli_start calls this once,
 * first thing. Line-buffered on a terminal, fully buffered otherwise, as stdio's own.
 * Returns -1 and leaves stdout as it was if the stream cannot be made. */
int out_stdout_init(void);
/* errno of standard output's first failed write since out_stdout_init, or 0. */
int out_stdout_errno(void);

/* Opens the destination. path NULL or "-" means standard output. binary = 1 refuses a
 * terminal. An output that is a registered input is refused (above). On success *o is
 * ready and must be finished by out_commit or out_abort; on failure an error is printed, nothing was created, *o needs no cleanup, -1 returned. */
int out_open(out_file *o, const char *path, int binary);

/* Finishes: flushes and checks for write errors (reported with the reason of the first
 * failed write, e.g. "No space left on device", whenever it happened); for an atomic target also fsyncs,
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
/* Writes spaces then s so that it ends at `width` columns (right-aligned, as "%*s" does for
 * ASCII, but counting display columns: translated headings hold wide characters). */
void out_rpad(FILE *f, const char *s, size_t width);

/* A JSON string literal (with the quotes) for bytes s[n], escaped as every JSON string
 * of the program is (json.h: json_write_string): '"', '\\', the short forms \n \t \r
 * \b \f, other C0 controls, DEL, C1 controls and U+2028/9 as \u00XX, each maximal
 * subpart of invalid UTF-8 as \ufffd (Python's errors="replace"), the rest as is. */
void out_json_string(FILE *f, const char *s, size_t n);

/* A CSV field (RFC 4180): quoted, with quotes doubled, if it holds ',', '"', CR or LF
 * or starts or ends with a space; written as is otherwise. */
void out_csv_field(FILE *f, const char *s, size_t n);

/* ---- the format from -o's file name ---- */

struct opt_cmd;

/* Picks the output format from the extension of -o's path, so that `-o a.npy` writes npy
 * rather than a text table into a file numpy cannot read.
 *   names: the formats the command (in its current mode) writes, NULL-terminated;
 *   *fmt:  on entry the index in names of --format's value (given = 1) or of the default
 *          (given = 0); on return the format to write.
 * Extensions, case-insensitive: .npy .json .jsonl .csv .raw .png name the format of the
 * same name; .txt the first of table, text or ids that names holds (and an explicit
 * --format of any text format, json or csv too, is accepted there; npy/raw/png are not). path NULL or "-", no
 * extension, or any other extension: *fmt is kept (today's default).
 * Returns 0; or -1 after one usage line in the parser's wording ("gpt2-embed CMD: ...",
 * the command exits 2) when --format contradicts the extension, or when the extension names
 * a format this command does not write. */
int out_pick_format(const struct opt_cmd *cmd, const char *path, const char *const *names,
                    int given, int *fmt);

#endif
