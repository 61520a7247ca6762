"""Test plugin for start-up and stale claims: a backend whose first preload (in a
directory) waits two minutes, to be interrupted or killed there, and whose next one is
immediate, so the same command can be run again to its end; and one whose preload
swallows Ctrl-C, as a library's retry loop can.

Loaded with ``MEMORY_BENCH_PLUGINS=fake_backends,claim_plugin``.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any

from fake_backends import SubjectMemory

from memory_bench import Capability, hookimpl


def _preload_once(options: dict[str, Any], cache_dir: Path | None) -> None:
    marker = Path("preloading")
    if marker.exists():
        return
    marker.write_text("now")  # the test waits for this, then signals or kills
    time.sleep(120)


def _preload_swallowing(options: dict[str, Any], cache_dir: Path | None) -> None:
    Path("preloading").write_text("now")
    with contextlib.suppress(KeyboardInterrupt):  # a library that catches it, carries on
        time.sleep(120)


@hookimpl
def memory_bench_register_backends(registry) -> None:
    registry.add(
        "preload-swallowing",
        factory=lambda options, ctx: SubjectMemory(),
        description="test: a preload that swallows Ctrl-C",
        version="0.0.1",
        capabilities=[Capability.PROVENANCE],
        preload=_preload_swallowing,
    )
    registry.add(
        "preload-once",
        factory=lambda options, ctx: SubjectMemory(),
        description="test: a first preload that takes two minutes, then none",
        version="0.0.1",
        capabilities=[Capability.PROVENANCE],
        preload=_preload_once,
    )
