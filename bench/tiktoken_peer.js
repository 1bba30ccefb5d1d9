// tiktoken_peer.js — times npm tiktoken (its Rust core built to WASM), encoding "gpt2",
// encode_ordinary, on a file: the comparison figure for bench_tokenizer.sh. Optional: run
// only when node and the tiktoken package can be found (NODE_PATH).
//   node bench/tiktoken_peer.js FILE RUNS
const fs = require("fs");
const { get_encoding } = require("tiktoken");
const text = fs.readFileSync(process.argv[2], "utf8");
const bytes = Buffer.byteLength(text, "utf8");
const runs = Number(process.argv[3] || 3);
const enc = get_encoding("gpt2");
const times = [];
let n = 0;
for (let r = 0; r < runs; r++) {
  const t0 = process.hrtime.bigint();
  n = enc.encode_ordinary(text).length;
  times.push(Number(process.hrtime.bigint() - t0) / 1e9);
}
enc.free();
times.sort((a, b) => a - b);
const med = times[Math.floor(runs / 2)];
console.log(`  tiktoken (npm, WASM): ${(bytes / med / 1e6).toFixed(1)} MB/s, ${(n / med / 1e6).toFixed(2)} M tokens/s, ${n} tokens, median of ${runs}`);
