#!/bin/bash
# SPDX-License-Identifier: MIT
# Cold-start and memory targets of the main job (issue #4; the tokenizer's own cold start is
# in bench_tokenizer.sh):
#   gpt2-embed "Hello world" on the full-shape 548 MB file: <= 10 ms wall, median
#   a 1024-token input: peak resident memory <= 16 MB beyond the output (written to a file)
# Whole processes, medians of 41 runs after 5 warm-up runs (hyperfine), shared machine.
set -eu
b=$1
bin=$b/gpt2-embed
tmp=$b/tmp
mkdir -p "$tmp"
full=$tmp/bench-full-gpt2.safetensors
[ -f "$full" ] || "$b/mkfixture" "$full" --shape gpt2 --sparse --full-layout >/dev/null
median() {  # hyperfine JSON -> median in ms
  /usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print("%.2f" % (r["median"]*1000))' "$1"
}
run() {  # name, target ms, command...
  local name=$1 target=$2; shift 2
  hyperfine -N --warmup 5 --runs 41 --export-json "$tmp/hf.json" "$*" >/dev/null 2>&1
  local m; m=$(median "$tmp/hf.json")
  local verdict; verdict=$(awk -v m="$m" -v t="$target" 'BEGIN { print (m <= t) ? "MET" : "MISSED" }')
  echo "$name: median $m ms over 41 runs (target <= $target ms) $verdict"
}
run "cold start, embed 'Hello world', 548 MB full-shape file" 10 "$bin --weights $full 'Hello world'"
run "peer in the same run: /bin/true" 10 "/bin/true"
words=$tmp/words1024.txt
/usr/bin/python3 -c "import sys; sys.stdout.write('word' + ' word' * 1023)" > "$words"
base=$(/usr/bin/time -f %M "$bin" --weights "$full" "x" --format npy -o "$tmp/one.npy" 2>&1 >/dev/null | tail -1)
peak=$(/usr/bin/time -f %M "$bin" --weights "$full" -f "$words" --format npy -o "$tmp/w.npy" 2>&1 >/dev/null | tail -1)
out=$(stat -c %s "$tmp/w.npy")
echo "peak RSS, 1024 tokens -> npy file ($out bytes): $((peak / 1024)) MB for the whole process" \
     "($(((peak - base) / 1024)) MB more than for 1 token; target <= 16 MB beyond the output)" \
     "$( [ "$peak" -le 16384 ] && echo MET || echo MISSED)"
