// SPDX-License-Identifier: MIT
// peer_llmc.js — the reference way to make llm.c's .bin, for bench_corpus.sh: what llm.c's
// dev/data scripts do with tiktoken, here with npm tiktoken (its Rust core as WASM): each
// line a document, encode_ordinary, <|endoftext|> before it, uint16 tokens after a header of
// 256 int32 (20240520, 1, count). Prints "PEERLLMC <seconds> <tokens>".
//   node bench/peer_llmc.js TEXT OUT.bin        (NODE_PATH: where the packages are)
"use strict";
const fs = require("fs");

const [file, out] = process.argv.slice(2);
const t0 = process.hrtime.bigint();
const enc = require("tiktoken").get_encoding("gpt2");
const docs = fs.readFileSync(file, "utf8").split("\n");
if (docs.length && docs[docs.length - 1] === "") docs.pop(); // (a last newline ends a line)
const parts = [];
let n = 0;
for (const d of docs) {
  const ids = enc.encode_ordinary(d);
  parts.push(ids);
  n += ids.length + 1;
}
const toks = new Uint16Array(n);
let at = 0;
for (const ids of parts) {
  toks[at++] = 50256;
  toks.set(ids, at);
  at += ids.length;
}
const header = new Int32Array(256);
header[0] = 20240520;
header[1] = 1;
header[2] = n;
const fd = fs.openSync(out, "w");
fs.writeSync(fd, new Uint8Array(header.buffer));
fs.writeSync(fd, new Uint8Array(toks.buffer));
fs.closeSync(fd);
enc.free();
console.log(`PEERLLMC ${(Number(process.hrtime.bigint() - t0) / 1e9).toFixed(3)} ${n}`);
