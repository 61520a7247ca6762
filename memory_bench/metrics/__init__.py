"""Metrics as declared data: the declaration, reusable computations, and the
continual protocol's metric set."""

from __future__ import annotations

from memory_bench.metrics.spec import Metric, MetricSpec, RecordView, declare

__all__ = ["Metric", "MetricSpec", "RecordView", "declare"]
