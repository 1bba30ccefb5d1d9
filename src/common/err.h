/* SPDX-License-Identifier: MIT */
/* err.h — the one error record, in the shared toolkit (src/common: compiled into the library,
 * its rendering object and the program alike).
 *
 * Internal functions on both sides of the door return 0 on success or a module-specific
 * non-zero status code (each module's header lists its codes), and write a one-line,
 * human-readable message into a caller-owned g2e_err. The library never prints or exits:
 * the program decides what to do with the message (the public door turns the record into
 * a gpt2embed_error). A NULL g2e_err is accepted everywhere and simply receives nothing.
 */
#ifndef G2E_ERR_H
#define G2E_ERR_H

#include <stdarg.h>
#include <stddef.h>

#define G2E_ERR_MSG_MAX 512

typedef struct g2e_err {
    int code;                    /* the status the failing call returned */
    char msg[G2E_ERR_MSG_MAX];   /* one line, no trailing newline */
} g2e_err;

/* Records code and a printf-style message in e (if non-NULL) and returns code,
 * so that callers can write `return g2e_fail(e, CODE, "...", ...);`. The format is
 * translated first when a program installed a translator (g2e_set_translator); the library
 * itself never translates, so a library user gets the English text. A message longer than
 * G2E_ERR_MSG_MAX - 1 bytes ends with "…" after its last whole character (g2e_cut_whole). */
int g2e_fail(g2e_err *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A word or phrase that goes into a message as an argument ("a directory", "is all
 * zeros"), translated like g2e_fail's formats (xgettext --keyword=g2e_tr). */
const char *g2e_tr(const char *s) __attribute__((format_arg(1)));

/* A word that means different things in different places ("ratio": exercise 1's 倍率, PCA's
 * 寄与率): the msgid with a context, as gettext's msgctxt. C_("exercise 1", "ratio") looks up
 * "exercise 1\004ratio" through g2e_tr and gives "ratio" when there is no translation
 * (xgettext --keyword=C_:1c,2). */
const char *g2e_trc(const char *ctx_msgid, const char *msgid) __attribute__((format_arg(2)));
#ifndef C_
#define C_(ctx, s) g2e_trc(ctx "\004" s, s)
#endif

/* s (NUL-terminated: what vsnprintf left in a buffer of cap bytes) when the formatting
 * wanted `wanted` bytes: if it was cut, the cut is moved back to the start of the character
 * it fell in and "…" ends the text (room allowing). Never leaves part of a UTF-8 sequence. */
void g2e_cut_whole(char *s, size_t cap, int wanted);

/* The host's translation of the library's messages (the program's gettext domain, the Python
 * module's catalogue: gpt2embed_set_translator); NULL: none (English). May be called at any
 * time: a call in flight uses the translator it found. fn must be safe to call from any
 * thread, and what it returns must stay valid as long as the library may use it. */
void g2e_set_translator(const char *(*fn)(const char *msgid));

/* fmt formatted into a new string of the size it needs (the caller frees); NULL when out of
 * memory. The one such helper of the tree: the library's, the rendering object's (its copy of
 * this file) and the program's (textfmt_printf) messages and titles of any length. */
char *g2e_vprintf_alloc(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
char *g2e_printf_alloc(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Clears e to "no error". */
void g2e_clear(g2e_err *e);

/* Status codes shared by all modules. */
enum {
    G2E_OK = 0,
    G2E_ENOMEM = 1,   /* an allocation failed */
    G2E_EIO = 2,      /* a system call failed; msg names the path and errno text */
    G2E_EINVAL = 3,   /* an argument outside its documented range */
};

/* Every module with status codes of its own, once, in both wings: a module's codes are
 * G2E_BASE(its entry) onwards, fewer than G2E_SPAN of them (checked at compile time), so
 * no two modules' codes can be equal. */
enum g2e_module {
    G2E_MOD_ST = 1, G2E_MOD_MODEL, G2E_MOD_TOK, G2E_MOD_UNI, G2E_MOD_SIN, G2E_MOD_LOCATE,
    G2E_MOD_EMBED, G2E_MOD_SIM, G2E_MOD_ENG, G2E_MOD_ORDER, G2E_MOD_REF, G2E_MOD_EX, /* the library */
    G2E_MOD_DL, G2E_MOD_PCA, G2E_MOD_ROPE,                 /* download; PCA and RoPE (library) */
    G2E_MOD_NPY, G2E_MOD_OFILE, G2E_MOD_READIN, G2E_MOD_TEXTIN, G2E_MOD_JSONL, /* the program */
    G2E_MOD_IDLIST, G2E_MOD_ODIR, G2E_MOD_TOKF, G2E_MOD_TOKS, G2E_MOD_RENDER,
};
#define G2E_SPAN 100
#define G2E_BASE(mod) (G2E_MOD_##mod * G2E_SPAN)
/* The module a code belongs to (0: a shared code). */
#define G2E_MODULE_OF(code) ((code) / G2E_SPAN)
/* After a module's enum, whose last member is `end` (one past its last code). */
#define G2E_CODES_END(mod, end) \
    _Static_assert((end) <= G2E_BASE(mod) + G2E_SPAN, #mod ": more codes than G2E_SPAN")

/* A library module's codes are a list X(name, status) (its header: MOD_CODES), status being
 * the public gpt2embed_status it is reported as without its GPT2EMBED_E_ prefix (api.c maps
 * them all from the lists, tests/test_err.c checks every one). G2E_CODES(MOD, MOD_CODES)
 * makes the enum. */
#define G2E_CODE_NAME(name, status) name,
#define G2E_CODES(mod, list)                                                                  \
    enum { mod##_CODES_BEFORE_ = G2E_BASE(mod) - 1, list(G2E_CODE_NAME) mod##_CODES_END_ }; \
    G2E_CODES_END(mod, mod##_CODES_END_)

#endif
