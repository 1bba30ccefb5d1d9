#!/bin/bash
# SPDX-License-Identifier: MIT
# The report (issue 12): `gpt2-embed report` for gpt2 <= 5 s, median, whole process, on gpt2's
# embeddings-only file with every row filled (on the sparse full-shape fixture most wpe rows
# are zero and the cosine sections have nothing to show). Both forms: DIR/index.html with 12
# PNGs, and one self-contained FILE.html. hyperfine, 5 runs after 1 warm-up; shared machine.
set -eu
b=$1
bin=$b/gpt2-embed
tmp=$b/tmp
mkdir -p "$tmp"
emb=$tmp/bench-embeddings-gpt2.safetensors
[ -f "$emb" ] || "$b/mkfixture" "$emb" --vocab 50257 --ctx 1024 --embd 768 >/dev/null
stat() {
  /usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]
print("%.2f s (CPU %.2f s)" % (r["median"], r["user"]+r["system"]))' "$1"
}
run() {  # name, command...
  local name=$1; shift
  hyperfine -N --warmup 1 --runs 5 --export-json "$tmp/hf-rep.json" "$*" >/dev/null 2>&1
  local s; s=$(stat "$tmp/hf-rep.json")
  local m=${s%% s*}
  echo "$name: median $s, target <= 5 s $(awk -v m="$m" 'BEGIN { print (m <= 5) ? "MET" : "MISSED" }')"
}
run "report -o DIR (gpt2, 12 figures)" "$bin report --weights $emb -o $tmp/bench-report"
run "report -o FILE.html (self-contained)" "$bin report --weights $emb -o $tmp/bench-report.html"
