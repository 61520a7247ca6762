"""The backend contract: what the runner may ask of any memory system.

A backend is created by its plugin's factory, once per (backend, seed) pair, on
an empty store of its own. The runner never knows which backend it talks to: it
only calls the methods below, and calls the optional ones only when the backend
declared the matching capability.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from memory_bench.contract.items import Hit, Item, WriteResult

__all__ = ["Backend", "BackendContext", "ContractError", "NotSupportedError", "VectorSource"]


class NotSupportedError(NotImplementedError):
    """Raised by an optional method the backend does not implement."""


class ContractError(RuntimeError):
    """The backend answered outside the contract (wrong count, wrong types, wrong ids)."""


@dataclass(frozen=True)
class BackendContext:
    """What the harness hands a factory besides the backend's own options.

    ``workdir`` is an empty directory owned by this (backend, seed) pair: an
    embedded store belongs there unless the user pointed the backend elsewhere.
    ``cache_dir`` is shared by every pair and every run (an embedding cache may
    live there); None means caching is switched off.
    ``read_only``: the harness will only ``count`` (its check of a live store before
    a run, which may refuse the run): write nothing to the store, not even on
    ``close``, so a refused run leaves a user's store exactly as it was.
    """

    workdir: Path
    seed: int
    run_id: str
    cache_dir: Path | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    # Encode once: embedder identity -> directory of the run's vector table for this seed
    # (empty when the run encodes per backend); an embedder opens its identity's table.
    vectors: dict[str, str] = field(default_factory=dict)
    # What the backend reports of its own run, JSON-able, read when the pair ends (an
    # embedder's table hits and misses): the pair's result records it.
    report: dict[str, Any] = field(default_factory=dict)
    read_only: bool = False


class VectorSource(Protocol):
    """What ``registry.add(vectors=...)`` returns for a configured backend: the embedder
    identity (model, runtime, quantisation) it reads vectors with, and the build of
    the run's table for one seed. Every backend of one identity reads one table."""

    identity: str
    label: str  # short, for people: "all-MiniLM-L6-v2 onnx"

    def build(self, texts: Sequence[str], questions: Sequence[str], dest: Path,
              cache_dir: Path | None = None) -> dict[str, Any]:
        """Encode ``texts`` (batched) and ``questions`` (one at a time, timed) into a new
        table at ``dest``; JSON-able facts about the encoder (rates, per-question ms)."""
        ...

    # Optional: ``extra_texts(items) -> Sequence[str]``, the texts beyond the items' own
    # that the backend will encode from what it is written (graphiti's entity names);
    # the table of its identity holds them too, so they are not misses.


@runtime_checkable
class Backend(Protocol):
    """A memory under test.

    Required: ``write``, ``query``, ``remove``, ``count``, ``close``.
    Optional, called only with the matching capability: ``strength``
    (``strength``), ``consolidate`` (``consolidate``) and ``forget``
    (``forget``); a backend without them may raise :class:`NotSupportedError`.
    """

    def write(self, items: Sequence[Item]) -> list[WriteResult]:
        """Store items in order; one WriteResult per item, in the same order.

        A backend without the ``gate`` capability accepts every item. An id written
        again replaces the stored item: its new text is what the id is found by.
        """
        ...

    def query(self, text: str, k: int) -> list[Hit]:
        """The top-``k`` hits for a natural-language question, best first."""
        ...

    def strength(self, ids: Sequence[str]) -> list[float | None]:
        """Current strength of each item id (None for an unknown id)."""
        ...

    def consolidate(self) -> dict[str, Any]:
        """Run the backend's sleep; return a JSON-able report of what it did."""
        ...

    def forget(self, ids: Sequence[str] = (), source: str | None = None,
               prefix: str = "") -> int:
        """Forget the items with these ids and, when ``source`` is given, every item
        of that source whose id starts with ``prefix``; return how many were forgotten.

        The harness passes its pair's prefix, so a user's own items in a live store
        are never touched. A forgotten item is never returned or counted again; an
        unknown id is no error (it counts 0).
        """
        ...

    def remove(self, prefix: str) -> int:
        """Remove every item whose id starts with ``prefix``; return how many."""
        ...

    def count(self, prefix: str) -> int:
        """How many stored items have an id starting with ``prefix``."""
        ...

    def close(self) -> None:
        """Release files, connections and threads. Called exactly once."""
        ...
