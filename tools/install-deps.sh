#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs the Debian packages one part of the work needs, if any is missing:
#   tools/install-deps.sh build|python|test|bench|fuzz|all
# `build` is what compiling needs (plain `make`, `make run`); `python` adds Python's headers,
# for the Python module's list maker (`make python-lib`, which pip install . runs, and
# `make install`); the others add
# what running the tests, the benchmarks or the fuzzers needs (the Python tests: venv, pip,
# setuptools and wheel for `pip install .`, torch, dask.distributed; Jupyter's nbconvert, nbclient
# and the python3 kernel, which execute the course's notebook doc/ja/course.ipynb). The Makefile runs it before each
# of those targets; quiet and quick when all are present.
#
# It never installs when NO_INSTALL=1 is set, nor where there is no apt-get: then it names
# what is missing and, for `build`, still lets the build go on when pkg-config finds every
# library (another distribution, a hand-built prefix); it fails only when it does not.
# As root it runs apt-get; otherwise it asks sudo (which asks for a password).
set -eu
set_="${1:-build}"
BUILD="gcc make pkg-config binutils gettext libcjson-dev nettle-dev libutf8proc-dev libcurl4-openssl-dev
       libcairo2-dev libpango1.0-dev liblapacke-dev libblas-dev"
TEST="libcriterion-dev python3 python3-numpy python3-pytest fonts-ipafont-gothic libopenblas0-serial chromium
      groff-base man-db parallel
      python3-venv python3-pip python3-setuptools python3-wheel python3-torch python3-dask python3-distributed
      jupyter-nbconvert python3-nbclient python3-nbformat python3-ipykernel"
# the Python module's list maker (python/gpt2embed/_pylists.c) is built against Python's headers
PYTHON_DEV="libpython3-dev"
BENCH="hyperfine python3 python3-numpy libopenblas0-serial"
FUZZ="clang"
case "$set_" in
  build) PKGS="$BUILD" ;;
  python) PKGS="$BUILD $PYTHON_DEV" ;;
  test)  PKGS="$BUILD $PYTHON_DEV $TEST" ;;
  bench) PKGS="$BUILD $BENCH" ;;
  fuzz)  PKGS="$BUILD $FUZZ" ;;
  all)   PKGS="$BUILD $PYTHON_DEV $TEST $BENCH $FUZZ" ;;
  *) echo "usage: $0 build|python|test|bench|fuzz|all" >&2; exit 2 ;;
esac
# The libraries the build links or takes headers from, as pkg-config names them.
PC_LIBS="libcjson nettle libutf8proc pangocairo fontconfig lapacke blas"

missing=""
if command -v dpkg-query >/dev/null 2>&1; then
  for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      missing="$missing $p"
    fi
  done
  [ -z "$missing" ] && exit 0
fi

if [ "${NO_INSTALL:-}" = 1 ] || ! command -v apt-get >/dev/null 2>&1; then
  why="NO_INSTALL=1"
  command -v apt-get >/dev/null 2>&1 || why="no apt-get on this system"
  [ -n "$missing" ] && echo "install-deps: not installing ($why); missing Debian packages:$missing" >&2
  if [ "$set_" = build ] || [ -z "$missing" ]; then
    if command -v pkg-config >/dev/null 2>&1 && pkg-config --exists $PC_LIBS; then
      exit 0
    fi
    echo "install-deps: pkg-config does not find every library the build needs ($PC_LIBS);" \
         "install them (for example: apt-get install$missing)" >&2
    exit 1
  fi
  echo "install-deps: '$set_' needs them: install them, or run without NO_INSTALL=1" >&2
  exit 1
fi

echo "install-deps: installing missing Debian packages for '$set_':$missing" >&2
if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
