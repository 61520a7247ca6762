"""The time-aware score of ``faiss-rag-recency``.

    score = cosine(query, item) + weight * 0.5 ** (age_hours / half_life_hours)
    age   = now - item.timestamp,   now = the newest timestamp written so far

This is LangChain's ``TimeWeightedVectorStoreRetriever`` score (similarity
plus ``(1 - decay_rate) ** hours_passed``) with the decay written as a
half-life and a weight on the recency term, as Generative Agents weights
recency against relevance. Two differences, both forced by the protocol:
the harness gives queries no clock, so "now" is the logical clock's latest
written timestamp rather than the wall clock; and age counts from when the
item was written, not from when it was last retrieved (LangChain refreshes
``last_accessed_at`` on every retrieval, which would reward items because
the benchmark asked about them).
"""

from __future__ import annotations

from datetime import datetime

import numpy as np

__all__ = ["RecencyScorer"]


class RecencyScorer:
    """Adds the decayed recency bonus, in [0, weight], to similarity scores."""

    def __init__(self, weight: float, half_life_hours: float) -> None:
        if weight < 0 or half_life_hours <= 0:
            raise ValueError("recency weight must be >= 0 and half-life > 0")
        self.weight = weight
        self.half_life_hours = half_life_hours

    def bonus(self, timestamps: list[datetime], now: datetime) -> np.ndarray:
        ages = np.array([(now - ts).total_seconds() / 3600.0 for ts in timestamps])
        ages = np.maximum(ages, 0.0)
        return self.weight * np.power(0.5, ages / self.half_life_hours)
