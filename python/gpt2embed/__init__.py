# SPDX-License-Identifier: MIT
"""gpt2embed — GPT-2's embedding stage from Python, over libgpt2embed.so (ctypes).

    import gpt2embed
    m = gpt2embed.Model()                       # finds gpt2's weights as gpt2-embed does
    x = m.embed("The dog chased the cat")       # float32 (T, 768) = wte[ids] + wpe[0..T)

Token IDs are exactly tiktoken's ``gpt2`` encoding; embeddings are bit-identical to numpy's
``wte[ids] + wpe[start:start + T]`` and to the program's ``--format npy`` output.

Why ctypes (and not cffi): it is in the standard library, so the module needs nothing but
numpy, no compiler and no Python headers at install time; the C API is plain (pointers,
sizes, enums), which ctypes describes in a few lines.

The shared library is found in this order: ``$GPT2EMBED_LIBRARY`` (a path), the one
``make install`` recorded (``_config.py``), the build tree beside this source tree
(``build/libgpt2embed.so.1``), then the dynamic loader's search (``libgpt2embed.so.1``).

Errors of the library become ``gpt2embed.Error`` (or a subclass) carrying the library's own
one-line message and ``status`` (the C enum's name, e.g. ``"E_TOKEN_ID"``).
"""

import ctypes
import os
import weakref

import numpy as np

__all__ = ["Model", "Tokenizer", "Error", "NotFoundError", "sinusoidal", "similarity",
           "cosine_matrix", "library_version", "MODELS"]

MODELS = ("gpt2", "gpt2-medium", "gpt2-large", "gpt2-xl", "distilgpt2")

# ---- the status enum (src/gpt2embed.h), in order ----
_STATUS = ["OK", "E_NOMEM", "E_IO", "E_ARG", "E_NOT_FOUND", "E_UNKNOWN_MODEL", "E_FORMAT",
           "E_NOT_GPT2", "E_UTF8", "E_SPECIAL", "E_TOKEN_ID", "E_CONTEXT", "E_ZERO_VECTOR",
           "E_TOO_LARGE", "E_INTERNAL"]


class Error(Exception):
    """A failure reported by libgpt2embed: str(e) is the library's message; e.status the
    status name ("E_NOT_FOUND", ...), e.code its number."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.status = _STATUS[code] if 0 <= code < len(_STATUS) else "E_%d" % code


class NotFoundError(Error, FileNotFoundError):
    """No weights or tokenizer where looked (the message lists the places)."""


class InvalidInputError(Error, ValueError):
    """Bad input: invalid UTF-8, a token ID outside the vocabulary, positions past the
    context, a zero vector, an unknown model name or a bad argument."""


_VALUE_ERRORS = {"E_ARG", "E_UNKNOWN_MODEL", "E_UTF8", "E_SPECIAL", "E_TOKEN_ID",
                 "E_CONTEXT", "E_ZERO_VECTOR"}


def _error(code, message):
    name = _STATUS[code] if 0 <= code < len(_STATUS) else ""
    if name == "E_NOT_FOUND":
        return NotFoundError(code, message)
    if name in _VALUE_ERRORS:
        return InvalidInputError(code, message)
    if name == "E_NOMEM":
        return MemoryError(message)
    return Error(code, message)


# ---- loading the library ----

def _candidates():
    env = os.environ.get("GPT2EMBED_LIBRARY")
    if env:
        return [env]   # explicit: no fallback, so a wrong path is an error, not another library
    out = []
    try:
        from . import _config   # written by make install
        out.append(_config.LIBRARY)
    except ImportError:
        pass
    here = os.path.dirname(os.path.abspath(__file__))
    out.append(os.path.normpath(os.path.join(here, "..", "..", "build", "libgpt2embed.so.1")))
    out.append("libgpt2embed.so.1")
    return out


def _load():
    tried = []
    for c in _candidates():
        if os.sep in c and not os.path.exists(c):
            tried.append(c)
            continue
        try:
            return ctypes.CDLL(c)
        except OSError as e:
            tried.append("%s (%s)" % (c, e))
    raise ImportError("gpt2embed: cannot load libgpt2embed.so.1; tried: " + "; ".join(tried) +
                      " (set GPT2EMBED_LIBRARY to its path, or build it with make)")


_lib = _load()

_P = ctypes.c_void_p
_S = ctypes.c_size_t
_SP = ctypes.POINTER(ctypes.c_size_t)
_U32P = ctypes.POINTER(ctypes.c_uint32)
_FP = ctypes.POINTER(ctypes.c_float)
_DP = ctypes.POINTER(ctypes.c_double)
_CP = ctypes.c_char_p
_I = ctypes.c_int


class _Error(ctypes.Structure):
    """gpt2embed_error (gpt2embed.h): status, offset, index, errno_value, message[512]."""
    _fields_ = [("status", ctypes.c_int), ("offset", ctypes.c_size_t), ("index", ctypes.c_size_t),
                ("errno_value", ctypes.c_int), ("message", ctypes.c_char * 512)]


_EP = ctypes.POINTER(_Error)


def _fn(name, restype, *argtypes):
    f = getattr(_lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


_strerror = _fn("gpt2embed_strerror", _CP, _I)
_version = _fn("gpt2embed_version", _CP)
_model_open = _fn("gpt2embed_model_open", _I, ctypes.POINTER(_P), _CP, _CP, _EP)
_model_close = _fn("gpt2embed_model_close", None, _P)
_n_vocab = _fn("gpt2embed_n_vocab", _S, _P)
_n_ctx = _fn("gpt2embed_n_ctx", _S, _P)
_n_embd = _fn("gpt2embed_n_embd", _S, _P)
_model_name = _fn("gpt2embed_model_name", _CP, _P)
_model_path = _fn("gpt2embed_model_path", _CP, _P)
_table_dtype = _fn("gpt2embed_table_dtype", _I, _P, _I)
_dtype_name = _fn("gpt2embed_dtype_name", _CP, _I)
_rows = _fn("gpt2embed_rows", _I, _P, _I, _S, _S, _FP, _EP)
_table_data = _fn("gpt2embed_table_data", _I, _P, _I, ctypes.POINTER(_P), _SP, _SP,
                  ctypes.POINTER(_I), _EP)
_tok_open = _fn("gpt2embed_tokenizer_open", _I, ctypes.POINTER(_P), _CP, _EP)
_tok_close = _fn("gpt2embed_tokenizer_close", None, _P)
_tok_n_vocab = _fn("gpt2embed_tokenizer_n_vocab", _S, _P)
_tokenize_ex = _fn("gpt2embed_tokenize_ex", _I, _P, _CP, _S, ctypes.c_uint,
                   ctypes.POINTER(_U32P), ctypes.POINTER(_SP), _SP, _EP)
_decode = _fn("gpt2embed_decode", _I, _P, _U32P, _S, ctypes.POINTER(_P), _SP, _EP)
_embed_pe = _fn("gpt2embed_embed_pe", _I, _P, _U32P, _S, _S, _I, _FP, _EP)
_sinusoidal = _fn("gpt2embed_sinusoidal", _I, _S, _S, _S, ctypes.c_double, _FP, _EP)
_cosine = _fn("gpt2embed_cosine", _I, _FP, _FP, _S, _DP, _EP)
_cosine_matrix = _fn("gpt2embed_cosine_matrix", _I, _FP, _S, _S, _DP, _EP)
_free = _fn("gpt2embed_free", None, _P)

_SPECIAL = {"token": 0, "text": 1, "error": 2}
_PE = {"learned": 0, "sinusoidal": 1}
_WTE, _WPE = 0, 1
_F32 = 0


def _call(f, *args):
    """Calls f(*args, err, errlen); raises the library's error when it returns non-zero."""
    err = _Error()
    rc = f(*args, ctypes.byref(err))
    if rc != 0:
        raise _error(rc, err.message.decode("utf-8", "replace"))


def _ptr(a, ctype):
    return a.ctypes.data_as(ctypes.POINTER(ctype))


def library_version():
    """The version of the loaded libgpt2embed ("0.3.0")."""
    return _version().decode()


__version__ = library_version()


def strerror(status):
    """The library's generic text for a status number."""
    return _strerror(int(status)).decode()


def _bytes_of(text):
    if isinstance(text, str):
        # surrogates (e.g. from os.fsdecode) cannot be UTF-8: let the library report them
        return text.encode("utf-8", "surrogatepass")
    if isinstance(text, (bytes, bytearray, memoryview)):
        return bytes(text)
    raise TypeError("text must be str or bytes, not %s" % type(text).__name__)


def _ids_of(ids):
    a = np.asarray(ids)
    if a.ndim != 1:
        raise ValueError("token IDs must be one-dimensional, got shape %s" % (a.shape,))
    if a.size and not np.issubdtype(a.dtype, np.integer):
        raise TypeError("token IDs must be integers, not %s" % a.dtype)
    if a.size and (a.min() < 0 or a.max() > 0xFFFFFFFF):
        bad = int(a[(a < 0) | (a > 0xFFFFFFFF)][0])
        raise InvalidInputError(_STATUS.index("E_TOKEN_ID"),
                                "token ID %d is outside the vocabulary" % bad)
    return np.require(a, dtype=np.uint32, requirements=["C", "A"])


class _Handle:
    """Owns one C object; closed when the last Python reference (the Model, or a numpy view
    of its mapping) goes away, so a view can never outlive the mapping it reads."""

    def __init__(self, ptr, closer):
        self.ptr = ptr
        self._fin = weakref.finalize(self, closer, ptr)


class _Owner:
    """What Tokenizer and Model share: a `with` block closes them, and _p() is the C handle,
    or ValueError("the <_what> is closed") once close() was called."""

    _what = "object"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _p(self):
        if self._h is None:
            raise ValueError("the %s is closed" % self._what)
        return self._h.ptr


class Tokenizer(_Owner):
    """GPT-2's tokenizer. dir: a directory with vocab.json + merges.txt (or encoder.json +
    vocab.bpe); None looks where the program does and falls back to the built-in copy."""

    _what = "tokenizer"

    def __init__(self, dir=None):
        p = _P()
        _call(_tok_open, ctypes.byref(p), None if dir is None else os.fsencode(dir))
        self._h = _Handle(p, _tok_close)

    def close(self):
        """Releases the tokenizer (also done when it is garbage-collected)."""
        if self._h is not None:
            self._h._fin()
            self._h = None


    @property
    def n_vocab(self):
        return int(_tok_n_vocab(self._p()))

    def _encode(self, text, special, errors, want_offsets):
        if special not in _SPECIAL:
            raise ValueError("special must be 'token', 'text' or 'error', not %r" % (special,))
        if errors not in ("strict", "replace"):
            raise ValueError("errors must be 'strict' or 'replace', not %r" % (errors,))
        b = _bytes_of(text)
        flags = _SPECIAL[special] | (4 if errors == "replace" else 0)   # the C flag bits
        ids, offs, n = _U32P(), _SP(), _S()
        _call(_tokenize_ex, self._p(), b, len(b), flags, ctypes.byref(ids),
              ctypes.byref(offs) if want_offsets else None, ctypes.byref(n))
        try:
            out = np.ctypeslib.as_array(ids, (n.value,)).copy() if n.value else \
                np.zeros(0, np.uint32)
            o = None
            if want_offsets:
                o = np.ctypeslib.as_array(offs, (n.value + 1,)).astype(np.int64) if offs \
                    else np.array([len(b)], dtype=np.int64)
        finally:
            _free(ctypes.cast(ids, _P))
            if want_offsets:
                _free(ctypes.cast(offs, _P))
        return out, o

    def tokenize(self, text, special="token", errors="strict"):
        """Token IDs of text (str, or UTF-8 bytes) as np.ndarray[uint32], exactly tiktoken's.
        special: what "<|endoftext|>" in the text is — "token" (ID 50256), "text" (ordinary
        text) or "error". errors="replace" turns invalid UTF-8 into U+FFFD instead of raising."""
        return self._encode(text, special, errors, False)[0]

    def tokenize_with_offsets(self, text, special="token", errors="strict"):
        """(ids, offsets): offsets (int64, len(ids) + 1) are byte offsets into the UTF-8 text;
        token i covers bytes offsets[i]:offsets[i+1]."""
        return self._encode(text, special, errors, True)

    def decode_bytes(self, ids):
        """The exact bytes of the tokens ids (may end inside a UTF-8 character)."""
        a = _ids_of(ids)
        p, n = _P(), _S()
        _call(_decode, self._p(), _ptr(a, ctypes.c_uint32), a.size, ctypes.byref(p),
              ctypes.byref(n))
        try:
            return ctypes.string_at(p, n.value) if n.value else b""
        finally:
            _free(p)

    def decode(self, ids, errors="replace"):
        """The text of ids; bytes that are not valid UTF-8 (a token can end inside a
        character) become U+FFFD, as tiktoken's decode does (errors="strict" raises)."""
        return self.decode_bytes(ids).decode("utf-8", errors)


class Model(_Owner):
    """GPT-2's embeddings (wte, wpe) and its tokenizer.

    path: a safetensors file; None finds model's weights as gpt2-embed does
    ($GPT2_EMBED_WEIGHTS, weights/<model>.safetensors, the installed data directory, the
    Hugging Face cache). tokenizer: a tokenizer directory, None as the program looks."""

    _what = "model"

    def __init__(self, path=None, model="gpt2", tokenizer=None):
        p = _P()
        _call(_model_open, ctypes.byref(p), None if path is None else os.fsencode(path),
              None if model is None else model.encode())
        self._h = _Handle(p, _model_close)
        self._tok_dir = tokenizer
        self._tok = None
        self._views = {}

    def close(self):
        """Drops the model's hold on the file; the mapping is released once no wte/wpe view
        taken from it is alive either."""
        self._h = None
        self._views = {}
        if self._tok is not None:
            self._tok.close()
            self._tok = None


    # -- facts --
    @property
    def n_vocab(self):
        return int(_n_vocab(self._p()))

    @property
    def n_ctx(self):
        return int(_n_ctx(self._p()))

    @property
    def n_embd(self):
        return int(_n_embd(self._p()))

    @property
    def name(self):
        """"gpt2", "gpt2-medium", ..., or None when the shapes match no known model."""
        n = _model_name(self._p())
        return None if n is None else n.decode()

    @property
    def path(self):
        return os.fsdecode(_model_path(self._p()))

    @property
    def dtype(self):
        """The stored dtype of wte: "F32", "F16" or "BF16"."""
        return _dtype_name(_table_dtype(self._p(), _WTE)).decode()

    def __repr__(self):
        if self._h is None:
            return "<gpt2embed.Model (closed)>"
        return "<gpt2embed.Model %s %s n_vocab=%d n_ctx=%d n_embd=%d %r>" % (
            self.name, self.dtype, self.n_vocab, self.n_ctx, self.n_embd, self.path)

    # -- tables --
    def _table(self, which):
        if which in self._views:
            return self._views[which]
        h = self._h
        ptr = self._p()
        data, rows, cols, dt = _P(), _S(), _S(), _I()
        _call(_table_data, ptr, which, ctypes.byref(data), ctypes.byref(rows),
              ctypes.byref(cols), ctypes.byref(dt))
        R, C = rows.value, cols.value
        if dt.value == _F32:
            # a read-only view of the mapping: no copy; its base keeps the handle alive
            buf = (ctypes.c_char * (R * C * 4)).from_address(data.value)
            buf._gpt2embed_handle = h
            a = np.frombuffer(buf, dtype="<f4").reshape(R, C)
        else:
            a = np.empty((R, C), dtype=np.float32)
            _call(_rows, ptr, which, 0, R, _ptr(a, ctypes.c_float))
        a.flags.writeable = False
        self._views[which] = a
        return a

    @property
    def wte(self):
        """Token embeddings (n_vocab, n_embd) float32, read-only: a view of the mapped file
        when it is F32 (no copy), else an exact float32 copy of the F16/BF16 values."""
        return self._table(_WTE)

    @property
    def wpe(self):
        """Learned position embeddings (n_ctx, n_embd) float32, read-only (as wte)."""
        return self._table(_WPE)

    # -- tokenizer --
    @property
    def tokenizer(self):
        if self._tok is None:
            self._tok = Tokenizer(self._tok_dir)
        return self._tok

    def tokenize(self, text, special="token", errors="strict"):
        """See Tokenizer.tokenize."""
        return self.tokenizer.tokenize(text, special, errors)

    def tokenize_with_offsets(self, text, special="token", errors="strict"):
        return self.tokenizer.tokenize_with_offsets(text, special, errors)

    def decode(self, ids, errors="replace"):
        return self.tokenizer.decode(ids, errors)

    # -- the embedding stage --
    def embed(self, text_or_ids, start_pos=0, pe="learned", special="token"):
        """x[t] = wte[id_t] + P(start_pos + t) as float32 (T, n_embd), P = wpe ("learned") or
        the sinusoidal encoding of width n_embd ("sinusoidal", no context limit). Text (str or
        bytes) is tokenized first; anything else is taken as token IDs."""
        if pe not in _PE:
            raise ValueError("pe must be 'learned' or 'sinusoidal', not %r" % (pe,))
        if isinstance(text_or_ids, (str, bytes, bytearray, memoryview)):
            ids = self.tokenize(text_or_ids, special=special)
        else:
            ids = _ids_of(text_or_ids)
        start = int(start_pos)
        if start < 0:
            raise InvalidInputError(_STATUS.index("E_CONTEXT"),
                                    "start_pos must be >= 0, got %d" % start)
        out = np.empty((ids.size, self.n_embd), dtype=np.float32)
        _call(_embed_pe, self._p(), _ptr(ids, ctypes.c_uint32), ids.size, start, _PE[pe],
              _ptr(out, ctypes.c_float))
        return out


def sinusoidal(n, dim, start=0, base=10000.0):
    """The original Transformer's positional encoding of positions start..start+n-1, width dim
    (even): float32 (n, dim), computed in double and rounded once."""
    n, dim, start = int(n), int(dim), int(start)
    if n < 0 or start < 0:
        raise InvalidInputError(_STATUS.index("E_ARG"), "n and start must be >= 0")
    out = np.empty((n, dim), dtype=np.float32)
    _call(_sinusoidal, start, n, dim, float(base), _ptr(out, ctypes.c_float))
    return out


def _f32(v):
    """v as a C-contiguous, ALIGNED float32 array: a view of the mapped file is unaligned
    (GPT-2's data starts at an odd offset), and C may not read floats through such a
    pointer, so those are copied."""
    return np.require(v, dtype=np.float32, requirements=["C", "A"])


def _f32_vector(v, what):
    a = _f32(v)
    if a.ndim != 1:
        raise ValueError("%s must be a vector, got shape %s" % (what, a.shape))
    return a


def similarity(a, b):
    """cos(a, b) of two vectors (float32 values, accumulated in double). A zero vector
    raises InvalidInputError (never a silent nan)."""
    x, y = _f32_vector(a, "a"), _f32_vector(b, "b")
    if x.size != y.size:
        raise ValueError("vectors of different lengths: %d and %d" % (x.size, y.size))
    out = ctypes.c_double()
    _call(_cosine, _ptr(x, ctypes.c_float), _ptr(y, ctypes.c_float), x.size, ctypes.byref(out))
    return out.value


def cosine_matrix(X):
    """The (R, R) float64 matrix of cosines of the rows of X (R, C)."""
    a = _f32(X)
    if a.ndim != 2:
        raise ValueError("X must be 2-D (rows, width), got shape %s" % (a.shape,))
    R, C = a.shape
    out = np.empty((R, R), dtype=np.float64)
    _call(_cosine_matrix, _ptr(a, ctypes.c_float), R, C, _ptr(out, ctypes.c_double))
    return out
