# SPDX-License-Identifier: MIT
"""The course in Python: chapter 4 (position embeddings) of the Japanese Transformer course as
result objects that hold the numbers (numpy arrays, floats) and show themselves in Jupyter
(``_repr_html_`` for tables and sentences, ``_repr_png_`` for figures).

Every number comes from the C library, computed by the same function as the program's
command and handed over as the same JSON document the command prints with --format json
(``gpt2embed_course_*`` in gpt2embed.h): nothing is computed again here. Figures are drawn
by the program's rendering object (gpt2-embed-render.so, through its door
gpt2embed_figure.h) with the program's recipes. Sentences that interpret the numbers are the
program's too, chosen in C from the numbers.

Language: ``set_language("ja")`` (or LANGUAGE / LC_ALL / LC_MESSAGES / LANG naming Japanese
when the module is imported, as the program reads them) makes the sentences, the tables'
headings, the figures' text and the library's error messages Japanese, from the program's
own catalogue (gpt2-embed.mo); ``set_language("en")`` makes them English again.

    import gpt2embed
    from gpt2embed import course
    gpt2embed.set_language("ja")
    m = gpt2embed.Model()
    course.exercises(m)                                # exercise 1 and 2, with what they show
    course.compare("犬が猫を追いかけた", "猫が犬を追いかけた", m)
    course.context(open("chapter.txt").read())        # where token 1024 ends
    course.learned_vs_sinusoidal(m)
    course.rotation(768)
    course.pca(m, skip=1)                              # the principal components of wpe
    course.wpe_norms(m)                                # |wpe[p]| against p
    course.rope(768)                                   # RoPE: the schemes, its check, its curves
"""

import base64
import ctypes
import gettext
import html
import json
import atexit
import os
import re
import threading
import warnings
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from . import _binding as L

__all__ = ["set_language", "language", "exercises", "compare", "context",
           "learned_vs_sinusoidal", "rotation", "pca", "wpe_norms", "rope", "Exercises",
           "OrderPuzzle", "ContextCount", "ByDistance", "Rotation", "PCA", "WpeNorms", "Rope"]

# ---- the library's course calls (gpt2embed.h, "the course") ----

_TRANSLATE = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_char_p)
_SAYS = 1   # GPT2EMBED_COURSE_SAYS
_PAIR_DEFAULT = L.SIZE_MAX
_JSON = ctypes.POINTER(ctypes.c_char)


def _fn(name: str, restype: Any, *argtypes: Any, err: bool = True) -> Any:
    if not hasattr(L.lib, name):
        raise ImportError("gpt2embed: %s has no %s (an older libgpt2embed: rebuild it with make)"
                          % (L.lib._name, name))
    return L.fn(name, restype, *argtypes, err=err)


_set_translator = _fn("gpt2embed_set_translator", None, _TRANSLATE, err=False)
_exercise = _fn("gpt2embed_course_exercise", L.I, L.P, L.P, L.U, ctypes.c_uint64,
                ctypes.c_uint64, L.U, ctypes.POINTER(_JSON))
_order = _fn("gpt2embed_course_order", L.I, L.P, L.P, L.CP, L.S, L.CP, L.S, L.U,
             ctypes.POINTER(_JSON))
_by_distance = _fn("gpt2embed_course_by_distance", L.I, L.P, L.S, L.S, ctypes.c_double, L.U,
                   ctypes.POINTER(_JSON))
_pair = _fn("gpt2embed_sinusoid_pair", L.I, L.S, L.S, L.S, ctypes.c_double, L.DP, L.DP, L.DP)
_words = _fn("gpt2embed_english_words", L.S, L.CP, L.S, ctypes.POINTER(L.I), err=False)


class _PcaSource(ctypes.Structure):
    _fields_ = [("of", L.I), ("ids", ctypes.POINTER(ctypes.c_uint32)), ("n_ids", L.S),
                ("len", L.S), ("dim", L.S), ("base", ctypes.c_double), ("skip", L.S)]


class _PcaResult(ctypes.Structure):
    _fields_ = [("n", L.S), ("d", L.S), ("k", L.S), ("row_id", L.DP), ("mean", L.DP),
                ("variance", L.DP), ("ratio", L.DP), ("cumulative", L.DP),
                ("total", ctypes.c_double), ("floor", ctypes.c_double), ("n_signal", L.S),
                ("components", L.DP), ("proj", L.DP)]


class _NormSummary(ctypes.Structure):
    _fields_ = [("n", L.S), ("split", L.S), ("first", ctypes.c_double),
                ("median", ctypes.c_double), ("first_vs_median", ctypes.c_double),
                ("argmax", L.S), ("argmin", L.S), ("max", ctypes.c_double),
                ("min", ctypes.c_double), ("mean_early", ctypes.c_double),
                ("cv_early", ctypes.c_double), ("mean_late", ctypes.c_double),
                ("cv_late", ctypes.c_double)]


_pca = _fn("gpt2embed_pca", L.I, L.P, ctypes.POINTER(_PcaSource), L.S,
           ctypes.POINTER(ctypes.POINTER(_PcaResult)))
_pca_free = _fn("gpt2embed_pca_free", None, ctypes.POINTER(_PcaResult), err=False)
_pca_json = _fn("gpt2embed_pca_json", L.I, ctypes.POINTER(_PcaResult), L.P, ctypes.POINTER(_PcaSource),
                ctypes.POINTER(_JSON))
_wpe_norms = _fn("gpt2embed_wpe_norms", L.I, L.P, L.DP, ctypes.POINTER(_NormSummary))
_wpe_norms_json = _fn("gpt2embed_wpe_norms_json", L.I, L.P, ctypes.POINTER(_JSON))
_rope_scheme = _fn("gpt2embed_rope_scheme", L.CP, L.S, L.S, err=False)


class _RopeParams(ctypes.Structure):
    _fields_ = [("mode", L.I), ("dim", L.S), ("base", ctypes.c_double), ("max_pos", ctypes.c_uint64),
                ("pairs", L.S), ("seed", ctypes.c_uint64), ("start", ctypes.c_uint64),
                ("to", ctypes.c_uint64), ("samples", L.S), ("pair", L.S), ("len", L.S)]


_rope_json = _fn("gpt2embed_rope_json", L.I, ctypes.POINTER(_RopeParams), ctypes.POINTER(_JSON))
# Rope.document's keys, in the order of GPT2EMBED_ROPE_SCHEMES .. _ROTATION
_ROPE_MODES = ("schemes", "check_relative", "dot_curve", "rotation")
_ROPE_SCHEME_ROWS = 5
_PCA_OF = {"wpe": 0, "wte": 1, "sinusoidal": 2}


def _document(f: Any, *args: Any) -> Dict[str, Any]:
    """Calls a course function that returns a JSON document; the document as a dict."""
    out = _JSON()
    L.call(f, *args, ctypes.byref(out))
    try:
        return json.loads(ctypes.string_at(out).decode("utf-8"))
    finally:
        L.free(out)


# ---- language ----

_lock = threading.Lock()
_catalog: Optional[gettext.NullTranslations] = None
_lang = "en"
_kept: Dict[Any, Any] = {}   # translations handed to C: kept for the process's life


def _(s: str) -> str:
    """s, a message of this module (extracted from it into the program's catalogue), in the
    chosen language."""
    c = _catalog
    return c.gettext(s) if c is not None else s


_CONV = re.compile(r"%(?:(\d+)\$)?([-+ #0]*\d*(?:\.\d+)?)(?:hh|h|ll|l|z|j|t|L)?([diouxXeEfgGcs%])")


def _c(msgid: str, *args: Any) -> str:
    """One of the program's own messages (a C msgid: the same words as the program) in the
    chosen language, its conversions (%zu, %.4f, numbered %2$s) filled from args as C's printf
    would. tests/python checks that each msgid given here is in the program's catalogue."""
    t = _(msgid)
    if not args:
        return t
    at = [0]

    def one(m: Any) -> str:
        if m.group(3) == "%":
            return "%"
        k = int(m.group(1)) - 1 if m.group(1) else at[0]
        at[0] += 0 if m.group(1) else 1
        return ("%" + m.group(2) + ("d" if m.group(3) in "ui" else m.group(3))) % (args[k],)
    return _CONV.sub(one, t)


def _ctx(context: str, msgid: str) -> str:
    """A C msgid with a context (gettext's msgctxt, C_() in the program)."""
    key = context + "\x04" + msgid
    t = _(key)
    return msgid if t == key else t


def _places(beside: str, config: str, system: Sequence[str]) -> List[str]:
    """Where a file of the program's may be: beside the loaded library (a build tree), where
    make install recorded it (_config.py), then the system's places."""
    out = []
    name = getattr(L.lib, "_name", None)
    if name and os.sep in name:
        out.append(os.path.join(os.path.dirname(os.path.abspath(name)), beside))
    try:
        from . import _config   # written by make install
        out.append(getattr(_config, config, ""))
    except ImportError:
        pass
    return [p for p in out + list(system) if p]


def _localedirs() -> List[str]:
    """Where the program's catalogue may be: $GPT2_EMBED_LOCALEDIR first, then _places."""
    env = os.environ.get("GPT2_EMBED_LOCALEDIR")
    return ([env] if env else []) + _places("locale", "LOCALEDIR",
                                            ["/usr/local/share/locale", "/usr/share/locale"])


def _find_catalog(lang: str) -> gettext.NullTranslations:
    tried = []
    for d in _localedirs():
        mo = os.path.join(d, lang, "LC_MESSAGES", "gpt2-embed.mo")
        tried.append(mo)
        if os.path.exists(mo):
            with open(mo, "rb") as f:
                return gettext.GNUTranslations(f)
    raise FileNotFoundError("gpt2embed: no %s catalogue of gpt2-embed; looked for %s (build it "
                            "with make, or set GPT2_EMBED_LOCALEDIR)" % (lang, ", ".join(tried)))


@_TRANSLATE
def _translate_c(msgid: bytes) -> Optional[int]:
    """The translator the C objects call (any thread; ctypes takes the GIL): the address of
    the translation, kept alive, or None (NULL: the msgid itself)."""
    c = _catalog
    if c is None or msgid is None:
        return None
    key = (_lang, msgid)
    buf = _kept.get(key)
    if buf is None:
        s = msgid.decode("utf-8", "replace")
        t = c.gettext(s)
        if t == s:
            return None
        buf = _kept.setdefault(key, ctypes.create_string_buffer(t.encode("utf-8")))
    return ctypes.addressof(buf)


def set_language(lang: Optional[str] = None) -> str:
    """Chooses the language of the course's sentences, headings and figures and of the
    library's error messages: "ja" or "en"; None: as the environment says (LANGUAGE, then the
    first of LC_ALL, LC_MESSAGES, LANG that is set). Returns the language now in use."""
    global _catalog, _lang
    if lang is None:
        lang = "ja" if _env_wants_ja() else "en"
    if lang not in ("ja", "en"):
        raise ValueError("set_language takes 'ja' or 'en', not %r" % (lang,))
    with _lock:
        catalog = _find_catalog(lang) if lang == "ja" else None
        _catalog, _lang = catalog, lang
        fn = _translate_c if catalog is not None else _TRANSLATE()
        _set_translator(fn)
        r = _render(required=False)
        if r is not None:
            r.gpt2embed_figure_set_translator(fn)
    return lang


def language() -> str:
    """The language in use: "ja" or "en"."""
    return _lang


def _is_ja(v: str) -> bool:
    return v[:2] == "ja" and (len(v) == 2 or v[2] in "_.@")


def _env_wants_ja() -> bool:
    for entry in os.environ.get("LANGUAGE", "").split(":"):
        if _is_ja(entry):
            return True
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        v = os.environ.get(var)
        if v:
            return _is_ja(v)
    return False


# ---- figures: the rendering object ----

_render_lib: Any = None
_render_tried = False


def _render_candidates() -> List[str]:
    """$GPT2EMBED_RENDER alone when set (a wrong path is an error, not another object)."""
    env = os.environ.get("GPT2EMBED_RENDER")
    return [env] if env else _places("gpt2-embed-render.so", "RENDER",
                                     ["/usr/local/lib/gpt2-embed/gpt2-embed-render.so",
                                      "/usr/lib/gpt2-embed/gpt2-embed-render.so"])


def _render(required: bool = True) -> Any:
    """The rendering object with its door's prototypes, loaded once; None (or an ImportError
    when required) when it cannot be loaded."""
    global _render_lib, _render_tried
    if _render_lib is None and not _render_tried:
        _render_tried = True
        tried = []
        for c in _render_candidates():
            if not os.path.exists(c):
                tried.append(c)
                continue
            try:
                r = ctypes.CDLL(c)
                r.gpt2embed_figure_order.argtypes = [L.FP, L.FP, L.S, L.S, ctypes.POINTER(L.CP),
                                                     ctypes.POINTER(L.P), L.SP,
                                                     ctypes.POINTER(L.ErrorDetail)]
                r.gpt2embed_figure_rotation.argtypes = [L.DP, L.DP, L.S, L.S, ctypes.c_double, L.S,
                                                        ctypes.c_double, ctypes.POINTER(L.P), L.SP,
                                                        ctypes.POINTER(L.ErrorDetail)]
                r.gpt2embed_figure_by_distance.argtypes = [L.S, L.S, ctypes.c_double, L.S, L.DP, L.DP,
                                                           L.CP, ctypes.POINTER(L.P), L.SP,
                                                           ctypes.POINTER(L.ErrorDetail)]
                for f in (r.gpt2embed_figure_order, r.gpt2embed_figure_rotation,
                          r.gpt2embed_figure_by_distance):
                    f.restype = L.I
                D, SZ = ctypes.c_double, L.S
                errp = ctypes.POINTER(L.ErrorDetail)
                for name, args in (
                        ("pca_components", [L.DP, SZ, SZ, L.DP, SZ, L.CP]),
                        ("pca_scatter", [L.DP, SZ, SZ, L.DP, SZ, SZ, SZ, L.CP]),
                        ("pca_variance", [L.DP, SZ, L.CP]),
                        ("wpe_norms", [L.DP, SZ, D, L.CP]),
                        ("rope_dot", [L.DP, L.DP, SZ, SZ, SZ, D]),
                        ("rope_rotation", [L.DP, L.DP, SZ, SZ, D, SZ])):
                    f = getattr(r, "gpt2embed_figure_" + name)
                    f.argtypes = args + [ctypes.POINTER(L.P), L.SP, errp]
                    f.restype = L.I
                r.gpt2embed_figure_set_translator.argtypes = [_TRANSLATE]
                r.gpt2embed_figure_set_translator.restype = None
                r.gpt2embed_figure_free.argtypes = [L.P]
                r.gpt2embed_figure_free.restype = None
                r.gpt2embed_figure_set_translator(_translate_c if _catalog is not None else _TRANSLATE())
                _render_lib = r
                break
            except (OSError, AttributeError) as e:
                tried.append("%s (%s)" % (c, e))
        _render_tried_list[:] = tried
    if _render_lib is None and required:
        raise ImportError("gpt2embed: figures need gpt2-embed-render.so (cairo, Pango); tried: " +
                          "; ".join(_render_tried_list) + " (build it with make, or set "
                          "GPT2EMBED_RENDER to its path)")
    return _render_lib


_render_tried_list: List[str] = []


def _png(draw: Any) -> bytes:
    """The PNG a figure call draws: draw(r) calls r.gpt2embed_figure_*(..., &png, &len, &err)."""
    r = _render()
    p, n = L.P(), ctypes.c_size_t()
    e = L.ErrorDetail()
    rc = draw(r, ctypes.byref(p), ctypes.byref(n), ctypes.byref(e))
    if rc != 0:
        raise L.make_error(rc, e.message.decode("utf-8", "replace"))
    try:
        return ctypes.string_at(p, n.value)
    finally:
        r.gpt2embed_figure_free(p)


def _f64(a: Any) -> np.ndarray:
    return np.require(a, dtype=np.float64, requirements=["C", "A"])


# ---- showing results ----

class _Shown:
    """What every result has: the document it came from, its sentences, and Jupyter's views
    (an HTML table with the sentences and, when the rendering object is there, the figure
    inline; the figure alone as PNG)."""

    says: List[str]
    document: Dict[str, Any]

    def png(self) -> bytes:
        """The figure as PNG bytes (ImportError when the rendering object is missing)."""
        raise NotImplementedError

    def _repr_png_(self) -> Optional[bytes]:
        try:
            return self.png()
        except (ImportError, NotImplementedError):
            return None

    def _rows(self) -> List[List[str]]:
        return []

    def _title(self) -> str:
        return ""

    def _repr_html_(self) -> str:
        h = ["<div class=\"gpt2embed\">"]
        if self._title():
            h.append("<h4>%s</h4>" % html.escape(self._title()))
        rows = self._rows()
        if rows:
            h.append("<table>")
            for k, v in rows:
                h.append("<tr><th style=\"text-align:left\">%s</th><td style=\"text-align:left\">%s"
                         "</td></tr>" % (html.escape(k), html.escape(v)))
            h.append("</table>")
        h.extend(self._extra_html())
        for line in self.says:
            h.append("<p style=\"background:#f4f7fb;padding:.3em .6em;border-left:3px solid "
                     "#4a7bb7\">%s</p>" % html.escape(line.strip()))
        png = self._repr_png_()
        if png:
            h.append("<img src=\"data:image/png;base64,%s\" style=\"max-width:100%%\">"
                     % base64.b64encode(png).decode("ascii"))
        h.append("</div>")
        return "\n".join(h)

    def _extra_html(self) -> List[str]:
        return []

    def __repr__(self) -> str:
        rows = "\n".join("  %s: %s" % (k, v) for k, v in self._rows())
        return "%s\n%s\n%s" % (self._title(), rows, "\n".join(self.says))


# ---- exercises 1 and 2 ----

class Exercises(_Shown):
    """The chapter's two exercises (gpt2-embed exercise): exercise1 and exercise2 are dicts
    with the command's JSON keys (None when not computed); says: what the numbers show."""

    def __init__(self, doc: Dict[str, Any]):
        self.document = doc
        self.says = doc.pop("says", [])
        self.exercise1 = doc.get("exercise1")
        self.exercise2 = doc.get("exercise2")

    def _title(self) -> str:
        return _("The chapter's exercises")

    def _rows(self) -> List[List[str]]:
        rows = []
        one, two = self.exercise1, self.exercise2
        if one:
            rows += [[_c("GPT-2: 1024 x 768"), "{:,}".format(one["gpt2_wpe_params"])],
                     [_c("other model: positions x width"),
                      "%d x %d = {:,}".format(one["wpe_params"]) % (one["ctx"], one["dim"])],
                     [_ctx("exercise 1", "ratio"), "%.4f" % one["ratio"]]]
        if two:
            rows += [[_c("wpe shape"), "(%d, %d)" % tuple(two["wpe_shape"])],
                     ["cos(wpe[0], wpe[1])", "%.4f" % two["cos_pos0_pos1"]],
                     ["cos(wpe[0], wpe[%d])" % two["far_pos"], "%.4f" % two["cos_pos0_far"]],
                     [_c("token ID of \" cat\""), "%d" % two["cat_token_id"]],
                     ["cos(wte[cat] + wpe[0], wte[cat] + wpe[5])", "%.4f" % two["cos_cat_pos0_pos5"]]]
        return rows


def exercises(model: Any = None, *, ctx: int = 4096, dim: int = 4096,
              which: Sequence[int] = (1, 2)) -> Exercises:
    """Exercise 1 (parameters of an N x D position embedding against GPT-2's 1024 x 768) and
    exercise 2 (cosines of learned position vectors; " cat" at positions 0 and 5) on model's
    weights. model None: exercise 1 alone (it needs no weights)."""
    bits = sum({1: 1, 2: 2}[w] for w in set(which))
    if model is None:
        bits &= 1
        if not bits:
            raise ValueError("exercise 2 needs a Model")
        return Exercises(_document(_exercise, None, None, bits, L.c_uint(ctx, "ctx"),
                                   L.c_uint(dim, "dim"), _SAYS))
    enc = model.encoding
    doc = model._run(lambda mp: enc._g.run(lambda tp: _document(
        _exercise, mp, tp, bits, L.c_uint(ctx, "ctx"), L.c_uint(dim, "dim"), _SAYS)))
    return Exercises(doc)


# ---- the order puzzle ----

def _side(d: Dict[str, Any]) -> Dict[str, Any]:
    return {"text": d["text"], "ids": np.array(d["ids"], dtype=np.uint32), "labels": d["labels"]}


class OrderPuzzle(_Shown):
    """Two texts with the same tokens in another order, as the model's input sees them
    (gpt2-embed compare): a and b ({"text", "ids", "labels"}), same_multiset, verdict, the
    views without and with positions (unmasked toy attention: perm, -1 where none; causal
    toy attention: causal_equal per position), same_id, token_cos, input_cos, prefix_same
    (numpy arrays over the n_pos = min(T_a, T_b) positions), moved, says; rows_a, rows_b:
    the input rows wte + wpe (float32, from Model.embed) that the figure draws."""

    def __init__(self, doc: Dict[str, Any], model: Any):
        self.document = doc
        self.says = doc.pop("says", [])
        self.a, self.b = _side(doc["a"]), _side(doc["b"])
        self.same_multiset = bool(doc["same_multiset"])
        self.verdict = doc["verdict"]
        self.views = {}
        for key, v in doc["views"].items():
            self.views[key] = {
                "rows_equal": v["rows_equal"],
                "perm": np.array([-1 if p is None else p for p in v["attention"]["perm"]], dtype=np.int64),
                "outputs_equal": v["attention"]["outputs_equal"],
                "max_diff": v["attention"]["max_diff"], "gap": v["attention"]["gap"],
                "causal_equal": np.array(v["causal"]["equal"], dtype=bool),
                "causal_rows_equal": v["causal"]["rows_equal"],
                "causal_max_diff": v["causal"]["max_diff"], "causal_gap": v["causal"]["gap"]}
        self.moved = doc["moved"]
        self.same_id = np.array(doc["same_id"], dtype=bool)
        self.token_cos = np.array(doc["token_cos"], dtype=np.float64)
        self.input_cos = np.array(doc["input_cos"], dtype=np.float64)
        self.prefix_same = np.array(doc["prefix_same"], dtype=bool)
        self.positions_differ = doc["positions_differ"]
        n = len(self.token_cos)
        self.rows_a = model.embed(self.a["ids"][:n])
        self.rows_b = model.embed(self.b["ids"][:n])

    def _title(self) -> str:
        return "A: %s / B: %s" % (self.a["text"], self.b["text"])

    def _rows(self) -> List[List[str]]:
        return [[_c("the same multiset of tokens"), _c("yes") if self.same_multiset else _c("no")],
                [_c("positions whose summed inputs differ"),
                 "%d / %d" % (self.positions_differ, len(self.token_cos))]]

    def _extra_html(self) -> List[str]:
        h = ["<table><tr><th>%s</th><th>A</th><th>B</th><th>cos(wte)</th><th>cos(wte + wpe)</th></tr>"
             % html.escape(_c("position"))]
        for t in range(len(self.token_cos)):
            h.append("<tr><td>%d</td><td>%s (%d)</td><td>%s (%d)</td><td>%.4f</td><td>%.4f</td></tr>"
                     % (t, html.escape(self.a["labels"][t]), self.a["ids"][t],
                        html.escape(self.b["labels"][t]), self.b["ids"][t], self.token_cos[t],
                        self.input_cos[t]))
        h.append("</table>")
        return h

    def png(self) -> bytes:
        n, dim = self.rows_a.shape
        labels = ["%d  %s | %s" % (t, self.a["labels"][t], self.b["labels"][t]) for t in range(n)]
        arr = (L.CP * n)(*[s.encode("utf-8") for s in labels])
        a = np.require(self.rows_a, np.float32, ["C", "A"])
        b = np.require(self.rows_b, np.float32, ["C", "A"])
        return _png(lambda r, p, ln, e: r.gpt2embed_figure_order(
            L.ptr(a, ctypes.c_float), L.ptr(b, ctypes.c_float), n, dim, arr, p, ln, e))


def compare(a: str, b: str, model: Any) -> OrderPuzzle:
    """The chapter's opening puzzle for texts a and b (「犬が猫を追いかけた」 / 「猫が犬を追いかけた」)
    on model's weights: an OrderPuzzle."""
    if not isinstance(a, str) or not isinstance(b, str):
        raise TypeError("compare takes two texts (str)")
    ba, bb = a.encode("utf-8"), b.encode("utf-8")
    enc = model.encoding
    doc = model._run(lambda mp: enc._g.run(lambda tp: _document(
        _order, mp, tp, ba, len(ba), bb, len(bb), _SAYS)))
    return OrderPuzzle(doc, model)


# ---- the context: where token 1024 ends ----

class ContextCount(_Shown):
    """A text against GPT-2's context (gpt2-embed count): n_bytes, n_chars, n_tokens, n_ctx,
    fits, windows (n_ctx-token windows it needs), chars_per_token, cut_char (the characters
    wholly inside the first n_ctx tokens), splits_char (token n_ctx ends inside a character),
    words and words_in_context for an English text (None otherwise)."""

    def __init__(self, text: str, info: Any, words: int, english: bool):
        self.document = {}
        self.says = []
        self.text = text
        self.n_bytes = len(text.encode("utf-8"))
        self.n_chars, self.n_tokens, self.n_ctx = info.n_chars, info.n_tokens, info.n_ctx
        self.fits = info.fits
        self.windows = max(1, -(-self.n_tokens // self.n_ctx))
        self.chars_per_token = self.n_chars / self.n_tokens if self.n_tokens else float("nan")
        self.cut_char = info.ctx_end_char
        self.splits_char = bool(info.ctx_end_splits_char)
        self.words = words if english else None
        self.words_in_context = (self.n_ctx * words / self.n_tokens
                                 if english and words and self.n_tokens else None)
        if not self.fits:
            self.says.append(_c("%s does not fit: GPT-2 reads its first %zu tokens, which hold %zu "
                                "of its %zu characters (%.0f%%); the rest is cut off, or needs a "
                                "second window.", _c("the text"), self.n_ctx, self.cut_char,
                                self.n_chars, 100.0 * self.cut_char / max(1, self.n_chars)))

    def _title(self) -> str:
        return _c("Where GPT-2's %zu-token context ends in this text (the cut is marked \u2702):",
                  self.n_ctx)

    def _rows(self) -> List[List[str]]:
        rows = [[_c("bytes"), "%d" % self.n_bytes], [_c("chars"), "%d" % self.n_chars],
                [_c("tokens"), "%d" % self.n_tokens],
                [_c("chars/token"), "%.2f" % self.chars_per_token if self.n_tokens else "-"],
                [_c("fits %zu", self.n_ctx), _c("yes") if self.fits else _c("no")],
                [_c("windows"), "%d" % self.windows]]
        if self.words is not None:
            rows.append([_("English words"), "%d" % self.words])
        return rows

    def _extra_html(self) -> List[str]:
        if self.fits:
            return []
        c = self.cut_char
        before = self.text[max(0, c - 80):c]
        ch = self.text[c] if self.splits_char and c < len(self.text) else ""
        after = self.text[c + len(ch):c + len(ch) + 40]
        cut = "<span style=\"color:#b40426;font-weight:bold\">\u2702</span>"
        mid = ("<mark>%s</mark>%s" % (html.escape(ch), cut)) if ch else cut
        return ["<p>\u2026%s%s%s\u2026</p>" % (html.escape(before), mid, html.escape(after))]


def context(text: str, n_ctx: int = 1024, model: Any = None) -> ContextCount:
    """How text stands against a context of n_ctx tokens (GPT-2's 1024): tokens, characters,
    where token n_ctx ends, and for an English text how many words the context holds.
    <|endoftext|> counts as the one token it is, as in gpt2-embed count."""
    from ._encoding import get_encoding
    enc = model.encoding if model is not None else get_encoding("gpt2")
    info = enc.count(text, n_ctx, allowed_special="all")
    b = text.encode("utf-8")
    english = ctypes.c_int()
    words = int(_words(b, len(b), ctypes.byref(english)))
    return ContextCount(text, info, words, bool(english.value))


# ---- learned against sinusoidal ----

class ByDistance(_Shown):
    """The mean cosine of positions d apart (gpt2-embed sinusoidal --compare-learned):
    distance, learned (wpe) and sinusoidal (width n_embd) as float64 arrays, len, base."""

    def __init__(self, doc: Dict[str, Any]):
        self.document = doc
        self.says = doc.pop("says", [])
        self.distance = np.array(doc["distance"], dtype=np.int64)
        self.learned = np.array(doc["learned"], dtype=np.float64)
        self.sinusoidal = np.array(doc["sinusoidal"], dtype=np.float64)
        self.len, self.base, self.n_embd = doc["len"], doc["base"], doc["n_embd"]
        self.model = doc["model"]

    def _title(self) -> str:
        return _c("Similarity by distance (mean cosine over positions 0..%zu)", self.len - 1)

    def _rows(self) -> List[List[str]]:
        show = sorted(set([1, 2, 5, 10, 50, 100, len(self.distance) - 1]) & set(range(len(self.distance))))
        return [["d = %d" % d, "%s %.4f, %s %.4f" % (_c("learned"), self.learned[d], _c("sinusoidal"),
                                                   self.sinusoidal[d])] for d in show]

    def png(self) -> bytes:
        s, le = _f64(self.sinusoidal), _f64(self.learned)
        name = _c("learned wpe (%s)", self.model or _c("unnamed model")).encode("utf-8")
        return _png(lambda r, p, ln, e: r.gpt2embed_figure_by_distance(
            self.len, self.n_embd, self.base, len(s) - 1, L.ptr(s, ctypes.c_double),
            L.ptr(le, ctypes.c_double), name, p, ln, e))


def learned_vs_sinusoidal(model: Any, length: Optional[int] = None,
                          max_distance: Optional[int] = None, base: float = 10000.0) -> ByDistance:
    """GPT-2's learned positions against the sinusoidal encoding of the same width: the mean
    cosine of positions d apart over positions 0..length-1 (default: all n_ctx), d up to
    max_distance (default length - 1)."""
    n = L.c_uint(length if length is not None else 0, "length")
    md = L.c_uint(max_distance if max_distance is not None else (n or model.n_ctx) - 1, "max_distance")
    return ByDistance(model._run(lambda mp: _document(_by_distance, mp, n, md, float(base), 0)))


# ---- the rotation ----

class Rotation(_Shown):
    """One pair (2i, 2i+1) of the sinusoidal encoding as the position grows: x = cos(p w),
    y = sin(p w) (float64, p = 0..n-1), omega = w (radians per position), pair, dim, base."""

    def __init__(self, x: np.ndarray, y: np.ndarray, omega: float, pair: int, dim: int, base: float):
        self.document = {}
        self.says = []
        self.x, self.y, self.omega, self.pair, self.dim, self.base = x, y, omega, pair, dim, base

    def _title(self) -> str:
        return _c("Pair %zu of the sinusoidal PE turns by %.4g rad per position (D=%zu, base %g)",
                  self.pair, self.omega, self.dim, self.base)

    def png(self) -> bytes:
        return _png(lambda r, p, ln, e: r.gpt2embed_figure_rotation(
            L.ptr(self.x, ctypes.c_double), L.ptr(self.y, ctypes.c_double), len(self.x),
            self.pair, self.omega, self.dim, self.base, p, ln, e))


def rotation(dim: int = 768, pair: Optional[int] = None, n: int = 100,
             base: float = 10000.0) -> Rotation:
    """Pair `pair` of the sinusoidal encoding of width dim for positions 0..n-1 (default pair
    dim/8, which turns about 0.1 rad per position: the program's default)."""
    n_, d = L.c_uint(n, "n"), L.c_uint(dim, "dim")
    p = _PAIR_DEFAULT if pair is None else L.c_uint(pair, "pair")
    x, y, w = np.empty(n_), np.empty(n_), ctypes.c_double()
    L.call(_pair, n_, d, p, float(base), L.ptr(x, ctypes.c_double), L.ptr(y, ctypes.c_double),
           ctypes.byref(w))
    return Rotation(x, y, w.value, d // 8 if pair is None else p, d, float(base))


# ---- principal components of wpe (or of wte rows, or of the sinusoidal PE) ----

def _arr(p: Any, *shape: int) -> np.ndarray:
    """A copy of the C array p of the given shape (float64)."""
    n = int(np.prod(shape)) if shape else 0
    if n == 0:
        return np.zeros(shape, dtype=np.float64)
    return np.ctypeslib.as_array(p, shape=(n,)).reshape(shape).copy()


def _img(png: bytes) -> str:
    return ("<img src=\"data:image/png;base64,%s\" style=\"max-width:100%%\">"
            % base64.b64encode(png).decode("ascii"))


class PCA(_Shown):
    """Principal components of the centred rows (gpt2-embed pca): n rows of width d, k kept.
    row_id (each row's position, or token ID for wte), mean (d,), variance (d,: the
    eigenvalues of the covariance, largest first), ratio and cumulative (d,: the share of the
    total variance and its running sum), total, floor (variances below it are rounding noise),
    n_signal (components above the floor), components (k, d: unit vectors) and proj (n, k:
    each centred row on each component), float64 numpy arrays; of, source. document: what
    `gpt2-embed pca --format json` prints. Figures: png() PC1..PC4 against position,
    png("variance"), png("pc1-pc2"), png("pc2-pc3")."""

    def __init__(self, r: _PcaResult, of: str, source: str, skip: int, what: str, doc: Dict[str, Any]):
        n, d, k = r.n, r.d, r.k
        self.n, self.d, self.k = n, d, k
        self.row_id = _arr(r.row_id, n)
        self.mean, self.variance = _arr(r.mean, d), _arr(r.variance, d)
        self.ratio, self.cumulative = _arr(r.ratio, d), _arr(r.cumulative, d)
        self.total, self.floor, self.n_signal = r.total, r.floor, r.n_signal
        self.components, self.proj = _arr(r.components, k, d), _arr(r.proj, n, k)
        self.of, self.source, self.first, self.what = of, source, skip, what
        self.document = doc
        self.says = [_c("total variance %.6g; variances below %.3g are rounding noise\n",
                        self.total, self.floor).strip()]
        shown = self._shown()
        if d >= 2:
            self.says.append(_c("PC1 and PC2 explain %.2f%%; the first %zu explain %.2f%%\n",
                                100 * self.cumulative[1], shown,
                                100 * self.cumulative[shown - 1]).strip())

    def _shown(self) -> int:
        """Rows of the table: the first k, stopping at the rounding-noise floor."""
        kk = max(1, min(self.k, self.d))
        return self.n_signal if 1 <= self.n_signal < kk else kk

    def _title(self) -> str:
        return _c("Principal components of %s (%zu rows x %zu columns, centred)%s%s\n", self.what,
                  self.n, self.d, "", "").strip()

    def _extra_html(self) -> List[str]:
        h = ["<table><tr>%s</tr>" % "".join("<th>%s</th>" % html.escape(_c(c)) for c in
                                            ("component", "variance", "ratio", "cumulative"))]
        for i in range(self._shown()):
            h.append("<tr><td>%d</td><td>%.6g</td><td>%.6g</td><td>%.6g</td></tr>"
                     % (i + 1, self.variance[i], self.ratio[i], self.cumulative[i]))
        h.append("</table>")
        try:
            h += [_img(self.png(w)) for w in ("variance", "pc1-pc2", "pc2-pc3")
                  if w == "variance" or self.k >= int(w[-1])]
        except ImportError:
            pass
        return h

    def png(self, which: str = "components") -> bytes:
        """A figure as PNG bytes: "components" (PC1..PC4 against position), "variance",
        "pc1-pc2" or "pc2-pc3" (ImportError when the rendering object is missing)."""
        proj, ratio = _f64(self.proj), _f64(self.ratio)
        what = self.what.encode("utf-8")
        pp, rp = L.ptr(proj, ctypes.c_double), L.ptr(ratio, ctypes.c_double)
        if which == "components":
            return _png(lambda r, p, ln, e: r.gpt2embed_figure_pca_components(
                pp, self.n, self.k, rp, self.first, what, p, ln, e))
        if which == "variance":
            return _png(lambda r, p, ln, e: r.gpt2embed_figure_pca_variance(rp, self.d, what, p, ln, e))
        pairs = {"pc1-pc2": (0, 1), "pc2-pc3": (1, 2)}
        if which not in pairs:
            raise ValueError("png takes 'components', 'variance', 'pc1-pc2' or 'pc2-pc3', not %r" % (which,))
        a, b = pairs[which]
        return _png(lambda r, p, ln, e: r.gpt2embed_figure_pca_scatter(
            pp, self.n, self.k, rp, self.first, a, b, what, p, ln, e))


def pca(model: Any = None, *, of: str = "wpe", ids: Optional[Sequence[int]] = None,
        text: Optional[str] = None, skip: int = 0, k: Optional[int] = None, length: int = 1024,
        dim: int = 768, base: float = 10000.0) -> PCA:
    """The principal components of model's wpe (of="wpe"; skip=1 leaves out GPT-2's outlier
    position 0), of wte rows (of="wte": the rows of ids, or of text's tokens, or every row),
    or of the sinusoidal encoding (of="sinusoidal": positions skip..length-1 of width dim;
    no model needed), keeping k components (at most the width; default 10, or the width when
    it is less), as gpt2-embed pca computes them (LAPACK, in double)."""
    if of not in _PCA_OF:
        raise ValueError("of is 'wpe', 'wte' or 'sinusoidal', not %r" % (of,))
    if of != "sinusoidal" and model is None:
        raise ValueError("pca of %s needs a Model" % of)
    if (ids is not None or text is not None) and of != "wte":
        raise ValueError("ids and text choose wte rows: pass of='wte'")
    if ids is not None and text is not None:
        raise ValueError("give the rows with ids or with text, not both")
    if text is not None:
        ids = model.encoding.encode(text, allowed_special="all")
    if ids is not None and len(ids) < 2:   # (no IDs would mean every row of wte)
        raise ValueError("%s gives %d token%s; principal components need at least 2 rows"
                         % ("text" if text is not None else "ids", len(ids), "" if len(ids) == 1 else "s"))
    id_arr = np.ascontiguousarray(np.asarray(ids if ids is not None else [], dtype=np.int64))
    if id_arr.size and (id_arr.min() < 0 or id_arr.max() > 0xFFFFFFFF):
        raise ValueError("token IDs are 0 .. 2^32-1")
    id_arr = id_arr.astype(np.uint32)
    src = _PcaSource(_PCA_OF[of], id_arr.ctypes.data_as(ctypes.POINTER(ctypes.c_uint32)),
                     id_arr.size, L.c_uint(length, "length"), L.c_uint(dim, "dim"), float(base),
                     L.c_uint(skip, "skip"))
    out = ctypes.POINTER(_PcaResult)()
    if k is None:
        k = min(10, dim if of == "sinusoidal" else model.n_embd)
    kk = L.c_uint(k, "k")

    def run(mp: Any) -> PCA:
        L.call(_pca, mp, ctypes.byref(src), kk, ctypes.byref(out))
        try:
            what = (_c("the sinusoidal PE (base %g)", float(base)) if of == "sinusoidal" else of)
            doc = _document(_pca_json, out, mp, ctypes.byref(src))
            return PCA(out.contents, of, doc["source"], skip if of != "wte" else 0, what, doc)
        finally:
            _pca_free(out)
    return run(None) if of == "sinusoidal" else model._run(run)


class WpeNorms(_Shown):
    """The norm of every wpe row against its position (gpt2-embed stats --by-position): norms
    (n_ctx,) float64, and the summary: first (position 0), median (of positions 1..), first_vs_median
    (their ratio; NaN when the median is 0, and the sentence then says so),
    argmin/min and argmax/max over positions 1.., split, mean_early/cv_early (positions
    1..split-1) and mean_late/cv_late (split..). document: what `gpt2-embed stats
    --by-position --format json` prints."""

    def __init__(self, norms: np.ndarray, s: _NormSummary, model: str, doc: Dict[str, Any]):
        self.document = doc
        self.norms, self.model = norms, model
        for f, _t in _NormSummary._fields_:
            setattr(self, f, getattr(s, f))
        n = len(norms)
        if np.isnan(self.first_vs_median):   # the median is 0: no ratio to it
            self.says = [_c("position 0: norm %.4f; the median of positions 1..%zu is 0 (at least half of "
                            "them are zero vectors), so no ratio to it is defined\n", self.first, n - 1).strip()]
        else:
            self.says = [_c("position 0: norm %.4f = %.2f x the median of positions 1..%zu (%.4f)\n",
                            self.first, self.first_vs_median, n - 1, self.median).strip()]
        if 1 < self.split < n:
            self.says.append(_c("spread (std / mean): %.2f%% over positions 1..%zu, %.2f%% over %zu..%zu\n",
                                100 * self.cv_early, self.split - 1, 100 * self.cv_late,
                                self.split, n - 1).strip())

    def _title(self) -> str:
        return _c("Norm of every wpe row against its position (%s, %zu positions)\n", self.model,
                  len(self.norms)).strip()

    def png(self) -> bytes:
        nm, name = _f64(self.norms), self.model.encode("utf-8")
        return _png(lambda r, p, ln, e: r.gpt2embed_figure_wpe_norms(
            L.ptr(nm, ctypes.c_double), len(nm), self.first_vs_median, name, p, ln, e))


def wpe_norms(model: Any) -> WpeNorms:
    """The norm of every row of model's wpe, and what a reader looks for in them."""
    norms = np.empty(model.n_ctx)
    s = _NormSummary()
    doc = model._run(lambda mp: (L.call(_wpe_norms, mp, L.ptr(norms, ctypes.c_double), ctypes.byref(s)),
                                 _document(_wpe_norms_json, mp))[1])
    return WpeNorms(norms, s, model.name or _c("unnamed model"), doc)


# ---- RoPE ----

class Rope(_Shown):
    """The rotary position encoding (gpt2-embed rope) for width dim and base: schemes (the
    chapter's three position schemes, rows of text in the chosen language); the relative
    check (check: pairs, max_dev, at_m, at_n, mean_dev, rounding_bound, relative, over
    positions 0..max_pos); the dot curve (k, mean, expected: float64 arrays); one pair's path
    (pair, theta, x, y). png() the dot curve, png("rotation") the pair's path. document: the
    program's four documents for these parameters, {"schemes": what `gpt2-embed rope --format
    json` prints, "check_relative": ... `rope --check-relative`, "dot_curve": ... `rope
    --dot-curve`, "rotation": ... `rope --rotation`}."""

    def __init__(self, dim: int, base: float, max_pos: int, seed: int, samples: int,
                 check: Dict[str, Any], k: np.ndarray, mean: np.ndarray, expected: np.ndarray,
                 pair: int, theta: float, x: np.ndarray, y: np.ndarray, doc: Dict[str, Any]):
        self.document = doc
        self.dim, self.base, self.max_pos, self.seed, self.samples = dim, base, max_pos, seed, samples
        self.check, self.k, self.mean, self.expected = check, k, mean, expected
        self.pair, self.theta, self.x, self.y = pair, theta, x, y
        cells = [[(_rope_scheme(r, c) or b"").decode("utf-8") for c in range(4)]
                 for r in range(_ROPE_SCHEME_ROWS)]
        self.schemes = [[_(v) if v else "" for v in row] for row in cells]
        self.says = [self._check_says()]

    def _check_says(self) -> str:
        c = self.check
        if c["relative"]:
            return _c("the score depends on m - n alone, up to rounding of the angles (within %.3g "
                      "for positions up to %lld)\n", c["rounding_bound"], self.max_pos).strip()
        return _c("the score does not depend on m - n alone here: the largest deviation exceeds "
                  "what rounding the angles explains (%.3g)\n", c["rounding_bound"]).strip()

    def _title(self) -> str:
        return _c("The three position schemes the chapter names\n").strip()

    def _rows(self) -> List[List[str]]:
        c = self.check
        return [["|<R(m)q, R(n)k> - <R(m-n)q, k>|", "%.3g (m = %d, n = %d)" % (c["max_dev"], c["at_m"], c["at_n"])]]

    def _extra_html(self) -> List[str]:
        h = ["<table>"]
        for r, row in enumerate(self.schemes):
            h.append("<tr>%s</tr>" % "".join(
                ("<th>%s</th>" if r == 0 or c == 0 else "<td>%s</td>") % html.escape(v)
                for c, v in enumerate(row)))
        h.append("</table>")
        try:
            h.append(_img(self.png("rotation")))
        except ImportError:
            pass
        return h

    def png(self, which: str = "dot") -> bytes:
        """"dot": the mean <R(0)q, R(k)q> against k with its expectation; "rotation": the pair's path."""
        if which == "dot":
            m, e = _f64(self.mean), _f64(self.expected)
            return _png(lambda r, p, ln, er: r.gpt2embed_figure_rope_dot(
                L.ptr(m, ctypes.c_double), L.ptr(e, ctypes.c_double), int(self.k[0]), len(m),
                self.dim, self.base, p, ln, er))
        if which != "rotation":
            raise ValueError("png takes 'dot' or 'rotation', not %r" % (which,))
        return _png(lambda r, p, ln, er: r.gpt2embed_figure_rope_rotation(
            L.ptr(self.x, ctypes.c_double), L.ptr(self.y, ctypes.c_double), len(self.x), self.pair,
            self.theta, self.dim, p, ln, er))


def rope(dim: int = 768, base: float = 10000.0, *, max_pos: int = 4096, pairs: int = 10000,
         seed: int = 1, start: int = 0, to: int = 512, samples: int = 100,
         pair: Optional[int] = None, n: int = 64) -> Rope:
    """RoPE for queries and keys of width dim (even): the relative check over `pairs` random
    unit q, k with positions in 0..max_pos, the dot curve for offsets start..to averaged over
    `samples` random unit q, and pair `pair`'s path over positions 0..n-1 (default pair dim/8,
    about 0.1 rad per position), as gpt2-embed rope computes them (the same seeds)."""
    d, b = L.c_uint(dim, "dim"), float(base)
    lo, hi = L.c_uint(start, "start"), L.c_uint(to, "to")
    if lo > hi:
        raise ValueError("start %d is after to %d" % (lo, hi))
    if hi - lo >= 10 ** 7:
        raise ValueError("at most 10^7 offsets")
    nn = L.c_uint(n, "n")
    if nn > 10 ** 7:
        raise ValueError("at most 10^7 positions")
    prm = _RopeParams(0, d, b, L.c_uint(max_pos, "max_pos"), L.c_uint(pairs, "pairs"),
                      L.c_uint(seed, "seed"), lo, hi, L.c_uint(samples, "samples"),
                      _PAIR_DEFAULT if pair is None else L.c_uint(pair, "pair"), nn)
    doc: Dict[str, Any] = {}
    for mode in (1, 2, 3, 0):   # (a bad argument reported by the mode that reads it first)
        prm.mode = mode
        doc[_ROPE_MODES[mode]] = _document(_rope_json, ctypes.byref(prm))
    doc = {key: doc[key] for key in _ROPE_MODES}
    # the numbers are the documents' (%.17g: the library's doubles, bit for bit)
    c, cur, rot = doc["check_relative"], doc["dot_curve"], doc["rotation"]
    check = {"pairs": c["pairs"], "max_dev": c["max_deviation"], "at_m": c["at_m"], "at_n": c["at_n"],
             "mean_dev": c["mean_deviation"], "rounding_bound": c["rounding_bound"],
             "relative": c["relative"]}
    f64 = lambda v: np.array(v, dtype=np.float64)   # noqa: E731
    return Rope(d, b, max_pos, seed, samples, check, np.arange(lo, hi + 1), f64(cur["mean_dot"]),
                f64(cur["expected"]), rot["pair"], rot["theta"], f64(rot["x_2i"]), f64(rot["x_2i+1"]), doc)


def _from_environment() -> None:
    """At import: Japanese when the environment asks for it, as the program does."""
    if not _env_wants_ja():
        return
    try:
        set_language("ja")
    except FileNotFoundError as e:
        warnings.warn("%s; the course stays in English" % e)


@atexit.register
def _no_translator_at_exit() -> None:
    """The C objects must not call back into a Python that is shutting down."""
    _set_translator(_TRANSLATE())
    if _render_lib is not None:
        _render_lib.gpt2embed_figure_set_translator(_TRANSLATE())


_from_environment()
