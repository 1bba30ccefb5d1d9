/* SPDX-License-Identifier: MIT */
/* i18n.h — the program's language: gettext set up the C way, and --lang.
 *
 * i18n_init (the first thing main does) makes the program speak the language the user
 * asked for, in this order: --lang ja|en on the command line (anywhere before "--"), then
 * the usual variables LANGUAGE, LC_ALL, LC_MESSAGES, LANG. Messages are English in the
 * source (the msgids) and Japanese in po/ja.po; any other language falls back to English.
 *
 *   - setlocale(LC_ALL, "") takes the environment's locale, then LC_NUMERIC is set back to
 *     "C": every number the program prints or parses keeps its form ("0.5", never "0,5")
 *     whatever the language.
 *   - glibc ignores LANGUAGE when LC_MESSAGES is the "C" locale, and setlocale fails as a
 *     whole when the named locale (ja_JP.UTF-8) is not installed — common on servers and in
 *     containers. So when Japanese is asked for but LC_MESSAGES ends up "C"/"POSIX",
 *     LC_MESSAGES is switched to C.UTF-8 (built into glibc >= 2.35) and LANGUAGE is set to
 *     the requested language, which is all gettext needs.
 *   - Translations are always delivered as UTF-8 (bind_textdomain_codeset), like the rest
 *     of the output (token pieces are UTF-8), whatever LC_CTYPE says.
 *   - The catalogue directory: $GPT2_EMBED_LOCALEDIR if set; else, for a program run from
 *     its build tree, the tree's locale/ directory found next to the executable
 *     (/proc/self/exe: build/gpt2-embed -> build/locale, ./gpt2-embed -> build/locale);
 *     else the installed $(PREFIX)/share/locale (G2E_LOCALEDIR).
 *
 * Machine-readable output (JSON keys, CSV headers, npy) never goes through _(): only what a
 * person reads does.
 *
 * Deliberately left out: plural forms (neither English messages here nor Japanese need
 * them), right-to-left languages, translating the library's messages (see err.c: they are
 * translated with the same domain when the program has bound it).
 */
#ifndef G2E_I18N_H
#define G2E_I18N_H

#include <libintl.h>

#define G2E_TEXTDOMAIN "gpt2-embed"

#ifndef _
#define _(s) gettext(s)
#endif
#ifndef N_
#define N_(s) s
#endif

/* Sets locale, catalogue and language as described above, and installs the translation of
 * the library's messages (gpt2embed_set_translator). argv is read, not changed (main.c and
 * opt.c take --lang out / skip it). Returns 0, or -1 when --lang names a language other than
 * ja or en (*bad_lang, if bad_lang is not NULL, is that name: the caller says so and exits
 * with EXIT_USAGE). A missing value after a final --lang is left for the parser to report. */
int i18n_init(int argc, char **argv, const char **bad_lang);

/* The language messages are shown in after i18n_init: "ja" or "en". */
const char *i18n_lang(void);

/* The catalogue directory bound by i18n_init (for tests and `--version`-style reports). */
const char *i18n_localedir(void);

#endif
