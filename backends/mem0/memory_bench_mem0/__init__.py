"""memory-bench row for Mem0 (store-only)."""

from __future__ import annotations

__version__ = "0.1.0"

# keyword.py's BM25 (Elasticsearch's defaults), here so the manifest needs no mem0 import.
BM25_K1 = 1.2
BM25_B = 0.75
