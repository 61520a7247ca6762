"""The registry a plugin adds its scenario generators to, and what it keeps about each.

A generator turns (parameters, seed) into a :class:`~memory_bench.scenarios.script.Script`.
It declares its parameters exactly as a backend declares options (name, type,
default, bounds, help), the metrics its script is scored with, and optionally a
check of the parameters together (``updates`` at most ``facts``, a dataset
file that exists), the caveats a report of it must state, and, for a fixed data
file, how many seeds it has (a dataset's seeds are its folds).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memory_bench.contract.naming import check_name
from memory_bench.contract.options import Option
from memory_bench.errors import BadInput

if TYPE_CHECKING:
    from memory_bench.metrics.spec import Metric
    from memory_bench.scenarios.script import Script

__all__ = [
    "DuplicateScenarioError",
    "GeneratorInfo",
    "ScenarioRegistry",
    "default_registry",
    "set_default_registry",
]

Params = Mapping[str, Any]
Generate = Callable[[Params, int], "Script"]
# Parameters together: None when usable, else one line saying why not.
Check = Callable[[Params], str | None]
# What a report must say about data made with these parameters, given the
# per-seed data_stats: sentences, most important first.
Caveats = Callable[[Params, Mapping[str, Any]], list[str]]
# How many distinct seeds the data has for these parameters (a dataset's seeds are
# the folds of its file: seed i is fold i); None or absent: any seed.
SeedCount = Callable[[Params], int]


class DuplicateScenarioError(BadInput):
    """Two plugins claimed one generator name."""


@dataclass(frozen=True)
class GeneratorInfo:
    """Everything known about a scenario generator without running it."""

    name: str
    generate: Generate = field(repr=False, compare=False)
    description: str
    version: str
    parameters: tuple[Option, ...]
    metrics: tuple[Metric, ...] = field(repr=False, compare=False, default=())
    check: Check | None = field(default=None, repr=False, compare=False)
    caveats: Caveats | None = field(default=None, repr=False, compare=False)
    plugin: str = "<unknown>"
    notes: tuple[str, ...] = ()
    seed_count: SeedCount | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "version": self.version,
            "parameters": [o.to_dict() for o in self.parameters],
            "metrics": [m.name for m in self.metrics],
            "plugin": self.plugin,
            "notes": list(self.notes),
        }


class ScenarioRegistry:
    """Collects generators from every plugin; the host owns validation and duplicates."""

    def __init__(self) -> None:
        self._generators: dict[str, GeneratorInfo] = {}
        self._current_plugin = "<unknown>"

    def _set_plugin(self, plugin: str) -> None:
        self._current_plugin = plugin

    def add(
        self,
        name: str,
        *,
        generate: Generate,
        description: str,
        version: str,
        parameters: Sequence[Option] = (),
        metrics: Sequence[Metric] = (),
        check: Check | None = None,
        caveats: Caveats | None = None,
        notes: Sequence[str] = (),
        seed_count: SeedCount | None = None,
    ) -> None:
        """Register one generator. Raises on a bad name, one already taken, or a
        parameter the harness reserves."""
        from memory_bench.metrics.spec import Metric

        check_name("generator", name, self._current_plugin)
        for what, fn in (("generate", generate), ("check", check), ("caveats", caveats),
                         ("seed_count", seed_count)):
            if fn is not None and not callable(fn):
                raise TypeError(f"generator {name}: {what} is not callable")
        names = [o.name for o in parameters]
        if len(names) != len(set(names)):
            raise ValueError(f"generator {name}: a parameter is declared twice")
        reserved = sorted(set(names) & RESERVED)
        if reserved:
            raise ValueError(f"generator {name}: parameter {reserved[0]!r} is reserved for "
                             "the scenario file")
        if not metrics or not all(isinstance(m, Metric) for m in metrics):
            raise TypeError(f"generator {name}: metrics must be a non-empty list of Metric")
        metric_names = [m.name for m in metrics]
        if len(metric_names) != len(set(metric_names)):
            raise ValueError(f"generator {name}: a metric is declared twice")
        if name in self._generators:
            first = self._generators[name].plugin
            raise DuplicateScenarioError(
                f"generator name {name!r} is claimed by two plugins: {first} and "
                f"{self._current_plugin}"
            )
        self._generators[name] = GeneratorInfo(
            name=name, generate=generate, description=description, version=version,
            parameters=tuple(parameters), metrics=tuple(metrics), check=check,
            caveats=caveats, plugin=self._current_plugin, notes=tuple(notes),
            seed_count=seed_count,
        )

    def get(self, name: str) -> GeneratorInfo | None:
        return self._generators.get(name)

    def names(self) -> list[str]:
        return sorted(self._generators)

    def all(self) -> list[GeneratorInfo]:
        return [self._generators[n] for n in self.names()]


# Keys a scenario file gives the harness, never a generator.
RESERVED = frozenset({"name", "description", "generator", "seeds", "seed_base"})


# This process's registry, for callers that name none (``load_scenario("hard")``).
# The plugins layer, which loads every generator, installs it when it is imported,
# so this layer never imports the one above it.
_default_provider: list[Callable[[], ScenarioRegistry]] = []


def set_default_registry(provider: Callable[[], ScenarioRegistry]) -> None:
    _default_provider[:] = [provider]


def default_registry() -> ScenarioRegistry:
    """This process's scenario generators (``memory_bench.plugins.default_plugins``)."""
    if not _default_provider:  # memory_bench/__init__ imports the plugins layer first
        raise RuntimeError("no plugin manager is loaded to provide scenario generators")
    return _default_provider[0]()
