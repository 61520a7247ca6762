"""The README and docs/ a new user reads: short, linked, and a site that builds.

Every relative link of README.md and docs/*.md must name a file (and a heading, for
a Markdown target); ``mkdocs build --strict`` must pass, so a broken link or anchor
fails here before it reaches a reader.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SHARED = ROOT.parent / "shared"  # the method note and contract, as handed to the project


def _doclinks():
    spec = importlib.util.spec_from_file_location("doclinks", ROOT / "scripts" / "doclinks.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _pages() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


def test_every_relative_link_resolves() -> None:
    links = _doclinks()
    broken = [b for page in _pages() for b in links.broken_links(page, ROOT)]
    assert not broken, "\n".join(broken)
    # The checker sees the links it should (a regex that matched nothing would pass).
    assert len(links.relative_links((ROOT / "README.md").read_text())) >= 15


def test_link_checker_catches_a_broken_file_and_anchor(tmp_path: Path) -> None:
    links = _doclinks()
    (tmp_path / "a.md").write_text("# Title\n\n## The `x` part\n")
    page = tmp_path / "b.md"
    page.write_text("[ok](a.md#the-x-part) [gone](missing.md) [no](a.md#nowhere)\n"
                    "```\n[in code](ignored.md)\n```\n![img](pic.png) [out](../../x.md)\n")
    got = links.broken_links(page, tmp_path)
    assert [g.split(": ", 1)[1] for g in got] == [
        "missing.md: names no file", "a.md#nowhere: names no heading #nowhere in a.md",
        "../../x.md: leaves the repository", "pic.png: names no file"]


def test_readme_is_short_with_a_quick_start_first() -> None:
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 300
    assert "## Quick start" in lines[:80]
    text = "\n".join(lines)
    for needed in ("make test", "make bench", ".venv/bin/memory-bench",
                   "memory-bench run --scenario hard --backend rshl --backend faiss-rag "
                   "--seeds 1"):
        assert needed in text, needed


@pytest.mark.parametrize("name", ["METHOD.md", "PROTOCOL.md"])
def test_method_and_protocol_are_verbatim(name: str) -> None:
    assert (DOCS / name).is_file()
    if not (SHARED / name).is_file():
        pytest.skip(f"no shared/{name} beside the repository to compare with")
    assert (DOCS / name).read_bytes() == (SHARED / name).read_bytes()


def test_mkdocs_builds_strict(tmp_path: Path) -> None:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
         "-f", str(ROOT / "mkdocs.yml"), "-d", str(tmp_path / "site")],
        capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    built = tmp_path / "site"
    assert (built / "index.html").is_file() and (built / "writing-a-backend.html").is_file()
    # A link out of docs/ is rewritten to the repository file, relative to the page.
    assert 'href="../../reports/2026-12-01-hard-20261201T122250-beed.md"' in \
        (built / "results.html").read_text()
