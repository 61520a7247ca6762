"""The README and docs/ a new user reads: short, linked, and a site that builds.

Every relative link of README.md and docs/*.md must name a file (and a heading, for
a Markdown target); ``mkdocs build --strict`` must pass, so a broken link or anchor
fails here before it reaches a reader.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
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
        "pic.png: names no file", "../../x.md: leaves the repository"]  # in page order


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


def test_make_docs_builds_strict(tmp_path: Path) -> None:
    """``make docs`` itself (the target a user runs, --strict), with this interpreter's
    environment taken as built (``-o`` its stamp: nothing installed) and the site
    written under tmp_path instead of site/docs."""
    if shutil.which("make") is None:
        pytest.skip("no make on this machine")
    venv = Path(sys.executable).parent.parent
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run(
        ["make", "-s", "-C", str(ROOT), "docs", f"VENV={venv}",
         "-o", f"{venv}/.memory-bench-installed", f"DOCS_OUT={tmp_path / 'site'}"],
        capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    assert (tmp_path / "site" / "statistics.html").is_file()
    assert not list((tmp_path / "site").glob("**/*.md"))  # pages, not copies


def test_a_wrapped_link_is_checked_and_rewritten(tmp_path: Path) -> None:
    """A link whose text wraps onto the next line is checked like any other."""
    links = _doclinks()
    page = tmp_path / "a.md"
    page.write_text("see [the\nrun](missing.md) and [ok](a.md)\n")
    assert [b.split(": ", 1)[1] for b in links.broken_links(page, tmp_path)] == [
        "missing.md: names no file"]
