# SPDX-License-Identifier: MIT
# recipes.py — the recipes of doc/corpora.md on small data, with checks of what they produce (test_tokenize_cli.c):
#   python3 recipes.py dask BIN ROWS.jsonl     Dask bag partitions piped through
#       `tokenize --jsonl --keep-going --keep id`: every row answered, in place, with its id
#   python3 recipes.py nanogpt TRAIN.u16 N     nanoGPT's get_batch on np.memmap'ed uint16
#       IDs: batches of N-token windows and their next-token targets
# Prints "OK" or what is wrong.
import json
import subprocess
import sys

import numpy as np


class partition_through:
    """A partition's lines through `tokenize --jsonl`: a picklable function for Dask."""

    def __init__(self, binary):
        self.binary = binary

    def __call__(self, lines):
        lines = list(lines)
        out = subprocess.run([self.binary, "tokenize", "--jsonl", "--keep-going", "--keep", "id"],
                             input="".join(lines).encode(), stdout=subprocess.PIPE, check=False).stdout
        answers = out.decode().splitlines()
        assert len(answers) == len(lines), (len(answers), len(lines))  # a row per line, always
        return [json.loads(a) for a in answers]


def dask_recipe(binary, path):
    import dask.bag as db

    # -- the recipe (doc/corpora.md) --
    tokenize_partition = partition_through(binary)
    rows = db.read_text(path, blocksize=2000)  # several partitions
    answers = rows.map_partitions(tokenize_partition).compute(scheduler="processes")
    # -- the checks --
    lines = open(path, encoding="utf-8").read().splitlines()
    if rows.npartitions < 3:
        sys.exit("only %d partitions" % rows.npartitions)
    if len(answers) != len(lines):
        sys.exit("%d answers for %d lines" % (len(answers), len(lines)))
    for n, (line, a) in enumerate(zip(lines, answers), 1):
        try:
            want = json.loads(line).get("id")
        except ValueError:
            want = None
        if a.get("id") != want or ("error" in a) == ("ids" in a):  # ("line" counts in its partition)
            sys.exit("line %d: %s for %s" % (n, a, line))
    print("OK")


def nanogpt_recipe(path, block):
    # -- the recipe (doc/corpora.md: nanoGPT's get_batch, numpy only) --
    data = np.memmap(path, dtype=np.uint16, mode="r")
    rng = np.random.default_rng(0)
    ix = rng.integers(0, len(data) - block, size=8)
    x = np.stack([data[i:i + block].astype(np.int64) for i in ix])
    y = np.stack([data[i + 1:i + 1 + block].astype(np.int64) for i in ix])
    # -- the checks --
    whole = np.fromfile(path, dtype="<u2")
    ok = all((x[k] == whole[i:i + block]).all() and (y[k] == whole[i + 1:i + 1 + block]).all() for k, i in enumerate(ix))
    print("OK" if ok and x.shape == (8, block) and x.max() < 50257 else "batches differ")


if __name__ == "__main__":  # (Dask's worker processes import this file again)
    if sys.argv[1] == "dask":
        dask_recipe(sys.argv[2], sys.argv[3])
    else:
        nanogpt_recipe(sys.argv[2], int(sys.argv[3]))
