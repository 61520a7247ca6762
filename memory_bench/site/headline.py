"""The headline manifest (``reports/headline.toml``): which published files lead each scenario.

One small file says, per scenario, which result files are its headline (the rows the
leaderboard's index ranks, the files the README's headline table quotes), which other
runs are still current (an exploit audit, a same-encoder control), and, by leaving
them out, which are superseded: the site folds those away and marks them. After a
scenario is published again, pointing ``results`` at the new files is the whole edit.

::

    format = "memory-bench-headline/1"
    [scenarios.hard]
    results = ["2026-12-02-hard-20261202T035256-a262-stores"]   # file stems
    also = ["2026-12-02-hard-20261202T042517-4c51"]             # current, not headline
    rank = "recall1_before"                                      # the index's order

A scenario the manifest does not name has no headline: its runs are listed newest
first, none folded.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory_bench.errors import BadInput

__all__ = ["FORMAT", "MANIFEST", "Headline", "HeadlineError", "load_headlines", "status_of"]

MANIFEST = "headline.toml"
FORMAT = "memory-bench-headline/1"
HEADLINE, CURRENT, SUPERSEDED = "headline", "current", "superseded"


class HeadlineError(BadInput):
    """A manifest that cannot be read: one line, nothing built."""


@dataclass(frozen=True)
class Headline:
    scenario: str
    results: tuple[str, ...]
    also: tuple[str, ...] = ()
    rank: str | None = None


def _stems(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise HeadlineError(f"{where} must be a list of file stems (names without .json.gz)")
    return tuple(v.removesuffix(".json.gz").removesuffix(".json") for v in value)


def load_headlines(reports: Path) -> dict[str, Headline]:
    """The manifest of ``reports`` by scenario, in its order; {} when there is none."""
    path = reports / MANIFEST
    if not path.is_file():
        return {}
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise HeadlineError(f"{path.name} is not valid TOML: {exc}") from None
    if doc.get("format") != FORMAT:
        raise HeadlineError(f"{path.name}: format must be {FORMAT!r}")
    scenarios = doc.get("scenarios", {})
    if not isinstance(scenarios, dict):
        raise HeadlineError(f"{path.name}: [scenarios] must be tables, one per scenario")
    out = {}
    for name, entry in scenarios.items():
        where = f"{path.name}: scenarios.{name}"
        if not isinstance(entry, dict):
            raise HeadlineError(f"{where} must be a table")
        unknown = sorted(set(entry) - {"results", "also", "rank"})
        if unknown:
            raise HeadlineError(f"{where}: unknown key {unknown[0]!r} (results, also, rank)")
        rank = entry.get("rank")
        if rank is not None and not isinstance(rank, str):
            raise HeadlineError(f"{where}.rank must be a metric name")
        out[name] = Headline(name, _stems(entry.get("results"), f"{where}.results"),
                             _stems(entry.get("also", []), f"{where}.also"), rank)
    return out


def status_of(stem: str, scenario: str, headlines: dict[str, Headline]) -> str:
    """``headline``, ``current`` or ``superseded`` for a run or sweep of ``scenario``."""
    entry = headlines.get(scenario)
    if entry is None:
        return CURRENT
    if stem in entry.results:
        return HEADLINE
    return CURRENT if stem in entry.also else SUPERSEDED
