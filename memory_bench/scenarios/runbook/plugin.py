"""The ``runbook`` scenario: a user's TOML runbook (``--set path=FILE.toml``) as a script.

Registered through the hook a third party uses (an internal plugin, always
loaded); listing generators reads no file. The script's metrics are the
continual protocol's, read by the steps' tags (docs/runbooks.md lists which
tag each metric reads), so a runbook exported from a built-in scenario
(``memory-bench export --format runbook``) scores exactly as the scenario does.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from memory_bench.contract.capabilities import Capability
from memory_bench.contract.hooks import hookimpl
from memory_bench.contract.options import Option
from memory_bench.scenarios.registry import ScenarioRegistry
from memory_bench.scenarios.script import (
    Consolidate,
    Forget,
    Probe,
    ReadStrength,
    Reset,
    Script,
    Step,
    Write,
)

__all__ = ["PARAMETERS", "check", "generate", "memory_bench_register_scenarios",
           "validate_runbook"]

VERSION = "1.1"  # 1.1: the continual metrics of issue 34 (retention, reinforcementDelta)
PARAMETERS = (
    Option("path", str, None, "the runbook (memory-bench-runbook/1, TOML; docs/runbooks.md)"),
)


def _load(params: Mapping[str, Any]) -> tuple[Any, Any]:
    from memory_bench.scenarios.datasets.common import read_data_file, require_path
    from memory_bench.scenarios.runbook.format import RunbookError, parse

    data_file = read_data_file(require_path(params, "a memory-bench-runbook/1 file",
                                            "docs/runbooks.md describes the format"))
    try:
        return data_file, parse(data_file.text, data_file.name)
    except RunbookError as exc:
        from memory_bench.scenarios.datasets.common import DatasetError

        raise DatasetError(str(exc)) from None


def validate_runbook(path: Any) -> tuple[bool, str]:
    """``memory-bench validate FILE.toml``: (ok, one line: the first problem or a summary).
    An unreadable file raises DatasetError, as for a JSONL file."""
    from pathlib import Path

    from memory_bench.scenarios.datasets.common import read_data_file
    from memory_bench.scenarios.runbook.format import RunbookError, parse

    data_file = read_data_file(Path(path))
    try:
        book = parse(data_file.text, data_file.name)
    except RunbookError as exc:
        return False, str(exc)
    return True, (f"{data_file.name}: valid memory-bench-runbook/1: {len(book.steps)} "
                  f"step(s), {sum(len(s.items) for s in book.steps)} item(s), "
                  f"{book.count('ask')} ask(s), {book.count('forget')} forget(s), "
                  f"{book.episodes} episode(s)")


def check(params: Mapping[str, Any]) -> str | None:
    from memory_bench.scenarios.datasets.common import DatasetError

    try:
        _load(params)
    except DatasetError as exc:
        return str(exc)
    return None


def generate(params: Mapping[str, Any], seed: int) -> Script:
    """The runbook's steps as a script; file ids become opaque ids (seeded by the file's
    hash, so a run is reproducible and an id says nothing of what it names)."""
    from memory_bench.scenarios.generators.common import opaque_id

    data_file, book = _load(params)
    rng, taken = random.Random(f"memory-bench/runbook/{data_file.sha256}"), set()
    ids: dict[str, str] = {}

    def m(refs: Any) -> tuple[str, ...]:
        return tuple(ids[r] for r in refs)

    steps: list[Step] = []
    for s in book.steps:
        if s.op in ("write", "update"):
            for it in s.items:
                ids[it.id] = opaque_id(rng, taken)
            steps.append(Write(tuple(replace(it, id=ids[it.id]) for it in s.items), s.tag,
                               s.categories, needs=Capability(s.needs) if s.needs else None,
                               tags=s.roles))
        elif s.op == "ask":
            a = s.ask
            steps.append(Probe(a.question, m(a.gold), a.tag, category=a.category,
                               outrank=m(a.outrank), key=a.key, forgotten=m(a.forgotten),
                               needs=Capability(a.needs) if a.needs else None))
        elif s.op == "forget":
            steps.append(Forget(ids=m(s.ids), source=s.source, forgotten=m(s.forgotten),
                                tag=s.tag))
        elif s.op == "strength":
            steps.append(ReadStrength(m(s.ids), s.tag, s.label))
        elif s.op == "consolidate":
            steps.append(Consolidate(s.tag))
        elif s.op == "reset":
            steps.append(Reset())
    tags = Counter(s.tag for s in steps if isinstance(s, Probe))
    stats = {"file": data_file.stats(), "steps": len(book.steps),
             "items": sum(len(s.items) for s in book.steps), "asks": dict(sorted(tags.items())),
             "forgets": book.count("forget"), "episodes": book.episodes}
    return Script(tuple(steps), k=book.k, seed=seed, data_hash=data_file.sha256, stats=stats)


def caveats(params: Mapping[str, Any], stats: Mapping[str, Any]) -> list[str]:
    first = next(iter(stats.values()), None) if stats else None
    if not first:
        return []
    f = first["file"]
    return [f"Data: the runbook `{f['name']}` (sha256 {f['sha256'][:12]}…): {first['items']:,} "
            f"items, {sum(first['asks'].values()):,} asks and {first['forgets']} forget "
            f"step(s) over {first['steps']:,} steps; one file is one seed, so the run has one "
            "value per metric and backend."]


@hookimpl
def memory_bench_register_scenarios(registry: ScenarioRegistry) -> None:
    from memory_bench.metrics.continual import CONTINUAL_METRICS

    registry.add(
        "runbook", description="your own continual workload as a TOML runbook of steps "
        "(--set path=FILE.toml; docs/runbooks.md)", version=VERSION, parameters=PARAMETERS,
        metrics=CONTINUAL_METRICS, check=check, caveats=caveats, generate=generate,
        seed_count=lambda params: 1,
    )
