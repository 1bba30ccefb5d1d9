#!/bin/sh
# SPDX-License-Identifier: MIT
# tools/genman.sh BIN VERSION IN OUT [LANG] — writes the manual IN to OUT with its generated parts
# filled in: the version on the .TH line; between the lines
#   .\" BEGIN GENERATED COMMANDS   and   .\" END GENERATED COMMANDS
# the COMMANDS entries BIN prints from its command table (gpt2-embed __man commands); between
#   .\" BEGIN GENERATED OPTIONS   and   .\" END GENERATED OPTIONS
# the OPTIONS sections that BIN prints from the commands' option tables (gpt2-embed __man);
# both in LANG (default en; ja for doc/ja/gpt2-embed.1), so both manuals list the same commands.
# A line that starts with '.' or "'" but is not one of the man(7) requests below is text that
# a wrap happened to put first (".csv .raw ...", "'gpt2-embed ...'"): troff would take it for
# an unknown request and drop the line, so it gets the zero-width escape \& in front.
# Used by `make man`; tests/test_manual.c runs it and compares with doc/gpt2-embed.1, and
# checks both manuals with groff's warnings on.
set -eu
bin=$1 version=$2 in=$3 out=$4 lang=${5:-en}
gen=$(mktemp)
cmds=$(mktemp)
trap 'rm -f "$gen" "$cmds"' EXIT
"$bin" --lang "$lang" __man > "$gen"
"$bin" --lang "$lang" __man commands > "$cmds"
awk -v version="$version" -v gen="$gen" -v cmds="$cmds" '
  function protect(line) {
    if (line ~ /^[.\047]/ && line !~ /^[.\047]([ \t]*$|\\"|(TH|SH|SS|PP|LP|P|TP|IP|HP|RS|RE|B|I|BI|BR|IR|RB|RI|SM|SB|EX|EE|UR|UE|MT|ME|nf|fi|br|sp|in|ti|ad|na|ne|hy|nh|mso)([ \t]|$))/)
      return "\\&" line
    return line
  }
  { $0 = protect($0) }
  /^\.TH / { sub(/"gpt2-embed [^"]*"/, "\"gpt2-embed " version "\"") }
  /^\.\\" END GENERATED (OPTIONS|COMMANDS)/ { skip = 0 }
  !skip { print }
  /^\.\\" BEGIN GENERATED OPTIONS/ {
    while ((getline line < gen) > 0) print protect(line)
    skip = 1
  }
  /^\.\\" BEGIN GENERATED COMMANDS/ {
    while ((getline line < cmds) > 0) print protect(line)
    skip = 1
  }
' "$in" > "$out"
for part in COMMANDS OPTIONS; do
  grep -q "^\.\\\\\" END GENERATED $part" "$out" || { echo "genman: $in lacks the GENERATED $part markers" >&2; exit 1; }
done
