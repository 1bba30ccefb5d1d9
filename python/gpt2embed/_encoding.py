# SPDX-License-Identifier: MIT
"""tiktoken's face: get_encoding("gpt2") and its Encoding (internal module; the names are
re-exported by gpt2embed)."""

import bisect
import contextlib
import ctypes
import gc
import sys
import threading
import unicodedata
from typing import (AbstractSet, Any, Callable, Collection, Dict, Iterator, List, NamedTuple,
                    Optional, Sequence, Tuple, Union)

import numpy as np

from . import _binding as L

EOT_TEXT = "<|endoftext|>"
EOT = 50256
_E_BUFFER = L.status_code("E_BUFFER")
_E_TOKEN_ID = L.status_code("E_TOKEN_ID")
# GPT-2's pre-tokenizer pattern as tiktoken spells it (its _pat_str; the C tokenizer is a
# state machine for it: src/lib/tokenizer/tok_pretok.c)
PAT_STR = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
# tiktoken's two names for GPT-2's encoding: the same IDs (r50k_base is the one the early
# OpenAI API models used)
ENCODINGS = ("gpt2", "r50k_base")

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


class TokenKeyError(L.InvalidInputError, KeyError):
    """A token ID outside the vocabulary given to decode: a KeyError, as tiktoken raises,
    and an InvalidInputError (a ValueError), as this module raised before."""

    def __str__(self) -> str:   # (KeyError's own would quote the message)
        return Exception.__str__(self)


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


# ---- encode_with_unstable: where a text's last piece starts, and BPE of bare bytes ----

# Unicode's White_Space characters: what the pattern's \s matches in tiktoken's regex engine
# (Python's str.isspace also takes U+001C..U+001F, which are not)
_WHITE_SPACE = frozenset("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
                         "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
_CONTRACTIONS = ("s", "d", "m", "t", "ll", "ve", "re")


def _kind(ch: str) -> str:
    """The pattern's class of a character: "S" white space, "L" letter, "N" number, else "O"
    (from this Python's unicodedata: a character newer than its Unicode version reads "O")."""
    if ch in _WHITE_SPACE:
        return "S"
    c = unicodedata.category(ch)[0]
    return c if c in "LN" else "O"


def _last_piece_start(t: str) -> int:
    """The index in t (not empty) of the first character of the last piece GPT-2's pattern
    (PAT_STR) cuts t into. A white-space character after another one is always a piece's
    start (src/lib/tokenizer/tok_pretok.c proves it), and the pieces after it depend only on
    what follows, so only the text from the last such place is read: white space W, then
    characters N that are not."""
    n, c = len(t), 0
    for i in range(n - 1, 0, -1):
        if t[i] in _WHITE_SPACE and t[i - 1] not in _WHITE_SPACE:
            c = i
            break
    j = c
    while j < n and t[j] in _WHITE_SPACE:
        j += 1
    if j == n:
        return c   # white space to the end: one piece
    # W but its last character is a piece (\s+(?!\S)); that last one joins N's first piece
    # when it is a space ( ?\p{L}+ ...), else it is a piece of its own (\s+)
    lead = j > c and t[j - 1] == " "
    pos, last = j, j
    while pos < n:
        end = 0
        if not lead and t[pos] == "'":   # a contraction is tried first, never after the space
            end = next((pos + 1 + len(x) for x in _CONTRACTIONS if t.startswith(x, pos + 1)), 0)
        if not end:
            k, end = _kind(t[pos]), pos + 1
            while end < n and _kind(t[end]) == k:
                end += 1
        last, pos, lead = pos - lead, end, False
    return last


def _bpe(ranks: Dict[bytes, int], piece: bytes) -> List[int]:
    """Byte pair encoding of piece without the pattern's split (tiktoken's
    byte_pair_encode): the adjacent pair whose joined bytes have the lowest rank merged
    first (the leftmost of equal ones), until no pair is a token."""
    parts = list(range(len(piece) + 1))
    while len(parts) > 2:
        best, at = -1, -1
        for i in range(len(parts) - 2):
            r = ranks.get(piece[parts[i]:parts[i + 2]], -1)
            if r >= 0 and (best < 0 or r < best):
                best, at = r, i
        if at < 0:
            break
        del parts[at + 1]
    return [ranks[piece[a:z]] for a, z in zip(parts, parts[1:])]


def _all_space(b: bytes) -> bool:
    return bool(b) and not b.strip(b" \n\t")


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
        """name: "gpt2" or "r50k_base" (tiktoken's two names for the same IDs). tokenizer: a
        directory with vocab.json + merges.txt (or encoder.json + vocab.bpe); None:
        $GPT2_EMBED_TOKENIZER, the installed data, else the copy built into the library."""
        if name not in ENCODINGS:
            raise ValueError("unknown encoding %r: gpt2embed has GPT-2's, named %s" % (name, " or ".join(
                map(repr, ENCODINGS))))
        self.name = name
        self._dir = tokenizer
        self._g = L.open_tokenizer(tokenizer, self._what, serialize=not THREAD_SAFE_C)
        self._n_vocab = self._g.run(lambda p: int(L.tok_n_vocab(p)))
        self._tables_: Optional[Tuple[List[bytes], Dict[bytes, int], List[bytes]]] = None
        self._tables_lock = threading.Lock()

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
        """True for 50256; False for any other int (a negative one too, as tiktoken)."""
        if not isinstance(token, int):
            raise TypeError("token must be an int, not %s" % type(token).__name__)
        return token == EOT

    @property
    def _special_tokens(self) -> Dict[str, int]:
        """{"<|endoftext|>": 50256} (a new dict each time): tiktoken's attribute, which
        llm.c's data scripts read for the end-of-text token."""
        return {EOT_TEXT: EOT}

    @property
    def _mergeable_ranks(self) -> Dict[bytes, int]:
        """The ordinary tokens' bytes and IDs (tiktoken's attribute; shared, do not change)."""
        return self._tables()[1]

    _pat_str = PAT_STR

    def _tables(self) -> Tuple[List[bytes], Dict[bytes, int], List[bytes]]:
        """(each ordinary token's bytes by ID, their IDs by bytes, the bytes sorted), made once."""
        with self._tables_lock:
            if self._tables_ is None:
                by_id = self._g.run(lambda p: [_token_bytes(p, i) for i in range(self._n_vocab - 1)])
                self._tables_ = (by_id, {b: i for i, b in enumerate(by_id)}, sorted(by_id))
            return self._tables_

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
                        disallowed_special: SpecialColl = "all", dtype: Any = np.int64) -> np.ndarray:
        """As encode, as a numpy array of dtype int64: torch.from_numpy of it is a LongTensor,
        the index type of nn.Embedding and of wte[ids] (Debian 12's torch 1.13 refuses the
        uint32 that tiktoken returns). dtype=np.uint32 gives tiktoken's; any integer dtype
        that holds every ID (uint16 too) is accepted."""
        return self._ids(text, allowed_special, disallowed_special).astype(_id_dtype(dtype, self._n_vocab))

    def encode_with_unstable(self, text: str, *, allowed_special: SpecialSet = frozenset(),
                             disallowed_special: SpecialColl = "all"
                             ) -> Tuple[List[int], List[List[int]]]:
        """(stable tokens, completions), as tiktoken's (which calls it unstable API): the
        tokens of text whose bytes no continuation of the text can change (those of its last
        piece, and the all-space tokens before them, are left out), and the token sequences
        a continuation may start with there (in no particular order). The last piece is
        found with this Python's Unicode tables (unicodedata), the C tokenizer's being
        internal: near a character newer than them (Unicode 15.0 and later on Python 3.11)
        the stable part may end sooner than tiktoken's."""
        flags, disallowed = self._specials(allowed_special, disallowed_special)
        self._check_disallowed(text, disallowed)
        b = _utf8(text)
        t = b.decode("utf-8")   # (as tokenized: lone surrogates replaced)
        ids, offs = self._g.run(lambda p: _tokenize(p, b, flags, True))
        seg = t.rfind(EOT_TEXT) + len(EOT_TEXT) if not flags and EOT_TEXT in t else 0
        tokens = ids.tolist()
        if seg == len(t):   # empty, or ending with the special token: nothing unstable
            return tokens, []
        by_id, ranks, ordered = self._tables()
        start = len(t[:seg + _last_piece_start(t[seg:])].encode("utf-8"))
        # (the token the last piece starts at; with a character newer than unicodedata's
        # tables the piece found may start inside one: that token is then unstable too)
        k = max(0, int(np.searchsorted(offs[:-1], start, side="right")) - 1)

        def space(tok: int) -> bool:   # (the special token is not)
            return tok < len(by_id) and _all_space(by_id[tok])
        while k > 0 and space(tokens[k]) and space(tokens[k - 1]):
            k -= 1   # (white space before the last piece may join it)
        unstable = b"".join(by_id[i] for i in tokens[k:])
        tokens = tokens[:k]
        done = set()

        def starting_with(prefix: bytes) -> Iterator[bytes]:
            for x in ordered[bisect.bisect_left(ordered, prefix):]:
                if not x.startswith(prefix):
                    return
                yield x
        for x in starting_with(unstable):   # one token that holds all of it
            done.add((ranks[x],))
        for i in range(1, len(unstable)):   # a token across its end, from byte i on
            head = unstable[:i]
            for x in starting_with(unstable[i:]):
                whole = head + x
                try:
                    seq = self.encode_ordinary(whole.decode("utf-8"))
                except UnicodeDecodeError:
                    seq = _bpe(ranks, whole)
                got, n = [], 0
                for tok in seq:
                    got.append(tok)
                    n += len(by_id[tok])
                    if n >= len(unstable):
                        break
                done.add(tuple(got))
        # white space at its end may be cut off the rest by what follows ("\n\n" + "0")
        last = unstable.decode("utf-8")[-1:]
        if len(unstable) > 1 and last in _WHITE_SPACE and len(last.encode("utf-8")) < len(unstable):
            w = len(last.encode("utf-8"))
            done.add(tuple(_bpe(ranks, unstable[:-w]) + _bpe(ranks, unstable[-w:])))
        return tokens, [list(x) for x in done]

    def _batch_run(self, f: Callable[..., Any], texts: Sequence[str], flags: int,
                   disallowed: Tuple[str, ...], num_threads: int) -> Any:
        """f(pointer, texts, check, flags, C threads) in the guard; check() raises as encode
        would for the first text with a disallowed special string. texts may be any
        iterable of str (a str is its characters, as tiktoken iterates it)."""
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
                              disallowed_special: SpecialColl = "all", dtype: Any = np.int64
                              ) -> Tuple[np.ndarray, np.ndarray]:
        """encode_batch as two numpy arrays, (ids, offsets), both int64 (ids in dtype, as
        encode_to_numpy's): every text's IDs one after another, and where each text's
        begin, with the end last (len(text) + 1 entries): text i's IDs are
        ids[offsets[i]:offsets[i + 1]]. No Python int per ID, so it is several times faster
        than the lists, and its threads scale. torch.from_numpy(ids) with offsets[:-1] is
        what nn.EmbeddingBag takes."""
        want = _id_dtype(dtype, self._n_vocab)
        flags, disallowed = self._specials(allowed_special, disallowed_special)
        ids, offsets = self._batch_run(_numpy_batch, text, flags, disallowed, num_threads)
        return (ids if want == ids.dtype else ids.astype(want)), offsets

    def encode_single_token(self, text_or_bytes: Union[str, bytes]) -> int:
        """The ID of the token whose bytes are exactly text_or_bytes (special token
        included); KeyError when there is none."""
        b = text_or_bytes.encode("utf-8") if isinstance(text_or_bytes, str) else bytes(text_or_bytes)
        if b == EOT_TEXT.encode():
            return EOT
        return self._tables()[1][b]

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
        >= n_vocab raises KeyError, as tiktoken (a TokenKeyError: also an InvalidInputError,
        a ValueError); a negative one OverflowError."""
        a = L.token_ids(tokens)
        if a.size and int(a.max()) >= self._n_vocab:
            i = int(np.flatnonzero(a >= self._n_vocab)[0])
            raise TokenKeyError(_E_TOKEN_ID, "token %d (tokens[%d]) is not in the vocabulary of %d tokens"
                                % (int(a[i]), i, self._n_vocab), None, i)
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
        """The bytes of every ordinary token (not the special one), sorted by their bytes, as
        tiktoken's (a new list each time; IDs: decode_single_token_bytes)."""
        return list(self._tables()[2])


# One C tokenizer may serve any number of threads at once (0.3.0's contract: per-call
# scratch), so calls take no lock of ours; only close() waits for them (Guard). Measured
# against a lock per Encoding in bench/python_threads.py (README).
THREAD_SAFE_C = True

_cache: Dict[Tuple[str, Any], Encoding] = {}
_cache_lock = threading.Lock()


def _id_dtype(dtype: Any, n_vocab: int) -> np.dtype:
    """dtype as a numpy integer dtype that holds every ID below n_vocab, else TypeError."""
    try:
        d = np.dtype(dtype)
    except TypeError:
        raise TypeError("dtype must be a numpy integer dtype, not %r" % (dtype,)) from None
    if d.kind not in "iu" or np.iinfo(d).max < n_vocab - 1:
        raise TypeError("dtype %s cannot hold token IDs up to %d: use int64 (torch's index type) "
                        "or uint32 (tiktoken's)" % (d, n_vocab - 1))
    return d


def get_encoding(encoding_name: str, tokenizer: Optional[Any] = None) -> Encoding:
    """The Encoding named encoding_name ("gpt2" or "r50k_base", tiktoken's names for GPT-2's
    IDs), shared: the same object for the same name and tokenizer directory (reopened if it
    was closed). Another name raises ValueError, as tiktoken."""
    if not isinstance(encoding_name, str):
        raise ValueError("encoding_name must be a str, not %s" % type(encoding_name).__name__)
    if encoding_name not in ENCODINGS:
        raise ValueError("Unknown encoding %r; gpt2embed has GPT-2's, named %s"
                         % (encoding_name, " or ".join(map(repr, ENCODINGS))))
    key = (encoding_name, tokenizer)
    with _cache_lock:
        e = _cache.get(key)
        if e is None or e.closed:
            e = _cache[key] = Encoding(encoding_name, tokenizer)
        return e


def list_encoding_names() -> List[str]:
    return list(ENCODINGS)


# The models whose encoding is GPT-2's, as tiktoken's model table names them (the early API
# models use r50k_base, its other name), and the GPT-2 checkpoints this package embeds with.
_R50K_MODELS = ("davinci", "curie", "babbage", "ada", "text-davinci-001", "text-curie-001",
                "text-babbage-001", "text-ada-001", "text-similarity-davinci-001",
                "text-similarity-curie-001", "text-similarity-babbage-001",
                "text-similarity-ada-001", "text-search-davinci-doc-001",
                "text-search-curie-doc-001", "text-search-babbage-doc-001",
                "text-search-ada-doc-001", "code-search-babbage-code-001",
                "code-search-ada-code-001")


def encoding_name_for_model(model_name: str) -> str:
    """The name of a model's encoding, as tiktoken's: "gpt2" for "gpt2" and "gpt-2" (and the
    GPT-2 checkpoints gpt2-medium, gpt2-large, gpt2-xl, distilgpt2), "r50k_base" for the
    early API models (davinci, text-ada-001...). KeyError for any other model: gpt2embed
    has GPT-2's encoding only."""
    from ._model import MODELS
    if model_name in ("gpt2", "gpt-2") or model_name in MODELS:
        return "gpt2"
    if model_name in _R50K_MODELS:
        return "r50k_base"
    raise KeyError("no GPT-2 encoding known for model %r: gpt2embed has GPT-2's encoding only "
                   "(gpt2, gpt-2, %s; r50k_base: %s...); get_encoding names it"
                   % (model_name, ", ".join(MODELS[1:]), ", ".join(_R50K_MODELS[:4])))


def encoding_for_model(model_name: str) -> Encoding:
    """get_encoding(encoding_name_for_model(model_name)); KeyError for a model whose
    encoding is not GPT-2's."""
    return get_encoding(encoding_name_for_model(model_name))


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
