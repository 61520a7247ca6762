"""The shared frozen embedder: L2-normalised float32 vectors from one model, cached.

One runtime (``runtime.py``: torch, onnx or onnx-int8) is shared per process;
each backend gets its own light :class:`Embedder` over it (own cache
connection, own counters).

The cache is content-addressed: sha256(model name, weights hash, numerics,
text) -> vector, where torch and onnx share the numerics ``fp32`` (their
vectors agree to float32 noise) and onnx-int8 has its own (its vectors
differ). A cached vector is the float32 vector the model produced for that
text. Texts are encoded in buckets of equal token length (no padding), so a
text's vector does not depend on which other texts were encoded with it; what
remains (a few 1e-7 from BLAS kernel choice, measured) cannot change a ranking
unless two scores tie to 1e-7, and the tests check that a cached run gives
identical metrics.

Query vectors are not cached unless asked (``cache_queries``): a cache hit
would drop the model's encode time from the query latency, so the backend that
runs first on a seed would look slower than the ones after it.

With a run's vector table (``table.py``, encode-once), every text is looked up
there first, queries too: the model runs only for a miss, which is counted.
The query latency a pair records is then the store's own (plus a lookup), and
the encoder's per-question time is measured once per identity by the harness.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from memory_bench_embed.cache import EmbeddingCache
from memory_bench_embed.model import DEFAULT_MODEL, cache_key
from memory_bench_embed.runtime import Runtime, open_runtime, resolve_runtime
from memory_bench_embed.table import VectorTable

__all__ = ["Embedder", "get_embedder"]


DEFAULT_RUNTIME = "onnx"


class Embedder:
    """A frozen sentence-transformers model producing L2-normalised float32 vectors.

    ``encode`` is for stored texts and uses the cache when there is one;
    ``encode_query`` uses it only with ``cache_queries`` (see the module doc).
    ``stats`` counts model encodes, cache hits and the seconds spent in the
    model, so a report can say where the time went.
    """

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        cache_dir: Path | None = None,
        cache_queries: bool = False,
        batch_size: int = 64,
        threads: int | None = 1,
        runtime: str = DEFAULT_RUNTIME,
        table: VectorTable | None = None,
    ) -> None:
        runtime = resolve_runtime(runtime)  # auto: as this machine runs it
        self.rt: Runtime = open_runtime(runtime, model, threads)
        self.name = model
        self.runtime = runtime
        self.path = self.rt.model_path
        self.weights_sha256 = self.rt.weights_sha256
        self.dim = self.rt.dim
        self.key = cache_key(model, self.weights_sha256 or self.path, self.dim, self.rt.numerics)
        # What a vector table must have been built by: the model and its numerics (the
        # cache key), and the runtime by name (torch and onnx agree only to float32 noise).
        self.identity = f"{self.key}|{runtime}"
        self.batch_size = batch_size
        self.threads = threads
        self.cache_queries = cache_queries
        self.cache = EmbeddingCache(Path(cache_dir) / "embeddings.sqlite3") if cache_dir else None
        self.stats: dict[str, float] = {
            "encoded": 0,
            "cache_hits": 0,
            "encode_s": 0.0,
            "queries": 0,
            "query_encode_s": 0.0,
            "table_hits": 0,
            "table_misses": 0,
        }
        self.table: VectorTable | None = None
        self.table_refused: str | None = None
        if table is not None:
            if table.identity == self.identity and table.dim == self.dim:
                self.table = table
            else:  # another embedder's vectors: never used, every text is a miss
                self.table_refused = table.identity

    def manifest(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "weights_sha256": self.weights_sha256,
            "dim": self.dim,
            "cache": self.cache is not None,
            "cache_queries": self.cache_queries,
            "vector_table": self.table is not None,
            **self.rt.manifest(),
        }

    def _encode_model(self, texts: Sequence[str]) -> np.ndarray:
        """Run the model over ``texts``, one bucket per token length (no padding)."""
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        buckets: dict[int, list[int]] = {}
        start = time.perf_counter()
        lengths = self.rt.token_lengths(texts) if len(texts) > 1 else [0]
        for i, n in enumerate(lengths):
            buckets.setdefault(n, []).append(i)
        for idx in buckets.values():
            out[idx] = self.rt.encode_bucket([texts[i] for i in idx], self.batch_size)
        self.stats["encode_s"] += time.perf_counter() - start
        self.stats["encoded"] += len(texts)
        return out

    def encode(self, texts: Sequence[str], *, use_cache: bool = True) -> np.ndarray:
        """Vectors for ``texts``, shape (len(texts), dim), rows L2-normalised."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self.table is None and self.table_refused is None:
            return self._encode_cached(texts, use_cache)
        if self.table is None:
            self.stats["table_misses"] += len(texts)
            return self._encode_cached(texts, use_cache)
        out, found = self.table.lookup(texts)
        hits = int(found.sum())
        self.stats["table_hits"] += hits
        if hits < len(texts):
            miss = np.flatnonzero(~found)
            self.stats["table_misses"] += len(miss)
            out[miss] = self._encode_cached([texts[i] for i in miss], use_cache)
        return out

    def _encode_cached(self, texts: Sequence[str], use_cache: bool) -> np.ndarray:
        if self.cache is None or not use_cache:
            return self._encode_model(texts)
        keys = [EmbeddingCache.key(self.key, t) for t in texts]
        found = self.cache.get_many(keys, self.dim)
        missing: dict[bytes, str] = {}  # each distinct missing text once
        for k, t in zip(keys, texts, strict=True):
            if k not in found:
                missing.setdefault(k, t)
        if missing:
            fresh = dict(zip(missing, self._encode_model(list(missing.values())), strict=True))
            self.cache.put_many(list(fresh.items()))
            found.update(fresh)
        self.stats["cache_hits"] += sum(1 for k in keys if k not in missing)
        return np.stack([found[k] for k in keys]).astype(np.float32, copy=False)

    def encode_query(self, text: str) -> np.ndarray:
        """One query vector; cached only when ``cache_queries`` is set."""
        start = time.perf_counter()
        vec = self.encode([text], use_cache=self.cache_queries)[0]
        self.stats["queries"] += 1
        self.stats["query_encode_s"] += time.perf_counter() - start
        return vec

    def encode_one(self, text: str) -> np.ndarray:
        return self.encode([text])[0]

    def close(self) -> None:
        if self.cache is not None:
            self.cache.close()
            self.cache = None


def get_embedder(
    model: str = DEFAULT_MODEL,
    *,
    cache_dir: Path | None = None,
    cache_queries: bool = False,
    threads: int | None = 1,
    runtime: str = DEFAULT_RUNTIME,
) -> Embedder:
    """An Embedder over the process-wide runtime for ``model``; the caller closes it."""
    return Embedder(model, cache_dir=cache_dir, cache_queries=cache_queries, threads=threads,
                    runtime=runtime)
