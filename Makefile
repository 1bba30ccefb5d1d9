# gpt2-embed — build, test, benchmark, fuzz, install.   `make help` lists the targets.
#
# Every target first runs tools/install-deps.sh, which apt-get installs any missing
# Debian package (as root, else through sudo): a fresh Debian 12 machine needs
# nothing by hand.  SANITIZE=1 builds everything into build-san/ with ASan+UBSan.
# WERROR=1 (as CI does) turns warnings into errors.

SHELL   := /bin/bash
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
CPPFLAGS += -D_DEFAULT_SOURCE -D_FILE_OFFSET_BITS=64 -Isrc -Isrc/lib -Isrc/cli \
            -DG2E_DATADIR='"$(PREFIX)/share/gpt2-embed"'
LDLIBS  := -lcjson -lcairo -lfontconfig -lutf8proc -lm

LIB_SRC   := $(sort $(wildcard src/lib/*.c))
CLI_SRC   := $(sort $(wildcard src/cli/*.c))
TEST_SRC  := $(sort $(wildcard tests/test_*.c))
TSUP_SRC  := $(sort $(filter-out tests/test_%.c,$(wildcard tests/*.c)))
BENCH_SRC := $(sort $(wildcard bench/bench_*.c))
FUZZ_SRC  := $(sort $(wildcard tests/fuzz/fuzz_*.c))

LIB_OBJ   := $(LIB_SRC:%.c=$(B)/%.o)
CLI_OBJ   := $(filter-out $(B)/src/cli/main.o,$(CLI_SRC:%.c=$(B)/%.o))
TSUP_OBJ  := $(TSUP_SRC:%.c=$(B)/%.o)
TEST_BIN  := $(TEST_SRC:%.c=$(B)/%)
BENCH_BIN := $(BENCH_SRC:%.c=$(B)/%)
FUZZ_BIN  := $(FUZZ_SRC:tests/fuzz/%.c=build-fuzz/%)
LIBA      := $(B)/libgpt2embed.a
CLIA      := $(B)/libgpt2embed-cli.a
DEPS_OK   := $(B)/.deps-ok

.SECONDARY:
.PHONY: all deps test bench bench-peers fuzz install uninstall weights run clean help
.DEFAULT_GOAL := all

all: gpt2-embed

help:
	@echo "make              build ./gpt2-embed (installs missing Debian packages first)"
	@echo "make run          the main job: build, fetch weights if missing, embed TEXT='$(TEXT)'"
	@echo "make test         build and run the Criterion test suite"
	@echo "make SANITIZE=1 test   the same under AddressSanitizer + UBSan (in build-san/)"
	@echo "make bench        the benchmarks under bench/ (figures in the README)"
	@echo "make bench-peers  install the npm tokenizers make bench compares with (build/npm)"
	@echo "make fuzz         each libFuzzer target for FUZZ_SECONDS=$(FUZZ_SECONDS) s"
	@echo "make weights      gpt2-embed download (GPT-2's wte+wpe into weights/)"
	@echo "make install PREFIX=$(PREFIX)   program, library, header, pkg-config, data, man page"
	@echo "make clean"

deps: $(DEPS_OK)
$(DEPS_OK): tools/install-deps.sh
	@tools/install-deps.sh
	@mkdir -p $(@D) && touch $@

$(B)/%.o: %.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -MMD -MP -c $< -o $@

$(LIBA): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(CLIA): $(CLI_OBJ)
	@rm -f $@
	ar rcs $@ $^

# The command objects are linked directly (every one of them is a subcommand main.c
# lists), not picked out of $(CLIA).
$(B)/gpt2-embed: $(B)/src/cli/main.o $(CLI_OBJ) $(LIBA)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

gpt2-embed: $(B)/gpt2-embed
	cp $< $@

# Tests: one Criterion binary per tests/test_<module>.c, linked with every module but main.c.
$(B)/tests/test_%: $(B)/tests/test_%.o $(TSUP_OBJ) $(CLIA) $(LIBA)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcriterion

TEST_CPPFLAGS = -DG2E_TEST_BIN='"$(CURDIR)/$(B)/gpt2-embed"' -DG2E_SRCDIR='"$(CURDIR)"' \
                -DG2E_TEST_TMP='"$(CURDIR)/$(B)/tmp"'
$(B)/tests/%.o: CPPFLAGS += $(TEST_CPPFLAGS)
$(B)/bench/%.o: CPPFLAGS += $(TEST_CPPFLAGS)

test: $(B)/gpt2-embed $(B)/mkfixture $(TEST_BIN)
	@tests/run.sh $(B) $(TEST_BIN)

# Benchmarks link the fixture writer (tests/fixture.c, no Criterion) and the libraries.
BSUP_OBJ := $(patsubst %.c,$(B)/%.o,$(wildcard tests/fixture.c))
$(B)/bench/bench_%: $(B)/bench/bench_%.o $(BSUP_OBJ) $(CLIA) $(LIBA)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

bench: gpt2-embed $(B)/gpt2-embed $(B)/mkfixture $(BENCH_BIN)
	@bench/run.sh $(B)

# The tokenizer peers bench_tokenizer.sh compares with (npm registry; into build/npm, ignored by git).
bench-peers:
	@mkdir -p build/npm && cd build/npm && { [ -f package.json ] || echo '{"name":"g2e-bench-peers","private":true}' > package.json; } && \
	  npm install --no-audit --no-fund tiktoken@1.0.22 tiktoken-node@0.0.7 tokenizers@0.23.2

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

weights: gpt2-embed
	./gpt2-embed download

run: gpt2-embed
	@if [ -z "$$GPT2_EMBED_WEIGHTS" ] && [ ! -f weights/gpt2.safetensors ]; then ./gpt2-embed download; fi
	./gpt2-embed "$(TEXT)"

install: gpt2-embed $(LIBA)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include \
	    $(DESTDIR)$(PREFIX)/share/gpt2-embed/tokenizer $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 gpt2-embed $(DESTDIR)$(PREFIX)/bin/gpt2-embed
	install -m 644 $(LIBA) $(DESTDIR)$(PREFIX)/lib/libgpt2embed.a
	install -m 644 src/gpt2embed.h $(DESTDIR)$(PREFIX)/include/gpt2embed.h
	install -m 644 tokenizer/* $(DESTDIR)$(PREFIX)/share/gpt2-embed/tokenizer/
	install -m 644 doc/gpt2-embed.1 $(DESTDIR)$(PREFIX)/share/man/man1/gpt2-embed.1
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|0.1.0|g' doc/gpt2embed.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/gpt2embed.pc

uninstall:
	rm -f $(PREFIX)/bin/gpt2-embed $(PREFIX)/lib/libgpt2embed.a $(PREFIX)/include/gpt2embed.h \
	    $(PREFIX)/lib/pkgconfig/gpt2embed.pc $(PREFIX)/share/man/man1/gpt2-embed.1
	rm -rf $(PREFIX)/share/gpt2-embed

clean:
	rm -rf build build-san build-fuzz gpt2-embed

-include $(shell find $(B) -name '*.d' 2>/dev/null)
