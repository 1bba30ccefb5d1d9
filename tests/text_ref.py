#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""text_ref.py — an independent oracle for src/lib/text/text.c and tokchars: Python's own UTF-8
decoder (CPython's, which substitutes maximal subparts as Unicode recommends).

  text_ref.py steps IN OUT   IN holds records "<u16 length><bytes>"; for each record OUT
                             gets one line: the steps "cp:len" (cp -1 for an ill-formed
                             maximal subpart), space-separated.
  text_ref.py chars TEXTFILE OFFSETS   OFFSETS holds "start end" per line (byte offsets of
                             tokens in the UTF-8 file TEXTFILE); prints per token one
                             JSON line: offset, chars, char_index, char_part, display
                             (the shapes tokchars.h documents), from Python's str.
"""
import codecs
import json
import struct
import sys

ERRS = []

def record(e):
    ERRS.append((e.start, e.end))
    return ("\ufffd", e.end)

codecs.register_error("record", record)

def steps(b):
    ERRS.clear()
    errs = ERRS
    s = b.decode("utf-8", errors="record")
    out, i, ei = [], 0, 0
    for ch in s:
        if ei < len(errs) and errs[ei][0] == i and ch == "\ufffd":
            a, e = errs[ei]
            out.append((-1, e - a)); i = e; ei += 1
        else:
            n = len(ch.encode("utf-8"))
            out.append((ord(ch), n)); i += n
    assert i == len(b)
    return out

def visible(ch):
    if ch == " ": return "\u2423"
    if ch == "\n": return "\u21b5"
    if ch == "\t": return "\u2192"
    if ch == "\\": return "\\\\"
    o = ord(ch)
    if o < 0x20 or o == 0x7F or 0x80 <= o <= 0x9F:
        return "".join("\\x%02X" % x for x in ch.encode("utf-8"))
    return ch

def main():
    if sys.argv[1] == "steps":
        data = open(sys.argv[2], "rb").read()
        res, p = [], 0
        while p < len(data):
            (n,) = struct.unpack_from("<H", data, p); p += 2
            res.append(" ".join("%d:%d" % x for x in steps(data[p:p + n]))); p += n
        open(sys.argv[3], "w").write("\n".join(res) + "\n")
    elif sys.argv[1] == "chars":
        text = open(sys.argv[2], "rb").read().decode("utf-8")
        # byte offset of every character, from Python's str (not from our decoder)
        starts, pos = [], 0
        for ch in text:
            starts.append((pos, pos + len(ch.encode("utf-8")), ch)); pos += len(ch.encode("utf-8"))
        for line in open(sys.argv[3]):
            a, b = map(int, line.split())
            pieces, run, parts, idx, cs, ce = [], "", [], None, None, None
            for ci, (s, e, ch) in enumerate(starts):
                if not (s < b and a < e):
                    continue
                if idx is None:
                    idx, cs = ci, s
                ce = e
                lo, hi, n = max(a, s) - s + 1, min(b, e) - s, e - s
                if (lo, hi) == (1, n):
                    run += visible(ch)
                    continue
                if run:
                    pieces.append(run); run = ""
                parts.append([lo, hi, n])
                pieces.append("%s (%s/%d)" % (visible(ch), str(lo) if lo == hi else "%d-%d" % (lo, hi), n))
            if run:
                pieces.append(run)
            chars = text[idx:idx + 0] if idx is None else "".join(c for (s, e, c) in starts if s < b and a < e)
            print(json.dumps({"offset": [a, b], "chars": chars, "char_index": idx if idx is not None else 0,
                              "char_part": parts, "display": " + ".join(pieces)}, ensure_ascii=False))
    elif sys.argv[1] == "embedjson":
        # every token of `gpt2-embed embed --format json`: its bytes from vocab.json (GPT-2's
        # byte-to-unicode map, written here), offsets by summing their lengths, then the
        # characters from Python's str; exit 1 with the first difference
        text = open(sys.argv[2], "rb").read()
        doc = json.load(open(sys.argv[3], encoding="utf-8"))
        vocab = json.load(open(sys.argv[4], encoding="utf-8"))
        bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("\u00a1"), ord("\u00ac") + 1)) + \
            list(range(ord("\u00ae"), ord("\u00ff") + 1))
        cs, n = bs[:], 0
        for b in range(256):
            if b not in bs:
                bs.append(b); cs.append(256 + n); n += 1
        byte_of = {chr(c): b for b, c in zip(bs, cs)}
        piece = {i: bytes(byte_of[ch] for ch in tok) for tok, i in vocab.items()}
        s_text = text.decode("utf-8")
        starts, pos = [], 0
        for ch in s_text:
            k = len(ch.encode("utf-8")); starts.append((pos, pos + k, ch)); pos += k
        at = 0
        for t in doc["tokens"]:
            b = piece[t["id"]]
            want = {"offset": [at, at + len(b)]}
            assert text[at:at + len(b)] == b, ("token bytes differ from the text", t)
            over = [(s0, e0, ch) for (s0, e0, ch) in starts if s0 < at + len(b) and at < e0]
            want["chars"] = "".join(ch for (_, _, ch) in over)
            want["char_index"] = starts.index(over[0])
            want["char_part"] = [[max(at, s0) - s0 + 1, min(at + len(b), e0) - s0, e0 - s0]
                                 for (s0, e0, ch) in over
                                 if (max(at, s0) - s0 + 1, min(at + len(b), e0) - s0) != (1, e0 - s0)]
            for k, v in want.items():
                if t.get(k) != v:
                    sys.exit("token %r: %s is %r, expected %r" % (t["index"], k, t.get(k), v))
            at += len(b)
        assert at == len(text), "the tokens do not cover the text"
        print("ok %d tokens" % len(doc["tokens"]))
    else:
        sys.exit("usage: text_ref.py steps IN OUT | chars TEXT OFFSETS | embedjson TEXT JSON VOCAB")

main()
