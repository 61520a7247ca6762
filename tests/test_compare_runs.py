"""``memory-bench compare OLD NEW``: regressions flagged where old and new separate."""

from __future__ import annotations

import json
from pathlib import Path

from constructed_results import backend, result

from memory_bench.analysis.compare import compare_runs
from memory_bench.results.io import write_result

GOOD = [0.90, 0.92, 0.88, 0.91, 0.90]
WORSE = [0.70, 0.73, 0.69, 0.72, 0.70]


def _row(report, label, metric):
    return next(r for r in report["rows"] if r["backend"] == label and r["metric"] == metric)


def test_identical_runs_have_no_regression() -> None:
    old = result(backend("A", {"recall1_before": GOOD}), backend("B", {}))
    report = compare_runs(old, old)
    assert report["regressions"] == []
    assert {r["status"] for r in report["rows"]} <= {"same", "not supported"}
    assert _row(report, "A", "recall1_before")["pairing"] == "paired by seed"


def test_drop_on_every_seed_is_a_regression_and_rise_is_not() -> None:
    old = result(backend("A", {"recall1_before": GOOD}))
    new = result(backend("A", {"recall1_before": WORSE}))
    down = compare_runs(old, new)
    row = _row(down, "A", "recall1_before")
    assert row["status"] == "regression" and row["ci_high"] < 0
    assert [r["metric"] for r in down["regressions"]] == ["recall1_before"]
    up = compare_runs(new, old)
    assert _row(up, "A", "recall1_before")["status"] == "improvement"
    assert up["regressions"] == []


def test_slower_latency_is_a_regression() -> None:
    old = result(backend("A", {"latency_p50_ms": [1.0, 1.1, 0.9, 1.0, 1.05]}))
    new = result(backend("A", {"latency_p50_ms": [2.0, 2.1, 1.9, 2.2, 2.0]}))
    assert _row(compare_runs(old, new), "A", "latency_p50_ms")["status"] == "regression"
    only_quality = compare_runs(old, new, ["recall1_before"])
    assert only_quality["regressions"] == [] and len(only_quality["rows"]) == 1


def test_different_data_is_compared_unpaired_and_noted() -> None:
    old = result(backend("A", {"recall1_before": GOOD}))
    new = result(backend("A", {"recall1_before": WORSE}, hashes={0: "x", 1: "y"}))
    new.scenario.data_hashes["0"] = "x"
    report = compare_runs(old, new)
    assert _row(report, "A", "recall1_before")["pairing"] == "unpaired (Welch)"
    assert _row(report, "A", "recall1_before")["status"] == "regression"
    assert any("data hashes differ" in n for n in report["notes"])


def test_backends_in_one_file_only_are_listed() -> None:
    report = compare_runs(result(backend("A", {}), backend("gone", {})),
                          result(backend("A", {}), backend("added", {})))
    assert report["only_old"] == ["gone"] and report["only_new"] == ["added"]


def _files(tmp: Path, old, new) -> tuple[str, str]:
    write_result(tmp / "old.json", old)
    write_result(tmp / "new.json", new)
    return str(tmp / "old.json"), str(tmp / "new.json")


def test_cli_exit_status(cli, tmp_path: Path) -> None:
    old = result(backend("A", {"recall1_before": GOOD}), backend("B", {}))
    new = result(backend("A", {"recall1_before": WORSE}), backend("B", {}))
    o, n = _files(tmp_path, old, new)
    flagged = cli("compare", o, n, "--fail-on-regression")
    assert flagged.returncode == 1, flagged.stderr
    assert "REGRESSION" in flagged.stdout and "1 regression(s): A recall@1" in flagged.stdout
    assert cli("compare", o, n).returncode == 0  # reported, but not failing without the flag
    same = cli("compare", o, o, "--fail-on-regression")
    assert same.returncode == 0 and "0 regression(s)" in same.stdout
    js = cli("compare", o, n, "--json")
    assert json.loads(js.stdout)["regressions"][0]["backend"] == "A"


def test_cli_bad_input_exits_2(cli, tmp_path: Path) -> None:
    o, _ = _files(tmp_path, result(backend("A", {})), result(backend("A", {})))
    missing = cli("compare", o, str(tmp_path / "nope.json"))
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    bad = cli("compare", o, o, "--metric", "recall")
    assert bad.returncode == 2 and "unknown metric 'recall'" in bad.stderr


def test_a_failed_seed_keeps_the_pairing_on_the_others() -> None:
    old = result(backend("A", {"recall1_before": GOOD}))
    new = result(backend("A", {"recall1_before": WORSE}, failed_seeds=(4,)))
    row = _row(compare_runs(old, new), "A", "recall1_before")
    assert row["pairing"] == "paired by seed" and row["status"] == "regression"
    assert row["new"]["n"] == 4 and row["old"]["n"] == 5
