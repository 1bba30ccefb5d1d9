#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tokchars_cli_ref.py — the oracle for tests/test_tokchars_cli.c: what every command that
shows tokens must say about the characters behind them, computed here from nothing but the
token IDs, tokenizer/vocab.json and Python's str.

  tokchars_cli_ref.py check DIR VOCAB
      DIR holds text.txt (the input, UTF-8) and the program's outputs for it:
      embed.json, embed.csv, embed.txt (table), tokenize.json, tokenize.txt (table).
      The IDs are read from embed.json; each ID's bytes come from vocab.json through GPT-2's
      byte-to-unicode map (written out here), the token offsets by adding up their lengths
      (and they must spell the text), each character's bytes from str.encode per character.
      Checked: the JSON members offset, chars, char_index, char_part in both JSON documents;
      the display string (犬 (1/3), tokchars.h's rules written out here) in the CSV's display
      column and in both tables, and that the tables' columns after it line up in display
      columns (East Asian Wide and Fullwidth count 2, from unicodedata). Prints "ok N tokens"
      or exits 1 with the first difference.
  tokchars_cli_ref.py percost TEXT COUNT.json TOKENIZE.json
      count --per-char's JSON for the one input TEXT against costs computed here with exact
      fractions from tokenize's offsets (see cost()); the order within 1e-12.
"""
import csv
import io
import json
import sys
import unicodedata
from fractions import Fraction


def byte_decoder():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) + list(range(0xAE, 0xFF + 1))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs)}


def visible(ch):
    if ch == " ":
        return "\u2423"
    if ch == "\n":
        return "\u21b5"
    if ch == "\t":
        return "\u2192"
    if ch == "\\":
        return "\\\\"
    o = ord(ch)
    if o < 0x20 or o == 0x7F or 0x80 <= o <= 0x9F:
        return "".join("\\x%02X" % x for x in ch.encode("utf-8"))
    return ch


def width(s):
    w = 0
    for ch in s:
        if unicodedata.combining(ch):
            continue
        w += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return w


def chars_of(text):
    """(start, end, ch) per character, from str.encode of each."""
    out, pos = [], 0
    for ch in text:
        k = len(ch.encode("utf-8"))
        out.append((pos, pos + k, ch))
        pos += k
    return out


def expect(chars, a, b):
    """What tokchars.h says about the token text[a:b]."""
    over = [(i, s, e, ch) for i, (s, e, ch) in enumerate(chars) if s < b and a < e]
    parts, pieces = [], []   # pieces: [is_partial, shown]
    for i, s, e, ch in over:
        lo, hi, n = max(a, s) - s + 1, min(b, e) - s, e - s
        if (lo, hi) != (1, n):
            parts.append([lo, hi, n])
            share = "%d/%d" % (lo, n) if lo == hi else "%d-%d/%d" % (lo, hi, n)
            pieces.append([True, visible(ch) + " (" + share + ")"])
        elif pieces and not pieces[-1][0]:
            pieces[-1][1] += visible(ch)   # whole characters together make one piece
        else:
            pieces.append([False, visible(ch)])
    display = " + ".join(p for _, p in pieces)
    return {"offset": [a, b], "chars": "".join(ch for _, _, _, ch in over),
            "char_index": over[0][0] if over else 0, "char_part": parts, "display": display}


def fail(msg):
    sys.exit(msg)


def check_table(path, want, prefix, col, after):
    """Every data row: `prefix` characters, the display string, spaces up to display column
    prefix + col, then `after` (the next column starts there in every row)."""
    rows = [l for l in open(path, encoding="utf-8").read().split("\n") if l[:5].strip().isdigit()]
    if len(rows) != len(want):
        fail("%s: %d rows for %d tokens" % (path, len(rows), len(want)))
    for k, (line, w) in enumerate(zip(rows, want)):
        rest = line[prefix:]
        if not rest.startswith(w["display"]):
            fail("%s row %d: %r does not show %r" % (path, k, line, w["display"]))
        pad = col - width(w["display"])
        tail = rest[len(w["display"]):]
        if pad < 1 or tail[:pad] != " " * pad or not tail[pad:].startswith(after):
            fail("%s row %d: next column not at display column %d: %r" % (path, k, prefix + col, line))


def check(d, vocab_path):
    text_b = open(d + "/text.txt", "rb").read()
    text = text_b.decode("utf-8")
    chars = chars_of(text)
    dec = byte_decoder()
    piece = {i: bytes(dec[c] for c in tok) for tok, i in json.load(open(vocab_path, encoding="utf-8")).items()}
    emb = json.load(open(d + "/embed.json", encoding="utf-8"))
    ids = [t["id"] for t in emb["tokens"]]
    want, at = [], 0
    for i in ids:
        b = piece[i]
        if text_b[at:at + len(b)] != b:
            fail("token %d (ID %d) does not spell the text at byte %d" % (len(want), i, at))
        want.append(expect(chars, at, at + len(b)))
        at += len(b)
    if at != len(text_b):
        fail("the tokens cover %d of %d bytes" % (at, len(text_b)))
    tk = json.load(open(d + "/tokenize.json", encoding="utf-8"))
    if tk["ids"] != ids or len(tk["tokens"]) != len(ids):
        fail("tokenize and embed disagree on the IDs")
    for doc, toks in (("embed.json", emb["tokens"]), ("tokenize.json", tk["tokens"])):
        for k, (t, w) in enumerate(zip(toks, want)):
            for key in ("offset", "chars", "char_index", "char_part"):
                if t.get(key) != w[key]:
                    fail("%s token %d: %s is %r, expected %r" % (doc, k, key, t.get(key), w[key]))
            if t["id"] != ids[k]:
                fail("%s token %d: id" % (doc, k))
    rows = list(csv.DictReader(io.StringIO(open(d + "/embed.csv", encoding="utf-8").read())))
    if [r["display"] for r in rows] != [w["display"] for w in want]:
        fail("embed.csv display column %r, expected %r" % ([r["display"] for r in rows], [w["display"] for w in want]))
    check_table(d + "/embed.txt", want, 14, 18, " ")       # "%5zu %6u  ", piece in 18 columns
    check_table(d + "/tokenize.txt", want, 15, 22, "  ")   # "%5zu  %6u  ", piece in 22 columns
    print("ok %d tokens" % len(want))


def cost(text_b, offsets):
    """Per distinct character: [occurrences, tokens it costs (a Fraction), first byte]; a token
    of b bytes gives 1/b of a token to each of its bytes, a character costs what its bytes got."""
    got = [Fraction(0)] * len(text_b)
    for a, b in offsets:
        for x in range(a, b):
            got[x] += Fraction(1, b - a)
    per = {}
    for s, e, ch in chars_of(text_b.decode("utf-8")):
        c = per.setdefault(ch, [0, Fraction(0), s])
        c[0] += 1
        c[1] += sum(got[s:e], Fraction(0))
    return per


def percost(text_path, count_path, tok_path):
    text_b = open(text_path, "rb").read()
    pc = json.load(open(count_path, encoding="utf-8"))["inputs"][0]["per_char"]
    offs = [tuple(o) for o in json.load(open(tok_path, encoding="utf-8"))["offsets"]]
    per = cost(text_b, offs)
    if len(pc) != len(per):
        fail("%d characters listed, %d distinct in the text" % (len(pc), len(per)))
    if sum(v[1] for v in per.values()) != len(offs):
        fail("the exact costs do not add up to the %d tokens" % len(offs))
    tol = 1e-12
    for k, row in enumerate(pc):
        ch = row["char"]
        if ch not in per:
            fail("row %d: %r is not a character of the text" % (k, ch))
        n, c, first = per[ch]
        exp = {"count": n, "bytes": len(ch.encode("utf-8")), "first_byte": first, "codepoint": ord(ch)}
        for key, v in exp.items():
            if row.get(key) != v:
                fail("row %d (%r): %s is %r, expected %r" % (k, ch, key, row.get(key), v))
        for key, v in (("tokens", c), ("tokens_per_char", c / n)):
            if abs(row[key] - float(v)) > tol * max(1.0, float(v)):
                fail("row %d (%r): %s is %r, expected %s = %r" % (k, ch, key, row[key], v, float(v)))
        if k:   # the order: total, then per occurrence (largest first), then first occurrence
            p = pc[k - 1]
            if p["tokens"] < row["tokens"] - tol:
                fail("rows %d, %d: totals out of order" % (k - 1, k))
            if p["tokens"] == row["tokens"]:
                if p["tokens_per_char"] < row["tokens_per_char"] - tol:
                    fail("rows %d, %d: equal totals, per occurrence out of order" % (k - 1, k))
                if p["tokens_per_char"] == row["tokens_per_char"] and p["first_byte"] > row["first_byte"]:
                    fail("rows %d, %d: equal costs, first occurrence out of order" % (k - 1, k))
    print("ok %d characters" % len(pc))


if __name__ == "__main__":
    if sys.argv[1] == "check":
        check(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "percost":
        percost(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit("usage: tokchars_cli_ref.py check DIR VOCAB | percost TEXT COUNT.json TOKENIZE.json")
