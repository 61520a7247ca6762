"""Registers the misbehaving test backends.

- ``json-store``: a persistent store (a JSON file in ``path``, default the
  pair's workdir); ``misbehave`` = raise | hang | die | exit on every query
  after the first ``after``; ``slow_ms`` sleeps in each query; while the file
  ``hold`` exists, every query waits (a run held open until the test removes it).
- ``hang-query``: its queries never return (a hung backend).
- ``die-query``: kills its own process with SIGKILL on the first query.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memory_bench import BackendContext, Capability, Option, hookimpl
from memory_bench_test_hanging import __version__

MISBEHAVE = ("none", "raise", "hang", "die", "exit")


def _store(options: dict[str, Any], ctx: BackendContext) -> Any:
    from memory_bench_test_hanging.store import JsonStore

    path = Path(options["path"]) if options.get("path") else ctx.workdir
    return JsonStore(path, misbehave=options.get("misbehave", "none"),
                     after=options.get("after", 0), slow_ms=options.get("slow_ms", 0.0),
                     hold=options.get("hold"))


@hookimpl
def memory_bench_register_backends(registry: Any) -> None:
    registry.add(
        "json-store",
        factory=_store,
        description="test: exact recall from a JSON file store that outlives the process",
        version=__version__,
        capabilities=[Capability.PROVENANCE, Capability.PERSISTENT],
        options=[
            Option("path", str, None, "store directory (default: the pair's workdir)"),
            Option("misbehave", str, "none", "what to do in queries after `after`",
                   choices=MISBEHAVE),
            Option("after", int, 0, "queries answered normally before misbehaving", minimum=0),
            Option("slow_ms", float, 0.0, "sleep in every query", minimum=0.0),
            Option("hold", str, None, "a file: while it exists, every query waits"),
        ],
    )
    registry.add(
        "hang-query",
        factory=lambda o, c: _store({"misbehave": "hang"}, c),
        description="test: its first query never returns",
        version=__version__,
    )
    registry.add(
        "die-query",
        factory=lambda o, c: _store({"misbehave": "die"}, c),
        description="test: kills its own process (SIGKILL) on the first query",
        version=__version__,
    )
