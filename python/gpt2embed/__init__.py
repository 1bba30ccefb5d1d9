# SPDX-License-Identifier: MIT
"""gpt2embed — GPT-2's embedding stage from Python, over libgpt2embed (ctypes).

tiktoken's face (same IDs, same methods, same special-token rules; "gpt2" and "r50k_base")::

    import gpt2embed
    enc = gpt2embed.get_encoding("gpt2")
    enc.encode("Hello world")                      # [15496, 995]
    enc.encode_batch(texts, num_threads=2)          # C threads, the GIL released

The embedding stage, as transformers' ``wte(ids) + wpe(pos)``::

    m = gpt2embed.Model()                           # finds gpt2's weights as gpt2-embed does
    x = m.embed("The dog chased the cat")           # float32 (T, 768) = wte[ids] + wpe[0..T)
    b = m.embed_batch(["a", "longer text"])         # (B, T, C), attention_mask, input_ids

Token IDs are exactly tiktoken's ``gpt2`` encoding; embeddings are bit-identical to numpy's
``wte[ids] + wpe[start:start + T]`` and to the program's ``--format npy`` output. Every
object may be shared by threads and pickled (it reopens by name/path in the other process).

The shared library is found in this order: ``$GPT2EMBED_LIBRARY`` (a path), the copy inside
this package (``pip install .``), the one ``make install`` recorded, the build tree beside
this source tree, then the dynamic loader's search.

The course (chapter 4 of the Japanese Transformer course) as result objects that show
themselves in Jupyter, with the program's numbers, sentences and figures::

    from gpt2embed import course
    gpt2embed.set_language("ja")                    # or LANGUAGE=ja
    course.exercises(m); course.compare("犬が猫を追いかけた", "猫が犬を追いかけた", m)

Errors of the library become ``gpt2embed.Error`` (or a subclass) carrying the library's
one-line message and ``status`` (the C enum's name, e.g. ``"E_TOKEN_ID"``); arguments
outside their C type raise OverflowError, a NUL in a path ValueError.
"""

from . import _binding as _L
from ._binding import Error, InvalidInputError, NotFoundError
from ._encoding import (CountInfo, Encoding, TokenKeyError, Tokenizer, encoding_for_model,
                        encoding_name_for_model, get_encoding, list_encoding_names)
from ._model import (MODELS, BatchEmbedding, Model, cosine_matrix, similarity, sinusoidal)
from . import _study as course
from ._study import set_language

__all__ = ["get_encoding", "list_encoding_names", "encoding_for_model",
           "encoding_name_for_model", "Encoding", "CountInfo", "Model", "BatchEmbedding",
           "Tokenizer", "Error", "NotFoundError", "InvalidInputError", "TokenKeyError",
           "sinusoidal", "similarity", "cosine_matrix", "library_version", "strerror",
           "cpu_count", "MODELS", "course", "set_language"]


def library_version() -> str:
    """The version of the loaded libgpt2embed ("0.3.0")."""
    return _L.version()


def strerror(status: int) -> str:
    """The library's generic text for a status number."""
    return _L.strerror(status)


def cpu_count() -> int:
    """The CPUs this process may use (its affinity, capped by a cgroup CPU quota): what
    num_threads=0 means."""
    return _L.cpu_count()


__version__ = library_version()
for _c in (Encoding, CountInfo, Model, BatchEmbedding, Tokenizer, Error, NotFoundError,
           InvalidInputError, TokenKeyError):
    _c.__module__ = __name__   # gpt2embed.Error, not gpt2embed._lib.Error, in tracebacks
del _c
_lib = _L.lib   # the loaded ctypes library (its file: gpt2embed._lib._name)
