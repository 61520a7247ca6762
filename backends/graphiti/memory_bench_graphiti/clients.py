"""The three clients Graphiti takes, for a run with no LLM and no network.

Graphiti builds an OpenAI LLM client, embedder and reranker when it is given
none. Here the embedder is memory-bench's shared one (the same MiniLM vectors
and cache as every embedding row), and the LLM and the cross-encoder are
clients that refuse every call: this row saves edges directly and searches
without a cross-encoder, so a call to either is a bug, not a fallback.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from graphiti_core.cross_encoder.client import CrossEncoderClient
from graphiti_core.embedder.client import EmbedderClient
from graphiti_core.llm_client.client import LLMClient
from graphiti_core.llm_client.config import LLMConfig

__all__ = ["LLMCallRefused", "NoCrossEncoder", "NoLLM", "SharedEmbedder"]


class LLMCallRefused(RuntimeError):
    """Graphiti asked a model this row does not have."""


class SharedEmbedder(EmbedderClient):
    """Graphiti's embedder slot: stored texts through ``encode`` (cached), queries through
    ``encode_query`` (uncached by default, so query latency includes the encode)."""

    def __init__(self, embedder: Any) -> None:
        self.embedder = embedder
        self.query_mode = False  # set by the backend around a search

    async def create(self, input_data: str | list[str] | Iterable[int] | Iterable[Iterable[int]]
                     ) -> list[float]:
        text = input_data if isinstance(input_data, str) else next(iter(input_data))
        if not isinstance(text, str):
            raise TypeError("memory-bench's embedder takes text, not token ids")
        vec = self.embedder.encode_query(text) if self.query_mode else \
            self.embedder.encode([text])[0]
        return vec.tolist()

    async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
        return self.embedder.encode(list(input_data_list)).tolist() if input_data_list else []


class NoLLM(LLMClient):
    """An LLM client that refuses: Graphiti's extraction and dedupe are never run here."""

    def __init__(self) -> None:
        super().__init__(LLMConfig(api_key="memory-bench-no-llm", base_url="http://127.0.0.1:9"),
                         cache=False)

    async def _generate_response(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        raise LLMCallRefused("graphiti asked for an LLM call; this row runs without an LLM")


class NoCrossEncoder(CrossEncoderClient):
    """A reranker that refuses: the search configurations used here need none."""

    async def rank(self, query: str, passages: list[str]) -> list[tuple[str, float]]:
        raise LLMCallRefused("graphiti asked for a cross-encoder; this row uses none")
