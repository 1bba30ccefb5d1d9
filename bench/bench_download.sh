#!/bin/bash
# SPDX-License-Identifier: MIT
# bench_download.sh — throughput of `gpt2-embed download` over loopback (no target in the
# issue: this measures the client, not a network). Serves a full-shape GPT-2-layout file
# (548 MB, every tensor written by tools/mkfixture) with tests/hub_server.py on 127.0.0.1 and times
# the embeddings-only download (157.5 MB + header) and --full (548 MB + sha256), 5 runs
# each, printing the medians. Usage: bench/bench_download.sh BUILD_DIR
set -euo pipefail
B=${1:-build}
BIN=${BIN:-"$PWD/$B/gpt2-embed"}   # BIN=... compares another build in the same run
RUNS=${RUNS:-5}
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-download.XXXXXX")
SRV=""
cleanup() { [ -n "$SRV" ] && kill "$SRV" 2>/dev/null; wait 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT

# gpt2's layout and shapes with every tensor written (tools/mkfixture, tests/fixture.c)
"$B/mkfixture" "$T/model.safetensors" --full-layout --layers 12 --vocab 50257 --ctx 1024 \
    --embd 768 --meta format=pt

coproc HUB { exec /usr/bin/python3 tests/hub_server.py --file "$T/model.safetensors" --lifetime 600; }
SRV=$HUB_PID
read -r -u "${HUB[0]}" HUB_PORT CDN_PORT
export HF_ENDPOINT="http://127.0.0.1:$HUB_PORT" NO_PROXY=127.0.0.1 HF_HUB_OFFLINE=
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy HF_TOKEN || true
export HF_HOME="$T/hf"

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
run() {   # run LABEL BYTES ARGS...: prints the median wall time and throughput
  local label=$1 bytes=$2; shift 2
  local times=()
  for _ in $(seq "$RUNS"); do
    rm -rf "$T/w"
    local t0 t1
    t0=$(date +%s.%N)
    "$BIN" download --dir "$T/w" --quiet "$@"
    t1=$(date +%s.%N)
    times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.4f", b - a}')")
  done
  local m
  m=$(printf '%s\n' "${times[@]}" | median)
  printf '%-34s median %6.2f s over %d runs  %7.1f MB/s\n' "$label" "$m" "$RUNS" \
    "$(awk -v n="$bytes" -v t="$m" 'BEGIN {print n / t / 1e6}')"
}
EMB=$(( 8 + $(od -An -t u8 -N 8 "$T/model.safetensors" | tr -d ' ') + 50257*768*4 + 1024*768*4 ))
FULL=$(stat -c %s "$T/model.safetensors")
echo "bench_download: loopback, no target (the issue sets none); times include verification"
run "embeddings only (157.5 MB)" "$EMB"
run "--full (548 MB, sha256 checked)" "$FULL" --full
