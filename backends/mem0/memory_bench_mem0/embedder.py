"""mem0's embedder interface over memory-bench's shared embedder (no torch, no model load).

mem0 builds its embedder from a provider name it knows; none is "bring your own
object" without langchain. So the Memory is built with the ``openai`` provider on
a dummy key and a 127.0.0.1 address it never calls (building the client connects
nowhere), and its ``embedding_model`` is then replaced by :class:`SharedEmbedding`:
mem0 calls ``embed`` and ``embed_batch`` on it, as on its own. The vectors are the
shared embedder's: the run's vector table when the harness built one (encode
once), else the model in this process, with the same cache and counters as every
other embedding row.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["DUMMY_EMBEDDER", "SharedEmbedding", "install"]

# What mem0's config names as its embedder: replaced before mem0 embeds anything.
DUMMY_EMBEDDER = {"provider": "openai", "config": {
    "api_key": "memory-bench-offline-never-called",
    "openai_base_url": "http://127.0.0.1:9/never-called", "model": "memory-bench-shared"}}


class SharedEmbedding:
    """``embed(text, memory_action)`` and ``embed_batch(texts, memory_action)`` for mem0.

    A ``search`` embeds a question (``encode_query``: the query path, never cached
    unless asked); anything else embeds stored text (``encode``).
    """

    def __init__(self, embedder: Any, config: Any) -> None:
        self.embedder = embedder
        self.config = config  # mem0's BaseEmbedderConfig, as its own embedders keep
        self.config.embedding_dims = embedder.dim

    def embed(self, text: str, memory_action: str | None = None) -> list[float]:
        if memory_action == "search":
            return self.embedder.encode_query(text).tolist()
        return self.embedder.encode([text])[0].tolist()

    def embed_batch(self, texts: Sequence[str], memory_action: str | None = "add"
                    ) -> list[list[float]]:
        if memory_action == "search":
            return [self.embed(t, "search") for t in texts]
        return self.embedder.encode(list(texts)).tolist()


def install(memory: Any, embedder: Any) -> SharedEmbedding:
    """Replace ``memory``'s embedder by the shared one; returns the adapter."""
    adapter = SharedEmbedding(embedder, memory.embedding_model.config)
    memory.embedding_model = adapter
    return adapter
