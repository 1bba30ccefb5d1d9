#!/bin/bash
# SPDX-License-Identifier: MIT
# Runs every benchmark binary under $1/bench (each prints its own figures: medians of
# several runs, and the machine), then bench/*.sh scripts. Figures go in README.md and
# doc/performance.md; bench/README.md says how they are measured and which run each is from.
set -u
b=$1
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(uname -sr)"
rc=0
for x in "$b"/bench/bench_*; do
  [ -x "$x" ] || continue
  [ "$(basename "$x")" = bench_tokenizer ] && continue  # run by bench_tokenizer.sh, beside the whole process
  echo "== $(basename "$x")"
  "$x" || rc=1
done
for s in bench/bench_*.sh; do
  [ -f "$s" ] || continue
  echo "== $(basename "$s")"
  bash "$s" "$b" || rc=1
done
exit $rc
