#!/bin/bash
# SPDX-License-Identifier: MIT
# The test runner of `make test` and `make test-long`:
#
#   tests/run.sh [--long] BUILDDIR TEST_BINARY...
#
# Runs the Criterion binaries several at once ($G2E_TEST_JOBS at a time, default the number of
# CPUs, each binary also running that many of its own tests at once; under AddressSanitizer
# the square of it at a time, each one test at a time), and (when $G2E_PYTEST names a
# directory) the Python tests there with Debian's pytest alongside them. Without
# --long it runs every test but the long ones, with --long only those: a long test is one
# declared with LongTest (tests/support.h), whose name Criterion shows ending in "__long".
# The two runs share out every test, and each binary must run exactly the tests its --list
# names for its half: a test listed but not run counts as a failure, so none can go missing.
#
# Each binary's temporary files go to a directory of its own, BUILDDIR/tmp/NAME (NAME.long
# for --long; emptied before it runs, and removed after it unless it failed, which leaves
# them for a person to look at: a run holds little on the disk), its output to
# BUILDDIR/tmp/NAME.log. A passing binary gets one line; a failing one's output is shown
# whole. Closes with one line "tests: N passed, N failed"; exit status 1 if any test failed
# or crashed, a binary ran other than its listed tests, or pytest ran no test, skipped one
# (a check that did not run counts as a failure) or could not run.
set -u
# The program speaks the user's language (i18n.c): the tests expect English messages unless
# they choose Japanese themselves (tests/test_i18n.c), whatever the developer's locale.
unset LANGUAGE LC_MESSAGES
export LC_ALL=C.UTF-8
long=0
if [ "${1:-}" = --long ]; then long=1; shift; fi
b=$1; shift
jobs=${G2E_TEST_JOBS:-$(nproc)}
case $jobs in '' | *[!0-9]* | 0) echo "run.sh: G2E_TEST_JOBS must be a positive number" >&2; exit 2 ;; esac
# Criterion's own runner, built with AddressSanitizer, leaks a few bytes (inside libcriterion)
# when it runs tests with time limits at once, and the leak check fails the binary: there each
# binary runs its tests one at a time, and as many more binaries run at once.
cjobs=$jobs slots=$jobs
if ldd "$b/gpt2-embed" 2>/dev/null | grep -q 'libasan'; then cjobs=1 slots=$((jobs * jobs)); fi
if [ $long = 1 ]; then filter='*__long' sfx=.long; else filter='!(*__long)' sfx=; fi
tmp="$(cd "$b" && pwd)/tmp"
mkdir -p "$tmp"
# Seconds each binary took last time: the longest start first (a new one counts as long).
times="$tmp/durations$sfx"
touch "$times"

pass=0 fail=0 skip=0 bad=""
declare -A name_of=() want_of=() t0_of=()
trap 'kill $(jobs -p) 2>/dev/null; exit 130' INT TERM

# The number of tests a binary's --list names for this run's half (Criterion's --list:
# "suite: N tests" then one "├── name" or "└── name" line per test).
listed() {
  awk -v long=$long '/^(├|└)── / { n = $2; l = (n ~ /__long$/); if (l == long) c++ } END { print c + 0 }'
}

start() {   # start BINARY in the background
  local t=$1 n want list
  n=$(basename "$t")$sfx
  if ! list=$("$t" --list 2>&1); then   # a binary that cannot even list its tests has failed
    fail=$((fail + 1)) bad="$bad $n"
    printf -- '---- %s: cannot list its tests:\n%s\n---- end of %s\n' "$n" "$list" "$n"
    return
  fi
  want=$(listed <<<"$list")
  if [ "$want" -eq 0 ]; then return; fi
  rm -rf "${tmp:?}/$n"
  mkdir -p "$tmp/$n"
  G2E_TEST_TMPDIR="$tmp/$n" "$t" --jobs "$cjobs" --filter "$filter" --verbose >"$tmp/$n.log" 2>&1 &
  name_of[$!]=$n want_of[$!]=$want t0_of[$!]=$(date +%s%N)
}

start_pytest() {
  local lib pre="" rt
  lib="$(cd "$b" && pwd)/libgpt2embed.so"
  # An ASan/UBSan-built library can only be loaded into Python with its runtimes preloaded.
  for rt in $(ldd "$lib" 2>/dev/null | awk '/lib(asan|ubsan)\.so/ {print $3}'); do pre="$pre:$rt"; done
  rm -rf "$tmp/pytest"
  (cd "$(dirname "$0")/.." && G2E_BUILD="$(dirname "$lib")" GPT2EMBED_LIBRARY="$lib" \
     LD_PRELOAD="${pre#:}" ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
     PYTHONDONTWRITEBYTECODE=1 exec /usr/bin/python3 -m pytest -q -p no:cacheprovider -rfEs \
     --basetemp="$tmp/pytest" "$G2E_PYTEST") >"$tmp/pytest$sfx.log" 2>&1 &
  name_of[$!]=pytest$sfx want_of[$!]=pytest t0_of[$!]=$(date +%s%N)
}

skipped() { grep '^\[SKIP\] ' "$1" | grep -v ': Test is disabled$'; }

# Reads the log of a finished job; adds to the totals; prints its line (or its whole log).
finish() {
  local pid=$1 rc=$2 n=${name_of[$1]} want=${want_of[$1]} log p f c s=0 syn last why=""
  local secs=$(( ($(date +%s%N) - ${t0_of[$1]}) / 10000000 ))
  secs=$((secs / 100)).$(printf '%02d' $((secs % 100)))
  log="$tmp/$n.log"
  if [ "$want" = pytest ]; then
    last=$(grep -E '^[=]* ?[0-9]+ (passed|failed|error|skipped)|no tests ran' "$log" | tail -n 1)
    p=$(grep -oE '[0-9]+ passed' <<<"$last" | grep -oE '[0-9]+'); p=${p:-0}
    f=$(grep -oE '[0-9]+ (failed|errors?)' <<<"$last" | awk '{s += $1} END {print s + 0}')
    s=$(grep -oE '[0-9]+ skipped' <<<"$last" | grep -oE '[0-9]+'); s=${s:-0}
    f=$((f + s)) s=0   # a skipped Python test is a check that did not run: counted as a failure
    if [ "$rc" -ne 0 ] || [ -z "$last" ]; then why="pytest exit $rc"; [ "$f" -eq 0 ] && f=1; fi
  else
    syn=$(grep 'Synthesis:' "$log" | tail -n 1)
    p=$(sed -n 's/.*Passing: \([0-9]*\).*/\1/p' <<<"$syn"); p=${p:-0}
    f=$(sed -n 's/.*Failing: \([0-9]*\).*/\1/p' <<<"$syn"); f=${f:-0}
    c=$(sed -n 's/.*Crashing: \([0-9]*\).*/\1/p' <<<"$syn"); c=${c:-0}   # among the failing
    [ "$c" = 0 ] || why="$c crashed"
    # a test that skips itself (cr_skip_test: a check this build cannot make, said in its
    # [SKIP] line) is neither passed nor failed, but counts as run; the other half's tests
    # are "disabled" by --filter
    s=$(skipped "$log" | wc -l)
    if [ -z "$syn" ]; then why="no synthesis (exit $rc)"
    elif [ "$rc" -ne 0 ]; then why="exit $rc${why:+, $why}"
    elif [ $((p + f + s)) -ne "$want" ]; then why="ran $((p + f + s)) of its $want listed tests"
    fi
    # a binary that failed without a failing test, or ran fewer than it lists, counts the
    # tests it did not report as failed
    if [ -n "$why" ] && [ $((p + f + s)) -lt "$want" ]; then f=$((want - p - s)); fi
    if [ -n "$why" ] && [ "$f" -eq 0 ]; then f=1; fi
  fi
  pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
  if [ "$f" -eq 0 ]; then
    rm -rf "${tmp:?}/$n"   # (pytest runs only without --long: its n is its directory's name)
    if [ "$s" = 0 ]; then
      printf '  ok   %-24s %4d passed %7s s\n' "$n" "$p" "$secs"
    else
      printf '  ok   %-24s %4d passed %7s s, %d skipped:\n' "$n" "$p" "$secs" "$s"
      skipped "$log" | sed 's/^/       /'
    fi
  else
    bad="$bad $n"
    echo "---- $n: $p passed, $f failed${why:+ ($why)}, $secs s; its output but the [RUN ], [PASS] and filtered-out lines ($log):"
    grep -v '^\[\(RUN \|PASS\)\] \|: Test is disabled$' "$log"
    echo "---- end of $n"
  fi
  { awk -v n="$n" '$1 != n' "$times"; echo "$n ${secs%.*}"; } >"$times.new" && mv "$times.new" "$times"
}

running=0
reap() {
  local pid
  wait -n -p pid; local rc=$?
  [ -n "${pid:-}" ] || return
  finish "$pid" "$rc"
  running=$((running - 1))
}

if [ -n "${G2E_PYTEST:-}" ] && [ $long = 0 ]; then start_pytest; running=1; fi
# longest first: by last time's seconds, unknown ones first, then by name
order=$(for t in "$@"; do
          n=$(basename "$t")$sfx
          s=$(awk -v n="$n" '$1 == n { print $2 }' "$times"); echo "${s:-999999} $t"
        done | sort -k1,1nr -k2,2 | cut -d' ' -f2-)
for t in $order; do
  while [ "$running" -ge "$slots" ]; do reap; done
  before=${#name_of[@]}
  start "$t"
  [ ${#name_of[@]} -gt "$before" ] && running=$((running + 1))
done
while [ "$running" -gt 0 ]; do reap; done

[ -n "$bad" ] && echo "failing:$bad"
[ "$skip" = 0 ] || echo "skipped (not counted): $skip"
echo "tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
