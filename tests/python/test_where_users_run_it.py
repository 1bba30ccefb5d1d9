# SPDX-License-Identifier: MIT
"""Where Python users run the module: pip into a fresh venv, torch (Debian's python3-torch),
a dask.distributed LocalCluster of worker processes (python3-distributed, loopback only);
and make install's choice of site directory."""
import json
import os
import site
import subprocess
import sys
import sysconfig
import warnings

import numpy as np
import pytest

from conftest import BUILD, SRCDIR, read_safetensors

import gpt2embed as g


def _make_args():
    """make arguments that let setup.py reuse the library under test instead of building
    another: its build directory (and the sanitizer build's setting)."""
    rel = os.path.relpath(BUILD, SRCDIR)
    args = "BUILDDIR=%s" % (rel if not rel.startswith("..") else BUILD)
    lib = os.path.join(BUILD, "libgpt2embed.so")
    ldd = subprocess.run(["ldd", lib], capture_output=True, text=True).stdout
    if "libasan" in ldd:
        args += " SANITIZE=1"
    return args


def test_pip_install_into_a_fresh_venv_then_import_from_anywhere(tmp_path):
    venv = tmp_path / "venv"
    # --system-site-packages: Debian's numpy (the one dependency) without a network
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    py = str(venv / "bin" / "python")
    env = {k: v for k, v in os.environ.items()
           if k not in ("GPT2EMBED_LIBRARY", "PYTHONPATH", "GPT2EMBED_RENDER", "GPT2_EMBED_LOCALEDIR")}
    env["GPT2EMBED_MAKE_ARGS"] = _make_args()
    r = subprocess.run([py, "-m", "pip", "install", "--no-build-isolation", "--no-index",
                        "--no-cache-dir", "-q", SRCDIR], env=env, capture_output=True, text=True,
                       cwd=str(tmp_path))
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    code = ("import gpt2embed, os; print(gpt2embed.get_encoding('gpt2').encode('Hello world')); "
            "print(gpt2embed._lib._name); print(os.path.dirname(gpt2embed.__file__)); "
            "from gpt2embed import _binding; print(_binding.pylists_path); "
            "print(gpt2embed.get_encoding('gpt2').encode_batch(['Hello world', '']))")
    r = subprocess.run([py, "-c", code], env=env, capture_output=True, text=True, cwd="/")
    assert r.returncode == 0, r.stderr
    ids, lib, pkg, pylists, batch = r.stdout.strip().split("\n")
    assert ids == "[15496, 995]"
    assert pkg.startswith(str(venv)) and lib == os.path.join(pkg, "libgpt2embed.so")
    # the list maker, built against this Python's headers, shipped and loaded from the package
    assert pylists == os.path.join(pkg, "_pylists.so")
    assert batch == "[[15496, 995], []]"
    assert os.path.exists(os.path.join(pkg, "py.typed"))
    # the course's figures and Japanese from the package alone: the rendering object and the
    # catalogue it ships are the ones found first, wherever else a make install put others
    code = ("import gpt2embed, os; from gpt2embed import course, _study; "
            "png = course.rotation(dim=64)._repr_png_(); print(png[:8] == b'\\x89PNG\\r\\n\\x1a\\n', len(png)); "
            "print(_study._render_lib._name); gpt2embed.set_language('ja'); "
            "print([d for d in _study._localedirs() "
            "       if os.path.exists(os.path.join(d, 'ja', 'LC_MESSAGES', 'gpt2-embed.mo'))][0]); "
            "print(_study._('standard input'))")
    r = subprocess.run([py, "-c", code], env=env, capture_output=True, text=True, cwd="/")
    assert r.returncode == 0, r.stderr
    png, render, locale, ja = r.stdout.strip().split("\n")
    assert png.startswith("True ") and int(png.split()[1]) > 1000, png
    assert render == os.path.join(pkg, "gpt2-embed-render.so")
    assert locale == os.path.join(pkg, "locale")
    assert ja == "標準入力"
    # nothing of the build was left in the source tree
    assert not os.path.exists(os.path.join(SRCDIR, "python", "gpt2embed.egg-info"))


def test_make_install_uses_the_site_directory_python_searches(tmp_path):
    def sitedir(python, prefix):
        return subprocess.run([python, os.path.join(SRCDIR, "tools", "python-sitedir.py"),
                               prefix], capture_output=True, text=True, check=True).stdout.strip()
    py = "/usr/bin/python3"
    user = subprocess.run([py, "-c", "import site; print(site.USER_BASE); "
                           "print(site.getusersitepackages())"], capture_output=True,
                          text=True, check=True).stdout.split()
    assert sitedir(py, user[0]) == user[1]           # make install PREFIX=$HOME/.local
    ver = "%d.%d" % sys.version_info[:2]
    assert sitedir(py, "/usr") == "/usr/lib/python3/dist-packages"
    assert sitedir(py, "/usr/local") == "/usr/local/lib/python%s/dist-packages" % ver
    venv = tmp_path / "v"
    subprocess.run([py, "-m", "venv", "--without-pip", str(venv)], check=True)
    vpy = str(venv / "bin" / "python")
    vsite = subprocess.run([vpy, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                           capture_output=True, text=True, check=True).stdout.strip()
    assert sitedir(vpy, str(venv)) == vsite           # a venv's own prefix
    # a prefix Python does not search: the standard layout, and (make install's last step)
    # a note saying so, which a directory Python searches does not get
    r = subprocess.run([py, os.path.join(SRCDIR, "tools", "python-sitedir.py"), "/opt/x"],
                       capture_output=True, text=True)
    assert r.stdout.strip() == "/opt/x/lib/python%s/site-packages" % ver and r.stderr == ""
    check = [py, os.path.join(SRCDIR, "tools", "python-sitedir.py"), "--check"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run(check + [r.stdout.strip()], capture_output=True, text=True, env=env)
    assert r.returncode == 0 and r.stdout == ""
    assert r.stderr.count("PYTHONPATH=/opt/x/lib/python%s/site-packages" % ver) == 1, r.stderr
    r = subprocess.run(check + ["/usr/lib/python3/dist-packages"], capture_output=True, text=True,
                       env=env)
    assert r.returncode == 0 and r.stdout == "" and r.stderr == ""


import torch   # noqa: E402  (python3-torch: make test installs it; missing is a failure)


def test_torch_from_the_modules_arrays_equals_embed_bit_for_bit(fixtures):
    enc = g.get_encoding("gpt2")
    for dt in ("F32", "BF16"):
        m = g.Model(fixtures[dt])
        wte_ref = read_safetensors(fixtures[dt], "wte.weight")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)   # read-only arrays: torch warns
            wte, wpe = torch.from_numpy(m.wte), torch.from_numpy(m.wpe)
        assert wte.dtype == torch.float32 and wte.numpy().tobytes() == wte_ref.tobytes()
        for text in ["The dog chased the cat", "こんにちは世界 🌍", "x" * 3000]:
            ids = torch.from_numpy(enc.encode_to_numpy(text))[:1024]
            assert ids.dtype == torch.int64
            x = wte[ids] + wpe[torch.arange(len(ids))]
            assert x.numpy().tobytes() == m.embed(ids.numpy()).tobytes()
        # nn.Embedding, as transformers' model.transformer.wte / .wpe, against embed_batch
        emb = torch.nn.Embedding.from_pretrained(torch.tensor(m.wte))
        pos = torch.nn.Embedding.from_pretrained(torch.tensor(m.wpe))
        texts = ["a", "The dog chased the cat", "", "こんにちは"]
        b = m.embed_batch(texts)
        B, T, C = b.embeddings.shape
        assert (B, C) == (4, 8) and T == max(len(enc.encode(t)) for t in texts)
        with torch.no_grad():
            for i, t in enumerate(texts):
                n = len(enc.encode(t))
                assert b.lengths[i] == n and b.attention_mask[i].tolist() == [1] * n + [0] * (T - n)
                ids = torch.tensor(enc.encode(t), dtype=torch.int64)
                ref = emb(ids) + pos(torch.arange(n))
                assert b.embeddings[i, :n].tobytes() == ref.numpy().tobytes()
                assert not b.embeddings[i, n:].any()            # zero padding
                assert (b.input_ids[i, n:] == 50256).all()
                assert b.input_ids[i, :n].tolist() == ids.tolist()


DASK = r'''
import json, sys
from dask.distributed import Client, LocalCluster
import gpt2embed as g
docs = json.load(open(sys.argv[1], encoding="utf-8"))
enc = g.get_encoding("gpt2")
want = [enc.encode_ordinary(d) for d in docs]
if __name__ == "__main__":
    with LocalCluster(n_workers=2, threads_per_worker=2, processes=True, host="127.0.0.1",
                      dashboard_address=None, scheduler_port=0, silence_logs=40) as cluster, \
            Client(cluster) as client:
        got = client.gather(client.map(enc.encode_ordinary, docs, pure=False))
        pids = set(client.run(lambda: __import__("os").getpid()).values())
    assert got == want, "differs"
    assert len(pids) == 2 and __import__("os").getpid() not in pids
    print("ok", len(docs))
'''


def test_dask_distributed_processes_equal_one_process(tmp_path):
    import distributed  # noqa: F401  (python3-distributed, installed by make test)
    docs = []
    for name in ("tokenizer_cases.jsonl", "tokenizer_extra_cases.jsonl"):
        with open(os.path.join(SRCDIR, "tests", "data", name), encoding="utf-8") as f:
            docs += [json.loads(line)["text"] for line in f]
    p = tmp_path / "docs.json"
    p.write_text(json.dumps(docs[:600]), encoding="utf-8")
    script = tmp_path / "dask_map.py"
    script.write_text(DASK, encoding="utf-8")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(SRCDIR, "python")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    r = subprocess.run([sys.executable, str(script), str(p)], env=env, capture_output=True,
                       text=True, timeout=300, cwd=str(tmp_path))
    assert r.returncode == 0 and r.stdout.startswith("ok 600"), r.stdout + r.stderr[-4000:]
