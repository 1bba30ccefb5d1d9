#!/bin/bash
# SPDX-License-Identifier: MIT
# bench_corpus.sh BUILD_DIR — preparing a training corpus (issue 25), in one run:
#   1. a generated text of about 2 GB (the corpus repeated 151 times, in BUILD_DIR/tmp, not in
#      git, made once) through `tokenize --format llmc --doc-sep '\n' --shard-tokens 100000000`
#      from a pipe: MB/s, peak RSS (GNU time), the shards checked as llm.c's dataloader checks
#      them and their tokens counted;
#   2. the same job the reference way on the corpus itself (13 MB: npm tiktoken takes about
#      100 s for it here, a line at a time as llm.c's scripts call tiktoken per document):
#      MB/s against gpt2-embed's on the same text as a ratio, and both files compared byte
#      for byte.
# The machine may be shared: read the figures with the load average printed.
set -u
b=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/$b/gpt2-embed
tmp=$root/$b/tmp
mkdir -p "$tmp"
rc=0
corpus=$tmp/corpus.txt big=$tmp/corpus-2g.txt slice=$tmp/corpus.txt
[ -s "$corpus" ] || gzip -dc "$root/bench/data/corpus.txt.gz" > "$corpus"
if [ ! -s "$big" ]; then
  for _ in $(seq 151); do cat "$corpus"; done > "$big.tmp" && mv "$big.tmp" "$big"
fi
bytes=$(stat -c %s "$big")
out=$tmp/corpus-shards
rm -rf "$out" && mkdir -p "$out"
echo "corpus path: $bytes bytes through a pipe, --format llmc --doc-sep '\\n' --shard-tokens 100000000," \
     "$(nproc) threads; load average $(cut -d' ' -f1-3 /proc/loadavg)"
t0=$(date +%s%N)
cat "$big" | /usr/bin/time -f '%M' -o "$tmp/corpus-rss" "$bin" tokenize --special text --format llmc \
    --doc-sep '\n' --shard-tokens 100000000 -o "$out/train.bin" - 2> "$tmp/corpus-notes" || rc=1
t1=$(date +%s%N)
secs=$(python3 -c "print(($t1 - $t0) / 1e9)")
python3 - "$out" "$bytes" "$secs" "$(tail -1 "$tmp/corpus-rss")" <<'PY' || rc=1
import glob, os, struct, sys
out, n, secs, rss = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
tokens = 0
files = sorted(glob.glob(out + "/train_*.bin"))
for f in files:  # llm.c's dataloader checks
    h = struct.unpack("<3i", open(f, "rb").read(12))
    assert h[0] == 20240520 and h[1] == 1 and h[2] > 0, (f, h)
    assert os.path.getsize(f) == 1024 + 2 * h[2], f
    tokens += h[2]
print(f"  gpt2-embed: {n / secs / 1e6:.1f} MB/s ({tokens / secs / 1e6:.2f} M tokens/s), {secs:.1f} s, "
      f"peak RSS {rss / 1024:.1f} MB, {len(files)} shards of at most 100 M tokens, {tokens} tokens; "
      "each shard passes llm.c's header and size checks")
PY
rm -rf "$out"
# the reference way, on the slice, and gpt2-embed on the same slice
peers=$root/build/npm/node_modules
if command -v node >/dev/null && [ -d "$peers/tiktoken" ]; then
  sb=$(stat -c %s "$slice")
  t0=$(date +%s%N)
  "$bin" tokenize --special text --format llmc --doc-sep '\n' -f "$slice" -o "$tmp/slice-g2e.bin" || rc=1
  t1=$(date +%s%N)
  ours=$(python3 -c "print(($t1 - $t0) / 1e9)")
  peer=$(NODE_PATH=$peers /usr/bin/time -f '%M' -o "$tmp/peer-rss" node "$root/bench/peer_llmc.js" "$slice" \
         "$tmp/slice-peer.bin" | awk '/^PEERLLMC/ {print $2}')
  same=$(cmp -s "$tmp/slice-g2e.bin" "$tmp/slice-peer.bin" && echo "identical files" || echo "FILES DIFFER")
  [ "$same" = "identical files" ] || rc=1
  python3 -c "
sb, ours, peer, rss = $sb, $ours, ${peer:-0}, $(tail -1 "$tmp/peer-rss")
print(f'  the same job on the corpus ({sb} bytes): gpt2-embed {sb / ours / 1e6:.1f} MB/s, npm tiktoken '
      f'(WASM) + uint16 {sb / peer / 1e6:.1f} MB/s (peak RSS {rss / 1024:.0f} MB): {peer / ours:.1f}x; $same')"
  rm -f "$tmp/slice-g2e.bin" "$tmp/slice-peer.bin"
else
  echo "  peer skipped: node or npm tiktoken missing (make bench-peers installs it into build/npm)"
fi
exit $rc
