"""Every result file the README or docs cite as current is analysed so that no verdict
points against its own interval and no seed-level sign-flip p is 0; a file cited as
history is labelled superseded where it is cited."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
from pathlib import Path

import pytest
from archive_script import archive_script

ROOT = Path(__file__).resolve().parents[1]
REPORTS = ROOT / "reports"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
        *sorted(ROOT.glob("backends/*/README.md"))]
CITED = re.compile(r"reports/(\d{4}-\d\d-\d\d-[a-z0-9-]+?-\d{8}T\d{6}-[0-9a-f]{4}"
                   r"(?:-[a-z0-9]+)*?)(?:-quality-latency|-quality|-cost|-bars)?"
                   r"(?:\.json\.gz|\.json|\.md|\.html|\.csv|\.png|\.\*)")
# A set the docs cite as history: on the branch reports-archive (scripts/archive_reports.py)
# and named in code type, `STEM`, where it is cited; or still under reports/ while
# reports/headline.toml supersedes it.
ARCHIVED = re.compile(r"`(\d{4}-\d\d-\d\d-[a-z0-9-]+?-\d{8}T\d{6}-[0-9a-f]{4}(?:-[a-z0-9]+)*)`")


def _archived() -> dict[str, list[tuple[Path, int]]]:
    """Stem named in code type -> where; only names no file under reports/ carries."""
    out: dict[str, list[tuple[Path, int]]] = {}
    for doc in DOCS:
        for m in ARCHIVED.finditer(doc.read_text()):
            if not _files(m.group(1)):
                out.setdefault(m.group(1), []).append((doc, m.start()))
    return out


def _citations() -> dict[str, list[tuple[Path, int]]]:
    """Cited stem -> where (file, offset) it is cited."""
    out: dict[str, list[tuple[Path, int]]] = {}
    for doc in DOCS:
        text = doc.read_text()
        for m in CITED.finditer(text):
            if text[max(0, m.start() - 1)] != ":":  # not `git show REV:reports/…`
                out.setdefault(m.group(1), []).append((doc, m.start()))
    return out


# `git show REV:reports/NAME`: a file read from history (left the tree before the archive).
FROM_HISTORY = re.compile(r"\b([0-9a-f]{7,40}):" + CITED.pattern)


def _files(stem: str) -> list[Path]:
    """The result files of a cited stem (a sweep's are one per size)."""
    return sorted(p for p in REPORTS.glob(f"{stem}*.json.gz")
                  if p.name == f"{stem}.json.gz" or p.name.startswith(f"{stem}-size-"))


def _against(c: dict) -> bool:
    """An ahead/behind verdict whose effect's interval reaches 0 or beyond."""
    if c.get("verdict") not in ("ahead", "behind"):
        return False
    paired = c.get("effect") is not None
    effect = c["effect"] if paired else c.get("mean_diff")
    low, high = (c.get("effect_low"), c.get("effect_high")) if paired else (
        c.get("ci_low"), c.get("ci_high"))
    if effect is None or low is None or high is None:
        return False
    return low <= 0 if effect > 0 else high >= 0


SUPERSEDED = set(archive_script().superseded_files(REPORTS))
CURRENT = sorted(s for s in _citations() if s not in SUPERSEDED)


def test_the_citations_are_found_and_name_files() -> None:
    assert len(CURRENT) >= 15
    missing = [s for s in CURRENT if not _files(s)]
    assert not missing, f"cited, no result file: {missing}"


def test_no_superseded_set_is_linked_from_the_working_tree() -> None:
    """The manifest's superseded sets leave reports/ (make archive-reports APPLY=1)."""
    assert not SUPERSEDED, f"superseded, still under reports/: {sorted(SUPERSEDED)}"


def test_each_archived_set_is_on_the_archive_branch() -> None:
    archived = _archived()
    assert archived, "no set named in code type: the pattern no longer matches the docs"
    ref = archive_script().archive_ref(ROOT)
    if ref is None:
        pytest.skip("no reports-archive branch in this clone (a single-branch clone)")
    listed = subprocess.run(["git", "ls-tree", "--name-only", f"{ref}:reports"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.split()
    missing = [s for s in archived if f"{s}.json.gz" not in listed and f"{s}.md" not in listed]
    assert not missing, f"named as archived, not on {ref}: {missing}"


def test_each_file_read_from_history_is_there() -> None:
    for doc in DOCS:
        for m in FROM_HISTORY.finditer(doc.read_text()):
            rev, path = m.group(1), m.group(0).split(":", 1)[1]
            if subprocess.run(["git", "cat-file", "-e", rev], cwd=ROOT,
                              capture_output=True).returncode != 0:
                pytest.skip(f"{rev} is not in this clone (a shallow clone)")
            found = subprocess.run(["git", "cat-file", "-e", f"{rev}:{path}"], cwd=ROOT,
                                   capture_output=True).returncode == 0
            assert found, f"{doc.name}: {rev}:{path} does not exist"


def test_each_superseded_file_is_labelled_so_where_it_is_cited() -> None:
    cited = {**_citations(), **_archived()}
    for stem in {*SUPERSEDED, *_archived()}:
        for doc, at in cited.get(stem, []):
            text = doc.read_text()
            end = text.find("\n\n", at)
            # its section, up to the end of the paragraph that cites it
            around = text[max(0, text.rfind("\n#", 0, at)):end if end > 0 else None]
            assert "uperseded" in around, f"{doc.name} cites {stem} without 'superseded'"


@pytest.mark.slow
@pytest.mark.parametrize("stem", CURRENT)
def test_a_current_file_has_no_verdict_against_its_interval(stem: str) -> None:
    for path in _files(stem):
        doc = json.loads(gzip.decompress(path.read_bytes()))
        comparisons = doc.get("comparisons") or []
        bad = [(c["a"], c["b"], c["metric"]) for c in comparisons if _against(c)]
        assert not bad, f"{path.name}: verdicts against their interval: {bad[:3]}"
        zero = [(c["a"], c["b"], c["metric"]) for c in comparisons
                if c.get("p_sign_flip") == 0 or (c.get("test") == "seed-sign-flip"
                                                  and c.get("p") == 0)]
        assert not zero, f"{path.name}: sign-flip p of 0: {zero[:3]}"
        assert (doc.get("analysis") or {}).get("version", 0) >= 4, path.name
