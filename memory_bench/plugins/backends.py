"""The registry a plugin adds its backends to, and what it keeps about each."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memory_bench.contract.backend import Backend, BackendContext, ContractError
from memory_bench.contract.capabilities import Capability, parse_capabilities
from memory_bench.contract.items import STRUCTURE
from memory_bench.contract.naming import check_name
from memory_bench.contract.options import Option
from memory_bench.errors import BadInput

__all__ = [
    "KINDS",
    "BackendFactory",
    "BackendInfo",
    "BackendManifest",
    "BackendOwnStore",
    "BackendPreload",
    "BackendRegistry",
    "BackendVectors",
    "DuplicateBackendError",
    "PluginExit",
]

BackendFactory = Callable[[dict[str, Any], BackendContext], Backend]
# Loads, once per run in the harness process, what every pair would load (a model's
# weights, heavy imports), so that pairs forked from it start warm. Called with the
# resolved options and the run's cache directory. It must not start threads or run
# torch inference: the harness forks after it (see memory_bench.harness.isolation).
BackendPreload = Callable[[dict[str, Any], Path | None], None]
# What the manifest should record about a configured backend (its model and weights
# hash, say), from its resolved options: JSON-able, with no absolute paths.
BackendManifest = Callable[[dict[str, Any]], dict[str, Any]]
# The embedder identity a configured backend reads vectors with, and how to build the
# run's table of them (encode once: contract.vectors.VectorSource), or None when these
# options encode nothing (rshl's lexical encoder) or keep their own encoder.
BackendVectors = Callable[[dict[str, Any]], Any]
# Do these options give each pair a store of its own, in its workdir (not a directory or
# server the user named)? Then a persistent backend's pairs may run in parallel.
BackendOwnStore = Callable[[dict[str, Any]], bool]


class DuplicateBackendError(BadInput):
    """Two plugins claimed one backend name."""


class PluginExit(RuntimeError):
    """Plugin code tried to end the process (``sys.exit``): the pair fails, named."""


_REQUIRED = ("write", "query", "remove", "count", "close")
# What a backend is, for listings (honest rows first): a memory system, a retrieval
# baseline, or an exploit-audit row (a base plus a rule that reads the protocol).
KINDS = ("system", "baseline", "audit")


@dataclass(frozen=True)
class BackendInfo:
    """Everything known about a backend without creating it."""

    name: str
    factory: BackendFactory = field(repr=False, compare=False)
    description: str
    version: str
    capabilities: frozenset[Capability]
    options: tuple[Option, ...] = ()
    plugin: str = "<unknown>"  # the plugin (entry point or object) that added it
    # Honest notes the report repeats, e.g. "uses subject/relation tags to supersede".
    notes: tuple[str, ...] = ()
    preload: BackendPreload | None = field(default=None, repr=False, compare=False)
    manifest: BackendManifest | None = field(default=None, repr=False, compare=False)
    vectors: BackendVectors | None = field(default=None, repr=False, compare=False)
    own_store: BackendOwnStore | None = field(default=None, repr=False, compare=False)
    # Distributions whose versions the run's manifest records (e.g. "faiss-cpu").
    libraries: tuple[str, ...] = ()
    # Item structure read whatever the options (beyond text, source, timestamp).
    reads: tuple[str, ...] = ()
    # The seeds it was tuned on, by scenario or generator name ("*": any): a row scored
    # on them is "in-sample" (its own tuning data), labelled so in every report.
    tuned_on: tuple[tuple[str, tuple[int, ...]], ...] = ()
    kind: str = "system"  # one of KINDS

    def has(self, capability: Capability | str) -> bool:
        return Capability(capability) in self.capabilities

    def shares_store(self, options: Mapping[str, Any]) -> bool:
        """Do pairs of this configuration share one store (so must run one at a time)?
        A persistent backend's do unless it declares these options give each pair its
        own store (``own_store``); a backend that is not persistent never shares."""
        if Capability.PERSISTENT not in self.capabilities_for(options):
            return False
        return self.own_store is None or not self.own_store(dict(options))

    def create(self, options: Mapping[str, Any], ctx: BackendContext) -> Backend:
        """The backend from its factory, checked: a factory that exits the process
        (``sys.exit``) or returns something that is not a backend is an error that
        names the backend and its plugin, never a silent exit or an AttributeError."""
        try:
            backend = self.factory(dict(options), ctx)
        except SystemExit as exc:
            raise PluginExit(f"backend {self.name} (plugin {self.plugin}): its factory "
                             f"called sys.exit({exc.code!r})") from None
        missing = [m for m in _REQUIRED if not callable(getattr(backend, m, None))]
        if missing:
            raise ContractError(f"backend {self.name} (plugin {self.plugin}): its factory "
                                f"returned {type(backend).__name__}, not a backend (no "
                                f"{', '.join(missing)})")
        return backend

    def capabilities_for(self, options: Mapping[str, Any]) -> frozenset[Capability]:
        """The declared capabilities plus those the chosen option values grant."""
        granted = [c for o in self.options for c in o.grants.get(options.get(o.name), ())]
        return self.capabilities | parse_capabilities(granted)

    def reads_for(self, options: Mapping[str, Any]) -> tuple[str, ...]:
        """The item structure this configuration reads: declared, plus what the
        chosen option values make it read (``supersede=tags`` reads ``tags``)."""
        out = dict.fromkeys(self.reads)
        for o in self.options:
            out.update(dict.fromkeys(o.reads.get(options.get(o.name), ())))
        return tuple(out)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "description": self.description,
            "version": self.version,
            "capabilities": sorted(c.value for c in self.capabilities),
            "options": [o.to_dict() for o in self.options],
            "plugin": self.plugin,
            "notes": list(self.notes),
            "libraries": list(self.libraries),
            "reads": list(self.reads),
        }


class BackendRegistry:
    """Collects backends from every plugin; the host owns validation and duplicates."""

    def __init__(self) -> None:
        self._backends: dict[str, BackendInfo] = {}
        self._current_plugin = "<unknown>"

    def _set_plugin(self, plugin: str) -> None:
        self._current_plugin = plugin

    def add(
        self,
        name: str,
        *,
        factory: BackendFactory,
        description: str,
        version: str,
        capabilities: Iterable[str | Capability] = (),
        options: Sequence[Option] = (),
        notes: Sequence[str] = (),
        preload: BackendPreload | None = None,
        manifest: BackendManifest | None = None,
        vectors: BackendVectors | None = None,
        own_store: BackendOwnStore | None = None,
        libraries: Sequence[str] = (),
        reads: Sequence[str] = (),
        tuned_on: Mapping[str, Iterable[int]] | None = None,
        kind: str = "system",
    ) -> None:
        """Register one backend. Raises on a bad name or one already taken.

        ``reads`` names item structure the backend reads beyond text, source and
        timestamp (``tags``, ``region``, ``id``); an option whose values change that
        says so itself (``Option.reads``), as one that adds a capability does
        (``Option.grants``). ``tuned_on`` names the seeds its settings were chosen on,
        by scenario or generator name (``"*"``: any), e.g. ``{"hard": range(100, 110)}``:
        a row scored on them is labelled in-sample. ``kind`` (:data:`KINDS`) places it in
        listings: a memory ``system``, a retrieval ``baseline``, or an exploit ``audit``
        row (listed last)."""
        check_name("backend", name, self._current_plugin)
        if kind not in KINDS:
            raise ValueError(f"backend {name}: kind {kind!r} is not one of {', '.join(KINDS)}")
        if not callable(factory):
            raise TypeError(f"backend {name}: factory is not callable")
        for what, fn in (("preload", preload), ("manifest", manifest), ("vectors", vectors),
                         ("own_store", own_store)):
            if fn is not None and not callable(fn):
                raise TypeError(f"backend {name}: {what} is not callable")
        names = [o.name for o in options]
        if len(names) != len(set(names)):
            raise ValueError(f"backend {name}: an option is declared twice")
        for o in options:
            parse_capabilities(c for caps in o.grants.values() for c in caps)
        structure = [*reads, *(f for o in options for fs in o.reads.values() for f in fs)]
        unknown = sorted(set(structure) - set(STRUCTURE))
        if unknown:
            raise ValueError(f"backend {name}: reads {unknown[0]!r}, not item structure "
                             f"({', '.join(STRUCTURE)})")
        if name in self._backends:
            first = self._backends[name].plugin
            raise DuplicateBackendError(
                f"backend name {name!r} is claimed by two plugins: {first} and "
                f"{self._current_plugin}"
            )
        self._backends[name] = BackendInfo(
            name=name,
            factory=factory,
            description=description,
            version=version,
            capabilities=parse_capabilities(capabilities),
            options=tuple(options),
            plugin=self._current_plugin,
            notes=tuple(notes),
            preload=preload,
            manifest=manifest,
            tuned_on=tuple((str(k), tuple(sorted({int(x) for x in v})))
                           for k, v in (tuned_on or {}).items()),
            vectors=vectors,
            own_store=own_store,
            libraries=tuple(libraries),
            reads=tuple(reads),
            kind=kind,
        )

    def get(self, name: str) -> BackendInfo | None:
        return self._backends.get(name)

    def names(self) -> list[str]:
        """Backend names, sorted: never in the order the filesystem gave."""
        return sorted(self._backends)

    def all(self) -> list[BackendInfo]:
        return [self._backends[n] for n in self.names()]

    def listed(self) -> list[BackendInfo]:
        """For listings: systems, then baselines, then audit rows; by name within."""
        return sorted(self._backends.values(), key=lambda b: (KINDS.index(b.kind), b.name))
