# SPDX-License-Identifier: MIT
"""The Python module against independent references: the program's npy output (bit for
bit), numpy reading the fixture files itself, tiktoken's IDs (tests/data), numpy's float64
formulas; and its errors (raised, with the library's messages, never a crash)."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import SRCDIR, read_safetensors, run_program

import gpt2embed as g

TEXTS = ["The dog chased the cat", "Hello world", "こんにちは世界 🌍", " x\n\ty  <|endoftext|>"]


def jsonl(name):
    with open(os.path.join(SRCDIR, "tests", "data", name), encoding="utf-8") as f:
        return [json.loads(line) for line in f]


@pytest.fixture(scope="module")
def tok():
    return g.Tokenizer()


# ---- tokenizer ----

def test_tokenize_matches_tiktoken_ids(tok):
    cases = jsonl("tokenizer_cases.jsonl") + jsonl("tokenizer_extra_cases.jsonl")
    want = jsonl("tokenizer_expected.jsonl") + jsonl("tokenizer_extra_expected.jsonl")
    assert len(cases) == len(want) > 2000
    for c, w in zip(cases, want):
        ids = tok.tokenize(c["text"], special="text")   # tiktoken's encode_ordinary
        assert ids.dtype == np.int64   # the index type torch takes (not uint32)
        assert ids.tolist() == w["ids"], c["text"]


def test_decode_inverts_tokenize_and_offsets_cover_the_bytes(tok):
    for c in jsonl("tokenizer_cases.jsonl")[:300]:
        text = c["text"]
        ids, offs = tok.tokenize_with_offsets(text, special="text")
        b = text.encode("utf-8")
        assert tok.decode(ids) == text
        assert tok.decode_bytes(ids) == b
        assert offs[0] == 0 and offs[-1] == len(b) and len(offs) == len(ids) + 1
        for i, t in enumerate(ids):   # each token's bytes are exactly its slice of the input
            assert tok.decode_bytes([t]) == b[offs[i]:offs[i + 1]]


def test_special_token_modes(tok):
    assert tok.tokenize("a<|endoftext|>").tolist() == [64, 50256]
    assert tok.tokenize("<|endoftext|>", special="text").tolist() == [27, 91, 437, 1659, 5239, 91, 29]
    with pytest.raises(g.InvalidInputError) as e:
        tok.tokenize("ab<|endoftext|>", special="error")
    assert e.value.status == "E_SPECIAL" and e.value.offset == 2
    assert "special='text'" in str(e.value) and "--special" not in str(e.value)


def test_invalid_utf8_raises_with_offset_or_is_replaced(tok):
    with pytest.raises(g.InvalidInputError) as e:
        tok.tokenize(b"ab\xc3(")
    assert e.value.status == "E_UTF8" and "offset 2" in str(e.value)
    # errors="replace": the bad byte becomes U+FFFD, as Python's own decoder does
    assert tok.tokenize(b"ab\xc3(", errors="replace").tolist() == \
        tok.tokenize(b"ab\xc3(".decode("utf-8", "replace")).tolist()


def test_decode_of_a_partial_character_and_bad_ids(tok):
    ids = tok.tokenize("🌍")
    assert len(ids) > 1
    assert tok.decode(ids[:1]) == tok.decode_bytes(ids[:1]).decode("utf-8", "replace")
    with pytest.raises(UnicodeDecodeError):
        tok.decode(ids[:1], errors="strict")
    with pytest.raises(g.InvalidInputError) as e:
        tok.decode([15496, 50257])
    assert e.value.status == "E_TOKEN_ID" and "50257" in str(e.value)
    with pytest.raises(OverflowError, match=r"tokens\[1\]=-1"):   # outside uint32: never wrapped
        tok.decode([5, -1])
    with pytest.raises(TypeError):
        tok.decode([1.5])


# ---- the model: facts and tables ----

@pytest.mark.parametrize("dt", ["F32", "F16", "BF16"])
def test_tables_equal_numpys_own_reading(fixtures, dt):
    m = g.Model(fixtures[dt])
    assert (m.n_vocab, m.n_ctx, m.n_embd, m.dtype) == (50257, 1024, 8, dt)
    assert m.path == fixtures[dt]
    for name, table in (("wte.weight", m.wte), ("wpe.weight", m.wpe)):
        ref = read_safetensors(fixtures[dt], name)
        assert table.dtype == np.float32 and table.shape == ref.shape
        assert table.tobytes() == ref.tobytes()
        assert not table.flags.writeable
        with pytest.raises(ValueError):
            table[0, 0] = 1.0
    assert table.flags.aligned   # a copy in memory: C and torch may read it directly


def mapped_ranges(path):
    real = os.path.realpath(path)
    out = []
    with open("/proc/self/maps") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 6 and parts[5] == real:
                lo, hi = (int(x, 16) for x in parts[0].split("-"))
                out.append((lo, hi))
    return out


def test_f32_wte_is_a_copy_outside_the_mapped_file(fixtures):
    """wte is the process's own memory, not the file's read-only mapping: writing through
    torch (which ignores the read-only flag) cannot crash, a truncated file cannot SIGBUS a
    numpy read."""
    m = g.Model(fixtures["gpt2"])   # 548 MB, sparse
    assert (m.name, m.n_vocab, m.n_ctx, m.n_embd) == ("gpt2", 50257, 1024, 768)
    wte = m.wte
    addr = wte.__array_interface__["data"][0]
    ranges = mapped_ranges(fixtures["gpt2"])
    assert ranges   # the library did map the file
    assert not any(lo <= addr < hi for lo, hi in ranges), ranges
    assert m.wte is wte   # cached: no second copy
    ref_rows = {0, 1, 2, 50256}   # the rows the sparse fixture wrote, and zeros it did not
    ref = read_safetensors(fixtures["gpt2"], "wte.weight")
    for r in ref_rows | {3, 777}:
        assert wte[r].tobytes() == ref[r].tobytes()


def test_a_table_outlives_the_model_that_made_it(fixtures):
    m = g.Model(fixtures["F32"])
    wpe = m.wpe
    ref = read_safetensors(fixtures["F32"], "wpe.weight")
    m.close()
    del m
    import gc
    gc.collect()
    assert wpe.tobytes() == ref.tobytes()


def test_closed_objects_raise_and_with_blocks_close(fixtures):
    with g.Model(fixtures["F32"]) as m:
        assert m.n_vocab > 0
    with pytest.raises(ValueError, match="^the model is closed$"):
        m.n_vocab
    with g.Tokenizer() as t:
        assert list(t.tokenize("Hello world")) == [15496, 995]
    with pytest.raises(ValueError, match="^the tokenizer is closed$"):
        t.tokenize("Hello world")




# ---- the embedding stage ----

def program_npy(tmp_path, weights, *args):
    out = tmp_path / "x.npy"
    run_program("embed", "--weights", weights, "--format", "npy", "-o", str(out), *args)
    return np.load(out)


@pytest.mark.parametrize("dt", ["F32", "F16", "BF16"])
def test_embed_is_bit_identical_to_the_program_and_to_numpy(fixtures, tmp_path, dt):
    m = g.Model(fixtures[dt])
    wte = read_safetensors(fixtures[dt], "wte.weight")
    wpe = read_safetensors(fixtures[dt], "wpe.weight")
    for text in TEXTS:
        # the program's default makes <|endoftext|> the special token: allowed_special="all"
        x = m.embed(text, allowed_special="all")
        ids = m.tokenize(text)
        assert x.dtype == np.float32 and x.shape == (len(ids), 8)
        assert x.tobytes() == program_npy(tmp_path, fixtures[dt], text).tobytes()
        assert x.tobytes() == (wte[ids] + wpe[np.arange(len(ids))]).tobytes()
        y = m.embed(ids, start_pos=1000)
        assert y.tobytes() == program_npy(tmp_path, fixtures[dt], "--start-pos", "1000",
                                          text).tobytes()
        assert y.tobytes() == (wte[ids] + wpe[1000:1000 + len(ids)]).tobytes()
        s = m.embed(text, pe="sinusoidal", start_pos=5000, allowed_special="all")
        assert s.tobytes() == program_npy(tmp_path, fixtures[dt], "--pe", "sinusoidal",
                                          "--start-pos", "5000", text).tobytes()
        assert s.tobytes() == (wte[ids] + g.sinusoidal(len(ids), 8, start=5000)).tobytes()


def test_embed_of_ids_lists_and_the_empty_input(fixtures):
    m = g.Model(fixtures["F32"])
    a = m.embed([464, 3290])
    assert a.tobytes() == m.embed(np.array([464, 3290], dtype=np.int64)).tobytes()
    assert m.embed("").shape == (0, 8) and m.embed([]).shape == (0, 8)


def test_embed_errors_are_exceptions(fixtures):
    m = g.Model(fixtures["F32"])
    with pytest.raises(g.InvalidInputError) as e:
        m.embed([1, 2, 3], start_pos=1022)
    assert e.value.status == "E_CONTEXT"
    assert str(e.value) == "3 tokens from position 1022 need positions up to 1024, but wpe has only 1024 rows"
    with pytest.raises(g.InvalidInputError) as e:
        m.embed([50257])
    assert e.value.status == "E_TOKEN_ID" and "50257" in str(e.value)
    with pytest.raises(OverflowError, match="start_pos"):
        m.embed([1], start_pos=-1)
    with pytest.raises(ValueError):
        m.embed([1], pe="rotary")
    with pytest.raises(ValueError):
        m.embed([[1, 2]])
    m.close()
    with pytest.raises(ValueError, match="closed"):
        m.embed([1])
    with pytest.raises(ValueError, match="closed"):
        m.n_embd


def test_weights_lookup_and_open_errors(fixtures, tmp_path, monkeypatch):
    absent = str(tmp_path / "absent.safetensors")
    with pytest.raises(g.NotFoundError) as e:
        g.Model(absent)
    assert isinstance(e.value, FileNotFoundError) and "absent.safetensors" in str(e.value)
    # the library names no option; the program adds its own (--weights)
    r = run_program("embed", "--weights", absent, "x", check=False)
    assert str(e.value) == "%s: No such file or directory" % absent
    assert r.returncode == 1 and r.stderr.decode() == \
        "gpt2-embed: --weights %s: No such file or directory\n" % absent
    with pytest.raises(g.InvalidInputError) as e:
        g.Model(model="gpt-5")
    assert e.value.status == "E_UNKNOWN_MODEL"
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"\x05\x00\x00\x00\x00\x00\x00\x00{nope")
    with pytest.raises(g.Error) as e:
        g.Model(str(bad))
    assert e.value.status == "E_FORMAT" and "bad.safetensors" in str(e.value)
    # as the program: $GPT2_EMBED_WEIGHTS, then weights/<model>.safetensors in the cwd
    monkeypatch.setenv("GPT2_EMBED_WEIGHTS", fixtures["BF16"])
    assert g.Model().dtype == "BF16"
    monkeypatch.delenv("GPT2_EMBED_WEIGHTS")
    (tmp_path / "weights").mkdir()
    os.symlink(fixtures["F16"], tmp_path / "weights" / "gpt2-medium.safetensors")
    monkeypatch.chdir(tmp_path)
    assert g.Model(model="gpt2-medium").dtype == "F16"


# ---- sinusoidal and similarity against numpy ----

@pytest.mark.parametrize("n,dim,start,base", [(64, 768, 0, 10000.0), (7, 16, 123456, 10000.0),
                                              (5, 8, 0, 100.0)])
def test_sinusoidal_is_numpys_float64_formula_rounded_once(n, dim, start, base):
    pe = g.sinusoidal(n, dim, start=start, base=base)
    pos = np.arange(start, start + n, dtype=np.float64)[:, None]
    ang = pos / np.power(base, np.arange(0, dim, 2, dtype=np.float64) / dim)[None, :]
    ref = np.empty((n, dim))
    ref[:, 0::2], ref[:, 1::2] = np.sin(ang), np.cos(ang)
    # float32 rounding of values that agree with numpy's to ~1e-13: within half a float32 ulp
    tol = np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64) / 2 + 1e-12
    assert pe.dtype == np.float32 and pe.shape == (n, dim)
    assert np.all(np.abs(pe.astype(np.float64) - ref) <= tol)


def test_sinusoidal_errors():
    with pytest.raises(g.InvalidInputError) as e:
        g.sinusoidal(4, 7)
    assert e.value.status == "E_ARG"
    with pytest.raises(g.InvalidInputError):
        g.sinusoidal(4, 8, base=1.0)
    with pytest.raises(g.InvalidInputError) as e:
        g.sinusoidal(2, 8, start=2 ** 53)
    assert e.value.status == "E_CONTEXT"


def test_similarity_and_cosine_matrix_against_numpy_float64(fixtures):
    m = g.Model(fixtures["F32"])
    X = m.wpe[:50]
    Xd = X.astype(np.float64)
    n = np.sqrt((Xd * Xd).sum(1))
    ref = (Xd @ Xd.T) / np.outer(n, n)
    M2 = g.cosine_matrix(m.wpe[:50, 1:])   # a non-contiguous slice is accepted (copied)
    assert M2.shape == (50, 50)
    M = g.cosine_matrix(X)
    assert M.shape == (50, 50) and np.max(np.abs(M - ref)) < 1e-12
    assert abs(g.similarity(X[3], X[7]) - ref[3, 7]) < 1e-12
    with pytest.raises(g.InvalidInputError) as e:
        g.similarity(np.zeros(8), X[0])
    assert e.value.status == "E_ZERO_VECTOR"
    with pytest.raises(ValueError):
        g.similarity(X[0], X[0][:4])


def test_version_and_strerror():
    assert g.library_version() == g.__version__
    assert g.strerror(10) == "token ID outside the vocabulary"
    assert g.strerror(999) == "unknown status"


def test_a_subprocess_import_from_a_build_tree(tmp_path):
    """`python3 -c 'import gpt2embed'` with only PYTHONPATH=<tree>/python: the module finds
    <tree>/build/libgpt2embed.so itself (no GPT2EMBED_LIBRARY). The tree is made of
    symlinks to this package and to the library under test."""
    (tmp_path / "python").mkdir()
    (tmp_path / "build").mkdir()
    os.symlink(os.path.join(SRCDIR, "python", "gpt2embed"), tmp_path / "python" / "gpt2embed")
    os.symlink(os.environ["GPT2EMBED_LIBRARY"], tmp_path / "build" / "libgpt2embed.so")
    env = {k: v for k, v in os.environ.items() if k != "GPT2EMBED_LIBRARY"}
    env["PYTHONPATH"] = str(tmp_path / "python")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    code = ("import gpt2embed as g; print(g._lib._name); "
            "print(g.Tokenizer().tokenize('Hello world').tolist())")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       cwd="/")
    assert r.returncode == 0, r.stderr
    name, ids = r.stdout.strip().split("\n")
    assert os.path.realpath(name) == os.path.realpath(os.environ["GPT2EMBED_LIBRARY"])
    assert ids == "[15496, 995]"
    # and a wrong GPT2EMBED_LIBRARY is an ImportError naming it, not another library
    env["GPT2EMBED_LIBRARY"] = str(tmp_path / "nope.so")
    r = subprocess.run([sys.executable, "-c", "import gpt2embed"], env=env,
                       capture_output=True, text=True, cwd="/")
    assert r.returncode == 1 and "ImportError" in r.stderr and "nope.so" in r.stderr
