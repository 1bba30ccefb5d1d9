# SPDX-License-Identifier: MIT
# rows_out_ref.py — the independent reference for tests/test_rows_out.c: reads the safetensors
# file with numpy alone, builds what the rows must be (wte[ids] + wpe[positions], windows of W
# tokens every S, each from position 0, the last padded with zero rows; parts = token,
# position, sum) and compares an npy, raw, json or csv file written by rows_write with it.
#   python3 rows_out_ref.py WEIGHTS OUT FORMAT "ID ..." START WINDOW STRIDE PARTS(0|1)
# Prints "EQUAL True" when every value (npy/raw: every bit and the shape) agrees.
import csv
import json
import struct
import sys

import numpy as np

path, out, fmt = sys.argv[1], sys.argv[2], sys.argv[3]
ids = [int(x) for x in sys.argv[4].split()]
start, W, S, parts = int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7]), sys.argv[8] == "1"
raw = open(path, "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
header = json.loads(raw[8:8 + n])


def load(name):
    t = header[name]
    b, e = t["data_offsets"]
    assert t["dtype"] == "F32"
    return np.frombuffer(raw[8 + n + b:8 + n + e], "<f4").reshape(t["shape"])


wte, wpe = load("wte.weight"), load("wpe.weight")
C = wte.shape[1]
T = len(ids)
if W:   # windows: starts 0, S, 2S, ... until one reaches the end
    starts = [0]
    while starts[-1] + W < T:
        starts.append(starts[-1] + S)
    win = []
    for s in starts:
        tok = np.zeros((W, C), np.float32)
        pos = np.zeros((W, C), np.float32)
        k = min(W, T - s)
        tok[:k] = wte[ids[s:s + k]]
        pos[:k] = wpe[np.arange(k)]
        win.append((tok, pos, k))
    token = np.stack([w[0] for w in win])
    position = np.stack([w[1] for w in win])
    total = token + position   # padding: 0 + 0
    real = [w[2] for w in win]
else:
    token = wte[ids]
    position = wpe[np.arange(start, start + T)]
    total = token + position
want = np.stack([token, position, total]) if parts else total
ok = True
if fmt in ("npy", "raw"):
    got = np.load(out) if fmt == "npy" else np.fromfile(out, "<f4").reshape(want.shape)
    ok = got.dtype == np.float32 and got.shape == want.shape and \
        got.tobytes() == want.astype("<f4").tobytes()
elif fmt == "json":
    d = json.load(open(out))
    ok = d["n_tokens"] == T and d["model"]["n_embd"] == C
    groups = [w["tokens"] for w in d["windows"]] if W else [d["tokens"]]
    tw = token if W else token[None]
    pw = position if W else position[None]
    for g, toks in enumerate(groups):
        for r, o in enumerate(toks):
            pad = bool(W) and r >= real[g]
            ok &= o.get("padding", False) == pad
            ok &= o["pos"] == (r if W else start + r)
            ok &= np.array_equal(np.array(o["vector"], np.float32), tw[g][r] + pw[g][r])
            if parts and not pad:
                ok &= np.array_equal(np.array(o["token_vector"], np.float32), tw[g][r])
                ok &= np.array_equal(np.array(o["position_vector"], np.float32), pw[g][r])
            if not pad:
                ok &= o["id"] == ids[(starts[g] if W else 0) + r]
elif fmt == "csv":
    rows = list(csv.reader(open(out, newline="")))
    head, body = rows[0], rows[1:]
    first = head.index("c0")
    ok = head[first:] == ["c%d" % c for c in range(C)]
    flat = want.reshape(-1, C) if not parts else None
    if parts:   # csv: per row, the parts one after another
        flat = np.moveaxis(want.reshape(3, -1, C), 0, 1).reshape(-1, C)
    ok &= len(body) == flat.shape[0]
    for r, line in enumerate(body):
        ok &= np.array_equal(np.array([float(x) for x in line[first:]], np.float32), flat[r])
print("EQUAL", bool(ok))
