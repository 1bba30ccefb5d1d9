# SPDX-License-Identifier: MIT
# st_describe_ref.py — the independent reference for tests/test_st_describe.c: parses the
# safetensors header with Python's json module and checks the JSON description against it
# (every tensor, in storage order, with dtype, shape, bytes and offsets; metadata; sizes).
#   python3 st_describe_ref.py FILE.safetensors DESCRIPTION.json
# Prints "EQUAL True" when everything agrees.
import json
import os
import struct
import sys

path, desc = sys.argv[1], sys.argv[2]
raw = open(path, "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
header = json.loads(raw[8:8 + n])
meta = header.pop("__metadata__", {})
tensors = sorted(header.items(), key=lambda kv: kv[1]["data_offsets"][0])
d = json.load(open(desc))
ok = d["file_size"] == os.path.getsize(path) and d["header_len"] == n and d["data_start"] == 8 + n
ok &= d["data_len"] == len(raw) - 8 - n and d["metadata"] == meta
ok &= [t["name"] for t in d["tensors"]] == [k for k, _ in tensors]
for t, (k, v) in zip(d["tensors"], tensors):
    b, e = v["data_offsets"]
    ok &= t["dtype"] == v["dtype"] and t["shape"] == v["shape"] and t["offset"] == b
    ok &= t["bytes"] == e - b and t["data_offsets"] == [b, e]
print("EQUAL", bool(ok))
