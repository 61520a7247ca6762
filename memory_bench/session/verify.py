"""``memory-bench verify RESULT``: is this result fit to stand as a leaderboard entry?

Every check reads the file and, where it can, recomputes what the file claims:

- **complete**: the run finished and every backend has a successful run on every seed;
- **provenance**: a git commit is recorded and the checkout was clean;
- **versions**: memory-bench's and the libraries' versions, each backend's version,
  and each backend package's hash (``package_sha256``; files written before it
  existed get a warning, not a failure);
- **records**: every successful run keeps its per-question records;
- **ids**: item ids are unique within each run;
- **data**: every seed's data, generated again at the recorded parameters, has the
  recorded hash (a dataset whose file is not here: a warning);
- **questions**: every run asked exactly the questions of its seed's data;
- **metrics**: every metric of every run, recomputed from its records, equals the
  recorded value;
- **analysis**: the summaries, paired tests and verdicts, recomputed from the runs,
  equal the recorded ones.

Each check gives ``ok``, ``warn`` or ``FAIL`` with one line; any FAIL fails the entry.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from memory_bench.plugins.manager import LoadedPlugins
from memory_bench.results.model import Result

__all__ = ["Finding", "is_verified", "record_path", "verify_result", "write_record"]

TOLERANCE = 1e-9


@dataclass(frozen=True)
class Finding:
    check: str
    status: str  # ok | warn | FAIL
    line: str

    def __str__(self) -> str:
        return f"{self.status:<4} {self.check}: {self.line}"


def _close(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is b
    if isinstance(a, float | int) and isinstance(b, float | int):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return math.isclose(a, b, rel_tol=TOLERANCE, abs_tol=TOLERANCE)
    return bool(a == b)


def _complete(r: Result) -> Finding:
    missing = [f"{b.label} seed {s}" for b in r.backends for s in r.seeds
               if (run := b.run_for(s)) is None or not run.ok]
    if r.status != "complete":
        return Finding("complete", "FAIL", f"the run is {r.status}")
    if missing:
        return Finding("complete", "FAIL", f"{len(missing)} pair(s) without a successful run "
                       f"(first: {missing[0]})")
    return Finding("complete", "ok", f"{len(r.backends)} backend(s) x {len(r.seeds)} seed(s)")


def _provenance(r: Result) -> Finding:
    git = r.manifest.get("git")
    if not isinstance(git, dict) or not git.get("commit"):
        return Finding("provenance", "FAIL", "no git commit recorded")
    if git.get("dirty") is not False:
        return Finding("provenance", "FAIL", f"made from a dirty checkout on "
                       f"{str(git['commit'])[:12]}")
    return Finding("provenance", "ok", f"clean checkout at {str(git['commit'])[:12]}")


def _versions(r: Result) -> Finding:
    m = r.manifest
    if not m.get("memory_bench") or not m.get("libraries"):
        return Finding("versions", "FAIL", "memory-bench's or the libraries' versions are "
                       "not recorded")
    backends = m.get("backends") or {}
    unversioned = [b.label for b in r.backends
                   if not (backends.get(b.label) or {}).get("version") and not b.version]
    if unversioned:
        return Finding("versions", "FAIL", f"no version for {', '.join(unversioned)}")
    unhashed = [b.label for b in r.backends
                if not (backends.get(b.label) or {}).get("package_sha256")]
    if unhashed:
        return Finding("versions", "warn", f"versions recorded; no package hash for "
                       f"{len(unhashed)} backend(s) (the file predates them)")
    return Finding("versions", "ok", "versions and backend package hashes recorded")


def _runs(r: Result) -> Iterator[tuple[str, Any]]:
    for b in r.backends:
        for run in b.ok_runs():
            yield b.label, run


def _records(r: Result) -> Finding:
    bare = [f"{label} seed {run.seed}" for label, run in _runs(r)
            if run.records is None or not run.records.probes]
    if bare:
        return Finding("records", "FAIL", f"{len(bare)} run(s) without per-question records "
                       f"(first: {bare[0]})")
    return Finding("records", "ok", "every run keeps its records")


def _ids(r: Result) -> Finding:
    for label, run in _runs(r):
        if run.records is None:
            continue
        items = [i.id for i in run.records.items]
        if len(items) != len(set(items)):
            return Finding("ids", "FAIL", f"{label} seed {run.seed}: an item id repeats")
    return Finding("ids", "ok", "item ids unique in every run")


def _data(r: Result, plugins: LoadedPlugins) -> tuple[list[Finding], dict[int, Any]]:
    """The data check, and the scripts it generated (seed -> script) for the next one."""
    from memory_bench.harness.pair import generate_script
    from memory_bench.scenarios.spec import resolve_scenario

    block = r.scenario
    stored = {"name": block.name, "description": block.description,
              "generator": block.generator, "seeds": block.seeds,
              "seed_base": block.seed_base, **block.params}
    scripts: dict[int, Any] = {}
    try:
        scenario = resolve_scenario(plugins.scenarios, stored, "scenario in the result")
        for seed in r.seeds:
            scripts[seed] = generate_script(plugins, scenario.ref(), seed)
    except Exception as exc:  # a dataset file not here, a generator not installed
        return [Finding("data", "warn", f"not generated again here ({type(exc).__name__}: "
                        f"{str(exc)[:160]})")], {}
    wrong = [s for s, script in scripts.items()
             if block.data_hashes.get(str(s)) != script.data_hash]
    runs = [f"{label} seed {run.seed}" for label, run in _runs(r)
            if run.data_hash != block.data_hashes.get(str(run.seed))]
    if wrong or runs:
        what = (f"seed {wrong[0]} generates data with another hash" if wrong
                else f"{runs[0]} records another data hash than its seed's")
        return [Finding("data", "FAIL", what)], scripts
    return [Finding("data", "ok", f"{len(scripts)} seed(s) generate the recorded data")], scripts


def _questions(r: Result, scripts: dict[int, Any]) -> Finding:
    if not scripts:
        return Finding("questions", "warn", "not checked: the data was not generated again")
    for b in r.backends:
        for run in b.ok_runs():
            script = scripts.get(run.seed)
            if script is None or run.records is None:
                continue
            # The questions the harness asks this backend: a step needing a capability
            # it lacks is skipped (harness/execute.py); one asked twice counts twice.
            want = Counter((p.tag, p.key) for p in script.probes()
                           if p.needs is None or p.needs.value in b.capabilities)
            got = Counter((p.tag, p.key) for p in run.records.probes)
            if want != got:
                gone = sum((want - got).values())
                extra = sum((got - want).values())
                return Finding("questions", "FAIL", f"{b.label} seed {run.seed}: {gone} of "
                               f"the data's {sum(want.values())} question(s) missing, {extra} "
                               "not in the data")
    return Finding("questions", "ok", "every run asked exactly its seed's questions")


def _metrics(r: Result, plugins: LoadedPlugins) -> Finding:
    from memory_bench.metrics.spec import compute_metrics

    gen = plugins.scenarios.get(r.scenario.generator)
    if gen is None:
        return Finding("metrics", "warn", f"generator {r.scenario.generator!r} not installed")
    checked = 0
    for b in r.backends:
        for run in b.ok_runs():
            if run.records is None:
                continue
            again = compute_metrics(gen.metrics, run.records, b.capabilities)
            for name, value in run.metrics.items():
                if name in again and not _close(again[name], value):
                    return Finding("metrics", "FAIL", f"{b.label} seed {run.seed} {name}: "
                                   f"recorded {value!r}, the records give {again[name]!r}")
                checked += name in again
    return Finding("metrics", "ok", f"{checked} values recomputed from the records")


def _analysis(r: Result) -> Finding:
    from memory_bench.analysis.compare import analyse

    if r.comparisons is None:
        return Finding("analysis", "FAIL", "no paired comparisons recorded")
    again = analyse(copy.deepcopy(r))
    for b, nb in zip(r.backends, again.backends, strict=True):
        for key, s in b.summary.items():
            n = nb.summary.get(key)
            if n is not None and not _close(s.mean, n.mean):
                return Finding("analysis", "FAIL", f"{b.label} {key}: mean {s.mean!r} "
                               f"recorded, {n.mean!r} recomputed")
    new = {(c.a, c.b, c.metric): c for c in again.comparisons or []}
    for c in r.comparisons:
        n = new.get((c.a, c.b, c.metric))
        if n is None:
            return Finding("analysis", "FAIL", f"{c.a} vs {c.b} {c.metric}: not recomputed")
        for field in ("verdict", "effect", "effect_low", "effect_high", "p", "p_holm"):
            if not _close(getattr(c, field), getattr(n, field)):
                return Finding("analysis", "FAIL", f"{c.a} vs {c.b} {c.metric}: {field} "
                               f"{getattr(c, field)!r} recorded, {getattr(n, field)!r} "
                               "recomputed")
    return Finding("analysis", "ok", f"{len(r.comparisons)} comparisons and every summary "
                   "recomputed")


def verify_result(r: Result, plugins: LoadedPlugins) -> list[Finding]:
    """Every check of the module docstring, in order."""
    out = [_complete(r), _provenance(r), _versions(r), _records(r), _ids(r)]
    data, scripts = _data(r, plugins)
    out += [*data, _questions(r, scripts), _metrics(r, plugins), _analysis(r)]
    return out


# -- the record the site reads ------------------------------------------------------------

RECORD_SCHEMA = "memory-bench-verify/1"


def record_path(result: Path) -> Path:
    """``<stem>.verified`` beside the result (not ``.json``: the site reads those as
    results)."""
    stem = result.name.removesuffix(".gz").removesuffix(".json")
    return result.with_name(f"{stem}.verified")


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_record(result: Path, findings: list[Finding]) -> Path:
    """Write the verification beside the result, naming the exact bytes it checked;
    never over an earlier record (BadInput)."""
    from memory_bench import __version__
    from memory_bench.errors import BadInput
    from memory_bench.results.io import now_iso

    out = record_path(result)
    doc = {"schema": RECORD_SCHEMA, "result": result.name, "result_sha256": _sha256(result),
           "verified": all(f.status != "FAIL" for f in findings), "at": now_iso(),
           "memory_bench": __version__, "checks": [asdict(f) for f in findings]}
    try:
        with out.open("x") as fh:
            json.dump(doc, fh, indent=1)
    except FileExistsError:
        raise BadInput(f"{out.name} exists: a verification is never overwritten") from None
    return out


def is_verified(result: Path) -> bool:
    """Does a record beside ``result`` say it verified, for these exact bytes?"""
    path = record_path(result)
    try:
        doc = json.loads(path.read_text())
        return (doc.get("schema") == RECORD_SCHEMA and doc.get("verified") is True
                and doc.get("result_sha256") == _sha256(result))
    except (OSError, ValueError, AttributeError):
        return False
