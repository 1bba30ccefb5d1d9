# SPDX-License-Identifier: MIT
"""Prints the directory where `make install PREFIX=P` puts the Python package: the site
directory this Python itself searches for prefix P, so that `import gpt2embed` works with no
PYTHONPATH.  Asked of the running Python (the Makefile's $(PYTHON)), in this order:

1. P is this Python's user base (~/.local): its user site directory
   (~/.local/lib/python3.X/site-packages), which site.py puts on sys.path once it exists.
2. A directory on sys.path under P that is a site directory (…-packages): Debian's
   /usr/lib/python3/dist-packages for /usr, /usr/local/lib/python3.X/dist-packages for
   /usr/local, a venv's site-packages for the venv's prefix.
3. Otherwise the standard layout for P (sysconfig's posix_prefix scheme,
   P/lib/python3.X/site-packages), which Python searches only when told (PYTHONPATH).

`python-sitedir.py --check DIR` (the last step of make install) says on stderr, once, when
DIR is not a directory this Python searches, how to make it one.
"""
import os
import site
import sys
import sysconfig


def _in_lib_of(path, prefix):
    """path is P/lib/... or P/lib64/... (so /usr/local/lib/... is not /usr's)."""
    rel = os.path.relpath(os.path.realpath(path), os.path.realpath(prefix))
    return rel.split(os.sep)[0] in ("lib", "lib64")


def sitedir(prefix):
    if site.USER_BASE and os.path.realpath(prefix) == os.path.realpath(site.USER_BASE):
        return site.getusersitepackages()
    for p in sys.path:
        if p and p.endswith("-packages") and _in_lib_of(p, prefix):
            return p
    return sysconfig.get_path("platlib", "posix_prefix", vars={"base": prefix, "platbase": prefix})


def check(d):
    """A note on stderr when d is not on this Python's path (which holds the site
    directories that exist, and PYTHONPATH's)."""
    if os.path.realpath(d) not in (os.path.realpath(p) for p in sys.path if p):
        sys.stderr.write("note: the Python module went to %s, which %s does not search: "
                         "import it with PYTHONPATH=%s (or install with PYTHONDIR=...)\n"
                         % (d, sys.executable, d))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--check" and sys.argv[2]:
        check(sys.argv[2])
    elif len(sys.argv) == 2 and sys.argv[1] and not sys.argv[1].startswith("-"):
        print(sitedir(sys.argv[1]))
    else:
        sys.exit("usage: python3 tools/python-sitedir.py PREFIX | --check DIR")
