"""memory-bench baselines: a frozen embedder over a faiss index with a docstore."""

from __future__ import annotations

__version__ = "0.1.0"
