# SPDX-License-Identifier: MIT
"""doc/ja/course.ipynb, the course's Japanese notebook, executed as a trainee runs it: Debian's
jupyter-nbconvert with the python3 kernel (python3-ipykernel, python3-nbclient), on a fixture
with GPT-2's vocabulary and context found through $GPT2_EMBED_WEIGHTS as a trainee's
weights/gpt2.safetensors would be. Every cell runs without an error; the numbers its last
cell prints agree with numpy reading the fixture here; what it shows is Japanese (no
English sentence of the program); its figures are inline."""
import json
import os
import re
import shutil
import subprocess

import numpy as np

from conftest import BUILD, MKFIXTURE, SRCDIR, read_safetensors

NOTEBOOK = os.path.join(SRCDIR, "doc", "ja", "course.ipynb")


def npcos(a, b):
    a, b = a.astype(np.float64), b.astype(np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def outputs_of(nb):
    """(text a person reads, number of inline PNG figures, errors) of an executed notebook."""
    texts, pngs, errors = [], 0, []
    for cell in nb["cells"]:
        for o in cell.get("outputs", []):
            if o["output_type"] == "error":
                errors.append("%s: %s" % (o["ename"], o["evalue"]))
            if o["output_type"] == "stream" and o["name"] == "stdout":
                texts.append("".join(o["text"]))
            data = o.get("data", {})
            if "text/html" in data:
                h = "".join(data["text/html"])
                pngs += h.count("data:image/png;base64,")
                texts.append(re.sub(r"<[^>]*>", " ", re.sub(r'src="data:[^"]*"', "", h)))
            elif "text/plain" in data:
                texts.append("".join(data["text/plain"]))
    return "\n".join(texts), pngs, errors


def test_the_japanese_notebook_runs_and_agrees_with_numpy(tmp_path):
    w = str(tmp_path / "gpt2.safetensors")
    subprocess.run([MKFIXTURE, w, "--vocab", "50257", "--ctx", "1024", "--embd", "16"], check=True)
    nb_in = str(tmp_path / "course.ipynb")
    shutil.copy(NOTEBOOK, nb_in)
    env = dict(os.environ, GPT2_EMBED_WEIGHTS=w, PYTHONPATH=os.path.join(SRCDIR, "python"),
               JUPYTER_PLATFORM_DIRS="1", PYDEVD_DISABLE_FILE_VALIDATION="1",
               HOME=str(tmp_path), GPT2EMBED_LIBRARY=os.path.join(BUILD, "libgpt2embed.so"))
    env.pop("LANGUAGE", None)   # the notebook chooses Japanese itself
    r = subprocess.run(["/usr/bin/jupyter-nbconvert", "--to", "notebook", "--execute",
                        "--ExecutePreprocessor.timeout=600", "--output", "out.ipynb", nb_in],
                       capture_output=True, env=env, cwd=str(tmp_path), timeout=900)
    assert r.returncode == 0, r.stderr.decode()[-3000:]
    nb = json.load(open(str(tmp_path / "out.ipynb"), encoding="utf-8"))
    text, pngs, errors = outputs_of(nb)
    assert not errors, errors
    assert pngs == 3, "the order puzzle, learned against sinusoidal and the rotation, inline"
    # the last cell's numbers, against numpy reading the fixture here
    check = json.loads(re.search(r"^CHECK (\{.*\})$", text, re.M).group(1))
    wte, wpe = read_safetensors(w, "wte.weight"), read_safetensors(w, "wpe.weight")
    assert abs(check["cos_pos0_pos1"] - npcos(wpe[0], wpe[1])) < 1e-12
    assert abs(check["cos_pos0_far"] - npcos(wpe[0], wpe[500])) < 1e-12
    assert abs(check["cos_cat_pos0_pos5"] - npcos(wte[3797] + wpe[0], wte[3797] + wpe[5])) < 1e-12
    assert len(check["input_cos"]) == 15
    assert abs(check["learned_d1"] - np.mean([npcos(wpe[p], wpe[p + 1]) for p in range(1023)])) < 1e-12
    # Japanese throughout: the program's sentences and headings, in their Japanese words
    for ja in ("倍率", "位置0と位置1の類似度", "結論: 区別できる。", "因果マスク", "「テキスト」は収まりません",
               "距離ごとの類似度", "一致しました"):
        assert ja in text, ja
    shown = re.sub(r"^CHECK .*$", "", text, flags=re.M)   # (the numbers for this test, as JSON)
    for en in ("conclusion", "Self-attention", "does not fit", "ratio", "The chapter", "positions",
               "learned", "sinusoidal PE", "Exercise", "tokens"):
        assert en not in shown, "English left in the notebook's output: %r" % en
