# SPDX-License-Identifier: MIT
"""tiktoken's face: get_encoding("gpt2") and its Encoding (internal module; the names are
re-exported by gpt2embed)."""

import contextlib
import ctypes
import gc
import sys
import threading
from typing import (AbstractSet, Any, Callable, Collection, Dict, Iterator, List, NamedTuple,
                    Optional, Sequence, Tuple, Union)

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


_C_LIST = 256   # a text of at least this many IDs gets its list from _pylists.c
_tls = threading.local()
_KEEP = 1 << 20   # a thread keeps its IDs buffer up to this many entries (4 MB)


def _tokenize_list(p: Any, b: bytes, flags: int) -> List[int]:
    """The IDs of b as a list, through a buffer of this thread's (no numpy, no allocation
    per call when the buffer is large enough): the list comes from slicing a ctypes array,
    or from _pylists.c for a long one."""
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
            if n.value < _C_LIST or L.pylists_append is None:
                return buf[:n.value]
            out: List[List[int]] = []   # (in C: ~4 ns an ID against ~44 for the slice)
            L.pylists_append(out, ctypes.addressof(buf), ctypes.addressof(n), 1)
            return out[0]
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
    """Appends each text's IDs to out as a list, made from the library's array, which is
    then freed: in C (_pylists.c) when it was built, else from a memoryview (its tolist makes
    the ints faster than a ctypes slice does)."""
    try:
        total = int(counts.sum())
        if not total:
            out.extend([] for _ in range(len(counts)))
            return
        if L.pylists_append is not None:
            L.pylists_append(out, ctypes.addressof(ids_p.contents), counts.ctypes.data,
                             len(counts))
            return
        flat = (ctypes.c_uint32 * total).from_address(ctypes.addressof(ids_p.contents))
        with memoryview(flat) as m, m.cast("B") as b, b.cast("I") as ids:
            at = 0
            for z in np.cumsum(counts).tolist():
                out.append(ids[at:z].tolist())
                at = z
    finally:
        L.free(ctypes.cast(ids_p, L.P))


class _Texts:
    """A batch's texts as the C call takes them: UTF-8, side by side in a buffer (texts side
    by side are what the C tokenizer runs fastest on), each one's pointer and length in numpy
    arrays (an array of c_char_p costs ~1.5 us a text). Encoded in steps (encode(a, z)), so
    that C threads can start on the first texts while this thread encodes the rest."""

    def __init__(self, texts: List[str]):
        self.texts = texts
        self.ptrs = np.empty(len(texts), dtype=np.uintp)
        self.lens = np.empty(len(texts), dtype=np.uintp)
        self.bufs: List[bytes] = []   # (the C calls read them through ptrs)

    def encode(self, a: int, z: int) -> None:
        lens, ptrs = self.lens[a:z], self.ptrs[a:z]
        buf = None
        if L.pylists_join is not None:   # in C (_pylists.c)
            try:
                buf = L.pylists_join(self.texts, a, z, lens.ctypes.data)
            except (TypeError, UnicodeEncodeError):
                pass
        if buf is None:   # in Python; anything unusual goes through _utf8
            texts = self.texts[a:z]
            try:
                enc = str.encode
                bs = [enc(t) for t in texts]
            except (TypeError, UnicodeEncodeError):
                bs = [_utf8(t, "text[%d]" % (a + i)) for i, t in enumerate(texts)]
            buf = b"".join(bs)
            lens[:] = np.fromiter(map(len, bs), dtype=np.uintp, count=z - a)
        self.bufs.append(buf)
        if z > a:
            ptrs[0] = 0
            np.cumsum(lens[:-1], out=ptrs[1:])
        ptrs += ctypes.cast(ctypes.c_char_p(buf), ctypes.c_void_p).value or 0

    def may_contain(self, disallowed: Tuple[str, ...]) -> bool:
        """False when no text contains any of the strings in disallowed: one search of each
        buffer (a hit may be across two texts; only a hit needs each text looked at)."""
        return any(_may_occur(s, b) for s in disallowed for b in self.bufs)


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


class _Setting:
    """A process-wide setting that batches change while they run: the first to enter saves
    it and sets it, the last to leave puts it back, unless someone else has changed it since
    (then theirs stays)."""

    def __init__(self, get: Callable[[], Any], set: Callable[[Any], None],
                 ours: Callable[[Any], Any]):
        self._get, self._set, self._ours = get, set, ours
        self._lock = threading.Lock()
        self._users = 0
        self._saved: Any = None
        self._value: Any = None

    @contextlib.contextmanager
    def __call__(self) -> Iterator[None]:
        with self._lock:
            if self._users == 0:
                self._saved = self._get()
                self._set(self._ours(self._saved))
                self._value = self._get()   # (as the interpreter keeps it)
            self._users += 1
        try:
            yield
        finally:
            with self._lock:
                self._users -= 1
                if self._users == 0 and self._get() == self._value:
                    self._set(self._saved)


# The cyclic garbage collector, off while a batch's lists are made. The lists hold only
# ints, so they make no cycles, but a collection is due every 700 of them and the older
# generations' passes go over every ID made so far: on 284,000 short texts that cost more
# than making the lists did (0.35-1.1 s of a 2.1-2.5 s call).
_gc_paused = _Setting(gc.isenabled, lambda on: gc.enable() if on else gc.disable(),
                      lambda was: False)
# The GIL's switch interval, at most 0.5 ms while a helper thread tokenizes for this one:
# the helper needs the GIL after each C call, and gets it from a thread making lists only
# when the interval runs out (5 ms by default: 5-9 ms lost a call, measured).
_SWITCH = 0.0005
_switch_short = _Setting(sys.getswitchinterval, sys.setswitchinterval,
                         lambda was: min(was, _SWITCH))


_PART_BYTES = 256 << 10   # a batch of more than 2 parts on 2+ threads is cut into parts
_RUN_PARTS = 8            # a helper thread takes up to this many parts a C call
_HEAD = 8                 # on 2+ threads the first 1/_HEAD of the texts is encoded first


def _parts(lens: np.ndarray, a: int, part_bytes: int) -> List[Tuple[int, int]]:
    """Consecutive ranges of texts of about part_bytes each (a text is not split), of the
    texts a .. a + len(lens) - 1."""
    if not len(lens):
        return []
    ends = np.cumsum(lens, dtype=np.uint64)
    total = int(ends[-1])
    cuts = np.searchsorted(ends, np.arange(part_bytes, total, part_bytes, dtype=np.uint64),
                           side="left") + 1
    bounds = [0] + sorted(set(cuts.tolist()) - {0, len(lens)}) + [len(lens)]
    return [(a + x, a + y) for x, y in zip(bounds[:-1], bounds[1:])]


class _Queue:
    """The parts of a batch, tokenized in order by helper threads and the calling thread.
    Parts are added as their texts are encoded; take() hands out the next run of parts,
    run() tokenizes one (its result or exception in got[lo], done[lo] released)."""

    def __init__(self, p: Any, tx: _Texts, flags: int):
        self.p, self.tx, self.flags = p, tx, flags
        self.lock = threading.Lock()
        self.added = threading.Condition(self.lock)
        self.parts: List[Tuple[int, int]] = []
        self.done: List[Any] = []
        self.got: List[Any] = []   # at a run's first part: (ids, counts) or the exception
        self.span: List[int] = []  # at a run's first part: the part after the run
        self.next = 0
        self.complete = False      # every part added
        self.stopped = False

    def add(self, parts: List[Tuple[int, int]], complete: bool) -> None:
        done = [threading.Lock() for _ in parts]
        for d in done:
            d.acquire()
        with self.lock:
            self.parts += parts
            self.done += done
            self.got += [None] * len(parts)
            self.span += [0] * len(parts)
            self.complete = complete
            self.added.notify_all()

    def stop(self) -> None:
        with self.lock:
            self.stopped = True
            self.added.notify_all()

    def take(self, most: int, wait: bool) -> Tuple[int, int]:
        """The next run of up to `most` parts (fewer near the end, so that the threads end
        together; up to _RUN_PARTS while parts are still to come), or (-1, -1): none left
        (wait: none left and none to come)."""
        with self.lock:
            while True:
                left = len(self.parts) - self.next
                if self.stopped or (left <= 0 and (self.complete or not wait)):
                    return -1, -1
                if left > 0:   # (while parts are still being added, this thread is
                    # making them and holds the GIL: the longest runs)
                    k = max(1, min(most, left // 2)) if self.complete else min(_RUN_PARTS, left)
                    lo = self.next
                    self.next += k
                    return lo, lo + k
                self.added.wait()

    def run(self, lo: int, hi: int, threads: int) -> None:
        self.span[lo] = hi
        try:
            self.got[lo] = _batch_raw(self.p, self.tx.ptrs, self.tx.lens, self.parts[lo][0],
                                      self.parts[hi - 1][1], self.flags, threads)
        except BaseException as e:   # raised by the calling thread
            self.got[lo] = e
        finally:
            self.done[lo].release()

    def helper(self, most: int, threads: int) -> threading.Thread:
        def work() -> None:
            lo, hi = self.take(most, True)
            while lo >= 0:
                self.run(lo, hi, threads)
                lo, hi = self.take(most, True)
        th = threading.Thread(target=work, name="gpt2embed-batch", daemon=True)
        th.start()
        return th

    def result(self, k: int) -> Any:
        r, self.got[k] = self.got[k], None
        if isinstance(r, BaseException):
            raise r
        return r

    def free(self) -> None:
        for r in self.got:
            if isinstance(r, tuple):
                L.free(ctypes.cast(r[0], L.P))


def _run_batch(p: Any, tx: _Texts, check: Callable[[], None], flags: int, n_threads: int,
               most: int, consume: Callable[[_Queue, Callable[[int], None]], None]) -> None:
    """Encodes the texts and tokenizes them, handing the queue to consume(q, wait), which
    takes the results in order (wait(k) returns when part k is done). One C call over
    n_threads threads, or on 2 or more threads, for a batch of more than 2 parts: helper
    threads (n_threads - 1, runs of up to `most` parts, one C thread each) start on the
    first 1/_HEAD of the texts while this thread encodes the rest, in steps of as many
    texts, each step's parts tokenized as soon as it is encoded; when the part that consume
    waits for is not done, this thread tokenizes the next part itself."""
    n = len(tx.texts)
    n_cpu = L.threads_for(n_threads, n)
    q = _Queue(p, tx, flags)
    head = n // _HEAD if n_cpu >= 2 else 0
    tx.encode(0, head)
    guess = int(tx.lens[:head].sum()) * _HEAD   # (about the batch's bytes)
    pipelined = head and guess > 2 * _PART_BYTES
    # the library's one cap, and no more threads than (about) parts: C threads never
    # exceed it either (each helper makes one-thread calls)
    n_cpu = L.threads_for(n_cpu, guess // _PART_BYTES + 1)
    helpers: List[threading.Thread] = []
    with contextlib.ExitStack() as stack:
        try:
            if pipelined:
                stack.enter_context(_switch_short())
                q.add(_parts(tx.lens[:head], 0, _PART_BYTES), False)
                for _ in range(n_cpu - 1):
                    helpers.append(q.helper(most, 1))
            if pipelined:   # the rest in steps of the head's size, tokenized as they come
                for a in range(head, n, head):
                    z = min(n, a + head)
                    tx.encode(a, z)
                    q.add(_parts(tx.lens[a:z], a, _PART_BYTES), z == n)
                check()
            else:
                tx.encode(head, n)
                check()
                q.add([(0, n)], True)
                q.run(0, 1, n_threads)

            def wait(k: int) -> None:
                while not q.done[k].acquire(blocking=False):
                    lo, hi = q.take(1, False)
                    if lo < 0:
                        q.done[k].acquire()
                        return
                    q.run(lo, hi, 1)

            consume(q, wait)
        finally:
            q.stop()
            for h in helpers:
                h.join()
            q.free()


def _tokenize_batch(p: Any, tx: _Texts, check: Callable[[], None], flags: int,
                    n_threads: int) -> List[List[int]]:
    """Every text's IDs as lists. Making Python's lists takes about as long as the C
    tokenizer on GPT-2 text and needs the GIL, so on 2 or more threads it overlaps the
    tokenizing: a helper thread tokenizes runs of parts in order (GIL released) while this
    thread makes the lists of the runs done. The helper needs the GIL after each C call,
    which it gets only when this thread lets it go (up to sys.getswitchinterval(), 5 ms,
    while the lists are being made): hence runs of up to _RUN_PARTS parts."""
    out: List[List[int]] = []

    def consume(q: _Queue, wait: Callable[[int], None]) -> None:
        with _gc_paused():
            k = 0
            while k < len(q.parts):
                wait(k)
                ids_p, counts = q.result(k)
                _lists(ids_p, counts, out)
                k = q.span[k]

    _run_batch(p, tx, check, flags, n_threads, _RUN_PARTS, consume)
    return out


def _numpy_batch(p: Any, tx: _Texts, check: Callable[[], None], flags: int, n_threads: int
                 ) -> Tuple[np.ndarray, np.ndarray]:
    """(every text's IDs one after another, int64; offsets, int64, len(texts) + 1: text i's
    IDs are ids[offsets[i]:offsets[i + 1]]). On 2 or more threads the helpers take one part
    at a time once every text is encoded (this thread takes parts too): no Python object per
    ID, so the threads meet at the GIL only between parts, and the parts balance where the
    library's own split (two halves of the bytes) leaves a thread idle at the end."""
    offsets = np.zeros(len(tx.texts) + 1, dtype=np.int64)
    res: List[Tuple[int, int, Any]] = []

    def consume(q: _Queue, wait: Callable[[int], None]) -> None:
        k = 0
        while k < len(q.parts):
            wait(k)
            a, z = q.parts[k][0], q.parts[q.span[k] - 1][1]
            ids_p, counts = q.result(k)
            res.append((a, z, ids_p))
            offsets[a + 1:z + 1] = counts
            k = q.span[k]
        np.cumsum(offsets, out=offsets)

    ids = np.empty(0, dtype=np.int64)
    try:
        _run_batch(p, tx, check, flags, n_threads, 1, consume)
        ids = np.empty(int(offsets[-1]), dtype=np.int64)
        for a, z, ids_p in res:
            if offsets[z] > offsets[a]:
                ids[offsets[a]:offsets[z]] = np.ctypeslib.as_array(
                    ids_p, shape=(int(offsets[z] - offsets[a]),))
    finally:
        for _, _, ids_p in res:
            L.free(ctypes.cast(ids_p, L.P))
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
    c = L.CountInfoC()
    L.call(L.count_c, p, b, len(b), flags, n_ctx, ctypes.byref(c))
    return CountInfo(c.n_tokens, c.n_chars, c.n_ctx, c.ctx_end_byte, c.ctx_end_char,
                     bool(c.ctx_end_splits_char))


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

    def _batch_run(self, f: Callable[..., Any], texts: Sequence[str], flags: int,
                   disallowed: Tuple[str, ...], num_threads: int) -> Any:
        """f(pointer, texts, check, flags, C threads) in the guard; check() raises as encode
        would for the first text with a disallowed special string."""
        if isinstance(texts, str):
            raise TypeError("text must be a list of str, not one str")
        n = L.c_uint(num_threads, "num_threads", L.UINT_MAX)
        texts = list(texts)   # (read more than once, and in steps between which another
        # thread could change the caller's list: a copy of its references, ~1 ms a million)
        tx = _Texts(texts)

        def check() -> None:
            if tx.may_contain(disallowed):
                for t in texts:
                    self._check_disallowed(t, disallowed)
        return self._g.run(f, tx, check, flags, n)

    def _batch(self, texts: Sequence[str], flags: int, disallowed: Tuple[str, ...],
               num_threads: int) -> List[List[int]]:
        return self._batch_run(_tokenize_batch, texts, flags, disallowed, num_threads)

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
        return self._batch_run(_numpy_batch, text, flags, disallowed, num_threads)

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
