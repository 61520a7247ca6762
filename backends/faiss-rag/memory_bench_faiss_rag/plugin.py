"""Registers ``faiss-rag`` and ``faiss-rag-recency``.

Kept light on purpose: faiss, torch and sentence-transformers are imported by
the factories, never when backends are merely listed.
"""

from __future__ import annotations

from typing import Any

from memory_bench_embed import LIBRARIES, backend_manifest, embedding_options, shared_vectors

from memory_bench import BackendContext, Capability, Option, hookimpl
from memory_bench_faiss_rag import __version__

__all__ = ["build_store", "index_options", "memory_bench_register_backends", "recency_options"]

_CAPABILITIES = [Capability.PROVENANCE, Capability.FORGET]

_COMMON_NOTES = [
    "frozen embedder (all-MiniLM-L6-v2 by default) + faiss + docstore: no learning, no gate, "
    "no strength, no consolidation",
    "provenance comes from the docstore: the source and timestamp written with each item",
    "query latency includes encoding the question with the frozen model "
    "(query vectors are not cached unless cache_queries=true)",
    "ingest_items_per_s includes encoding only for texts not already in the embedding cache "
    "(the first embedding backend on a seed pays it; compare ingest on a warm cache)",
    "in-memory: the store lives for one (backend, seed) pair and is not persistent",
    "supersede=tags (off by default) hides an item once a newer one with the same "
    "subject:/relation: tags is written: the generator's keys, as rshl's supersede=auto uses "
    "(only on a structured scenario: the row is then marked [structured])",
    "gate=rules (off by default) refuses empty texts, texts under three words and exact "
    "duplicates of stored texts: the trivial rule gate, as a reference row for real gates",
]


def index_options() -> list[Option]:
    return [
        Option("index", str, "flat", "flat = exact IndexFlatIP; hnsw = IndexHNSWFlat",
               choices=("flat", "hnsw")),
        Option("hnsw_m", int, 32, "HNSW neighbours per node", minimum=4, maximum=256),
        Option("ef_construction", int, 200, "HNSW build beam width", minimum=8, maximum=4096),
        Option("ef_search", int, 128, "HNSW search beam width", minimum=8, maximum=4096),
        Option("supersede", str, "none",
               "tags = a newer item with the same subject:/relation: tags hides the older one "
               "from search (kept in the docstore)", choices=("none", "tags"),
               reads={"tags": ("tags",)}),
        Option("gate", str, "none",
               "rules = refuse empty, under 3 words and exact duplicates (a reference row)",
               choices=("none", "rules"), grants={"rules": ("gate",)}),
    ]


def recency_options() -> list[Option]:
    return [
        Option("recency_weight", float, 0.1,
               "weight of the recency term: score = cosine + weight * 0.5**(age/half_life)",
               minimum=0.0, maximum=10.0),
        Option("half_life_hours", float, 1.0,
               "hours of logical time after which the recency term halves",
               minimum=1e-6, maximum=1e6),
    ]


def build_store(options: dict[str, Any], ctx: BackendContext, *, recency: bool) -> Any:
    # Heavy imports happen here, when a backend is created.
    from memory_bench_embed import embedder_from_options

    from memory_bench_faiss_rag.backend import FaissRag
    from memory_bench_faiss_rag.index import VectorIndex
    from memory_bench_faiss_rag.recency import RecencyScorer

    embedder = embedder_from_options(options, ctx)
    index = VectorIndex(
        embedder.dim,
        kind=options["index"],
        hnsw_m=options["hnsw_m"],
        ef_construction=options["ef_construction"],
        ef_search=options["ef_search"],
        seed=ctx.seed,
    )
    scorer = (
        RecencyScorer(options["recency_weight"], options["half_life_hours"]) if recency else None
    )
    from memory_bench_faiss_rag.gate import RuleGate

    return FaissRag(embedder, index, scorer, supersede=options["supersede"] == "tags",
                    gate=RuleGate() if options["gate"] == "rules" else None)


def _faiss_rag(options: dict[str, Any], ctx: BackendContext) -> Any:
    return build_store(options, ctx, recency=False)


def _faiss_rag_recency(options: dict[str, Any], ctx: BackendContext) -> Any:
    return build_store(options, ctx, recency=True)


def _preload(options: dict[str, Any], cache_dir: Any) -> None:
    """Before the harness forks a process per pair: load the model and heavy imports once."""
    from memory_bench_embed import preload

    preload(options, 'memory_bench_faiss_rag.backend', 'memory_bench_faiss_rag.index')


@hookimpl
def memory_bench_register_backends(registry: Any) -> None:
    registry.add(
        "faiss-rag",
        kind="baseline",
        factory=_faiss_rag,
        preload=_preload,
        manifest=backend_manifest,
        vectors=shared_vectors,
        libraries=(*LIBRARIES, "faiss-cpu"),
        description="RAG baseline: frozen sentence embedder, faiss index, docstore with "
        "source and timestamp; ranks by cosine similarity",
        version=__version__,
        capabilities=_CAPABILITIES,
        options=[*embedding_options(), *index_options()],
        notes=_COMMON_NOTES,
    )
    registry.add(
        "faiss-rag-recency",
        kind="baseline",
        factory=_faiss_rag_recency,
        preload=_preload,
        manifest=backend_manifest,
        vectors=shared_vectors,
        libraries=(*LIBRARIES, "faiss-cpu"),
        description="faiss-rag with a time-aware score: cosine + weight * 0.5**(age/half_life), "
        "age on the logical clock",
        version=__version__,
        capabilities=_CAPABILITIES,
        options=[*embedding_options(), *index_options(), *recency_options()],
        notes=[
            *_COMMON_NOTES,
            "recency 'now' is the newest timestamp written (queries carry no clock); age counts "
            "from the write, not the last retrieval",
            "the recency term favours every newer item, noise included: it buys updateWinRate "
            "at some cost to recall of older facts",
            "recency defaults (weight 0.1, half-life 1 h on a one-minute-per-item clock) were "
            "tuned on default-scenario seeds 100-102, disjoint from the benchmark's seeds 0-4",
        ],
    )
