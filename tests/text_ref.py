#!/usr/bin/env python3
"""text_ref.py — an independent oracle for src/lib/text.c and tokchars: Python's own UTF-8
decoder (CPython's, which substitutes maximal subparts as Unicode recommends).

  text_ref.py steps IN OUT   IN holds records "<u16 length><bytes>"; for each record OUT
                             gets one line: the steps "cp:len" (cp -1 for an ill-formed
                             maximal subpart), space-separated.
  text_ref.py chars TEXTFILE OFFSETS   OFFSETS holds "start end" per line (byte offsets of
                             tokens in the UTF-8 file TEXTFILE); prints per token the
                             characters it overlaps and "k/n" shares (see tokchars.h).
"""
import codecs
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
            parts = []
            for (s, e, ch) in starts:
                if s < b and a < e:
                    lo, hi = max(a, s), min(b, e)
                    n = e - s
                    if lo == s and hi == e:
                        parts.append(ch)
                    else:
                        # bytes lo..hi of the character's n bytes: share "k/n" with k the
                        # 1-based index of the last byte when one byte, else "i-j/n"
                        i, j = lo - s + 1, hi - s
                        parts.append("%s (%s/%d)" % (ch, str(i) if i == j else "%d-%d" % (i, j), n))
            print(" ".join(parts) if parts else "")
    else:
        sys.exit("usage: text_ref.py steps IN OUT | chars TEXT OFFSETS")

main()
