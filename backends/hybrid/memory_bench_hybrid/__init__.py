"""memory-bench backend: lexical (BM25) and dense retrieval fused into one ranking."""

from __future__ import annotations

__version__ = "0.1.0"
