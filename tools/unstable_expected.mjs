// unstable_expected.mjs — makes tests/data/unstable_expected.jsonl, the reference values that
// tests/python/test_tiktoken_face.py checks Encoding.encode_with_unstable against. Run once by
// hand (it is not part of the build or the tests):
//     npm install tiktoken@1.0.22 && node tools/unstable_expected.mjs > tests/data/unstable_expected.jsonl
// The texts: every 6th of the conformance cases of up to 300 characters (tests/data), whole
// and cut at half their characters, and a few made here (white space, contractions and the
// special token at the end); each with tiktoken's stable tokens and, for its completions (a
// set of token sequences, often thousands), their count and the sha256 of the sequences
// sorted (numerically, element by element) and written "a,b;c,d".
import { readFileSync } from "fs";
import { createHash } from "crypto";
import { get_encoding } from "tiktoken";

const enc = get_encoding("gpt2");
const texts = [];
for (const f of ["tests/data/tokenizer_cases.jsonl", "tests/data/tokenizer_extra_cases.jsonl"]) {
  for (const line of readFileSync(f, "utf8").split("\n")) {
    if (!line) continue;
    const t = JSON.parse(line).text;
    if ([...t].length > 300) continue;
    texts.push([t, t.includes("<|endoftext|>")]);
    const cs = [...t];
    if (cs.length > 2) texts.push([cs.slice(0, cs.length >> 1).join(""), false]);
  }
}
const picked = texts.filter((_, i) => i % 6 === 0);
for (const t of ["hello fanta", "hello \n\n", "x  ", "   ", "", "don't", "he's  'll", "  's", "x?'s",
                 "tab\tend", "Hello world\n", "a\u3000b", "x\u2028", "3.14159", "naïve café"])
  picked.push([t, false]);
for (const t of ["a <|endoftext|>", "a <|endoftext|> b", "<|endoftext|>", "x<|endoftext|>y z"])
  picked.push([t, true]);
const lex = (a, b) => {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
};
for (const [t, allowed] of picked) {
  const [tokens, completions] = enc.encode_with_unstable(t, allowed ? "all" : [], []);
  const c = completions.map((x) => Array.from(x)).sort(lex);
  const sha256 = createHash("sha256").update(c.map((x) => x.join(",")).join(";")).digest("hex");
  console.log(JSON.stringify({ text: t, allowed_special: allowed, tokens: Array.from(tokens),
                               completions: c.length, sha256 }));
}
