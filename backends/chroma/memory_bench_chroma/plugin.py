"""Registers ``chroma``. chromadb and torch are imported by the factory only."""

from __future__ import annotations

import secrets
import shutil
from pathlib import Path
from typing import Any

from memory_bench_embed import LIBRARIES, backend_manifest, embedding_options, shared_vectors

from memory_bench import BackendContext, Capability, Option, hookimpl
from memory_bench_chroma import __version__

__all__ = ["memory_bench_register_backends"]


def _store_path(value: str) -> str | None:
    """An embedded store is new, empty or a Chroma store: never a directory of the user's
    other files (chroma would write its database among them). Reads 16 bytes at most."""
    path = Path(value).expanduser()
    if not path.exists():
        return None
    if not path.is_dir():
        return "is a file, not a store directory"
    db = path / "chroma.sqlite3"
    if db.is_file():
        try:
            with db.open("rb") as fh:
                head = fh.read(16)
        except OSError as exc:
            return f"cannot be read: {exc.strerror or exc}"
        if head != b"SQLite format 3\0":
            return "holds a chroma.sqlite3 that is not a SQLite database: not a Chroma store"
        return None
    if not any(path.iterdir()):
        return None
    return ("holds files but no Chroma store (no chroma.sqlite3): give a new or empty "
            "directory")


# a store that outlives the pair (a directory, a server) is the persistent mode's
_PERSISTENT = {"mode": "persistent"}


def _options() -> list[Option]:
    return [
        *embedding_options(),
        Option("mode", str, "memory",
               "memory = chromadb's EphemeralClient, nothing on disk: the store's own cost; "
               "persistent = its PersistentClient (in the pair's workdir or path=) or a "
               "server (host=), a store that reopens",
               choices=("memory", "persistent"),
               grants={"persistent": (Capability.PERSISTENT.value,)}),
        Option("path", str, None, "embedded store directory (default: the pair's own workdir)",
               check=_store_path,
               requires=_PERSISTENT),
        Option("host", str, None, "server mode: chroma server host (e.g. 127.0.0.1)",
               requires=_PERSISTENT),
        Option("port", int, 8000, "server mode: chroma server port", minimum=1, maximum=65535),
        Option("collection", str, "memory-bench", "collection name"),
        Option("ef_construction", int, 200, "HNSW build beam width (chroma default 100)",
               minimum=8, maximum=4096),
        Option("ef_search", int, 128, "HNSW search beam width (chroma default 100)",
               minimum=8, maximum=4096),
        Option("max_neighbors", int, 32, "HNSW neighbours per node (chroma default 16)",
               minimum=4, maximum=256),
    ]


def _factory(options: dict[str, Any], ctx: BackendContext) -> Any:
    # Heavy imports happen here, when a backend is created.
    from memory_bench_embed import embedder_from_options

    from memory_bench_chroma.backend import ChromaMemory
    from memory_bench_chroma.client import open_client

    memory = options["mode"] == "memory"  # path= and host= need mode=persistent
    # one store per process in memory: a collection of this backend's own, dropped on close
    name = f"{options['collection']}-{secrets.token_hex(6)}" if memory else options["collection"]
    path = Path(options["path"]).expanduser() if options["path"] else ctx.workdir / "chroma"
    if getattr(ctx, "read_only", False) and options["path"] and path.is_dir():
        # The harness only counts (its store check before a run, which may refuse the
        # run): chroma writes its files on open and close, so it counts on a copy in
        # the check's scratch workdir and the user's directory is only read.
        path = Path(shutil.copytree(path, ctx.workdir / "chroma-read-only", symlinks=True))
    client = open_client(path=path, host=options["host"], port=options["port"], memory=memory)
    try:
        collection = client.get_or_create_collection(
            name,
            embedding_function=None,  # never chroma's default: it downloads a model
            configuration={
                "hnsw": {
                    "space": "cosine",
                    "ef_construction": options["ef_construction"],
                    "ef_search": options["ef_search"],
                    "max_neighbors": options["max_neighbors"],
                }
            },
        )
        embedder = embedder_from_options(options, ctx)
    except BaseException:
        client.close()
        raise
    return ChromaMemory(embedder, client, collection, drop_on_close=memory)


def _own_store(options: dict[str, Any]) -> bool:
    """Each pair's embedded store in its workdir, unless a directory or server is named."""
    return not options.get("path") and not options.get("host")


def _preload(options: dict[str, Any], cache_dir: Any) -> None:
    """Before the harness forks a process per pair: load the model and heavy imports once.

    chromadb itself is imported here (about 2 s, which each pair paid before; it
    starts no thread), never a client: its Rust runtime's threads would not
    survive the fork.
    """
    from memory_bench_embed import preload

    from memory_bench_chroma.client import import_chromadb

    import_chromadb()
    preload(options, "memory_bench_chroma.backend")


@hookimpl
def memory_bench_register_backends(registry: Any) -> None:
    registry.add(
        "chroma",
        kind="baseline",
        factory=_factory,
        preload=_preload,
        own_store=_own_store,
        manifest=backend_manifest,
        vectors=shared_vectors,
        libraries=(*LIBRARIES, "chromadb"),
        description="RAG baseline on chromadb: EphemeralClient in memory (mode=persistent: "
        "embedded PersistentClient in the run's directory, or a chroma server), cosine HNSW, "
        "vectors from the shared frozen embedder",
        version=__version__,
        # persistent with mode=persistent (the option grants it): in memory nothing reopens
        capabilities=[Capability.PROVENANCE, Capability.FORGET],
        options=_options(),
        notes=[
            "frozen embedder (all-MiniLM-L6-v2 by default) + chromadb: no learning, no gate, "
            "no strength, no consolidation",
            "provenance from chroma metadata: the source and timestamp written with each item",
            "chroma's HNSW is approximate; ef_search 128 / ef_construction 200 / M 32 here "
            "instead of chroma's defaults (100/100/16)",
            "query latency includes encoding the question with the frozen model "
            "(query vectors are not cached unless cache_queries=true)",
            "ingest_items_per_s includes encoding only for texts not already in the embedding "
            "cache (the first embedding backend on a seed pays it; compare ingest on a warm cache)",
            "remove/count by id prefix scan the collection's ids client-side "
            "(chroma has no id-prefix filter)",
        ],
    )
