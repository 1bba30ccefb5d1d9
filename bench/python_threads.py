# SPDX-License-Identifier: MIT
"""A shared Encoding under a ThreadPoolExecutor: the C tokenizer shared as 0.3.0 allows (no
lock of ours, what the module does) against a lock per Encoding (what the module did on the
0.2 library), median of --runs runs, each checked against one thread. Not a test.

    PYTHONPATH=python python3 bench/python_threads.py [--runs 5] [--threads 2]
"""
import argparse
import gzip
import os
import statistics
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import gpt2embed

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    with gzip.open(os.path.join(HERE, "data", "corpus.txt.gz"), "rt", encoding="utf-8",
                   errors="replace") as f:
        text = f.read()
    paras = [d for d in text.split("\n\n") if d.strip()]
    # documents of 100 paragraphs (~30 KB): the tokenizer's time, not the pool's per-item cost
    docs = ["\n\n".join(paras[i:i + 100]) for i in range(0, len(paras), 100)]
    mb = sum(len(d.encode()) for d in docs) / 1e6
    enc = gpt2embed.Encoding("gpt2")
    want = [enc.encode_ordinary(d) for d in docs]
    res = {}
    for mode in ("no lock (C shared)", "lock per Encoding", "no lock (C shared) "):
        enc._g._serial = threading.Lock() if mode == "lock per Encoding" else None
        times = []
        for _ in range(a.runs):
            t0 = time.perf_counter()
            with ThreadPoolExecutor(a.threads) as ex:
                got = list(ex.map(enc.encode_ordinary, docs))
            times.append(time.perf_counter() - t0)
            assert got == want, mode
        res.setdefault(mode.strip(), []).extend(times)
    for mode, times in res.items():
        med = statistics.median(times)
        print("%-22s %d threads: median %.3f s, %.2f MB/s (runs %s)" % (
            mode, a.threads, med, mb / med, " ".join("%.2f" % t for t in times)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
