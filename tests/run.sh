#!/bin/bash
# Runs every Criterion test binary given, each in turn, and closes with one total line
# "tests: N passed, N failed". Exit status 1 if any test failed or crashed.
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
[ -n "$bad" ] && echo "failing test binaries:$bad"
echo "tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
