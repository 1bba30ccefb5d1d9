# SPDX-License-Identifier: MIT
"""Shared fixtures of the Python tests: the build directory (G2E_BUILD, set by make test),
safetensors fixtures written by tools/mkfixture, and an independent numpy reader."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

SRCDIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.path.abspath(os.environ.get("G2E_BUILD", os.path.join(SRCDIR, "build")))
sys.path.insert(0, os.path.join(SRCDIR, "python"))
os.environ.setdefault("GPT2EMBED_LIBRARY", os.path.join(BUILD, "libgpt2embed.so"))
# the tests must never find a user's weights or tokenizer by accident
for v in ("GPT2_EMBED_WEIGHTS", "GPT2_EMBED_TOKENIZER"):
    os.environ.pop(v, None)

PROGRAM = os.path.join(BUILD, "gpt2-embed")
MKFIXTURE = os.path.join(BUILD, "mkfixture")


def read_safetensors(path, name):
    """The tensor `name` of a safetensors file as float32, read with json + numpy only (not
    the library): F32 as stored, F16 through numpy's float16, BF16 by shifting into the top
    half of a float32."""
    with open(path, "rb") as f:
        raw = f.read()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    t = header[name]
    begin, end = t["data_offsets"]
    data = raw[8 + n + begin:8 + n + end]
    if t["dtype"] == "F32":
        a = np.frombuffer(data, dtype="<f4")
    elif t["dtype"] == "F16":
        a = np.frombuffer(data, dtype="<f2").astype(np.float32)
    elif t["dtype"] == "BF16":
        a = (np.frombuffer(data, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
    else:
        raise ValueError(t["dtype"])
    return a.reshape(t["shape"])


def run_program(*args, check=True):
    r = subprocess.run([PROGRAM, *args], capture_output=True)
    if check and r.returncode != 0:
        raise AssertionError("gpt2-embed %s: %s" % (" ".join(args), r.stderr.decode()))
    return r


@pytest.fixture(scope="session")
def fixtures(tmp_path_factory):
    """{"F32"|"F16"|"BF16": path} fixtures with GPT-2's vocabulary and context (50257 x 8,
    1024 x 8, every row written, data section unaligned) in each dtype, so any text can be
    embedded; "gpt2": openai-community/gpt2's real layout (548 MB, sparse: few rows written)."""
    d = tmp_path_factory.mktemp("weights")
    out = {}
    for dt in ("F32", "F16", "BF16"):
        p = str(d / ("tiny-%s.safetensors" % dt))
        subprocess.run([MKFIXTURE, p, "--dtype", dt, "--vocab", "50257", "--ctx", "1024",
                        "--embd", "8"], check=True)
        out[dt] = p
    p = str(d / "gpt2.safetensors")
    subprocess.run([MKFIXTURE, p, "--shape", "gpt2"], check=True)
    out["gpt2"] = p
    return out
