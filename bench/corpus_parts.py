#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# corpus_parts.py CORPUS OUTDIR — the benchmark corpus cut into parts by line, for the word
# cache's hit rates (bench/TOKENIZER_SIMD.md): each non-empty line goes to
#   ja.txt    if it holds kana (U+3040..30FF),
#   code.txt  else if it is indented (tab or 4 spaces) or 1/20 of its characters or more
#             are code punctuation ({}();=<>[]_#),
#   en.txt    else if it holds no CJK, Cyrillic or German letters (English prose),
# and nowhere else (Chinese, Russian, German and empty lines are left out), keeping its newline.
import sys

def kind(s):
    if not s.strip():
        return None
    if any('\u3040' <= c <= '\u30ff' for c in s):
        return 'ja'
    if any('\u4e00' <= c <= '\u9fff' or '\u0400' <= c <= '\u04ff' for c in s):
        return None
    if s.startswith('\t') or s.startswith('    ') or sum(c in '{}();=<>[]_#' for c in s) * 20 >= len(s):
        return 'code'
    if any(c in 'äöüßÄÖÜ' for c in s):
        return None
    return 'en'

with open(sys.argv[1], encoding='utf-8', newline='') as f:
    lines = f.read().splitlines(keepends=True)
out = {k: open(f'{sys.argv[2]}/{k}.txt', 'w', encoding='utf-8', newline='') for k in ('en', 'code', 'ja')}
for line in lines:
    k = kind(line)
    if k:
        out[k].write(line)
for k, f in out.items():
    print(f'{k}.txt: {f.tell()} bytes')
    f.close()
