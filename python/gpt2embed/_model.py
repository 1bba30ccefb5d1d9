# SPDX-License-Identifier: MIT
"""The embedding stage: Model (wte, wpe, embed, batches, count) and the numeric helpers
(internal module; the names are re-exported by gpt2embed)."""

import ctypes
import os
import threading
import weakref
from typing import Any, List, NamedTuple, Optional, Sequence, Union

import numpy as np

from . import _binding as L
from ._encoding import EOT, CountInfo, Encoding, SpecialColl, SpecialSet, legacy_tokenize

MODELS = ("gpt2", "gpt2-medium", "gpt2-large", "gpt2-xl", "distilgpt2")


class BatchEmbedding(NamedTuple):
    """Model.embed_batch's result, padded on the right to the longest text (B texts, T
    its token count, C = n_embd):

    embeddings      float32 (B, T, C): wte[ids] + P(pos) where attention_mask is 1, zeros
                    (zero padding) where it is 0
    attention_mask  int64 (B, T): 1 for a token, 0 for padding (as transformers' tokenizers)
    input_ids       int64 (B, T): the IDs, padding filled with 50256 (<|endoftext|>, GPT-2's
                    usual pad_token)
    lengths         int64 (B,): each text's token count
    """
    embeddings: np.ndarray
    attention_mask: np.ndarray
    input_ids: np.ndarray
    lengths: np.ndarray


def _readonly(a: np.ndarray) -> np.ndarray:
    """a as an array whose buffer is read-only: its writeable flag cannot be set again
    (numpy refuses, as for bytes), and writing raises ValueError. The memory is the
    process's own, so a writer that ignores the flag (torch.from_numpy warns, then lets
    the tensor write) changes this copy, never the mapped file and never crashes."""
    ro = np.frombuffer(memoryview(a).cast("B").toreadonly(), dtype=a.dtype)
    return ro.reshape(a.shape)


class Model:
    """GPT-2's embeddings (wte, wpe) and its tokenizer.

    path: a safetensors file; None finds model's weights as gpt2-embed does
    ($GPT2_EMBED_WEIGHTS, weights/<model>.safetensors, the installed data directory, the
    Hugging Face cache). tokenizer: a tokenizer directory, None as the program looks.

    Thread-safe: one Model may be shared by any number of threads; close() makes later
    calls raise ValueError and waits for the calls in flight. Picklable: by path (the file
    that was opened), model name and tokenizer directory; unpickling opens it again.

    The file is mapped, not read. A file truncated or rewritten under an open Model would
    make the mapping's pages vanish (SIGBUS, which kills Python): every call first checks
    that the file still has the size and modification time it had when opened, and raises
    gpt2embed.Error (status "E_IO") if not. Only a change during a call itself escapes
    that check. wte and wpe are copies in memory, so reading them is always safe.
    """

    def __init__(self, path: Optional[Any] = None, model: Optional[str] = "gpt2",
                 tokenizer: Optional[Any] = None):
        p = L.P()
        if model is not None and not isinstance(model, str):
            raise TypeError("model must be a str, not %s" % type(model).__name__)
        L.call(L.model_open, ctypes.byref(p), None if path is None else L.c_path(path, "path"),
               None if model is None else L.c_path(model, "model"))
        self._g = L.Guard(p, L.model_close, "model", serialize=False)
        self._model = model
        self._tok_dir = tokenizer
        self._enc: Optional[Encoding] = None
        self._tables: dict = {}
        self._lock = threading.Lock()
        self._path = os.fsdecode(L.model_path(p))
        self._fd = os.open(self._path, os.O_RDONLY | os.O_CLOEXEC)
        st = os.fstat(self._fd)
        self._stamp = (st.st_size, st.st_mtime_ns)
        self._fd_fin = weakref.finalize(self, os.close, self._fd)

    # -- life --
    def close(self) -> None:
        """Releases the mapping and the tokenizer; calls in flight finish first, later
        calls raise ValueError. wte/wpe arrays taken before stay valid (they are copies)."""
        self._g.close()
        self._fd_fin()
        with self._lock:
            if self._enc is not None:
                self._enc.close()

    @property
    def closed(self) -> bool:
        return self._g.closed

    def __enter__(self) -> "Model":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __reduce__(self) -> Any:
        return (Model, (self._path, self._model, self._tok_dir))

    def _run(self, f: Any, *args: Any) -> Any:
        """f(c_model, *args) in the guard, after checking the file is still what was mapped."""
        def checked(p: Any, *a: Any) -> Any:
            st = os.fstat(self._fd)
            if (st.st_size, st.st_mtime_ns) != self._stamp:
                raise L.Error(L.status_code("E_IO"),
                              "the weights file %s changed (size %d -> %d bytes, or its "
                              "modification time) since the Model opened it: open it again"
                              % (self._path, self._stamp[0], st.st_size))
            return f(p, *a)
        return self._g.run(checked, *args)

    # -- facts --
    @property
    def n_vocab(self) -> int:
        return self._g.run(lambda p: int(L.n_vocab(p)))

    @property
    def n_ctx(self) -> int:
        return self._g.run(lambda p: int(L.n_ctx(p)))

    @property
    def n_embd(self) -> int:
        return self._g.run(lambda p: int(L.n_embd(p)))

    @property
    def name(self) -> Optional[str]:
        """"gpt2", "gpt2-medium", ..., or None when the shapes match no known model."""
        n = self._g.run(L.model_name)
        return None if n is None else n.decode()

    @property
    def path(self) -> str:
        return self._path

    @property
    def dtype(self) -> str:
        """The stored dtype of wte: "F32", "F16" or "BF16"."""
        return self._g.run(lambda p: L.dtype_name(L.table_dtype(p, L.WTE)).decode())

    def __repr__(self) -> str:
        if self.closed:
            return "<gpt2embed.Model (closed)>"
        return "<gpt2embed.Model %s %s n_vocab=%d n_ctx=%d n_embd=%d %r>" % (
            self.name, self.dtype, self.n_vocab, self.n_ctx, self.n_embd, self.path)

    # -- tables --
    def _table(self, which: int) -> np.ndarray:
        with self._lock:
            a = self._tables.get(which)
            if a is None:
                def read(p: Any) -> np.ndarray:
                    R = int(L.n_vocab(p) if which == L.WTE else L.n_ctx(p))
                    out = np.empty((R, int(L.n_embd(p))), dtype=np.float32)
                    L.call(L.rows, p, which, 0, R, L.ptr(out, ctypes.c_float))
                    return out
                a = self._tables[which] = _readonly(self._run(read))
            return a

    @property
    def wte(self) -> np.ndarray:
        """Token embeddings (n_vocab, n_embd) float32, read-only: an exact float32 copy of
        the file's table (F16/BF16 widened exactly), made at first use and shared.
        Setting its writeable flag or writing to it raises ValueError; a writable copy is
        ``m.wte.copy()`` (numpy) or ``torch.tensor(m.wte)`` (torch; torch.from_numpy(m.wte)
        shares the memory and warns that it is not writable)."""
        return self._table(L.WTE)

    @property
    def wpe(self) -> np.ndarray:
        """Learned position embeddings (n_ctx, n_embd) float32, read-only (as wte)."""
        return self._table(L.WPE)

    # -- tokenizer --
    @property
    def encoding(self) -> Encoding:
        """The model's Encoding (tiktoken's methods), closed with the model."""
        with self._lock:
            if self._g.closed:
                raise ValueError("the model is closed")
            if self._enc is None:
                self._enc = Encoding("gpt2", self._tok_dir)
            return self._enc

    def tokenize(self, text: Any, special: str = "token", errors: str = "strict") -> np.ndarray:
        """The 0.2 interface (see Tokenizer.tokenize): int64 IDs."""
        return legacy_tokenize(self.encoding, text, special, errors, False)[0]

    def tokenize_with_offsets(self, text: Any, special: str = "token", errors: str = "strict"
                              ) -> Any:
        """The 0.2 interface (see Tokenizer.tokenize_with_offsets)."""
        return legacy_tokenize(self.encoding, text, special, errors, True)

    def decode(self, ids: Sequence[int], errors: str = "replace") -> str:
        return self.encoding.decode(ids, errors)

    def count(self, text: str, n_ctx: Optional[int] = None, *,
              allowed_special: SpecialSet = frozenset(),
              disallowed_special: SpecialColl = "all") -> CountInfo:
        """Tokens of text and where the n_ctx-th token ends (n_ctx: the model's context,
        1024 for GPT-2): see Encoding.count."""
        n = self.n_ctx if n_ctx is None else n_ctx
        return self.encoding.count(text, n, allowed_special=allowed_special,
                                   disallowed_special=disallowed_special)

    # -- the embedding stage --
    def _ids(self, text_or_ids: Any, allowed_special: SpecialSet,
             disallowed_special: SpecialColl) -> np.ndarray:
        if isinstance(text_or_ids, str):
            return L.token_ids(self.encoding.encode_to_numpy(
                text_or_ids, allowed_special=allowed_special,
                disallowed_special=disallowed_special))
        return L.token_ids(text_or_ids, "ids")

    def _embed_into(self, ids: np.ndarray, start: int, pe: int, out: np.ndarray) -> None:
        self._run(lambda p: L.call(L.embed_pe, p, L.ptr(ids, ctypes.c_uint32), ids.size, start,
                                   pe, L.ptr(out, ctypes.c_float)))

    @staticmethod
    def _pe(pe: str) -> int:
        if pe not in L.PE:
            raise ValueError("pe must be 'learned' or 'sinusoidal', not %r" % (pe,))
        return L.PE[pe]

    def embed(self, text_or_ids: Union[str, Sequence[int], np.ndarray], start_pos: int = 0,
              pe: str = "learned", *, allowed_special: SpecialSet = frozenset(),
              disallowed_special: SpecialColl = "all") -> np.ndarray:
        """x[t] = wte[id_t] + P(start_pos + t) as float32 (T, n_embd), P = wpe ("learned") or
        the sinusoidal encoding of width n_embd ("sinusoidal", no context limit). A str is
        encoded first with encode()'s rules (allowed_special, disallowed_special); anything
        else is taken as token IDs. Bit-identical to numpy's wte[ids] + wpe[start:start+T]."""
        code = self._pe(pe)
        start = L.c_uint(start_pos, "start_pos")
        ids = self._ids(text_or_ids, allowed_special, disallowed_special)
        out = np.empty((ids.size, self.n_embd), dtype=np.float32)
        self._embed_into(ids, start, code, out)
        return out

    def embed_batch(self, batch: Sequence[Union[str, Sequence[int]]], pe: str = "learned", *,
                    num_threads: int = 0, allowed_special: SpecialSet = frozenset(),
                    disallowed_special: SpecialColl = "all") -> BatchEmbedding:
        """Embeds several texts (or ID lists) at once, padded on the right to the longest:
        a BatchEmbedding (embeddings (B, T, C) float32, attention_mask, input_ids, lengths),
        as transformers' ``model.transformer.wte(ids) + model.transformer.wpe(pos)`` gives
        for the real tokens. Texts are encoded with encode_batch (num_threads C threads)."""
        code = self._pe(pe)
        if isinstance(batch, (str, bytes)):
            raise TypeError("batch must be a list of texts or of ID lists, not one %s"
                            % type(batch).__name__)
        batch = list(batch)
        rows: List[np.ndarray] = [np.zeros(0, np.uint32)] * len(batch)
        texts = [i for i, x in enumerate(batch) if isinstance(x, str)]
        if texts:
            enc = self.encoding.encode_batch([batch[i] for i in texts], num_threads=num_threads,
                                             allowed_special=allowed_special,
                                             disallowed_special=disallowed_special)
            for i, ids in zip(texts, enc):
                rows[i] = L.token_ids(ids)
        for i, x in enumerate(batch):
            if not isinstance(x, str):
                rows[i] = L.token_ids(x, "batch[%d]" % i)
        B, C = len(rows), self.n_embd
        T = max((r.size for r in rows), default=0)
        x = np.zeros((B, T, C), dtype=np.float32)
        mask = np.zeros((B, T), dtype=np.int64)
        input_ids = np.full((B, T), EOT, dtype=np.int64)
        for b, r in enumerate(rows):
            if r.size:
                out = np.empty((r.size, C), dtype=np.float32)
                self._embed_into(r, 0, code, out)
                x[b, :r.size] = out
                mask[b, :r.size] = 1
                input_ids[b, :r.size] = r
        lengths = np.array([r.size for r in rows], dtype=np.int64)
        return BatchEmbedding(x, mask, input_ids, lengths)


def sinusoidal(n: int, dim: int, start: int = 0, base: float = 10000.0) -> np.ndarray:
    """The original Transformer's positional encoding of positions start..start+n-1, width dim
    (even): float32 (n, dim), computed in double and rounded once."""
    n_, dim_, start_ = L.c_uint(n, "n"), L.c_uint(dim, "dim"), L.c_uint(start, "start")
    out = np.empty((n_, dim_), dtype=np.float32)
    L.call(L.sinusoidal, start_, n_, dim_, float(base), L.ptr(out, ctypes.c_float))
    return out


def _f32(v: Any) -> np.ndarray:
    """v as a C-contiguous, ALIGNED float32 array (C may not read floats through an
    unaligned pointer)."""
    return np.require(v, dtype=np.float32, requirements=["C", "A"])


def _f32_vector(v: Any, what: str) -> np.ndarray:
    a = _f32(v)
    if a.ndim != 1:
        raise ValueError("%s must be a vector, got shape %s" % (what, a.shape))
    return a


def similarity(a: Any, b: Any) -> float:
    """cos(a, b) of two vectors (float32 values, accumulated in double). A zero vector
    raises InvalidInputError (never a silent nan)."""
    x, y = _f32_vector(a, "a"), _f32_vector(b, "b")
    if x.size != y.size:
        raise ValueError("vectors of different lengths: %d and %d" % (x.size, y.size))
    out = ctypes.c_double()
    L.call(L.cosine, L.ptr(x, ctypes.c_float), L.ptr(y, ctypes.c_float), x.size, ctypes.byref(out))
    return out.value


def cosine_matrix(X: Any) -> np.ndarray:
    """The (R, R) float64 matrix of cosines of the rows of X (R, C)."""
    a = _f32(X)
    if a.ndim != 2:
        raise ValueError("X must be 2-D (rows, width), got shape %s" % (a.shape,))
    R, C = a.shape
    out = np.empty((R, R), dtype=np.float64)
    L.call(L.cosine_matrix, L.ptr(a, ctypes.c_float), R, C, L.ptr(out, ctypes.c_double))
    return out
