"""Opening chromadb: ``EphemeralClient`` in memory, ``PersistentClient`` in a directory,
or a server.

Telemetry is switched off in the settings and in the environment before
chromadb is imported, and no collection ever gets chroma's default embedding
function (it downloads an ONNX model): vectors always come from the shared
memory-bench embedder.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

__all__ = ["import_chromadb", "open_client"]


def import_chromadb() -> Any:
    """chromadb, imported with telemetry off (the modules a client needs included)."""
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    import chromadb
    import chromadb.api.rust  # the embedded client's implementation

    return chromadb


def _settings() -> Any:
    import_chromadb()
    from chromadb.config import Settings

    return Settings(anonymized_telemetry=False, allow_reset=False)


def open_client(*, path: Path | None = None, host: str | None = None, port: int = 8000,
                memory: bool = False) -> Any:
    """A chromadb client: in memory (``memory``; every ephemeral client of a process shares
    one store, so the caller names its collection uniquely), HTTP to ``host:port`` when
    host is given, else embedded at ``path``."""
    settings = _settings()
    import chromadb

    if memory:
        return chromadb.EphemeralClient(settings=settings)
    if host:
        return chromadb.HttpClient(host=host, port=port, settings=settings)
    if path is None:
        raise ValueError("embedded chroma needs a path")
    path.mkdir(parents=True, exist_ok=True)
    return chromadb.PersistentClient(path=str(path), settings=settings)
