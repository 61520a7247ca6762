"""Finding plugins: internal ones, entry points, modules named in the environment, objects.

The first-party scenario generators are an internal plugin, registered through
the same hook a third party implements. Entry points are loaded in sorted order
(never the filesystem's); a plugin that fails to import, or whose hook raises,
is recorded as broken and the others still load. A backend or generator name
claimed twice is an error naming both plugins.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from importlib.metadata import EntryPoint, entry_points
from typing import Any

import pluggy

from memory_bench import crashguard
from memory_bench.contract import hooks as hookspecs
from memory_bench.plugins.backends import BackendRegistry, DuplicateBackendError
from memory_bench.scenarios.registry import (
    DuplicateScenarioError,
    ScenarioRegistry,
    set_default_registry,
)

__all__ = ["INTERNAL_PLUGINS", "BrokenPlugin", "LoadedPlugins", "default_plugins", "load_plugins"]

# Comma-separated module names loaded as plugins, as PYTEST_PLUGINS does for pytest.
ENV_PLUGINS = "MEMORY_BENCH_PLUGINS"
# Set to 1 to skip entry points (only MEMORY_BENCH_PLUGINS and explicit objects load).
ENV_NO_AUTOLOAD = "MEMORY_BENCH_DISABLE_PLUGIN_AUTOLOAD"
# Registered before any other plugin, whatever the environment says (as tox does).
INTERNAL_PLUGINS = ("memory_bench.scenarios.builtin", "memory_bench.scenarios.datasets.plugin",
                    "memory_bench.scenarios.scale.plugin",
                    "memory_bench.scenarios.runbook.plugin")
INTERNAL = "<memory-bench>"


@dataclass(frozen=True)
class BrokenPlugin:
    """A plugin that could not be loaded: where it came from and why."""

    entry_point: str
    distribution: str
    error: str

    def to_dict(self) -> dict[str, str]:
        return {
            "entry_point": self.entry_point,
            "distribution": self.distribution,
            "error": self.error,
        }

    def describe(self) -> str:
        return f"plugin {self.entry_point} (from {self.distribution}) failed to load: {self.error}"


@dataclass
class LoadedPlugins:
    """The result of loading: both registries, the plugins, and the broken ones."""

    registry: BackendRegistry
    plugins: list[tuple[str, str]]  # (plugin name, distribution)
    broken: list[BrokenPlugin]
    scenarios: ScenarioRegistry


def _describe_error(exc: BaseException) -> str:
    if isinstance(exc, SystemExit):
        return f"it called sys.exit({exc.code!r})"
    return f"{type(exc).__name__}: {exc}".strip()


def _entry_points() -> list[EntryPoint]:
    eps = entry_points(group=hookspecs.ENTRY_POINT_GROUP)
    return sorted(eps, key=lambda ep: (ep.name, ep.dist.name if ep.dist else "", ep.value))


def _distribution(ep: EntryPoint) -> str:
    if ep.dist is None:
        return "<unknown distribution>"
    return f"{ep.dist.name} {ep.dist.version}"


def load_plugins(
    extra: Iterable[tuple[str, Any]] = (),
    *,
    autoload: bool | None = None,
) -> LoadedPlugins:
    """Load every plugin and collect their backends and scenario generators.

    ``extra`` is (name, plugin object) pairs registered directly, as tests do.
    ``autoload`` None reads :data:`ENV_NO_AUTOLOAD`.
    Raises :class:`DuplicateBackendError` (or DuplicateScenarioError) when two
    plugins claim one name.
    """
    if autoload is None:
        autoload = os.environ.get(ENV_NO_AUTOLOAD, "") not in ("1", "true", "yes")
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    broken: list[BrokenPlugin] = []
    origin: dict[str, str] = {}

    candidates: list[tuple[str, str, Any]] = [  # (plugin name, distribution, loader)
        (m, INTERNAL, lambda m=m: importlib.import_module(m)) for m in INTERNAL_PLUGINS
    ]
    if autoload:
        for ep in _entry_points():
            candidates.append((f"{ep.name} = {ep.value}", _distribution(ep), ep.load))
    for module in filter(None, (m.strip() for m in os.environ.get(ENV_PLUGINS, "").split(","))):
        candidates.append(
            (module, f"${ENV_PLUGINS}", lambda m=module: importlib.import_module(m))
        )
    for name, obj in extra:
        candidates.append((name, "<registered object>", lambda o=obj: o))

    for name, dist, loader in candidates:
        try:
            with crashguard.doing(f"plugin {name} (from {dist})", "its import"):
                plugin = loader()
            if pm.is_registered(plugin):
                continue  # the same module reached twice (entry point and env)
            pm.register(plugin, name=name)
        except (Exception, SystemExit) as exc:  # a plugin's sys.exit() on import, too
            broken.append(BrokenPlugin(name, dist, _describe_error(exc)))
            continue
        origin[name] = dist

    registry = BackendRegistry()
    scenarios = ScenarioRegistry()
    _call(pm.hook.memory_bench_register_backends, registry, origin, broken)
    _call(pm.hook.memory_bench_register_scenarios, scenarios, origin, broken)
    plugins = sorted((n, origin.get(n, "")) for n in origin)
    return LoadedPlugins(registry=registry, plugins=plugins, broken=broken, scenarios=scenarios)


def _call(hook: Any, registry: Any, origin: dict[str, str], broken: list[BrokenPlugin]) -> None:
    """Call each implementation on its own so the registry knows who added what,
    and a plugin whose hook raises is reported without losing the others."""
    for impl in sorted(hook.get_hookimpls(), key=lambda i: i.plugin_name):
        label = impl.plugin_name
        dist = origin.get(label, "")
        registry._set_plugin(f"{label} ({dist})" if dist else label)
        try:
            with crashguard.doing(f"plugin {label}", "its registration hook"):
                impl.function(registry=registry)
        except (DuplicateBackendError, DuplicateScenarioError):
            raise
        except (Exception, SystemExit) as exc:
            if all(b.entry_point != label for b in broken):
                broken.append(BrokenPlugin(label, dist, _describe_error(exc)))
    registry._set_plugin("<unknown>")


@lru_cache(maxsize=1)
def default_plugins() -> LoadedPlugins:
    """This process's plugins as the environment names them, loaded once (a worker
    resolves many pairs; a library caller that names no registry gets these)."""
    return load_plugins()


set_default_registry(lambda: default_plugins().scenarios)
