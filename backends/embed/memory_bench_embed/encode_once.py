"""Encode once per run: what the harness asks of an embedding backend's options.

``registry.add(vectors=shared_vectors)`` tells the harness which embedder identity
a configured backend reads (model, runtime, quantisation) and how to build the
run's vector table for it. The harness builds one table per identity and seed,
in a child process (inference before a fork is unsafe), and hands each pair the
tables of its seed (``BackendContext.vectors``); :func:`embedder_from_options`
opens the one of its identity.

Stored texts are encoded in real batches (buckets of equal token length, as the
embedder always does, so no padding enters a vector). Questions are encoded one
at a time, timed: that is the encoder's per-question latency at batch 1, which a
pair's query latency (the store's own, given the vector) no longer holds, and the
vectors are those a backend encoding its own queries would have made.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from memory_bench_embed.table import VectorTable

__all__ = ["SharedVectors", "shared_vectors"]


class SharedVectors:
    """One configured backend's embedder identity, and how to build its table."""

    def __init__(self, options: Mapping[str, Any]) -> None:
        self.options = dict(options)
        from memory_bench_embed.model import DEFAULT_MODEL, cache_key
        from memory_bench_embed.options import _runtime, _threads
        from memory_bench_embed.runtime import open_runtime

        self.model = self.options.get("model") or DEFAULT_MODEL
        self.runtime = _runtime(self.options)
        rt = open_runtime(self.runtime, self.model, _threads(self.options))  # no inference
        key = cache_key(self.model, rt.weights_sha256 or rt.model_path, rt.dim, rt.numerics)
        self.identity = f"{key}|{self.runtime}"
        self.label = f"{Path(self.model).name} {self.runtime}"

    def build(self, texts: Sequence[str], questions: Sequence[str], dest: Path,
              cache_dir: Path | None = None) -> dict[str, Any]:
        """Encode ``texts`` (batched) and ``questions`` (one at a time, timed) into a
        new table at ``dest``; returns what the result records about the encoder."""
        from memory_bench_embed.options import embedder_from_options

        ctx_cache = cache_dir if self.options.get("cache", True) else None
        emb = embedder_from_options(self.options, _Ctx(ctx_cache))
        emb.batch_size = max(32, emb.batch_size)
        qs = list(dict.fromkeys(questions))
        asked = set(qs)
        stored = [t for t in dict.fromkeys(texts) if t not in asked]
        try:
            t0 = time.perf_counter()
            item_vecs = emb.encode(stored)
            item_s = time.perf_counter() - t0
            query_vecs = np.zeros((len(qs), emb.dim), dtype=np.float32)
            query_ms: list[float] = []
            for i, q in enumerate(qs):
                t = time.perf_counter()
                query_vecs[i] = emb.encode([q], use_cache=False)[0]
                query_ms.append(round((time.perf_counter() - t) * 1000.0, 3))
        finally:
            emb.close()
        encoded = int(emb.stats["encoded"])
        meta = {
            "identity": self.identity, "label": self.label, "model": self.model,
            "runtime": self.runtime, "items": len(stored), "questions": len(qs),
            "items_encoded": encoded - len(qs), "item_encode_s": round(item_s, 6),
            "item_texts_per_s": round(len(stored) / item_s, 3) if item_s > 0 else None,
            "batch_size": emb.batch_size, "query_encode_ms": query_ms,
        }
        VectorTable.write(dest, [*stored, *qs], np.concatenate([item_vecs, query_vecs]), meta)
        return meta


class _Ctx:
    """The two fields of a BackendContext that ``embedder_from_options`` reads."""

    def __init__(self, cache_dir: Path | None) -> None:
        self.cache_dir = cache_dir
        self.vectors: dict[str, str] = {}
        self.report: dict[str, Any] | None = None


def shared_vectors(options: Mapping[str, Any]) -> SharedVectors:
    """For ``registry.add(vectors=...)``: the identity ``options`` encode with."""
    return SharedVectors(options)
