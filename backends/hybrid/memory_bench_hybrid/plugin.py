"""Registers ``hybrid``. Light on purpose: bm25s, faiss and the model load in the factory."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memory_bench_bm25.plugin import OPTIONS as BM25_OPTIONS
from memory_bench_embed import LIBRARIES, backend_manifest, embedding_options, shared_vectors

from memory_bench import Capability, Option, hookimpl
from memory_bench_hybrid import __version__

if TYPE_CHECKING:
    from memory_bench import BackendContext, BackendRegistry
    from memory_bench_hybrid.backend import Hybrid

__all__ = ["FUSION_OPTIONS", "HYBRID_LIBRARIES", "build_hybrid",
           "memory_bench_register_backends"]

HYBRID_LIBRARIES = (*LIBRARIES, "faiss-cpu", "bm25s", "PyStemmer")

FUSION_OPTIONS = [
    Option("fusion", str, "rrf",
           "rrf = reciprocal rank fusion, sum of 1/(k + rank); weighted = min-max normalised "
           "scores, weight * dense + (1 - weight) * bm25", choices=("rrf", "weighted")),
    Option("k", int, 60, "RRF rank constant (60 as in Cormack et al. 2009)",
           minimum=1, maximum=10_000),
    Option("weight", float, 0.5, "fusion=weighted: the dense side's share",
           minimum=0.0, maximum=1.0),
    Option("depth", int, 50, "candidates taken from each side before fusing (at least k)",
           minimum=1, maximum=10_000),
    Option("recency_weight", float, 0.0,
           "0 = off; else fused score (0-1) + weight * 0.5**(age/half_life), as "
           "faiss-rag-recency adds it to the cosine", minimum=0.0, maximum=10.0),
    Option("half_life_hours", float, 1.0,
           "hours of logical time after which the recency term halves",
           minimum=1e-6, maximum=1e6),
]

_NOTES = [
    "the two sides are the bm25 row (bm25s, Lucene BM25, Snowball stemming) and the faiss-rag "
    "row (MiniLM, exact cosine, the shared embedding cache): the row differs by fusion alone",
    "each query takes the depth best of each side and fuses them; an item one side did not "
    "return gets nothing from that side",
    "query latency includes encoding the question and the BM25 scoring of every stored item",
    "ingest_items_per_s includes encoding only for texts not already in the embedding cache",
    "recency (off unless recency_weight > 0): 'now' is the newest timestamp written; the "
    "bonus reorders the fused candidates, it does not search past them",
    "no gate, no strength, no consolidation; in-memory, one store per (backend, seed) pair",
]


def build_hybrid(options: dict[str, Any], ctx: BackendContext) -> Hybrid:
    """A Hybrid over its own faiss-rag and bm25 stores, from resolved options."""
    # Heavy imports happen here, when a backend is created.
    from memory_bench_bm25.backend import BM25Backend
    from memory_bench_embed import embedder_from_options
    from memory_bench_faiss_rag.backend import FaissRag
    from memory_bench_faiss_rag.index import VectorIndex
    from memory_bench_faiss_rag.recency import RecencyScorer

    from memory_bench_hybrid.backend import Hybrid

    embedder = embedder_from_options(options, ctx)
    dense = FaissRag(embedder, VectorIndex(embedder.dim))
    weight = options["recency_weight"]
    recency = RecencyScorer(weight, options["half_life_hours"]) if weight > 0 else None
    return Hybrid(dense, BM25Backend(options, ctx), fusion=options["fusion"], k=options["k"],
                  weight=options["weight"], depth=options["depth"], recency=recency)


def preload_hybrid(options: dict[str, Any], cache_dir: Any) -> None:
    """Before the harness forks a process per pair: the model and heavy imports, once."""
    from memory_bench_embed import preload

    preload(options, "memory_bench_hybrid.backend", "memory_bench_faiss_rag.index")


@hookimpl
def memory_bench_register_backends(registry: BackendRegistry) -> None:
    registry.add(
        "hybrid",
        kind="baseline",
        factory=build_hybrid,
        preload=preload_hybrid,
        manifest=backend_manifest,
        libraries=HYBRID_LIBRARIES,
        description="BM25 (bm25s) and dense cosine (the shared MiniLM embedder) fused by "
        "reciprocal rank, or by min-max normalised scores; docstore keeps provenance",
        version=__version__,
        capabilities=[Capability.PROVENANCE, Capability.FORGET],
        vectors=shared_vectors,  # its dense side reads the run's shared vector table
        options=[*embedding_options(), *BM25_OPTIONS, *FUSION_OPTIONS],
        notes=_NOTES,
    )
