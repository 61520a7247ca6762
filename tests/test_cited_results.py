"""Every result file the README or docs cite as current is analysed so that no verdict
points against its own interval and no seed-level sign-flip p is 0; a file cited as
history is labelled superseded where it is cited."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
REPORTS = ROOT / "reports"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
        *sorted(ROOT.glob("backends/*/README.md"))]
CITED = re.compile(r"reports/(\d{4}-\d\d-\d\d-[a-z0-9-]+?-\d{8}T\d{6}-[0-9a-f]{4}"
                   r"(?:-[a-z0-9]+)*?)(?:-quality-latency|-quality|-cost|-bars)?"
                   r"(?:\.json\.gz|\.json|\.md|\.html|\.csv|\.png|\.\*)")
# Kept as published, cited as history: the docs say "superseded" beside each citation.
SUPERSEDED = {
    "2026-11-29-default-20261129T175509-43ab", "2026-11-29-natural-20261129T175734-20d2",
    "2026-12-01-beam-20261201T192734-6644", "2026-12-01-hard-20261201T122250-beed",
    "2026-12-01-hard-20261201T124148-4e34", "2026-12-01-hard-20261201T205033-8df6-2",
    "2026-12-01-hard-audit-20261201T205033-8df6", "2026-12-01-locomo-20261201T130912-b6a6",
    "2026-12-01-natural-20261201T124129-fcfe", "2026-12-01-sweep-scale-20261201T130122-78c5",
    # the phased stream's hard files, superseded by the blind stream (2026-12-04)
    "2026-12-02-hard-20261202T035256-a262-stores", "2026-12-02-hard-20261202T035256-a262-systems",
    "2026-12-02-hard-20261202T042316-bc92", "2026-12-02-hard-20261202T042517-4c51",
    "2026-12-02-hard-20261202T064628-a3cf",
}


def _citations() -> dict[str, list[tuple[Path, int]]]:
    """Cited stem -> where (file, offset) it is cited."""
    out: dict[str, list[tuple[Path, int]]] = {}
    for doc in DOCS:
        for m in CITED.finditer(doc.read_text()):
            out.setdefault(m.group(1), []).append((doc, m.start()))
    return out


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


CURRENT = sorted(s for s in _citations() if s not in SUPERSEDED)


def test_the_citations_are_found_and_name_files() -> None:
    assert len(CURRENT) >= 15
    missing = [s for s in CURRENT if not _files(s)]
    assert not missing, f"cited, no result file: {missing}"


def test_each_superseded_file_is_labelled_so_where_it_is_cited() -> None:
    cited = _citations()
    for stem in SUPERSEDED:
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
