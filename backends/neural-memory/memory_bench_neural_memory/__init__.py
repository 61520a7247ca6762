"""memory-bench backend: a Titans-style neural memory that learns at test time."""

from __future__ import annotations

__version__ = "0.1.0"
