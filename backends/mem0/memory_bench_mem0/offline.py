"""Opening mem0's ``Memory`` offline, with telemetry off, writing only where we say.

mem0 reads ``MEM0_TELEMETRY`` and ``MEM0_DIR`` once, when it is first
imported: with telemetry on it resolves outside hosts and adds become about
13x slower, and on import it writes a ``config.json`` with a random user id
into ``MEM0_DIR`` (``~/.mem0`` by default). So both are set before the first
import: telemetry off always, ``MEM0_DIR`` in the pair's workdir, never the
user's home. If mem0 was already imported with telemetry on, opening refuses.

The configuration is mem0's store-only mode: the shared embedder (default) or
mem0's own ``huggingface`` embedder on a local model directory, a ``faiss``
(default) or local ``qdrant`` store in the store directory, the history
database beside it, and an ``openai`` LLM entry with a dummy key: mem0 builds
the client eagerly but never calls it with ``infer=False``, and a test proves
nothing connects anywhere. ``scoring=hybrid`` gives mem0 the checked spaCy
model and, on faiss, a BM25 keyword search (``keyword.py``); ``scoring=store``
leaves both out, as when spaCy is not installed.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import Any

__all__ = ["HEAVY_MODULES", "memory_config", "open_memory"]

# Imported by the harness before it forks a process per pair (never mem0 itself:
# importing it writes MEM0_DIR, which must be the pair's).
HEAVY_MODULES = ("faiss", "qdrant_client", "openai", "sqlalchemy", "spacy", "bm25s")

# Warnings mem0 logs for what a row does on purpose (its notes say so): with
# scoring=store no spaCy, so no lemmas and no entity boosts, and no BM25 (mem0's
# FAISS store has none until keyword.py's is put in, which mem0 checks too early to
# see; qdrant's needs fastembed, whose model is on a hub); the reset that clears a
# pair's own store at the end.
_EXPECTED = ("spaCy is not installed", "does not support keyword search",
             "fastembed not installed", "Resetting all memories", "Resetting index")


class _Expected(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return not any(text in message for text in _EXPECTED)


def _import_mem0(home: Path) -> None:
    os.environ["MEM0_TELEMETRY"] = "False"
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    if "mem0" not in sys.modules:
        home.mkdir(parents=True, exist_ok=True)
        os.environ["MEM0_DIR"] = str(home)
    import mem0  # noqa: F401  (the import that reads the two variables)
    from mem0.memory import telemetry

    if telemetry.MEM0_TELEMETRY:
        raise RuntimeError("mem0 was imported with telemetry on before memory-bench could "
                           "switch it off; set MEM0_TELEMETRY=False in the environment")
    for name in ("mem0.utils.spacy_models", "mem0.memory.main", "mem0.vector_stores.qdrant",
                 "mem0.vector_stores.faiss"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, _Expected) for f in logger.filters):
            logger.addFilter(_Expected())


def memory_config(options: dict[str, Any], model_dir: str | None, store: Path, dim: int
                  ) -> dict[str, Any]:
    """mem0's configuration dict for store-only mode in ``store`` (no embedder entry when
    ``model_dir`` is None: the shared embedder is put in by :func:`open_memory`)."""
    collection = options["collection"]
    memory = options.get("mode") == "memory"  # absent: mem0 as shipped
    if options["store"] == "qdrant":
        vector_store = {"provider": "qdrant", "config": {
            "collection_name": collection, "embedding_model_dims": dim,
            "path": ":memory:" if memory else str(store / "qdrant"), "on_disk": not memory}}
    else:
        vector_store = {"provider": "faiss", "config": {
            "collection_name": collection, "embedding_model_dims": dim,
            "path": str(store / "faiss"), "distance_strategy": "cosine"}}
    config: dict[str, Any] = {
        "vector_store": vector_store,
        # Built eagerly by mem0, never called with infer=False: a dummy key, no network.
        "llm": {"provider": "openai", "config": {"api_key": "memory-bench-offline-never-called"}},
        "history_db_path": ":memory:" if memory else str(store / "history.db"),
    }
    if model_dir is not None:
        config["embedder"] = {"provider": "huggingface",
                              "config": {"model": model_dir, "embedding_dims": dim}}
    return config


def open_memory(options: dict[str, Any], store: Path, home: Path, *, dim: int,
                model_dir: str | None = None, embedder: Any = None) -> Any:
    """A mem0 ``Memory`` on ``store``; mem0's own files go to ``home``. ``embedder`` (the
    shared one) or ``model_dir`` (mem0's huggingface embedder) gives the vectors."""
    _import_mem0(home)
    from mem0 import Memory
    from mem0.configs.base import MemoryConfig

    from memory_bench_mem0.spacy_model import no_spacy, use_spacy

    hybrid = options["scoring"] == "hybrid"
    if hybrid and options["store"] == "qdrant":
        raise ValueError("mem0:store=qdrant has no offline BM25 (mem0's Qdrant keyword search "
                         "needs fastembed's Qdrant/bm25 files from a model hub): use "
                         "scoring=store with it")
    if hybrid:
        use_spacy()
    else:
        no_spacy()
    if model_dir is not None:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # "Loading weights" each pair: noise, under --quiet too
    store.mkdir(parents=True, exist_ok=True)
    config = memory_config(options, model_dir, store, dim)
    if embedder is not None:
        from memory_bench_mem0.embedder import embedder_config

        config["embedder"] = embedder_config(embedder)
    memory = Memory(MemoryConfig(**config))
    if hybrid:
        from memory_bench_mem0.keyword import KeywordFAISS

        memory.vector_store = KeywordFAISS(**memory.config.vector_store.config.model_dump())
    if options.get("mode") == "memory" and options["store"] == "faiss":
        # mem0's FAISS store writes its index and docstore after every change unless it
        # has no path: in memory, the store keeps them in the process only
        memory.vector_store.path = None
    return memory
