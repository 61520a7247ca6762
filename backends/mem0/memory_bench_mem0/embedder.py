"""mem0's embedder slot filled by memory-bench's shared embedder (no torch, same vectors).

mem0 builds its embedder from a provider name (``EmbedderFactory``) and accepts
only its own names. This module adds one, ``memory_bench``, whose class hands
mem0 the vectors of the shared :class:`memory_bench_embed.Embedder`: the same
MiniLM vectors and cache every other embedding row uses, so mem0 differs from
them by its store, scoring and ranking only. Stored texts go through
``encode`` (cached), questions through ``encode_query`` (uncached by default).
"""

from __future__ import annotations

from typing import Any

from mem0.embeddings.base import EmbeddingBase
from mem0.utils.factory import EmbedderFactory

__all__ = ["PROVIDER", "SharedEmbedding", "embedder_config", "register"]

PROVIDER = "memory_bench"


class SharedEmbedding(EmbeddingBase):
    """``config.model`` is the shared Embedder; mem0 calls ``embed`` one text at a time."""

    def embed(self, text: str, memory_action: str | None = None) -> list[float]:
        embedder = self.config.model
        vec = embedder.encode_query(text) if memory_action == "search" else \
            embedder.encode([text])[0]
        return vec.tolist()

    def embed_batch(self, texts: list[str], memory_action: str = "add") -> list[list[float]]:
        return self.config.model.encode(list(texts)).tolist() if texts else []


def register() -> None:
    """Make ``memory_bench`` a provider mem0's factory builds (idempotent)."""
    EmbedderFactory.provider_to_class.setdefault(PROVIDER, f"{__name__}.SharedEmbedding")


def embedder_config(embedder: Any) -> Any:
    """mem0's ``EmbedderConfig`` for the shared embedder: built without mem0's provider
    check, which knows only mem0's own names."""
    from mem0.embeddings.configs import EmbedderConfig

    register()
    return EmbedderConfig.model_construct(
        provider=PROVIDER, config={"model": embedder, "embedding_dims": embedder.dim})
