"""The leaderboard site, built from real published files and looked at in headless Chromium.

The inputs are copies of small published report sets (the hard run's gate part, the
BEAM run, and one size of the scale sweep with its summary), so the site is built by the
project's own reader from files a real run wrote.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from headless import Chromium, chromium_path

from memory_bench.site import MARKER, SiteError, build_site
from memory_bench.site.__main__ import main

ROOT = Path(__file__).resolve().parent.parent
REPORTS = ROOT / "reports"
RUNS = ("2026-12-05-hard-20261205T084556-5752-gate", "2026-12-04-beam-20261201T192734-6644")
SWEEP = "2026-12-02-sweep-scale-20261202T124554-2def"
WIDTHS = (1400, 390)


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("reports")
    names = [p for stem in (*RUNS, SWEEP) for p in REPORTS.glob(f"{stem}*")
             if "-size-" not in p.name]
    for p in [*names, REPORTS / f"{SWEEP}-size-1000000.json.gz"]:
        shutil.copyfile(p, out / p.name)
    (out / "notes.json").write_text('{"not": "a result"}\n')
    return out


@pytest.fixture(scope="module")
def site(reports: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("built") / "leaderboard"
    summary = build_site(reports, out)
    assert summary.runs == 3 and summary.sweeps == 1
    assert [name for name, _ in summary.skipped] == ["notes.json"]
    return out


@pytest.fixture(scope="module")
def browser():
    if chromium_path() is None:
        pytest.skip("chromium is not installed (Debian: apt-get install chromium; "
                    "`make test` installs it when run as root)")
    b = Chromium()
    yield b
    b.close()


def test_site_has_a_page_per_scenario_and_the_report_sets(site: Path, reports: Path) -> None:
    assert {p.name for p in site.glob("*.html")} == {
        "index.html", "scenario-beam.html", "scenario-hard.html", "scenario-scale.html"}
    assert (site / MARKER).is_file() and (site / "sort.js").is_file()
    index = (site / "index.html").read_text()
    assert "notes.json" in index  # a file it could not read is named, not dropped
    assert "<script src=\"sort.js\"></script>" in index and "http" not in index
    page = (site / "scenario-hard.html").read_text()
    for suffix in (".html", ".md", ".csv", "-bars.png", "-quality-latency.png"):
        name = f"files/{RUNS[0]}{suffix}"
        assert f'"{name}"' in page and (site / name).is_file(), name
    # The result JSON (most of reports/' size) is linked where it is published, not copied.
    assert not list(site.glob("files/*.json.gz"))
    href = re.search(rf'href="([^"]*{RUNS[0]}\.json\.gz)"', page).group(1)  # type: ignore[union-attr]
    assert (site / href).resolve() == (reports / f"{RUNS[0]}.json.gz").resolve(), href
    # The table's cells carry their mean to sort by; an unsupported metric sorts last.
    assert 'data-v="0.' in page and 'data-v=""' in page
    scale = (site / "scenario-scale.html").read_text()
    assert f"files/{SWEEP}-quality.png" in scale and "store size 1,000,000" in scale


def test_a_second_build_replaces_its_own_site_and_never_a_users_directory(
        reports: Path, site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (site / "stale.html").write_text("old")
    assert main([str(reports), str(site)]) == 0
    assert not (site / "stale.html").exists()
    assert "site: " in capsys.readouterr().out
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("keep me")
    assert main([str(reports), str(mine)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "never overwritten" in err[0]
    assert [p.name for p in mine.iterdir()] == ["thesis.tex"]
    with pytest.raises(SiteError, match="must not contain"):
        build_site(reports, reports / "site")
    assert main([str(tmp_path / "nowhere"), str(tmp_path / "out")]) == 2
    assert not (tmp_path / "out").exists()


def _dead_pid() -> int:
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    return int(proc.stdout)


def test_a_killed_builds_leftovers_are_removed_and_nothing_else(
        reports: Path, tmp_path: Path) -> None:
    """A build killed between its two renames left the old site as .NAME.old-PID (and
    no site); one killed while writing left .NAME.new-PID-*. The next build removes
    both once that PID is dead; a live build's, and anything not of this shape, stay."""
    out = tmp_path / "leaderboard"
    dead = _dead_pid()
    old = tmp_path / f".leaderboard.old-{dead}"
    old.mkdir()
    (old / MARKER).write_text("")
    new = tmp_path / f".leaderboard.new-{dead}-x1y2"
    new.mkdir()
    live = tmp_path / f".leaderboard.new-{os.getpid()}-a1b2"  # a build still running
    live.mkdir()
    unmarked = tmp_path / f".leaderboard.old-{dead + 1_000_000}"  # no marker: not a site
    unmarked.mkdir()
    users = tmp_path / ".leaderboard.notes"
    users.mkdir()
    build_site(reports, out)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted(["leaderboard", live.name, unmarked.name, users.name]), left


@pytest.mark.parametrize("width", WIDTHS)
def test_no_page_overflows_at_desktop_or_phone_width(site: Path, browser: Chromium,
                                                     width: int, tmp_path: Path) -> None:
    for page in sorted(site.glob("*.html")):
        shot = tmp_path / f"{page.stem}-{width}.png"
        got = browser.measure(page.as_uri(), width, screenshot=shot)
        assert got["innerWidth"] == width
        assert got["scrollWidth"] <= got["innerWidth"], (page.name, got)
        assert not got["wide"], (page.name, got)
        if width >= 1400:  # every column in view: no table box scrolls (folded ones too)
            assert got["scrolling"] == [], (page.name, got["scrolling"])
        assert got["tables"] >= 1 and shot.stat().st_size > 1000
        if page.name == "scenario-hard.html":
            assert got["images"] == 2  # both plots load from the copied files


def test_clicking_a_heading_sorts_the_table(site: Path, browser: Chromium) -> None:
    read = ("Array.from(document.querySelector('table.sortable').tBodies[0].rows)"
            ".map(r => r.cells[0].textContent)")
    with browser.tab((site / "scenario-hard.html").as_uri(), 1400) as tab:
        before = browser.evaluate(tab, read)
        heads = "document.querySelector('table.sortable').tHead.rows[0].cells"
        col = browser.evaluate(tab, f"Array.from({heads}).findIndex(h => "
                                    "h.textContent === 'recall@1')")
        assert col > 1
        browser.evaluate(tab, f"{heads}[{col}].click()")
        values = ("Array.from(document.querySelector('table.sortable').tBodies[0].rows)"
                  f".map(r => r.cells[{col}].getAttribute('data-v'))")
        ascending = [float(v) for v in browser.evaluate(tab, values) if v]
        browser.evaluate(tab, f"{heads}[{col}].click()")
        descending = [float(v) for v in browser.evaluate(tab, values) if v]
        assert ascending == sorted(ascending) and descending == sorted(ascending, reverse=True)
        assert sorted(browser.evaluate(tab, read)) == sorted(before)
        assert browser.evaluate(tab, f"{heads}[{col}].getAttribute('aria-sort')") == \
            "descending"


def test_the_site_reads_results_with_the_projects_reader(reports: Path, tmp_path: Path) -> None:
    """A damaged result is named with the reader's own one-line reason."""
    bad = tmp_path / "reports"
    bad.mkdir()
    (bad / "2026-01-01-x-r.json").write_text(json.dumps({"schema": "memory-bench/2.0",
                                                         "run_id": 7}))
    summary = build_site(bad, tmp_path / "site")
    assert summary.runs == 0
    assert summary.skipped[0][0] == "2026-01-01-x-r.json"
    assert "run_id" in summary.skipped[0][1] and str(tmp_path) not in summary.skipped[0][1]


@pytest.mark.parametrize("summary", [
    {"scenario": "smoke", "sizes": "q"},
    {"scenario": "smoke", "sizes": [1e999, "<script>"]},
    {"scenario": "smoke", "sizes": [True]},
    {"scenario": ["smoke"], "sizes": [1000]},
])
def test_a_malformed_sweep_summary_is_skipped_with_its_reason(tmp_path: Path,
                                                               summary: dict) -> None:
    """A hand-edited or foreign sweep summary (read as plain JSON) is named as skipped,
    never a crash of the whole build."""
    bad = tmp_path / "reports"
    bad.mkdir()
    (bad / "x-sweep.json").write_text(json.dumps({"schema": "memory-bench-sweep/1.0",
                                                  **summary}))
    built = build_site(bad, tmp_path / "site")
    assert built.sweeps == 0
    ((name, why),) = built.skipped
    assert name == "x-sweep.json" and "sweep summary" in why
