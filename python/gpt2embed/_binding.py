# SPDX-License-Identifier: MIT
"""The ctypes binding of libgpt2embed (internal): finding and loading the library, the
functions' prototypes, the library's errors as Python exceptions, checked arguments, and
the guard every C object sits behind (calls in flight, close)."""

import ctypes
import operator
import os
import threading
import weakref
from typing import Any, Callable, List, Optional, Tuple

import numpy as np

# ---- the status enum (src/gpt2embed.h), in order ----
STATUS = ["OK", "E_NOMEM", "E_IO", "E_ARG", "E_NOT_FOUND", "E_UNKNOWN_MODEL", "E_FORMAT",
          "E_NOT_GPT2", "E_UTF8", "E_SPECIAL", "E_TOKEN_ID", "E_CONTEXT", "E_ZERO_VECTOR",
          "E_TOO_LARGE", "E_INTERNAL", "E_BUFFER", "E_STOPPED", "E_UNAVAILABLE"]


class Error(Exception):
    """A failure reported by libgpt2embed: str(e) is the library's message; e.status the
    status name ("E_NOT_FOUND", ...), e.code its number; e.offset the byte offset in the
    text (invalid UTF-8) and e.index the index of the bad token ID or of the failing text
    of a batch, when the library says so (else None)."""

    def __init__(self, code: int, message: str, offset: Optional[int] = None,
                 index: Optional[int] = None):
        super().__init__(message)
        self.code = code
        self.status = STATUS[code] if 0 <= code < len(STATUS) else "E_%d" % code
        self.offset = offset
        self.index = index


class NotFoundError(Error, FileNotFoundError):
    """No weights or tokenizer where looked (the message lists the places)."""

    def __str__(self) -> str:   # FileNotFoundError's own __str__ would print "None"
        return Exception.__str__(self)


class InvalidInputError(Error, ValueError):
    """Bad input: invalid UTF-8, a token ID outside the vocabulary, positions past the
    context, a zero vector, an unknown model name or a bad argument."""


_VALUE_ERRORS = {"E_ARG", "E_UNKNOWN_MODEL", "E_UTF8", "E_SPECIAL", "E_TOKEN_ID",
                 "E_CONTEXT", "E_ZERO_VECTOR"}

# The library names no option of the program, nor Python's parameters; where a message has
# advice for a Python user, it is added here.
_PY_WORDS = [
    # (only tokenize(special="error") gets this from the library: encode() refuses special
    # tokens itself, with tiktoken's message)
    ("is not allowed here", "is not allowed here (pass special='token' or special='text')"),
]


def pythonic(message: str) -> str:
    for cli, py in _PY_WORDS:
        message = message.replace(cli, py)
    return message


def make_error(code: int, message: str, offset: Optional[int] = None,
               index: Optional[int] = None) -> Exception:
    name = STATUS[code] if 0 <= code < len(STATUS) else ""
    message = pythonic(message)
    if name == "E_NOT_FOUND" and message.startswith("no weights for "):
        message += "; pass path=FILE, or get them with the program: gpt2-embed download --model NAME"
    if name == "E_NOT_FOUND":
        return NotFoundError(code, message, offset, index)
    if name in _VALUE_ERRORS:
        return InvalidInputError(code, message, offset, index)
    if name == "E_NOMEM":
        return MemoryError(message)
    return Error(code, message, offset, index)


# ---- loading the library ----

def _candidates() -> List[str]:
    env = os.environ.get("GPT2EMBED_LIBRARY")
    if env:
        return [env]   # explicit: no fallback, so a wrong path is an error, not another library
    here = os.path.dirname(os.path.abspath(__file__))
    out = [os.path.join(here, "libgpt2embed.so")]   # shipped inside the package (pip)
    try:
        from . import _config   # written by make install
        out.append(_config.LIBRARY)
    except ImportError:
        pass
    out.append(os.path.normpath(os.path.join(here, "..", "..", "build", "libgpt2embed.so")))
    out.append("libgpt2embed.so.1")
    return out


def _load() -> ctypes.CDLL:
    tried = []
    for c in _candidates():
        if os.sep in c and not os.path.exists(c):
            tried.append(c)
            continue
        try:
            return ctypes.CDLL(c)
        except OSError as e:
            tried.append("%s (%s)" % (c, e))
    raise ImportError("gpt2embed: cannot load libgpt2embed; tried: " + "; ".join(tried) +
                      " (set GPT2EMBED_LIBRARY to its path, or build it with make)")


lib = _load()

P = ctypes.c_void_p
S = ctypes.c_size_t
SP = ctypes.POINTER(ctypes.c_size_t)
U32P = ctypes.POINTER(ctypes.c_uint32)
FP = ctypes.POINTER(ctypes.c_float)
DP = ctypes.POINTER(ctypes.c_double)
CP = ctypes.c_char_p
I = ctypes.c_int
U = ctypes.c_uint

SIZE_MAX = (1 << (8 * ctypes.sizeof(S))) - 1
UINT_MAX = (1 << (8 * ctypes.sizeof(U))) - 1
NONE = SIZE_MAX   # GPT2EMBED_NONE


class ErrorDetail(ctypes.Structure):
    """gpt2embed_error (0.3.0)."""
    _fields_ = [("status", I), ("offset", S), ("index", S), ("errno_value", I),
                ("message", ctypes.c_char * 512)]


if not hasattr(lib, "gpt2embed_tokenize_batch"):   # 0.2's ABI: (char *err, size_t errlen)
    raise ImportError("gpt2embed: %s is an older libgpt2embed; this module needs 0.3 or "
                      "later (libgpt2embed.so.1)" % lib._name)
_ERR_ARGS = [ctypes.POINTER(ErrorDetail)]


def fn(name: str, restype: Any, *argtypes: Any, err: bool = False) -> Any:
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes) + (_ERR_ARGS if err else [])
    return f


def call(f: Any, *args: Any, ok: tuple = ()) -> int:
    """Calls f(*args, &error) and returns its status when it is 0 or in ok; else raises the
    library's error (with its offset and index). ctypes releases the GIL for the call."""
    e = ErrorDetail()
    rc = f(*args, ctypes.byref(e))
    if rc != 0 and rc not in ok:
        raise make_error(rc, e.message.decode("utf-8", "replace"),
                         None if e.offset == NONE else e.offset,
                         None if e.index == NONE else e.index)
    return rc


strerror_c = fn("gpt2embed_strerror", CP, I)
version_c = fn("gpt2embed_version", CP)
model_open = fn("gpt2embed_model_open", I, ctypes.POINTER(P), CP, CP, err=True)
model_close = fn("gpt2embed_model_close", None, P)
n_vocab = fn("gpt2embed_n_vocab", S, P)
n_ctx = fn("gpt2embed_n_ctx", S, P)
n_embd = fn("gpt2embed_n_embd", S, P)
model_name = fn("gpt2embed_model_name", CP, P)
model_path = fn("gpt2embed_model_path", CP, P)
table_dtype = fn("gpt2embed_table_dtype", I, P, I)
dtype_name = fn("gpt2embed_dtype_name", CP, I)
rows = fn("gpt2embed_rows", I, P, I, S, S, FP, err=True)
tok_open = fn("gpt2embed_tokenizer_open", I, ctypes.POINTER(P), CP, err=True)
tok_close = fn("gpt2embed_tokenizer_close", None, P)
tok_n_vocab = fn("gpt2embed_tokenizer_n_vocab", S, P)
decode = fn("gpt2embed_decode", I, P, U32P, S, ctypes.POINTER(P), SP, err=True)
embed_pe = fn("gpt2embed_embed_pe", I, P, U32P, S, S, I, FP, err=True)
sinusoidal = fn("gpt2embed_sinusoidal", I, S, S, S, ctypes.c_double, FP, err=True)
cosine = fn("gpt2embed_cosine", I, FP, FP, S, DP, err=True)
cosine_matrix = fn("gpt2embed_cosine_matrix", I, FP, S, S, DP, err=True)
free = fn("gpt2embed_free", None, P)



class CountInfoC(ctypes.Structure):
    """gpt2embed_count_info."""
    _fields_ = [("n_tokens", S), ("n_chars", S), ("n_ctx", S), ("ctx_end_byte", S),
                ("ctx_end_char", S), ("ctx_end_splits_char", I)]


tokenize_into = fn("gpt2embed_tokenize_into", I, P, CP, S, U, U32P, SP, S, SP, err=True)
tokenize_batch = fn("gpt2embed_tokenize_batch", I, P, S, ctypes.POINTER(CP), SP, U, U,
                    ctypes.POINTER(U32P), SP, err=True)
count_c = fn("gpt2embed_count", I, P, CP, S, U, S, ctypes.POINTER(CountInfoC), err=True)
token_bytes_c = fn("gpt2embed_token_bytes", I, P, ctypes.c_uint32,
                   ctypes.POINTER(ctypes.POINTER(ctypes.c_uint8)), SP, err=True)
cpu_count_c = fn("gpt2embed_cpu_count", U)
threads_for_c = fn("gpt2embed_threads_for", U, U, ctypes.c_size_t)

# flags (src/gpt2embed.h)
SPECIAL_TEXT, SPECIAL_ERROR, LOSSY = 1, 2, 4
WTE, WPE = 0, 1
PE = {"learned": 0, "sinusoidal": 1}


def ptr(a: np.ndarray, ctype: Any) -> Any:
    return a.ctypes.data_as(ctypes.POINTER(ctype))


# ---- the lists of a batch, made in C (_pylists.c) ----

def _pylists_candidates() -> List[str]:
    """Where _pylists.so may be: inside the package (pip, make install), then in the build
    directory of the library that was loaded (make builds it as BUILDDIR/python/)."""
    here = os.path.dirname(os.path.abspath(__file__))
    out = [os.path.join(here, "_pylists.so")]
    name = getattr(lib, "_name", None)
    if name and os.sep in name:
        out.append(os.path.join(os.path.dirname(os.path.abspath(name)), "python", "_pylists.so"))
    return out


def _load_pylists() -> Tuple[Optional[Any], Optional[Any], Optional[str]]:
    """(g2e_pylists_append(out, ids, counts, n), g2e_pylists_join(texts, a, z, lens), the
    file), or (None, None, None): then the lists are made and the texts joined in Python (the
    same results, slower). GPT2EMBED_PYLISTS=0 says not to load it."""
    if os.environ.get("GPT2EMBED_PYLISTS") == "0":
        return None, None, None
    for c in _pylists_candidates():
        if not os.path.exists(c):
            continue
        try:
            h = ctypes.PyDLL(c)   # PyDLL: its functions are called with the GIL held
            append, join = h.g2e_pylists_append, h.g2e_pylists_join
        except (OSError, AttributeError):
            continue
        append.restype = ctypes.py_object
        append.argtypes = [ctypes.py_object, P, P, ctypes.c_ssize_t]
        join.restype = ctypes.py_object
        join.argtypes = [ctypes.py_object, ctypes.c_ssize_t, ctypes.c_ssize_t, P]
        return append, join, c
    return None, None, None


pylists_append, pylists_join, pylists_path = _load_pylists()


# ---- checked arguments ----

def c_uint(value: Any, name: str, maximum: int = SIZE_MAX) -> int:
    """value as a Python int in 0..maximum (a C size_t by default): TypeError when it is no
    integer, OverflowError outside the C type (never a silent wrap)."""
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError("%s must be an integer, not %s" % (name, type(value).__name__)) from None
    if v < 0 or v > maximum:
        raise OverflowError("%s=%d is outside the C type's range 0..%d" % (name, v, maximum))
    return v


def c_path(path: Any, name: str) -> bytes:
    """A path (str, bytes or os.PathLike) as bytes for C: a NUL inside is a ValueError (C
    would silently open the part before it)."""
    b = os.fsencode(path)
    if b"\0" in b:
        raise ValueError("%s contains a NUL character: %r" % (name, path))
    return b


def token_ids(ids: Any, name: str = "tokens") -> np.ndarray:
    """ids (a sequence of ints or an integer array) as a C-contiguous, aligned uint32 array;
    a value outside uint32 is OverflowError, one >= the vocabulary is the library's
    E_TOKEN_ID (InvalidInputError) at the call."""
    if isinstance(ids, (str, bytes)):
        raise TypeError("%s must be a sequence of token IDs, not %s" % (name, type(ids).__name__))
    a = np.asarray(ids)
    if a.ndim != 1:
        raise ValueError("%s must be one-dimensional, got shape %s" % (name, a.shape))
    if a.size == 0:
        return np.zeros(0, dtype=np.uint32)
    if a.dtype == object:   # Python ints beyond int64
        for i, v in enumerate(a):
            c_uint(v, "%s[%d]" % (name, i), 0xFFFFFFFF)
        a = a.astype(np.uint64)
    elif not np.issubdtype(a.dtype, np.integer) or a.dtype == np.bool_:
        raise TypeError("%s must be integers, not %s" % (name, a.dtype))
    bad = (a < 0) | (a > 0xFFFFFFFF)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        c_uint(int(a[i]), "%s[%d]" % (name, i), 0xFFFFFFFF)
    return np.require(a, dtype=np.uint32, requirements=["C", "A"])


# ---- the guard of one C object ----

class Guard:
    """One C object shared by threads. Every call enters (the object must be open: else
    ValueError "the <what> is closed") and leaves; close() makes later calls raise, waits
    for the calls in flight, then frees the object once. serialize: calls also take a
    per-object lock (for objects whose C calls must not overlap)."""

    def __init__(self, p: Any, closer: Callable[[Any], None], what: str, serialize: bool):
        self._p = p
        self._what = what
        self._cond = threading.Condition(threading.Lock())
        self._busy = 0
        self._serial = threading.Lock() if serialize else None
        # garbage collection frees it too (no call can be in flight then)
        self._fin = weakref.finalize(self, closer, p)

    @property
    def closed(self) -> bool:
        return self._p is None

    def run(self, f: Callable[..., Any], *args: Any) -> Any:
        """f(c_pointer, *args) inside the guard."""
        with self._cond:
            if self._p is None:
                raise ValueError("the %s is closed" % self._what)
            self._busy += 1
            p = self._p
        try:
            if self._serial is None:
                return f(p, *args)
            with self._serial:
                return f(p, *args)
        finally:
            with self._cond:
                self._busy -= 1
                if self._busy == 0:
                    self._cond.notify_all()

    def close(self) -> None:
        with self._cond:
            if self._p is None:
                return
            self._p = None
            while self._busy:
                self._cond.wait()
        self._fin()


def open_tokenizer(dir: Optional[Any], what: str, serialize: bool) -> Guard:
    p = P()
    call(tok_open, ctypes.byref(p), None if dir is None else c_path(dir, "tokenizer"))
    return Guard(p, tok_close, what, serialize)


def threads_for(n_threads: int, n_items: int) -> int:
    """The library's one thread cap: the threads a call asked for n_threads (0: the CPUs)
    runs n_items items on (at most 64 and n_items, at least 1)."""
    return int(threads_for_c(n_threads, n_items))


def cpu_count() -> int:
    """The CPUs this process may use (affinity, cgroup quota)."""
    return int(cpu_count_c())


def version() -> str:
    return version_c().decode()


def strerror(status: int) -> str:
    return strerror_c(int(status)).decode()


def status_code(name: str) -> int:
    return STATUS.index(name)
