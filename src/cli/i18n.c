/* SPDX-License-Identifier: MIT */
/* i18n.c — locale, message catalogue and --lang (see i18n.h). */
#include "i18n.h"

#include "err.h"

#include "gpt2embed.h"

#include <limits.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef G2E_LOCALEDIR
#define G2E_LOCALEDIR "/usr/local/share/locale"
#endif

static char localedir[PATH_MAX] = G2E_LOCALEDIR;

/* The value of the last "--lang X" / "--lang=X" before "--", or NULL. */
static const char *scan_lang(int argc, char **argv)
{
    const char *v = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0)
            break;
        if (strncmp(a, "--lang", 6) != 0)
            continue;
        if (a[6] == '=')
            v = a + 7;
        else if (a[6] == '\0' && i + 1 < argc)
            v = argv[++i];
    }
    return v;
}

/* 1 if a locale or LANGUAGE entry names Japanese: "ja", "ja_JP", "ja_JP.UTF-8", "ja@x". */
static int is_ja(const char *v, size_t n)
{
    return n >= 2 && v[0] == 'j' && v[1] == 'a' &&
           (n == 2 || v[2] == '_' || v[2] == '.' || v[2] == '@');
}

/* 1 if the environment asks for Japanese messages: an entry of LANGUAGE, else the first
 * set of LC_ALL, LC_MESSAGES, LANG (the order gettext and POSIX use). */
static int env_wants_ja(void)
{
    const char *l = getenv("LANGUAGE");
    for (; l && *l;) {
        size_t n = strcspn(l, ":");
        if (is_ja(l, n))
            return 1;
        l += n + (l[n] == ':');
    }
    static const char *const VARS[] = {"LC_ALL", "LC_MESSAGES", "LANG"};
    for (size_t i = 0; i < 3; i++) {
        const char *v = getenv(VARS[i]);
        if (v && *v)
            return is_ja(v, strlen(v));
    }
    return 0;
}

/* The build tree's catalogue directory when the program runs from it, else "". */
static void find_localedir(void)
{
    const char *env = getenv("GPT2_EMBED_LOCALEDIR");
    if (env && *env) {
        snprintf(localedir, sizeof localedir, "%s", env);
        return;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return;
    *slash = '\0';
    static const char *const REL[] = {"locale", "build/locale", "../locale"};
    for (size_t i = 0; i < sizeof REL / sizeof REL[0]; i++) {
        char cand[PATH_MAX], mo[PATH_MAX + 64];
        if ((size_t)snprintf(cand, sizeof cand, "%s/%s", exe, REL[i]) >= sizeof cand)
            continue;
        snprintf(mo, sizeof mo, "%s/ja/LC_MESSAGES/" G2E_TEXTDOMAIN ".mo", cand);
        if (access(mo, R_OK) == 0) {
            char *real = realpath(cand, NULL);
            snprintf(localedir, sizeof localedir, "%s", real ? real : cand);
            free(real);
            return;
        }
    }
}

/* The library names no option of the program (err.h). Where the program has advice to add
 * to one of its messages, the program's wording replaces the library's here: the same
 * conversions in the same order, more words. */
static const char *const ADVICE[][2] = {
    {"the special token %s at byte offset %zu is not allowed here",
     N_("the special token %s at byte offset %zu is not allowed here (use --special token or --special text)")},
    /* a file given as weights that is something else (safetensors.c) */
    {"this is a PyTorch checkpoint (a zip archive, as pytorch_model.bin), not a safetensors file",
     N_("this is a PyTorch checkpoint (a zip archive, as pytorch_model.bin), not a safetensors file: get "
        "GPT-2's safetensors with gpt2-embed download, or convert the checkpoint's directory with "
        "transformers (GPT2Model.from_pretrained(DIR).save_pretrained(OUT) writes OUT/model.safetensors)")},
    {"this is a PyTorch checkpoint (a Python pickle, as an older pytorch_model.bin), not a safetensors file",
     N_("this is a PyTorch checkpoint (a Python pickle, as an older pytorch_model.bin), not a safetensors "
        "file: get GPT-2's safetensors with gpt2-embed download, or convert the checkpoint's directory "
        "with transformers (GPT2Model.from_pretrained(DIR).save_pretrained(OUT) writes "
        "OUT/model.safetensors)")},
    {"this is a GGUF file (llama.cpp's format), not a safetensors file",
     N_("this is a GGUF file (llama.cpp's format), not a safetensors file: gpt2-embed reads safetensors; "
        "get GPT-2's with gpt2-embed download")},
    {"this is an HTML page (a web page saved in place of the file?), not a safetensors file",
     N_("this is an HTML page (a web page saved in place of the file?), not a safetensors file: get the "
        "weights with gpt2-embed download, which checks what it receives")},
    {"this is a text file, not a safetensors file",
     N_("this is a text file, not a safetensors file: --weights names the weights (model.safetensors); "
        "the text to embed goes after the options, or -f FILE")},
};

/* The library translates nothing itself (err.h): its messages go through this. */
static const char *library_tr(const char *msgid)
{
    for (size_t i = 0; i < sizeof ADVICE / sizeof ADVICE[0]; i++)
        if (strcmp(msgid, ADVICE[i][0]) == 0)
            return dgettext(G2E_TEXTDOMAIN, ADVICE[i][1]);
    return dgettext(G2E_TEXTDOMAIN, msgid);
}

int i18n_init(int argc, char **argv, const char **bad_lang)
{
    const char *lang = scan_lang(argc, argv);
    int lang_ok = !lang || strcmp(lang, "ja") == 0 || strcmp(lang, "en") == 0;
    if (lang && lang_ok)
        setenv("LANGUAGE", lang, 1);
    int want_ja = lang && lang_ok ? strcmp(lang, "ja") == 0 : env_wants_ja();
    /* Only the messages' language depends on the locale (numbers stay "C", output is UTF-8
     * by bind_textdomain_codeset, widths come from text.c): when nothing asks for Japanese,
     * the English msgids are printed whatever the locale, so loading it (a tenth of the
     * cold start: bench/PROGRAM.md) is skipped. */
    const char *msg = NULL;
    if (want_ja) {
        setlocale(LC_ALL, "");
        setlocale(LC_NUMERIC, "C");
        /* glibc converts its own translations (strerror) to LC_CTYPE's charset: in a
         * non-UTF-8 or missing locale Japanese would come out as '?' */
        if (strcmp(nl_langinfo(CODESET), "UTF-8") != 0 && !setlocale(LC_CTYPE, "C.UTF-8"))
            setlocale(LC_CTYPE, "C.utf8");
        msg = setlocale(LC_MESSAGES, NULL);
    }
    if (want_ja && (!msg || strcmp(msg, "C") == 0 || strcmp(msg, "POSIX") == 0)) {
        /* gettext ignores LANGUAGE in the C locale: any UTF-8 locale will do */
        if (!setlocale(LC_MESSAGES, "C.UTF-8") && !setlocale(LC_MESSAGES, "C.utf8"))
            setlocale(LC_MESSAGES, "en_US.UTF-8");
        const char *l = getenv("LANGUAGE");
        if (!l || !*l)
            setenv("LANGUAGE", "ja", 1);
    }
    find_localedir();
    bindtextdomain(G2E_TEXTDOMAIN, localedir);
    bind_textdomain_codeset(G2E_TEXTDOMAIN, "UTF-8");
    textdomain(G2E_TEXTDOMAIN);
    /* the library's messages, and the toolkit's the program formats, in the program's language */
    gpt2embed_set_translator(library_tr);
    g2e_set_translator(library_tr);
    if (!lang_ok && bad_lang)
        *bad_lang = lang;
    return lang_ok ? 0 : -1;
}

const char *i18n_lang(void)
{
    /* what gettext really uses: the header of the catalogue it found, if any */
    const char *header = "";   /* not a literal in the call: xgettext must not extract it */
    const char *h = gettext(header);
    const char *l = h && *h ? strstr(h, "Language: ") : NULL;
    return l && is_ja(l + 10, strcspn(l + 10, "\n")) ? "ja" : "en";
}

const char *i18n_localedir(void)
{
    return localedir;
}
