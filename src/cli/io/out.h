/* SPDX-License-Identifier: MIT */
/* out.h — where every command's output goes, and the small formatting helpers the
 * formats (table, json, csv) share.
 *
 * Destinations are outfile.h's (standard output; -o FILE written to a temporary beside it
 * and renamed over it on commit, so FILE is complete or untouched; devices and FIFOs in
 * place; binary output never to a terminal; never over a registered input). These
 * wrappers belong to the program wing: on failure they print outfile.h's message through
 * cli_error and return -1; the caller exits with status 1. A fatal signal while a
 * temporary is open removes it (ofile_catch_signals, switched on by out_open).
 */
#ifndef G2E_OUT_H
#define G2E_OUT_H

#include "json.h"
#include "outfile.h"
#include "text.h"
#include "textfmt.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

typedef ofile out_file;   /* o.f: write here between out_open and out_commit/out_abort */

/* Registers an input no output may replace (ofile_add_input: load.c and cli_read_file do it
 * for the weights, text files, the tokenizer's files); 0, or -1 when out of memory. */
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

/* ofile_open; on failure one error line, nothing created, -1. */
int out_open(out_file *o, const char *path, int binary);
/* ofile_commit; for standard output the flush is reported as cli_flush_stdout does (once
 * per run). 0, or -1 after one error line (the temporary removed, the target untouched). */
int out_commit(out_file *o);
/* ofile_abort. */
void out_abort(out_file *o);

/* ---- formatting helpers: the library's one implementation of each, by their old names ---- */
void out_f32(FILE *f, float v);    /* "%.9g": reads back to the same float32 */
void out_f64(FILE *f, double v);   /* "%.17g": round-trips any double */
/* A token piece visible on one line (text.h, TEXT_ESC_VISIBLE: ' ' -> ␣, '\n' -> ↵, '\t' -> →,
 * '\\' doubled, controls and bytes outside valid UTF-8 -> \xNN); a new string, NULL if out
 * of memory. */
#define out_piece_visible(s, n) text_escape((s), (n), TEXT_ESC_VISIBLE)
#define out_display_width(s) text_width((s), strlen(s))   /* terminal columns (text.h) */
#define out_pad(f, s, width) textfmt_pad((f), (s), (width), 0)    /* s, then spaces to width */
#define out_rpad(f, s, width) textfmt_pad((f), (s), (width), 1)   /* spaces, then s */
#define out_json_string(f, s, n) json_write_string((f), (s), (n))   /* json.h's escaping */
#define out_csv_field(f, s, n) textfmt_csv_field((f), (s), (n))        /* RFC 4180 */

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
