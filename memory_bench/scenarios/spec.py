"""Scenario files: a generator's name and its parameters, read from TOML and validated.

A scenario file names its generator and sets parameters; the harness keeps
``name``, ``description``, ``seeds`` and ``seed_base`` for itself, and every
other key is a parameter of the generator, validated against its declaration
as a backend's options are (unknown key, wrong type, NaN, out of bounds). Then
the generator checks its parameters together (``updates`` at most ``facts``,
a data file that exists, ...).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memory_bench.contract.options import Option, OptionError, resolve_options
from memory_bench.errors import BadInput
from memory_bench.records import stricttoml
from memory_bench.scenarios.registry import (
    RESERVED,
    GeneratorInfo,
    ScenarioRegistry,
    default_registry,
)

__all__ = [
    "ScenarioError",
    "ScenarioSpec",
    "describe_scenario_files",
    "find_scenario",
    "list_scenario_files",
    "load_scenario",
    "resolve_scenario",
    "scenario_dirs",
]

_REPO = Path(__file__).resolve().parents[2]
DEFAULT_GENERATOR = "templated"
_HARNESS_OPTIONS = (
    Option("seeds", int, 5, "how many seeds a run uses unless told otherwise", minimum=1,
           maximum=10_000),
    Option("seed_base", int, 0, "seeds are seed_base, seed_base+1, ...", minimum=0,
           maximum=2**31),
)


class ScenarioError(BadInput):
    """A scenario file or parameter that cannot be used."""


def scenario_dirs() -> tuple[Path, ...]:
    """Where scenario names are looked up: ./scenarios, then the checkout's, then the
    copy an installed wheel carries (``files``: a link to the checkout's in the tree)."""
    return (Path.cwd() / "scenarios", _REPO / "scenarios", Path(__file__).parent / "files")


@dataclass(frozen=True)
class ScenarioSpec:
    """A resolved scenario: its generator and every parameter (defaults filled in)."""

    name: str
    generator: str
    params: dict[str, Any] = field(default_factory=dict)
    description: str = ""
    seeds: int = 5
    seed_base: int = 0
    seed_count: int | None = None  # a dataset's seeds are its folds: 0 .. seed_count - 1

    def check_seeds(self, seeds: list[int]) -> None:
        """Refuse a seed the data does not have (one line)."""
        if self.seed_count is None:
            return
        bad = [s for s in seeds if not 0 <= s < self.seed_count]
        if bad:
            raise ScenarioError(
                f"scenario {self.name}: seed {bad[0]} does not exist: its data has "
                f"{self.seed_count} fold(s), seeds 0-{self.seed_count - 1} (a dataset's seeds "
                "are the folds of its file; --set folds=N changes how many)")

    def seed_list(self, count: int | None = None) -> list[int]:
        return [self.seed_base + i for i in range(self.seeds if count is None else count)]

    def ref(self) -> dict[str, Any]:
        """Plain data a worker resolves by itself (a pair spec carries it)."""
        return {"name": self.name, "generator": self.generator, "params": dict(self.params)}

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description,
                "generator": self.generator, "params": dict(self.params),
                "seeds": self.seeds, "seed_base": self.seed_base}


def _generator(registry: ScenarioRegistry, name: Any, origin: str) -> GeneratorInfo:
    if not isinstance(name, str):
        raise ScenarioError(f"{origin}: generator must be a string, got {name!r}")
    info = registry.get(name)
    if info is None:
        known = ", ".join(registry.names()) or "none"
        raise ScenarioError(f"{origin}: unknown generator {name!r} (known: {known})")
    return info


def resolve_scenario(
    registry: ScenarioRegistry, data: Mapping[str, Any], origin: str,
    overrides: Mapping[str, Any] | None = None, *, check: bool = True,
) -> ScenarioSpec:
    """Validate a scenario's keys (a file's, then ``--set`` overrides) into a spec.

    ``check`` False skips the generator's check of the parameters together: a
    file whose data path comes from ``--set`` is checked once, with it."""
    merged = {**data, **(overrides or {})}
    for key in ("name", "description"):
        if key in merged and not isinstance(merged[key], str):
            raise ScenarioError(f"{origin}: {key} must be a string, got {merged[key]!r}")
    name = merged.get("name") or "scenario"
    # A file written before generators were plugins may name none: it meant templated.
    info = _generator(registry, merged.get("generator", DEFAULT_GENERATOR), origin)
    raw = {k: v for k, v in merged.items() if k not in RESERVED}
    try:
        params = resolve_options(f"generator {info.name}", info.parameters, raw,
                                 what="parameter")
        harness = resolve_options("scenario", _HARNESS_OPTIONS,
                                  {k: merged[k] for k in ("seeds", "seed_base") if k in merged})
    except OptionError as exc:
        raise ScenarioError(f"{origin}: {exc}") from None
    if check and info.check is not None:
        problem = info.check(params)
        if problem:
            raise ScenarioError(f"scenario {name}: {problem}")
    count = info.seed_count(params) if check and info.seed_count is not None else None
    if count is not None and "seeds" not in merged:
        harness["seeds"] = max(1, count - harness["seed_base"])  # every fold by default
    return ScenarioSpec(name=name, generator=info.name, params=params,
                        description=merged.get("description", ""), seed_count=count,
                        **harness)


def find_scenario(name_or_path: str) -> Path:
    """A scenario file: a path, or a name looked up in ``scenarios/``."""
    if not name_or_path.strip():
        raise ScenarioError("--scenario is empty: give a scenario name or a TOML file")
    try:  # a name too long for the filesystem, or holding a NUL, is no file either
        path = Path(name_or_path)
        if path.suffix == ".toml" or path.exists():
            if not path.is_file():
                raise ScenarioError(f"scenario file {name_or_path} does not exist")
            return path
        for directory in scenario_dirs():
            candidate = directory / f"{name_or_path}.toml"
            if candidate.is_file():
                return candidate
    except (OSError, ValueError) as exc:
        if isinstance(exc, ScenarioError):
            raise
        raise ScenarioError(f"--scenario {name_or_path!r} is neither a scenario name nor a "
                            f"readable file ({exc.__class__.__name__})") from None
    known = sorted({p.stem for p, _ in list_scenario_files()})
    raise ScenarioError(
        f"unknown scenario {name_or_path!r} (known: {', '.join(known) or 'none'})"
    )


def list_scenario_files() -> list[tuple[Path, str]]:
    """(file, where) for every scenario file, the first of a name winning."""
    seen: dict[str, tuple[Path, str]] = {}
    for directory, where in zip(scenario_dirs(), ("./scenarios", "memory-bench",
                                                  "memory-bench"), strict=True):
        if directory.is_dir():
            for p in sorted(directory.glob("*.toml")):
                seen.setdefault(p.stem, (p, where))
    return [seen[k] for k in sorted(seen)]


def read_scenario_file(path: Path) -> dict[str, Any]:
    if path.exists() and not path.is_file():  # a FIFO would block the listing for good
        raise ScenarioError(f"scenario file {path} is not a file")
    try:
        text = path.read_text(encoding="utf-8")
        data = stricttoml.loads(text)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ScenarioError(f"scenario file {path} is not valid TOML: {exc}") from None
    except stricttoml.StrictTOMLError as exc:
        raise ScenarioError(f"scenario file {path}: {exc}") from None
    except OSError as exc:
        raise ScenarioError(f"scenario file {path} cannot be read: {exc.strerror}") from None
    if not data:
        raise ScenarioError(f"scenario file {path} is empty: it must name a generator")
    return data


def load_scenario(
    name_or_path: str, overrides: Mapping[str, Any] | None = None, *,
    registry: ScenarioRegistry | None = None,
) -> ScenarioSpec:
    """Read, validate and override a scenario. Raises ScenarioError with one clear line.

    ``registry`` None means this process's plugins (``registry.default_registry``).
    """
    if registry is None:
        registry = default_registry()
    path = find_scenario(name_or_path)
    data = read_scenario_file(path)
    data.setdefault("name", path.stem)
    spec = resolve_scenario(registry, data, f"scenario file {path}", check=not overrides)
    if overrides:
        spec = resolve_scenario(registry, {**data, **spec.params}, "--set", overrides)
    return spec


def describe_scenario_files() -> list[dict[str, Any]]:
    """Every scenario file with its generator and settings (or the error reading it)."""
    files = []
    for path, where in list_scenario_files():
        entry: dict[str, Any] = {"name": path.stem, "file": f"{where}/{path.name}"}
        try:
            data = read_scenario_file(path)
            entry.update(generator=data.get("generator"),
                         description=data.get("description", ""),
                         sets={k: v for k, v in data.items()
                               if k not in ("name", "description", "generator")})
        except ScenarioError as exc:
            entry["error"] = str(exc)
        files.append(entry)
    return files
