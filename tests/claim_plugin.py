"""Test plugin for start-up and stale claims: a backend whose first preload (in a
directory) waits two minutes, to be interrupted or killed there, and whose next one is
immediate, so the same command can be run again to its end.

Loaded with ``MEMORY_BENCH_PLUGINS=fake_backends,claim_plugin``.
"""

from __future__ import annotations

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


@hookimpl
def memory_bench_register_backends(registry) -> None:
    registry.add(
        "preload-once",
        factory=lambda options, ctx: SubjectMemory(),
        description="test: a first preload that takes two minutes, then none",
        version="0.0.1",
        capabilities=[Capability.PROVENANCE],
        preload=_preload_once,
    )
