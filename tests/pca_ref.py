# SPDX-License-Identifier: MIT
# pca_ref.py — the independent reference for the principal-component tests: reads a tensor of
# a safetensors file with numpy alone (its own header parsing; F32, F16, BF16), optionally
# keeps chosen rows, and prints as JSON what numpy says about it:
#   python3 pca_ref.py WEIGHTS.safetensors TENSOR K [ROW ROW ...]
# {"variance": eigenvalues of numpy.cov(X, rowvar=False) by numpy.linalg.eigh, descending,
#  "components": the K eigenvectors of the largest (rows, numpy's signs), "proj": (n, K)
#  projections of the centred rows, "total": trace of the covariance, "norms": row norms}
# TENSOR may also be "sinusoidal:N:D:BASE" (the fixed encoding computed here, no file read).
import json
import struct
import sys

import numpy as np


def load(path, name):
    raw = open(path, "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    t = header.get(name) or header["transformer." + name]
    begin, end = t["data_offsets"]
    data = raw[8 + n + begin:8 + n + end]
    if t["dtype"] == "F32":
        a = np.frombuffer(data, "<f4")
    elif t["dtype"] == "F16":
        a = np.frombuffer(data, "<f2").astype(np.float32)
    else:
        a = (np.frombuffer(data, "<u2").astype(np.uint32) << 16).view(np.float32)
    return a.reshape(t["shape"]).astype(np.float64)


def sinusoidal(n, d, base):
    pos = np.arange(n, dtype=np.float64)[:, None]
    ang = pos / np.power(base, np.arange(0, d, 2, dtype=np.float64)[None, :] / d)
    pe = np.empty((n, d))
    pe[:, 0::2], pe[:, 1::2] = np.sin(ang), np.cos(ang)
    return pe


src, name, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
if name.startswith("sinusoidal:"):
    _, n, d, base = name.split(":")
    X = sinusoidal(int(n), int(d), float(base))
else:
    X = load(src, name)
rows = [int(r) for r in sys.argv[4:]]
if rows:
    X = X[rows]
C = np.cov(X, rowvar=False)
C = np.atleast_2d(C)
w, V = np.linalg.eigh(C)
order = np.argsort(w)[::-1]
w, V = w[order], V[:, order]
Xc = X - X.mean(axis=0)
out = {"variance": w.tolist(), "components": V[:, :k].T.tolist(), "proj": (Xc @ V[:, :k]).tolist(),
       "total": float(np.trace(C)), "norms": np.linalg.norm(X, axis=1).tolist()}
print(json.dumps(out))
