"""memory-bench row for Mem0 (store-only)."""

from __future__ import annotations

__version__ = "0.1.0"
