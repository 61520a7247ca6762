"""Paired verdicts between backends of one run, on constructed results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from constructed_results import backend, result

from memory_bench.analysis.compare import analyse, ensure_analysis, paired_comparison
from memory_bench.metrics.continual import CONTINUAL_METRICS
from memory_bench.results.io import load_result, write_result

BY_NAME = {m.name: m.spec for m in CONTINUAL_METRICS}
R1 = BY_NAME["recall1_before"]


def _verdict(doc, a, b, metric):
    return next(c for c in doc.comparisons
                if c.a == a and c.b == b and c.metric == metric)


def test_consistent_gap_is_ahead_and_behind() -> None:
    doc = analyse(result(backend("A", {"recall1_before": [0.9, 0.92, 0.88, 0.9, 0.91]}),
                         backend("B", {"recall1_before": [0.5, 0.52, 0.49, 0.5, 0.51]})))
    c = _verdict(doc, "A", "B", "recall1_before")
    assert c.verdict == "ahead" and c.n == 5 and c.ci_low > 0
    assert c.mean_diff == pytest.approx(0.398)
    assert c.p_sign_flip == pytest.approx(0.0625)
    assert c.boot_low <= c.mean_diff <= c.boot_high
    reverse = paired_comparison(doc.backends[1], doc.backends[0], R1)
    assert reverse.verdict == "behind"


def test_noise_is_a_tie_never_a_winner() -> None:
    doc = analyse(result(backend("A", {"recall1_before": [0.5, 0.6, 0.4, 0.55, 0.45]}),
                         backend("B", {"recall1_before": [0.52, 0.48, 0.5, 0.6, 0.4]})))
    c = _verdict(doc, "A", "B", "recall1_before")
    assert c.verdict == "tie" and c.ci_low < 0 < c.ci_high


def test_identical_values_tie() -> None:
    doc = analyse(result(backend("A", {}), backend("B", {})))
    assert {c.verdict for c in doc.comparisons
            if c.metric == "recall1_before"} == {"tie"}


def test_lower_is_better_metrics_flip_the_verdict() -> None:
    a = backend("A", {"staleRate": [0.1] * 5, "latency_p50_ms": [1, 1.1, 1, 1, 1]})
    b = backend("B", {"staleRate": [0.9] * 5, "latency_p50_ms": [9, 9, 9.5, 9, 9]})
    doc = analyse(result(a, b))
    assert _verdict(doc, "A", "B", "staleRate").verdict == "ahead"
    assert _verdict(doc, "A", "B", "latency_p50_ms").verdict == "ahead"


def test_one_seed_is_insufficient_data() -> None:
    doc = analyse(result(backend("A", {"recall1_before": [1.0]}, n_seeds=1),
                         backend("B", {"recall1_before": [0.0]}, n_seeds=1), n_seeds=1))
    c = _verdict(doc, "A", "B", "recall1_before")
    assert c.verdict == "insufficient data" and c.n == 1 and c.ci_low is None


def test_failed_runs_and_foreign_data_are_not_paired() -> None:
    a = backend("A", {"recall1_before": [0.9] * 5}, failed_seeds=(0, 1))
    b = backend("B", {"recall1_before": [0.5] * 5}, hashes={2: "other"})
    doc = analyse(result(a, b))
    c = _verdict(doc, "A", "B", "recall1_before")
    assert c.seeds == [3, 4] and c.unpaired_seeds == [2] and c.verdict == "ahead"
    doc = analyse(result(backend("A", {}, failed_seeds=(0, 1, 2, 3)), backend("B", {})))
    assert _verdict(doc, "A", "B", "recall1_before").verdict == "insufficient data"


def test_a_backend_that_never_succeeded_gives_no_verdict() -> None:
    doc = analyse(result(backend("A", {}, failed_seeds=(0, 1, 2, 3, 4)), backend("B", {})))
    c = _verdict(doc, "A", "B", "recall1_before")
    assert c.verdict == "insufficient data" and c.n == 0


def test_missing_capability_is_not_supported_not_zero() -> None:
    a = backend("A", {"gateRecall": [1.0] * 5}, capabilities=("gate",))
    doc = analyse(result(a, backend("B", {})))
    c = _verdict(doc, "A", "B", "gateRecall")
    assert c.verdict == "not supported" and c.mean_diff is None
    assert doc.backends[1].summary["gateRecall"].n == 0


def test_analysis_is_stored_and_old_files_are_still_read(tmp_path: Path) -> None:
    doc = result(backend("A", {}), backend("B", {}), backend("C", {}))
    path = tmp_path / "old.json"
    write_result(path, doc)  # a file written before comparisons existed
    loaded = load_result(path)
    assert loaded.comparisons is None
    ensure_analysis(loaded)
    assert len(loaded.comparisons) == 3 * len(BY_NAME)  # 3 pairs x every metric
    assert loaded.analysis["version"] == 1
    assert loaded.backends[0].summary["recall1_before"].boot_low is not None
    json.dumps(loaded.to_dict())  # still plain JSON
    before = json.dumps([c.to_dict() for c in loaded.comparisons])
    ensure_analysis(loaded)  # already analysed: left alone
    assert json.dumps([c.to_dict() for c in loaded.comparisons]) == before
