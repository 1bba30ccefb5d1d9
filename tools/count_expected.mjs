// count_expected.mjs — makes tests/data/count_expected.json, the reference values that
// tests/test_count_cli.c checks `gpt2-embed count` against. Run once by hand (it is not
// part of the build or the tests):
//     npm install tiktoken@1.0.22 && node tools/count_expected.mjs > tests/data/count_expected.json
// Token counts come from tiktoken's gpt2 encoding (<|endoftext|> as the special token, as
// `count` treats it); bytes, characters, lines and columns are computed here from the UTF-8
// bytes, independently of the C code. For each context size N it records where the N-th
// token ends: its byte offset, the characters wholly before it, whether it falls inside a
// character, and the 1-based line and column of the first character not wholly inside.
// The boundary texts are prefixes of count_ja.txt topped up with " 1" to exactly 1024 and
// 1025 tokens (found by search, verified by re-encoding; their text is recorded).
import { readFileSync } from "fs";
import { get_encoding } from "tiktoken";

const enc = get_encoding("gpt2");
const ids = (s) => Array.from(enc.encode(s, "all"));
const utf8 = (s) => Buffer.from(s, "utf8");

function cutAt(buf, toks, n) {
  let b = 0;
  for (let i = 0; i < n; i++) b += enc.decode_single_token_bytes(toks[i]).length;
  // characters wholly inside [0, b), and whether b splits one
  let chars = 0, line = 1, lineStartChar = 0, i = 0, inside = false;
  while (i < buf.length) {
    const c = buf[i];
    const k = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
    if (i + k > b) { inside = i < b; break; }
    chars++;
    if (c === 0x0a) { line++; lineStartChar = chars; }
    i += k;
  }
  return { byte: b, chars_before: chars, inside_char: inside, line, column: chars - lineStartChar + 1 };
}

function entry(name, text, ctxs) {
  const buf = utf8(text), toks = ids(text);
  const e = { name, bytes: buf.length, chars: [...text].length, tokens: toks.length, cuts: {} };
  for (const n of ctxs) if (toks.length > n) e.cuts[n] = cutAt(buf, toks, n);
  return e;
}

const dir = new URL("../tests/data/", import.meta.url);
const en = readFileSync(new URL("count_en.txt", dir), "utf8");
const ja = readFileSync(new URL("count_ja.txt", dir), "utf8");
const ctxs = [1024, 256, 100, 7];
const out = { tiktoken: "1.0.22", inputs: [] };
for (const [name, text] of [["pair_ja", "犬が猫を追いかけた"], ["pair_en", "The dog chased the cat"],
                            ["count_en.txt", en], ["count_ja.txt", ja],
                            ["endoftext", "a<|endoftext|>b"]])
  out.inputs.push(entry(name, text, ctxs));

// prefixes of ja (on character boundaries), topped up with " 1" (one token each: a space and
// a digit always start a new piece), with exactly 1024 and 1025 tokens
const chars = [...ja];
for (const want of [1024, 1025]) {
  let found = null;
  for (let n = chars.length; n > 0 && !found; n--) {
    const p = chars.slice(0, n).join(""), c = ids(p).length;
    if (c > want || c < want - 8) continue;
    const t = p + " 1".repeat(want - c);
    if (ids(t).length === want) found = t;
  }
  if (!found) throw new Error("no prefix with " + want + " tokens");
  const e = entry("ja_prefix_" + want, found, ctxs);
  e.text = found;
  out.inputs.push(e);
}
process.stdout.write(JSON.stringify(out, null, 1) + "\n");
enc.free();
