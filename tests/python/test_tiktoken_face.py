# SPDX-License-Identifier: MIT
"""get_encoding("gpt2") against tiktoken: its IDs (tests/data and ../shared/conformance,
made by tiktoken), its special-token rules and method semantics (as tiktoken's own
documented examples state them), count() against tiktoken-made cuts
(tests/data/count_expected.json); checked arguments; the package's namespace."""
import gc
import hashlib
import itertools
import json
import os
import pickle
import sys

import numpy as np
import pytest

from conftest import SRCDIR

import gpt2embed as g

EOT_IDS_AS_TEXT = [27, 91, 437, 1659, 5239, 91, 29]   # "<|endoftext|>" as ordinary text


def jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def conformance():
    """(text, tiktoken's encode_ordinary IDs) of every case we hold."""
    d = os.path.join(SRCDIR, "tests", "data")
    pairs = [("tokenizer_cases.jsonl", "tokenizer_expected.jsonl"),
             ("tokenizer_extra_cases.jsonl", "tokenizer_extra_expected.jsonl"),
             ("tokenizer_long_cases.jsonl", "tokenizer_long_expected.jsonl")]
    out = []
    for c, e in pairs:
        out += [(a["text"], b["ids"]) for a, b in zip(jsonl(os.path.join(d, c)),
                                                      jsonl(os.path.join(d, e)))]
    shared = os.path.join(SRCDIR, "..", "shared", "conformance")
    if os.path.isdir(shared):   # the course's copy, where it is beside the tree
        out += [(a["text"], b["ids"]) for a, b in zip(
            jsonl(os.path.join(shared, "tokenizer_cases.jsonl")),
            jsonl(os.path.join(shared, "tokenizer_expected.jsonl")))]
    assert len(out) > 2000
    return out


CASES = conformance()


@pytest.fixture(scope="module")
def enc():
    return g.get_encoding("gpt2")


def test_encode_ordinary_and_encode_equal_tiktokens_ids(enc):
    n_special = 0
    for text, ids in CASES:
        assert enc.encode_ordinary(text) == ids, text
        assert enc.encode(text, disallowed_special=()) == ids, text
        if "<|endoftext|>" in text:
            n_special += 1
            with pytest.raises(ValueError, match="endoftext"):
                enc.encode(text)
        else:
            got = enc.encode(text)
            assert type(got) is list and all(type(i) is int for i in got)
            assert got == ids
    assert n_special > 10   # the default's refusal was exercised


def test_batches_equal_one_text_at_a_time(enc):
    texts = [t for t, _ in CASES]
    want = [ids for _, ids in CASES]
    for threads in (1, 2, 0):
        assert enc.encode_ordinary_batch(texts, num_threads=threads) == want
    plain = [(t, i) for t, i in CASES if "<|endoftext|>" not in t]
    assert enc.encode_batch([t for t, _ in plain], num_threads=2) == [i for _, i in plain]
    with pytest.raises(ValueError, match="endoftext"):
        enc.encode_batch(["fine", "not <|endoftext|> fine"])
    assert enc.encode_batch(["a<|endoftext|>"], allowed_special="all") == [[64, 50256]]
    assert enc.encode_ordinary_batch([]) == [] and enc.encode_batch([""]) == [[]]
    # a str is its characters, as tiktoken iterates it (its map over the text)
    assert enc.encode_ordinary_batch("ab") == [[64], [65]]
    assert enc.encode_batch("a b", num_threads=1) == [[64], [220], [65]]
    assert enc.encode_ordinary_batch(t for t in ("x", "y")) == [[87], [88]]   # any iterable


def test_a_large_batch_is_pipelined_and_equal(enc):
    """More than 2 MB: the C tokenizer works on one part while the lists of the previous
    one are made (_PART_BYTES); the result must not change, whatever the thread count."""
    from gpt2embed import _encoding
    switch = sys.getswitchinterval()
    texts = [t for t, _ in CASES]
    want = [ids for _, ids in CASES]
    k = 2 * (2 * _encoding._PART_BYTES) // sum(len(t.encode()) for t in texts) + 1
    assert sum(len(t.encode()) for t in texts * k) > 2 * _encoding._PART_BYTES
    for threads in (1, 2, 3):
        got = enc.encode_ordinary_batch(texts * k, num_threads=threads)
        assert got == want * k, threads
        ids, offsets = enc.encode_batch_to_numpy(texts * k, num_threads=threads,
                                                 disallowed_special=())
        assert ids.tolist() == [i for t in want * k for i in t], threads
        assert offsets.tolist() == [0] + list(itertools.accumulate(len(t) for t in want * k))
    assert gc.isenabled()   # paused while the lists were made, and back on
    assert sys.getswitchinterval() == switch   # shortened while a helper thread ran
    gc.disable()
    try:
        assert enc.encode_ordinary_batch(texts * k, num_threads=2) == want * k
        assert not gc.isenabled()   # and a collector the caller turned off stays off
    finally:
        gc.enable()


def test_the_list_maker_in_c_and_in_python_give_the_same_lists(enc, monkeypatch):
    """A batch's texts are joined and its lists made in C (_pylists.c) when it was built,
    as make test always does, else in Python: the conformance IDs both ways, on one thread
    and pipelined (over _pylists' GIL hand-over every 16,384 IDs), and the texts the C join
    hands back to Python (a lone surrogate, an item that is not a str) handled as before."""
    from gpt2embed import _binding as L
    from gpt2embed import _encoding
    if os.environ.get("G2E_BUILD"):   # (set by make test)
        assert L.pylists_append is not None and L.pylists_join is not None, \
            "make test builds BUILDDIR/python/_pylists.so; the module did not load it"
    texts = [t for t, _ in CASES]
    want = [ids for _, ids in CASES]
    k = 2 * (2 * _encoding._PART_BYTES) // sum(len(t.encode()) for t in texts) + 1
    one = {}
    for maker in ("c", "python"):
        if maker == "python":
            monkeypatch.setattr(L, "pylists_append", None)
            monkeypatch.setattr(L, "pylists_join", None)
        for threads in (1, 2):
            assert enc.encode_ordinary_batch(texts * k, num_threads=threads) == want * k, maker
        assert enc.encode_ordinary_batch(["a\ud800b", "ok", "\ud83d\ude00"]) == \
            [enc.encode_ordinary("a\ufffdb"), [482], enc.encode_ordinary("\U0001f600")], maker
        with pytest.raises(TypeError, match=r"text\[1\] must be str, not int"):
            enc.encode_ordinary_batch(["ok", 5])
        assert enc.encode_ordinary_batch(["", ""]) == [[], []]
        # one long text (_C_LIST IDs or more: its list from _pylists.c), and a short one
        one[maker] = enc.encode_ordinary("".join(texts)), enc.encode("Hello world")
    assert one["c"] == one["python"] and len(one["c"][0]) >= _encoding._C_LIST
    assert one["c"][1] == [15496, 995]


def test_the_lists_share_one_int_per_id_and_hold_their_references(enc):
    """_pylists.c gives every occurrence of an ID in one call the same int object (not one
    of CPython's cached small ints here: " the" is 262) and each list a reference of its
    own: the count of references is exact, and all are given back with the lists."""
    from gpt2embed import _binding as L
    lists = enc.encode_ordinary_batch(["The the the the", " the cat"], num_threads=1)
    assert lists == [[464, 262, 262, 262], [262, 3797]]
    x = lists[0][1]
    if L.pylists_append is not None:
        assert all(v is x for v in lists[0][1:] + lists[1][:1])
        assert sys.getrefcount(x) == 4 + 2   # four places, x, getrefcount's argument
    del lists
    gc.collect()
    assert sys.getrefcount(x) == 2


def test_encode_batch_to_numpy_is_encode_batch_flat(enc):
    texts = [t for t, _ in CASES if "<|endoftext|>" not in t] + ["", "a<|endoftext|>", ""]
    for kw in ({}, {"allowed_special": "all"}, {"disallowed_special": ()}):
        want = [enc.encode(t, **kw) for t in texts] if kw else None
        if not kw:
            with pytest.raises(ValueError, match="endoftext"):
                enc.encode_batch_to_numpy(texts)
            continue
        for threads in (1, 2, 0):
            ids, offsets = enc.encode_batch_to_numpy(texts, num_threads=threads, **kw)
            assert ids.dtype == np.int64 and offsets.dtype == np.int64
            assert len(offsets) == len(texts) + 1 and offsets[0] == 0
            assert [ids[a:z].tolist() for a, z in zip(offsets[:-1], offsets[1:])] == want
            assert enc.encode_batch(texts, num_threads=threads, **kw) == want
    ids, offsets = enc.encode_batch_to_numpy([])
    assert ids.tolist() == [] and offsets.tolist() == [0]
    ids, offsets = enc.encode_batch_to_numpy("ab")
    assert ids.tolist() == [64, 65] and offsets.tolist() == [0, 1, 2]


def test_special_token_rules_are_tiktokens(enc):
    # tiktoken's documented examples (core.py's docstring, tests/test_simple_public.py)
    assert enc.encode("hello world") == [31373, 995]
    assert enc.encode("<|endoftext|>", allowed_special={"<|endoftext|>"}) == [50256]
    assert enc.encode("<|endoftext|>", allowed_special="all") == [50256]
    with pytest.raises(ValueError):
        enc.encode("<|endoftext|>")
    assert enc.encode("<|endoftext|>", disallowed_special=()) == EOT_IDS_AS_TEXT
    assert enc.encode("hello <|endoftext|>", allowed_special="all") == [31373, 220, 50256]
    assert enc.encode_ordinary("<|endoftext|>") == EOT_IDS_AS_TEXT
    # allowed wins over the default "all" disallowed; an explicit disallowed set is searched
    # for as it is, any string (tiktoken matches the strings themselves)
    assert enc.encode("a<|endoftext|>", allowed_special={"<|endoftext|>"},
                      disallowed_special="all") == [64, 50256]
    with pytest.raises(ValueError):
        enc.encode("hello world", disallowed_special={"hello"})
    assert enc.encode("<|endoftext|>", disallowed_special={"hello"}) == EOT_IDS_AS_TEXT
    assert enc.encode_to_numpy("<|endoftext|>", allowed_special="all").tolist() == [50256]
    with pytest.raises(ValueError):
        enc.encode_to_numpy("<|endoftext|>")


def test_facts_and_decoding(enc):
    assert (enc.name, enc.eot_token, enc.n_vocab, enc.max_token_value) == ("gpt2", 50256, 50257, 50256)
    assert enc.special_tokens_set == {"<|endoftext|>"} and repr(enc) == "<Encoding 'gpt2'>"
    assert enc.is_special_token(50256) and not enc.is_special_token(31373)
    assert g.get_encoding("gpt2") is enc and g.encoding_for_model("gpt2-xl") is enc
    assert g.list_encoding_names() == ["gpt2", "r50k_base"]
    with pytest.raises(ValueError):
        g.get_encoding("cl100k_base")
    assert enc.decode([31373, 995]) == "hello world"
    assert enc.decode_bytes([31373, 995]) == b"hello world"
    assert enc.decode_single_token_bytes(31373) == b"hello"
    assert enc.decode_single_token_bytes(50256) == b"<|endoftext|>"
    assert enc.decode_tokens_bytes([31373, 995]) == [b"hello", b" world"]
    with pytest.raises(KeyError):
        enc.decode_single_token_bytes(50257)
    assert enc.decode_with_offsets([31373, 995]) == ("hello world", [0, 5])
    assert enc.decode_batch([[31373], [995]]) == ["hello", " world"]
    assert enc.decode_bytes_batch([[31373], [995]]) == [b"hello", b" world"]
    for t in range(0, 50256, 97):
        assert enc.encode_single_token(enc.decode_single_token_bytes(t)) == t
    assert enc.encode_single_token("<|endoftext|>") == 50256
    with pytest.raises(KeyError):
        enc.encode_single_token("not one token at all")
    values = enc.token_byte_values()
    assert len(values) == 50256 and b"hello" in values


def test_r50k_base_and_model_names_are_tiktokens(enc):
    """tiktoken's registry and model table for GPT-2's encoding (tiktoken/model.py: "gpt2"
    and "gpt-2" use gpt2, the early API models r50k_base, the same IDs under another name;
    its own tests encode "hello world" with r50k_base)."""
    r50k = g.get_encoding("r50k_base")
    assert r50k.name == "r50k_base" and repr(r50k) == "<Encoding 'r50k_base'>" and r50k is not enc
    assert r50k.encode("hello world") == [31373, 995] and r50k.encode("") == []
    assert r50k.n_vocab == 50257 and r50k.eot_token == 50256
    for text, ids in CASES[::50]:
        assert r50k.encode_ordinary(text) == ids
    assert pickle.loads(pickle.dumps(r50k)) is r50k
    for model, name in (("gpt2", "gpt2"), ("gpt-2", "gpt2"), ("gpt2-medium", "gpt2"),
                        ("distilgpt2", "gpt2"), ("davinci", "r50k_base"), ("ada", "r50k_base"),
                        ("text-davinci-001", "r50k_base"), ("text-similarity-curie-001", "r50k_base"),
                        ("code-search-ada-code-001", "r50k_base")):
        assert g.encoding_name_for_model(model) == name, model
        assert g.encoding_for_model(model).name == name, model
    assert g.encoding_for_model("davinci") is r50k and g.encoding_for_model("gpt-2") is enc
    for other in ("gpt-4", "davinci-002", "text-davinci-003", "gpt2-huge", ""):
        with pytest.raises(KeyError, match="GPT-2"):
            g.encoding_name_for_model(other)
        with pytest.raises(KeyError):
            g.encoding_for_model(other)
    with pytest.raises(ValueError):
        g.get_encoding("p50k_base")
    with pytest.raises(ValueError):
        g.get_encoding(None)


def test_decode_outside_the_vocabulary_is_a_key_error_as_tiktokens(enc):
    """tiktoken's decode and decode_bytes raise KeyError for a token it does not know; the
    error is also this module's InvalidInputError (a ValueError), as before."""
    for call in (enc.decode, enc.decode_bytes, enc.decode_tokens_bytes, enc.decode_with_offsets):
        with pytest.raises(KeyError) as e:
            call([31373, 50257])
        if call in (enc.decode, enc.decode_bytes):
            assert isinstance(e.value, g.InvalidInputError) and isinstance(e.value, ValueError)
            assert e.value.index == 1 and "50257" in str(e.value) and e.value.status == "E_TOKEN_ID"
    with pytest.raises(KeyError):
        enc.decode_batch([[1], [60000]])
    with pytest.raises(OverflowError):   # (as tiktoken's conversion to unsigned)
        enc.decode([-1])
    assert enc.decode([50256]) == "<|endoftext|>"


def test_is_special_token_takes_any_int(enc):
    assert enc.is_special_token(50256)
    for t in (-1, 0, 31373, 50257, 2 ** 40, -(2 ** 70)):
        assert enc.is_special_token(t) is False, t
    with pytest.raises(TypeError):
        enc.is_special_token("50256")


def test_token_byte_values_are_sorted_by_bytes(enc):
    """tiktoken's token_byte_values: the ordinary tokens' bytes in byte order (its Rust core
    keeps them sorted for encode_with_unstable's prefix search), not by ID."""
    values = enc.token_byte_values()
    by_id = [enc.decode_single_token_bytes(i) for i in range(enc.n_vocab - 1)]
    assert values == sorted(by_id)
    assert values[:2] == [b"\x00", b"\x01"] and values[-1] == b"\xff"
    assert b"<|endoftext|>" not in values
    values.append(b"x")   # a new list each time
    assert len(enc.token_byte_values()) == 50256


def test_encode_with_unstable_is_tiktokens(enc):
    """Stable tokens and completions as tiktoken 1.0.22 computes them
    (tools/unstable_expected.mjs: 679 texts, conformance cases whole and cut in half, white
    space, contractions and the special token at the end; completions by count and digest),
    and tiktoken's documented property: the stable tokens' bytes start the text, and each
    completion's continue them past its end."""
    rows = jsonl(os.path.join(SRCDIR, "tests", "data", "unstable_expected.jsonl"))
    assert len(rows) > 600
    for r in rows:
        kw = {"allowed_special": "all"} if r["allowed_special"] else {}
        stable, completions = enc.encode_with_unstable(r["text"], disallowed_special=(), **kw)
        assert stable == r["tokens"], r["text"]
        digest = hashlib.sha256(";".join(",".join(map(str, c)) for c in sorted(completions))
                                .encode()).hexdigest()
        assert (len(completions), digest) == (r["completions"], r["sha256"]), r["text"]
    text = "hello fanta"
    stable, completions = enc.encode_with_unstable(text)
    assert stable == [31373] and [277, 4910] in completions   # " f" "anta": " fanta" itself
    b = text.encode()
    assert b.startswith(enc.decode_bytes(stable))
    assert all(enc.decode_bytes(stable + c).startswith(b) for c in completions)
    with pytest.raises(ValueError, match="endoftext"):   # encode's special-token rule
        enc.encode_with_unstable("a <|endoftext|>")
    assert enc.encode_with_unstable("a <|endoftext|>", allowed_special="all") == ([64, 220, 50256], [])


def test_llm_c_fineweb_reads_the_end_of_text_token_as_it_does_from_tiktoken(enc):
    """llm.c's dev/data/fineweb.py takes the token from tiktoken's private _special_tokens
    and tokenizes with encode_ordinary: its document layout, written here with this module,
    is <|endoftext|> then the document's tiktoken IDs."""
    eot = enc._special_tokens["<|endoftext|>"]
    assert eot == 50256 and enc._special_tokens == {"<|endoftext|>": 50256}
    text, ids = next((t, i) for t, i in CASES if "<|endoftext|>" in t)
    tokens = [eot]
    tokens.extend(enc.encode_ordinary(text))
    assert np.array(tokens).astype(np.uint16).tolist() == [50256] + ids
    assert enc._mergeable_ranks[b"hello"] == 31373 and len(enc._mergeable_ranks) == 50256
    assert enc._pat_str.startswith("'(?:[sdmt]|ll|ve|re)")


def test_encode_to_numpy_is_int64_and_uint32_one_argument_away(enc):
    """int64 by default, the index type torch.from_numpy must get for nn.Embedding
    (Debian 12's torch refuses tiktoken's uint32: the reason for the default, checked here
    on the installed torch); tiktoken's uint32, or any integer dtype that holds the IDs,
    with dtype=."""
    import torch
    ids = enc.encode_to_numpy("The dog chased the cat")
    assert ids.dtype == np.int64 and ids.tolist() == enc.encode("The dog chased the cat")
    u = enc.encode_to_numpy("The dog chased the cat", dtype=np.uint32)
    assert u.dtype == np.uint32 and u.tolist() == ids.tolist()
    assert enc.encode_to_numpy("a", dtype="uint16").dtype == np.uint16
    for bad in (np.int8, np.float32, "nonsense"):
        with pytest.raises(TypeError):
            enc.encode_to_numpy("a", dtype=bad)
    emb = torch.nn.Embedding(50257, 4)
    assert emb(torch.from_numpy(ids)).shape == (5, 4)
    with pytest.raises(TypeError):
        torch.from_numpy(u)   # torch 1.13: "can't convert np.ndarray of type numpy.uint32"
    flat, offsets = enc.encode_batch_to_numpy(["a b", "c"], dtype=np.uint32)
    assert flat.dtype == np.uint32 and offsets.dtype == np.int64 and flat.tolist() == [64, 275, 66]


def test_decode_of_partial_characters(enc):
    ids = enc.encode("🌍")
    assert len(ids) == 3   # 4 bytes: 8582, 234, 235
    assert enc.decode(ids[:1]) == enc.decode_bytes(ids[:1]).decode("utf-8", "replace")
    assert "\ufffd" in enc.decode(ids[:1])
    with pytest.raises(UnicodeDecodeError):
        enc.decode(ids[:1], errors="strict")
    with pytest.raises(UnicodeDecodeError):   # as tiktoken: strict
        enc.decode_with_offsets(ids[:1])


@pytest.mark.parametrize("text", ["héllo wörld 🌍 こんにちは世界", "a🌍🌍b", "plain ascii text"])
def test_decode_with_offsets_names_the_character_each_token_starts_in(enc, text):
    ids = enc.encode(text)
    got, offs = enc.decode_with_offsets(ids)
    assert got == text
    b = text.encode("utf-8")
    start = 0
    for i, t in enumerate(ids):
        # characters wholly before the token's first byte = the index of the character
        # holding that byte
        assert offs[i] == len(b[:start].decode("utf-8", "ignore")), (i, offs)
        start += len(enc.decode_single_token_bytes(t))


def test_lone_surrogates_are_replaced_as_tiktoken_does(enc):
    assert enc.encode("a\ud800b") == enc.encode("a\ufffdb")
    assert enc.encode_ordinary("\ud83c\udf0d") == enc.encode("🌍")   # a pair joins
    with pytest.raises(TypeError):
        enc.encode(b"bytes are not str")


def test_count_matches_tiktokens_cuts(enc):
    with open(os.path.join(SRCDIR, "tests", "data", "count_expected.json"), encoding="utf-8") as f:
        exp = json.load(f)["inputs"]
    checked = 0
    for e in exp:
        if "text" in e:
            text = e["text"]
        elif e["name"].endswith(".txt"):
            with open(os.path.join(SRCDIR, "tests", "data", e["name"]), encoding="utf-8") as f:
                text = f.read()
        else:
            continue
        for n_ctx, cut in e["cuts"].items():
            c = enc.count(text, int(n_ctx))
            assert (c.n_tokens, c.n_chars, c.n_ctx) == (e["tokens"], e["chars"], int(n_ctx))
            assert (c.ctx_end_byte, c.ctx_end_char, c.ctx_end_splits_char) == \
                (cut["byte"], cut["chars_before"], cut["inside_char"]), (e["name"], n_ctx)
            assert not c.fits
            checked += 1
        c = enc.count(text, e["tokens"])   # exactly full: fits, the end is the text's end
        assert c.fits and c.ctx_end_byte == e["bytes"] and c.ctx_end_char == e["chars"]
    assert checked >= 7
    # <|endoftext|> as ordinary text (7 tokens) or as the special token (1)
    t = "ab<|endoftext|>" * 3 + "🌍"
    for kw, ids in (({"disallowed_special": ()}, enc.encode_ordinary(t)),
                    ({"allowed_special": "all"}, enc.encode(t, allowed_special="all"))):
        for n_ctx in range(1, len(ids) + 2):
            c = enc.count(t, n_ctx, **kw)
            end = sum(len(enc.decode_single_token_bytes(i)) for i in ids[:n_ctx])
            b = t.encode("utf-8")
            assert (c.n_tokens, c.n_chars, c.ctx_end_byte) == (len(ids), len(t), end), (kw, n_ctx)
            assert c.ctx_end_char == len(b[:end].decode("utf-8", "ignore"))
            assert c.ctx_end_splits_char == (0 < end < len(b) and (b[end] & 0xC0) == 0x80)
    with pytest.raises(ValueError):
        enc.count(t)
    ja = [e for e in exp if e["name"] == "ja_prefix_1025"][0]
    c = enc.count(ja["text"])   # the default limit is GPT-2's 1024
    assert c.ctx_end_splits_char and c.ctx_end_byte == ja["cuts"]["1024"]["byte"]


def test_integers_outside_their_c_type_raise_overflow_naming_the_parameter(enc, fixtures):
    with pytest.raises(OverflowError, match="num_threads"):
        enc.encode_batch(["x"], num_threads=2 ** 32)
    with pytest.raises(OverflowError, match="num_threads"):
        enc.encode_ordinary_batch(["x"], num_threads=-1)
    with pytest.raises(OverflowError, match="n_ctx"):
        enc.count("x", -1)
    with pytest.raises(OverflowError, match=r"tokens\[0\]"):
        enc.decode([2 ** 32 + 5])
    with pytest.raises(OverflowError, match=r"tokens\[1\]"):
        enc.decode([1, 2 ** 70])
    with pytest.raises(OverflowError, match="token"):
        enc.decode_single_token_bytes(-1)
    m = g.Model(fixtures["F32"])
    with pytest.raises(OverflowError, match="start_pos"):
        m.embed([464], start_pos=2 ** 64 + 5)
    with pytest.raises(OverflowError, match="start"):
        g.sinusoidal(1, 4, start=2 ** 64 + 7)
    with pytest.raises(OverflowError, match="n"):
        g.sinusoidal(-1, 4)
    with pytest.raises(TypeError, match="start_pos"):
        m.embed([464], start_pos=1.5)


def test_a_nul_in_a_path_is_a_value_error(fixtures):
    with pytest.raises(ValueError, match="path contains a NUL"):
        g.Model(fixtures["F32"] + "\x00junk")
    with pytest.raises(ValueError, match="tokenizer contains a NUL"):
        g.Encoding("gpt2", tokenizer=os.path.join(SRCDIR, "tokenizer") + "\x00x")


def test_messages_name_python_parameters_not_options(tmp_path):
    with pytest.raises(g.NotFoundError) as e:
        g.Encoding("gpt2", tokenizer=str(tmp_path / "none"))
    assert "--" not in str(e.value)
    with pytest.raises(g.NotFoundError) as e:
        g.Model(model="gpt2-xl")   # conftest removed $GPT2_EMBED_WEIGHTS
    assert "pass path=FILE" in str(e.value) and "--weights" not in str(e.value)


def test_pickling_reopens_by_name_and_directory(enc):
    assert pickle.loads(pickle.dumps(enc)) is enc   # the shared one, by name
    d = os.path.join(SRCDIR, "tokenizer")
    e2 = g.get_encoding("gpt2", tokenizer=d)
    back = pickle.loads(pickle.dumps(e2))
    assert back.encode("Hello world") == [15496, 995] and back._dir == d
    t = pickle.loads(pickle.dumps(g.Tokenizer()))
    assert isinstance(t, g.Tokenizer) and t.tokenize("Hello world").tolist() == [15496, 995]


def test_a_model_pickles_by_path_and_reopens(fixtures):
    m = g.Model(fixtures["BF16"])
    back = pickle.loads(pickle.dumps(m))
    assert back is not m and back.path == m.path and back.dtype == "BF16"
    assert back.embed("Hello world").tobytes() == m.embed("Hello world").tobytes()
    m.close()
    assert back.embed([1]).shape == (1, 8)   # its own mapping


def test_the_namespace_is_all_and_only_all():
    public = {n for n in dir(g) if not n.startswith("_")}
    assert public == set(g.__all__)
    for n in g.__all__:
        assert getattr(g, n) is not None
    pkg = os.path.dirname(g.__file__)
    assert os.path.exists(os.path.join(pkg, "py.typed"))
