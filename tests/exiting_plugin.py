"""Test plugin whose code tries to end the process: on import (``EXIT_ON=import``), in its
hook (``hook``), in a factory (backend ``exits-in-factory``), in a query
(``exits-in-query``), and a factory that returns None (``returns-none``). Loaded with
``MEMORY_BENCH_PLUGINS=fake_backends,exiting_plugin``."""

from __future__ import annotations

import os
import sys

from fake_backends import SubjectMemory

from memory_bench import Capability, hookimpl

if os.environ.get("EXIT_ON") == "import":
    sys.exit(0)


def _exits(options, ctx):
    sys.exit(0)


class _ExitsInQuery(SubjectMemory):
    def query(self, text, k):
        sys.exit(0)


@hookimpl
def memory_bench_register_backends(registry) -> None:
    if os.environ.get("EXIT_ON") == "hook":
        sys.exit(3)
    for name, factory in (("exits-in-factory", _exits),
                          ("exits-in-query", lambda options, ctx: _ExitsInQuery()),
                          ("returns-none", lambda options, ctx: None)):
        registry.add(name, factory=factory, description=f"test: {name}", version="0.0.1",
                     capabilities=[Capability.PROVENANCE])
