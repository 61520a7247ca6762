"""``memory-bench run --resume RESULT.json``: finish an interrupted run.

The run's parameters come from the result file: scenario (generator and every
parameter), seeds, and each backend's spec, resolved options and version.
Whatever the command line also gives (``--scenario``/``--set``,
``--seeds``/``--seed``, ``--backend``) must match the file, or the resume is
refused with one line saying what differs: finishing a run under other
parameters would mix two experiments in one table. The data each seed
generates is regenerated and its hash compared too, so a changed generator is
caught as well, and so is a changed generator version (its metrics may have been
redefined while its data stayed the same). Finished pairs are read from the run's pair files.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory_bench.errors import BadInput
from memory_bench.harness.pair import generate_script
from memory_bench.plugins.manager import LoadedPlugins
from memory_bench.plugins.selection import BackendSelection, select_backends
from memory_bench.results.io import load_result
from memory_bench.results.model import Result
from memory_bench.scenarios.spec import (
    ScenarioError,
    ScenarioSpec,
    load_scenario,
    resolve_scenario,
)

__all__ = ["ResumeError", "ResumePlan", "plan_resume"]


class ResumeError(BadInput):
    """The command line or the installed backends do not match the result file."""


@dataclass
class ResumePlan:
    result: Result
    scenario: ScenarioSpec
    seeds: list[int]
    selections: list[BackendSelection]
    run_id: str

    @property
    def pending(self) -> int:
        """Pairs still to run: those without an ``ok`` run."""
        done = {(b.label, r.seed) for b in self.result.backends for r in b.ok_runs()}
        return sum((s.label, seed) not in done for s in self.selections for seed in self.seeds)


def _first_difference(file: Mapping[str, Any], now: Mapping[str, Any]) -> str | None:
    for key in sorted(set(file) | set(now)):
        if file.get(key) != now.get(key):
            return f"{key} {file.get(key)!r} in the file, {now.get(key)!r} now"
    return None


def _scenario(path: Path, result: Result, plugins: LoadedPlugins, name: str | None,
              overrides: dict[str, str]) -> ScenarioSpec:
    block = result.scenario
    stored = {"name": block.name, "description": block.description,
              "generator": block.generator, "seeds": block.seeds,
              "seed_base": block.seed_base, **block.params}
    try:
        scenario = resolve_scenario(plugins.scenarios, stored, f"scenario in {path}")
    except ScenarioError as exc:
        raise ResumeError(f"cannot resume {path}: {exc}") from None
    given = None
    if name is not None:
        given = load_scenario(name, overrides or None, registry=plugins.scenarios)
    elif overrides:
        given = resolve_scenario(plugins.scenarios, stored, "--set", overrides)
    if given is not None:
        diff = _first_difference({**scenario.to_dict(), **scenario.params},
                                 {**given.to_dict(), **given.params})
        if diff:
            raise ResumeError(f"cannot resume {path}: the scenario differs: {diff}")
    gen = plugins.scenarios.get(block.generator)
    if gen is not None and block.generator_version not in (None, gen.version):
        # its metrics may have been redefined (issue 34's retention): finishing the run
        # would put two definitions in one column
        raise ResumeError(f"cannot resume {path}: generator {block.generator} is version "
                          f"{gen.version} now, {block.generator_version} in the file")
    for seed, digest in sorted(block.data_hashes.items()):
        try:
            now = generate_script(plugins, scenario.ref(), int(seed)).data_hash
        except Exception as exc:
            raise ResumeError(f"cannot resume {path}: seed {seed} cannot be generated "
                              f"again: {type(exc).__name__}: {exc}") from None
        if now != digest:
            raise ResumeError(
                f"cannot resume {path}: seed {seed} now generates other data (hash {now[:19]}…, "
                f"file {digest[:19]}…); the generator changed"
            )
    return scenario


def _selections(path: Path, result: Result, plugins: LoadedPlugins, specs: Sequence[str]
                ) -> list[BackendSelection]:
    stored = result.backends
    from_file = select_backends(plugins.registry, [b.spec for b in stored])
    if specs:
        given = select_backends(plugins.registry, specs)
        want = [(s.label, s.options) for s in from_file]
        got = [(s.label, s.options) for s in given]
        if want != got:
            raise ResumeError(
                f"cannot resume {path}: the backends differ: the file has "
                f"{', '.join(s.spec for s in from_file)}; the command line asks for "
                f"{', '.join(s.spec for s in given)}"
            )
    for entry, sel in zip(stored, from_file, strict=True):
        if entry.options != sel.options:
            diff = _first_difference(entry.options, sel.options)
            raise ResumeError(
                f"cannot resume {path}: backend {sel.label}'s options differ: {diff} "
                "(a changed default?)"
            )
        if entry.version != sel.info.version:
            raise ResumeError(
                f"cannot resume {path}: backend {sel.label} is version {sel.info.version} now, "
                f"{entry.version} in the file"
            )
    return from_file


def plan_resume(
    path: Path,
    plugins: LoadedPlugins,
    *,
    scenario: str | None = None,
    overrides: dict[str, str] | None = None,
    seeds: list[int] | None = None,
    seed_count: int | None = None,
    specs: Sequence[str] = (),
) -> ResumePlan:
    """Check ``path`` against the command line and the installed plugins.

    ``scenario`` (a name or file) with ``overrides`` (``--set``), ``seeds`` (or
    ``seed_count``, as ``--seeds N``) and ``specs`` are what the command line
    gave (None / empty when not given: the file's are used).
    """
    result = load_result(path)
    resolved = _scenario(path, result, plugins, scenario, overrides or {})
    stored_seeds = list(result.seeds)
    if seed_count is not None:
        seeds = resolved.seed_list(seed_count)
    if seeds is not None and seeds != stored_seeds:
        raise ResumeError(
            f"cannot resume {path}: the seeds differ: {stored_seeds} in the file, {seeds} now"
        )
    selections = _selections(path, result, plugins, specs)
    return ResumePlan(result, resolved, stored_seeds, selections, result.run_id)
