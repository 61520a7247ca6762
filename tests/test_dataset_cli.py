"""Dataset scenarios through the real command line: run, report, compare, validate, export,
and bad input refused in one line before anything is written."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import pytest

from memory_bench.results.io import load_result

FIXTURES = Path(__file__).parent / "fixtures" / "datasets"
LME, LOCOMO, EXAMPLE, BROKEN = (FIXTURES / n for n in (
    "longmemeval_mini.json", "locomo_mini.json", "example.jsonl", "broken.jsonl"))
REAL = {"MEMORY_BENCH_PLUGINS": "dataset_fakes"}  # the real bm25 through its entry point


def test_longmemeval_fixture_runs_end_to_end_and_renders(cli) -> None:
    out = cli("run", "--backend", "bm25", "--backend", "fake-recency", "--scenario",
              "longmemeval", "--set", f"path={LME}", "--set", "folds=2", "--out", "r.json",
              "--quiet", fakes_only=False, env_extra=REAL)
    assert out.returncode == 0, out.stderr
    head = out.stdout.splitlines()[0]
    assert "R_any@5" in head and "NDCG@10" in head and "recall@1" not in head
    assert "by category:" in out.stdout and "knowledge-update" in out.stdout
    result = load_result(cli.cwd / "r.json")
    assert result.seeds == [0, 1]  # every fold by default
    stats = result.scenario.data_stats["0"]
    assert stats["file"]["name"] == "longmemeval_mini.json" and len(stats["file"]["sha256"]) == 64
    assert stats["quirks"]["counts"]["evidence_ids_unknown"] == 1
    assert str(FIXTURES) not in json.dumps(stats)  # the name of the file, never its path
    bm25 = result.backend("bm25")
    assert bm25 is not None and {r.seed for r in bm25.ok_runs()} == {0, 1}
    assert any(c.startswith("Abstention questions") for c in result.scenario.caveats)
    md = cli("report", "r.json").stdout
    assert "### By category" in md and "| backend | runs ok | R_any@5 |" in md
    rows = list(csv.reader(io.StringIO(cli("report", "r.json", "--format", "csv").stdout)))
    assert "recall_any@5/knowledge-update" in rows[0] and len(rows) == 5
    assert cli("report", "r.json", "--format", "png", "--out", "plots").returncode == 0
    assert sorted(p.name for p in (cli.cwd / "plots").iterdir()) == [
        "r-bars.png", "r-quality-latency.png"]
    cmp = cli("compare", "r.json", "r.json", "--metric", "recall_any@5", "--json")
    assert cmp.returncode == 0, cmp.stderr
    assert {row["status"] for row in json.loads(cmp.stdout)["rows"]} <= {"same",
                                                                          "insufficient data"}


def test_locomo_and_jsonl_fixtures_run_end_to_end(cli) -> None:
    out = cli("run", "--backend", "bm25", "--scenario", "locomo", "--set", f"path={LOCOMO}",
              "--set", "folds=3", "--out", "l.json", "--quiet", fakes_only=False)
    assert out.returncode == 0, out.stderr
    assert "R_any@5 early" in out.stdout and "R_any@5 late" in out.stdout
    assert "retention@5" in out.stdout
    result = load_result(cli.cwd / "l.json")
    quirks = result.scenario.data_stats["0"]["quirks"]["counts"]
    assert quirks["evidence_ids_unknown"] == 1 and quirks["duplicate_questions"] == 1
    records = result.backends[0].runs[0].records
    assert records is not None and all(p.question.startswith("sha256:") for p in records.probes)
    assert "Ada" not in (cli.cwd / "l.json").read_text()  # no question or turn republished
    out = cli("run", "--backend", "bm25", "--scenario", "jsonl", "--set", f"path={EXAMPLE}",
              "--set", "folds=2", "--out", "j.json", "--quiet", fakes_only=False)
    assert out.returncode == 0, out.stderr
    run = load_result(cli.cwd / "j.json").backends[0].runs[0]
    assert run.metrics["recall_any@10"] == 1.0  # every question's evidence in a 6-item store


def test_validate_prints_every_problem_by_line_and_exits_2(cli) -> None:
    out = cli("validate", str(BROKEN))
    assert out.returncode == 2
    lines = out.stdout.splitlines()
    assert lines[0].startswith(f"{BROKEN}:1: header")
    assert any(x.startswith(f"{BROKEN}:7: probe: 'x9'") for x in lines)
    assert lines[-1].endswith("10 problem(s); not a valid memory-bench-jsonl/1 file")
    ok = cli("validate", str(EXAMPLE))
    assert ok.returncode == 0 and "2 episode(s), 10 item(s), 9 probe(s)" in ok.stdout
    missing = cli("validate", "nope.jsonl")
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1


def test_export_writes_a_valid_file_and_never_overwrites(cli) -> None:
    out = cli("export", "--scenario", "smoke", "--seed", "1", "smoke.jsonl")
    assert out.returncode == 0, out.stderr
    assert cli("validate", "smoke.jsonl").returncode == 0
    before = (cli.cwd / "smoke.jsonl").read_bytes()
    again = cli("export", "--scenario", "smoke", "--seed", "0", "smoke.jsonl")
    assert again.returncode == 2 and "never overwrites" in again.stderr
    assert (cli.cwd / "smoke.jsonl").read_bytes() == before


@pytest.mark.parametrize(("args", "fragment"), [
    (["--scenario", "locomo"], "no data file: give --set path=FILE"),
    (["--scenario", "locomo", "--set", "path=missing.json"], "does not exist"),
    (["--scenario", "locomo", "--set", f"path={LME}"], "use --scenario longmemeval"),
    (["--scenario", "longmemeval", "--set", f"path={LOCOMO}"], "use --scenario locomo"),
    (["--scenario", "jsonl", "--set", f"path={BROKEN}"], "memory-bench validate"),
    (["--scenario", "locomo", "--set", f"path={LOCOMO}", "--set", "folds=3", "--seed", "3"],
     "seed 3 does not exist"),
    (["--scenario", "locomo", "--set", f"path={LOCOMO}", "--set", "folds=3", "--seeds", "4"],
     "seed 3 does not exist"),
    (["--scenario", "locomo", "--set", f"path={LOCOMO}"], "folds 10 is more than the 3"),
    (["--scenario", "longmemeval", "--set", f"path={LME}", "--set", "granularity=round"],
     "not one of turn, session"),
])
def test_bad_dataset_input_is_one_line_and_writes_nothing(cli, args, fragment) -> None:
    out = cli("run", "--backend", "fake-perfect", *args)
    assert out.returncode == 2, out.stdout
    assert out.stderr.count("\n") == 1 and fragment in out.stderr, out.stderr
    assert not (cli.cwd / "runs").exists()


@pytest.mark.skipif(not os.environ.get("MEMORY_BENCH_LOCOMO"),
                    reason="set MEMORY_BENCH_LOCOMO to the real locomo10.json to check it")
def test_the_published_locomo_file_parses_with_its_known_quirks() -> None:
    from memory_bench.scenarios.datasets import locomo

    data = locomo.load({"path": os.environ["MEMORY_BENCH_LOCOMO"], "folds": 10})
    assert data.file.sha256 == \
        "79fa87e90f04081343b8c8debecb80a9a6842b76a7aa537dc9fdf651ea698ff4"
    assert (len(data.conversations), data.turns, data.questions, data.abstain) == \
        (10, 5882, 1525, 445)  # 1,986 questions: 12 duplicates, 4 without evidence
    assert data.quirks["counts"]["evidence_ids_unknown"] == 3
