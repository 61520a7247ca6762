"""scripts/reanalyse.py: a result analysed again with this checkout's analysis, as a
new report set that reads back, never over an existing one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from constructed_results import backend, result
from test_compare_paired import hits

from memory_bench.analysis.compare import ANALYSIS_VERSION, analyse
from memory_bench.results.io import load_result, write_result

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "reanalyse.py"), *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)


def test_a_result_is_analysed_again_into_a_new_set(tmp_path: Path) -> None:
    doc = analyse(result(backend("a", {}, outcomes={"recall1_before": hits(0.9, seed=1)}),
                         backend("b", {}, outcomes={"recall1_before": hits(0.5, seed=2)})))
    doc.analysis = {**doc.analysis, "version": 2}
    src = tmp_path / "old.json"
    write_result(src, doc)
    out = tmp_path / "reports"
    first, second = _run(str(src), str(out)), _run(str(src), str(out))
    assert first.returncode == second.returncode == 0, first.stderr + second.stderr
    assert f"analysis 2 -> {ANALYSIS_VERSION}" in first.stdout
    sets = sorted(p.name for p in out.glob("*.json.gz"))
    assert len(sets) == 2 and sets[0].endswith("-default-run-a-2.json.gz")  # not over it
    assert sets[1].endswith("-default-run-a.json.gz")
    again = load_result(out / sets[1])
    assert again.analysis["version"] == ANALYSIS_VERSION
    assert again.resumes[-1]["reanalysed"] == {"from_version": 2,
                                               "to_version": ANALYSIS_VERSION}
    assert [c.verdict for c in again.comparisons if c.metric == "recall1_before"] == ["ahead"]
    assert load_result(src).analysis["version"] == 2  # the source is untouched


def test_a_file_it_cannot_read_is_one_line_and_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    got = _run(str(bad), str(tmp_path / "reports"))
    assert got.returncode == 2 and got.stderr.count("\n") == 1
    assert not (tmp_path / "reports").exists() or not any((tmp_path / "reports").iterdir())


def test_a_result_is_split_by_rows_each_part_analysed_on_its_own(tmp_path: Path) -> None:
    doc = analyse(result(backend("a", {}, outcomes={"recall1_before": hits(0.9, seed=1)}),
                         backend("b", {}, outcomes={"recall1_before": hits(0.5, seed=2)}),
                         backend("c", {}, outcomes={"recall1_before": hits(0.5, seed=3)})))
    src = tmp_path / "big.json"
    write_result(src, doc)
    out = tmp_path / "reports"
    got = _run(str(src), str(out), "--backends", "a,b", "--part", "ab")
    assert got.returncode == 0, got.stderr
    (part,) = out.glob("*-run-a-ab.json.gz")
    split = load_result(part)
    assert [b.label for b in split.backends] == ["a", "b"]
    assert {(c.a, c.b) for c in split.comparisons} == {("a", "b")}
    assert split.resumes[-1]["reanalysed"]["selection"] == ["a", "b"]
    bad = _run(str(src), str(out), "--backends", "a,zz", "--part", "x")
    assert bad.returncode == 2 and "'zz'" in bad.stderr
    assert not list(out.glob("*-x.*"))
