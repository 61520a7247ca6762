"""Workers by default (issue 38): ``--workers auto`` is the cores the process may use,
parallel pairs start longest row first, and the analysis spread over processes gives
the comparisons one process gives."""

from __future__ import annotations

import copy
import os
from types import SimpleNamespace
from typing import Any

import pytest
from constructed_results import backend, result

from memory_bench.analysis.compare import analyse
from memory_bench.arguments import MAX_WORKERS, _workers
from memory_bench.harness.executors import cost
from memory_bench.results.model import Result


def test_auto_is_the_cores_this_process_may_use(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 3, 5})
    assert cost.available_cores() == 3 and _workers("auto") == 3
    assert _workers("4") == 4

    def unavailable(pid: int) -> Any:
        raise OSError("no affinity here")

    monkeypatch.setattr(os, "sched_getaffinity", unavailable)
    monkeypatch.setattr(os, "cpu_count", lambda: 16)
    assert _workers("AUTO") == 16
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(MAX_WORKERS + 8)))
    assert _workers("auto") == MAX_WORKERS


def _job(label: str, seed: int) -> Any:
    name = label.split(":")[0]
    return SimpleNamespace(spec=SimpleNamespace(label=label, seed=seed),
                           selection=SimpleNamespace(info=SimpleNamespace(name=name)))


def test_the_longest_rows_start_first_in_seed_order() -> None:
    jobs = [_job(label, seed) for label in ("faiss-rag", "rerank", "qdrant", "rerank:depth=20",
                                            "mem0") for seed in (0, 1)]
    order = [(j.spec.label, j.spec.seed) for j in cost.longest_first(jobs)]
    assert order == [("rerank", 0), ("rerank", 1), ("rerank:depth=20", 0),
                     ("rerank:depth=20", 1), ("mem0", 0), ("mem0", 1), ("qdrant", 0),
                     ("qdrant", 1), ("faiss-rag", 0), ("faiss-rag", 1)]


def _four_rows() -> Result:
    # recall@1 of 1, 3/4, 1/2 and 1/4: some pairs ahead, some ties
    rows = [backend(f"b{i}", {}, outcomes={"recall1_before": [
        [float((q + s) % 4 >= i) for q in range(40)] for s in range(5)]})
        for i in range(4)]
    return result(*rows)


def test_the_analysis_on_several_processes_equals_one_process() -> None:
    one, many = _four_rows(), _four_rows()
    analyse(one)
    analyse(many, workers=3)
    a = [c.to_dict() for c in one.comparisons or []]
    b = [c.to_dict() for c in many.comparisons or []]
    assert len(a) == 6 * len(one.metrics) and a == b
    assert copy.deepcopy(one.analysis) == many.analysis
    assert {c["verdict"] for c in a if c["metric"] == "recall1_before"} == {"ahead"}
