"""Relative links in the README and docs/: checked, and made to work in the built docs site.

Two uses, one set of rules:

- ``broken_links(md_file, root)`` lists every relative link of a Markdown file whose
  target file, or heading anchor in a Markdown target, does not exist
  (``tests/test_docs.py`` runs it over README.md and docs/);
- as an mkdocs hook (``hooks:`` in mkdocs.yml), links that leave docs/ (reports,
  backends' READMEs, examples) are checked the same way and rewritten to a path
  relative to the built page, so they work when the site is browsed inside the
  repository; mkdocs itself validates the links that stay inside docs/.
"""

from __future__ import annotations

import logging
import os
import re
import unicodedata
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["anchors", "broken_links", "relative_links"]

# A link's text may wrap onto the next line, never over a blank one (a new paragraph).
LINK = re.compile(r"(?<!!)\[((?:[^\[\]\n]|\n(?![ \t]*\n)|\[[^\]\n]*\])*)\]\(([^()\s]+)\)")
IMAGE = re.compile(r"!\[[^\]]*\]\(([^()\s]+)\)")
FENCE = re.compile(r"^(```|~~~)")
log = logging.getLogger("mkdocs.hooks.doclinks")


def _outside_fences(text: str) -> list[tuple[int, str]]:
    """(line number, line) for every line outside fenced code blocks."""
    out, fenced = [], False
    for n, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line.lstrip()):
            fenced = not fenced
        elif not fenced:
            out.append((n, line))
    return out


def _blocks(text: str) -> list[tuple[int, str]]:
    """(first line number, text) of each run of lines outside fenced code blocks: a
    link's text may wrap onto the next line, so links are found in whole runs."""
    out: list[tuple[int, str]] = []
    for n, line in _outside_fences(text):
        if out and out[-1][0] + out[-1][1].count("\n") == n - 1:
            out[-1] = (out[-1][0], out[-1][1] + "\n" + line)
        else:
            out.append((n, line))
    return out


def relative_links(text: str) -> list[tuple[int, str]]:
    """(line, target) of every relative link or image of a Markdown text (a link
    that wraps is found, at the line where it starts)."""
    found = []
    for first, block in _blocks(text):
        block = re.sub(r"`[^`\n]*`", lambda m: "`" + "x" * (len(m.group(0)) - 2) + "`",
                       block)  # no links inside code spans (same length: same offsets)
        matches = [(m.start(), m.group(2)) for m in LINK.finditer(block)]
        matches += [(m.start(), m.group(1)) for m in IMAGE.finditer(block)]
        found += [(first + block.count("\n", 0, at), t) for at, t in sorted(matches)
                  if not re.match(r"[a-z][a-z0-9+.-]*:", t)]
    return found


def _slugs(heading: str) -> set[str]:
    """The anchors a heading gets: GitHub's and Python-Markdown's (mkdocs) spelling."""
    text = re.sub(r"`([^`]*)`", r"\1", heading).strip()
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    github = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    toc = re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", ascii_text).strip().lower())
    return {github, toc}


@cache
def anchors(path: Path) -> frozenset[str]:
    """Every heading anchor of a Markdown file (both spellings; repeats numbered)."""
    seen: dict[str, int] = {}
    out: set[str] = set()
    for _, line in _outside_fences(path.read_text(encoding="utf-8")):
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        for slug in _slugs(m.group(1)):
            k = seen.get(slug, 0)
            out.add(slug if k == 0 else f"{slug}-{k}")
            seen[slug] = k + 1
    return frozenset(out)


def _problem(base: Path, target: str, root: Path) -> str | None:
    path, _, anchor = target.partition("#")
    dest = (base.parent / path).resolve() if path else base.resolve()
    if not dest.is_relative_to(root.resolve()):
        return "leaves the repository"
    if not dest.exists():
        return "names no file"
    if anchor and dest.suffix == ".md" and anchor not in anchors(dest):
        return f"names no heading #{anchor} in {dest.relative_to(root.resolve())}"
    return None


def broken_links(md_file: Path, root: Path) -> list[str]:
    """``file:line: target: why`` for every relative link of ``md_file`` that does not resolve."""
    rel = md_file.resolve().relative_to(root.resolve())
    return [f"{rel}:{n}: {t}: {why}"
            for n, t in relative_links(md_file.read_text(encoding="utf-8"))
            if (why := _problem(md_file, t, root))]


# -- the mkdocs hook ------------------------------------------------------------------


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Check and rewrite the links of a page that point outside docs/ (mkdocs hook)."""
    docs = Path(config["docs_dir"]).resolve()
    root = docs.parent
    src = docs / page.file.src_uri
    site = Path(config["site_dir"]).resolve()
    if not site.is_relative_to(root):  # built elsewhere: links as from the default place
        site = root / "site" / "docs"
    built = site / page.file.dest_uri

    def rewrite(m: re.Match[str]) -> str:
        text, target = m.group(1), m.group(2)
        path, sep, anchor = target.partition("#")
        if re.match(r"[a-z][a-z0-9+.-]*:", target) or not path:
            return m.group(0)
        dest = (src.parent / path).resolve()
        if dest.is_relative_to(docs):
            return m.group(0)  # mkdocs checks these itself
        why = _problem(src, target, root)
        if why:
            log.warning("%s: link %s %s", page.file.src_uri, target, why)
            return m.group(0)
        href = os.path.relpath(dest, built.parent) + sep + anchor
        return f'<a href="{href}">{text}</a>'

    # Runs of lines outside fences, rewritten whole: a link's text may wrap a line.
    parts: list[str] = []
    run: list[str] = []
    fenced = False
    for line in markdown.splitlines(keepends=True):
        if FENCE.match(line.lstrip()):
            if not fenced:
                parts.append(LINK.sub(rewrite, "".join(run)))
                run = []
            fenced = not fenced
            parts.append(line)
        elif fenced:
            parts.append(line)
        else:
            run.append(line)
    parts.append(LINK.sub(rewrite, "".join(run)))
    return "".join(parts)
