# SPDX-License-Identifier: MIT
# gpt2-embed — build, test, benchmark, fuzz, install.   `make help` lists the targets.
#
# Each target first runs tools/install-deps.sh for what it needs (plain `make`: building
# only; `make test`, `bench`, `fuzz`: also their tools), which apt-get installs any missing
# Debian package (as root, else through sudo): a fresh Debian 12 machine needs nothing by
# hand. NO_INSTALL=1 never installs (it names what is missing; without apt-get the build goes
# on when pkg-config finds the libraries). `make deps` installs everything at once.  SANITIZE=1 builds everything into build-san/ with ASan+UBSan.
# WERROR=1 (as CI does) turns warnings into errors.  BUILDDIR=DIR builds elsewhere.

SHELL   := /bin/bash
VERSION := 0.3.0
# The ABI's number: 1 since 0.3.0 (the error pair char *err, size_t errlen became gpt2embed_error *).
SOVERSION := 1
TEXT    ?= Hello world
FUZZ_SECONDS ?= 30

# Installation directories (GNU names). DATADIR is the shared-data root: the program's own
# data is $(DATADIR)/gpt2-embed, compiled into the library (changing it rebuilds: see
# $(B)/config.stamp). DESTDIR stages an install (and uninstall) under another root.
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR    ?= $(PREFIX)/share
MANDIR     ?= $(DATADIR)/man
DOCDIR     ?= $(DATADIR)/doc/gpt2-embed
PKGDATADIR := $(DATADIR)/gpt2-embed
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
PYTHON     ?= /usr/bin/python3
# The site directory $(PYTHON) itself searches for PREFIX (tools/python-sitedir.py): the user
# site for ~/.local, Debian's dist-packages for /usr and /usr/local, a venv's site-packages.
# Asked once, when first needed.
PYTHONDIR  ?= $(eval PYTHONDIR := $(shell $(PYTHON) tools/python-sitedir.py '$(PREFIX)'))$(PYTHONDIR)

BUILDDIR ?= build$(if $(SANITIZE),-san)
B       := $(BUILDDIR)
CFLAGS  ?= -O2 -g
CC_IS_CLANG := $(findstring clang,$(shell $(CC) --version 2>/dev/null | head -n 1))
WARN    := -std=c11 -Wall -Wextra -Wshadow -Wconversion -Wno-sign-conversion \
           -Wstrict-prototypes -Wmissing-prototypes -Wvla -Wformat=2
ifeq ($(CC_IS_CLANG),)
WARN    += -Wno-format-truncation
endif
ifeq ($(WERROR),1)
WARN    += -Werror
endif
# One short line per step ("  CC      src/lib/api.c"), as kbuild's and automake's silent rules
# print; V=1 shows each command whole; make -s shows neither.
ifeq ($(V),1)
Q :=
say :=
else
Q := @
say = $(if $(findstring s,$(firstword -$(MAKEFLAGS))),,printf '  %-8s %s\n' '$(1)' '$(2)';)
endif
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
ifeq ($(SANITIZE),1)
CFLAGS  += $(SANFLAGS)
LDFLAGS += $(SANFLAGS)
endif

# Libraries through pkg-config, asked once and only when a recipe needs them (after
# tools/install-deps.sh has run). The library needs cJSON, nettle (SHA-256) and utf8proc
# (text.c, unicode.c); the program nothing more (libcurl, LAPACKE/BLAS for the PCA and the
# rendering wing are loaded with dlopen when needed: curl_dl.h, lapack_dl.h, render_load.c;
# HDR_PKGS only give header paths, nothing is linked); the rendering wing alone links cairo,
# Pango and fontconfig (gpt2-embed-render.so, and the figure tests that link its objects).
LIB_PKGS := libcjson libutf8proc
# The program-only archive (src/download) and the program add nettle (SHA-256).
PROGLIB_PKGS := libcjson nettle libutf8proc
HDR_PKGS := lapacke blas
RENDER_PKGS := pangocairo fontconfig
pkg = $(shell pkg-config $(1) $(2) || echo "pkg-config-failed-for-$(2)")
LIB_LIBS = $(eval LIB_LIBS := $(call pkg,--libs,$(LIB_PKGS)) -lm -lpthread)$(LIB_LIBS)
PROGLIB_LIBS = $(eval PROGLIB_LIBS := $(call pkg,--libs,$(PROGLIB_PKGS)) -lm -lpthread)$(PROGLIB_LIBS)
RENDER_LIBS = $(eval RENDER_LIBS := $(call pkg,--libs,$(RENDER_PKGS)) -lm)$(RENDER_LIBS)
RENDER_CFLAGS = $(eval RENDER_CFLAGS := $(call pkg,--cflags,$(RENDER_PKGS)))$(RENDER_CFLAGS)
PKG_CFLAGS = $(eval PKG_CFLAGS := $(call pkg,--cflags,$(PROGLIB_PKGS) $(HDR_PKGS)))$(PKG_CFLAGS)
CRIT_LIBS = $(eval CRIT_LIBS := $(call pkg,--libs,criterion))$(CRIT_LIBS)

RENDERDIR := $(LIBDIR)/gpt2-embed
LOCALEDIR := $(DATADIR)/locale
# Headers are named by their file name alone. A source folder's objects are compiled with
# only the folders it may include on the path (INC.<folder>, doc/ARCHITECTURE.md's arrows), so
# an arrow the page forbids is a compile error (tests/test_layers.c shows it); a folder not
# listed here (tests, tools, bench) sees every folder.
SRC_DIRS := $(sort $(patsubst %/,%,$(dir $(wildcard src/*/*.h src/*/*/*.h src/*/*.c src/*/*/*.c))))
INC.src/common        := src/common
INC.src/lib           := src/common $(filter src/lib%,$(SRC_DIRS))
INC.src/lib/text      := src/common src/lib src/lib/text
INC.src/lib/tokenizer := src/common src/lib src/lib/text src/lib/tokenizer
INC.src/lib/engine    := src/common src/lib src/lib/tokenizer src/lib/engine src/lib/numerics src/lib/weights
INC.src/lib/weights   := src/common src/lib src/lib/weights
INC.src/lib/numerics  := src/common src/lib src/lib/weights src/lib/numerics
INC.src/lib/study     := src/common src/lib src/lib/weights src/lib/numerics src/lib/study
# The program archive keeps to the library's rules and may use its modules: download the
# weights' files (where the Hugging Face cache is, the catalogue, the safetensors reader).
INC.src/download      := src/common src/download src/lib/weights
# The program's wings reach the library through src/gpt2embed.h (-Isrc, on every path) and the
# shared toolkit; the program also uses the rendering wing and the program archives.
PROG_INC              := src/common src/cli src/cli/io src/cli/fmt src/render src/download
INC.src/cli           := $(PROG_INC)
INC.src/cli/io        := $(PROG_INC)
INC.src/cli/fmt       := $(PROG_INC)
# The rendering wing: the door, the toolkit and its own folder.
INC.src/render        := src/common src/render
# The compiler's -I options for source file $(1): its own INC, its folder's, or every folder.
inc_of = $(addprefix -I,$(or $(INC.$(1)),$(INC.$(patsubst %/,%,$(dir $(1)))),$(SRC_DIRS)))
CPPFLAGS += -D_DEFAULT_SOURCE -D_FILE_OFFSET_BITS=64 -Isrc $(addprefix -I,$(SRC_DIRS)) \
            -I$(B)/include -DG2E_DATADIR='"$(PKGDATADIR)"' -DG2E_RENDER_DIR='"$(RENDERDIR)"' \
            -DG2E_LOCALEDIR='"$(LOCALEDIR)"' -DG2E_VERSION='"$(VERSION)"' $(PKG_CFLAGS)
LDLIBS   = $(PROGLIB_LIBS)
# The program links the system's shared libraries (so it gets their security updates).
# STATIC_DEPS=1 links nettle and utf8proc statically instead: two fewer objects for the
# dynamic loader to find, map and relocate at every start, 0.39M of the 3.7M instructions of
# `gpt2-embed "Hello world"` (measured in issue #14; only the pieces used are copied in).
# cJSON stays shared either way: Debian ships no libcjson.a.
ifeq ($(STATIC_DEPS),1)
PROG_LIBS = $(eval PROG_LIBS := $(call pkg,--libs,libcjson) -Wl,-Bstatic $(call pkg,--libs,nettle libutf8proc) -Wl,-Bdynamic -lm -lpthread)$(PROG_LIBS)
else
PROG_LIBS = $(eval PROG_LIBS := $(call pkg,--libs,$(PROGLIB_PKGS)) -lm -lpthread)$(PROG_LIBS)
endif

# The library (libgpt2embed: what src/gpt2embed.h reaches), the program-only archives that keep
# the library's rules (src/download), the program (src/cli and its io/ and fmt/).
# The shared toolkit (src/common) is compiled into both sides: the library takes what it uses,
# the program also what only its wings use (COMMON_PROG_SRC).
COMMON_PROG_SRC := src/common/textfmt.c
COMMON_LIB_SRC := $(filter-out $(COMMON_PROG_SRC),$(wildcard src/common/*.c))
LIB_SRC   := $(sort $(COMMON_LIB_SRC) $(wildcard src/lib/*.c src/lib/*/*.c))
PROGLIB_SRC := $(sort $(wildcard src/download/*.c))
POT_SRC   := $(sort $(wildcard src/common/*.c src/cli/*.c src/cli/*.h src/cli/*.def src/cli/*/*.c src/cli/*/*.h \
             src/lib/*.c src/lib/*/*.c src/download/*.c src/render/*.c src/render/*.h))
POT       := $(B)/po/gpt2-embed.pot
MO        := $(patsubst po/%.po,$(B)/locale/%/LC_MESSAGES/gpt2-embed.mo,$(wildcard po/*.po))
XGETTEXT_FLAGS := --from-code=UTF-8 --language=C --add-comments=TRANSLATORS: --sort-by-file \
    --package-name=gpt2-embed --package-version=$(VERSION) --no-wrap \
    --keyword=_ --keyword=N_ --keyword=cli_error --keyword=cli_note --keyword=g2e_fail:3 \
    --keyword=opt_usage_error:2 --keyword=report:2 --keyword=CMD:3 --keyword=DOC:3 --keyword=g2e_tr --keyword=C_:1c,2 --keyword=rp_say:2 --keyword=COURSE_ARG_FAIL \
    --flag=cli_error:1:c-format --flag=cli_note:1:c-format --flag=g2e_fail:3:c-format \
    --flag=opt_usage_error:2:c-format --flag=report:2:c-format --flag=rp_say:2:c-format \
    --flag=COURSE_ARG_FAIL:1:c-format
CLI_SRC   := $(sort $(wildcard src/cli/*.c src/cli/*/*.c) $(COMMON_PROG_SRC))
TEST_SRC  := $(sort $(wildcard tests/test_*.c))
TSUP_SRC  := $(sort $(filter-out tests/test_%.c,$(wildcard tests/*.c)))
BENCH_SRC := $(sort $(wildcard bench/bench_*.c))
FUZZ_SRC  := $(sort $(wildcard tests/fuzz/fuzz_*.c))

# The rendering wing has two halves. Its program side links no cairo and goes into the
# program: render_load.c (dlopen of the drawing object), the figure recipes fig*.c (numbers
# from the library composed into charts), the report's page report*.c and interpret.c (the
# sentences chosen from the numbers). The rest of src/render draws: gpt2-embed-render.so.
# The course's figure recipes (recipe.c: arrays in, chart out) are compiled into both halves:
# the program's figures call them, and so does the object's public door (api_figure.c,
# gpt2embed_figure.h), which the Python module uses; there render_load.c finds the drawing
# table in the object itself.
RENDER_PROG_SRC := $(sort src/render/render_load.c src/render/recipe.c \
                   $(wildcard src/render/fig*.c src/render/report*.c))
RENDER_SRC := $(filter-out $(RENDER_PROG_SRC),$(sort $(wildcard src/render/*.c))) src/render/recipe.c
RENDER_SO_EXTRA := $(B)/pic/src/common/err.o $(B)/src/render/render_load.o

# The compiled-in form of tokenizer/ (the one copy of the vocabulary in the tree), generated
# at build time by tools/gen_tokdata.c with the library's own parser (-DTOK_NO_BUILTIN).
TOKDATA_C := $(B)/gen/tokenizer_data.c
# The generator links the library's own objects, but tok_load built without the compiled-in form.
TOKGEN_OBJ := $(B)/gen/gen_tokdata.o $(B)/gen/tok_load_nobuiltin.o \
              $(patsubst %.c,$(B)/%.o,$(COMMON_LIB_SRC) $(wildcard src/lib/text/*.c)) \
              $(addprefix $(B)/src/lib/tokenizer/,tokenizer.o tok_obuf.o tok_bpe.o tok_pretok.o)
LIB_OBJ   := $(LIB_SRC:%.c=$(B)/%.o) $(TOKDATA_C:.c=.o)
PROGLIB_OBJ := $(PROGLIB_SRC:%.c=$(B)/%.o)
CLI_OBJ   := $(filter-out $(B)/src/cli/main.o,$(CLI_SRC:%.c=$(B)/%.o)) $(RENDER_PROG_SRC:%.c=$(B)/%.o)
RENDER_OBJ := $(RENDER_SRC:%.c=$(B)/%.o)
RENDER_SO := $(B)/gpt2-embed-render.so
TSUP_OBJ  := $(filter-out $(B)/tests/pngcheck.o,$(TSUP_SRC:%.c=$(B)/%.o))
TEST_BIN  := $(TEST_SRC:%.c=$(B)/%)
# Tests that draw (link the rendering objects directly) or read PNGs back (tests/pngcheck,
# through cairo); every other test links no cairo.
FIG_TEST_BIN := $(patsubst %.c,$(B)/%,$(sort tests/test_plot.c tests/test_figures_learned.c \
                $(wildcard tests/test_render*.c) $(shell grep -l 'pngcheck.h\|cairo/cairo.h' tests/test_*.c)))
BENCH_BIN := $(BENCH_SRC:%.c=$(B)/%)
FUZZ_BIN  := $(FUZZ_SRC:tests/fuzz/%.c=build-fuzz/%)
# Three builds of the one set of library objects (-fPIC, -fvisibility=hidden: only what
# src/gpt2embed.h marks GPT2EMBED_API is exported):
#   LIBA      the plain archive of those objects and of src/download, which the
#             program, tests, benchmarks and tools link (they call internal functions);
#   PUB_SO    libgpt2embed.so.$(VERSION) (soname libgpt2embed.so.$(SOVERSION)): gpt2embed_* only;
#   PUB_A     libgpt2embed.a: all objects joined by `ld -r` into one, whose hidden symbols
#             `objcopy --localize-hidden` then makes local, so no global name but
#             gpt2embed_* (and g2e_*) is left to clash with a user's own functions.
LIBA      := $(B)/libgpt2embed-internal.a
PUB_SO    := $(B)/libgpt2embed.so.$(VERSION)
PUB_A     := $(B)/libgpt2embed.a
CLIA      := $(B)/libgpt2embed-cli.a
DEPS_OK   := $(B)/.deps-build
CONFIG    := $(B)/config.stamp
VERSION_H := $(B)/include/gpt2embed_version.h
PC        := $(B)/gpt2embed.pc
PYLISTS   := $(B)/python/_pylists.so

.SECONDARY:
.PHONY: unicode-table print-lib-objects print-inc tsan all deps python-lib test test-long test-c test-python bench bench-peers fuzz install uninstall weights run clean help man po-update FORCE
.DEFAULT_GOAL := all

# ./gpt2-embed is a copy of the default build's program (not of a BUILDDIR=... one).
all: $(if $(filter build build-san,$(B)),gpt2-embed,$(B)/gpt2-embed) $(PUB_SO) $(PUB_A) $(PC)

help:
	@echo "make              build ./gpt2-embed and the libraries (installs missing Debian packages first)"
	@echo "make run          the main job: build, fetch weights if missing, embed TEXT='$(TEXT)'"
	@echo "make test         build and run the tests (Criterion, pytest) but the long ones, several at once"
	@echo "make test-long    the long tests make test leaves out (GB streams, slow servers); CI runs both"
	@echo "make SANITIZE=1 test   the same under AddressSanitizer + UBSan (in build-san/)"
	@echo "make bench        the benchmarks under bench/ (figures in the README)"
	@echo "make bench-peers  install the npm tokenizers make bench compares with (build/npm)"
	@echo "make fuzz         each libFuzzer target for FUZZ_SECONDS=$(FUZZ_SECONDS) s"
	@echo "make tsan         one tokenizer shared by 8 threads under ThreadSanitizer"
	@echo "make weights      gpt2-embed download (GPT-2's wte+wpe into weights/)"
	@echo "make python-lib   the shared library and the module's list maker (what pip install . ships)"
	@echo "make install      program, libraries, header, pkg-config, Python module, data, man page,"
	@echo "                  bash completion, licences; PREFIX=$(PREFIX) BINDIR LIBDIR INCLUDEDIR"
	@echo "                  DATADIR MANDIR DOCDIR PYTHONDIR BASHCOMPDIR DESTDIR"
	@echo "make uninstall    removes exactly what install put there (same variables)"
	@echo "make man          regenerate doc/gpt2-embed.1's version and OPTIONS from the option tables"
	@echo "make unicode-table  regenerate src/lib/text/unicode_table.c (tools/gen_unicode.c)"
	@echo "make po-update    regenerate po/gpt2-embed.pot and merge it into po/ja.po (msgmerge)"
	@echo "make clean"

deps: $(B)/.deps-all
$(B)/.deps-%: tools/install-deps.sh
	@tools/install-deps.sh $*
	@mkdir -p $(@D) && touch $@

# The values compiled into the objects: rewritten (and so rebuilding everything) only when
# one of them changes, e.g. `make install PREFIX=/usr` after a plain `make`.
CONFIG_TEXT := version=$(VERSION) datadir=$(PKGDATADIR) renderdir=$(RENDERDIR) localedir=$(LOCALEDIR) sanitize=$(SANITIZE)
$(CONFIG): FORCE
	@mkdir -p $(@D)
	@if [ "$$(cat $@ 2>/dev/null)" != '$(CONFIG_TEXT)' ]; then echo '$(CONFIG_TEXT)' > $@; fi

$(VERSION_H): $(CONFIG)
	@mkdir -p $(@D)
	@v='$(VERSION)'; IFS=. read -r ma mi pa <<<"$$v"; { \
	  echo "/* gpt2embed_version.h — generated by make from VERSION in the Makefile. */"; \
	  echo "#ifndef GPT2EMBED_VERSION_H"; echo "#define GPT2EMBED_VERSION_H"; \
	  echo "#define GPT2EMBED_VERSION_MAJOR $$ma"; echo "#define GPT2EMBED_VERSION_MINOR $$mi"; \
	  echo "#define GPT2EMBED_VERSION_PATCH $$pa"; echo "#define GPT2EMBED_VERSION_STRING \"$$v\""; \
	  echo "/* one number for #if comparisons: 0.2.0 -> 200 */"; \
	  echo "#define GPT2EMBED_VERSION_NUMBER ($$ma * 10000 + $$mi * 100 + $$pa)"; \
	  echo "#endif"; } > $@

$(B)/%.o: %.c $(CONFIG) | $(DEPS_OK) $(VERSION_H)
	@mkdir -p $(@D)
	$(Q)$(call say,CC,$<)$(CC) $(filter-out $(addprefix -I,$(SRC_DIRS)),$(CPPFLAGS)) $(call inc_of,$<) $(CFLAGS) $(WARN) -MMD -MP -c $< -o $@

$(LIB_OBJ) $(PROGLIB_OBJ): CFLAGS += -fPIC -fvisibility=hidden

$(B)/gen/tok_load_nobuiltin.o: src/lib/tokenizer/tok_load.c $(CONFIG) | $(DEPS_OK) $(VERSION_H)
	@mkdir -p $(@D)
	$(Q)$(call say,CC,$< (without the built-in vocabulary))$(CC) $(CPPFLAGS) -DTOK_NO_BUILTIN $(CFLAGS) $(WARN) -MMD -MP -c $< -o $@
$(B)/gen/gen_tokdata.o: tools/gen_tokdata.c $(CONFIG) | $(DEPS_OK) $(VERSION_H)
	@mkdir -p $(@D)
	$(Q)$(call say,CC,$<)$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -MMD -MP -c $< -o $@
$(B)/gen_tokdata: $(TOKGEN_OBJ)
	$(Q)$(call say,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(LIB_LIBS)
$(TOKDATA_C): $(B)/gen_tokdata tokenizer/vocab.json tokenizer/merges.txt
	@mkdir -p $(@D)
	$(Q)$(call say,GEN,$@)$(B)/gen_tokdata tokenizer > $@.tmp && mv $@.tmp $@
$(TOKDATA_C:.c=.o): $(TOKDATA_C)
	$(Q)$(call say,CC,$<)$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -c $< -o $@

# The rendering wing: position-independent, only g2e_render_api and its door (gpt2embed_figure_*)
# visible; it carries its own copy of err.c (g2e_fail) so that it needs nothing from the program.
$(B)/src/render/%.o: CPPFLAGS += $(RENDER_CFLAGS)
$(B)/src/render/%.o: CFLAGS += -fPIC -fvisibility=hidden
$(B)/tests/pngcheck.o: CPPFLAGS += $(RENDER_CFLAGS)
$(B)/pic/%.o: %.c $(CONFIG) | $(DEPS_OK) $(VERSION_H)
	@mkdir -p $(@D)
	$(Q)$(call say,CC,$< (for the rendering wing))$(CC) $(CPPFLAGS) -DG2E_ERR_GETTEXT $(CFLAGS) -fPIC -fvisibility=hidden $(WARN) -MMD -MP -c $< -o $@

$(RENDER_SO): $(RENDER_OBJ) $(RENDER_SO_EXTRA)
	$(Q)$(call say,LD,$@)$(CC) $(LDFLAGS) -shared -Wl,-z,defs -o $@ $^ $(RENDER_LIBS)

$(LIBA): $(LIB_OBJ) $(PROGLIB_OBJ)
	@rm -f $@
	$(Q)$(call say,AR,$@)ar rcs $@ $^

# The version script and objcopy -G also catch what -fvisibility=hidden misses (GCC leaves
# the resolver of a target_clones function, similarity.c's sim_dot, global).
$(B)/gpt2embed.map:
	@mkdir -p $(@D)
	@printf '{\n  global: gpt2embed_*;\n  local: *;\n};\n' > $@

$(PUB_SO): $(LIB_OBJ) $(B)/gpt2embed.map
	$(Q)$(call say,LD,$@)$(CC) -shared $(LDFLAGS) -Wl,-soname,libgpt2embed.so.$(SOVERSION) -Wl,--no-undefined \
	    -Wl,--version-script,$(B)/gpt2embed.map -o $@ $(LIB_OBJ) $(LIB_LIBS)
	$(Q)ln -sf $(@F) $(B)/libgpt2embed.so.$(SOVERSION)
	$(Q)ln -sf libgpt2embed.so.$(SOVERSION) $(B)/libgpt2embed.so

# The objects of libgpt2embed, for tests/test_api.c (every one reachable from the header).
print-lib-objects:
	@echo $(LIB_OBJ)

# The include options source file FILE is compiled with, for tests/test_layers.c.
print-inc:
	@echo -Isrc -I$(B)/include $(call inc_of,$(FILE))

$(PUB_A): $(LIB_OBJ)
	@rm -f $@ $(B)/gpt2embed-all.o
	$(Q)$(call say,AR,$@)$(CC) -r -nostdlib -o $(B)/gpt2embed-all.o $^
	$(Q)objcopy --localize-hidden -w -G 'gpt2embed_*' -G 'g2e_*' $(B)/gpt2embed-all.o
	$(Q)ar rcs $@ $(B)/gpt2embed-all.o

$(PC): doc/gpt2embed.pc.in $(CONFIG) | $(DEPS_OK)
	@case '$(LIB_LIBS)' in *pkg-config-failed-for-*) \
	  echo "make: pkg-config cannot find $(LIB_PKGS) (run make deps): $@ not written" >&2; exit 1;; esac
	$(Q)$(call say,GEN,$@)sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' \
	    -e 's|@PKGDATADIR@|$(PKGDATADIR)|g' -e 's|@VERSION@|$(VERSION)|g' \
	    -e 's|@LIBS_PRIVATE@|$(LIB_LIBS)|g' $< > $@

# Test hooks (issue 26): the downloader's test knobs ($GPT2_EMBED_TEST_*, download.h) are
# compiled only into a second build of the objects that read them (-DG2E_TEST_HOOKS). The
# tests link LIBA_HOOKS, and the download tests drive HOOK_BIN (the program linked with it,
# beside the program so that it finds the same locale and rendering object); the shipped
# program and libraries carry no such string (tests/test_download.c checks it).
HOOK_SRC   := src/download/dl_local.c src/download/dl_store.c
HOOK_OBJ   := $(HOOK_SRC:%.c=$(B)/hooks/%.o)
LIBA_HOOKS := $(B)/libgpt2embed-hooks.a
HOOK_BIN   := $(B)/gpt2-embed-hooks
$(B)/hooks/%.o: %.c $(CONFIG) | $(DEPS_OK) $(VERSION_H)
	@mkdir -p $(@D)
	$(Q)$(call say,CC,$< (with the test hooks))$(CC) $(CPPFLAGS) -DG2E_TEST_HOOKS $(CFLAGS) -fPIC -fvisibility=hidden $(WARN) -MMD -MP -c $< -o $@
$(LIBA_HOOKS): $(filter-out $(HOOK_SRC:%.c=$(B)/%.o),$(LIB_OBJ) $(PROGLIB_OBJ)) $(HOOK_OBJ)
	@rm -f $@
	$(Q)$(call say,AR,$@)ar rcs $@ $^
$(HOOK_BIN): $(B)/src/cli/main.o $(CLI_OBJ) $(LIBA_HOOKS) | $(RENDER_SO) $(MO) $(POT)
	$(Q)$(call say,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(PROG_LIBS)

$(CLIA): $(CLI_OBJ)
	@rm -f $@
	$(Q)$(call say,AR,$@)ar rcs $@ $^

# The command objects are linked directly (every one of them is a subcommand main.c
# lists), not picked out of $(CLIA).
$(B)/gpt2-embed: $(B)/src/cli/main.o $(CLI_OBJ) $(LIBA) | $(RENDER_SO) $(MO) $(POT)
	$(Q)$(call say,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(PROG_LIBS)

# The program finds gpt2-embed-render.so beside itself: both are copied.
gpt2-embed: $(B)/gpt2-embed $(RENDER_SO)
	$(Q)$(call say,CP,$@ gpt2-embed-render.so)cp $(RENDER_SO) gpt2-embed-render.so
	$(Q)cp $< $@

# Translations (gettext). The template is extracted from the sources at every build: every
# cli_error/cli_note/g2e_fail/opt_usage_error format and every _()/N_() string; ja.po is
# compiled (msgfmt -c checks that each translation keeps its format directives) into the
# build tree's locale/, where i18n.c finds it when the program runs from the tree.
# tests/test_i18n.c fails when ja.po lacks a translation of the fresh template or has a
# fuzzy one; `make po-update` (tools/po-update.sh) merges the template into po/ja.po.
# The Python module's course (python/gpt2embed/_study.py) adds its own few messages (_("..."));
# those it shares with the program it names with _c("..."), which are the program's msgids.
POT_PY := python/gpt2embed/_study.py
$(POT): $(POT_SRC) $(POT_PY) | $(DEPS_OK)
	@mkdir -p $(@D)
	$(Q)$(call say,XGETTEXT,$@)xgettext $(XGETTEXT_FLAGS) -o $@ $(POT_SRC)
	@xgettext --from-code=UTF-8 --language=Python --keyword=_ --add-comments=TRANSLATORS: \
	    --sort-by-file --no-wrap -j -o $@ $(POT_PY)

$(B)/locale/%/LC_MESSAGES/gpt2-embed.mo: po/%.po | $(DEPS_OK)
	@mkdir -p $(@D)
	$(Q)$(call say,MSGFMT,$<)msgfmt -c -o $@ $<

po-update: $(POT)
	tools/po-update.sh $(POT)

# Tests: one Criterion binary per tests/test_<module>.c, linked with every module but main.c.
$(B)/tests/test_%: $(B)/tests/test_%.o $(TSUP_OBJ) $(CLIA) $(LIBA_HOOKS)
	$(Q)$(call say,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(CRIT_LIBS)
$(B)/tests/test_download: | $(HOOK_BIN) $(PUB_SO) $(PUB_A)
$(FIG_TEST_BIN): $(B)/tests/%: $(B)/tests/%.o $(TSUP_OBJ) $(B)/tests/pngcheck.o $(RENDER_OBJ) $(CLIA) $(LIBA_HOOKS)
	$(Q)$(call say,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(RENDER_LIBS) $(CRIT_LIBS)

TEST_CPPFLAGS = -DG2E_TEST_BIN='"$(abspath $(B))/gpt2-embed"' -DG2E_SRCDIR='"$(CURDIR)"' \
                -DG2E_HOOK_BIN='"$(abspath $(HOOK_BIN))"' -DG2E_TEST_BUILD='"$(abspath $(B))"' \
                -DG2E_TEST_TMP='"$(abspath $(B))/tmp"' \
                -DG2E_TEST_SANFLAGS='"$(if $(filter 1,$(SANITIZE)),$(SANFLAGS))"'
$(B)/tests/%.o: CPPFLAGS += $(TEST_CPPFLAGS)
$(B)/tests/test_%.o: | $(B)/.deps-test
$(B)/bench/%.o: | $(B)/.deps-bench
$(B)/bench/%.o: CPPFLAGS += $(TEST_CPPFLAGS)

# tests/run.sh runs the binaries several at once (G2E_TEST_JOBS=N, default the CPUs), the
# Python tests (tests/python, pytest) alongside, and closes with one "tests: N passed, N
# failed" line. `make test` runs every test but the long ones (LongTest, tests/support.h),
# `make test-long` those (.ci/run both).
TEST_NEEDS = $(B)/.deps-test $(B)/gpt2-embed $(HOOK_BIN) $(MO) $(POT) $(B)/mkfixture $(B)/gen_unicode $(TEST_BIN) \
             $(PUB_SO) $(PUB_A) $(PC) $(PYLISTS)
test: $(TEST_NEEDS)
	@G2E_PYTEST=tests/python tests/run.sh $(B) $(TEST_BIN)
test-long: $(TEST_NEEDS)
	@tests/run.sh --long $(B) $(TEST_BIN)

# Benchmarks link the fixture writer (tests/fixture.c, no Criterion) and the libraries.
BSUP_OBJ := $(patsubst %.c,$(B)/%.o,$(wildcard tests/fixture.c))
$(B)/bench/bench_%: $(B)/bench/bench_%.o $(BSUP_OBJ) $(CLIA) $(LIBA)
	$(Q)$(call say,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

bench: $(B)/.deps-bench gpt2-embed $(B)/gpt2-embed $(B)/mkfixture $(BENCH_BIN)
	@bench/run.sh $(B)

# What two threads can get on this machine, beside the tokenizer's 1T/2T ratio (bench/THREADS.md);
# not part of `make bench` (it takes minutes and measures the machine).
$(B)/bench/thread_ceiling: $(B)/bench/thread_ceiling.o $(CLIA) $(LIBA)
	$(Q)$(call say,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The tokenizer peers bench_tokenizer.sh compares with (npm registry; into build/npm, ignored by git).
bench-peers:
	@mkdir -p build/npm && cd build/npm && { [ -f package.json ] || echo '{"name":"g2e-bench-peers","private":true}' > package.json; } && \
	  npm install --no-audit --no-fund tiktoken@1.0.22 tiktoken-node@0.0.7 tokenizers@0.23.2

# tools/mkfixture: writes safetensors fixtures (tests/fixture.c) for shell benchmarks and
# the downloader's local HTTP test server.
$(B)/mkfixture: $(B)/tools/mkfixture.o $(B)/tests/fixture.o $(LIBA)
	$(Q)$(call say,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Fuzzing: clang's libFuzzer with ASan+UBSan, over the library compiled alone, once, into
# build-fuzz/obj for every target (fuzz_safetensors also over the old cJSON-based header
# reader it compares with, fuzz_tokenizer and fuzz_pretok, which compares every path of the
# pre-tokenizer, over the reference pre-tokenizer). Each target runs for FUZZ_SECONDS, as
# many at once as make -j allows; its whole output stays in build-fuzz/NAME.log.
FUZZ_LIB_SRC := $(LIB_SRC) $(TOKDATA_C) $(PROGLIB_SRC) src/cli/io/idlist.c src/cli/io/npy.c src/cli/io/jsonl.c
FUZZ_FLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all
build-fuzz/obj/%.o: %.c | $(B)/.deps-fuzz $(VERSION_H)
	@mkdir -p $(@D)
	$(Q)$(call say,CC,$< (for fuzzing))clang $(CPPFLAGS) -DG2E_SRCDIR='"$(CURDIR)"' $(FUZZ_FLAGS) \
	    -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@
build-fuzz/fuzz_safetensors: build-fuzz/obj/tests/st_ref_cjson.o
build-fuzz/fuzz_pretok build-fuzz/fuzz_tokenizer: build-fuzz/obj/tests/pretok_ref.o
build-fuzz/%: build-fuzz/obj/tests/fuzz/%.o $(patsubst %.c,build-fuzz/obj/%.o,$(FUZZ_LIB_SRC))
	$(Q)$(call say,LD,$@)clang $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

FUZZ_RUNS := $(FUZZ_BIN:build-fuzz/%=fuzz-run-%)
.PHONY: $(FUZZ_RUNS)
fuzz: $(FUZZ_RUNS)
$(FUZZ_RUNS): fuzz-run-%: build-fuzz/%
	@n=$*; mkdir -p build-fuzz/corpus-$$n; \
	seeds=tests/fuzz/seeds-$${n#fuzz_}; [ -d $$seeds ] || seeds=; \
	build-fuzz/$$n -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -rss_limit_mb=2048 -print_final_stats=1 \
	    build-fuzz/corpus-$$n $$seeds > build-fuzz/$$n.log 2>&1; rc=$$?; \
	if [ $$rc -eq 0 ]; then echo "fuzz: $$n for $(FUZZ_SECONDS) s"; tail -n 12 build-fuzz/$$n.log; \
	else echo "fuzz: $$n FAILED (exit $$rc); the end of build-fuzz/$$n.log:"; tail -n 80 build-fuzz/$$n.log; exit 1; fi

# One tokenizer shared by threads under ThreadSanitizer (tests/tsan/share_tokenizer.c): the
# library built again with -fsanitize=thread; not part of make test (TSan and ASan do not mix).
tsan: $(TOKDATA_C) | $(B)/.deps-fuzz $(VERSION_H)
	@mkdir -p build-tsan
	$(Q)$(call say,CCLD,build-tsan/share_tokenizer)clang $(CPPFLAGS) -O1 -g -fsanitize=thread -o build-tsan/share_tokenizer tests/tsan/share_tokenizer.c \
	    $(LIB_SRC) $(TOKDATA_C) $(LIB_LIBS)
	TSAN_OPTIONS=halt_on_error=1 build-tsan/share_tokenizer tests/data/tokenizer_cases.jsonl

# The manual's generated parts (the .TH version, the OPTIONS sections from the option tables);
# tests/test_manual.c fails when doc/gpt2-embed.1 differs from what this writes.
# The code-point classes (src/lib/text/unicode_table.c) from utf8proc and tools/unicode-16.0-delta.txt;
# tests/test_unicode.c fails when the committed file differs from what this writes.
$(B)/gen_unicode: tools/gen_unicode.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) -o $@ $< $(call pkg,--cflags --libs,libutf8proc)
unicode-table: $(B)/gen_unicode
	$(B)/gen_unicode tools/unicode-16.0-delta.txt > src/lib/text/unicode_table.c.new
	mv src/lib/text/unicode_table.c.new src/lib/text/unicode_table.c

man: $(B)/gpt2-embed $(MO)
	tools/genman.sh $(B)/gpt2-embed $(VERSION) doc/gpt2-embed.1 doc/gpt2-embed.1.new
	mv doc/gpt2-embed.1.new doc/gpt2-embed.1
	tools/genman.sh $(B)/gpt2-embed $(VERSION) doc/ja/gpt2-embed.1 doc/ja/gpt2-embed.1.new ja
	mv doc/ja/gpt2-embed.1.new doc/ja/gpt2-embed.1

weights: gpt2-embed
	./gpt2-embed download

# RUN_BIN and RUN_WEIGHTS exist for tests/test_cli.c (which runs the recipe offline).
RUN_BIN     ?= ./gpt2-embed
RUN_WEIGHTS ?= weights/gpt2.safetensors
run: gpt2-embed $(PUB_SO)   # and the shared library python/gpt2embed loads (README: Python)
	@if [ -z "$$GPT2_EMBED_WEIGHTS" ] && [ ! -f $(RUN_WEIGHTS) ]; then $(RUN_BIN) download || \
	  { case "$${LANGUAGE:-$${LC_ALL:-$${LC_MESSAGES:-$$LANG}}}" in \
	    ja*|*:ja*) echo "make run: 重みがなく、ダウンロードにも失敗しました。重みファイルがあれば:" \
	               "GPT2_EMBED_WEIGHTS=FILE make run" >&2;; \
	    *) echo "make run: no weights, and the download failed; with a weights file you have:" \
	            "GPT2_EMBED_WEIGHTS=FILE make run" >&2;; esac; exit 1; }; fi
	$(RUN_BIN) "$(TEXT)"

# What `make install` puts where (uninstall removes exactly these, never a directory a user
# may have filled, such as $(PKGDATADIR)/weights).
PY_SRC    := $(sort $(wildcard python/gpt2embed/*.py)) python/gpt2embed/py.typed
DOC_FILES := LICENSE THIRD_PARTY.md README.md doc/examples/embed.c doc/examples/pipeline.c
INST_FILES = $(BINDIR)/gpt2-embed \
    $(LIBDIR)/libgpt2embed.so.$(VERSION) $(LIBDIR)/libgpt2embed.so.$(SOVERSION) \
    $(LIBDIR)/libgpt2embed.so $(LIBDIR)/libgpt2embed.a $(LIBDIR)/pkgconfig/gpt2embed.pc \
    $(INCLUDEDIR)/gpt2embed.h $(INCLUDEDIR)/gpt2embed_version.h \
    $(PKGDATADIR)/tokenizer/vocab.json $(PKGDATADIR)/tokenizer/merges.txt \
    $(MANDIR)/man1/gpt2-embed.1 $(MANDIR)/ja/man1/gpt2-embed.1 $(BASHCOMPDIR)/gpt2-embed \
    $(RENDERDIR)/gpt2-embed-render.so \
    $(patsubst po/%.po,$(LOCALEDIR)/%/LC_MESSAGES/gpt2-embed.mo,$(wildcard po/*.po)) \
    $(addprefix $(DOCDIR)/,$(notdir $(DOC_FILES))) \
    $(addprefix $(PYTHONDIR)/gpt2embed/,$(notdir $(PY_SRC)) _config.py _pylists.so)
INST_DIRS = $(sort $(patsubst %/,%,$(dir $(INST_FILES))))
# Directories that are the package's own: removed by uninstall when empty.
INST_OWN_DIRS = $(PYTHONDIR)/gpt2embed/__pycache__ $(PYTHONDIR)/gpt2embed $(DOCDIR) \
    $(PKGDATADIR)/tokenizer $(PKGDATADIR) $(RENDERDIR)
# The directories install created (those missing before it ran), one a line, which
# uninstall also removes once empty: never one that was there before (a distribution's
# /usr/local/include, Python's site directory), nor one a user has filled since.
INST_DIRS_LIST = $(PKGDATADIR)/installed-dirs

# What setup.py (pip install .) builds and ships inside the Python package: the shared
# library, the module's list maker, the rendering object (figures) and the catalogues
# (locale/LANG/LC_MESSAGES/gpt2-embed.mo: Japanese); the last lines name them.
python-lib: $(PUB_SO) $(PYLISTS) $(RENDER_SO) $(MO)
	@echo "python-lib: $(abspath $(PUB_SO))"
	@echo "python-lib-pylists: $(abspath $(PYLISTS))"
	@echo "python-lib-render: $(abspath $(RENDER_SO))"
	@echo "python-lib-locale: $(abspath $(B)/locale)"

# The Python module's list maker (python/gpt2embed/_pylists.c: why, at its top), built against
# $(PYTHON)'s headers with CPython's stable ABI; nothing is linked (the interpreter has the
# symbols). The module looks for it in its package, then as python/_pylists.so beside the
# library it loaded; without it, it makes the same lists in Python, slower.
PY_INC = $(eval PY_INC := $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_paths()["include"])'))$(PY_INC)
$(PYLISTS): python/gpt2embed/_pylists.c | $(B)/.deps-python
	@mkdir -p $(@D)
	@test -f '$(PY_INC)/Python.h' || { echo "make: no Python.h in '$(PY_INC)' ($(PYTHON)'s headers;" \
	  "Debian: apt-get install libpython3-dev)" >&2; exit 1; }
	$(Q)$(call say,CCLD,$@)$(CC) $(CFLAGS) -fPIC -fvisibility=hidden $(WARN) -I'$(PY_INC)' -shared -o $@ $< $(LDFLAGS)

# The Python module's record of where the shared library is installed.
$(B)/python/_config.py: $(CONFIG) FORCE
	@mkdir -p $(@D)
	@t='# SPDX-License-Identifier: MIT\n# Generated by make install: where libgpt2embed, its rendering object and catalogue were installed.\nLIBRARY = "$(LIBDIR)/libgpt2embed.so.$(SOVERSION)"\nRENDER = "$(RENDERDIR)/gpt2-embed-render.so"\nLOCALEDIR = "$(LOCALEDIR)"\nVERSION = "$(VERSION)"\n'; \
	if [ "$$(cat $@ 2>/dev/null)" != "$$(printf '%b' "$$t")" ]; then printf '%b' "$$t" > $@; fi

install: $(B)/gpt2-embed $(RENDER_SO) $(MO) $(PUB_SO) $(PUB_A) $(PC) $(VERSION_H) $(B)/python/_config.py $(PYLISTS)
	$(Q)new=$$(for d in $(INST_DIRS); do \
	  while [ "$$d" != / ] && [ ! -d "$(DESTDIR)$$d" ]; do echo "$$d"; d=$$(dirname "$$d"); done; done); \
	install -d $(addprefix $(DESTDIR),$(INST_DIRS)) && \
	{ cat '$(DESTDIR)$(INST_DIRS_LIST)' 2>/dev/null; echo "$$new"; } | sed '/^$$/d' | sort -u > '$(DESTDIR)$(INST_DIRS_LIST).new' && \
	mv '$(DESTDIR)$(INST_DIRS_LIST).new' '$(DESTDIR)$(INST_DIRS_LIST)'
	$(Q)$(call say,INSTALL,$(DESTDIR)$(BINDIR)/gpt2-embed)install -m 755 $(B)/gpt2-embed $(DESTDIR)$(BINDIR)/gpt2-embed
	$(Q)$(call say,INSTALL,$(DESTDIR)$(LIBDIR)/libgpt2embed.so.$(VERSION) .so.$(SOVERSION) .so .a)install -m 644 $(PUB_SO) $(DESTDIR)$(LIBDIR)/libgpt2embed.so.$(VERSION)
	$(Q)ln -sf libgpt2embed.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libgpt2embed.so.$(SOVERSION)
	$(Q)ln -sf libgpt2embed.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libgpt2embed.so
	$(Q)install -m 644 $(PUB_A) $(DESTDIR)$(LIBDIR)/libgpt2embed.a
	$(Q)$(call say,INSTALL,$(DESTDIR)$(LIBDIR)/pkgconfig/gpt2embed.pc)install -m 644 $(PC) $(DESTDIR)$(LIBDIR)/pkgconfig/gpt2embed.pc
	$(Q)$(call say,INSTALL,$(DESTDIR)$(INCLUDEDIR)/gpt2embed.h gpt2embed_version.h)install -m 644 src/gpt2embed.h $(VERSION_H) $(DESTDIR)$(INCLUDEDIR)/
	$(Q)$(call say,INSTALL,$(DESTDIR)$(PKGDATADIR)/tokenizer/)install -m 644 tokenizer/vocab.json tokenizer/merges.txt $(DESTDIR)$(PKGDATADIR)/tokenizer/
	$(Q)$(call say,INSTALL,$(DESTDIR)$(MANDIR)/man1/gpt2-embed.1 ja/man1/gpt2-embed.1)install -m 644 doc/gpt2-embed.1 $(DESTDIR)$(MANDIR)/man1/gpt2-embed.1
	$(Q)install -m 644 doc/ja/gpt2-embed.1 $(DESTDIR)$(MANDIR)/ja/man1/gpt2-embed.1
	$(Q)$(call say,INSTALL,$(DESTDIR)$(RENDERDIR)/gpt2-embed-render.so)install -m 644 $(RENDER_SO) $(DESTDIR)$(RENDERDIR)/gpt2-embed-render.so
	$(Q)$(call say,INSTALL,$(DESTDIR)$(LOCALEDIR)/*/LC_MESSAGES/gpt2-embed.mo)for mo in $(MO); do l=$${mo#$(B)/locale/}; l=$${l%%/*}; \
	  install -m 644 $$mo $(DESTDIR)$(LOCALEDIR)/$$l/LC_MESSAGES/gpt2-embed.mo || exit 1; done
	$(Q)$(call say,INSTALL,$(DESTDIR)$(BASHCOMPDIR)/gpt2-embed)install -m 644 completion/gpt2-embed.bash $(DESTDIR)$(BASHCOMPDIR)/gpt2-embed
	$(Q)$(call say,INSTALL,$(DESTDIR)$(DOCDIR)/)install -m 644 $(DOC_FILES) $(DESTDIR)$(DOCDIR)/
	$(Q)$(call say,INSTALL,$(DESTDIR)$(PYTHONDIR)/gpt2embed/)install -m 644 $(PY_SRC) $(B)/python/_config.py $(DESTDIR)$(PYTHONDIR)/gpt2embed/
	$(Q)install -m 755 $(PYLISTS) $(DESTDIR)$(PYTHONDIR)/gpt2embed/_pylists.so
	@$(PYTHON) tools/python-sitedir.py --check '$(PYTHONDIR)'

# Every file install put there, then (deepest first, once empty) the package's own
# directories and those install created: a staged install + uninstall leaves the stage empty.
uninstall:
	$(Q)$(call say,UNINSTALL,$(DESTDIR)$(PREFIX))dirs=$$(cat '$(DESTDIR)$(INST_DIRS_LIST)' 2>/dev/null); \
	rm -f $(addprefix $(DESTDIR),$(INST_FILES) $(INST_DIRS_LIST)) && \
	rm -rf $(DESTDIR)$(PYTHONDIR)/gpt2embed/__pycache__ && \
	for d in $(INST_OWN_DIRS) $$dirs; do echo "$$d"; done | sort -u | awk '{ print length($$0) "\t" $$0 }' | \
	  sort -rn | cut -f2- | while read -r d; do \
	    if [ -d "$(DESTDIR)$$d" ]; then rmdir "$(DESTDIR)$$d" 2>/dev/null || true; fi; done

clean:
	rm -rf build build-san build-fuzz build-tsan gpt2-embed gpt2-embed-render.so

-include $(shell find $(B) build-fuzz/obj -name '*.d' 2>/dev/null)
