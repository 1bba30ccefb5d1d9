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


# ---- principal components, wpe's norms, RoPE ----

def test_pca_is_the_programs_json_and_numpys_eigendecomposition(model, fixtures):
    p = course.pca(model, k=4, skip=1)
    prog = json.loads(run_program("pca", "--skip", "1", "-k", "4", "--format", "json", "--weights",
                                  fixtures["F32"]).stdout)
    assert p.document == prog
    # numpy: the covariance of the centred wpe[1:] (ddof 1) taken apart by eigh
    X = read_safetensors(fixtures["F32"], "wpe.weight").astype(np.float64)[1:]
    Xc = X - X.mean(axis=0)
    w, V = np.linalg.eigh(np.cov(Xc, rowvar=False))
    w, V = w[::-1], V[:, ::-1]
    assert p.n == 1023 and p.d == 8 and p.k == 4
    assert np.allclose(p.variance, w, rtol=1e-10, atol=1e-14)
    assert np.allclose(p.mean, X.mean(axis=0), rtol=0, atol=1e-12)
    assert abs(p.total - np.trace(np.cov(Xc, rowvar=False))) < 1e-10
    assert np.allclose(p.ratio, w / w.sum(), atol=1e-12) and np.allclose(p.cumulative, np.cumsum(w / w.sum()))
    for j in range(4):   # the sign convention: the entry of largest magnitude is positive
        v = V[:, j] * np.sign(V[np.argmax(np.abs(V[:, j])), j])
        assert np.allclose(p.components[j], v, atol=1e-9)
    assert np.allclose(p.proj, Xc @ p.components.T, atol=1e-9)
    assert p.row_id[0] == 1 and p.row_id[-1] == 1023
    assert p.says[0].startswith("total variance") and "PC1 and PC2 explain %.2f%%" % (100 * p.cumulative[1]) in p.says[1]


def test_pca_of_wte_rows_and_of_the_sinusoidal_pe(model, fixtures):
    ids = [5, 9, 2, 63, 17, 30, 44, 8]
    p = course.pca(model, of="wte", ids=ids, k=2)
    wte = read_safetensors(fixtures["F32"], "wte.weight").astype(np.float64)[ids]
    w = np.linalg.eigvalsh(np.cov(wte - wte.mean(axis=0), rowvar=False))[::-1]
    assert np.allclose(p.variance, w, rtol=1e-9, atol=1e-12)
    assert list(p.row_id) == ids
    assert list(course.pca(model, of="wte", text=" cat dog", k=1).row_id) == [3797, 3290]
    n, d = 50, 8
    s = course.pca(None, of="sinusoidal", length=n, dim=d, base=100.0, skip=2, k=d)
    pos = np.arange(2, n)[:, None]
    i = np.arange(d // 2)
    ang = pos / 100.0 ** (2 * i / d)
    X = np.empty((n - 2, d))
    X[:, 0::2], X[:, 1::2] = np.sin(ang), np.cos(ang)
    w = np.linalg.eigvalsh(np.cov(X, rowvar=False))[::-1]
    assert np.allclose(s.variance, w, rtol=1e-9, atol=1e-14)
    prog = json.loads(run_program("pca", "--of", "sinusoidal", "--len", "50", "--dim", "8", "--base", "100",
                                  "--skip", "2", "-k", "8", "--format", "json").stdout)
    assert s.document == prog and prog["source"] == "" and prog["rows"] == n - 2
    # a model passed beside of="sinusoidal" is not the source: the same document
    assert course.pca(model, of="sinusoidal", length=n, dim=d, base=100.0, skip=2, k=d).document == prog
    prog = json.loads(run_program("pca", "--of", "wte", "--ids", ",".join(map(str, ids)), "-k", "2",
                                  "--format", "json", "--weights", fixtures["F32"]).stdout)
    assert p.document == prog and prog["of"] == "wte" and prog["source"] == fixtures["F32"]
    assert prog["variance"] == p.variance.tolist() and prog["cumulative"] == p.cumulative.tolist()


def test_pca_edges(model):
    # k larger than the rank: 3 rows have rank 2 once centred; the rest is at the noise floor
    p = course.pca(model, of="wte", ids=[1, 2, 3], k=8)
    assert p.n_signal == 2 and p.k == 8 and np.all(np.abs(p.variance[2:]) <= p.floor)
    assert len(p._extra_html()) >= 3   # the table stops at the floor: 2 rows
    assert p._repr_html_().count("<tr><td>") == 2
    with pytest.raises(g.InvalidInputError, match="9 components asked of 8 columns"):
        course.pca(model, k=9)
    for rows in ({"ids": [7]}, {"ids": []}, {"text": ""}, {"text": " cat"}):
        with pytest.raises(ValueError, match="principal components need at least 2 rows"):
            course.pca(model, of="wte", **rows)
    # one row reaches the library from C: its message (test_api.c); here two equal rows
    assert course.pca(model, of="wte", ids=[7, 7], k=1).n_signal == 0
    with pytest.raises(g.InvalidInputError, match="leaves no rows of 1024"):
        course.pca(model, skip=1024)
    with pytest.raises(g.Error) as e:
        course.pca(model, of="wte", ids=[1, 50257, 2])
    assert e.value.status == "E_TOKEN_ID" and e.value.index == 1
    with pytest.raises(ValueError):
        course.pca(model, of="wpe", ids=[1, 2])


def test_wpe_norms_are_numpys(model, fixtures):
    n = course.wpe_norms(model)
    wpe = read_safetensors(fixtures["F32"], "wpe.weight").astype(np.float64)
    want = np.sqrt((wpe ** 2).sum(axis=1))
    assert np.allclose(n.norms, want, rtol=1e-13)
    assert n.median == np.median(want[1:]) and n.first == n.norms[0]
    assert n.argmax == 1 + int(np.argmax(want[1:]))
    prog = json.loads(run_program("stats", "--by-position", "--format", "json", "--weights", fixtures["F32"]).stdout)
    assert prog["norm"] == n.norms.tolist() and prog["cv_from_split"] == n.cv_late
    # .document is the program's document, and its numbers are numpy's
    assert n.document == prog
    doc = n.document
    assert doc["weights"] == fixtures["F32"] and doc["positions"] == 1024 and doc["position"] == list(range(1024))
    assert np.allclose(doc["norm"], want, rtol=1e-13) and doc["norm_0"] == doc["norm"][0]
    assert doc["median_norm_1_on"] == np.median(doc["norm"][1:])
    assert np.allclose(doc["vs_median"], want / np.median(want[1:]), rtol=1e-13)
    assert doc["split"] == 100 and np.isclose(doc["mean_from_split"], want[100:].mean(), rtol=1e-13)
    assert np.isclose(doc["cv_before_split"], want[1:100].std() / want[1:100].mean(), rtol=1e-12)


def test_wpe_norms_say_position_0_against_the_median_only_when_it_is_positive(model, fixtures):
    # the "gpt2" fixture writes wpe rows 0, 1 and 1023 only: the median of positions 1.. is 0
    # (numpy's, from the file), and no ratio to it is said; the full fixture's median is positive
    zero = g.Model(fixtures["gpt2"])
    try:
        wpe = read_safetensors(fixtures["gpt2"], "wpe.weight").astype(np.float64)
        assert np.median(np.sqrt((wpe ** 2).sum(axis=1))[1:]) == 0
        for lang in ("en", "ja"):
            course.set_language(lang)
            z, p = course.wpe_norms(zero), course.wpe_norms(model)
            assert np.isnan(z.first_vs_median) and z.median == 0 and z.first > 0
            assert p.first_vs_median == p.first / p.median and p.median > 0
            no_ratio = {"en": "so no ratio to it is defined", "ja": "中央値との比は定まりません"}[lang]
            ratio = {"en": "%.2f x the median" % p.first_vs_median, "ja": "の %.2f 倍" % p.first_vs_median}[lang]
            assert no_ratio in z.says[0] and "%.4f" % z.first in z.says[0] and " x the median" not in z.says[0]
            assert ratio in p.says[0] and no_ratio not in p.says[0]
            assert z.png().startswith(PNG)
        prog = json.loads(run_program("stats", "--by-position", "--format", "json", "--weights",
                                      fixtures["gpt2"]).stdout)
        assert z.document == prog and prog["norm_0_vs_median"] is None
        assert set(prog["vs_median"]) == {None}
    finally:
        zero.close()


def test_rope_is_numpys_rotation_and_the_programs(model):
    r = course.rope(64, max_pos=1000, pairs=200, seed=3, start=0, to=40, samples=20, pair=5, n=30)
    theta = 10000.0 ** (-2 * 5 / 64)
    p = np.arange(30)
    assert abs(r.theta - theta) < 1e-15
    assert np.allclose(r.x, np.cos(p * theta), atol=1e-13) and np.allclose(r.y, np.sin(p * theta), atol=1e-13)
    # the expectation in numpy: (2/d) sum_i cos(k theta_i)
    th = 10000.0 ** (-2 * np.arange(32) / 64)
    assert np.allclose(r.expected, (2 / 64) * np.cos(np.outer(r.k, th)).sum(axis=1), atol=1e-12)
    assert r.mean[0] == pytest.approx(1.0, abs=1e-12)
    prog = json.loads(run_program("rope", "--dot-curve", "-d", "64", "--to", "40", "--samples", "20",
                                  "--seed", "3", "--format", "json").stdout)
    assert prog["mean_dot"] == r.mean.tolist() and prog["expected"] == r.expected.tolist()
    prog = json.loads(run_program("rope", "--check-relative", "-d", "64", "--max-pos", "1000", "--pairs",
                                  "200", "--seed", "3", "--format", "json").stdout)
    assert prog["max_deviation"] == r.check["max_dev"] and prog["relative"] == r.check["relative"]
    assert r.check["relative"] and "depends on m - n alone" in r.says[0]
    # the sentence follows the check: numbers that say the opposite get the opposite sentence
    r.check = dict(r.check, relative=False)
    assert "does not depend on m - n alone" in r._check_says()
    assert r.schemes[0][3] == "rotary relative (RoPE)" and r.schemes[0][0] == ""
    with pytest.raises(g.InvalidInputError, match="pair 32 does not exist in width 64"):
        course.rope(64, pairs=1, to=1, samples=1, pair=32)
    # .document: the program's document of each mode for the same parameters
    common = ("-d", "64", "--format", "json")
    modes = {"schemes": (), "check_relative": ("--check-relative", "--max-pos", "1000", "--pairs", "200", "--seed", "3"),
             "dot_curve": ("--dot-curve", "--to", "40", "--samples", "20", "--seed", "3"),
             "rotation": ("--rotation", "--pair", "5", "--len", "30")}
    assert list(r.document) == list(modes)
    for key, args in modes.items():
        assert r.document[key] == json.loads(run_program("rope", *args, *common).stdout), key
    assert r.document["rotation"]["x_2i"] == r.x.tolist() and r.document["dot_curve"]["k"] == r.k.tolist()
    # the default pair is the program's (dim/8) and its document says which
    r2 = course.rope(64, base=500.0, pairs=5, to=3, samples=2, n=4)
    prog = json.loads(run_program("rope", "--rotation", "-d", "64", "--base", "500", "--len", "4", "--format",
                                  "json").stdout)
    assert r2.pair == 8 and r2.document["rotation"] == prog and prog["pair"] == 8
    assert r2.document["schemes"]["base"] == 500.0 and r2.document["schemes"]["dim"] == 64
    with pytest.raises(g.InvalidInputError):
        course.rope(63)


def test_pca_and_rope_show_themselves_in_japanese(model):
    course.set_language("ja")
    p = course.pca(model, k=3, skip=1)
    h = p._repr_html_()
    assert "主成分" in p._title() and h.count("data:image/png;base64,") == 4
    for w in ("components", "variance", "pc1-pc2", "pc2-pc3"):
        assert p.png(w).startswith(PNG)
    r = course.rope(64, pairs=10, to=8, samples=2)
    assert r.png().startswith(PNG) and r.png("rotation").startswith(PNG)
    assert "トークンベクトルに足す" in r._repr_html_()
    assert course.wpe_norms(model).png().startswith(PNG)
    with pytest.raises(g.InvalidInputError, match="成分"):
        course.pca(model, k=9)
