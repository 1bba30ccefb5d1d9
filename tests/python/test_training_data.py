# SPDX-License-Identifier: MIT
"""Training data as llm.c's and nanoGPT's own scripts make it, through the program (issue 39).

The scripts' files are written here the way the scripts write them, from tiktoken's IDs
(tests/data, made by tiktoken's encode_ordinary, which both scripts call): llm.c's
dev/data/fineweb.py with data_common.write_datafile (256 int32 of header: magic 20240520,
version 1, the count; then uint16, <|endoftext|> before each document), nanoGPT's
data/openwebtext/prepare.py (a uint16 memmap, <|endoftext|> after each document) and
data/shakespeare/prepare.py (one text, uint16, no token); the program's files, made with its
defaults, must be the same bytes. llm.c's loader (llmc/dataloader.h: its glob, header
checks, at least B*T+1 tokens in each shard, B*T+1-token reads) and nanoGPT's get_batch are
reimplemented to read them. Runs into the same names never mix, and names the program makes
up are never followed."""
import glob
import io
import json
import os
import subprocess

import numpy as np
import pytest

from conftest import PROGRAM, SRCDIR

EOT = 50256


def cases():
    """(text, tiktoken's encode_ordinary IDs) of the conformance cases."""
    d = os.path.join(SRCDIR, "tests", "data")
    out = []
    for c, e in (("tokenizer_cases.jsonl", "tokenizer_expected.jsonl"),
                 ("tokenizer_extra_cases.jsonl", "tokenizer_extra_expected.jsonl")):
        with open(os.path.join(d, c), encoding="utf-8") as f:
            texts = [json.loads(x)["text"] for x in f]
        with open(os.path.join(d, e), encoding="utf-8") as f:
            out += zip(texts, [json.loads(x)["ids"] for x in f])
    return out


CASES = cases()
# documents a line can hold (for --lines and --doc-sep '\n\n'), an empty one among them
LINE_DOCS = [(t, i) for t, i in CASES if "\n" not in t and "\r" not in t and t.strip() == t][:300]
LINE_DOCS.insert(7, ("", []))


def tokenize(*args, stdin=b""):
    r = subprocess.run([PROGRAM, "tokenize", *args], input=stdin, capture_output=True)
    assert r.returncode == 0, r.stderr.decode()
    return r


# ---- the scripts' layouts ----

def fineweb_bin(docs):
    """llm.c: fineweb.py's tokenize_gpt2 (EOT, then the document's IDs) for each document,
    then write_datafile(filename, toks): the header of 256 int32, then uint16."""
    toks = []
    for ids in docs:
        toks.extend([EOT] + ids)
    header = np.zeros(256, dtype=np.int32)
    header[0], header[1], header[2] = 20240520, 1, len(toks)
    return header.tobytes() + np.array(toks, dtype=np.uint16).tobytes()


def openwebtext_bin(docs, dtype=np.uint16):
    """nanoGPT: openwebtext prepare.py's process() (the IDs, then EOT) for each document, the
    arrays concatenated into a np.memmap of uint16."""
    parts = [np.array(ids + [EOT], dtype=dtype) for ids in docs]
    return np.concatenate(parts).tobytes() if parts else b""


def npy_of(raw, dtype):
    buf = io.BytesIO()
    np.save(buf, np.frombuffer(raw, dtype=dtype))
    return buf.getvalue()


def read(path):
    with open(path, "rb") as f:
        return f.read()


# ---- llm.c's loader and nanoGPT's get_batch, reimplemented ----

def llmc_loader(pattern, B, T):
    """llmc/dataloader.h's dataloader_init and its batches: the files of the glob (sorted),
    each one's header checked (magic, version, a positive count, the file's size) and at
    least B*T+1 tokens; then every batch of each shard in order: B*T+1 tokens at each
    multiple of B*T. Returns the tokens it read, shard by shard, or raises AssertionError
    where the C code would stop."""
    files = sorted(glob.glob(pattern))
    assert files, "no files found matching the pattern"
    shards = []
    for f in files:
        h = np.fromfile(f, dtype="<i4", count=256)
        assert h[0] == 20240520, "Bad magic in the data file"
        assert h[1] == 1, "Bad version in data file"
        ntok = int(h[2])
        assert ntok > 0
        assert os.path.getsize(f) == 256 * 4 + ntok * 2, "Error: file size is not as expected"
        assert ntok >= B * T + 1, "%s: %d tokens, fewer than B*T+1 = %d" % (f, ntok, B * T + 1)
        shards.append(np.fromfile(f, dtype="<u2", offset=1024))
    for toks in shards:
        samples = (len(toks) * 2 - 2) // (B * T * 2)
        for k in range(samples):
            buf = toks[k * B * T:k * B * T + B * T + 1]
            x, y = buf[:-1].reshape(B, T), buf[1:].reshape(B, T)
            assert (x[:, 1:] == y[:, :-1]).all() and buf.max() < 50257
    return shards


def nanogpt_get_batch(path, block_size, batch_size, seed=0):
    data = np.memmap(path, dtype=np.uint16, mode="r")
    rng = np.random.default_rng(seed)
    ix = rng.integers(0, len(data) - block_size, size=batch_size)
    x = np.stack([data[i:i + block_size].astype(np.int64) for i in ix])
    y = np.stack([data[i + 1:i + 1 + block_size].astype(np.int64) for i in ix])
    return ix, x, y


# ---- the tests ----

def test_a_literal_endoftext_is_ordinary_text_in_training_data_and_stderr_counts_it(tmp_path):
    """fineweb.py and prepare.py tokenize with encode_ordinary: "<|endoftext|>" inside a
    document is the text <, |, endoftext, |, >, never the document boundary 50256. Every
    token file and --jsonl and --lines do the same by default, and say how many they read
    so; --special token opts in; the table and ids of one text keep the token (as embed)."""
    docs = [(t, i) for t, i in CASES if "<|endoftext|>" in t]
    assert len(docs) > 10
    n_lit = sum(t.count("<|endoftext|>") for t, _ in docs)
    jl = "".join(json.dumps({"text": t}) + "\n" for t, _ in docs).encode()
    r = tokenize("--jsonl", stdin=jl)
    assert [json.loads(x)["ids"] for x in r.stdout.decode().splitlines()] == [i for _, i in docs]
    assert ("<|endoftext|> occurs %d times in the text" % n_lit) in r.stderr.decode()
    for fmt in ("u16", "u32", "llmc", "npy"):
        out = str(tmp_path / ("d." + fmt))
        r = tokenize("--jsonl", "--format", fmt, "-o", out, "--eot", "none", stdin=jl)
        got = np.load(out) if fmt == "npy" else np.fromfile(
            out, dtype="<u4" if fmt == "u32" else "<u2", offset=1024 if fmt == "llmc" else 0)
        assert got.tolist() == [x for _, i in docs for x in i], fmt
        assert ("occurs %d times" % n_lit) in r.stderr.decode(), fmt
    # one text from standard input, streamed: the same IDs, the count said
    text, ids = docs[0]
    out = str(tmp_path / "one.u16")
    r = tokenize("--format", "u16", "-f", "-", "-o", out, stdin=text.encode())
    assert np.fromfile(out, dtype="<u2").tolist() == ids
    assert ("occurs %d time" % text.count("<|endoftext|>")) in r.stderr.decode()
    # opting in: the token; asking for text: no note (the user chose it)
    r = tokenize("--format", "u16", "--special", "token", "-f", "-", "-o", out, stdin=b"a<|endoftext|>b")
    assert np.fromfile(out, dtype="<u2").tolist() == [64, EOT, 65] and b"occurs" not in r.stderr
    r = tokenize("--format", "u16", "--special", "text", "-f", "-", "-o", out, stdin=b"a<|endoftext|>b")
    assert np.fromfile(out, dtype="<u2").tolist() == [64, 27, 91, 437, 1659, 5239, 91, 29, 65]
    assert b"occurs" not in r.stderr
    # --lines
    r = tokenize("--lines", stdin=b"a<|endoftext|>b\n")
    assert json.loads(r.stdout)["ids"] == [64, 27, 91, 437, 1659, 5239, 91, 29, 65]
    # a separator holding the literal is no literal kept: --doc-sep '<|endoftext|>'
    r = tokenize("--format", "u16", "--doc-sep", "<|endoftext|>", "-f", "-", "-o", out,
                 stdin=b"a<|endoftext|>b<|endoftext|>")
    assert np.fromfile(out, dtype="<u2").tolist() == [64, EOT, 65, EOT] and b"occurs" not in r.stderr
    # the table and ids of one text: the token, as embed's default
    r = tokenize("--format", "ids", "a<|endoftext|>")
    assert r.stdout == b"64 50256\n" and b"occurs" not in r.stderr


@pytest.mark.parametrize("maker", ["jsonl", "lines", "doc-sep"])
def test_documents_are_laid_out_as_the_scripts_lay_them_out(tmp_path, maker):
    """The same documents through --jsonl, --lines and --doc-sep '\\n\\n' (an empty one
    among them): by default llmc is byte for byte fineweb.py's file, u16 openwebtext
    prepare.py's, u32 and npy the same layout wider or in numpy's format; --eot moves the
    token. llm.c's loader and nanoGPT's get_batch read them."""
    docs = [i for _, i in LINE_DOCS]
    texts = [t for t, _ in LINE_DOCS]
    if maker == "jsonl":
        args, stdin = ["--jsonl"], "".join(json.dumps({"text": t}) + "\n" for t in texts).encode()
    elif maker == "lines":
        args, stdin = ["--lines"], "".join(t + "\n" for t in texts).encode()
    else:
        args, stdin = ["--doc-sep", "\\n\\n", "-f", "-"], "".join(t + "\n\n" for t in texts).encode()
    after = openwebtext_bin(docs)
    want = {"llmc": fineweb_bin(docs), "u16": after, "u32": openwebtext_bin(docs, np.uint32),
            "npy": npy_of(after, "<u2")}
    for fmt, data in want.items():
        out = str(tmp_path / ("train." + fmt))
        tokenize(*args, "--format", fmt, "-o", out, stdin=stdin)
        assert read(out) == data, (maker, fmt)
    # --eot before / after / none in any format
    flat = np.array([x for d in docs for x in d], dtype=np.uint16).tobytes()
    for eot, data in (("before", fineweb_bin(docs)[1024:]), ("after", after), ("none", flat)):
        out = str(tmp_path / "x.u16")
        tokenize(*args, "--format", "u16", "--eot", eot, "-o", out, stdin=stdin)
        assert read(out) == data, (maker, eot)
        out = str(tmp_path / "x.bin")
        tokenize(*args, "--format", "llmc", "--eot", eot, "-o", out, stdin=stdin)
        assert read(out)[1024:] == data, (maker, eot, "llmc")
    # the readers
    llmc_loader(str(tmp_path / "train.llmc"), 4, 64)
    ix, x, y = nanogpt_get_batch(str(tmp_path / "train.u16"), 64, 8)
    whole = np.frombuffer(after, dtype="<u2")
    assert all((x[k] == whole[i:i + 64]).all() and (y[k] == whole[i + 1:i + 65]).all()
               for k, i in enumerate(ix))


def test_one_whole_text_is_shakespeare_prepare_py(tmp_path):
    """nanoGPT's shakespeare prepare.py: encode_ordinary of the whole text, uint16, no
    token; llm.c's way for one text is one document (the token before it)."""
    text = "\n".join(t for t, _ in CASES[:200])
    src = tmp_path / "input.txt"
    src.write_text(text, encoding="utf-8")
    tokenize("--format", "u16", "-f", str(src), "-o", str(tmp_path / "train.bin"))
    ids = [json.loads(x)["ids"] for x in tokenize("--jsonl", stdin=json.dumps({"text": text}).encode() + b"\n")
           .stdout.decode().splitlines()][0]
    assert read(str(tmp_path / "train.bin")) == np.array(ids, dtype=np.uint16).tobytes()
    tokenize("--format", "llmc", "-f", str(src), "-o", str(tmp_path / "one.bin"))
    assert read(str(tmp_path / "one.bin")) == fineweb_bin([ids])


def test_shards_pass_llm_cs_loader_with_a_minimum_and_fail_it_without(tmp_path):
    """llm.c's loader refuses a shard of fewer than B*T+1 tokens; --shard-tokens alone leaves
    such a last shard on this input (and --help says so), --shard-min-tokens B*T+1 folds it
    into the one before: every shard passes, and they hold every token in order."""
    docs = [i for _, i in CASES]
    stdin = "".join(json.dumps({"text": t}) + "\n" for t, _ in CASES).encode()
    B, T = 4, 128
    whole = fineweb_bin(docs)[1024:]
    h = tokenize("--help").stdout.decode()
    assert "--shard-min-tokens" in h and "B*T+1" in h

    def last_shard(n):   # documents (EOT first) packed whole into shards of at most n
        cur = 0
        for d in docs:
            k = len(d) + 1
            if cur and cur + k > n:
                cur = 0
            cur = (cur + k - 1) % n + 1 if cur + k > n else cur + k
        return cur
    n = next(n for n in range(20000, 40000) if last_shard(n) <= B * T)   # a short tail
    tokenize("--jsonl", "--format", "llmc", "--shard-tokens", str(n), "-o", str(tmp_path / "a.bin"),
             stdin=stdin)
    with pytest.raises(AssertionError, match="fewer than B.T.1"):
        llmc_loader(str(tmp_path / "a_*.bin"), B, T)
    r = tokenize("--jsonl", "--format", "llmc", "--shard-tokens", str(n), "--shard-min-tokens",
                 str(B * T + 1), "-o", str(tmp_path / "b.bin"), stdin=stdin)
    assert b"were appended to" in r.stderr
    shards = llmc_loader(str(tmp_path / "b_*.bin"), B, T)
    assert len(shards) > 3 and np.concatenate(shards).tobytes() == whole
    assert all(len(s) <= n for s in shards[:-1]) and n < len(shards[-1]) < n + B * T + 1


def test_a_rerun_with_fewer_shards_leaves_only_its_own(tmp_path):
    """The files a glob of the names finds are this run's shards only: an earlier run's
    beyond them are removed, and the run says so; other files stay."""
    stdin = "".join(json.dumps({"text": t}) + "\n" for t, _ in CASES).encode()
    out = str(tmp_path / "out.npy")
    tokenize("--jsonl", "--format", "npy", "--shard-tokens", "5000", "-o", out, stdin=stdin)
    many = sorted(glob.glob(str(tmp_path / "out_*.npy")))
    assert len(many) > 8
    (tmp_path / "out_notes.npy").write_bytes(b"mine")
    r = tokenize("--jsonl", "--format", "npy", "--shard-tokens", "50000", "-o", out, stdin=stdin)
    few = sorted(glob.glob(str(tmp_path / "out_[0-9]*.npy")))
    assert few == [str(tmp_path / ("out_%06d.npy" % k)) for k in range(len(few))], few
    assert len(few) < len(many) // 2
    err = r.stderr.decode()
    assert ("removed %d shards of an earlier run" % (len(many) - len(few))) in err, err
    got = np.concatenate([np.load(f) for f in few]).tolist()
    assert got == [x for _, i in CASES for x in i + [EOT]]
    assert (tmp_path / "out_notes.npy").read_bytes() == b"mine"


def test_a_link_planted_at_a_shard_name_is_not_followed(tmp_path):
    """A symbolic link where a shard will go is replaced by the shard; the file it points at
    keeps its bytes. (A name the user typed, -o LINK, still writes through its link.)"""
    precious = tmp_path / "precious.txt"
    precious.write_bytes(b"do not overwrite")
    os.symlink("precious.txt", str(tmp_path / "x_000002.u16"))
    stdin = "".join(json.dumps({"text": t}) + "\n" for t, _ in CASES).encode()
    tokenize("--jsonl", "--format", "u16", "--shard-tokens", "5000", "-o", str(tmp_path / "x.u16"),
             stdin=stdin)
    assert precious.read_bytes() == b"do not overwrite"
    assert not os.path.islink(str(tmp_path / "x_000002.u16"))
    assert os.path.getsize(str(tmp_path / "x_000002.u16")) > 5000
    os.symlink("precious.txt", str(tmp_path / "typed.u16"))
    tokenize("--format", "u16", "-o", str(tmp_path / "typed.u16"), "Hello")
    assert precious.read_bytes() == b"\x88\x3c" and os.path.islink(str(tmp_path / "typed.u16"))
