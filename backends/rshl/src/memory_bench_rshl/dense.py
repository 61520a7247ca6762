"""The ``dense`` and ``hybrid`` encoders: the lattice over a frozen sentence embedding.

``dense``: a text's embedding e (d dimensions, unit length, from an
:class:`~memory_bench_rshl.encoding.Embedding`) is mapped to the lattice's
D-dimensional hypervector P e by a seeded Gaussian projection P (D x d). Its
sign bits are the cell's code: SimHash, whose Hamming distance estimates the
angle between embeddings, so the packed-code scan finds the candidates. The
candidates are rescored by the exact cosine of the stored embeddings, which is
what a flat vector index (faiss ``IndexFlatIP``) ranks by: the projection
decides which cells are looked at, never their score.

``hybrid``: the weighted bundle of the lexical accumulator L and the dense
hypervector, h = sqrt(1 - w) L/|L| + sqrt(w) P e/|P e|. Its signs are the code;
the similarity is (1 - w) cos_lexical + w cos_dense, each part exact (the int8
lexical accumulator, the float32 embedding), so the weight means what it says
and no cross term between the two random spaces adds noise.

P is drawn from SHAKE-256 of (seed, D, d), as the lexical encoder's vectors
are, so it is the same on every machine and numpy version up to the last bit
of a float (only signs of P e depend on it).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from memory_bench_rshl.encoder import Encoder, IdfStats, pack_signs
from memory_bench_rshl.encoding import Embedding, Encoding

if TYPE_CHECKING:
    from memory_bench_rshl.index import CodeIndex

__all__ = ["DenseEncoder", "HybridEncoder", "projection"]

PROJECTION = "shake256-gaussian-v1"


@lru_cache(maxsize=4)
def projection(seed: int, dim: int, dense_dim: int) -> np.ndarray:
    """The (dim, dense_dim) float32 Gaussian projection for ``seed`` (read-only, cached).

    Box-Muller over 32-bit uniforms from SHAKE-256: about 0.1 s at 4096 x 384.
    """
    n = dim * dense_dim
    pairs = (n + 1) // 2
    salt = f"rshl-projection/{seed}/{dim}/{dense_dim}".encode()
    raw = np.frombuffer(hashlib.shake_256(salt).digest(8 * pairs), dtype="<u4")
    u = (raw.astype(np.float64) + 0.5) / 2.0**32  # in (0, 1): log never sees 0
    radius = np.sqrt(-2.0 * np.log(u[0::2]))
    angle = 2.0 * math.pi * u[1::2]
    normal = np.concatenate([radius * np.cos(angle), radius * np.sin(angle)])[:n]
    out = normal.reshape(dim, dense_dim).astype(np.float32)
    out.flags.writeable = False
    return out


def _unit(v: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(v))
    return v / n if n > 0 else v


class DenseEncoder:
    """The frozen embedding as the lattice's encoder (see the module docstring)."""

    kind = "dense"
    uses_idf = False

    def __init__(self, dim: int, seed: int, embedding: Embedding,
                 identity: Mapping[str, Any]) -> None:
        if dim % 64:
            raise ValueError(f"dim must be a multiple of 64, got {dim}")
        self.dim, self.seed = dim, seed
        self.embedding = embedding
        self.dense_dim = int(embedding.dim)
        self.matrix = projection(seed, dim, self.dense_dim)
        self._identity = dict(identity)

    def project(self, vector: np.ndarray) -> np.ndarray:
        """P e, float32 (dim,). einsum, not BLAS: no thread pool (see encoder.accumulate)."""
        return np.einsum("kd,d->k", self.matrix, vector)

    def features(self, text: str) -> dict[str, float]:
        return {}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.asarray(self.embedding.encode(list(texts)), dtype=np.float32)
        return out.reshape(len(texts), self.dense_dim)

    def encoding(self, features: dict[str, float], stats: IdfStats,
                 vector: np.ndarray | None) -> Encoding:
        if vector is None:
            raise ValueError("a dense encoding needs the text's vector")
        vector = np.asarray(vector, dtype=np.float32)
        return Encoding(pack_signs(self.project(vector)), None, vector)

    def query_encoding(self, text: str, stats: IdfStats) -> Encoding:
        return self.encoding({}, stats, self.embedding.encode_query(text))

    def similarity(self, index: CodeIndex, q: Encoding, rows: np.ndarray) -> np.ndarray:
        assert q.dense is not None
        return index.dense_cosine(q.dense, rows)

    def identity(self) -> dict[str, Any]:
        return {"kind": self.kind, "dim": self.dim, "seed": self.seed,
                "projection": PROJECTION, **self._identity}


class HybridEncoder:
    """The weighted bundle of a lexical and a dense encoder (see the module docstring)."""

    kind = "hybrid"
    uses_idf = True

    def __init__(self, lexical: Encoder, dense: DenseEncoder, weight: float) -> None:
        if lexical.dim != dense.dim:
            raise ValueError("the lexical and dense parts must have one dimension")
        if not 0.0 <= weight <= 1.0:
            raise ValueError(f"dense_weight must be in [0, 1], got {weight}")
        self.lexical, self.dense = lexical, dense
        self.dim, self.dense_dim, self.weight = dense.dim, dense.dense_dim, weight
        self._a, self._b = math.sqrt(1.0 - weight), math.sqrt(weight)

    def features(self, text: str) -> dict[str, float]:
        return self.lexical.features(text)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.dense.embed(texts)

    def _bundle(self, acc: np.ndarray, vector: np.ndarray) -> Encoding:
        h = self._a * _unit(acc) + self._b * _unit(self.dense.project(vector))
        return Encoding(pack_signs(h.astype(np.float32)), acc, vector)

    def encoding(self, features: dict[str, float], stats: IdfStats,
                 vector: np.ndarray | None) -> Encoding:
        if vector is None:
            raise ValueError("a hybrid encoding needs the text's vector")
        acc = self.lexical.accumulate(self.lexical.weights(features, stats))
        return self._bundle(acc, np.asarray(vector, dtype=np.float32))

    def query_encoding(self, text: str, stats: IdfStats) -> Encoding:
        acc = self.lexical.encode(text, stats)
        return self._bundle(acc, np.asarray(self.dense.embedding.encode_query(text),
                                            dtype=np.float32))

    def similarity(self, index: CodeIndex, q: Encoding, rows: np.ndarray) -> np.ndarray:
        assert q.lexical is not None and q.dense is not None
        lex = index.cosine(q.lexical, rows)
        dense = index.dense_cosine(q.dense, rows)
        return ((1.0 - self.weight) * lex + self.weight * dense).astype(np.float32)

    def identity(self) -> dict[str, Any]:
        return {**self.dense.identity(), "kind": self.kind, "dense_weight": self.weight}
