# SPDX-License-Identifier: MIT
"""The Python recipes of the README, timed on one corpus: tiktoken-style serial code,
encode_ordinary_batch on 1 and 2 C threads, multiprocessing.Pool, and a dask.distributed
LocalCluster of worker processes. Prints documents/s and MB/s (median of --runs runs) and
checks that every recipe gives the serial IDs. Not a test (timings depend on the machine):

    PYTHONPATH=python python3 bench/python_recipes.py [--runs 5] [--corpus FILE.gz]
        [--skip-dask] [--only-batch]

The corpus is bench/data/corpus.txt.gz split into documents at blank lines.
"""
import argparse
import gzip
import multiprocessing
import os
import statistics
import sys
import time

import gpt2embed

HERE = os.path.dirname(os.path.abspath(__file__))


def documents(path):
    with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
        text = f.read()
    return [d for d in text.split("\n\n") if d.strip()]


def chunks(docs, n):
    return [docs[i:i + n] for i in range(0, len(docs), n)]


def timed(f, runs):
    times, out = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), times, out


def ordinary_batch_1(part):   # what a worker process runs on its share
    return gpt2embed.get_encoding("gpt2").encode_ordinary_batch(part, num_threads=1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--corpus", default=os.path.join(HERE, "data", "corpus.txt.gz"))
    ap.add_argument("--skip-dask", action="store_true")
    ap.add_argument("--only-batch", action="store_true")
    a = ap.parse_args()
    docs = documents(a.corpus)
    mb = sum(len(d.encode("utf-8")) for d in docs) / 1e6
    enc = gpt2embed.get_encoding("gpt2")
    print("corpus: %d documents, %.1f MB; CPUs this process may use: %d; library %s"
          % (len(docs), mb, gpt2embed.cpu_count(), gpt2embed.library_version()))
    rows = []

    def row(name, f):
        med, times, out = timed(f, a.runs)
        rows.append((name, med, times))
        return out

    want = row("serial: [enc.encode_ordinary(d) for d in docs]",
               lambda: [enc.encode_ordinary(d) for d in docs])
    b1 = row("enc.encode_ordinary_batch(docs, num_threads=1)",
             lambda: enc.encode_ordinary_batch(docs, num_threads=1))
    b2 = row("enc.encode_ordinary_batch(docs, num_threads=2)",
             lambda: enc.encode_ordinary_batch(docs, num_threads=2))
    assert b1 == want and b2 == want, "a batch differs from the serial IDs"
    if not a.only_batch:
        with multiprocessing.get_context("spawn").Pool(2) as pool:
            pool.map(ordinary_batch_1, [["warm up"]] * 2)
            mp = row("multiprocessing.Pool(2).map(encode_ordinary_batch, 2 parts)",
                     lambda: [i for part in pool.map(ordinary_batch_1, chunks(docs, (len(docs) + 1) // 2))
                              for i in part])
            assert mp == want, "multiprocessing differs"
        if not a.skip_dask:
            from dask.distributed import Client, LocalCluster
            t0 = time.perf_counter()
            with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                              host="127.0.0.1", dashboard_address=None, silence_logs=40) as cl, \
                    Client(cl) as client:
                start = time.perf_counter() - t0
                client.gather(client.map(ordinary_batch_1, [["warm up"]] * 2, pure=False))

                def dask_run():
                    fs = client.map(ordinary_batch_1, chunks(docs, 2000), pure=False)
                    return [i for part in client.gather(fs) for i in part]
                dk = row("dask LocalCluster(2 processes): client.map over 2000-document parts",
                         dask_run)
                assert dk == want, "dask differs"
            print("(dask cluster start: %.1f s, not counted)" % start)
    base = rows[0][1]
    print("%-72s %10s %8s %7s" % ("recipe (median of %d runs)" % a.runs, "docs/s", "MB/s", "x serial"))
    for name, med, times in rows:
        print("%-72s %10.0f %8.2f %7.2f" % (name, len(docs) / med, mb / med, base / med))
    r = rows[1][1] / rows[2][1]
    print("encode_ordinary_batch: num_threads=2 is %.2fx num_threads=1 (runs 1T: %s; 2T: %s)"
          % (r, " ".join("%.3f" % t for t in rows[1][2]), " ".join("%.3f" % t for t in rows[2][2])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
