"""memory-bench backend: a first-stage retriever, then a cross-encoder over its top 50."""

from __future__ import annotations

__version__ = "0.1.0"
