"""The run's vector table: each distinct text encoded once, read by every pair.

Encoding is most of what an embedding row costs (MiniLM on a CPU), and every
embedding backend of one embedder identity (model, runtime, quantisation)
would encode the same texts again. So the harness asks this package to encode
a seed's distinct texts once, in real batches, into a directory of three files:

- ``keys.npy``: sha256 of each text (``S32``), sorted, so a lookup is a binary search;
- ``vectors.npy``: float32 rows in the same order, memory-mapped by each reader;
- ``table.json``: the identity the vectors belong to, and what encoding them cost.

A table is written once and never changed; a reader whose identity differs uses
none of it (every text is then a miss, and the embedder encodes it itself).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["VectorTable", "text_key"]

_META = "table.json"


def text_key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


class VectorTable:
    """A read-only text -> vector table; ``lookup`` counts hits and misses."""

    def __init__(self, path: Path, keys: np.ndarray, vectors: np.ndarray,
                 meta: dict[str, Any]) -> None:
        self.path = path
        self.keys = keys
        self.vectors = vectors
        self.meta = meta
        self.identity: str = meta["identity"]
        self.dim = int(vectors.shape[1])
        self.hits = 0
        self.misses = 0

    @staticmethod
    def write(dest: Path, texts: Sequence[str], vectors: np.ndarray,
              meta: dict[str, Any]) -> Path:
        """Write the table of ``texts`` (distinct) into the new directory ``dest``.

        The files go in under temporary names and are renamed last, so a reader
        never sees half a table."""
        dest.mkdir(parents=True, exist_ok=False)
        keys = np.array([text_key(t) for t in texts], dtype="S32")
        order = np.argsort(keys, kind="stable")
        keys = keys[order]
        if len(keys) > 1 and (keys[1:] == keys[:-1]).any():
            raise ValueError("a vector table's texts must be distinct")
        rows = np.ascontiguousarray(np.asarray(vectors, dtype=np.float32)[order])
        np.save(dest / "keys.tmp.npy", keys)
        np.save(dest / "vectors.tmp.npy", rows)
        (dest / "table.tmp.json").write_text(json.dumps(
            {**meta, "count": len(keys), "dim": int(rows.shape[1]) if rows.ndim == 2 else 0},
            sort_keys=True, indent=1))
        os.replace(dest / "keys.tmp.npy", dest / "keys.npy")
        os.replace(dest / "vectors.tmp.npy", dest / "vectors.npy")
        os.replace(dest / "table.tmp.json", dest / _META)
        return dest

    @classmethod
    def open(cls, path: Path) -> VectorTable:
        path = Path(path)
        meta = json.loads((path / _META).read_text())
        keys = np.load(path / "keys.npy", mmap_mode="r")
        vectors = np.load(path / "vectors.npy", mmap_mode="r")
        if vectors.ndim != 2 or len(vectors) != len(keys):
            raise ValueError(f"vector table {path.name}: {len(keys)} keys, "
                             f"vectors of shape {vectors.shape}")
        return cls(path, keys, vectors, meta)

    def __len__(self) -> int:
        return len(self.keys)

    def lookup(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """``(vectors, found)``: one row per text (zeros where not found) and a mask."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out, np.zeros(0, dtype=bool)
        want = np.array([text_key(t) for t in texts], dtype="S32")
        at = np.searchsorted(self.keys, want)
        at = np.minimum(at, max(len(self.keys) - 1, 0))
        found = (self.keys[at] == want) if len(self.keys) else np.zeros(len(texts), bool)
        out[found] = self.vectors[at[found]]
        n = int(found.sum())
        self.hits += n
        self.misses += len(texts) - n
        return out, found

    def stats(self) -> dict[str, Any]:
        """What the pair's result records: the table's identity, its hits and misses."""
        return {"identity": self.identity, "rows": len(self), "hits": self.hits,
                "misses": self.misses}
