"""faiss-rag and faiss-rag-recency end to end on the smoke scenario, via the runner."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memory_bench.harness.runner import RunConfig
from memory_bench.plugins.manager import default_plugins
from memory_bench.plugins.selection import select_backends
from memory_bench.results.model import Result
from memory_bench.scenarios.spec import load_scenario
from memory_bench.session.pipeline import execute

pytestmark = pytest.mark.slow

SPECS = ["faiss-rag", "faiss-rag-recency", "faiss-rag:index=hnsw", "faiss-rag:supersede=tags"]
from memory_bench.metrics.latency import TIMINGS as TIMING  # noqa: E402


def _run(tmp_path: Path, name: str, specs: list[str], cache_dir: Path | None) -> dict[str, Any]:
    cfg = RunConfig(
        plugins=default_plugins(),
        selections=select_backends(default_plugins().registry, specs),
        scenario=load_scenario("smoke"),
        seeds=[0, 1],
        out=tmp_path / f"{name}.json",
        executor="local",  # in-process: this test is not about isolation
        cache_dir=cache_dir,
    )
    return execute(cfg)


def _quality(result: Result) -> dict[str, Any]:
    """Every metric but timings, and every probe's returned ids and scores."""
    out = {}
    run_id = result.run_id
    for b in result.backends:
        for run in b.runs:
            m = {k: v for k, v in run.metrics.items() if k not in TIMING}
            probes = [
                ([i.replace(run_id, "RUN") for i in p.returned], p.scores)
                for p in run.records.probes
            ]
            out[(b.label, run.seed)] = (m, probes)
    return out


def test_smoke_scenario_end_to_end(tmp_path: Path) -> None:
    result = _run(tmp_path, "r", SPECS, tmp_path / "cache")
    assert result.status == "complete"
    for b in result.backends:
        assert b.capabilities == ["forget", "provenance"]
        for run in b.runs:
            assert run.status == "ok", run.error
            assert run.cleanup.ok and run.cleanup.left == 0
            m = run.metrics
            assert m["recall1_before"] >= 0.75 and m["recall5_before"] == 1.0
            assert m["provenanceAccuracy"] == 1.0
            # Not supported: null, never a silent 0.
            for name in ("gateRecall", "falseRefusals", "strengthDelta"):
                assert m[name] is None
            assert m["latency_p50_ms"] > 0
            if "supersede=tags" in b.label:
                # The old version is hidden from search as soon as the new one is written.
                assert m["staleRate"] == 0.0 and m["updateWinRate"] == 1.0
            else:
                # A vector store never erases: the old value stays findable.
                assert m["staleRate"] == 1.0


def test_a_cached_run_gives_identical_metrics(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cold = _run(tmp_path, "cold", SPECS[:2], cache)
    warm = _run(tmp_path, "warm", SPECS[:2], cache)  # every stored text is a cache hit now
    off = _run(tmp_path, "off", SPECS[:2], None)
    assert _quality(cold) == _quality(warm) == _quality(off)
