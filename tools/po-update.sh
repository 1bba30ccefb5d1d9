#!/bin/sh
# SPDX-License-Identifier: MIT
# po-update.sh POT — after the sources' messages changed: copies the freshly extracted
# template (make builds it in build/po/) to po/gpt2-embed.pot and merges it into every
# po/*.po with msgmerge (new messages arrive untranslated, changed ones fuzzy with their old
# translation as a hint), then prints each catalogue's statistics. Run by `make po-update`;
# the translator then fills in what is untranslated or fuzzy until
#   msgfmt -c --statistics po/ja.po   says "N translated messages." and nothing else.
set -eu
pot=${1:?usage: po-update.sh build/po/gpt2-embed.pot}
cd "$(dirname "$0")/.."
cp "$pot" po/gpt2-embed.pot
for po in po/*.po; do
  # a textual git merge of two branches' additions can leave a message defined twice:
  # keep the first definition (msguniq), then merge the template
  msguniq --use-first --no-wrap -o "$po.tmp" "$po" && mv "$po.tmp" "$po"
  msgmerge --quiet --update --backup=none --no-wrap "$po" po/gpt2-embed.pot
  printf '%s: ' "$po"
  msgfmt -c --statistics -o /dev/null "$po"
done
