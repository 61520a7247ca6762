"""Registers ``qdrant``. qdrant-client and torch are imported by the factory only."""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path
from typing import Any

from memory_bench_embed import LIBRARIES, backend_manifest, embedding_options, shared_vectors

from memory_bench import BackendContext, Capability, Option, hookimpl
from memory_bench_qdrant import __version__

__all__ = ["memory_bench_register_backends"]


_META_LIMIT = 16 << 20  # a local store's meta.json holds collection configs: a few KiB


def _meta_problem(meta: Path) -> str | None:
    """Why ``meta.json`` is not a Qdrant local store's, read only (qdrant-client
    writes ``{"collections": {name: config}, "aliases": {alias: name}}`` and opens
    anything else only to fail with a KeyError after the run has started)."""
    try:
        if meta.stat().st_size > _META_LIMIT:
            return f"holds a meta.json larger than {_META_LIMIT >> 20} MiB"
        doc = json.loads(meta.read_bytes())
    except (OSError, ValueError, RecursionError) as exc:
        return f"holds a meta.json that cannot be read as JSON ({type(exc).__name__})"
    doc = doc if isinstance(doc, dict) else {}
    collections, aliases = doc.get("collections"), doc.get("aliases")
    indexes = doc.get("text_indexes", {})
    if (not isinstance(collections, dict) or not isinstance(aliases, dict)
            or not all(isinstance(c, dict) for c in collections.values())
            or not all(isinstance(a, str) for a in aliases.values())
            or not isinstance(indexes, dict) or not set(indexes) <= set(collections)):
        return ("holds a meta.json that is not a Qdrant local store's (expected its "
                "collections and aliases): give a new or empty directory, or a Qdrant local "
                "store")
    return None


def _store_path(value: str) -> str | None:
    """A local store is new, empty or a Qdrant local store: never a directory of the
    user's other files. Checked before anything is written, touching nothing."""
    path = Path(value).expanduser()
    if not path.exists():
        return None
    if not path.is_dir():
        return "is a file, not a store directory"
    if (path / "meta.json").is_file():
        return _meta_problem(path / "meta.json")
    if not any(path.iterdir()):
        return None
    return "holds files but no Qdrant local store (no meta.json): give a new or empty directory"


# a store that outlives the pair (a directory, a server) is the persistent mode's
_PERSISTENT = {"mode": "persistent"}


def _options() -> list[Option]:
    return [
        *embedding_options(),
        Option("mode", str, "memory",
               "memory = qdrant-client's in-memory local mode (location=':memory:'), nothing "
               "on disk: the store's own cost; persistent = its on-disk local mode (in the "
               "pair's workdir or path=) or a server (url=), a store that reopens",
               choices=("memory", "persistent"),
               grants={"persistent": (Capability.PERSISTENT.value,)}),
        Option("path", str, None, "persistent local mode: store directory (default: the "
               "pair's own workdir)", check=_store_path, requires=_PERSISTENT),
        Option("url", str, None, "server mode: a Qdrant server's URL (e.g. "
               "http://127.0.0.1:6333)", requires=_PERSISTENT),
        Option("collection", str, "memory-bench", "collection name"),
        Option("hnsw_m", int, 32, "server mode: HNSW neighbours per node (Qdrant default 16)",
               minimum=4, maximum=256),
        Option("ef_construct", int, 200, "server mode: HNSW build beam width (Qdrant default "
               "100)", minimum=8, maximum=4096),
        Option("hnsw_ef", int, 128, "server mode: HNSW search beam width", minimum=8,
               maximum=4096),
    ]


def _open_client(options: dict[str, Any], ctx: BackendContext) -> Any:
    from qdrant_client import QdrantClient

    if options["mode"] == "memory":  # path= and url= need mode=persistent (checked before)
        return QdrantClient(location=":memory:")
    if options["url"]:
        return QdrantClient(url=options["url"])
    path = Path(options["path"]).expanduser() if options["path"] else ctx.workdir / "qdrant"
    path.mkdir(parents=True, exist_ok=True)
    return QdrantClient(path=str(path))


def _ensure_collection(client: Any, options: dict[str, Any], dim: int) -> None:
    from qdrant_client import models

    from memory_bench_qdrant.backend import PREFIXES

    name = options["collection"]
    if client.collection_exists(name):
        return
    client.create_collection(
        name,
        vectors_config=models.VectorParams(size=dim, distance=models.Distance.COSINE),
        hnsw_config=models.HnswConfigDiff(m=options["hnsw_m"],
                                          ef_construct=options["ef_construct"]),
    )
    if options["url"]:  # local mode filters by scanning; a server wants the index
        client.create_payload_index(name, PREFIXES, models.PayloadSchemaType.KEYWORD)


def _factory(options: dict[str, Any], ctx: BackendContext) -> Any:
    # Heavy imports happen here, when a backend is created.
    from memory_bench_embed import embedder_from_options
    from qdrant_client import models

    from memory_bench_qdrant.backend import QdrantMemory

    client = _open_client(options, ctx)
    try:
        embedder = embedder_from_options(options, ctx)
        _ensure_collection(client, options, embedder.dim)
    except BaseException:
        client.close()
        raise
    params = models.SearchParams(hnsw_ef=options["hnsw_ef"]) if options["url"] else None
    return QdrantMemory(embedder, client, options["collection"], params)


def _own_store(options: dict[str, Any]) -> bool:
    """Each pair's own store (in memory, or on disk in its workdir), unless a directory
    or server is named."""
    return not options.get("path") and not options.get("url")


def _preload(options: dict[str, Any], cache_dir: Any) -> None:
    """Before the harness forks a process per pair: load the model and heavy imports once."""
    from memory_bench_embed import preload

    preload(options, "qdrant_client", "memory_bench_qdrant.backend")


def _installed(dist: str) -> str:
    """``dist X.Y`` as installed, read from its metadata (nothing is imported)."""
    try:
        return f"{dist} {metadata.version(dist)}"
    except metadata.PackageNotFoundError:
        return f"{dist} not installed"


@hookimpl
def memory_bench_register_backends(registry: Any) -> None:
    registry.add(
        "qdrant",
        kind="baseline",
        factory=_factory,
        preload=_preload,
        own_store=_own_store,
        manifest=backend_manifest,
        vectors=shared_vectors,
        libraries=(*LIBRARIES, "qdrant-client"),
        description=f"RAG baseline on Qdrant ({_installed('qdrant-client')}): local mode in the "
        "run's directory (or a Qdrant server), cosine, vectors from the shared frozen embedder",
        version=__version__,
        # persistent with mode=persistent (the option grants it): in memory nothing reopens
        capabilities=[Capability.PROVENANCE, Capability.FORGET],
        options=_options(),
        notes=[
            "frozen embedder (all-MiniLM-L6-v2 by default) + Qdrant: no learning, no gate, "
            "no strength, no consolidation",
            "mode=memory (the default): qdrant-client's in-memory local mode, nothing written "
            "to disk; mode=persistent: its on-disk local mode (every upsert waits for its "
            "write) or a server (url=). Local mode either way is qdrant-client's own embedded "
            "store: exact cosine over every point, no HNSW; a server (url=) searches HNSW "
            "with m 32 / ef_construct 200 / ef 128",
            "provenance from the point payload: the source and timestamp written with each item",
            "query latency includes encoding the question with the frozen model "
            "(query vectors are not cached unless cache_queries=true)",
            "ingest_items_per_s includes encoding only for texts not already in the embedding "
            "cache (the first embedding backend on a seed pays it; compare ingest on a warm cache)",
            "remove/count by id prefix: a payload filter on every prefix of the item id "
            "(point ids are uuid5 of the item id)",
        ],
    )
