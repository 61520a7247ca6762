"""The ``neural-memory`` backend: write = one Titans update per item; read = decode M(q).

Keys and values are the frozen embeddings of the item text (k = v = e(text),
unit norm); the query is e(question). Titans projects its input with learned
W_K, W_V, W_Q; with no outer loop to learn them, the identity is the honest
choice: a fixed random orthogonal projection is a change of basis the linear
update commutes with (it would change nothing), and a non-orthogonal one only
distorts the embedding geometry with nothing to learn it back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from memory_bench_embed import embedder_from_options

from memory_bench import BackendContext, Hit, Item, NotSupportedError, WriteResult
from memory_bench_neural_memory.codebook import Codebook
from memory_bench_neural_memory.rule import (
    AssociativeMemory,
    IdentityMemory,
    LinearMemory,
    MLPMemory,
    UpdateRule,
    silu_second_moment,
)

__all__ = ["NeuralMemoryBackend", "build_memory"]


def build_memory(options: dict[str, Any], dim: int, seed: int) -> AssociativeMemory:
    """M from the resolved options; θ unset means the one-shot step (see README)."""
    eta, alpha = float(options["eta"]), float(options["alpha"])
    theta = options.get("theta")
    if options["memory"] == "identity":
        return IdentityMemory(UpdateRule(0.0, eta, alpha))
    if options["memory"] == "linear":
        if theta is None:
            theta = 0.5  # ∇ = 2(Mk − v)kᵀ with ‖k‖ = 1: θ = ½ stores (k, v) in one step
        return LinearMemory(dim, UpdateRule(float(theta), eta, alpha))
    hidden = int(options["hidden"])
    if theta is None:
        # Same one-shot step for the output layer, whose input is h = silu(W₁k)
        # with E‖h‖² = hidden·E[silu(z)²], z ~ N(0, 1).
        theta = 1.0 / (2.0 * hidden * silu_second_moment())
    return MLPMemory(dim, hidden, UpdateRule(float(theta), eta, alpha), seed)


class NeuralMemoryBackend:
    """Accepts every item; hits carry an id and a cosine score, nothing else."""

    def __init__(self, options: dict[str, Any], ctx: BackendContext) -> None:
        # Stored texts go through the shared cache; questions are encoded afresh unless
        # cache_queries is set, so query latency includes the encode as for faiss-rag.
        self._embedder = embedder_from_options(options, ctx)
        dim = self._embedder.dim
        self.memory = build_memory(options, dim, ctx.seed)
        self._random_values = options["values"] == "random"
        self._rng = np.random.default_rng([ctx.seed, 1])  # value codes, in write order
        self.codebook = Codebook(dim)
        self.surprise: list[float] = []  # ℓ before each write's update, in write order

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(self._embedder.encode(list(texts)), dtype=np.float64)

    def write(self, items: Sequence[Item]) -> list[WriteResult]:
        if not items:
            return []
        keys = self._embed([i.text for i in items])
        if self._random_values:
            values = self._rng.standard_normal(keys.shape)
            values /= np.linalg.norm(values, axis=1, keepdims=True)
        else:
            values = keys
        self.surprise.extend(self.memory.write(keys, values).tolist())
        self.codebook.add([i.id for i in items], values)
        return [WriteResult(i.id, True) for i in items]

    def query(self, text: str, k: int) -> list[Hit]:
        q = np.asarray(self._embedder.encode_query(text), dtype=np.float64)[None, :]
        y = self.memory.forward(q)[0]
        return [Hit(item_id, score) for item_id, score in self.codebook.decode(y, k)]

    def remove(self, prefix: str) -> int:
        return self.codebook.remove(prefix)

    def count(self, prefix: str) -> int:
        return self.codebook.count(prefix)

    def strength(self, ids: Sequence[str]) -> list[float | None]:
        raise NotSupportedError("neural-memory keeps no per-item strength")

    def consolidate(self) -> dict[str, Any]:
        raise NotSupportedError("neural-memory has no consolidation step")

    def forget(self, ids: Sequence[str] = (), source: str | None = None,
               prefix: str = "") -> int:
        raise NotSupportedError("an item's trace is spread over every weight of M: it cannot "
                                "be forgotten alone (README, 'Why it does not declare forget')")

    def close(self) -> None:
        self.codebook = Codebook(self.codebook.dim)
        self._embedder.close()
