"""The headline manifest (reports/headline.toml): what it names is published, the README
quotes the hard headline, and the site ranks the headline's rows on its index and folds
superseded runs on the scenario page."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from memory_bench.site import build_site
from memory_bench.site.headline import HeadlineError, load_headlines

ROOT = Path(__file__).resolve().parent.parent
REPORTS = ROOT / "reports"
OLD = "2026-12-05-hard-20261205T084556-5752-gate"
NEW = "2026-12-06-hard-20261206T000000-beef-gate"  # the same files under a newer name


def test_every_named_file_is_published_and_the_readme_quotes_the_hard_headline() -> None:
    headlines = load_headlines(REPORTS)
    assert "hard" in headlines and headlines["hard"].results
    for h in headlines.values():
        for stem in (*h.results, *h.also):
            assert (REPORTS / f"{stem}.json.gz").is_file() or \
                (REPORTS / f"{stem}.json").is_file(), stem
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    head = readme[readme.index("## The headline"):]
    assert f"reports/{headlines['hard'].results[0]}." in head


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    reports = tmp_path_factory.mktemp("reports")
    for p in REPORTS.glob(f"{OLD}*"):
        shutil.copyfile(p, reports / p.name)
        shutil.copyfile(p, reports / p.name.replace(OLD, NEW))
    (reports / "headline.toml").write_text(
        'format = "memory-bench-headline/1"\n[scenarios.hard]\n'
        f'results = ["{OLD}"]\nrank = "recall1_before"\n')
    out = tmp_path_factory.mktemp("site") / "leaderboard"
    lines: list[str] = []
    summary = build_site(reports, out, say=lines.append)
    assert summary.runs == 2 and summary.bytes > 0
    assert lines[0].startswith("reading 1/2 ") and "budget" in lines[-1]
    return out


def test_the_index_ranks_the_headline_rows_with_intervals(built: Path) -> None:
    index = (built / "index.html").read_text()
    section = index[index.index('<h2 id="hard">'):index.index("<h2>Every run</h2>")]
    assert OLD in section and NEW not in section.split("superseded")[0]
    assert "ranked by recall@1 (higher is better)" in section
    ranks = re.findall(r'<tr><td data-v="(\d+)">\d+</td><td class="l"><a [^>]*>([^<]+)</a></td>'
                       r'<td data-v="([0-9.e-]+)"', section)
    assert [int(r) for r, _, _ in ranks] == list(range(1, len(ranks) + 1)) and len(ranks) > 2
    recall = [float(v) for _, _, v in ranks]
    assert recall == sorted(recall, reverse=True)  # best first
    assert '<span class="ci">±' in section  # intervals, not bare means
    assert "1 superseded run(s)" in section


def test_the_scenario_page_puts_the_headline_first_and_folds_the_superseded(
        built: Path) -> None:
    page = (built / "scenario-hard.html").read_text()
    head, old = page.index(f'id="{OLD}"'), page.index(f'id="{NEW}"')
    fold = page.index('<details class="superseded">')
    assert head < fold < old  # the newer file is superseded: folded, after the headline
    assert 'superseded</span>' in page[old - 200:old + 400] or "tag old" in page[fold:]


def test_a_bad_manifest_is_one_line_and_an_unknown_stem_is_named(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / "headline.toml").write_text('format = "memory-bench-headline/1"\n'
                                           '[scenarios.hard]\nresults = "x"\n')
    with pytest.raises(HeadlineError, match="results must be a list of file stems"):
        load_headlines(reports)
    (reports / "headline.toml").write_text('format = "memory-bench-headline/1"\n'
                                           '[scenarios.hard]\nresults = ["gone"]\n')
    summary = build_site(reports, tmp_path / "site")
    assert ("headline.toml", "names gone, which is not published here") in summary.skipped
