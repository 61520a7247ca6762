"""memory-bench baseline: chromadb over the shared frozen embedder."""

from __future__ import annotations

__version__ = "0.1.0"
