"""Paired verdicts between backends of one run, on constructed results: question by
question, Holm-corrected, with the effect and its interval."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from constructed_results import backend, result

from memory_bench.analysis.compare import (
    ANALYSIS_VERSION,
    analyse,
    ensure_analysis,
    paired_comparison,
)
from memory_bench.metrics.continual import CONTINUAL_METRICS
from memory_bench.results.io import load_result, write_result

BY_NAME = {m.name: m.spec for m in CONTINUAL_METRICS}
R1 = BY_NAME["recall1_before"]


def _verdict(doc, a, b, metric):
    return next(c for c in doc.comparisons
                if c.a == a and c.b == b and c.metric == metric)


def hits(share: float, n: int = 120, seeds: int = 5, seed: int = 0) -> list[list[float]]:
    """Per seed, n 0/1 outcomes of which about ``share`` are 1 (seeded)."""
    rng = random.Random(seed)
    return [[1.0 if rng.random() < share else 0.0 for _ in range(n)] for _ in range(seeds)]


def test_a_real_gap_is_ahead_and_behind_after_holm() -> None:
    doc = analyse(result(backend("A", {}, outcomes={"recall1_before": hits(0.9, seed=1)}),
                         backend("B", {}, outcomes={"recall1_before": hits(0.5, seed=2)})))
    c = _verdict(doc, "A", "B", "recall1_before")
    assert c.verdict == "ahead" and c.test == "mcnemar" and c.questions == 600
    assert c.p_holm is not None and c.p <= c.p_holm <= 0.05
    assert c.effect_low < c.effect < c.effect_high and c.effect_low > 0
    assert c.effect == pytest.approx(c.mean_diff)  # equal question counts: same number
    higher, lower = c.discordant
    assert higher > lower
    reverse = paired_comparison(doc.backends[1], doc.backends[0], R1)
    assert reverse.effect == pytest.approx(-c.effect) and reverse.p == pytest.approx(c.p)


def test_the_same_gap_over_five_seeds_alone_cannot_pass() -> None:
    """Without per-question outcomes only the per-seed test is left: at 5 seeds its p
    is at least 0.0625, so Holm never lets it through. This is why outcomes exist."""
    doc = analyse(result(backend("A", {"recall1_before": [0.9, 0.92, 0.88, 0.9, 0.91]}),
                         backend("B", {"recall1_before": [0.5, 0.52, 0.49, 0.5, 0.51]})))
    c = _verdict(doc, "A", "B", "recall1_before")
    assert c.test == "seed-sign-flip" and c.p == pytest.approx(0.0625)
    assert c.verdict == "tie" and c.ci_low > 0  # the t-interval alone would have said ahead


def test_noise_is_a_tie_never_a_winner() -> None:
    doc = analyse(result(backend("A", {}, outcomes={"recall1_before": hits(0.6, seed=3)}),
                         backend("B", {}, outcomes={"recall1_before": hits(0.6, seed=4)})))
    c = _verdict(doc, "A", "B", "recall1_before")
    assert c.verdict == "tie" and c.p > 0.05 and c.effect_low < 0 < c.effect_high


def test_identical_outcomes_tie_with_p_one() -> None:
    same = hits(0.7, seed=5)
    doc = analyse(result(backend("A", {}, outcomes={"recall1_before": same}),
                         backend("B", {}, outcomes={"recall1_before": same})))
    c = _verdict(doc, "A", "B", "recall1_before")
    assert c.verdict == "tie" and c.p == 1.0 and c.effect == 0 and c.discordant == [0, 0]


def test_holm_makes_a_marginal_difference_a_tie() -> None:
    """A gap that is significant on its own (p < 0.05) but not after the correction over
    every comparison of the file is a tie."""
    # 20 questions only A answers, 8 only B does: exact two-sided p = 0.036.
    a = [[1.0] * 20 + [0.0] * 8 + [1.0] * 32] + [[1.0] * 60] * 4
    b = [[0.0] * 20 + [1.0] * 8 + [1.0] * 32] + [[1.0] * 60] * 4
    doc = analyse(result(backend("A", {}, outcomes={"recall1_before": a}),
                         backend("B", {}, outcomes={"recall1_before": b})))
    c = _verdict(doc, "A", "B", "recall1_before")
    assert c.p < 0.05 < c.p_holm and c.verdict == "tie"
    assert doc.analysis["comparisons"] >= 10


def test_lower_is_better_metrics_flip_the_verdict() -> None:
    a = backend("A", {}, outcomes={"staleRate": hits(0.1, 30, seed=7),
                                   "latency_p50_ms": [[1.0 + i / 100 for i in range(60)]] * 5})
    b = backend("B", {}, outcomes={"staleRate": hits(0.9, 30, seed=8),
                                   "latency_p50_ms": [[9.0 + i / 100 for i in range(60)]] * 5})
    doc = analyse(result(a, b))
    assert _verdict(doc, "A", "B", "staleRate").verdict == "ahead"
    lat = _verdict(doc, "A", "B", "latency_p50_ms")
    assert lat.test == "quantile-bootstrap" and lat.verdict == "ahead"
    assert lat.effect == pytest.approx(-8.0) and lat.effect_high < 0


def test_one_seed_still_compares_question_by_question() -> None:
    doc = analyse(result(backend("A", {}, outcomes={"recall1_before": hits(0.95, seeds=1)},
                                 n_seeds=1),
                         backend("B", {}, outcomes={"recall1_before": hits(0.2, seeds=1)},
                                 n_seeds=1), n_seeds=1))
    c = _verdict(doc, "A", "B", "recall1_before")
    assert c.verdict == "ahead" and c.n == 1 and c.questions == 120 and c.ci_low is None


def test_failed_runs_and_foreign_data_are_not_paired() -> None:
    a = backend("A", {}, outcomes={"recall1_before": hits(0.9)}, failed_seeds=(0, 1))
    b = backend("B", {}, outcomes={"recall1_before": hits(0.5)}, hashes={2: "other"})
    doc = analyse(result(a, b))
    c = _verdict(doc, "A", "B", "recall1_before")
    assert c.seeds == [3, 4] and c.unpaired_seeds == [2] and c.questions == 240
    doc = analyse(result(backend("A", {}, failed_seeds=(0, 1, 2, 3, 4)), backend("B", {})))
    assert _verdict(doc, "A", "B", "recall1_before").verdict == "insufficient data"


def test_missing_capability_is_not_supported_not_zero() -> None:
    a = backend("A", {"gateRecall": [1.0] * 5}, capabilities=("gate",))
    doc = analyse(result(a, backend("B", {})))
    c = _verdict(doc, "A", "B", "gateRecall")
    assert c.verdict == "not supported" and c.mean_diff is None and c.p_holm is None
    assert doc.backends[1].summary["gateRecall"].n == 0


def test_analysis_is_stored_and_old_files_are_still_read(tmp_path: Path) -> None:
    doc = result(backend("A", {}), backend("B", {}), backend("C", {}))
    path = tmp_path / "old.json"
    write_result(path, doc)  # a file written before comparisons existed
    loaded = load_result(path)
    assert loaded.comparisons is None
    ensure_analysis(loaded)
    assert len(loaded.comparisons) == 3 * len(BY_NAME)  # 3 pairs x every metric
    assert loaded.analysis["version"] == ANALYSIS_VERSION
    assert loaded.backends[0].summary["recall1_before"].boot_low is not None
    json.dumps(loaded.to_dict())  # still plain JSON
    before = json.dumps([c.to_dict() for c in loaded.comparisons])
    ensure_analysis(loaded)  # already analysed: left alone
    assert json.dumps([c.to_dict() for c in loaded.comparisons]) == before
    again = load_result(_saved(tmp_path, loaded))
    assert [c.to_dict() for c in again.comparisons] == [c.to_dict() for c in loaded.comparisons]


def _saved(tmp_path: Path, doc) -> Path:
    path = tmp_path / "new.json"
    write_result(path, doc)
    return path


def test_a_randomization_p_beyond_every_swap_goes_below_the_monte_carlo_floor() -> None:
    """Retention (a ratio) is tested by Monte Carlo swaps; a large real effect reached by
    no swap gets the null's normal tail, not the 1e-4 floor that Holm over a report's
    thousands of comparisons would turn into a tie. A null effect stays where it was."""
    import numpy as np

    from memory_bench.analysis.paired import DRAWS, PairedRows, paired_test

    rng = np.random.default_rng(3)

    def rows(after_a: float, after_b: float) -> PairedRows:
        out = PairedRows()
        for s in range(5):
            before = np.ones(240)
            out.seeds.append(s)
            out.a.append(np.column_stack([before, rng.random(240) < after_a]).astype(float))
            out.b.append(np.column_stack([before, rng.random(240) < after_b]).astype(float))
        return out

    strong = paired_test("ratio", rows(0.9, 0.6))
    assert strong.test == "randomization" and strong.low > 0
    assert strong.p < 1e-12 < 1 / (DRAWS + 1)
    weak = paired_test("ratio", rows(0.80, 0.79))
    assert weak.p > 0.05


def test_no_verdict_points_where_its_own_interval_does_not() -> None:
    """A p that passes Holm with an interval reaching 0 is a tie (analysis version 4)."""
    from memory_bench.analysis import compare
    from memory_bench.results.model import Comparison

    def c(effect: float, low: float, high: float) -> Comparison:
        return Comparison(a="a", b="b", metric="retention", n=5, verdict="",
                          effect=effect, effect_low=low, effect_high=high)

    assert compare._interval_agrees(c(0.1, 0.02, 0.2))
    assert compare._interval_agrees(c(-0.1, -0.2, -0.01))
    assert not compare._interval_agrees(c(-0.099, -0.219, 0.020))  # the case that was seen
    assert not compare._interval_agrees(c(0.0, -0.1, 0.1))
    doc = analyse(result(backend("a", {}, outcomes={"recall1_before": hits(0.9, seed=1)}),
                         backend("b", {}, outcomes={"recall1_before": hits(0.5, seed=2)})))
    passed = [v for v in doc.comparisons if v.verdict in ("ahead", "behind")]
    assert passed and all(v.effect_low > 0 or v.effect_high < 0 for v in passed)
