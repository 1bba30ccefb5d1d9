# gpt2-embed — build, test, benchmark, fuzz, install.   `make help` lists the targets.
#
# Every target first runs tools/install-deps.sh, which apt-get installs any missing
# Debian package (as root, else through sudo): a fresh Debian 12 machine needs
# nothing by hand.  SANITIZE=1 builds everything into build-san/ with ASan+UBSan.
# WERROR=1 (as CI does) turns warnings into errors.

SHELL   := /bin/bash
VERSION := 0.1.0
PREFIX  ?= /usr/local
TEXT    ?= Hello world
FUZZ_SECONDS ?= 30

B       := build$(if $(SANITIZE),-san)
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Wshadow -Wconversion -Wno-sign-conversion \
           -Wstrict-prototypes -Wmissing-prototypes -Wvla -Wformat=2 -Wno-format-truncation
ifeq ($(WERROR),1)
WARN    += -Werror
endif
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
ifeq ($(SANITIZE),1)
CFLAGS  += $(SANFLAGS)
LDFLAGS += $(SANFLAGS)
endif
CPPFLAGS += -D_DEFAULT_SOURCE -D_FILE_OFFSET_BITS=64 -Isrc -Isrc/lib -Isrc/cli -Isrc/render \
            -DG2E_DATADIR='"$(PREFIX)/share/gpt2-embed"' -DG2E_RENDER_DIR='"$(PREFIX)/lib/gpt2-embed"' \
            -DG2E_LOCALEDIR='"$(PREFIX)/share/locale"' \
            -DG2E_VERSION='"$(VERSION)"'
LDLIBS  := -lcjson -lutf8proc -lm
# The rendering wing alone links cairo and Pango (evaluated late: after install-deps).
RENDER_CFLAGS = $(shell pkg-config --cflags pangocairo)
RENDER_LIBS   = $(shell pkg-config --libs pangocairo) -lfontconfig -lm
# LAPACKE and BLAS for the principal components (src/lib/pca.c); Debian ships lapacke.pc and
# blas.pc (the fallback is for the first parse on a machine without pkg-config yet).
LDLIBS  += $(shell pkg-config --libs lapacke blas 2>/dev/null || echo -llapacke -lblas)
CPPFLAGS += $(shell pkg-config --cflags lapacke 2>/dev/null)

LIB_SRC   := $(sort $(wildcard src/lib/*.c))
POT_SRC   := $(sort $(wildcard src/cli/*.c src/cli/*.h src/cli/*.def src/lib/*.c src/render/*.c))
POT       := $(B)/po/gpt2-embed.pot
MO        := $(patsubst po/%.po,$(B)/locale/%/LC_MESSAGES/gpt2-embed.mo,$(wildcard po/*.po))
XGETTEXT_FLAGS := --from-code=UTF-8 --language=C --add-comments=TRANSLATORS: --sort-by-file \
    --package-name=gpt2-embed --package-version=$(or $(VERSION),0.1.0) --no-wrap \
    --keyword=_ --keyword=N_ --keyword=cli_error --keyword=cli_note --keyword=g2e_fail:3 \
    --keyword=opt_usage_error:2 --keyword=report:2 --keyword=CMD:3 --keyword=g2e_tr \
    --flag=cli_error:1:c-format --flag=cli_note:1:c-format --flag=g2e_fail:3:c-format \
    --flag=opt_usage_error:2:c-format --flag=report:2:c-format
CLI_SRC   := $(sort $(wildcard src/cli/*.c))
TEST_SRC  := $(sort $(wildcard tests/test_*.c))
TSUP_SRC  := $(sort $(filter-out tests/test_%.c,$(wildcard tests/*.c)))
BENCH_SRC := $(sort $(wildcard bench/bench_*.c))
FUZZ_SRC  := $(sort $(wildcard tests/fuzz/fuzz_*.c))

# src/render/render_load.c is the program's side (dlopen, no cairo); the rest of src/render
# is gpt2-embed-render.so.
RENDER_SRC := $(filter-out src/render/render_load.c,$(sort $(wildcard src/render/*.c)))

LIB_OBJ   := $(LIB_SRC:%.c=$(B)/%.o)
CLI_OBJ   := $(filter-out $(B)/src/cli/main.o,$(CLI_SRC:%.c=$(B)/%.o)) $(B)/src/render/render_load.o
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
LIBA      := $(B)/libgpt2embed.a
CLIA      := $(B)/libgpt2embed-cli.a
DEPS_OK   := $(B)/.deps-ok

.SECONDARY:
.PHONY: all deps test bench fuzz install uninstall weights run clean help man po-update
.DEFAULT_GOAL := all

all: gpt2-embed

help:
	@echo "make              build ./gpt2-embed (installs missing Debian packages first)"
	@echo "make run          the main job: build, fetch weights if missing, embed TEXT='$(TEXT)'"
	@echo "make test         build and run the Criterion test suite"
	@echo "make SANITIZE=1 test   the same under AddressSanitizer + UBSan (in build-san/)"
	@echo "make bench        the benchmarks under bench/ (figures in the README)"
	@echo "make fuzz         each libFuzzer target for FUZZ_SECONDS=$(FUZZ_SECONDS) s"
	@echo "make weights      gpt2-embed download (GPT-2's wte+wpe into weights/)"
	@echo "make install PREFIX=$(PREFIX)   program, library, header, pkg-config, data, man page"
	@echo "make man         regenerate doc/gpt2-embed.1's version and OPTIONS from the option tables"
	@echo "make po-update    regenerate po/gpt2-embed.pot and merge it into po/ja.po (msgmerge)"
	@echo "make clean"

deps: $(DEPS_OK)
$(DEPS_OK): tools/install-deps.sh
	@tools/install-deps.sh
	@mkdir -p $(@D) && touch $@

$(B)/%.o: %.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -MMD -MP -c $< -o $@

# The rendering wing: position-independent, only g2e_render_api visible; it carries its own
# copy of err.c (g2e_fail) so that it needs nothing from the program.
$(B)/src/render/%.o: CPPFLAGS += $(RENDER_CFLAGS)
$(B)/src/render/%.o: CFLAGS += -fPIC -fvisibility=hidden
$(B)/tests/pngcheck.o: CPPFLAGS += $(RENDER_CFLAGS)
$(B)/pic/%.o: %.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -fvisibility=hidden $(WARN) -MMD -MP -c $< -o $@

$(RENDER_SO): $(RENDER_OBJ) $(B)/pic/src/lib/err.o
	$(CC) $(LDFLAGS) -shared -Wl,-z,defs -o $@ $^ $(RENDER_LIBS)

$(LIBA): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(CLIA): $(CLI_OBJ)
	@rm -f $@
	ar rcs $@ $^

# The command objects are linked directly (every one of them is a subcommand main.c
# lists), not picked out of $(CLIA).
$(B)/gpt2-embed: $(B)/src/cli/main.o $(CLI_OBJ) $(LIBA) | $(RENDER_SO)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The program finds gpt2-embed-render.so beside itself: both are copied.
gpt2-embed: $(B)/gpt2-embed $(RENDER_SO) $(MO) $(POT)
	cp $(RENDER_SO) gpt2-embed-render.so
	cp $< $@

# Translations (gettext). The template is extracted from the sources at every build: every
# cli_error/cli_note/g2e_fail/opt_usage_error format and every _()/N_() string; ja.po is
# compiled (msgfmt -c checks that each translation keeps its format directives) into the
# build tree's locale/, where i18n.c finds it when the program runs from the tree.
# tests/test_i18n.c fails when ja.po lacks a translation of the fresh template or has a
# fuzzy one; `make po-update` (tools/po-update.sh) merges the template into po/ja.po.
$(POT): $(POT_SRC) | $(DEPS_OK)
	@mkdir -p $(@D)
	@echo "xgettext -> $@"
	@xgettext $(XGETTEXT_FLAGS) -o $@ $(POT_SRC)

$(B)/locale/%/LC_MESSAGES/gpt2-embed.mo: po/%.po | $(DEPS_OK)
	@mkdir -p $(@D)
	msgfmt -c -o $@ $<

po-update: $(POT)
	tools/po-update.sh $(POT)

# Tests: one Criterion binary per tests/test_<module>.c, linked with every module but main.c.
$(B)/tests/test_%: $(B)/tests/test_%.o $(TSUP_OBJ) $(CLIA) $(LIBA)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcriterion
$(FIG_TEST_BIN): $(B)/tests/%: $(B)/tests/%.o $(TSUP_OBJ) $(B)/tests/pngcheck.o $(RENDER_OBJ) $(CLIA) $(LIBA)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(RENDER_LIBS) -lcriterion

TEST_CPPFLAGS = -DG2E_TEST_BIN='"$(CURDIR)/$(B)/gpt2-embed"' -DG2E_SRCDIR='"$(CURDIR)"' \
                -DG2E_TEST_TMP='"$(CURDIR)/$(B)/tmp"'
$(B)/tests/%.o: CPPFLAGS += $(TEST_CPPFLAGS)
$(B)/bench/%.o: CPPFLAGS += $(TEST_CPPFLAGS)

test: $(B)/gpt2-embed $(MO) $(POT) $(B)/mkfixture $(TEST_BIN)
	@tests/run.sh $(B) $(TEST_BIN)

# Benchmarks link the fixture writer (tests/fixture.c, no Criterion) and the libraries.
BSUP_OBJ := $(patsubst %.c,$(B)/%.o,$(wildcard tests/fixture.c))
$(B)/bench/bench_%: $(B)/bench/bench_%.o $(BSUP_OBJ) $(CLIA) $(LIBA)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

bench: $(B)/gpt2-embed $(B)/mkfixture $(BENCH_BIN)
	@bench/run.sh $(B)

# tools/mkfixture: writes safetensors fixtures (tests/fixture.c) for shell benchmarks and
# the downloader's local HTTP test server.
$(B)/mkfixture: $(B)/tools/mkfixture.o $(B)/tests/fixture.o $(LIBA)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Fuzzing: clang's libFuzzer with ASan+UBSan, over the library compiled alone.
build-fuzz/%: tests/fuzz/%.c $(LIB_SRC) | $(DEPS_OK)
	@mkdir -p $(@D)
	clang $(CPPFLAGS) -DG2E_SRCDIR='"$(CURDIR)"' -O1 -g -fsanitize=fuzzer,address,undefined \
	    -fno-sanitize-recover=all -o $@ $< $(LIB_SRC) $(LDLIBS)

fuzz: $(FUZZ_BIN)
	@set -e; for f in $(FUZZ_BIN); do \
	  n=$$(basename $$f); mkdir -p build-fuzz/corpus-$$n; \
	  seeds=tests/fuzz/seeds-$${n#fuzz_}; [ -d $$seeds ] || seeds=; \
	  echo "fuzz: $$n for $(FUZZ_SECONDS) s"; \
	  $$f -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -rss_limit_mb=2048 -print_final_stats=1 \
	      build-fuzz/corpus-$$n $$seeds 2>&1 | tail -n 12; \
	  test $${PIPESTATUS[0]} -eq 0 || { echo "fuzz: $$n FAILED"; exit 1; }; \
	done

# The manual's generated parts (the .TH version, the OPTIONS sections from the option tables);
# tests/test_manual.c fails when doc/gpt2-embed.1 differs from what this writes.
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
run: gpt2-embed
	@if [ -z "$$GPT2_EMBED_WEIGHTS" ] && [ ! -f $(RUN_WEIGHTS) ]; then $(RUN_BIN) download || \
	  { echo "make run: no weights, and the download failed; with a weights file you have:" \
	         "GPT2_EMBED_WEIGHTS=FILE make run" >&2; exit 1; }; fi
	$(RUN_BIN) "$(TEXT)"

install: gpt2-embed $(LIBA)
	install -d $(DESTDIR)$(PREFIX)/lib/gpt2-embed
	install -m 644 gpt2-embed-render.so $(DESTDIR)$(PREFIX)/lib/gpt2-embed/gpt2-embed-render.so
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include \
	    $(DESTDIR)$(PREFIX)/share/gpt2-embed/tokenizer $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 gpt2-embed $(DESTDIR)$(PREFIX)/bin/gpt2-embed
	install -m 644 $(LIBA) $(DESTDIR)$(PREFIX)/lib/libgpt2embed.a
	install -m 644 src/gpt2embed.h $(DESTDIR)$(PREFIX)/include/gpt2embed.h
	install -m 644 tokenizer/* $(DESTDIR)$(PREFIX)/share/gpt2-embed/tokenizer/
	install -m 644 doc/gpt2-embed.1 $(DESTDIR)$(PREFIX)/share/man/man1/gpt2-embed.1
	install -D -m 644 doc/ja/gpt2-embed.1 $(DESTDIR)$(PREFIX)/share/man/ja/man1/gpt2-embed.1
	for mo in $(MO); do l=$${mo#$(B)/locale/}; l=$${l%%/*}; \
	  install -D -m 644 $$mo $(DESTDIR)$(PREFIX)/share/locale/$$l/LC_MESSAGES/gpt2-embed.mo; done
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' doc/gpt2embed.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/gpt2embed.pc

uninstall:
	rm -f $(PREFIX)/bin/gpt2-embed $(PREFIX)/lib/libgpt2embed.a $(PREFIX)/include/gpt2embed.h \
	    $(PREFIX)/lib/pkgconfig/gpt2embed.pc $(PREFIX)/share/man/man1/gpt2-embed.1 \
	    $(PREFIX)/share/locale/*/LC_MESSAGES/gpt2-embed.mo $(PREFIX)/share/man/ja/man1/gpt2-embed.1
	rm -rf $(PREFIX)/share/gpt2-embed $(PREFIX)/lib/gpt2-embed

clean:
	rm -rf build build-san build-fuzz gpt2-embed gpt2-embed-render.so

-include $(shell find $(B) -name '*.d' 2>/dev/null)
