"""What the lattice asks of an encoder, so that the memory is separate from its encoder.

The lattice's mechanisms (gate, supersession, strength, decay, sleep, lineage)
need three things from a text: a packed sign code for the fast scan, the parts
the exact rescoring reads, and a similarity between a query and stored rows.
An :class:`Encoding` carries the first two; a :class:`TextEncoder` makes
encodings and defines the similarity. Three encoders exist:

- ``lexical`` (:class:`~memory_bench_rshl.encoder.Encoder`): model-free random
  indexing with online IDF; numpy only;
- ``dense`` (:class:`~memory_bench_rshl.dense.DenseEncoder`): a frozen sentence
  embedding; code = sign of a seeded Gaussian projection (SimHash), rescoring =
  the embeddings' exact cosine;
- ``hybrid`` (:class:`~memory_bench_rshl.dense.HybridEncoder`): code = sign of
  the weighted bundle of both hypervectors; similarity = the same weighted sum
  of the lexical and the dense cosine, each exact.

The dense parts need an :class:`Embedding` (any object with ``dim``, ``encode``
and ``encode_query``, e.g. memory-bench-embed's ``Embedder``): the library never
imports a model itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

if TYPE_CHECKING:
    from memory_bench_rshl.encoder import IdfStats
    from memory_bench_rshl.index import CodeIndex

__all__ = ["Embedding", "Encoding", "TextEncoder", "mismatch"]


@dataclass(frozen=True)
class Encoding:
    """One text, encoded: ``code`` (D/64 uint64 sign bits of its hypervector) for the scan;
    ``lexical`` (float32 (D,) accumulator) and ``dense`` (float32 (d,) unit embedding)
    for the exact rescoring, each None when the encoder has no such part."""

    code: np.ndarray
    lexical: np.ndarray | None = None
    dense: np.ndarray | None = None


class Embedding(Protocol):
    """A frozen text embedding: unit float32 vectors of ``dim`` dimensions."""

    dim: int

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Stored texts -> (n, dim); may be cached."""
        ...

    def encode_query(self, text: str) -> np.ndarray:
        """One question -> (dim,); timed as part of the query."""
        ...


class TextEncoder(Protocol):
    """What the lattice calls; see the module docstring."""

    kind: str  # one of ENCODERS
    dim: int  # D, the hypervector's dimension
    dense_dim: int  # d of the stored embeddings; 0 without a dense part
    uses_idf: bool  # re-encoding with newer IDF counts changes the encoding

    def features(self, text: str) -> dict[str, float]:
        """The lexical features the IDF counts learn from ({} without a lexical part)."""
        ...

    def embed(self, texts: Sequence[str]) -> np.ndarray | None:
        """The dense vectors of a batch of stored texts, or None without a dense part."""
        ...

    def encoding(self, features: dict[str, float], stats: IdfStats,
                 vector: np.ndarray | None) -> Encoding:
        """A stored text's encoding from its features and (dense) vector."""
        ...

    def query_encoding(self, text: str, stats: IdfStats) -> Encoding | None:
        """A question's encoding; None when it has nothing to match on."""
        ...

    def similarity(self, index: CodeIndex, q: Encoding, rows: np.ndarray) -> np.ndarray:
        """The encoder's similarity of ``q`` to the given rows (float32, at most 1)."""
        ...

    def identity(self) -> dict[str, Any]:
        """JSON-able: what made the vectors (saved with a lattice, checked on load)."""
        ...


def mismatch(saved: Mapping[str, Any], given: Mapping[str, Any]) -> str | None:
    """The first way ``given`` differs from ``saved`` (``"model='x', saved 'y'"``), or None."""
    for key in dict.fromkeys([*saved, *given]):
        if saved.get(key) != given.get(key):
            return f"{key}={given.get(key)!r} (the lattice's vectors were made with " \
                   f"{key}={saved.get(key)!r})"
    return None
