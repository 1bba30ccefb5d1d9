# SPDX-License-Identifier: MIT
"""gpt2embed.course: the course's numbers from Python are the program's JSON (one C function
computes them) and agree with numpy reading the weights file itself; the sentences follow the
numbers and the chosen language; figures come from the program's rendering object; the
catalogue holds every message of the program the module shows."""
import ast
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from conftest import BUILD, SRCDIR, read_safetensors, run_program

import gpt2embed as g
from gpt2embed import course

PNG = b"\x89PNG\r\n\x1a\n"
A, B = "犬が猫を追いかけた", "猫が犬を追いかけた"


@pytest.fixture(scope="module")
def model(fixtures):
    m = g.Model(fixtures["F32"])
    yield m
    m.close()


@pytest.fixture(autouse=True)
def english():
    course.set_language("en")
    yield
    course.set_language("en")


def npcos(a, b):
    a, b = a.astype(np.float64), b.astype(np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_exercises_are_the_programs_and_numpys(model, fixtures):
    ex = course.exercises(model)
    prog = json.loads(run_program("exercise", "--format", "json", "--weights", fixtures["F32"]).stdout)
    assert ex.exercise1 == prog["exercise1"] and ex.exercise2 == prog["exercise2"]
    wte = read_safetensors(fixtures["F32"], "wte.weight")
    wpe = read_safetensors(fixtures["F32"], "wpe.weight")
    two = ex.exercise2
    assert two["wpe_shape"] == [1024, 8] and two["cat_token_id"] == 3797
    assert abs(two["cos_pos0_pos1"] - npcos(wpe[0], wpe[1])) < 1e-12
    assert abs(two["cos_pos0_pos500"] - npcos(wpe[0], wpe[500])) < 1e-12
    assert abs(two["cos_cat_pos0_pos5"] - npcos(wte[3797] + wpe[0], wte[3797] + wpe[5])) < 1e-12
    assert ex.exercise1["ratio"] == 4096 * 4096 / (1024 * 768)
    # the sentences follow the numbers: the chapter's expectation or its opposite
    near = two["cos_pos0_pos1"] > two["cos_pos0_pos500"]
    assert any(("as the chapter expects" if near else "the opposite of what the chapter") in s for s in ex.says)
    assert course.exercises(None).exercise2 is None
    html = ex._repr_html_()
    assert "%.4f" % two["cos_pos0_pos1"] in html and "21.3333" in html


def test_order_puzzle_is_compares_and_numpys(model, fixtures):
    o = course.compare(A, B, model)
    prog = json.loads(run_program("compare", A, B, "--format", "json", "--weights", fixtures["F32"]).stdout)
    doc = dict(o.document)
    assert doc == prog
    wte = read_safetensors(fixtures["F32"], "wte.weight")
    wpe = read_safetensors(fixtures["F32"], "wpe.weight")
    a, b = o.a["ids"], o.b["ids"]
    n = len(o.token_cos)
    for t in range(n):
        assert abs(o.input_cos[t] - min(1.0, npcos(wte[a[t]] + wpe[t], wte[b[t]] + wpe[t]))) < 1e-12
    # the causal toy layer without positions, in numpy: row t of B against row t of A
    def causal(x):
        x = x.astype(np.float64)
        s = x @ x.T / np.sqrt(x.shape[1])
        s = np.where(np.tril(np.ones(s.shape, dtype=bool)), s, -np.inf)
        p = np.exp(s - s.max(axis=1, keepdims=True))
        return (p / p.sum(axis=1, keepdims=True)) @ x
    ya, yb = causal(wte[a]), causal(wte[b])
    equal = np.abs(ya[:n] - yb[:n]).max(axis=1) <= 1e-9 * max(1.0, float(np.abs(wte[np.concatenate([a, b])]).max()))
    assert (o.views["without_positions"]["causal_equal"] == equal).all()
    assert int((~equal).sum()) == 6   # the 6 of 15 rows
    assert o.verdict == "distinguishable" and o.same_multiset
    assert (o.rows_a == wte[a[:n]] + wpe[:n]).all()
    assert any("causal mask already separates 6 of 15 rows" in s for s in o.says)
    assert o.a["labels"][0] == "犬 (1/3)"
    png = o._repr_png_()
    assert png.startswith(PNG)
    assert "data:image/png;base64," in o._repr_html_()


def test_learned_vs_sinusoidal_is_the_programs(model, fixtures):
    b = course.learned_vs_sinusoidal(model, 100, 20)
    prog = json.loads(run_program("sinusoidal", "--compare-learned", "--len", "100", "--max-distance",
                                  "20", "--format", "json", "--weights", fixtures["F32"]).stdout)
    assert b.document == prog
    wpe = read_safetensors(fixtures["F32"], "wpe.weight")[:100].astype(np.float64)
    for d in (0, 1, 7, 20):
        want = np.mean([npcos(wpe[p], wpe[p + d]) for p in range(100 - d)])
        assert abs(b.learned[d] - want) < 1e-12
    assert b.png().startswith(PNG)


def test_rotation_against_numpy():
    r = course.rotation(64, n=40)
    w = 10000.0 ** (-2 * 8 / 64)
    assert r.pair == 8 and abs(r.omega - w) < 1e-15
    p = np.arange(40)
    assert np.abs(r.x - np.cos(p * w)).max() < 1e-12 and np.abs(r.y - np.sin(p * w)).max() < 1e-12
    assert r.png().startswith(PNG)
    with pytest.raises(g.InvalidInputError):
        course.rotation(63)


def test_context_against_tiktokens_counts():
    exp = json.load(open(os.path.join(SRCDIR, "tests/data/count_expected.json"), encoding="utf-8"))
    for name in ("count_ja.txt", "count_en.txt"):
        want = next(e for e in exp["inputs"] if e["name"] == name)
        text = open(os.path.join(SRCDIR, "tests/data", name), encoding="utf-8").read()
        c = course.context(text)
        assert (c.n_tokens, c.n_chars, c.n_bytes) == (want["tokens"], want["chars"], want["bytes"])
        if name == "count_ja.txt":   # over the limit: where tiktoken's 1024th token ends
            cut = want["cuts"]["1024"]
            assert not c.fits and c.cut_char == cut["chars_before"] and c.splits_char == cut["inside_char"]
            for n_ctx in (7, 100, 256):
                cut = want["cuts"][str(n_ctx)]
                assert course.context(text, n_ctx).cut_char == cut["chars_before"]
    ja = course.context(open(os.path.join(SRCDIR, "tests/data/count_ja.txt"), encoding="utf-8").read())
    assert not ja.fits and ja.windows == 2 and ja.words is None
    assert "\u2702" in ja._repr_html_() and "<mark>" in ja._repr_html_()   # the cut, inside 角
    en = course.context(open(os.path.join(SRCDIR, "tests/data/count_en.txt"), encoding="utf-8").read())
    words = sum(1 for w in en.text.split() if re.search("[A-Za-z]", w))
    assert en.words == words and abs(en.words_in_context - 1024 * words / en.n_tokens) < 1e-9


def test_japanese_sentences_errors_and_figures(model):
    en_png = course.compare(A, B, model).png()
    assert course.set_language("ja") == "ja"
    o = course.compare(A, B, model)
    assert any("結論: 区別できる。" in s for s in o.says)
    assert not any("conclusion" in s for s in o.says)
    assert o.png() != en_png   # the same figure, its text in Japanese
    html = course.exercises(model)._repr_html_()
    assert "章の演習" in html and "倍率" in html and "寄与率" not in html
    with pytest.raises(g.InvalidInputError) as e:
        course.compare("", "猫", model)
    assert "テキスト A" in str(e.value) or "トークン" in str(e.value), str(e.value)
    course.set_language("en")
    with pytest.raises(g.InvalidInputError) as e:
        course.compare("", "猫", model)
    assert "text A" in str(e.value)
    with pytest.raises(ValueError):
        course.set_language("fr")


def test_language_from_the_environment(fixtures):
    code = ("import gpt2embed as g; from gpt2embed import course; m = g.Model(%r); "
            "print(course.language()); print(course.compare('犬が猫を追いかけた', '猫が犬を追いかけた', m).says[-1])"
            % fixtures["F32"])
    env = dict(os.environ, LANGUAGE="ja", PYTHONPATH=os.path.join(SRCDIR, "python"))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, env=env)
    assert r.returncode == 0, r.stderr.decode()
    out = r.stdout.decode()
    assert out.startswith("ja\n") and "結論" in out, out


def test_every_program_message_the_module_shows_is_in_the_catalogue():
    """_c("...") and _ctx("...", "...") name the program's own msgids: each must be in the
    template the build extracted from the C sources (else it would stay English)."""
    tree = ast.parse(open(os.path.join(SRCDIR, "python/gpt2embed/_study.py"), encoding="utf-8").read())
    used = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args:
            args = [a.value for a in node.args[:2] if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if node.func.id == "_c" and args:
                used.add(args[0])
            elif node.func.id == "_ctx" and len(args) == 2:
                used.add(args[0] + "\x04" + args[1])
    pot = open(os.path.join(BUILD, "po/gpt2-embed.pot"), encoding="utf-8").read()
    ids = set()
    for block in pot.split("\n\n"):
        ctx = re.search(r'^msgctxt "(.*)"$', block, re.M)
        m = re.search(r'^msgid ((?:".*"\n?)+)', block, re.M)
        if m:
            s = "".join(re.findall(r'"(.*)"', m.group(1)))
            s = s.encode("utf-8").decode("unicode_escape").encode("latin1").decode("utf-8")
            ids.add((ctx.group(1) + "\x04" if ctx else "") + s)
    assert len(used) > 15
    missing = sorted(u for u in used if u not in ids)
    assert not missing, missing
