"""The embedding cache: sha256(model key, text) -> float32 vector, in one SQLite file.

Shared by backends, seeds and processes (WAL mode, ``INSERT OR IGNORE``): a text
encoded once by any embedding backend is never encoded again with the same model.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

__all__ = ["EmbeddingCache"]


class EmbeddingCache:
    """sha256(model key, text) -> float32 vector, in SQLite; safe across processes.

    The connection is opened lazily and once per process: the harness forks a
    child per (backend, seed) pair, and SQLite forbids using a connection
    opened before a fork in the child.
    """

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._pid = os.getpid()

    def _db(self) -> sqlite3.Connection:
        """This process's connection; call with ``self._lock`` held (see ``_own``)."""
        if self._conn is None:
            self._conn = sqlite3.connect(str(self.path), timeout=60, check_same_thread=False)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS vec (key BLOB PRIMARY KEY, v BLOB NOT NULL)"
            )
            self._conn.commit()
        return self._conn

    def _own(self) -> threading.Lock:
        """After a fork, drop the parent's connection and lock; return this process's lock."""
        if self._pid != os.getpid():
            self._lock = threading.Lock()
            self._conn = None
            self._pid = os.getpid()
        return self._lock

    @staticmethod
    def key(model_key: str, text: str) -> bytes:
        return hashlib.sha256(model_key.encode() + b"\0" + text.encode("utf-8")).digest()

    def get_many(self, keys: Sequence[bytes], dim: int) -> dict[bytes, np.ndarray]:
        found: dict[bytes, np.ndarray] = {}
        with self._own():
            for start in range(0, len(keys), 500):
                chunk = list(keys[start : start + 500])
                marks = ",".join("?" * len(chunk))
                rows = self._db().execute(f"SELECT key, v FROM vec WHERE key IN ({marks})", chunk)
                for k, v in rows:
                    vec = np.frombuffer(v, dtype=np.float32)
                    if vec.shape[0] == dim:
                        found[bytes(k)] = vec
        return found

    def put_many(self, pairs: Sequence[tuple[bytes, np.ndarray]]) -> None:
        rows = [(k, np.ascontiguousarray(v, dtype=np.float32).tobytes()) for k, v in pairs]
        with self._own():
            db = self._db()
            db.executemany("INSERT OR IGNORE INTO vec (key, v) VALUES (?, ?)", rows)
            db.commit()

    def close(self) -> None:
        with self._own():
            if self._conn is not None:
                self._conn.close()
            self._conn = None
