"""memory-bench: score memory systems side by side with one protocol.

The public API for plugin authors. A backend plugin implements the
:class:`Backend` protocol and registers it with ``@hookimpl
memory_bench_register_backends(registry)``; a scenario plugin returns a
:class:`Script` of steps from its generator and registers it with ``@hookimpl
memory_bench_register_scenarios(registry)``.
"""

from __future__ import annotations

import sys as _sys

if _sys.argv and _sys.argv[0].replace("\\", "/").rsplit("/", 1)[-1] == "memory-bench":
    # The command, not the library: a signal during the imports below is answered
    # (exit 130, one line) rather than killing it silently (interrupts.start_up).
    from memory_bench.interrupts import start_up as _start_up

    _start_up()

import importlib
from typing import Any

__version__ = "0.2.0"
SCHEMA = "memory-bench/2.1"

from memory_bench.contract.backend import (  # noqa: E402
    Backend,
    BackendContext,
    ContractError,
    NotSupportedError,
)
from memory_bench.contract.capabilities import Capability  # noqa: E402
from memory_bench.contract.forksafety import register_fork_guard  # noqa: E402
from memory_bench.contract.hooks import hookimpl  # noqa: E402
from memory_bench.contract.items import Hit, Item, WriteResult  # noqa: E402
from memory_bench.contract.options import Option  # noqa: E402
from memory_bench.metrics.spec import Metric, MetricSpec, RecordView, declare  # noqa: E402
from memory_bench.plugins.backends import BackendRegistry  # noqa: E402
from memory_bench.scenarios.registry import ScenarioRegistry  # noqa: E402
from memory_bench.scenarios.script import (  # noqa: E402
    UNBOUND_PREFIX,
    Consolidate,
    Forget,
    Probe,
    ReadStrength,
    Reset,
    Script,
    Write,
)


def __getattr__(name: str) -> Any:
    """``memory_bench.run``: the Python API (:func:`memory_bench.api.run`), resolved on
    first use. This package is both the plugin API, which every layer reads (the
    version, the contract's types), and the user's entry point: importing the top
    layer from here would make every module that reads ``__version__`` depend on it,
    and ``import memory_bench`` in a plugin would load the harness."""
    if name == "run":
        return importlib.import_module("memory_bench.api").run
    if name == "api":  # memory_bench.api.Execution, before anything imported it
        return importlib.import_module("memory_bench.api")
    raise AttributeError(f"module 'memory_bench' has no attribute {name!r}")


__all__ = [
    "SCHEMA",
    "UNBOUND_PREFIX",
    "Backend",
    "BackendContext",
    "BackendRegistry",
    "Capability",
    "Consolidate",
    "ContractError",
    "Forget",
    "Hit",
    "Item",
    "Metric",
    "MetricSpec",
    "NotSupportedError",
    "Option",
    "Probe",
    "ReadStrength",
    "RecordView",
    "Reset",
    "ScenarioRegistry",
    "Script",
    "Write",
    "WriteResult",
    "__version__",
    "declare",
    "hookimpl",
    "register_fork_guard",
    "run",
]
