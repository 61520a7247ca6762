"""``memory-bench run --resume RESULT.json``: finish an interrupted run.

The run's parameters come from the result file: scenario (every parameter),
seeds, and each backend's spec, resolved options and version. Whatever the
command line also gives (``--scenario``/``--set``, ``--seeds``/``--seed``,
``--backend``) must match the file, or the resume is refused with one line
saying what differs: finishing a run under other parameters would mix two
experiments in one table. The data each seed generates is regenerated and its
hash compared too, so a changed generator is caught as well.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory_bench.generators import generate
from memory_bench.registry import BackendRegistry
from memory_bench.result import load_result, scenario_params
from memory_bench.scenario import Scenario, ScenarioError, load_scenario
from memory_bench.selection import BackendSelection, select_backends

__all__ = ["ResumeError", "ResumePlan", "plan_resume"]


class ResumeError(ValueError):
    """The command line or the installed backends do not match the result file."""


@dataclass
class ResumePlan:
    result: dict[str, Any]
    scenario: Scenario
    seeds: list[int]
    selections: list[BackendSelection]
    run_id: str

    @property
    def pending(self) -> int:
        """Pairs still to run: those without an ``ok`` run."""
        done = {
            (b["label"], r.get("seed"))
            for b in self.result["backends"]
            for r in b.get("runs", [])
            if r.get("status") == "ok"
        }
        return sum((s.label, seed) not in done for s in self.selections for seed in self.seeds)


def _first_difference(file: dict[str, Any], now: dict[str, Any]) -> str | None:
    for key in sorted(set(file) | set(now)):
        if file.get(key) != now.get(key):
            return f"{key} {file.get(key)!r} in the file, {now.get(key)!r} now"
    return None


def _scenario(
    path: Path, result: dict[str, Any], name: str | None, overrides: dict[str, str]
) -> Scenario:
    stored = scenario_params(result)
    try:
        scenario = Scenario.from_dict(stored, origin=f"scenario in {path}")
    except ScenarioError as exc:
        raise ResumeError(f"cannot resume {path}: {exc}") from None
    given = None
    if name is not None:
        given = load_scenario(name, overrides or None)
    elif overrides:
        given = scenario.with_overrides(overrides)
    if given is not None:
        diff = _first_difference(scenario.to_dict(), given.to_dict())
        if diff:
            raise ResumeError(f"cannot resume {path}: the scenario differs: {diff}")
    for seed, digest in sorted(result["scenario"].get("data_hashes", {}).items()):
        now = generate(scenario, int(seed)).items_hash()
        if now != digest:
            raise ResumeError(
                f"cannot resume {path}: seed {seed} now generates other data (hash {now[:19]}…, "
                f"file {digest[:19]}…); the generator changed"
            )
    return scenario


def _selections(
    path: Path, result: dict[str, Any], registry: BackendRegistry, specs: Sequence[str]
) -> list[BackendSelection]:
    stored = result["backends"]
    from_file = select_backends(registry, [b["spec"] for b in stored])
    if specs:
        given = select_backends(registry, specs)
        want = [(s.label, s.options) for s in from_file]
        got = [(s.label, s.options) for s in given]
        if want != got:
            raise ResumeError(
                f"cannot resume {path}: the backends differ: the file has "
                f"{', '.join(s.spec for s in from_file)}; the command line asks for "
                f"{', '.join(s.spec for s in given)}"
            )
    for entry, sel in zip(stored, from_file, strict=True):
        if entry.get("options") != sel.options:
            diff = _first_difference(entry.get("options") or {}, sel.options)
            raise ResumeError(
                f"cannot resume {path}: backend {sel.label}'s options differ: {diff} "
                "(a changed default?)"
            )
        if entry.get("version") != sel.info.version:
            raise ResumeError(
                f"cannot resume {path}: backend {sel.label} is version {sel.info.version} now, "
                f"{entry.get('version')} in the file"
            )
    return from_file


def plan_resume(
    path: Path,
    registry: BackendRegistry,
    *,
    scenario: str | None = None,
    overrides: dict[str, str] | None = None,
    seeds: list[int] | None = None,
    seed_count: int | None = None,
    specs: Sequence[str] = (),
) -> ResumePlan:
    """Check ``path`` against the command line and the installed backends.

    ``scenario`` (a name or file) with ``overrides`` (``--set``), ``seeds`` (or
    ``seed_count``, as ``--seeds N``) and ``specs`` are what the command line
    gave (None / empty when not given: the file's are used).
    """
    result = load_result(path)
    resolved = _scenario(path, result, scenario, overrides or {})
    stored_seeds = [int(s) for s in result["seeds"]]
    if seed_count is not None:
        seeds = resolved.seed_list(seed_count)
    if seeds is not None and seeds != stored_seeds:
        raise ResumeError(
            f"cannot resume {path}: the seeds differ: {stored_seeds} in the file, {seeds} now"
        )
    selections = _selections(path, result, registry, specs)
    return ResumePlan(result, resolved, stored_seeds, selections, str(result["run_id"]))
