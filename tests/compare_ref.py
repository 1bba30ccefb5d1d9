# SPDX-License-Identifier: MIT
# compare_ref.py — the independent reference for `gpt2-embed compare --format json`: reads the
# safetensors file with numpy alone and recomputes what the command reports from the IDs it
# printed: the multiset test; per view (without positions: wte rows; with: wte + wpe) the
# rows of A with an equal row in B (bit for bit, one to one), a toy self-attention
# softmax(X X^T / sqrt(d)) X in float64 on both texts, which of B's output rows equal one of
# A's (within 1e-9 of the inputs' largest |x|) and by how much the others miss, the same layer
# with a causal mask compared row by row, and which prefixes hold the same tokens; the moved
# token and the cosine of its two input rows; the cosines of wte[a_t] vs wte[b_t] and of the
# summed inputs (float64); the verdict; every cosine within [-1, 1].
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


def rows(ids, pos):
    x = wte[ids].copy()
    if pos:
        x = x + wpe[:len(ids)]
    return x


def equal_rows(xa, xb):
    used, k = [False] * len(xb), 0
    for r in xa:
        for s in range(len(xb)):
            if not used[s] and np.array_equal(r.view(np.uint32), xb[s].view(np.uint32)):
                used[s], k = True, k + 1
                break
    return k


def attention(x, causal=False):
    x = x.astype(np.float64)
    s = x @ x.T / np.sqrt(x.shape[1])
    if causal:   # row t attends to rows 0..t
        s = np.where(np.tril(np.ones(s.shape, dtype=bool)), s, -np.inf)
    p = np.exp(s - s.max(axis=1, keepdims=True))
    return (p / p.sum(axis=1, keepdims=True)) @ x


def causal_view(pos):
    """The causal toy layer on both texts, row t of B against row t of A."""
    xa, xb = rows(a, pos), rows(b, pos)
    T = min(len(a), len(b))
    ya, yb = attention(xa, True)[:T], attention(xb, True)[:T]
    tol = 1e-9 * max(1.0, float(np.abs(np.concatenate([xa, xb])).max()))
    d = np.abs(yb - ya).max(axis=1)
    eq = d <= tol
    return ([bool(e) for e in eq], int(eq.sum()), float(d[eq].max()) if eq.any() else 0.0,
            0.0 if eq.all() else float(d[~eq].min()))


def view(pos):
    xa, xb = rows(a, pos), rows(b, pos)
    ya, yb = attention(xa), attention(xb)
    tol = 1e-9 * max(1.0, float(np.abs(np.concatenate([xa, xb])).max()))
    d = np.abs(yb[:, None, :] - ya[None, :, :]).max(axis=2)   # d[s, t]
    used, perm, maxdiff, gap = [False] * len(a), [], 0.0, np.inf
    for s in range(len(b)):
        t = next((t for t in range(len(a)) if not used[t] and d[s, t] <= tol), None)
        perm.append(t)
        if t is None:
            gap = min(gap, d[s].min())
        else:
            used[t], maxdiff = True, max(maxdiff, d[s, t])
    return equal_rows(xa, xb), perm, maxdiff, (0.0 if all(p is not None for p in perm) else gap)


same = sorted(a.tolist()) == sorted(b.tolist())
if got["same_multiset"] != same:
    bad.append("same_multiset")
views = {}
for key, pos in (("without_positions", False), ("with_positions", True)):
    n_eq, perm, maxdiff, gap = views[key] = view(pos)
    v = got["views"][key]
    if v["rows_equal"] != n_eq:
        bad.append("%s.rows_equal %d vs %d" % (key, v["rows_equal"], n_eq))
    att = v["attention"]
    if att["perm"] != perm:
        bad.append("%s.perm %s vs %s" % (key, att["perm"], perm))
    if att["outputs_equal"] != sum(p is not None for p in perm):
        bad.append(key + ".outputs_equal")
    if abs(att["max_diff"] - maxdiff) > 1e-12:
        bad.append("%s.max_diff %g vs %g" % (key, att["max_diff"], maxdiff))
    if abs(att["gap"] - gap) > 1e-12 * max(1.0, gap):
        bad.append("%s.gap %.17g vs %.17g" % (key, att["gap"], gap))
    eq, n_eq, maxdiff, gap = causal_view(pos)
    cv = v["causal"]
    if cv["equal"] != eq or cv["rows_equal"] != n_eq:
        bad.append("%s.causal.equal %s vs %s" % (key, cv["equal"], eq))
    if abs(cv["max_diff"] - maxdiff) > 1e-12 or abs(cv["gap"] - gap) > 1e-12 * max(1.0, gap):
        bad.append("%s.causal max_diff/gap %g %g vs %g %g" % (key, cv["max_diff"], cv["gap"], maxdiff, gap))
moved = None
for t in range(len(a)):
    if t < len(b) and a[t] == b[t]:
        continue
    s = next((s for s in range(len(b)) if s != t and b[s] == a[t] and not (s < len(a) and a[s] == b[s])), None)
    if s is not None:
        moved = (int(a[t]), t, s)
        break
if moved is None:
    if got["moved"] is not None:
        bad.append("moved")
else:
    m = got["moved"]
    i, t, s = moved
    if (m["id"], m["pos_a"], m["pos_b"]) != moved:
        bad.append("moved %s vs %s" % (m, moved))
    elif abs(m["input_cos"] - min(1.0, cos(wte[i] + wpe[t], wte[i] + wpe[s]))) > 1e-12:
        bad.append("moved.input_cos")
    if abs(m["input_cos"]) > 1:
        bad.append("moved.input_cos out of [-1, 1]")
if len(a) == len(b) and (a == b).all():
    verdict = "same_sequence"
elif not same:
    verdict = "other_tokens"
else:
    verdict = "indistinguishable" if views["with_positions"][0] == len(a) else "distinguishable"
if got["verdict"] != verdict:
    bad.append("verdict %s vs %s" % (got["verdict"], verdict))
T = min(len(a), len(b))
xa, xb = wte[a[:T]] + wpe[:T], wte[b[:T]] + wpe[:T]
for t in range(T):
    if abs(got["token_cos"][t]) > 1 or abs(got["input_cos"][t]) > 1:
        bad.append("cosine out of [-1, 1] at %d" % t)
    if abs(got["token_cos"][t] - cos(wte[a[t]], wte[b[t]])) > 1e-12:
        bad.append("token_cos[%d]" % t)
    if abs(got["input_cos"][t] - cos(xa[t], xb[t])) > 1e-12:
        bad.append("input_cos[%d]" % t)
differ = int(sum(not np.array_equal(xa[t], xb[t]) for t in range(T)))
prefix = [bool(a[t] == b[t] and sorted(a[:t + 1].tolist()) == sorted(b[:t + 1].tolist())) for t in range(T)]
if got["prefix_same"] != prefix:
    bad.append("prefix_same %s vs %s" % (got["prefix_same"], prefix))
if got["positions_differ"] != differ:
    bad.append("positions_differ %d vs %d" % (got["positions_differ"], differ))
print("OK" if not bad else "DIFFER " + " ".join(bad))
sys.exit(1 if bad else 0)
