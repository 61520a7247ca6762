"""The conformance kit as a pytest plugin (entry point ``pytest11``: loaded by itself).

In a plugin's test suite::

    from memory_bench.testing import conformance_tests

    test_conformance = conformance_tests("my-memory", "my-memory:index=hnsw")

gives one test per (spec, check), e.g. ``test_conformance[my-memory-query]``;
a check that does not apply is skipped with the reason, a broken promise fails
with one line per promise. Backends come from the ``memory_bench_plugins``
fixture: by default every installed plugin, as the CLI loads them; override it
in a ``conftest.py`` to check a plugin object without installing it::

    @pytest.fixture(scope="session")
    def memory_bench_plugins():
        from memory_bench.plugins import load_plugins
        return load_plugins([("my-memory", my_plugin_module)], autoload=False)

With ``PYTEST_DISABLE_PLUGIN_AUTOLOAD`` set, add
``pytest_plugins = ["memory_bench.testing.pytest_plugin"]`` to a conftest.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memory_bench.plugins.manager import LoadedPlugins
from memory_bench.testing.checks import CHECKS, Check

__all__ = ["conformance_tests", "memory_bench_plugins"]


@pytest.fixture(scope="session")
def memory_bench_plugins() -> LoadedPlugins:
    """The plugins the kit checks: every installed one, loaded as the CLI does."""
    from memory_bench.plugins import load_plugins

    return load_plugins()


def conformance_tests(*specs: str) -> Callable[..., None]:
    """A test function, parametrized over ``specs`` x every check of the kit."""
    if not specs:
        raise ValueError("conformance_tests needs at least one backend spec")

    @pytest.mark.memory_bench_conformance
    @pytest.mark.parametrize("check", CHECKS, ids=[c.name for c in CHECKS])
    @pytest.mark.parametrize("spec", specs)
    def test_conformance(spec: str, check: Check, memory_bench_plugins: LoadedPlugins,
                         tmp_path: Path) -> None:
        from memory_bench.plugins.selection import select_backends
        from memory_bench.testing.kit import run_check

        (selection,) = select_backends(memory_bench_plugins.registry, [spec])
        outcome = run_check(selection, check, base=tmp_path / "stores",
                            cache_dir=tmp_path / "cache")
        if outcome.status in ("not applicable", "blocked"):
            pytest.skip(f"{spec} {check.name}: {outcome.reason}")
        if outcome.problems:
            pytest.fail("\n".join(f"{spec} {check.name}: {p}" for p in outcome.problems),
                        pytrace=False)

    return test_conformance


def pytest_configure(config: Any) -> None:
    config.addinivalue_line("markers", "memory_bench_conformance: a check of memory-bench's "
                            "conformance kit (select them with -m memory_bench_conformance)")
