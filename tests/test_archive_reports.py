"""scripts/archive_reports.py: superseded sets (by reports/headline.toml) go to the
branch reports-archive and leave the working tree; kept sets and unnamed scenarios stay;
a docs link to a set it would move stops it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from archive_script import archive_script

ROOT = Path(__file__).resolve().parent.parent
OLD = "2026-12-01-hard-20261201T122250-beed"
NEW = "2026-12-02-hard-20261202T035256-a262"
OTHER = "2026-11-29-default-20261129T175509-43ab"


def _script():
    return archive_script()


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
                          cwd=repo, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    if subprocess.run(["git", "--version"], capture_output=True).returncode != 0:
        pytest.skip("no git")
    reports = tmp_path / "reports"
    (tmp_path / "docs").mkdir(parents=True)
    reports.mkdir()
    (tmp_path / "README.md").write_text(f"[new](reports/{NEW}.md)\n")
    for stem in (OLD, NEW, OTHER):
        for suffix in (".json.gz", ".md", ".html", "-bars.png"):
            (reports / f"{stem}{suffix}").write_text(stem)
    (reports / "headline.toml").write_text(
        f'format = "memory-bench-headline/1"\n[scenarios.hard]\nresults = ["{NEW}"]\n')
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "-c", "commit.gpgsign=false", "commit", "-qm", "x")
    return tmp_path


def test_superseded_sets_move_to_the_archive_branch(repo: Path, monkeypatch) -> None:
    monkeypatch.setenv("GIT_AUTHOR_NAME", "t")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "t@t")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "t")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "t@t")
    mod = _script()
    assert mod.main(["--root", str(repo)]) == 0  # a dry run moves nothing
    assert (repo / "reports" / f"{OLD}.md").is_file()
    assert mod.main(["--root", str(repo), "--apply"]) == 0
    here = {p.name for p in (repo / "reports").iterdir()}
    assert not any(n.startswith(OLD) for n in here)
    assert {f"{NEW}.md", f"{OTHER}.md", "headline.toml"} <= here  # kept; unnamed scenario
    archived = _git(repo, "ls-tree", "--name-only", "-r", "reports-archive").split()
    assert sorted(archived) == sorted(f"reports/{OLD}{s}"
                                      for s in (".json.gz", ".md", ".html", "-bars.png"))
    assert _git(repo, "show", f"reports-archive:reports/{OLD}.md") == OLD


def test_a_docs_link_to_a_set_it_would_move_stops_it(repo: Path, capsys) -> None:
    (repo / "docs" / "results.md").write_text(f"[old](../reports/{OLD}.md)\n")
    assert _script().main(["--root", str(repo), "--apply"]) == 2
    assert "docs/results.md:1" in capsys.readouterr().err
    assert (repo / "reports" / f"{OLD}.md").is_file()


def test_relink_names_the_archived_set_and_then_it_moves(repo: Path, monkeypatch) -> None:
    """A run of links to one set becomes its name in code type (a descriptive label
    kept); links to kept sets stay links; then --apply goes through."""
    for var in ("GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"):
        monkeypatch.setenv(var, "t")
    for var in ("GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"):
        monkeypatch.setenv(var, "t@t")
    (repo / "docs" / "results.md").write_text(
        f"Old ([Markdown](../reports/{OLD}.md) ·\n[JSON](../reports/{OLD}.json.gz)), "
        f"the [first run](../reports/{OLD}.md), the [new one](../reports/{NEW}.md).\n")
    (repo / "backends" / "x").mkdir(parents=True)
    (repo / "backends" / "x" / "README.md").write_text(f"[hard](../../reports/{OLD}.md)\n")
    mod = _script()
    assert mod.main(["--root", str(repo), "--relink", "--apply"]) == 0
    assert (repo / "docs" / "results.md").read_text() == (
        f"Old (`{OLD}`), the first run (`{OLD}`), the [new one](../reports/{NEW}.md).\n")
    assert (repo / "backends" / "x" / "README.md").read_text() == f"hard (`{OLD}`)\n"
    assert not (repo / "reports" / f"{OLD}.md").exists()
