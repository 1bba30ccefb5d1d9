# SPDX-License-Identifier: MIT
"""Encoding.encode_batch (lists) and encode_batch_to_numpy on 1 and on 2 threads (issue 24:
2 threads >= 1.6x one on two cores). Two workloads from bench/data/corpus.txt.gz: documents
of 100 paragraphs (~30 KB each) and the corpus's single lines. The thread counts alternate
in order from round to round (1,2 / 2,1 / ...); every result is checked equal to one
thread's. Prints medians of --runs runs per thread count, and their ratio. Not a test
(timings depend on the machine, and on what else runs on it):

    PYTHONPATH=python python3 bench/python_batch.py [--runs 7] [--threads 2]
        [--only docs|lines] [--api lists|numpy]
"""
import argparse
import gzip
import os
import resource
import statistics
import sys
import time

import gpt2embed

HERE = os.path.dirname(os.path.abspath(__file__))


def workloads(path):
    with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
        text = f.read()
    paras = [d for d in text.split("\n\n") if d.strip()]
    docs = ["\n\n".join(paras[i:i + 100]) for i in range(0, len(paras), 100)]
    lines = [s for s in text.split("\n") if s.strip()]
    return {"docs": docs, "lines": lines}


def busy_seconds():
    """CPU time of the whole machine so far, idle and iowait excepted (steal included)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return (sum(v[:8]) - v[3] - v[4]) / os.sysconf("SC_CLK_TCK")


def own_seconds():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def timed(f, texts, n, clean, tries):
    """(seconds, result, clean?) of f(texts, n): the first clean run of up to `tries`."""
    for k in range(tries):
        b0, o0, t0 = busy_seconds(), own_seconds(), time.perf_counter()
        got = f(texts, n)
        t = time.perf_counter() - t0
        others = (busy_seconds() - b0) - (own_seconds() - o0)
        ok = clean is None or others <= clean * t
        if ok or k == tries - 1:
            return t, got, ok
        del got


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--only", choices=("docs", "lines"))
    ap.add_argument("--api", choices=("lists", "numpy"))
    ap.add_argument("--clean", type=float)
    ap.add_argument("--max-tries", type=int, default=20)
    ap.add_argument("--corpus", default=os.path.join(HERE, "data", "corpus.txt.gz"))
    a = ap.parse_args()
    enc = gpt2embed.get_encoding("gpt2")
    print("CPUs this process may use: %d; library %s; load average %s"
          % (gpt2embed.cpu_count(), gpt2embed.library_version(),
             " ".join("%.2f" % x for x in os.getloadavg())))
    calls = {"lists": lambda texts, n: enc.encode_batch(texts, num_threads=n),
             "numpy": lambda texts, n: enc.encode_batch_to_numpy(texts, num_threads=n)}
    for name, texts in workloads(a.corpus).items():
        if a.only and name != a.only:
            continue
        mb = sum(len(t.encode("utf-8")) for t in texts) / 1e6
        for api, f in calls.items():
            if a.api and api != a.api:
                continue
            want = f(texts, 1)
            times = {1: [], a.threads: []}
            for r in range(a.runs):
                for n in ((1, a.threads) if r % 2 == 0 else (a.threads, 1)):
                    t, got, ok = timed(f, texts, n, a.clean, a.max_tries)
                    if ok:
                        times[n].append(t)
                    if api == "numpy":
                        assert all((g == w).all() for g, w in zip(got, want)), (name, api, n)
                    else:
                        assert got == want, (name, api, n)
                    del got
            if not times[1] or not times[a.threads]:
                print("%-5s %-5s: too few clean runs" % (name, api))
                continue
            m1, mn = statistics.median(times[1]), statistics.median(times[a.threads])
            print("%-5s %-5s %6d texts, %.1f MB: 1 thread %.3f s, %d threads %.3f s: %.2fx%s"
                  % (name, api, len(texts), mb, m1, a.threads, mn, m1 / mn,
                     "" if a.clean is None else " (medians of %d + %d clean runs)"
                     % (len(times[1]), len(times[a.threads]))))
            for n in times:
                print("      %d: %s" % (n, " ".join("%.3f" % t for t in times[n])))
    print("load average %s" % " ".join("%.2f" % x for x in os.getloadavg()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
