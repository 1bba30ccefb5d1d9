# SPDX-License-Identifier: MIT
# stats_ref.py — the independent reference for tests/test_stats_out.c: the scale figures of wte
# and wpe computed by numpy (float64) from the safetensors file, against the JSON written.
#   python3 stats_ref.py WEIGHTS OUT.json TOP
import json
import struct
import sys

import numpy as np

path, out, top = sys.argv[1], sys.argv[2], int(sys.argv[3])
raw = open(path, "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
h = json.loads(raw[8:8 + n])
d = json.load(open(out))


def load(name):
    b, e = h[name]["data_offsets"]
    return np.frombuffer(raw[8 + n + b:8 + n + e], "<f4").reshape(h[name]["shape"]).astype(np.float64)


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))


ok = d["weights"] == path
for key in ("wte", "wpe"):
    x, s = load(key + ".weight"), d[key]
    norms = np.linalg.norm(x, axis=1)
    ok &= s["rows"] == x.shape[0] and s["cols"] == x.shape[1]
    ok &= close(s["norm_mean"], norms.mean()) and close(s["norm_min"], norms.min())
    ok &= close(s["norm_max"], norms.max()) and s["norm_max_row"] == int(norms.argmax())
    ok &= s["norm_min_row"] == int(norms.argmin())
    ok &= close(s["mean_abs"], np.abs(x).mean()) and close(s["mean"], x.mean()) and close(s["std"], x.std())
    best = np.argsort(-norms, kind="stable")[:top]
    ok &= [r["row"] for r in s["largest_norms"]] == [int(i) for i in best]
    ok &= all(close(r["norm"], norms[r["row"]]) for r in s["largest_norms"])
print("EQUAL", bool(ok))
