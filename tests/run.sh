#!/bin/bash
# SPDX-License-Identifier: MIT
# Runs every Criterion test binary given, each in turn, then (when $G2E_PYTEST names a
# directory) the Python tests there with Debian's pytest, and closes with one total line
# "tests: N passed, N failed". Exit status 1 if any test failed or crashed, or if pytest
# ran no test at all (its exit status 5) or could not run.
set -u
# The program speaks the user's language (i18n.c): the tests expect English messages unless
# they choose Japanese themselves (tests/test_i18n.c), whatever the developer's locale.
unset LANGUAGE LC_MESSAGES
export LC_ALL=C.UTF-8
b=$1; shift
mkdir -p "$b/tmp"
pass=0; fail=0; bad=""
for t in "$@"; do
  echo "== $(basename "$t")"
  out=$("$t" --jobs 1 2>&1); rc=$?
  printf '%s\n' "$out" | grep -v '^\[----\]' | tail -n 40
  syn=$(printf '%s\n' "$out" | grep 'Synthesis:' | tail -n 1)
  p=$(sed -n 's/.*Passing: \([0-9]*\).*/\1/p' <<<"$syn"); p=${p:-0}
  f=$(sed -n 's/.*Failing: \([0-9]*\).*/\1/p' <<<"$syn"); f=${f:-0}
  c=$(sed -n 's/.*Crashing: \([0-9]*\).*/\1/p' <<<"$syn"); c=${c:-0}
  pass=$((pass + p)); fail=$((fail + f + c))
  if [ "$rc" -ne 0 ] || [ -z "$syn" ]; then
    bad="$bad $(basename "$t")"
    [ "$f" -eq 0 ] && [ "$c" -eq 0 ] && fail=$((fail + 1))
  fi
done

if [ -n "${G2E_PYTEST:-}" ]; then
  echo "== pytest $G2E_PYTEST"
  lib="$(cd "$b" && pwd)/libgpt2embed.so"
  pre=""
  # An ASan/UBSan-built library can only be loaded into Python with its runtimes preloaded.
  for rt in $(ldd "$lib" 2>/dev/null | awk '/lib(asan|ubsan)\.so/ {print $3}'); do pre="$pre:$rt"; done
  out=$(cd "$(dirname "$0")/.." && G2E_BUILD="$(dirname "$lib")" GPT2EMBED_LIBRARY="$lib" \
        LD_PRELOAD="${pre#:}" ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
        PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 -m pytest -q -p no:cacheprovider -rfEs "$G2E_PYTEST" 2>&1)
  rc=$?
  printf '%s\n' "$out" | tail -n 40
  last=$(printf '%s\n' "$out" | grep -E '^[=]* ?[0-9]+ (passed|failed|error|skipped)|no tests ran' | tail -n 1)
  p=$(grep -oE '[0-9]+ passed' <<<"$last" | grep -oE '[0-9]+'); p=${p:-0}
  f=$(grep -oE '[0-9]+ (failed|errors?)' <<<"$last" | awk '{s += $1} END {print s + 0}')
  s=$(grep -oE '[0-9]+ skipped' <<<"$last" | grep -oE '[0-9]+'); s=${s:-0}
  # a skipped Python test is a check that did not run: counted as a failure
  pass=$((pass + p)); fail=$((fail + f + s))
  if [ "$rc" -ne 0 ] || [ -z "$last" ]; then
    bad="$bad pytest(exit $rc)"
    [ "$f" -eq 0 ] && [ "$s" -eq 0 ] && fail=$((fail + 1))
  fi
fi
[ -n "$bad" ] && echo "failing test binaries:$bad"
echo "tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
