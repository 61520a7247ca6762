"""Tables a person can scan: one interval form and fixed decimals per column, one
sentence on who leads what (from the paired verdicts), the seeds said one way."""

from __future__ import annotations

from constructed_results import backend, result

from memory_bench.analysis.compare import analyse
from memory_bench.metrics.spec import MetricSpec
from memory_bench.render import sections as S
from memory_bench.render.format import column
from memory_bench.results.model import MetricSummary

SHARE = MetricSpec("recall", "recall", reads=())
LATENCY = MetricSpec("lat", "p50 ms", reads=(), higher_is_better=False, bounds=None,
                     decimals=2, small_digits=3)


def test_a_column_has_one_interval_form_and_one_precision() -> None:
    symmetric = MetricSummary(mean=0.783, ci_low=0.571, ci_high=0.995, n=5)
    clipped = MetricSummary(mean=0.996, ci_low=0.943, ci_high=1.0, n=5)
    cells = column([symmetric, clipped, None], SHARE, [5, 5, None])
    assert cells == ["0.783 [0.571, 0.995]", "0.996 [0.943, 1.000]", "—"]
    alone = column([symmetric], SHARE, [5])
    assert alone == ["0.783 ± 0.212"]  # no clipped cell: the ± form
    fast = MetricSummary(mean=0.0785, ci_low=0.07, ci_high=0.087, n=5)
    slow = MetricSummary(mean=0.119, ci_low=0.1, ci_high=0.138, n=5)
    lat = column([fast, slow], LATENCY, [5, 5])
    assert [c.split()[0] for c in lat] == ["0.0785", "0.1190"]  # not 0.0785 beside 0.119


def test_one_sentence_says_who_leads_what_from_the_verdicts() -> None:
    n = 6
    good = backend("good", {"recall1_before": [0.9] * n},
                   outcomes={"recall1_before": [[1.0] * 40 for _ in range(n)]}, n_seeds=n)
    bad = backend("bad", {"recall1_before": [0.2] * n},
                  outcomes={"recall1_before": [[1.0] * 8 + [0.0] * 32 for _ in range(n)]},
                  n_seeds=n)
    r = result(good, bad, n_seeds=n)
    analyse(r)
    sentence = S.lead_sentence(r)
    assert sentence is not None and "good leads recall@1" in sentence
    assert "6 seeds (0–5)" in sentence


def test_seeds_are_said_one_way() -> None:
    r = result(backend("a", {}), n_seeds=3)
    assert S.run_line(r).endswith("3 seeds (0–2).")
    params = S.scenario_params(r)
    assert "seeds" not in params and params["seeds_this_run"] == [0, 1, 2]
