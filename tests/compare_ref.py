# SPDX-License-Identifier: MIT
# compare_ref.py — the independent reference for `gpt2-embed compare --format json`: reads the
# safetensors file with numpy alone and recomputes what the command reports from the IDs it
# printed: the multiset test, the bag means (np.mean over the rows in ascending ID order, in
# float64, rounded once to float32: compared bit for bit with the JSON's float32 values), and
# the cosines of wte[a_t] vs wte[b_t] and of the summed inputs wte[id] + wpe[t] (float64).
#   python3 compare_ref.py WEIGHTS.safetensors OUT.json
# Prints "OK" when everything agrees, else what differs (exit 1).
import json
import struct
import sys

import numpy as np

path, out = sys.argv[1], sys.argv[2]
raw = open(path, "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
header = json.loads(raw[8:8 + n])


def load(name):
    t = header.get(name) or header["transformer." + name]
    begin, end = t["data_offsets"]
    assert t["dtype"] == "F32", "this reference reads F32 fixtures only"
    return np.frombuffer(raw[8 + n + begin:8 + n + end], "<f4").reshape(t["shape"])


wte, wpe = load("wte.weight"), load("wpe.weight")
got = json.load(open(out))
a, b = np.array(got["a"]["ids"]), np.array(got["b"]["ids"])
bad = []


def cos(x, y):
    x, y = x.astype(np.float64), y.astype(np.float64)
    return float(x @ y / (np.linalg.norm(x) * np.linalg.norm(y)))


def bag(ids):
    return np.mean(wte[np.sort(ids)].astype(np.float64), axis=0).astype(np.float32)


same = sorted(a.tolist()) == sorted(b.tolist())
if got["same_multiset"] != same:
    bad.append("same_multiset")
for key, ids in (("bag_a", a), ("bag_b", b)):
    mine = np.array(got[key], dtype=np.float32)
    if not np.array_equal(mine.view(np.uint32), bag(ids).view(np.uint32)):
        bad.append(key)
if got["bags_identical"] != bool(np.array_equal(bag(a).view(np.uint32), bag(b).view(np.uint32))):
    bad.append("bags_identical")
T = min(len(a), len(b))
xa, xb = wte[a[:T]] + wpe[:T], wte[b[:T]] + wpe[:T]
for t in range(T):
    if abs(got["token_cos"][t] - cos(wte[a[t]], wte[b[t]])) > 1e-12:
        bad.append("token_cos[%d]" % t)
    if abs(got["input_cos"][t] - cos(xa[t], xb[t])) > 1e-12:
        bad.append("input_cos[%d]" % t)
differ = int(sum(not np.array_equal(xa[t], xb[t]) for t in range(T)))
if got["positions_differ"] != differ:
    bad.append("positions_differ %d vs %d" % (got["positions_differ"], differ))
print("OK" if not bad else "DIFFER " + " ".join(bad))
sys.exit(1 if bad else 0)
