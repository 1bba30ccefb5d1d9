# SPDX-License-Identifier: MIT
"""tiktoken's face: get_encoding("gpt2") and its Encoding (internal module; the names are
re-exported by gpt2embed)."""

import contextlib
import ctypes
import gc
import threading
from typing import (AbstractSet, Any, Collection, Dict, Iterator, List, NamedTuple, Optional,
                    Sequence, Tuple, Union)

import numpy as np

from . import _binding as L

EOT_TEXT = "<|endoftext|>"
EOT = 50256
_E_BUFFER = L.status_code("E_BUFFER")

SpecialSet = Union[str, AbstractSet[str]]          # "all" or a set of special tokens
SpecialColl = Union[str, Collection[str]]          # "all" or any collection


class CountInfo(NamedTuple):
    """What Encoding.count / Model.count found: tokens and characters (code points) of the
    text, the limit asked about (n_ctx), where its n_ctx-th token ends (ctx_end_byte, in
    UTF-8 bytes; the text's length when it has n_ctx tokens or fewer), the characters wholly
    before that point (ctx_end_char: text[:ctx_end_char] is what fits) and whether that
    token ends inside a character (ctx_end_splits_char)."""
    n_tokens: int
    n_chars: int
    n_ctx: int
    ctx_end_byte: int
    ctx_end_char: int
    ctx_end_splits_char: bool

    @property
    def fits(self) -> bool:
        """True when the whole text fits in n_ctx tokens."""
        return self.n_tokens <= self.n_ctx


def _utf8(text: Any, name: str = "text") -> bytes:
    """str as UTF-8. Lone surrogates (which UTF-8 cannot carry) are handled as tiktoken
    does: the text goes through UTF-16 with errors="replace", so a lone surrogate becomes
    U+FFFD and a surrogate pair the character it stands for."""
    if not isinstance(text, str):
        raise TypeError("%s must be str, not %s" % (name, type(text).__name__))
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace").encode("utf-8")


def _disallowed_error(token: str, where: int) -> ValueError:
    return ValueError(
        "the text contains %r (at character %d), a special token that encode() does not "
        "allow by default: pass allowed_special={%r} (or \"all\") to encode it as the special "
        "token, or disallowed_special=() to encode it as ordinary text" % (token, where, token))


# ---- the C calls (p: the tokenizer's pointer, inside its guard) ----

def _tokenize(p: Any, b: bytes, flags: int, want_offsets: bool
              ) -> Tuple[np.ndarray, Optional[np.ndarray]]:
    """(ids uint32, byte offsets int64 or None) of b, into buffers of ours: a guess first
    (GPT-2 text averages about 4 bytes a token), the exact size when the guess is short."""
    cap = len(b) // 3 + 16
    while True:
        ids = np.empty(cap, dtype=np.uint32)
        offs = np.empty(cap + 1, dtype=np.uintp) if want_offsets else None
        n = L.S()
        rc = L.call(L.tokenize_into, p, b, len(b), flags, L.ptr(ids, ctypes.c_uint32),
                    None if offs is None else L.ptr(offs, ctypes.c_size_t), cap,
                    ctypes.byref(n), ok=(_E_BUFFER,))
        if rc != _E_BUFFER:
            k = n.value
            return ids[:k].copy(), None if offs is None else offs[:k + 1].astype(np.int64)
        cap = n.value


_tls = threading.local()
_KEEP = 1 << 20   # a thread keeps its IDs buffer up to this many entries (4 MB)


def _tokenize_list(p: Any, b: bytes, flags: int) -> List[int]:
    """The IDs of b as a list, through a buffer of this thread's (no numpy, no allocation
    per call when the buffer is large enough): the list comes from slicing a ctypes array."""
    cap = len(b) // 3 + 16
    st = getattr(_tls, "st", None)
    if st is None:
        st = _tls.st = [(ctypes.c_uint32 * 4096)(), L.ErrorDetail(), L.S()]
    while True:
        buf, e, n = st
        if len(buf) < cap:
            buf = (ctypes.c_uint32 * cap)()
            if cap <= _KEEP:
                st[0] = buf
        rc = L.tokenize_into(p, b, len(b), flags, buf, None, len(buf), ctypes.byref(n),
                             ctypes.byref(e))
        if rc == 0:
            return buf[:n.value]
        if rc != _E_BUFFER:
            raise L.make_error(rc, e.message.decode("utf-8", "replace"),
                               None if e.offset == L.NONE else e.offset,
                               None if e.index == L.NONE else e.index)
        cap = n.value


def _batch_raw(p: Any, ptrs: np.ndarray, lens: np.ndarray, a: int, z: int, flags: int,
               n_threads: int) -> Tuple[Any, np.ndarray]:
    """gpt2embed_tokenize_batch of texts a .. z - 1 (their pointers and lengths in ptrs,
    lens): (the library's IDs array, counts); the caller frees the array (_lists does). An
    error's index is that of the text in the whole batch."""
    n = z - a
    counts = np.zeros(n, dtype=np.uintp)
    ids_p = L.U32P()
    try:
        L.call(L.tokenize_batch, p, n,
               ctypes.cast(ptrs.ctypes.data + a * ptrs.itemsize, ctypes.POINTER(L.CP)),
               ctypes.cast(lens.ctypes.data + a * lens.itemsize, L.SP), flags, n_threads,
               ctypes.byref(ids_p), L.ptr(counts, ctypes.c_size_t))
    except L.Error as e:
        if e.index is not None:
            e.index += a
        raise
    return ids_p, counts


def _lists(ids_p: Any, counts: np.ndarray, out: List[List[int]]) -> None:
    """Appends each text's IDs to out as a list, sliced from the library's array, which is
    then freed. (A memoryview's tolist makes the ints faster than a ctypes slice does.)"""
    try:
        total = int(counts.sum())
        if not total:
            out.extend([] for _ in range(len(counts)))
            return
        flat = (ctypes.c_uint32 * total).from_address(ctypes.addressof(ids_p.contents))
        with memoryview(flat) as m, m.cast("B") as b, b.cast("I") as ids:
            at = 0
            for z in np.cumsum(counts).tolist():
                out.append(ids[at:z].tolist())
                at = z
    finally:
        L.free(ctypes.cast(ids_p, L.P))


def _joined(bs: List[bytes]) -> Tuple[bytes, np.ndarray, np.ndarray]:
    """The texts one after another in one buffer, with each one's pointer and length: the
    arrays the C call takes, made without a Python object per text (an array of c_char_p
    costs ~1.5 us a text), and texts side by side are what the C tokenizer runs fastest on."""
    buf = b"".join(bs)
    n = len(bs)
    lens = np.fromiter(map(len, bs), dtype=np.uintp, count=n)
    ptrs = np.empty(n, dtype=np.uintp)
    if n:
        ptrs[0] = 0
        np.cumsum(lens[:-1], out=ptrs[1:])
    ptrs += ctypes.cast(ctypes.c_char_p(buf), ctypes.c_void_p).value or 0
    return buf, ptrs, lens


def _may_occur(s: Any, buf: bytes) -> bool:
    """False when s, a disallowed special string, occurs in none of the texts joined in buf
    (True when that cannot be told this way)."""
    if not isinstance(s, str):
        return True
    if not s:
        return False
    try:
        return buf.find(s.encode("utf-8")) >= 0
    except UnicodeEncodeError:
        return True


_gc_lock = threading.Lock()
_gc_users = 0
_gc_was_enabled = False


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off while a batch's lists are made (restored after; calls
    in several threads share one pause). The lists hold only ints, so they make no cycles,
    but a collection is due every 700 of them and the older generations' passes go over every
    ID made so far: on 284,000 short texts that cost more than making the lists did. (A
    gc.enable() or gc.disable() by another thread during the pause is overridden at its end.)"""
    global _gc_users, _gc_was_enabled
    with _gc_lock:
        if _gc_users == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_users += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_users -= 1
            if _gc_users == 0 and _gc_was_enabled:
                gc.enable()


_PART_BYTES = 256 << 10   # a batch of more than 2 parts on 2+ threads is pipelined
_FRONT_PARTS = 8          # the helper thread takes this many parts a C call (see below)


def _parts(lens: np.ndarray, part_bytes: int) -> List[Tuple[int, int]]:
    """Consecutive ranges of texts of about part_bytes each (a text is not split)."""
    ends = np.cumsum(lens, dtype=np.uint64)
    total = int(ends[-1])
    cuts = np.searchsorted(ends, np.arange(part_bytes, total, part_bytes, dtype=np.uint64),
                           side="left") + 1
    bounds = [0] + sorted(set(cuts.tolist()) - {0, len(lens)}) + [len(lens)]
    return list(zip(bounds[:-1], bounds[1:]))


def _tokenize_batch(p: Any, joined: Tuple[bytes, np.ndarray, np.ndarray], flags: int,
                    n_threads: int) -> List[List[int]]:
    """Every text's IDs as lists, over n_threads threads (0: the CPUs this process may use):
    one gpt2embed_tokenize_batch call, or for a large batch on 2 or more threads a pipeline
    (_pipelined)."""
    buf, ptrs, lens = joined
    n_texts = len(lens)
    if not n_texts:
        return []
    n_cpu = n_threads or L.cpu_count()
    out: List[List[int]] = []
    with _gc_paused():
        parts = _parts(lens, _PART_BYTES) if n_cpu >= 2 else [(0, n_texts)]
        if len(parts) <= 2:
            _lists(*_batch_raw(p, ptrs, lens, 0, n_texts, flags, n_threads), out)
        else:
            _pipelined(p, ptrs, lens, parts, flags, n_cpu - 1, out)
    del buf   # (the C calls read it through ptrs)
    return out


def _pipelined(p: Any, ptrs: np.ndarray, lens: np.ndarray, parts: List[Tuple[int, int]],
               flags: int, c_threads: int, out: List[List[int]]) -> None:
    """Appends the lists of every part's texts to out, in order. Making Python's lists takes
    about as long as the C tokenizer on GPT-2 text and needs the GIL, so it overlaps the
    tokenizing: a helper thread tokenizes runs of parts in order (GIL released, c_threads C
    threads) while this thread makes the lists of the runs done; when the next run is not
    done yet, this thread tokenizes the next part itself (one C thread) rather than wait.
    The helper needs the GIL after each C call, which it gets only when this thread lets it
    go (up to sys.getswitchinterval(), 5 ms, while the lists are being made): hence runs of
    up to _FRONT_PARTS parts, shorter near the end so that both threads end together."""
    n = len(parts)
    take_lock = threading.Lock()
    ends = [0, n, False]                 # the parts left: ends[0] .. ends[1] - 1; stop
    done = [threading.Lock() for _ in parts]
    for d in done:
        d.acquire()
    got: List[Any] = [None] * n          # at a run's first part: (ids, counts) or the exception
    span = [0] * n                       # at a run's first part: the part after the run

    def take(helper: bool) -> Tuple[int, int]:
        with take_lock:
            lo, hi = ends[0], ends[1]
            if ends[2] or lo >= hi:
                return -1, -1
            if helper:   # a run, shorter near the end (so that both threads end together)
                hi = lo + max(1, min(_FRONT_PARTS, (hi - lo) // 2))
            else:
                hi = lo + 1
            ends[0] = hi
            return lo, hi

    def run(lo: int, hi: int, threads: int) -> None:
        span[lo] = hi
        try:
            got[lo] = _batch_raw(p, ptrs, lens, parts[lo][0], parts[hi - 1][1], flags, threads)
        except BaseException as e:   # raised by the thread that makes the lists
            got[lo] = e
        finally:
            done[lo].release()

    def helper() -> None:
        lo, hi = take(True)
        while lo >= 0:
            run(lo, hi, c_threads)
            lo, hi = take(True)

    th = threading.Thread(target=helper, name="gpt2embed-batch", daemon=True)
    th.start()
    try:
        k = 0
        while k < n:
            while not done[k].acquire(blocking=False):
                lo, hi = take(False)
                if lo < 0:
                    done[k].acquire()
                    break
                run(lo, hi, 1)
            r, got[k] = got[k], None
            if isinstance(r, BaseException):
                raise r
            _lists(r[0], r[1], out)
            k = span[k]
    finally:
        with take_lock:
            ends[2] = True
        th.join()
        for r in got:   # an error: free what the runs not yet made into lists hold
            if isinstance(r, tuple):
                L.free(ctypes.cast(r[0], L.P))


def _numpy_batch(p: Any, joined: Tuple[bytes, np.ndarray, np.ndarray], flags: int,
                 n_threads: int) -> Tuple[np.ndarray, np.ndarray]:
    """(every text's IDs one after another, int64; offsets, int64, len(bs) + 1: text i's IDs
    are ids[offsets[i]:offsets[i + 1]]). On 2 or more threads a large batch is cut into
    parts that this thread and n_threads - 1 helpers take in turn, one C thread each: no
    Python objects per ID, so the threads meet at the GIL only between parts (where the
    library's own split, in two halves of the bytes, leaves one thread idle at the end)."""
    buf, ptrs, lens = joined
    n_texts = len(lens)
    offsets = np.zeros(n_texts + 1, dtype=np.int64)
    if not n_texts:
        return np.zeros(0, dtype=np.int64), offsets
    n_cpu = n_threads or L.cpu_count()
    parts = _parts(lens, _PART_BYTES) if n_cpu >= 2 else [(0, n_texts)]
    if len(parts) <= 2:
        parts = [(0, n_texts)]
    got: List[Any] = [None] * len(parts)
    nxt = [0]
    lock = threading.Lock()

    def work(threads: int) -> None:
        while True:
            with lock:
                k = nxt[0]
                if k >= len(parts):
                    return
                nxt[0] = k + 1
            try:
                got[k] = _batch_raw(p, ptrs, lens, parts[k][0], parts[k][1], flags, threads)
            except BaseException as e:
                got[k] = e
                with lock:
                    nxt[0] = len(parts)

    try:
        if len(parts) == 1:
            work(n_threads)
        else:
            helpers = [threading.Thread(target=work, args=(1,), name="gpt2embed-batch",
                                        daemon=True) for _ in range(n_cpu - 1)]
            for h in helpers:
                h.start()
            try:
                work(1)
            finally:
                with lock:
                    nxt[0] = len(parts)
                for h in helpers:
                    h.join()
        for r in got:
            if isinstance(r, BaseException):
                raise r
        for (a, z), r in zip(parts, got):
            offsets[a + 1:z + 1] = r[1]
        np.cumsum(offsets, out=offsets)
        ids = np.empty(int(offsets[-1]), dtype=np.int64)
        for (a, z), r in zip(parts, got):
            n = int(offsets[z] - offsets[a])
            if n:
                ids[offsets[a]:offsets[z]] = np.ctypeslib.as_array(r[0], shape=(n,))
    finally:
        for r in got:
            if isinstance(r, tuple):
                L.free(ctypes.cast(r[0], L.P))
    del buf   # (the C calls read it through ptrs)
    return ids, offsets


def _decode_bytes(p: Any, ids: np.ndarray) -> bytes:
    out, n = L.P(), L.S()
    L.call(L.decode, p, L.ptr(ids, ctypes.c_uint32), ids.size, ctypes.byref(out), ctypes.byref(n))
    try:
        return ctypes.string_at(out, n.value) if n.value else b""
    finally:
        L.free(out)


def _token_bytes(p: Any, token: int) -> bytes:
    bp, n = ctypes.POINTER(ctypes.c_uint8)(), L.S()
    L.call(L.token_bytes_c, p, token, ctypes.byref(bp), ctypes.byref(n))
    return ctypes.string_at(bp, n.value)


def _count(p: Any, b: bytes, flags: int, n_ctx: int) -> CountInfo:
    if flags & L.SPECIAL_TEXT and EOT_TEXT.encode() in b:
        # gpt2embed_count always takes <|endoftext|> as the special token: as text, count
        # from the offsets
        ids, offs = _tokenize(p, b, flags, True)
        assert offs is not None
        return count_from_offsets(b, len(ids), offs, n_ctx)
    c = L.CountInfoC()
    L.call(L.count_c, p, b, len(b), flags & L.LOSSY, n_ctx, ctypes.byref(c))
    return CountInfo(c.n_tokens, c.n_chars, c.n_ctx, c.ctx_end_byte, c.ctx_end_char,
                     bool(c.ctx_end_splits_char))


def count_from_offsets(b: bytes, n_tokens: int, offs: np.ndarray, n_ctx: int) -> CountInfo:
    """CountInfo from byte offsets, as gpt2embed_count defines it."""
    lead = (np.frombuffer(b, dtype=np.uint8) & 0xC0) != 0x80   # first bytes of characters
    end = int(offs[n_ctx]) if n_tokens > n_ctx else len(b)
    splits = end < len(b) and not lead[end]
    before = int(lead[:end].sum()) - (1 if splits else 0)
    return CountInfo(n_tokens, int(lead.sum()), n_ctx, end, before, bool(splits))


class Encoding:
    """GPT-2's byte-level BPE with tiktoken's methods and semantics (tiktoken's ``gpt2``
    encoding, exact IDs). Get one with ``gpt2embed.get_encoding("gpt2")``.

    Thread-safe: one Encoding may be shared by any number of threads (the C tokenizer is
    used with per-call scratch; calls release the GIL). close() makes later calls raise
    ValueError and waits for the calls in flight. Picklable: by name and tokenizer
    directory; unpickling opens it again (for Dask, multiprocessing, Ray, Spark).
    """

    _what = "encoding"

    def __init__(self, name: str = "gpt2", tokenizer: Optional[Any] = None):
        """name: "gpt2" (the only encoding). tokenizer: a directory with vocab.json +
        merges.txt (or encoder.json + vocab.bpe); None: $GPT2_EMBED_TOKENIZER, the
        installed data, else the copy built into the library."""
        if name != "gpt2":
            raise ValueError("unknown encoding %r: gpt2embed has 'gpt2' only" % (name,))
        self.name = name
        self._dir = tokenizer
        self._g = L.open_tokenizer(tokenizer, self._what, serialize=not THREAD_SAFE_C)
        self._n_vocab = self._g.run(lambda p: int(L.tok_n_vocab(p)))
        self._ranks: Optional[Dict[bytes, int]] = None
        self._ranks_lock = threading.Lock()

    # -- life --
    def close(self) -> None:
        """Releases the C tokenizer; calls in flight finish first, later calls raise
        ValueError. Also done when the Encoding is garbage-collected."""
        self._g.close()

    @property
    def closed(self) -> bool:
        return self._g.closed

    def __enter__(self) -> "Encoding":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return "<Encoding %r%s>" % (self.name, " (closed)" if self.closed else "")

    def __reduce__(self) -> Any:
        return (get_encoding, (self.name, self._dir))

    # -- facts --
    @property
    def n_vocab(self) -> int:
        """50257: the IDs are 0 .. n_vocab - 1 (max_token_value + 1), the special token
        included."""
        return self._n_vocab

    @property
    def max_token_value(self) -> int:
        return self._n_vocab - 1

    @property
    def eot_token(self) -> int:
        """50256, the ID of <|endoftext|>."""
        return EOT

    @property
    def special_tokens_set(self) -> set:
        """{"<|endoftext|>"} (a new set each time)."""
        return {EOT_TEXT}

    def is_special_token(self, token: int) -> bool:
        return L.c_uint(token, "token") == EOT

    # -- special tokens as tiktoken decides --
    def _specials(self, allowed_special: SpecialSet, disallowed_special: SpecialColl
                  ) -> Tuple[int, Tuple[str, ...]]:
        """(the C flags, the strings that must not occur in the text)."""
        allowed = self.special_tokens_set if allowed_special == "all" else allowed_special
        if isinstance(allowed, str):
            raise TypeError("allowed_special must be \"all\" or a set of strings")
        if disallowed_special == "all":
            disallowed: Collection[str] = self.special_tokens_set - set(allowed)
        elif isinstance(disallowed_special, str):
            raise TypeError("disallowed_special must be \"all\" or a collection of strings")
        else:
            disallowed = disallowed_special
        flags = 0 if EOT_TEXT in allowed else L.SPECIAL_TEXT
        return flags, tuple(disallowed)

    @staticmethod
    def _check_disallowed(text: str, disallowed: Tuple[str, ...]) -> None:
        for s in disallowed:
            i = text.find(s) if s else -1
            if i >= 0:
                raise _disallowed_error(s, i)

    # -- encoding --
    def _ids(self, text: str, allowed_special: SpecialSet, disallowed_special: SpecialColl
             ) -> np.ndarray:
        flags, disallowed = self._specials(allowed_special, disallowed_special)
        b = _utf8(text)
        self._check_disallowed(text, disallowed)
        return self._g.run(lambda p: _tokenize(p, b, flags, False)[0])

    def encode(self, text: str, *, allowed_special: SpecialSet = frozenset(),
               disallowed_special: SpecialColl = "all") -> List[int]:
        """The token IDs of text, as tiktoken's encode: by default text containing
        "<|endoftext|>" raises ValueError; allowed_special={"<|endoftext|>"} (or "all")
        makes it the special token 50256; disallowed_special=() encodes it as ordinary
        text. Any string in disallowed_special found in the text raises ValueError."""
        flags, disallowed = self._specials(allowed_special, disallowed_special)
        b = _utf8(text)
        self._check_disallowed(text, disallowed)
        return self._g.run(_tokenize_list, b, flags)

    def encode_ordinary(self, text: str) -> List[int]:
        """The token IDs of text, special tokens encoded as ordinary text (as
        encode(text, disallowed_special=()))."""
        return self._g.run(_tokenize_list, _utf8(text), L.SPECIAL_TEXT)

    def encode_to_numpy(self, text: str, *, allowed_special: SpecialSet = frozenset(),
                        disallowed_special: SpecialColl = "all") -> np.ndarray:
        """As encode, as a numpy array of dtype int64 (tiktoken's is uint32, which torch
        cannot take: torch.from_numpy of this one is a LongTensor, the index type of
        nn.Embedding and of wte[ids])."""
        return self._ids(text, allowed_special, disallowed_special).astype(np.int64)

    def _batch_input(self, texts: Sequence[str], disallowed: Tuple[str, ...], num_threads: int
                     ) -> Tuple[Tuple[bytes, np.ndarray, np.ndarray], int]:
        """(the texts as _joined makes them, the C thread count), tiktoken's checks done."""
        if isinstance(texts, str):
            raise TypeError("text must be a list of str, not one str")
        n = L.c_uint(num_threads, "num_threads", L.UINT_MAX)
        if not isinstance(texts, (list, tuple)):
            texts = list(texts)   # (read more than once below)
        try:   # the common case at C speed; anything unusual goes through _utf8
            enc = str.encode
            bs = [enc(t) for t in texts]
        except (TypeError, UnicodeEncodeError):
            bs = [_utf8(t, "text[%d]" % i) for i, t in enumerate(texts)]
        joined = _joined(bs)
        # one search of all the texts side by side; only a hit (maybe across two texts) has
        # each text looked at, as encode would, for the error
        if any(_may_occur(s, joined[0]) for s in disallowed):
            for t in texts:
                self._check_disallowed(t, disallowed)
        return joined, n

    def _batch(self, texts: Sequence[str], flags: int, disallowed: Tuple[str, ...],
               num_threads: int) -> List[List[int]]:
        joined, n = self._batch_input(texts, disallowed, num_threads)
        return self._g.run(_tokenize_batch, joined, flags, n)

    def encode_ordinary_batch(self, text: Sequence[str], *, num_threads: int = 0
                              ) -> List[List[int]]:
        """encode_ordinary of every text, over num_threads C threads (0: the CPUs this
        process may use), the GIL released."""
        return self._batch(text, L.SPECIAL_TEXT, (), num_threads)

    def encode_batch(self, text: Sequence[str], *, num_threads: int = 0,
                     allowed_special: SpecialSet = frozenset(),
                     disallowed_special: SpecialColl = "all") -> List[List[int]]:
        """encode of every text (same special-token rules), over num_threads C threads
        (0: the CPUs this process may use), the GIL released."""
        flags, disallowed = self._specials(allowed_special, disallowed_special)
        return self._batch(text, flags, disallowed, num_threads)

    def encode_batch_to_numpy(self, text: Sequence[str], *, num_threads: int = 0,
                              allowed_special: SpecialSet = frozenset(),
                              disallowed_special: SpecialColl = "all"
                              ) -> Tuple[np.ndarray, np.ndarray]:
        """encode_batch as two numpy arrays, (ids, offsets), both int64: every text's IDs
        one after another, and where each text's begin, with the end last (len(text) + 1
        entries): text i's IDs are ids[offsets[i]:offsets[i + 1]]. No Python int per ID,
        so it is several times faster than the lists, and its threads scale.
        torch.from_numpy(ids) with offsets[:-1] is what nn.EmbeddingBag takes."""
        flags, disallowed = self._specials(allowed_special, disallowed_special)
        joined, n = self._batch_input(text, disallowed, num_threads)
        return self._g.run(_numpy_batch, joined, flags, n)

    def encode_single_token(self, text_or_bytes: Union[str, bytes]) -> int:
        """The ID of the token whose bytes are exactly text_or_bytes (special token
        included); KeyError when there is none."""
        b = text_or_bytes.encode("utf-8") if isinstance(text_or_bytes, str) else bytes(text_or_bytes)
        if b == EOT_TEXT.encode():
            return EOT
        with self._ranks_lock:
            if self._ranks is None:
                self._ranks = {v: i for i, v in enumerate(self.token_byte_values())}
        return self._ranks[b]

    def count(self, text: str, n_ctx: int = 1024, *, allowed_special: SpecialSet = frozenset(),
              disallowed_special: SpecialColl = "all") -> CountInfo:
        """How many tokens text has (encode's rules) and where its n_ctx-th token ends
        (GPT-2's context is 1024 tokens): a CountInfo."""
        flags, disallowed = self._specials(allowed_special, disallowed_special)
        n = L.c_uint(n_ctx, "n_ctx")
        b = _utf8(text)
        self._check_disallowed(text, disallowed)
        return self._g.run(lambda p: _count(p, b, flags, n))

    # -- decoding --
    def decode_bytes(self, tokens: Sequence[int]) -> bytes:
        """The bytes of tokens, joined (they may end inside a UTF-8 character). A token
        >= n_vocab raises InvalidInputError (a ValueError)."""
        a = L.token_ids(tokens)
        return self._g.run(lambda p: _decode_bytes(p, a))

    def decode(self, tokens: Sequence[int], errors: str = "replace") -> str:
        """The text of tokens; bytes that are not valid UTF-8 (a token can end inside a
        character) become U+FFFD, as tiktoken's decode does; errors as bytes.decode."""
        return self.decode_bytes(tokens).decode("utf-8", errors)

    def decode_single_token_bytes(self, token: int) -> bytes:
        """The bytes of one token; KeyError when it is no token."""
        t = L.c_uint(token, "token", 0xFFFFFFFF)
        if t >= self._n_vocab:
            raise KeyError(token)
        return self._g.run(lambda p: _token_bytes(p, t))

    def decode_tokens_bytes(self, tokens: Sequence[int]) -> List[bytes]:
        """[decode_single_token_bytes(t) for t in tokens]."""
        return [self.decode_single_token_bytes(t) for t in tokens]

    def decode_with_offsets(self, tokens: Sequence[int]) -> Tuple[str, List[int]]:
        """(text, offsets): offsets[i] is the index in text (characters) where token i
        starts; a token that starts inside a character gets that character's index. As
        tiktoken, bytes that are not valid UTF-8 raise UnicodeDecodeError."""
        parts = self.decode_tokens_bytes(tokens)
        offsets, n_chars = [], 0
        for tb in parts:
            starts_inside = bool(tb) and 0x80 <= tb[0] < 0xC0
            offsets.append(max(0, n_chars - starts_inside))
            n_chars += sum(1 for c in tb if not 0x80 <= c < 0xC0)
        return b"".join(parts).decode("utf-8", "strict"), offsets

    def decode_batch(self, batch: Sequence[Sequence[int]], *, errors: str = "replace",
                     num_threads: int = 0) -> List[str]:
        """[decode(t, errors) for t in batch] (decoding is a copy of bytes: num_threads is
        accepted for tiktoken's signature and checked, and one thread does it)."""
        L.c_uint(num_threads, "num_threads", L.UINT_MAX)
        return [self.decode(t, errors) for t in batch]

    def decode_bytes_batch(self, batch: Sequence[Sequence[int]], *, num_threads: int = 0
                           ) -> List[bytes]:
        L.c_uint(num_threads, "num_threads", L.UINT_MAX)
        return [self.decode_bytes(t) for t in batch]

    def token_byte_values(self) -> List[bytes]:
        """The bytes of every ordinary token, by ID (0 .. n_vocab - 2)."""
        return self._g.run(lambda p: [_token_bytes(p, i) for i in range(self._n_vocab - 1)])


# One C tokenizer may serve any number of threads at once (0.3.0's contract: per-call
# scratch), so calls take no lock of ours; only close() waits for them (Guard). Measured
# against a lock per Encoding in bench/python_threads.py (README).
THREAD_SAFE_C = True

_cache: Dict[Tuple[str, Any], Encoding] = {}
_cache_lock = threading.Lock()


def get_encoding(encoding_name: str, tokenizer: Optional[Any] = None) -> Encoding:
    """The Encoding named encoding_name ("gpt2", tiktoken's name), shared: the same object
    for the same name and tokenizer directory (reopened if it was closed)."""
    if encoding_name != "gpt2":
        raise ValueError("Unknown encoding %r; gpt2embed has 'gpt2' only" % (encoding_name,))
    key = (encoding_name, tokenizer)
    with _cache_lock:
        e = _cache.get(key)
        if e is None or e.closed:
            e = _cache[key] = Encoding(encoding_name, tokenizer)
        return e


def list_encoding_names() -> List[str]:
    return ["gpt2"]


def encoding_for_model(model_name: str) -> Encoding:
    """The encoding of a GPT-2 model name ("gpt2", "gpt2-medium", "gpt2-large", "gpt2-xl",
    "distilgpt2"): all use "gpt2"."""
    from ._model import MODELS
    if model_name not in MODELS:
        raise KeyError("no encoding known for model %r (GPT-2 models: %s)"
                       % (model_name, ", ".join(MODELS)))
    return get_encoding("gpt2")


class Tokenizer(Encoding):
    """The 0.2 interface, kept: tokenize() returns numpy int64 arrays, special="token" makes
    "<|endoftext|>" the special token by default. New code: get_encoding("gpt2")."""

    _what = "tokenizer"

    def __init__(self, dir: Optional[Any] = None):
        super().__init__("gpt2", dir)

    def __reduce__(self) -> Any:
        return (Tokenizer, (self._dir,))

    def tokenize(self, text: Any, special: str = "token", errors: str = "strict") -> np.ndarray:
        """Token IDs of text (str, or UTF-8 bytes) as np.ndarray[int64]. special: what
        "<|endoftext|>" is — "token" (50256), "text" (ordinary text) or "error".
        errors="replace" turns invalid UTF-8 into U+FFFD instead of raising."""
        return legacy_tokenize(self, text, special, errors, False)[0]

    def tokenize_with_offsets(self, text: Any, special: str = "token", errors: str = "strict"
                              ) -> Tuple[np.ndarray, np.ndarray]:
        """(ids, offsets): offsets (int64, len(ids) + 1) are byte offsets into the UTF-8
        text; token i covers bytes offsets[i]:offsets[i+1]."""
        ids, offs = legacy_tokenize(self, text, special, errors, True)
        assert offs is not None
        return ids, offs


_SPECIAL = {"token": 0, "text": L.SPECIAL_TEXT, "error": L.SPECIAL_ERROR}


def legacy_tokenize(enc: Encoding, text: Any, special: str, errors: str, want_offsets: bool
                    ) -> Tuple[np.ndarray, Optional[np.ndarray]]:
    """The 0.2 tokenize(): str or bytes, special "token"/"text"/"error", int64 IDs."""
    if special not in _SPECIAL:
        raise ValueError("special must be 'token', 'text' or 'error', not %r" % (special,))
    if errors not in ("strict", "replace"):
        raise ValueError("errors must be 'strict' or 'replace', not %r" % (errors,))
    if isinstance(text, str):
        b = text.encode("utf-8", "surrogatepass")   # the library reports surrogates
    elif isinstance(text, (bytes, bytearray, memoryview)):
        b = bytes(text)
    else:
        raise TypeError("text must be str or bytes, not %s" % type(text).__name__)
    flags = _SPECIAL[special] | (L.LOSSY if errors == "replace" else 0)
    ids, offs = enc._g.run(lambda p: _tokenize(p, b, flags, want_offsets))
    return ids.astype(np.int64), offs
