"""Scenario parameters: read from TOML, overridable on the command line, validated."""

from __future__ import annotations

import tomllib
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

__all__ = ["Scenario", "ScenarioError", "find_scenario", "load_scenario"]



def scenario_dirs() -> tuple[Path, ...]:
    """Where scenario names are looked up: ./scenarios, then the checkout's."""
    return (Path.cwd() / "scenarios", Path(__file__).resolve().parent.parent / "scenarios")


class ScenarioError(ValueError):
    """A scenario file or parameter that cannot be used."""


@dataclass(frozen=True)
class Scenario:
    """Every number the protocol uses. Defaults are PROTOCOL.md's (METHOD.md's)."""

    name: str = "default"
    description: str = ""
    generator: str = "templated"
    facts: int = 120  # N: facts seeded in phase 1
    noise: int = 600  # M: interfering items in phase 3
    updates: int = 30  # U: facts given a new value in phase 6
    gate_empty: int = 20  # refusable: empty or whitespace
    gate_short: int = 20  # refusable: under 3 words
    gate_duplicate: int = 20  # refusable: exact duplicates of stored texts
    gate_clean: int = 30  # C: clean new facts the gate must accept
    reinforce_cells: int = 10  # S
    reinforce_queries: int = 5  # P
    k: int = 5  # top-k of every probe
    consolidate: bool = False  # phase 4: the backend's sleep, when it has one
    write_batch: int = 32  # items per write call in phases 1 and 3
    region: str = "benchmark"
    seeds: int = 5  # how many seeds a run uses unless told otherwise
    seed_base: int = 0  # seeds are seed_base, seed_base+1, ...

    @property
    def gate_refusable(self) -> int:
        return self.gate_empty + self.gate_short + self.gate_duplicate

    def seed_list(self, count: int | None = None) -> list[int]:
        return [self.seed_base + i for i in range(self.seeds if count is None else count)]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any], origin: str = "scenario") -> Scenario:
        return _validated(cls(), data, origin)

    def with_overrides(self, overrides: dict[str, Any], origin: str = "--set") -> Scenario:
        return _validated(self, overrides, origin)

    def validate(self) -> None:
        positive = ("facts", "noise", "updates", "k", "write_batch", "seeds")
        for name in positive:
            if getattr(self, name) <= 0:
                raise ScenarioError(f"scenario {self.name}: {name} must be positive")
        nonneg = (
            "gate_empty",
            "gate_short",
            "gate_duplicate",
            "gate_clean",
            "reinforce_cells",
            "reinforce_queries",
        )
        for name in nonneg:
            if getattr(self, name) < 0:
                raise ScenarioError(f"scenario {self.name}: {name} must not be negative")
        if self.updates > self.facts:
            raise ScenarioError(f"scenario {self.name}: updates ({self.updates}) > facts")
        if self.reinforce_cells > self.facts - self.updates:
            raise ScenarioError(
                f"scenario {self.name}: reinforce_cells ({self.reinforce_cells}) exceeds the "
                f"facts that are not updated ({self.facts - self.updates})"
            )
        if self.gate_refusable + self.gate_clean == 0 and self.gate_duplicate:
            raise ScenarioError(f"scenario {self.name}: empty gate phase")
        if self.k < 5:
            raise ScenarioError(f"scenario {self.name}: k must be at least 5 (recall@5)")


_TYPES = {f.name: f.type for f in fields(Scenario)}
_PY = {"int": int, "bool": bool, "str": str, "float": float}
_WHAT = {int: "an integer", bool: "a boolean", str: "a string", float: "a number"}


def _coerce(name: str, value: Any, origin: str) -> Any:
    want = _PY[str(_TYPES[name])]
    if isinstance(value, str) and want is not str:
        text = value.strip().lower()
        if want is bool:
            if text in ("1", "true", "yes", "on"):
                return True
            if text in ("0", "false", "no", "off"):
                return False
        else:
            try:
                return want(text)
            except ValueError:
                pass
        raise ScenarioError(f"{origin}: {name} must be {_WHAT[want]}, got {value!r}")
    wrong_int = want is int and isinstance(value, bool)
    if wrong_int or not isinstance(value, want):
        raise ScenarioError(f"{origin}: {name} must be {_WHAT[want]}, got {value!r}")
    return value


def _validated(base: Scenario, data: dict[str, Any], origin: str) -> Scenario:
    unknown = sorted(set(data) - set(_TYPES))
    if unknown:
        raise ScenarioError(f"{origin}: unknown key {unknown[0]!r}")
    values = {k: _coerce(k, v, origin) for k, v in data.items()}
    scenario = replace(base, **values)
    scenario.validate()
    from memory_bench.generators import check_capacity  # the generator knows its limits

    check_capacity(scenario)
    return scenario


def find_scenario(name_or_path: str) -> Path:
    """A scenario file: a path, or a name looked up in ``scenarios/``."""
    path = Path(name_or_path)
    if path.suffix == ".toml" or path.exists():
        if not path.is_file():
            raise ScenarioError(f"scenario file {name_or_path} does not exist")
        return path
    for directory in scenario_dirs():
        candidate = directory / f"{name_or_path}.toml"
        if candidate.is_file():
            return candidate
    known = sorted({p.stem for d in scenario_dirs() if d.is_dir() for p in d.glob("*.toml")})
    raise ScenarioError(
        f"unknown scenario {name_or_path!r} (known: {', '.join(known) or 'none'})"
    )


def load_scenario(name_or_path: str, overrides: dict[str, Any] | None = None) -> Scenario:
    """Read, validate and override a scenario. Raises ScenarioError with one clear line."""
    path = find_scenario(name_or_path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ScenarioError(f"scenario file {path} is not valid TOML: {exc}") from None
    except OSError as exc:
        raise ScenarioError(f"scenario file {path} cannot be read: {exc.strerror}") from None
    data.setdefault("name", path.stem)
    scenario = Scenario.from_dict(data, origin=f"scenario file {path}")
    if overrides:
        scenario = scenario.with_overrides(overrides)
    return scenario
