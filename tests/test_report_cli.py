"""``run --save`` and ``report --format …`` through the real entry point, on the fakes."""

from __future__ import annotations

import json
from pathlib import Path

from memory_bench.analysis.compare import ANALYSIS_VERSION
from memory_bench.results.io import load_result
from memory_bench.results.paths import unique_report_paths

SMOKE = ("--scenario", "smoke", "--seeds", "2", "--quiet")


def test_save_writes_every_file_and_never_overwrites(cli) -> None:
    for _ in range(2):
        out = cli("run", "--backend", "fake-perfect", "--backend", "fake-noprov", *SMOKE,
                  "--save")
        assert out.returncode == 0, out.stderr
    files = sorted(p.name for p in (cli.cwd / "reports").iterdir())
    stems = sorted({f.removesuffix(".json.gz") for f in files if f.endswith(".json.gz")})
    assert len(stems) == 2
    for stem in stems:
        for suffix in (".json.gz", ".md", ".html", ".csv", "-bars.png", "-quality-latency.png"):
            assert stem + suffix in files
    doc = load_result(cli.cwd / "reports" / f"{stems[0]}.json.gz")
    assert cli("report", f"reports/{stems[0]}.json.gz", "--format", "table").returncode == 0
    assert doc.analysis is not None and doc.analysis["version"] == ANALYSIS_VERSION
    verdicts = {(c.metric, c.verdict) for c in doc.comparisons or []}
    assert ("provenanceAccuracy", "ahead") in verdicts  # the probes paired, Holm-corrected
    prov = next(c for c in doc.comparisons if c.metric == "provenanceAccuracy")
    probes = {p.key for r in doc.backends[0].runs for p in r.records.probes
              if p.tag == "probe"}
    assert prov.test == "mcnemar" and prov.questions >= len(probes) and prov.p_holm < 0.05
    md = (cli.cwd / "reports" / f"{stems[0]}.md").read_text()
    assert f"]({stems[0]}-bars.png)" in md  # the Markdown links the PNGs beside it
    png = (cli.cwd / "reports" / f"{stems[0]}-bars.png").read_bytes()
    assert png.startswith(b"\x89PNG")
    run = json.loads(next((cli.cwd / "runs").glob("*.json")).read_text())
    assert "comparisons" in run  # the run's own result file holds them too


def test_report_formats(cli) -> None:
    assert cli("run", "--backend", "fake-perfect", "--backend", "fake-forgetful", *SMOKE,
               "--out", "r.json").returncode == 0
    page = cli("report", "r.json", "--format", "html")
    assert page.returncode == 0 and page.stdout.startswith("<!DOCTYPE html>")
    assert page.stdout.count("data:image/png;base64,") == 2
    head = cli("report", "r.json", "--format", "headline")
    assert head.stdout.startswith("| backend | runs ok | recall@1 |")
    assert "smoke scenario, 2 seed(s)" in head.stdout
    table = cli("report", "r.json", "--format", "csv")
    assert table.stdout.splitlines()[0].startswith("run_id,backend,name,structured,seed,data_hash")
    assert ",fake-perfect,fake-perfect,tags,0," in table.stdout  # a structured row, marked
    assert len(table.stdout.splitlines()) == 1 + 2 * 2
    assert cli("report", "r.json", "--format", "md", "--out", "out/r.md").returncode == 0
    assert (cli.cwd / "out" / "r.md").read_text().startswith("# memory-bench comparison")
    again = cli("report", "r.json", "--format", "md", "--out", "out/r.md")
    assert again.returncode == 2 and "never overwrites" in again.stderr
    pngs = cli("report", "r.json", "--format", "png", "--out", "plots")
    assert pngs.returncode == 0, pngs.stderr
    assert sorted(p.name for p in (cli.cwd / "plots").iterdir()) == [
        "r-bars.png", "r-quality-latency.png"]
    no_dir = cli("report", "r.json", "--format", "png")
    assert no_dir.returncode == 2 and "--out DIR" in no_dir.stderr


def test_report_paths_take_a_suffix_when_any_file_exists(tmp_path: Path) -> None:
    first = unique_report_paths(tmp_path, "default", "RUN")
    first.plots["bars"].write_bytes(b"taken")  # only one file of the set exists
    second = unique_report_paths(tmp_path, "default", "RUN")
    assert second.json.name == first.json.name.replace(".json", "-2.json")
    assert second.plots["bars"].name.endswith("RUN-2-bars.png")
