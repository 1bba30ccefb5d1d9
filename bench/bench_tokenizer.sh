#!/bin/bash
# bench_tokenizer.sh BUILD_DIR — cold start of the whole process against the 10 ms target:
# `gpt2-embed tokenize --format ids "Hello world"`, median wall time by hyperfine, for the
# program in the repository (tokenizer/ beside it: files mapped and hashed, compiled form
# used) and the one in BUILD_DIR (no tokenizer/ beside it: the compiled-in copy). Then,
# when node and the npm package tiktoken are found (NODE_PATH), tiktoken's throughput on the
# same corpus for comparison; without them that part is skipped, not failed.
set -u
b=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
rc=0
echo "cold start, median of 200 runs (hyperfine), target <= 10 ms:"
if ! command -v hyperfine >/dev/null; then
  echo "  hyperfine not installed (tools/install-deps.sh installs it)"; exit 1
fi
for exe in "$root/gpt2-embed" "$root/$b/gpt2-embed"; do
  [ -x "$exe" ] || continue
  json=$(mktemp)
  hyperfine -N --warmup 20 --runs 200 --export-json "$json" \
    "$exe tokenize --format ids \"Hello world\"" >/dev/null 2>&1 || { echo "  hyperfine failed on $exe"; rc=1; rm -f "$json"; continue; }
  python3 - "$json" "$exe" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
med = r["median"] * 1e3
src = "tokenizer/ beside it" if sys.argv[2].count("/build") == 0 else "compiled-in data"
print(f"  {sys.argv[2]} ({src}): median {med:.2f} ms, mean {r['mean']*1e3:.2f} ms, "
      f"min {r['min']*1e3:.2f} ms: {'met' if med <= 10 else 'NOT MET'}")
sys.exit(0 if med <= 10 else 1)
PY
  [ $? -eq 0 ] || rc=1
  rm -f "$json"
done
if command -v node >/dev/null && node -e 'require("tiktoken")' 2>/dev/null; then
  tmp=$(mktemp)
  gzip -dc "$root/bench/data/corpus.txt.gz" > "$tmp"
  echo "for comparison, on the same corpus:"
  node "$root/bench/tiktoken_peer.js" "$tmp" 3 || true
  rm -f "$tmp"
else
  echo "tiktoken comparison skipped (set NODE_PATH to a node_modules holding the npm package tiktoken)"
fi
exit $rc
