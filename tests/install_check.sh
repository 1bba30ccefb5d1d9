#!/bin/bash
# SPDX-License-Identifier: MIT
# Steps of the installation tests (tests/test_api.c runs them one by one, each within the
# test runner's time limit). Every step exits non-zero with a one-line reason on the first
# thing that is wrong.
#
#   install_check.sh build   SRC BUILDDIR PREFIX     build everything in BUILDDIR for PREFIX
#   install_check.sh install SRC BUILDDIR PREFIX     make install PREFIX=...; check the files
#   install_check.sh example SRC PREFIX OUTDIR W     build doc/examples/embed.c with pkg-config,
#                                                    shared and --static; run both on weights W;
#                                                    print the shared run's output
#   install_check.sh python  PREFIX W                import gpt2embed from PREFIX's site directory
#                                                    (no PYTHONPATH tricks beyond that one
#                                                    directory); print the library path and the
#                                                    embedding's bytes in hex
#   install_check.sh stage   SRC BUILDDIR PREFIX STAGE   install + uninstall with DESTDIR=STAGE:
#                                                    the stage ends empty, and nothing outside
#                                                    it (the PREFIX tree itself) changes
#   install_check.sh uninstall SRC BUILDDIR PREFIX   make uninstall; no file of ours is left,
#                                                    a user's file in the data dir is kept
set -u
fail() { echo "install_check: $*" >&2; exit 1; }
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SANITIZE -u WERROR make -s -C "$src" SANITIZE= "$@"; }
# A listing of a tree with each file's checksum (symlinks by target): "what is there".
# A real root such as /usr is not walked: only the paths we would install are listed.
snapshot() {
  case $1 in
  /usr|/usr/local) for f in $FILES; do [ -e "$1/$f" ] && sha256sum "$1/$f"; done; return 0 ;;
  esac
  if [ -d "$1" ]; then
    (cd "$1" && find . -mindepth 1 \( -type f -printf '%p ' -exec sha256sum {} \; \) -o \
                                   \( -type l -printf '%p -> %l\n' \) -o \( -type d -printf '%p/\n' \) | sort)
  fi
}
FILES="bin/gpt2-embed lib/libgpt2embed.so.1 lib/libgpt2embed.so lib/libgpt2embed.a
       lib/pkgconfig/gpt2embed.pc include/gpt2embed.h include/gpt2embed_version.h
       share/gpt2-embed/tokenizer/vocab.json share/gpt2-embed/tokenizer/merges.txt
       share/man/man1/gpt2-embed.1 share/bash-completion/completions/gpt2-embed
       share/doc/gpt2-embed/LICENSE share/doc/gpt2-embed/THIRD_PARTY.md"

step=$1; shift
case $step in
build)
  src=$1 b=$2 prefix=$3
  mk -j2 BUILDDIR="$b" PREFIX="$prefix" all || fail "build failed"
  ;;
install)
  src=$1 b=$2 prefix=$3
  mk BUILDDIR="$b" PREFIX="$prefix" install >/dev/null || fail "make install failed"
  for f in $FILES; do [ -e "$prefix/$f" ] || fail "not installed: $prefix/$f"; done
  cmp -s "$src/LICENSE" "$prefix/share/doc/gpt2-embed/LICENSE" || fail "LICENSE differs"
  [ "$(readlink "$prefix/lib/libgpt2embed.so.1")" = "libgpt2embed.so.$(sed -n 's/^VERSION *:= *//p' "$src/Makefile")" ] ||
    fail "libgpt2embed.so.1 does not point at the versioned file"
  strings "$prefix/lib/libgpt2embed.so.1" | grep -qxF "$prefix/share/gpt2-embed/tokenizer" ||
    fail "the library does not carry the data directory $prefix/share/gpt2-embed"
  ;;
example)
  src=$1 prefix=$2 out=$3 w=$4
  export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
  pkg-config --exists gpt2embed || fail "pkg-config does not know gpt2embed"
  # a user of gpt2embed.h needs its include directory and nothing of ours besides
  [ "$(pkg-config --cflags gpt2embed | sed 's/ *$//')" = "-I$prefix/include" ] ||
    fail "pkg-config --cflags gpt2embed says '$(pkg-config --cflags gpt2embed)', not -I$prefix/include"
  [ "$(stat -c %a "$prefix/lib/libgpt2embed.so.$(sed -n 's/^VERSION *:= *//p' "$src/Makefile")")" = 644 ] ||
    fail "the shared library is not installed 0644"
  # shared: exactly what the header comment says
  cc -std=c11 -Wall -Werror "$src/doc/examples/embed.c" $(pkg-config --cflags --libs gpt2embed) \
     -o "$out/ex-shared" || fail "shared build failed"
  readelf -d "$out/ex-shared" | grep -q 'NEEDED.*libgpt2embed\.so\.1' || fail "ex-shared does not need libgpt2embed.so.1"
  # static: the archive with what pkg-config --static adds (Requires.private, Libs.private);
  # -l:libgpt2embed.a picks the archive although the shared library sits beside it
  cc -std=c11 -Wall -Werror "$src/doc/examples/embed.c" \
     $(pkg-config --static --cflags --libs gpt2embed | sed 's/-lgpt2embed\b/-l:libgpt2embed.a/') \
     -o "$out/ex-static" || fail "static build failed"
  readelf -d "$out/ex-static" | grep -q libgpt2embed && fail "ex-static still needs the shared library"
  LD_LIBRARY_PATH="$prefix/lib" "$out/ex-shared" "$w" "The dog chased the cat" > "$out/shared.txt" ||
    fail "ex-shared failed"
  env -u LD_LIBRARY_PATH "$out/ex-static" "$w" "The dog chased the cat" > "$out/static.txt" ||
    fail "ex-static failed"
  cmp -s "$out/shared.txt" "$out/static.txt" || fail "shared and static outputs differ"
  cat "$out/shared.txt"
  ;;
python)
  prefix=$1 w=$2
  d=$(find "$prefix/lib" -path '*-packages/gpt2embed' -type d | head -n 1)
  [ -n "$d" ] || fail "no gpt2embed package under $prefix/lib"
  env -u GPT2EMBED_LIBRARY PYTHONPATH="$(dirname "$d")" PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 -c '
import sys, gpt2embed as g
from gpt2embed import _binding
m = g.Model(sys.argv[1])
print(g._lib._name)
print(_binding.pylists_path)
assert g.get_encoding("gpt2").encode_batch(["Hello world", ""]) == [[15496, 995], []]
print(m.embed("The dog chased the cat").tobytes().hex())' "$w" || fail "python import/use failed"
  ;;
stage)
  src=$1 b=$2 prefix=$3 stage=$4
  before=$(snapshot "$prefix")
  mk BUILDDIR="$b" PREFIX="$prefix" DESTDIR="$stage" install >/dev/null || fail "staged install failed"
  for f in $FILES; do [ -e "$stage$prefix/$f" ] || fail "not staged: $stage$prefix/$f"; done
  [ "$(snapshot "$prefix")" = "$before" ] || fail "the staged install changed $prefix"
  mk BUILDDIR="$b" PREFIX="$prefix" DESTDIR="$stage" uninstall >/dev/null || fail "staged uninstall failed"
  left=$(find "$stage" -mindepth 1 | head -n 5)
  [ -z "$left" ] || fail "the stage is not empty after uninstall: $left"
  [ "$(snapshot "$prefix")" = "$before" ] || fail "the staged uninstall changed $prefix"
  ;;
uninstall)
  src=$1 b=$2 prefix=$3
  mkdir -p "$prefix/share/gpt2-embed/weights"
  echo mine > "$prefix/share/gpt2-embed/weights/gpt2.safetensors"
  mk BUILDDIR="$b" PREFIX="$prefix" uninstall >/dev/null || fail "make uninstall failed"
  left=$(find "$prefix" \( -type f -o -type l \) ! -path '*/weights/gpt2.safetensors' | head -n 5)
  [ -z "$left" ] || fail "left after uninstall: $left"
  [ "$(cat "$prefix/share/gpt2-embed/weights/gpt2.safetensors")" = mine ] || fail "uninstall removed the user's weights"
  ;;
*) fail "unknown step $step" ;;
esac
