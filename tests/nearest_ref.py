# SPDX-License-Identifier: MIT
# nearest_ref.py — the independent reference for tests/test_nearest_out.c: cosines of every wte
# row of the safetensors file with row Q (numpy, float64), Q left out, best first; checks the
# JSON's ranks, IDs, cosines and exact bytes (GPT-2 IDs 0..93 are the bytes '!'..'~').
#   python3 nearest_ref.py WEIGHTS OUT.json Q K
import json
import struct
import sys

import numpy as np

path, out, q, k = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
raw = open(path, "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
t = json.loads(raw[8:8 + n])["wte.weight"]
b, e = t["data_offsets"]
wte = np.frombuffer(raw[8 + n + b:8 + n + e], "<f4").reshape(t["shape"]).astype(np.float64)
cos = wte @ wte[q] / (np.linalg.norm(wte, axis=1) * np.linalg.norm(wte[q]))
cos[q] = -np.inf
order = np.argsort(-cos, kind="stable")[:k]
d = json.load(open(out))
ok = d["k"] == k and len(d["nearest"]) == k
for i, h in enumerate(d["nearest"]):
    ok &= h["rank"] == i + 1 and h["id"] == int(order[i]) and abs(h["cos"] - cos[order[i]]) < 1e-12
    ok &= h["bytes"] == [33 + h["id"]] and h["utf8"] is True and h["piece"] == chr(33 + h["id"])
print("EQUAL", bool(ok))
