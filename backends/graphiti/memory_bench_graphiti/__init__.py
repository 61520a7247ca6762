"""memory-bench backend: Graphiti's temporal knowledge graph on embedded Kuzu, no LLM."""

from __future__ import annotations

__version__ = "0.1.0"
