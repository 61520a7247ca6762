"""Test plugin whose native code crashes: ``SEGV_ON=import`` kills the process by SIGSEGV
on import, ``hook`` in its registration hook; backend ``segv-preload`` in its preload,
``segv-query`` in a query (a pair, or a conformance check), ``segv-factory`` when
created. Loaded with ``MEMORY_BENCH_PLUGINS=fake_backends,segv_plugin``. The signal is
sent with ``os.kill``: what a real segfault ends in, without relying on undefined
behaviour."""

from __future__ import annotations

import os
import signal

from fake_backends import SubjectMemory

from memory_bench import Capability, hookimpl


def _crash() -> None:
    os.kill(os.getpid(), signal.SIGSEGV)


if os.environ.get("SEGV_ON") == "import":
    _crash()


class _SegvInQuery(SubjectMemory):
    def query(self, text, k):
        _crash()


def _segv_factory(options, ctx):
    _crash()


@hookimpl
def memory_bench_register_backends(registry) -> None:
    if os.environ.get("SEGV_ON") == "hook":
        _crash()
    registry.add("segv-preload", factory=lambda options, ctx: SubjectMemory(),
                 description="test: crashes in its preload", version="0.0.1",
                 capabilities=[Capability.PROVENANCE], preload=lambda options, cache: _crash())
    registry.add("segv-query", factory=lambda options, ctx: _SegvInQuery(),
                 description="test: crashes in a query", version="0.0.1",
                 capabilities=[Capability.PROVENANCE])
    registry.add("segv-factory", factory=_segv_factory,
                 description="test: crashes when created", version="0.0.1",
                 capabilities=[Capability.PROVENANCE])
