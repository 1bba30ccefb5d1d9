// SPDX-License-Identifier: MIT
// peers.js — the tokenizers gpt2-embed is compared with, on the same corpus and in the same
// `make bench` run: npm tiktoken (its Rust core as WASM), tiktoken-node (tiktoken-rs, a
// native binding: one call on the whole text, and its multi-threaded encodeBatch over the
// lines), and Hugging Face tokenizers (native binding, GPT-2's BPE built from
// tokenizer/vocab.json + merges.txt with the byte-level pre-tokenizer). Every peer's IDs are
// checked against tiktoken's published sha256 (space-separated IDs and a newline) or count.
//   node bench/peers.js CORPUS TOKENIZER_DIR RUNS     (NODE_PATH: where the packages are)
// A package that cannot be loaded is reported as skipped, not failed.
"use strict";
const fs = require("fs");
const crypto = require("crypto");

const [file, tokdir, runsArg] = process.argv.slice(2);
const text = fs.readFileSync(file, "utf8");
const bytes = Buffer.byteLength(text, "utf8");
const runs = Number(runsArg || 3);
const WANT_SHA = "a32e6decd62653603120d455d94ad9ca3021ac9f021a2977d913d98aa0c55603";
const WANT_N = 5094173;

function sha(ids) {
  return crypto.createHash("sha256").update(ids.join(" ") + "\n").digest("hex");
}

async function time(fn) {
  const t = [];
  let out;
  for (let r = 0; r < runs; r++) {
    const t0 = process.hrtime.bigint();
    out = await fn();
    t.push(Number(process.hrtime.bigint() - t0) / 1e9);
  }
  t.sort((a, b) => a - b);
  return { med: t[Math.floor(runs / 2)], out };
}

function report(name, med, ids, flat) {
  const n = flat ? ids.length : ids.reduce((s, v) => s + v.length, 0);
  const exact = flat ? (sha(ids) === WANT_SHA ? "IDs identical to tiktoken" : "IDs DIFFER from tiktoken")
                     : `${n} tokens over the lines`;
  console.log(`  ${name}: ${(bytes / med / 1e6).toFixed(1)} MB/s (${(n / med / 1e6).toFixed(2)} M tokens/s), ` +
              `median of ${runs}; ${exact}`);
  console.log(`PEER\t${name}\t${(bytes / med / 1e6).toFixed(2)}`);
}

function load(name) {
  try {
    return require(name);
  } catch (e) {
    console.log(`  ${name}: skipped (not installed: make bench-peers)`);
    return null;
  }
}

async function main() {
  const lines = text.split("\n").map((l, i, a) => (i + 1 < a.length ? l + "\n" : l)).filter((l) => l.length);
  const tk = load("tiktoken");
  if (tk) {
    const enc = tk.get_encoding("gpt2");
    const { med, out } = await time(() => Array.from(enc.encode_ordinary(text)));
    report("tiktoken 1.0.22 (npm, WASM), one call", med, out, true);
    enc.free();
  }
  const tn = load("tiktoken-node");
  if (tn) {
    const enc = tn.getEncoding("gpt2");
    let r = await time(() => enc.encode(text));
    report("tiktoken-node 0.0.7 (tiktoken-rs, native), one call", r.med, r.out, true);
    r = await time(() => enc.encodeBatch(lines));
    report("tiktoken-node encodeBatch (threads), one text per line", r.med, r.out, false);
  }
  const hf = load("tokenizers");
  if (hf) {
    const model = await hf.BPE.fromFile(`${tokdir}/vocab.json`, `${tokdir}/merges.txt`);
    const tok = new hf.Tokenizer(model);
    tok.setPreTokenizer(hf.byteLevelPreTokenizer(false, true));
    const { med, out } = await time(async () => (await tok.encode(text)).getIds());
    report("Hugging Face tokenizers 0.23 (native), one call", med, out, true);
  }
}

main().catch((e) => {
  console.log(`  peers: ${e.message}`);
  process.exit(0);
});
