# SPDX-License-Identifier: MIT
"""The code in the documentation runs as shown: README.md, README.ja.md and every page under
doc/ (doc/ja/ too).

How a page marks its code: an HTML comment on the line just before a fenced block (GitHub does
not show it). Every fenced block of those pages carries one of these marks, or this test fails:

  <!-- example -->        A transcript. Each line "$ COMMAND" (continued on the next line after
                          a trailing backslash) is run by bash; the lines up to the next "$ "
                          are what it prints, standard output and error together as on a
                          terminal. Compared line by line, trailing spaces and trailing blank
                          lines aside, with one wildcard: "…" (U+2026) in a line stands for any
                          text within that line, and a line that is only "…" for any number of
                          lines, none included. Use it for what depends on GPT-2's real weights
                          or on the machine (vector values, norms, cosines, times, paths), never
                          for token IDs, counts or messages: those are compared verbatim.
  <!-- recipe -->         A ```sh block run by bash -e, or a ```python block run by python3,
                          verbatim. It must exit with status 0, so let it assert what it claims.
  <!-- excerpt: PATH -->  Lines quoted from PATH, a file of the tree that other tests build and
                          run (doc/examples/embed.c): every non-blank line of the block is a line
                          of PATH, leading and trailing spaces aside.
  <!-- show: REASON -->   Not run, for the reason given (needs the network, installs into your
                          home, a diagram...).

"example" and "recipe" may add "hub": <!-- example hub -->, <!-- recipe hub -->.

Where a block runs: a new directory of its own, holding
  weights/gpt2.safetensors  a file with GPT-2's exact layout (wte 50257 x 768, wpe 1024 x 768,
                            F32, every row written by tools/mkfixture; its values are not
                            GPT-2's, hence the wildcard). With "hub" there is no weights/, and
                            $HF_ENDPOINT names a local stand-in of the Hugging Face Hub
                            (tests/hub_server.py) serving openai-community/gpt2's layout.
  tests/data/               the repository's test data (count_en.txt, count_ja.txt, ...)
  the sample inputs of SAMPLES below (corpus.txt, notes.txt, long.txt, data/*.txt, ...)
with gpt2-embed first on PATH, python3 able to import gpt2embed, LC_ALL=C.UTF-8, HOME in the
directory, and HF_HUB_OFFLINE=1 unless "hub".

After the program's output changed on purpose:
    python3 tests/python/test_doc_examples.py --update [PAGE...]
runs the examples (all pages by default) and writes what the program prints now into the
expected output of every example that differs, keeping each line with "…" that still matches
its line. Read the diff before committing it. (G2E_BUILD names the build directory, default
build/.)
"""
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile

import pytest

from conftest import BUILD, MKFIXTURE, PROGRAM, SRCDIR

ELLIPSIS = "\u2026"
TIMEOUT = 300
MARK = re.compile(r"^<!--\s*(example|recipe|excerpt|show)\b\s*:?\s*(.*?)\s*-->$")
FENCE = re.compile(r"^(\s*)(```+)\s*([\w+-]*)\s*$")


def pages():
    """The pages whose code is checked, relative to the source tree."""
    out = ["README.md", "README.ja.md"]
    for sub in ("doc", os.path.join("doc", "ja")):
        d = os.path.join(SRCDIR, sub)
        out += sorted(os.path.join(sub, f) for f in os.listdir(d) if f.endswith(".md"))
    return out


class Block:
    """One fenced block: where it is, its mark, its language and its lines (indent removed)."""

    def __init__(self, page, start, end, indent, lang, lines, kind, arg):
        self.page, self.start, self.end, self.indent = page, start, end, indent
        self.lang, self.lines, self.kind, self.arg = lang, lines, kind, arg

    @property
    def id(self):
        return "%s:%d" % (self.page, self.start + 1)


def parse(page, text):
    """Every fenced block of a page. start/end index the fence lines; kind is None for a block
    without a mark."""
    lines = text.split("\n")
    blocks, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, ticks, lang = m.group(1), m.group(2), m.group(3)
        j = i + 1
        while j < len(lines) and lines[j].strip() != ticks:
            j += 1
        body = [l[len(indent):] if l.startswith(indent) else l.lstrip() for l in lines[i + 1:j]]
        k = i - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        mark = MARK.match(lines[k].strip()) if k >= 0 else None
        kind, arg = (mark.group(1), mark.group(2)) if mark else (None, "")
        blocks.append(Block(page, i, j, indent, lang, body, kind, arg))
        i = j + 1
    return blocks


def all_blocks():
    out = []
    for p in pages():
        with open(os.path.join(SRCDIR, p), encoding="utf-8") as f:
            out += parse(p, f.read())
    return out


BLOCKS = all_blocks()
RUN = [b for b in BLOCKS if b.kind in ("example", "recipe", "excerpt")]


# ---- the transcript's grammar and the wildcard ----

def transcript(lines):
    """[(command, [expected lines])] of an example block."""
    out = []
    i = 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            if lines[i].strip():
                raise ValueError("an example block starts with '$ COMMAND': %r" % lines[i])
            i += 1
            continue
        cmd = lines[i][2:]
        while cmd.endswith("\\") and i + 1 < len(lines):
            i += 1
            cmd += "\n" + lines[i]
        i += 1
        exp = []
        while i < len(lines) and not lines[i].startswith("$ "):
            exp.append(lines[i])
            i += 1
        out.append((cmd, exp))
    return out


def _trim(lines):
    lines = [l.rstrip() for l in lines]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def line_matches(want, got):
    if ELLIPSIS not in want:
        return want == got
    rx = ".*".join(re.escape(p) for p in want.split(ELLIPSIS))
    return re.fullmatch(rx, got, re.S) is not None


def lines_match(want, got):
    """want (with wildcards) against got, both lists of lines, trailing spaces and trailing
    blank lines aside."""
    want, got = _trim(want), _trim(got)
    memo = {}

    def m(i, j):
        if (i, j) not in memo:
            if i == len(want):
                r = j == len(got)
            elif want[i].strip() == ELLIPSIS:
                r = any(m(i + 1, k) for k in range(j, len(got) + 1))
            else:
                r = j < len(got) and line_matches(want[i], got[j]) and m(i + 1, j + 1)
            memo[(i, j)] = r
        return memo[(i, j)]

    return m(0, 0)


# ---- where blocks run ----

def _corpus_paragraphs():
    out = []
    for name in ("count_en.txt", "count_ja.txt"):
        with open(os.path.join(SRCDIR, "tests", "data", name), encoding="utf-8") as f:
            out += [p.strip() for p in f.read().split("\n\n") if p.strip()]
    return out


def _rows(first, n):
    paras = _corpus_paragraphs()
    out = []
    for i in range(first, first + n):
        if i % 7 == 3:
            out.append('{"id": %d, "txt": "no text member"}' % i)   # a bad row, answered in place
        else:
            text = paras[i % len(paras)][:200].replace("\\", "\\\\").replace('"', '\\"')
            out.append('{"id": %d, "text": "%s"}' % (i, text))
    return "\n".join(out) + "\n"


def samples():
    """{relative path: bytes}: the inputs the pages' examples and recipes name."""
    paras = _corpus_paragraphs()
    corpus = "\n\n".join(paras) + "\n"
    lines = [l for p in paras for l in p.split("\n")]
    return {
        "corpus.txt": corpus.encode(),                    # prose, documents at blank lines
        "big.txt": (corpus * 200).encode(),               # 2 MB: cut over threads
        "notes.txt": b"The dog chased the cat.\n",
        "long.txt": " ".join(["word"] * 1102).encode(),   # 1102 tokens: over the 1024 limit
        "bytes.bin": b"caf\xe9 au lait\n",                # Latin-1, not UTF-8
        "lines.txt": ("\n".join(lines) + "\n").encode(),
        "data/a.txt": "\n\n".join(paras[:3]).encode(),
        "data/b.txt": "\n\n".join(paras[3:]).encode(),
        "rows.jsonl": _rows(1, 12).encode(),
        "rows-0.jsonl": _rows(1, 40).encode(),
        "rows-1.jsonl": _rows(41, 40).encode(),
        "docs.jsonl": "".join('{"text": "%s"}\n' % p[:300].replace('"', '\\"') for p in paras).encode(),
    }


class Workbench:
    """The session's shared parts: the weights file, the samples, the program on PATH and, on
    first use, the Hub stand-in."""

    def __init__(self, root):
        self.root = root
        self.weights = os.path.join(root, "gpt2.safetensors")
        subprocess.run([MKFIXTURE, self.weights, "--vocab", "50257", "--ctx", "1024", "--embd", "768"],
                       check=True)
        self.samples = os.path.join(root, "samples")
        for rel, data in samples().items():
            p = os.path.join(self.samples, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "wb") as f:
                f.write(data)
        self.bin = os.path.join(root, "bin")
        os.makedirs(self.bin)
        os.symlink(PROGRAM, os.path.join(self.bin, "gpt2-embed"))
        self.hub = None
        self.n = 0
        self.last = None

    def endpoint(self):
        if self.hub is None:
            remote = os.path.join(self.root, "remote.safetensors")
            subprocess.run([MKFIXTURE, remote, "--shape", "gpt2"], check=True)
            self.hub = subprocess.Popen([sys.executable, os.path.join(SRCDIR, "tests", "hub_server.py"),
                                         "--file", remote, "--lifetime", "1800"],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            self.port = int(self.hub.stdout.readline().split()[0])
        return "http://127.0.0.1:%d" % self.port

    def close(self):
        if self.hub:
            self.hub.stdin.close()
            self.hub.wait(timeout=30)

    def discard(self):
        """Removes the last block's directory (one that downloaded holds 151 MB of weights)."""
        if self.last:
            shutil.rmtree(self.last, ignore_errors=True)
            self.last = None

    def directory(self, hub):
        """A new directory for one block, and the environment it runs with."""
        self.n += 1
        d = self.last = os.path.join(self.root, "run%03d" % self.n)
        shutil.copytree(self.samples, d, ignore=lambda _d, names: [n for n in names if n == "big.txt"])
        os.symlink(os.path.join(self.samples, "big.txt"), os.path.join(d, "big.txt"))
        os.makedirs(os.path.join(d, "tests"))
        os.symlink(os.path.join(SRCDIR, "tests", "data"), os.path.join(d, "tests", "data"))
        env = {"PATH": self.bin + ":/usr/bin:/bin", "HOME": d, "LC_ALL": "C.UTF-8",
               "PYTHONPATH": os.path.join(SRCDIR, "python"), "PYTHONDONTWRITEBYTECODE": "1",
               "GPT2EMBED_LIBRARY": os.environ.get("GPT2EMBED_LIBRARY",
                                                   os.path.join(BUILD, "libgpt2embed.so"))}
        for k in ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS", "TMPDIR"):   # a sanitizer build
            if k in os.environ:
                env[k] = os.environ[k]
        if hub:
            env["HF_ENDPOINT"] = self.endpoint()
        else:
            env["HF_HUB_OFFLINE"] = "1"
            os.makedirs(os.path.join(d, "weights"))
            os.symlink(self.weights, os.path.join(d, "weights", "gpt2.safetensors"))
        return d, env


def run_example(block, bench):
    """[(command, expected, actual lines)] of an example block."""
    d, env = bench.directory("hub" in block.arg.split())
    out = []
    for cmd, exp in transcript(block.lines):
        r = subprocess.run(["bash", "-c", cmd], cwd=d, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=TIMEOUT)
        out.append((cmd, exp, r.stdout.decode("utf-8", "backslashreplace").split("\n")))
    return out


def run_recipe(block, bench):
    """(exit status, what it printed) of a recipe block."""
    d, env = bench.directory("hub" in block.arg.split())
    if block.lang in ("sh", "bash", "console", "shell"):
        argv = ["bash", "-e", "-c", "\n".join(block.lines)]
    elif block.lang == "python":
        with open(os.path.join(d, "recipe.py"), "w", encoding="utf-8") as f:
            f.write("\n".join(block.lines) + "\n")
        argv = [sys.executable, "recipe.py"]
    else:
        return 1, "a recipe is a ```sh or ```python block, not ```%s" % block.lang
    r = subprocess.run(argv, cwd=d, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=TIMEOUT)
    return r.returncode, r.stdout.decode("utf-8", "backslashreplace")


def check_excerpt(block):
    """The block's lines that are not lines of the file it quotes."""
    with open(os.path.join(SRCDIR, block.arg), encoding="utf-8") as f:
        have = {l.strip() for l in f}
    return [l for l in block.lines if l.strip() and l.strip() not in have]


# ---- the tests ----

@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    b = Workbench(str(tmp_path_factory.mktemp("doc-examples")))
    yield b
    b.close()


def test_every_block_has_a_mark():
    bare = [b.id for b in BLOCKS if b.kind is None]
    assert not bare, ("fenced blocks without <!-- example -->, <!-- recipe -->, <!-- excerpt: PATH --> "
                      "or <!-- show: REASON --> on the line before (see the top of %s): %s"
                      % (os.path.basename(__file__), ", ".join(bare)))
    assert len(RUN) >= 20, "the pages' marked code was found (%d blocks)" % len(RUN)


@pytest.mark.parametrize("block", RUN, ids=[b.id for b in RUN])
def test_block_runs_as_shown(block, bench):
    if block.kind == "excerpt":
        missing = check_excerpt(block)
        assert not missing, "%s: lines not in %s: %s" % (block.id, block.arg, missing)
    elif block.kind == "recipe":
        rc, out = run_recipe(block, bench)
        assert rc == 0, "%s: the recipe exited with status %d:\n%s" % (block.id, rc, out[-4000:])
    else:
        for cmd, exp, got in run_example(block, bench):
            if not lines_match(exp, got):
                # lines whose wildcard matches the printed line at the same place are shown
                # as printed, so that the diff points at the lines that differ
                e, g = _trim(exp), _trim(got)
                e = [g[i] if i < len(g) and line_matches(l, g[i]) else l for i, l in enumerate(e)]
                diff = "\n".join(difflib.unified_diff(e, g, "shown", "printed", lineterm=""))
                pytest.fail("%s: $ %s\nprints otherwise than shown:\n%s\n(after a change on purpose: "
                            "python3 tests/python/test_doc_examples.py --update %s)"
                            % (block.id, cmd, diff, block.page))
    bench.discard()   # a block that ran as shown leaves nothing behind; a failing one's stays


def test_the_wildcard_matches_only_what_it_should():
    row = ["    0    464  The                 15.8161 128.6834 130.0049   -5.34982 ...",
           "model gpt2 (weights/gpt2.safetensors): n_embd 768"]
    assert lines_match(["    0    464  The                 …", "model gpt2 (…): n_embd 768"], row)
    # an ID, a piece or a count that differs is a failure, wherever the wildcard stands
    assert not lines_match(["    0    465  The                 …", "model gpt2 (…): n_embd 768"], row)
    assert not lines_match(["    0    464  The                 …", "model gpt2 (…): n_embd 769"], row)
    assert not lines_match(["    0    464  The…"], row)                 # a line is missing
    assert not lines_match(row + ["extra"], row)                         # a line too many
    assert lines_match(["…", "model gpt2 (weights/gpt2.safetensors): n_embd 768"], row)
    assert lines_match([row[0], "…", row[1]], row)                       # "…" may stand for none
    assert not lines_match(["…", "model gpt2"], row)
    assert lines_match(["15496 995", "", ""], ["15496 995   ", ""])      # trailing space and blanks
    assert not lines_match(["15496 995"], [" 15496 995"])               # leading space counts
    assert transcript(["$ a \\", "  b", "x", "", "$ c"]) == [("a \\\n  b", ["x", ""]), ("c", [])]


def test_pages_links_and_lines():
    """README.md and README.ja.md are read in five minutes: no line over 300 characters, no table
    cell over 120; every relative link of every page names a file of the tree."""
    bad = []
    for p in pages():
        with open(os.path.join(SRCDIR, p), encoding="utf-8") as f:
            text = f.read()
        if p.startswith("README"):
            for n, line in enumerate(text.split("\n"), 1):
                if len(line) > 300:
                    bad.append("%s:%d: a line of %d characters" % (p, n, len(line)))
                if line.startswith("|"):
                    for cell in re.split(r"(?<!\\)\|", line)[1:-1]:
                        if len(cell.strip()) > 120:
                            bad.append("%s:%d: a table cell of %d characters" % (p, n, len(cell.strip())))
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            name, _, anchor = target.partition("#")
            path = os.path.normpath(os.path.join(SRCDIR, os.path.dirname(p), name)) if name else \
                os.path.join(SRCDIR, p)
            if not os.path.exists(path):
                bad.append("%s: a link to %s, which does not exist" % (p, target))
            elif anchor and path.endswith(".md") and anchor not in anchors(path):
                bad.append("%s: a link to %s, a heading that %s does not have" % (p, target, name or p))
    assert not bad, "\n".join(bad)


def anchors(path):
    """The anchors GitHub makes of a page's headings: lower case, punctuation dropped, spaces
    as hyphens."""
    with open(path, encoding="utf-8") as f:
        heads = [l.lstrip("#").strip() for l in f if re.match(r"#{1,6} ", l)]
    return {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in heads}


def test_performance_figures_agree():
    """The figures of README.md's Performance table are the ones README.ja.md and
    doc/performance.md give: a new run is put in all three."""
    def section(path, title):
        with open(os.path.join(SRCDIR, path), encoding="utf-8") as f:
            text = f.read()
        start = text.index("\n## " + title)
        end = text.find("\n## ", start + 1)
        return text[start:end if end > 0 else len(text)]

    figures = set(re.findall(r"\d+(?:\.\d+)?", "\n".join(
        l for l in section("README.md", "Performance").split("\n") if l.startswith("| ") and "---" not in l)))
    assert len(figures) >= 8, figures
    for path, text in (("README.ja.md", section("README.ja.md", "性能")),
                       ("doc/performance.md", open(os.path.join(SRCDIR, "doc", "performance.md"),
                                                   encoding="utf-8").read())):
        have = set(re.findall(r"\d+(?:\.\d+)?", text))
        assert figures <= have, "%s lacks README.md's figures %s" % (path, sorted(figures - have))


# ---- --update ----

def update(page_names):
    """Rewrites the expected output of every example of page_names that differs from what the
    program prints. Returns the number of blocks rewritten, and those it could not rewrite."""
    root = tempfile.mkdtemp(prefix="g2e-doc-update-")
    bench = Workbench(root)
    changed, manual = 0, []
    try:
        for p in page_names:
            path = os.path.join(SRCDIR, p)
            with open(path, encoding="utf-8") as f:
                lines = f.read().split("\n")
            blocks = [b for b in parse(p, "\n".join(lines)) if b.kind == "example"]
            for b in reversed(blocks):
                body, differs = [], False
                for cmd, exp, got in run_example(b, bench):
                    got = _trim(got)
                    if lines_match(exp, got):
                        new = exp
                    elif any(l.strip() == ELLIPSIS for l in exp):
                        manual.append(b.id)
                        new = exp
                    else:
                        differs = True
                        new = [exp[i] if i < len(exp) and ELLIPSIS in exp[i] and line_matches(exp[i], g) else g
                               for i, g in enumerate(got)]
                        if exp and not exp[-1].strip():
                            new.append("")
                    body.append("$ " + cmd)
                    body += new
                if differs:
                    lines[b.start + 1:b.end] = [(b.indent + l) if l else l for l in body]
                    changed += 1
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(lines))
    finally:
        bench.close()
        shutil.rmtree(root, ignore_errors=True)
    return changed, manual


if __name__ == "__main__":
    args = sys.argv[1:]
    if not args or args[0] != "--update":
        sys.exit("usage: %s --update [PAGE...]   (pages relative to the source tree; default all)" % sys.argv[0])
    n, manual = update(args[1:] or pages())
    print("%d example block(s) rewritten" % n)
    for m in manual:
        print("%s: differs, and has a line that is only '%s': rewrite it by hand" % (m, ELLIPSIS))
