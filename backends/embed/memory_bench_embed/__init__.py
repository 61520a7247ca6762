"""memory-bench-embed: the frozen embedding model every embedding backend shares.

A backend that embeds with this package uses the same model, runtime and cache
as every other embedding row, so its latency and ingest figures compare like
with like. The public API:

- :func:`embedding_options`: the options to declare (``model``, ``runtime``,
  ``cache``, ``cache_queries``, ``threads``, ``batch_size``), with one meaning
  everywhere;
- :func:`embedder_from_options`: in the factory, an :class:`Embedder` over the
  process's loaded model and the run's cache (``ctx.cache_dir``);
- :func:`preload`: for ``registry.add(preload=...)``: loads the model once in
  the harness before it forks a process per pair (it never runs the model);
- :func:`shared_vectors`: for ``registry.add(vectors=...)``: the embedder identity a
  backend reads the run's vector table with, and how the harness builds it
  (encode once per run, ``encode_once.py``);
- :func:`backend_manifest` and :data:`LIBRARIES`: for ``registry.add(manifest=...,
  libraries=...)``, so the result names the model and its library versions.

Importing this package is light (numpy and sqlite3). The default runtime,
``onnx``, loads onnxruntime and tokenizers and never imports torch (except once
ever, in a subprocess, to export the model); ``runtime=torch`` loads torch and
sentence-transformers with the first model.
"""

from __future__ import annotations

from memory_bench_embed.cache import EmbeddingCache
from memory_bench_embed.embedder import DEFAULT_RUNTIME, Embedder, get_embedder
from memory_bench_embed.encode_once import SharedVectors, shared_vectors
from memory_bench_embed.export import RUNTIMES, exported_model, models_dir
from memory_bench_embed.model import (
    DEFAULT_MODEL,
    load_model,
    model_manifest,
    ran_inference_here,
    resolve_model,
)
from memory_bench_embed.options import (
    LIBRARIES,
    backend_manifest,
    embedder_from_options,
    embedding_options,
    preload,
)
from memory_bench_embed.runtime import no_telemetry
from memory_bench_embed.table import VectorTable

# Before any library imports onnxruntime (chromadb does too): its telemetry off.
no_telemetry()

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_MODEL",
    "DEFAULT_RUNTIME",
    "LIBRARIES",
    "RUNTIMES",
    "Embedder",
    "EmbeddingCache",
    "SharedVectors",
    "VectorTable",
    "__version__",
    "backend_manifest",
    "embedder_from_options",
    "embedding_options",
    "exported_model",
    "get_embedder",
    "load_model",
    "model_manifest",
    "models_dir",
    "preload",
    "ran_inference_here",
    "resolve_model",
    "shared_vectors",
]
