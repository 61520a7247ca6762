"""A row whose values look like a broken adapter is named in the report's caveats:
recall@1 near 0 with retention near 1, or one top k for every question."""

from __future__ import annotations

from typing import Any

from constructed_results import backend, result

from memory_bench.render.caveats import caveats


def _probes(answers: list[list[str]]) -> dict[str, Any]:
    return {"probes": [{"tag": "probe", "question": f"question {n}?", "expected": [f"f{n}"],
                        "returned": ids, "scores": [1.0 / (i + 1) for i in range(len(ids))],
                        "latency_ms": 1.0} for n, ids in enumerate(answers)]}


def _with_records(entry: dict[str, Any], answers: list[list[str]]) -> dict[str, Any]:
    for run in entry["runs"]:
        run["records"] = _probes(answers)
    return entry


def _suspects(*entries: dict[str, Any]) -> list[str]:
    return [c for c in caveats(result(*entries)) if "looks broken" in c]


def test_near_zero_recall_with_full_retention_is_named() -> None:
    shuffled = backend("shuffled", {"recall1_before": [0.008] * 5, "retention": [1.0] * 5})
    (line,) = _suspects(backend("fine", {}), shuffled)
    assert line.startswith("`shuffled` looks broken, not weak: recall@1 0.008 with retention "
                           "1.000")
    assert "memory-bench check shuffled" in line


def test_a_weak_row_is_not_named() -> None:
    """Low recall that is also lost (retention low), or recall at the floor: a weak
    memory, not a broken adapter."""
    weak = backend("weak", {"recall1_before": [0.01] * 5, "retention": [0.5] * 5})
    floor = backend("floor", {"recall1_before": [0.05] * 5, "retention": [1.0] * 5})
    assert _suspects(weak, floor) == []


def test_the_same_top_k_for_every_question_is_named() -> None:
    blind = _with_records(backend("blind", {}), [["a", "b", "c"]] * 6)
    varied = _with_records(backend("varied", {}), [["a", "b"], ["b", "a"]] * 3)
    (line,) = _suspects(blind, varied)
    assert line.startswith("`blind` looks broken, not weak: it returned the same top k to "
                           "every question of each ask step (30 questions)")


def test_too_few_questions_or_empty_answers_are_not_named() -> None:
    few = _with_records(backend("few", {}), [["a"]] * 4)
    empty = _with_records(backend("empty", {}), [[]] * 8)
    assert _suspects(few, empty) == []


def test_a_run_of_a_query_blind_plugin_warns(cli) -> None:
    """The planted query-blind backend (tests/broken_backends.py) runs to the end; the run
    says on stderr, and its report's caveats, that the row looks broken."""
    out = cli("run", "--backend", "kit-query-blind", "--scenario", "smoke", "--seed", "0",
              "--out", "r.json", "--quiet", env_extra={"MEMORY_BENCH_PLUGINS": "broken_backends"})
    assert out.returncode == 0, out.stderr
    assert ("warning: `kit-query-blind` looks broken, not weak: it returned the same top k "
            "to every question of each ask step") in out.stderr
    report = cli("report", "r.json", env_extra={"MEMORY_BENCH_PLUGINS": "broken_backends"})
    assert "`kit-query-blind` looks broken, not weak" in report.stdout
