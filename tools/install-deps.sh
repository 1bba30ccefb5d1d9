#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs the Debian packages gpt2-embed needs to build, test and fuzz, if any is missing.
# Run by the Makefile before anything is compiled; quiet and quick when all are present.
# `install-deps.sh python-tests`: what the Python tests need besides (make test runs it):
# venv/pip/setuptools/wheel for `pip install .`, torch and dask.distributed.
set -eu
if [ "${1:-}" = python-tests ]; then
PKGS="python3-venv python3-pip python3-setuptools python3-wheel python3-torch python3-dask python3-distributed"
else
PKGS="gcc make pkg-config binutils libcjson-dev nettle-dev libcurl4-openssl-dev libcriterion-dev libutf8proc-dev
      libcairo2-dev libpango1.0-dev fonts-ipafont-gothic clang python3 python3-numpy python3-pytest hyperfine gettext
      liblapacke-dev libblas-dev libopenblas0-serial chromium"
fi
missing=""
for p in $PKGS; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done
[ -z "$missing" ] && exit 0
echo "install-deps: installing missing Debian packages:$missing" >&2
if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
