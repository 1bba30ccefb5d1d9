# SPDX-License-Identifier: MIT
# numpy_ref.py — the independent reference for the embedding tests: reads a safetensors file
# with numpy alone (its own header parsing, F16 via numpy, BF16 by shifting the bits), computes
# wte[ids] + wpe[arange(start, start + T)] as numpy does, and compares it bit for bit with an
# .npy file written by gpt2-embed.
#   python3 numpy_ref.py WEIGHTS.safetensors OUT.npy "ID ID ..." START [parts]
# Prints "EQUAL True" when identical (shape, dtype and every bit), else details.
import json
import struct
import sys

import numpy as np

path, out, ids, start = sys.argv[1], sys.argv[2], [int(x) for x in sys.argv[3].split()], int(sys.argv[4])
parts = len(sys.argv) > 5 and sys.argv[5] == "parts"
raw = open(path, "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
header = json.loads(raw[8:8 + n])
base = 8 + n


def load(name):
    for key in (name, "transformer." + name):
        if key in header:
            t = header[key]
            break
    begin, end = t["data_offsets"]
    data = raw[base + begin:base + end]
    if t["dtype"] == "F32":
        a = np.frombuffer(data, "<f4")
    elif t["dtype"] == "F16":
        a = np.frombuffer(data, "<f2").astype(np.float32)
    elif t["dtype"] == "BF16":
        a = (np.frombuffer(data, "<u2").astype(np.uint32) << 16).view(np.float32)
    else:
        raise SystemExit("unsupported dtype " + t["dtype"])
    return a.reshape(t["shape"])


wte, wpe = load("wte.weight"), load("wpe.weight")
tok = wte[ids]
pos = wpe[np.arange(start, start + len(ids))]
ref = tok + pos
if parts:
    ref = np.stack([tok, pos, ref])
got = np.load(out)
same = got.dtype == np.float32 and got.shape == ref.shape and np.array_equal(got.view(np.uint32), ref.view(np.uint32))
print("SHAPE", got.shape, ref.shape, "DTYPE", got.dtype, "EQUAL", same)
