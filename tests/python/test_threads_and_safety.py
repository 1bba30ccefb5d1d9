# SPDX-License-Identifier: MIT
"""The crash reproducers of issue 24, each in its own Python process (a crash there is a
failed test here, not a dead test run): a shared Encoding, Tokenizer and Model under
ThreadPoolExecutor(4) against one thread, several runs; close() during calls; writes to
wte through numpy and torch; a weights file truncated under an open Model."""
import json
import os
import random
import shutil
import subprocess
import sys

import pytest

from conftest import SRCDIR, read_safetensors


def run_py(code, *args, timeout=300):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(SRCDIR, "python")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    r = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True,
                       text=True, timeout=timeout)
    assert r.returncode == 0, "exit %d\n%s\n%s" % (r.returncode, r.stdout[-2000:], r.stderr[-4000:])
    return r.stdout


@pytest.fixture(scope="module")
def texts(tmp_path_factory):
    out = []
    for name in ("tokenizer_cases.jsonl", "tokenizer_extra_cases.jsonl"):
        with open(os.path.join(SRCDIR, "tests", "data", name), encoding="utf-8") as f:
            out += [json.loads(line)["text"] for line in f]
    # longer documents too, so that calls overlap for a while
    out += ["\n".join(out[i:i + 200]) for i in range(0, len(out), 200)]
    # and documents of many distinct long words (25-200 letters): the pieces the C
    # tokenizer caches per object (what crashed a shared 0.2 tokenizer)
    rng = random.Random(24)
    letters = "abcdefghijklmnopqrstuvwxyz"
    for _ in range(200):
        out.append(" ".join("".join(rng.choice(letters) for _ in range(rng.randint(25, 200)))
                            for _ in range(40)))
    p = tmp_path_factory.mktemp("texts") / "texts.json"
    p.write_text(json.dumps(out), encoding="utf-8")
    return str(p)


SHARED = r'''
import json, sys
from concurrent.futures import ThreadPoolExecutor
import gpt2embed as g
texts = json.load(open(sys.argv[1], encoding="utf-8"))
enc = g.get_encoding("gpt2")
tok = g.Tokenizer()
m = g.Model(sys.argv[2])
want = [enc.encode_ordinary(t) for t in texts]
want_tok = [tok.tokenize(t, special="text").tolist() for t in texts]
want_x = [m.embed(ids[:1024]).tobytes() for ids in want]   # wpe has 1024 rows
chunks = [texts[i:i + 50] for i in range(0, len(texts), 50)]
for run in range(3):
    with ThreadPoolExecutor(4) as ex:
        assert list(ex.map(enc.encode_ordinary, texts)) == want, "encode_ordinary"
        assert [a.tolist() for a in ex.map(lambda t: tok.tokenize(t, special="text"), texts)] \
            == want_tok, "Tokenizer.tokenize"
        assert list(ex.map(lambda ids: m.embed(ids[:1024]).tobytes(), want)) == want_x, \
            "Model.embed"
        got = list(ex.map(lambda c: enc.encode_ordinary_batch(c, num_threads=2), chunks))
        assert [ids for c in got for ids in c] == want, "encode_ordinary_batch"
print("ok", len(texts))
'''


def test_shared_objects_under_four_threads_equal_one_thread(texts, fixtures):
    assert run_py(SHARED, texts, fixtures["F32"]).startswith("ok ")


CLOSE = r'''
import json, sys, threading, time
import gpt2embed as g
texts = json.load(open(sys.argv[1], encoding="utf-8"))
big = "\n".join(texts) * 2
enc = g.Encoding("gpt2")
want = enc.encode_ordinary(big)
m = g.Model(sys.argv[2])
ids = want[:1000]
want_x = m.embed(ids).tobytes()
done, refused, wrong = [], [], []
started = threading.Barrier(9)
def tok_worker():
    started.wait()
    for _ in range(50):
        try:
            r = enc.encode_ordinary(big)
        except ValueError as e:
            assert str(e) == "the encoding is closed", e
            refused.append(1)
            return
        (done if r == want else wrong).append(1)
def model_worker():
    started.wait()
    for _ in range(100000):
        try:
            x = m.embed(ids).tobytes()
        except ValueError as e:
            assert str(e) == "the model is closed", e
            refused.append(1)
            return
        (done if x == want_x else wrong).append(1)
ts = [threading.Thread(target=tok_worker) for _ in range(4)] + \
     [threading.Thread(target=model_worker) for _ in range(4)]
for t in ts: t.start()
started.wait()
time.sleep(0.3)
enc.close()
m.close()
for t in ts: t.join()
assert not wrong and len(refused) == 8 and done, (len(done), len(refused), len(wrong))
print("ok", len(done), len(refused))
'''


def test_close_during_calls_waits_then_later_calls_raise(texts, fixtures):
    assert run_py(CLOSE, texts, fixtures["F32"]).startswith("ok ")


WRITES = r'''
import sys, warnings
import numpy as np
import torch
import gpt2embed as g
m = g.Model(sys.argv[1])
row0 = m.embed([0])[0].copy()
for table in (m.wte, m.wpe):
    try:
        table.flags.writeable = True
        raise SystemExit("writeable could be set")
    except ValueError:
        pass
    try:
        table[0, 0] = 1.0
        raise SystemExit("a numpy write went through")
    except ValueError:
        pass
with warnings.catch_warnings(record=True) as ws:
    warnings.simplefilter("always")
    t = torch.from_numpy(m.wte)
assert any("not writable" in str(w.message) for w in ws), [str(w.message) for w in ws]
t[0, 0] = 123.0                      # torch ignores the flag: the copy changes, no crash
assert m.wte[0, 0] == 123.0
assert m.embed([0])[0].tobytes() == row0.tobytes()   # the model reads its file, untouched
w = m.wte.copy()                     # the documented writable copy
w[0, 0] = 7.0
assert w.flags.writeable and m.wte[0, 0] == 123.0
print("ok")
'''


def test_wte_is_read_only_and_torch_writes_never_crash(fixtures):
    assert run_py(WRITES, fixtures["F32"]).strip() == "ok"


TRUNCATE = r'''
import os, sys
import gpt2embed as g
path = sys.argv[1]
m = g.Model(path)
m.embed([5, 6])
wte = m.wte                           # taken before: a copy, stays readable
os.truncate(path, 4096)
for what, f in (("embed", lambda: m.embed([5, 6])), ("wpe", lambda: m.wpe)):
    try:
        f()
        raise SystemExit(what + " did not raise")
    except g.Error as e:
        assert e.status == "E_IO" and "changed" in str(e), e
float(wte[50000].sum())
print("ok")
'''


def test_a_file_truncated_under_an_open_model_raises_instead_of_sigbus(fixtures, tmp_path):
    p = str(tmp_path / "copy.safetensors")
    shutil.copyfile(fixtures["F32"], p)
    assert run_py(TRUNCATE, p).strip() == "ok"


GREEDY = r'''
import json, sys, threading, time
import gpt2embed as g
src = sys.argv[1]
texts = [json.loads(l)["text"] for l in open(src + "/tokenizer_cases.jsonl", encoding="utf-8")]
want = [json.loads(l)["ids"] for l in open(src + "/tokenizer_expected.jsonl", encoding="utf-8")]
enc = g.get_encoding("gpt2")
# four threads, each asking for 64 C threads on the one Encoding (the pool keeps 64 contexts)
got = [None] * 4
def work(i):
    got[i] = [enc.encode_batch(texts, num_threads=64, disallowed_special=()) for _ in range(3)]
ths = [threading.Thread(target=work, args=(i,)) for i in range(4)]
for t in ths: t.start()
for t in ths: t.join()
assert all(r == want for g_ in got for r in g_), "4 x num_threads=64"
# num_threads means at most that many: never more helper threads than the cap, nor than texts
peak = [0]
stop = threading.Event()
def watch():
    while not stop.is_set():
        n = sum(t.name == "gpt2embed-batch" for t in threading.enumerate())
        peak[0] = max(peak[0], n)
        time.sleep(0.0005)
w = threading.Thread(target=watch); w.start()
many = texts * 12   # (about 2.5 MB: the batch is pipelined over helper threads)
t0 = time.monotonic()
for n in (10000, 2**32 - 1):
    assert enc.encode_ordinary_batch(many, num_threads=n) == want * 12, n
assert enc.encode_ordinary_batch(texts[:3], num_threads=10000) == want[:3]
stop.set(); w.join()
parts = sum(len(t.encode()) for t in many) // (256 << 10) + 2   # (the module's part size)
assert 1 <= peak[0] <= min(63, parts), (peak[0], parts)
print("ok", peak[0], round(time.monotonic() - t0, 2))
'''


def test_callers_asking_for_many_threads_finish_with_tiktokens_ids():
    """4 threads x encode_batch(num_threads=64) on one Encoding used to hang (each call
    waited for pool contexts the others held); num_threads=10000 started 9,999 Python
    threads and 2**32-1 never returned. A hang is the subprocess's timeout."""
    out = run_py(GREEDY, os.path.join(SRCDIR, "tests", "data"), timeout=240)
    assert out.startswith("ok "), out
