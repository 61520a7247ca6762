"""The per-question paired tests: exact where they claim to be, Holm as published, and
per-question outcomes that reproduce every declared metric."""

from __future__ import annotations

import itertools
import math

import fake_backends
import numpy as np
import pytest

from memory_bench.analysis.paired import (
    DRAWS,
    PairedRows,
    _randomization,
    holm,
    paired_test,
)
from memory_bench.harness.pair import PairSpec, run_pair
from memory_bench.metrics.aggregate import AGGREGATES, aggregate
from memory_bench.metrics.continual import CONTINUAL_METRICS
from memory_bench.plugins import load_plugins


def _rows(a: list[list[float]], b: list[list[float]]) -> PairedRows:
    return PairedRows(seeds=list(range(len(a))),
                      a=[np.asarray(x, float)[:, None] for x in a],
                      b=[np.asarray(y, float)[:, None] for y in b])


def test_mcnemar_is_the_exact_randomization_distribution() -> None:
    """Enumerate every swap of 12 paired 0/1 questions: the share of swaps whose pooled
    difference is at least as extreme is the test's p, to the last digit."""
    a = [[1, 1, 1, 0, 1, 1], [1, 0, 1, 1, 1, 0]]
    b = [[0, 1, 0, 0, 0, 1], [0, 0, 1, 0, 0, 1]]
    t = paired_test("mean", _rows(a, b))
    d = np.concatenate([np.subtract(x, y) for x, y in zip(a, b, strict=True)])
    observed = abs(d.sum())
    extreme = sum(abs(np.dot(s, d)) >= observed
                  for s in itertools.product((1, -1), repeat=len(d)))
    assert t.test == "mcnemar" and t.p == pytest.approx(extreme / 2 ** len(d), rel=1e-12)
    assert t.discordant == [6, 1]


def test_monte_carlo_randomization_agrees_with_the_exact_test() -> None:
    rng = np.random.default_rng(1)
    a = [list((rng.random(80) < 0.7).astype(float)) for _ in range(3)]
    b = [list((rng.random(80) < 0.55).astype(float)) for _ in range(3)]
    rows = _rows(a, b)
    exact = paired_test("mean", rows)
    mc = _randomization(AGGREGATES["mean"], rows, exact.effect)
    assert mc == pytest.approx(exact.p, abs=4 * math.sqrt(exact.p / DRAWS) + 1e-3)


def test_a_ratio_is_tested_by_randomization_and_can_reach_small_p() -> None:
    keep = [[1.0, 1.0]] * 100
    lose = [[1.0, 0.0]] * 60 + [[1.0, 1.0]] * 40
    rows = PairedRows([0, 1], [np.asarray(keep)] * 2, [np.asarray(lose)] * 2)
    t = paired_test("ratio", rows)
    assert t.test == "randomization" and t.effect == pytest.approx(0.6)
    # no swap reaches 0.6: below the Monte Carlo floor (analysis version 3's normal tail)
    assert 0 < t.p < 1 / (DRAWS + 1) and t.low <= 0.6 <= t.high


def test_holm_matches_the_textbook() -> None:
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([]) == [] and holm([0.9, 0.9]) == [1.0, 1.0]


def test_the_interval_brackets_the_effect_and_narrows_with_questions() -> None:
    rng = np.random.default_rng(3)

    def width(n: int) -> float:
        a = [list((rng.random(n) < 0.8).astype(float)) for _ in range(5)]
        b = [list((rng.random(n) < 0.6).astype(float)) for _ in range(5)]
        t = paired_test("mean", _rows(a, b))
        assert t.low <= t.effect <= t.high
        return t.high - t.low

    assert width(400) < width(40)


def _pair(scenario: dict, backend: str, seed: int = 0):
    loaded = load_plugins([("fake_backends", fake_backends)], autoload=False)
    spec = PairSpec(run_id="t", index=0, label=backend, backend=backend, scenario=scenario,
                    seed=seed)
    run = run_pair(spec, plugins=loaded)
    assert run.ok, run.error
    return run


SMOKE = {"name": "smoke", "generator": "templated",
         "params": {"facts": 12, "noise": 24, "updates": 4, "gate_empty": 3, "gate_short": 3,
                    "gate_duplicate": 3, "gate_near_duplicate": 2, "gate_chitchat": 2,
                    "gate_clean": 4, "gate_clean_short": 3, "corroborations": 2,
                    "reinforce_cells": 3, "reinforce_queries": 2, "structured": True}}


@pytest.mark.parametrize("backend", ["fake-perfect", "fake-forgetful", "fake-noprov"])
def test_per_question_outcomes_reproduce_every_declared_metric(backend: str) -> None:
    run = _pair(SMOKE, backend)
    checked = 0
    for m in CONTINUAL_METRICS:
        if m.spec.aggregate is None or run.metrics.get(m.name) is None:
            continue
        rows = run.rows(m.name)
        assert rows, m.name
        assert aggregate(m.spec.aggregate, list(rows.values())) == pytest.approx(
            run.metrics[m.name], rel=1e-12), m.name
        checked += 1
    assert checked >= 8
    assert all(m.spec.aggregate for m in CONTINUAL_METRICS)  # every metric is testable


def test_per_question_outcomes_reproduce_every_dataset_metric(tmp_path) -> None:
    """The dataset scenarios' metrics are paired per question too (LoCoMo verdicts need
    the power); checked on the LoCoMo fixture, every fold, with the recency rule."""
    import shutil
    from pathlib import Path

    import dataset_fakes

    from memory_bench.metrics.retrieval import retrieval_metrics

    src = tmp_path / "locomo_mini.json"
    shutil.copy(Path(__file__).parent / "fixtures" / "datasets" / "locomo_mini.json", src)
    loaded = load_plugins([("dataset_fakes", dataset_fakes)], autoload=False)
    declared = retrieval_metrics(early=True, final="late")
    assert all(m.spec.aggregate for m in declared)  # every metric is testable
    checked = set()
    for fold in range(3):
        spec = PairSpec(run_id="t", index=0, label="fake-recency", backend="fake-recency",
                        scenario={"name": "locomo", "generator": "locomo",
                                  "params": {"path": str(src), "folds": 3, "write_batch": 32,
                                             "keep_questions": False}}, seed=fold)
        run = run_pair(spec, plugins=loaded)
        assert run.ok, run.error
        for m in declared:
            if run.metrics.get(m.name) is None:
                continue
            rows = run.rows(m.name)
            assert rows, m.name
            assert aggregate(m.spec.aggregate, list(rows.values())) == pytest.approx(
                run.metrics[m.name], rel=1e-12), m.name
            checked.add(m.name)
    assert {"recall_any@5", "recall_any@5_early", "retention@5", "ndcg@10", "mrr",
            "latency_p50_ms", "ingest_items_per_s"} <= checked


def test_a_latency_verdict_follows_its_quantile_not_the_typical_question() -> None:
    """A is faster on 90 of every 100 questions but ten take 50 ms: its p95 is far worse.
    A sign test called A's p95 "faster"; the quantile's own test points where its
    interval does, and p < 0.05 exactly when the interval excludes 0."""
    a = [[1.0 + i / 1000 for i in range(90)] + [50.0] * 10 for _ in range(5)]
    b = [[2.0 + i / 1000 for i in range(100)] for _ in range(5)]
    rows = _rows(a, b)
    p50, p95 = paired_test("p50", rows), paired_test("p95", rows)
    assert p50.test == p95.test == "quantile-bootstrap"
    assert p50.effect == pytest.approx(-1.0, abs=0.01) and p50.high < 0 and p50.p < 0.05
    assert p95.effect > 40 and p95.low > 0 and p95.p < 0.05
    rng = np.random.default_rng(3)
    for _ in range(20):
        x = [list(rng.lognormal(0, 1, 40)) for _ in range(4)]
        y = [list(rng.lognormal(0.2, 1, 40)) for _ in range(4)]
        for q in ("p50", "p95"):
            t = paired_test(q, _rows(x, y))
            assert t.low <= t.effect <= t.high
            assert (t.p < 0.05) == (t.low > 0 or t.high < 0)
