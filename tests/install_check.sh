#!/bin/bash
# SPDX-License-Identifier: MIT
# Steps of the installation tests (tests/test_api.c runs them one by one). Each installs the
# build under test as it is, with the configuration it was built for (read back from its
# config.stamp), so that nothing is compiled again: a step fails if make install rebuilt any
# object, library or program. Every step exits non-zero with a one-line reason on the first
# thing that is wrong.
#
#   install_check.sh place SRC BUILDDIR WORK W   in a private mount namespace whose PREFIX is
#       an empty tmpfs holding only what a distribution puts there (bin/, include/, lib/,
#       share/man/, Python's site directory) and a user's own file: make install at the real
#       paths; every file there; the example doc/examples/embed.c built with pkg-config,
#       shared and --static, run on weights W ("example: " lines), and doc/examples/pipeline.c
#       likewise on WORK/pipeline-in.txt (its outputs in WORK/pipeline-*); Python importing the
#       module with no PYTHONPATH ("python: " lines); the installed program, its Japanese
#       catalogue and its drawing object; make uninstall leaves PREFIX exactly as it was.
#       Then again with a site directory Python does not search, whose note make install
#       prints once ("note: " line), and a user's weights in the data directory, which
#       make uninstall keeps.
#   install_check.sh stage SRC BUILDDIR STAGE    install + uninstall with DESTDIR=STAGE: the
#       stage ends empty, and nothing outside it (the machine's PREFIX) changes
#   install_check.sh stamp SRC WORK              one object of a scratch build directory
#       compiled for one PREFIX, then for another (its data directory follows), then not
#       again for the same one
set -u
fail() { echo "install_check: $*" >&2; exit 1; }

# The configuration BUILDDIR was built for: make install with these values rebuilds nothing.
config() {
  local c
  c=$(cat "$b/config.stamp" 2>/dev/null) || fail "no $b/config.stamp: the build under test is missing"
  datadir=$(sed -n 's|.* datadir=\(.*\)/gpt2-embed renderdir=.*|\1|p' <<<"$c")
  libdir=$(sed -n 's|.* renderdir=\(.*\)/gpt2-embed localedir=.*|\1|p' <<<"$c")
  san=$(sed -n 's|.* sanitize=\(.*\)$|\1|p' <<<"$c")
  [ -n "$datadir" ] && [ -n "$libdir" ] || fail "cannot read $b/config.stamp: $c"
  prefix=${datadir%/share}
  # a build directory inside the tree is named as `make test` names it (the same targets)
  case $b in "$src"/*) bd=${b#"$src"/} ;; *) bd=$b ;; esac
}
mk() {
  env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SANITIZE -u WERROR make -s --no-print-directory -C "$src" \
    BUILDDIR="$bd" SANITIZE="$san" PREFIX="$prefix" DATADIR="$datadir" LIBDIR="$libdir" "$@"
}
# make install, which must find everything built: any object, archive, library or program
# newer than the start is a rebuild.
install_built() {   # install_built MARKER [make arguments]
  local m=$1 new; shift
  touch "$m"
  mk "$@" install || fail "make install $* failed"
  new=$(find "$b" -path "$b/tmp" -prune -o -newer "$m" -type f \
              \( -name '*.o' -o -name '*.a' -o -name '*.so*' -o -name 'gpt2-embed*' \) -print | head -n 3)
  [ -z "$new" ] && return 0
  fail "make install rebuilt what the build under test had built:" $new
}
# A listing of a tree: each file's checksum, each symlink's target, each directory.
tree() {
  (cd "$1" && find . -mindepth 1 \( -type f -printf '%p ' -exec sha256sum {} \; \) -o \
                                 \( -type l -printf '%p -> %l\n' \) -o \( -type d -printf '%p/\n' \) | sort)
}
# The same of the machine's PREFIX, but a real root such as /usr is not walked: only the paths
# we would install are listed.
snapshot() {
  case $1 in
  /usr|/usr/local) for f in $FILES; do [ -e "$1/$f" ] && sha256sum "$1/$f"; done; return 0 ;;
  esac
  if [ -d "$1" ]; then tree "$1"; fi
}
FILES="bin/gpt2-embed lib/libgpt2embed.so.1 lib/libgpt2embed.so lib/libgpt2embed.a
       lib/pkgconfig/gpt2embed.pc include/gpt2embed.h include/gpt2embed_version.h
       share/gpt2-embed/tokenizer/vocab.json share/gpt2-embed/tokenizer/merges.txt
       share/man/man1/gpt2-embed.1 share/man/ja/man1/gpt2-embed.1
       share/bash-completion/completions/gpt2-embed share/locale/ja/LC_MESSAGES/gpt2-embed.mo
       lib/gpt2-embed/gpt2-embed-render.so
       share/doc/gpt2-embed/LICENSE share/doc/gpt2-embed/THIRD_PARTY.md
       share/doc/gpt2-embed/embed.c share/doc/gpt2-embed/pipeline.c"
# The sanitizer runtimes a sanitized library needs preloaded into Python, and the flags a
# program linking a sanitized archive needs.
asan_preload() { ldd "$1" 2>/dev/null | awk '/lib(asan|ubsan)\.so/ {printf "%s%s", s, $3; s = ":"}'; }
sanflags() { [ -n "$san" ] && echo "-fsanitize=address,undefined"; }

place() {
  local w=$1 py pydir skel after out ver
  ver=$(sed -n 's/^VERSION *:= *//p' "$src/Makefile")
  case $prefix in /|/usr|/bin|/lib|/etc) fail "PREFIX $prefix holds the system: the test cannot cover it" ;; esac
  [ -d "$prefix" ] || fail "PREFIX $prefix does not exist here: the test covers it with a tmpfs"
  # the rest of this step runs in a private mount namespace (as root; else as root of a user
  # namespace): its mounts end with it, and the machine's PREFIX is never written
  if [ -z "${G2E_IN_PLACE:-}" ]; then
    local ns=(unshare --mount --propagation private)
    [ "$(id -u)" = 0 ] || ns=(unshare --map-root-user --mount)
    "${ns[@]}" true 2>/dev/null || fail "cannot make a private mount namespace here (${ns[*]})"
    exec env G2E_IN_PLACE=1 "${ns[@]}" /bin/bash "$0" place "$src" "$b" "$work" "$w"
  fi
  mount -t tmpfs -o mode=0755 g2e-prefix "$prefix" || fail "cannot mount a tmpfs on $prefix"
  # what a distribution and a user had there before us: Python's site directory for PREFIX
  # too (Debian's python3 makes /usr/local/lib/python3.X/dist-packages)
  py=/usr/bin/python3
  pydir=$("$py" -c 'import site, sys
print(next((p for p in site.getsitepackages() if p.startswith(sys.argv[1] + "/")), ""))' "$prefix")
  mkdir -p "$prefix/bin" "$prefix/include" "$prefix/lib" "$prefix/share/man" ${pydir:+"$pydir"}
  echo mine > "$prefix/lib/libmine.so"
  skel=$(tree "$prefix")

  out=$(install_built "$work/before-place" 2>&1) || fail "${out##*$'\n'}"
  [ -z "$out" ] || fail "make install said more than nothing: $out"
  for f in $FILES; do [ -e "$prefix/$f" ] || fail "not installed: $prefix/$f"; done
  cmp -s "$src/LICENSE" "$prefix/share/doc/gpt2-embed/LICENSE" || fail "LICENSE differs"
  [ "$(readlink "$prefix/lib/libgpt2embed.so.1")" = "libgpt2embed.so.$ver" ] ||
    fail "libgpt2embed.so.1 does not point at the versioned file"
  [ "$(stat -c %a "$prefix/lib/libgpt2embed.so.$ver")" = 644 ] || fail "the shared library is not installed 0644"
  strings "$prefix/lib/libgpt2embed.so.1" | grep -qxF "$prefix/share/gpt2-embed/tokenizer" ||
    fail "the library does not carry the data directory $prefix/share/gpt2-embed"

  # the example, as its header comment says, with pkg-config's own search path
  pkg-config --exists gpt2embed || fail "pkg-config does not find gpt2embed in $prefix"
  [ "$(pkg-config --cflags gpt2embed | sed 's/ *$//')" = "-I$prefix/include" ] ||
    fail "pkg-config --cflags gpt2embed says '$(pkg-config --cflags gpt2embed)', not -I$prefix/include"
  cc -std=c11 -Wall -Werror $(sanflags) "$src/doc/examples/embed.c" $(pkg-config --cflags --libs gpt2embed) \
     -o "$work/ex-shared" || fail "shared build failed"
  readelf -d "$work/ex-shared" | grep -q 'NEEDED.*libgpt2embed\.so\.1' || fail "ex-shared does not need libgpt2embed.so.1"
  # static: the archive with what pkg-config --static adds (Requires.private, Libs.private);
  # -l:libgpt2embed.a picks the archive although the shared library sits beside it
  cc -std=c11 -Wall -Werror $(sanflags) "$src/doc/examples/embed.c" \
     $(pkg-config --static --cflags --libs gpt2embed | sed 's/-lgpt2embed\b/-l:libgpt2embed.a/') \
     -o "$work/ex-static" || fail "static build failed"
  readelf -d "$work/ex-static" | grep -q libgpt2embed && fail "ex-static still needs the shared library"
  LD_LIBRARY_PATH="$prefix/lib" "$work/ex-shared" "$w" "The dog chased the cat" > "$work/shared.txt" ||
    fail "ex-shared failed"
  env -u LD_LIBRARY_PATH "$work/ex-static" "$w" "The dog chased the cat" > "$work/static.txt" ||
    fail "ex-static failed"
  cmp -s "$work/shared.txt" "$work/static.txt" || fail "shared and static outputs differ"
  sed 's/^/example: /' "$work/shared.txt"

  # the pipeline example, built the same two ways, on the lines of WORK/pipeline-in.txt on 1
  # and 3 threads (WORK/pipeline-1.txt, -3.txt), and on a line of bad UTF-8 after two good
  # ones (WORK/pipeline-bad.{out,err,status})
  [ -f "$work/pipeline-in.txt" ] || fail "no $work/pipeline-in.txt: the test writes the pipeline's input"
  cc -std=c11 -Wall -Werror $(sanflags) "$src/doc/examples/pipeline.c" $(pkg-config --cflags --libs gpt2embed) \
     -o "$work/pl-shared" || fail "pipeline: shared build failed"
  cc -std=c11 -Wall -Werror $(sanflags) "$src/doc/examples/pipeline.c" \
     $(pkg-config --static --cflags --libs gpt2embed | sed 's/-lgpt2embed\b/-l:libgpt2embed.a/') \
     -o "$work/pl-static" || fail "pipeline: static build failed"
  LD_LIBRARY_PATH="$prefix/lib" "$work/pl-shared" 1 < "$work/pipeline-in.txt" > "$work/pipeline-1.txt" ||
    fail "pipeline on 1 thread failed"
  env -u LD_LIBRARY_PATH "$work/pl-static" 3 < "$work/pipeline-in.txt" > "$work/pipeline-3.txt" ||
    fail "pipeline on 3 threads failed"
  printf 'Hello world\nThe dog\nbad \377 byte\nnot reached\n' |
    LD_LIBRARY_PATH="$prefix/lib" "$work/pl-shared" 2 > "$work/pipeline-bad.out" 2> "$work/pipeline-bad.err"
  echo $? > "$work/pipeline-bad.status"

  # Python from anywhere, as a user starts it: no PYTHONPATH, no GPT2EMBED_LIBRARY
  (cd / && env -u GPT2EMBED_LIBRARY -u PYTHONPATH PYTHONDONTWRITEBYTECODE=1 \
     LD_PRELOAD="$(asan_preload "$prefix/lib/libgpt2embed.so.1")" ASAN_OPTIONS=detect_leaks=0 "$py" -c '
import sys, gpt2embed as g
from gpt2embed import _binding
m = g.Model(sys.argv[1])
print(g.__file__)
print(g._lib._name)
print(_binding.pylists_path)
assert g.get_encoding("gpt2").encode_batch(["Hello world", ""]) == [[15496, 995], []]
print(m.embed("The dog chased the cat").tobytes().hex())' "$w") > "$work/python.txt" || fail "python import/use failed"
  sed 's/^/python: /' "$work/python.txt"

  # the program finds its catalogue and its drawing object where make install put them
  out=$(env -u LANGUAGE -u LC_ALL -u LANG "$prefix/bin/gpt2-embed" --lang ja --no-such-option 2>&1)
  [[ $out == *不明なオプション* ]] || fail "the installed program does not speak Japanese: $out"
  "$prefix/bin/gpt2-embed" plot pe --len 8 --dim 8 -o "$work/pe.png" || fail "the installed program cannot draw"
  [ "$(head -c 8 "$work/pe.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "pe.png is not a PNG"

  mk uninstall >/dev/null || fail "make uninstall failed"
  after=$(tree "$prefix")
  [ "$after" = "$skel" ] || fail "make uninstall did not leave $prefix as it was: $(diff <(echo "$skel") <(echo "$after") | head -n 8)"

  # a site directory Python does not search: make install says so, once; a user's weights
  out=$(install_built "$work/before-place2" PYTHONDIR="$prefix/elsewhere/site-packages" 2>&1) ||
    fail "${out##*$'\n'}"
  [ "$(grep -c 'PYTHONPATH' <<<"$out")" = 1 ] || fail "make install's note on PYTHONPATH, not once: $out"
  grep 'PYTHONPATH' <<<"$out" | sed 's/^/install said: /'
  mkdir -p "$prefix/share/gpt2-embed/weights"
  echo mine > "$prefix/share/gpt2-embed/weights/gpt2.safetensors"
  mk PYTHONDIR="$prefix/elsewhere/site-packages" uninstall >/dev/null || fail "make uninstall failed"
  [ "$(cat "$prefix/share/gpt2-embed/weights/gpt2.safetensors")" = mine ] || fail "uninstall removed the user's weights"
  rm -r "$prefix/share/gpt2-embed/weights"
  rmdir "$prefix/share/gpt2-embed" || fail "make uninstall left more than the user's weights in the data directory"
  after=$(tree "$prefix")
  [ "$after" = "$skel" ] || fail "make uninstall left: $(diff <(echo "$skel") <(echo "$after") | head -n 8)"
}

step=${1:-}; shift
case $step in
place)
  src=$1 b=$2 work=$3
  config
  mkdir -p "$work"
  place "$4"
  ;;
stage)
  src=$1 b=$2 stage=$3
  config
  before=$(snapshot "$prefix")
  out=$(install_built "$stage.before" DESTDIR="$stage" 2>&1) || fail "${out##*$'\n'}"
  for f in $FILES; do [ -e "$stage$prefix/$f" ] || fail "not staged: $stage$prefix/$f"; done
  [ "$(snapshot "$prefix")" = "$before" ] || fail "the staged install changed $prefix"
  mk DESTDIR="$stage" uninstall >/dev/null || fail "staged uninstall failed"
  left=$(find "$stage" -mindepth 1 | head -n 5)
  [ -z "$left" ] || fail "the stage is not empty after uninstall: $left"
  [ "$(snapshot "$prefix")" = "$before" ] || fail "the staged uninstall changed $prefix"
  ;;
stamp)
  src=$1 work=$2
  o=src/lib/weights/locate.o
  sm() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SANITIZE -u WERROR make -s --no-print-directory -C "$src" \
           BUILDDIR="$work/b" SANITIZE= "$@" "$work/b/$o" >/dev/null || fail "make $* $o failed"; }
  sm PREFIX=/opt/one
  strings "$work/b/$o" | grep -qxF /opt/one/share/gpt2-embed || fail "$o does not carry /opt/one/share/gpt2-embed"
  sm PREFIX=/opt/two
  strings "$work/b/$o" | grep -qxF /opt/two/share/gpt2-embed || fail "a PREFIX change did not rebuild $o"
  strings "$work/b/$o" | grep -qF /opt/one && fail "$o still carries /opt/one"
  t=$(stat -c %y "$work/b/$o")
  sm PREFIX=/opt/two
  [ "$(stat -c %y "$work/b/$o")" = "$t" ] || fail "the same PREFIX rebuilt $o"
  ;;
*) fail "unknown step $step" ;;
esac
