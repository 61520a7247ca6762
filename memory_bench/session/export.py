"""``memory-bench export`` and ``memory-bench validate``: a script as a JSONL file or a
runbook, and a JSONL file checked line by line.

Export writes one seed's script of any generator (templated, natural, a dataset,
a plugin's) in the ``memory-bench-jsonl/1`` format that the ``jsonl`` scenario
reads, or (``--format runbook``) as a ``memory-bench-runbook/1`` TOML file that the
``runbook`` scenario runs with the same metrics, so a user has a complete example
of the format and can run the same items and questions elsewhere. The file is
written whole or not at all, never over an existing one, and a runbook is read
back before it is kept.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from memory_bench.harness.pair import generate_script
from memory_bench.plugins.manager import LoadedPlugins
from memory_bench.results.io import new_file_mode
from memory_bench.results.paths import OutputError, check_writable
from memory_bench.scenarios.datasets.common import read_data_file
from memory_bench.scenarios.datasets.jsonl import FORMAT, Parsed, Problem, script_records
from memory_bench.scenarios.datasets.jsonl import validate as validate_text
from memory_bench.scenarios.script import Script
from memory_bench.scenarios.spec import ScenarioSpec

__all__ = ["FORMATS", "Validation", "export_script", "validate_file"]

FORMATS = ("jsonl", "runbook")


def _runbook_text(script: Script, made_by: dict) -> tuple[str, int]:
    """The runbook of ``script`` and its step count, checked by reading it back."""
    from memory_bench.scenarios.runbook.format import parse
    from memory_bench.scenarios.runbook.writer import dumps, script_runbook

    doc = script_runbook(script, made_by)
    text = dumps(doc)
    parse(text, "the exported runbook")  # raises RunbookError: never keep a file we cannot run
    return text, len(doc["step"])


def export_script(plugins: LoadedPlugins, scenario: ScenarioSpec, seed: int, out: Path,
                  fmt: str = "jsonl") -> int:
    """Write ``scenario``'s script of ``seed`` to ``out`` as ``fmt``; the number of lines
    (JSONL) or steps (runbook) written."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r} (known: {', '.join(FORMATS)})")
    scenario.check_seeds([seed])
    if out.exists():
        raise OutputError(f"{out} exists; export never overwrites a file")
    check_writable(out)
    script = generate_script(plugins, scenario.ref(), seed)
    made_by = {"scenario": scenario.name, "generator": scenario.generator,
               "params": dict(scenario.params), "seed": seed, "k": script.k,
               "data_hash": script.data_hash}
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent)
    lines = 0
    try:
        os.fchmod(fd, new_file_mode())  # as open() makes a file, not mkstemp's 0600
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            if fmt == "runbook":
                text, lines = _runbook_text(script, made_by)
                fh.write(text)
            for record in script_records(script, made_by) if fmt == "jsonl" else ():
                fh.write(json.dumps(record, ensure_ascii=False) + "\n")
                lines += 1
        try:
            os.link(tmp, out)  # fails if the name was taken while we wrote: never replaced
        except FileExistsError:
            raise OutputError(f"{out} exists; export never overwrites a file") from None
    finally:
        Path(tmp).unlink(missing_ok=True)
    return lines


@dataclass(frozen=True)
class Validation:
    name: str
    parsed: Parsed | None
    problems: list[Problem]

    def summary(self) -> str:
        if self.parsed is None:
            return f"{self.name}: {len(self.problems)} problem(s); not a valid {FORMAT} file"
        p = self.parsed
        tags = ", ".join(f"{t} {n}" for t, n in p.tags().items())
        return (f"{self.name}: valid {FORMAT}: {p.episodes} episode(s), {p.count('item')} "
                f"item(s), {p.count('probe')} probe(s) ({tags})")


def validate_file(path: Path) -> Validation:
    """Every problem of a JSONL file; raises DatasetError when it cannot be read at all."""
    data_file = read_data_file(path)
    parsed, problems = validate_text(data_file)
    return Validation(str(path), parsed, problems)


