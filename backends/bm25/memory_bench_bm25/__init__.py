"""memory-bench backend: BM25 over the item texts (bm25s), with a docstore for provenance."""

from __future__ import annotations

__version__ = "0.1.0"
