# SPDX-License-Identifier: MIT
"""The build step of `pip install .` (pyproject.toml holds the metadata).

build_py runs `make python-lib` in this source tree (the shared library, and the module's
list maker built against this Python's headers; make checks its Debian build dependencies
first, tools/install-deps.sh) and copies both into the package, as gpt2embed/libgpt2embed.so
and gpt2embed/_pylists.so, where the module looks first.  The wheel is marked as
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


def _make_library():
    """Runs make python-lib; returns the paths of the built shared library and list maker."""
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
        if sep and key in ("python-lib", "python-lib-pylists"):
            named[key] = path
    if len(named) != 2:
        raise RuntimeError("setup.py: make python-lib did not name the library and list maker")
    return named["python-lib"], named["python-lib-pylists"]


class BuildPyWithLibrary(build_py):
    def run(self):
        super().run()
        lib, pylists = _make_library()
        for src, name in ((lib, "libgpt2embed.so"), (pylists, "_pylists.so")):
            dest = os.path.join(self.build_lib, "gpt2embed", name)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            shutil.copyfile(src, dest)
            os.chmod(dest, 0o755)


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
