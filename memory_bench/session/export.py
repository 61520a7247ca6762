"""``memory-bench export`` and ``memory-bench validate``: a script as a JSONL file, and
a JSONL file checked line by line.

Export writes one seed's script of any generator (templated, natural, a dataset,
a plugin's) in the ``memory-bench-jsonl/1`` format that the ``jsonl`` scenario
reads, so a user has a complete example of the format and can run the same
items and questions elsewhere. The file is written whole or not at all, and
never over an existing one.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from memory_bench.harness.pair import generate_script
from memory_bench.plugins.manager import LoadedPlugins
from memory_bench.results.paths import OutputError, check_writable
from memory_bench.scenarios.datasets.common import read_data_file
from memory_bench.scenarios.datasets.jsonl import FORMAT, Parsed, Problem, script_records
from memory_bench.scenarios.datasets.jsonl import validate as validate_text
from memory_bench.scenarios.spec import ScenarioSpec

__all__ = ["Validation", "export_script", "validate_file"]


def export_script(plugins: LoadedPlugins, scenario: ScenarioSpec, seed: int, out: Path) -> int:
    """Write ``scenario``'s script of ``seed`` to ``out``; the number of lines written."""
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
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            for record in script_records(script, made_by):
                fh.write(json.dumps(record, ensure_ascii=False) + "\n")
                lines += 1
        if out.exists():  # appeared while we wrote: still never overwrite
            raise OutputError(f"{out} exists; export never overwrites a file")
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
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


