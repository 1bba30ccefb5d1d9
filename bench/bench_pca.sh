#!/bin/bash
# SPDX-License-Identifier: MIT
# Principal components (issue 12): `gpt2-embed pca` of gpt2's 1024 x 768 wpe <= 150 ms, median,
# whole process (open the file, read wpe, centre, covariance, eigenvalues, print the table).
# Peers in the same run: `stats --by-position` (the same file and wpe read, no PCA) and the same
# pca forced onto Debian's reference BLAS/LAPACK (LD_LIBRARY_PATH), to show what the optimised
# BLAS buys. hyperfine, 21 runs after 3 warm-ups; the machine is shared, so wall times are noisy.
set -eu
b=$1
bin=$b/gpt2-embed
tmp=$b/tmp
mkdir -p "$tmp"
emb=$tmp/bench-embeddings-gpt2.safetensors   # every row filled (the layout `download` writes)
[ -f "$emb" ] || "$b/mkfixture" "$emb" --vocab 50257 --ctx 1024 --embd 768 >/dev/null
ref="/usr/lib/x86_64-linux-gnu/lapack:/usr/lib/x86_64-linux-gnu/blas"
echo "LAPACK in use: $(readlink -f /usr/lib/x86_64-linux-gnu/liblapack.so.3)"
stat() {  # hyperfine JSON -> "median ms (user+sys ms)"
  /usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]
print("%.1f ms (CPU %.1f ms)" % (r["median"]*1000, (r["user"]+r["system"])*1000))' "$1"
}
run() {  # name, target ms (0: none), command...
  local name=$1 target=$2; shift 2
  hyperfine -N --warmup 3 --runs 21 --export-json "$tmp/hf-pca.json" "$*" >/dev/null 2>&1
  local s; s=$(stat "$tmp/hf-pca.json")
  local m=${s%% ms*}
  if [ "$target" = 0 ]; then echo "$name: median $s"; else
    echo "$name: median $s, target <= $target ms $(awk -v m="$m" -v t="$target" 'BEGIN { print (m <= t) ? "MET" : "MISSED" }')"
  fi
}
run "pca of wpe (1024 x 768), whole process" 150 "$bin pca --weights $emb"
run "peer: stats --by-position (same file, no PCA)" 0 "$bin stats --by-position --weights $emb"
run "peer: pca of the sinusoidal PE 1024 x 768 (no file)" 0 "$bin pca --of sinusoidal"
run "peer: pca of wpe on the reference BLAS/LAPACK" 0 "env LD_LIBRARY_PATH=$ref $bin pca --weights $emb"
