# SPDX-License-Identifier: MIT
# tokfile_ref.py — the independent reader for `tokenize`'s token files: numpy reads each file
# itself (np.load for .npy, np.fromfile for raw IDs, llm.c's .bin header as 256 int32 and its
# checks: magic 20240520, version 1, a positive count, the file's size), the files (shards in
# order) are concatenated and compared with the expected documents; with N > 0 the shards'
# sizes must be those of packing the documents greedily into shards of at most N tokens, a
# document never split unless it is longer than N (then it starts a shard and fills shards).
#   python3 tokfile_ref.py FMT[:EOT] N EXPECTED FILE...
#   FMT: npy | u16 | u32 | llmc; EOT: where <|endoftext|> is around each expected document,
#   before | after | none (default: before for llmc, none for the others);
#   EXPECTED: a .jsonl of {"ids": [...]} (one document per line),
#   sha256:HEX (one document: the sha256 of its IDs as "a b c\n"), or llmc-docs:FILE (the documents
#   of an unsharded llm.c file, each starting with <|endoftext|>)
# Prints "OK" or what differs.
import hashlib
import json
import os
import sys

import numpy as np

fmt, shard, expected, files = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
fmt, _, eot_at = fmt.partition(":")
eot_at = eot_at or ("before" if fmt == "llmc" else "none")
EOT = 50256


def read(path):
    if fmt == "npy":
        a = np.load(path)
        assert a.ndim == 1 and a.dtype == np.uint16, (a.ndim, a.dtype)
        return a
    if fmt in ("u16", "u32"):
        return np.fromfile(path, dtype="<u2" if fmt == "u16" else "<u4")
    h = np.fromfile(path, dtype="<i4", count=256)
    assert h[0] == 20240520, "magic %d" % h[0]
    assert h[1] == 1, "version %d" % h[1]
    assert h[2] > 0, "count %d" % h[2]
    assert not h[3:].any(), "the rest of the header is not zero"
    assert os.path.getsize(path) == 256 * 4 + int(h[2]) * 2, "size %d for %d tokens" % (os.path.getsize(path), h[2])
    return np.fromfile(path, dtype="<u2", offset=1024)


parts = [read(f) for f in files]
got = np.concatenate(parts) if parts else np.zeros(0, np.uint32)
if expected.startswith("sha256:"):
    toks = got[1:] if fmt == "llmc" else got
    if fmt == "llmc" and got[0] != EOT:
        sys.exit("the document does not start with <|endoftext|>")
    h = hashlib.sha256((" ".join(map(str, toks.tolist())) + "\n").encode()).hexdigest()
    print("OK" if h == expected[7:] else "sha256 %s, %d tokens" % (h, len(toks)))
    sys.exit(0)
if expected.startswith("llmc-docs:"):  # the documents of an unsharded llm.c file (split before each EOT)
    whole = np.fromfile(expected[10:], dtype="<u2", offset=1024).tolist()
    at = [i for i, t in enumerate(whole) if t == EOT] + [len(whole)]
    docs = [whole[a:b] for a, b in zip(at, at[1:])]
else:
    docs = [json.loads(line)["ids"] for line in open(expected, encoding="utf-8")]
    if eot_at == "before":
        docs = [[EOT] + d for d in docs]
    elif eot_at == "after":
        docs = [d + [EOT] for d in docs]
want = [t for d in docs for t in d]
if got.tolist() != want:
    first = next((i for i, (a, b) in enumerate(zip(got.tolist(), want)) if a != b), min(len(got), len(want)))
    sys.exit("%d tokens, want %d; first difference at %d" % (len(got), len(want), first))
if shard:
    sizes, cur = [], 0
    for d in docs:
        n = len(d)
        if cur and cur + n > shard:  # does not fit beside the others: a new shard
            sizes.append(cur)
            cur = 0
        while cur + n > shard:  # longer than a shard: fills shards
            sizes.append(shard)
            n -= shard - cur
            cur = 0
        cur += n
    if cur or not sizes:
        sizes.append(cur)
    if [len(p) for p in parts] != sizes:
        sys.exit("shard sizes %s, want %s" % ([len(p) for p in parts][:20], sizes[:20]))
print("OK")
