#!/bin/sh
# SPDX-License-Identifier: MIT
# tools/genman.sh BIN VERSION IN OUT [LANG] — writes the manual IN to OUT with its generated parts
# filled in: the version on the .TH line, and between the lines
#   .\" BEGIN GENERATED OPTIONS   and   .\" END GENERATED OPTIONS
# the OPTIONS sections that BIN prints from the commands' option tables (gpt2-embed __man),
# their help lines in LANG (default en; ja for doc/ja/gpt2-embed.1).
# Used by `make man`; tests/test_manual.c runs it and compares with doc/gpt2-embed.1.
set -eu
bin=$1 version=$2 in=$3 out=$4 lang=${5:-en}
gen=$(mktemp)
trap 'rm -f "$gen"' EXIT
"$bin" --lang "$lang" __man > "$gen"
awk -v version="$version" -v gen="$gen" '
  /^\.TH / { sub(/"gpt2-embed [^"]*"/, "\"gpt2-embed " version "\"") }
  /^\.\\" END GENERATED OPTIONS/ { skip = 0 }
  !skip { print }
  /^\.\\" BEGIN GENERATED OPTIONS/ {
    while ((getline line < gen) > 0) print line
    skip = 1
  }
' "$in" > "$out"
grep -q '^\.\\" END GENERATED OPTIONS' "$out" || { echo "genman: $in lacks the GENERATED OPTIONS markers" >&2; exit 1; }
