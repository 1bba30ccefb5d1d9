# SPDX-License-Identifier: MIT
"""The build step of `pip install .` (pyproject.toml holds the metadata).

build_py runs `make python-lib` in this source tree (the shared library, the module's list
maker built against this Python's headers, the rendering object and the message catalogues;
make checks its Debian build dependencies first, tools/install-deps.sh) and copies them into
the package, as gpt2embed/libgpt2embed.so, gpt2embed/_pylists.so,
gpt2embed/gpt2-embed-render.so (the course's figures) and gpt2embed/locale/ (Japanese),
where the module looks first.  The wheel is marked as
platform-specific (it carries native code).  No network is used.

Environment: GPT2EMBED_MAKE_ARGS adds make arguments (e.g. "BUILDDIR=build-san SANITIZE=1"
to ship a library already built elsewhere); GPT2EMBED_MAKE_JOBS sets -j (default 2).
"""
import glob
import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

ROOT = os.path.dirname(os.path.abspath(__file__))


def _version():
    with open(os.path.join(ROOT, "Makefile"), encoding="utf-8") as f:
        m = re.search(r"^VERSION\s*:=\s*(\S+)", f.read(), re.M)
    if not m:
        raise RuntimeError("setup.py: no VERSION := line in the Makefile")
    return m.group(1)


_MADE = ("python-lib", "python-lib-pylists", "python-lib-render", "python-lib-locale")


def _make_library():
    """Runs make python-lib; returns the paths it names (_MADE's keys)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")}
    cmd = ["make", "-C", ROOT, "--no-print-directory",
           "-j%s" % os.environ.get("GPT2EMBED_MAKE_JOBS", "2")]
    cmd += ["PYTHON=" + sys.executable]
    cmd += shlex.split(os.environ.get("GPT2EMBED_MAKE_ARGS", "")) + ["python-lib"]
    r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, universal_newlines=True)
    print(r.stdout, end="")
    if r.returncode != 0:
        raise RuntimeError("setup.py: `%s` failed (exit %d)" % (" ".join(cmd), r.returncode))
    named = {}
    for line in r.stdout.splitlines():
        key, sep, path = line.partition(": ")
        if sep and key in _MADE:
            named[key] = path
    if len(named) != len(_MADE):
        raise RuntimeError("setup.py: make python-lib did not name %s" % ", ".join(k for k in _MADE if k not in named))
    return named


class BuildPyWithLibrary(build_py):
    def run(self):
        super().run()
        made = _make_library()
        pkg = os.path.join(self.build_lib, "gpt2embed")
        os.makedirs(pkg, exist_ok=True)
        for key, name in (("python-lib", "libgpt2embed.so"), ("python-lib-pylists", "_pylists.so"),
                          ("python-lib-render", "gpt2-embed-render.so")):
            dest = os.path.join(pkg, name)
            shutil.copyfile(made[key], dest)
            os.chmod(dest, 0o755)
        for mo in glob.glob(os.path.join(made["python-lib-locale"], "*", "LC_MESSAGES", "gpt2-embed.mo")):
            dest = os.path.join(pkg, "locale", os.path.relpath(mo, made["python-lib-locale"]))
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            shutil.copyfile(mo, dest)


def _bdist_wheel():
    """setuptools 66 (Debian 12) makes wheels with the `wheel` package, which a fresh venv
    lacks (ensurepip brings pip and setuptools only) and pip cannot fetch offline. Then
    Debian's own copy (python3-wheel, /usr/lib/python3/dist-packages/wheel) is loaded from
    the base interpreter's site directories, without putting those directories on sys.path."""
    try:
        from wheel.bdist_wheel import bdist_wheel
        return bdist_wheel
    except ImportError:
        pass
    base = sys.base_prefix
    pattern = os.path.join(base, "lib", "python3*", "*-packages", "wheel", "__init__.py")
    for init in sorted(glob.glob(pattern)):
        spec = importlib.util.spec_from_file_location(
            "wheel", init, submodule_search_locations=[os.path.dirname(init)])
        mod = importlib.util.module_from_spec(spec)
        sys.modules["wheel"] = mod
        spec.loader.exec_module(mod)
        from wheel.bdist_wheel import bdist_wheel
        return bdist_wheel
    raise RuntimeError("setup.py: no `wheel` package here nor in %s (Debian: apt-get install "
                       "python3-wheel)" % pattern)


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True


os.makedirs(os.path.join(ROOT, "build", "pip"), exist_ok=True)
setup(
    version=_version(),
    cmdclass={"build_py": BuildPyWithLibrary, "bdist_wheel": _bdist_wheel()},
    distclass=BinaryDistribution,
    options={"build": {"build_base": os.path.join("build", "pip")},
             "egg_info": {"egg_base": os.path.join("build", "pip")}},
)
