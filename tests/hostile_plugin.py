"""Test plugin for the failure paths: a backend whose preload is slow (to be interrupted
there), and a generator that runs out of memory on seed 1 (a failure outside any pair).

Loaded with ``MEMORY_BENCH_PLUGINS=fake_backends,hostile_plugin``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fake_backends import SubjectMemory
from scenario_plugin import generate as colours

from memory_bench import Capability, Option, Script, hookimpl
from memory_bench.metrics.continual import CONTINUAL_METRICS


def _slow_preload(options: dict[str, Any], cache_dir: Path | None) -> None:
    Path("preloading").write_text("now")  # the test waits for this, then interrupts
    time.sleep(120)


def _oom(params: Mapping[str, Any], seed: int) -> Script:
    if seed >= 1:
        raise MemoryError("gate items for 10^9 cells")
    return colours({"people": 4, "k": 3}, seed)


@hookimpl
def memory_bench_register_backends(registry) -> None:
    registry.add(
        "slow-preload",
        factory=lambda options, ctx: SubjectMemory(),
        description="test: a preload that takes two minutes",
        version="0.0.1",
        capabilities=[Capability.PROVENANCE],
        preload=_slow_preload,
    )


@hookimpl
def memory_bench_register_scenarios(registry) -> None:
    registry.add(
        "oom",
        generate=_oom,
        description="test: seed 1 runs out of memory while generating",
        version="0.0.1",
        parameters=[Option("size", int, 1, "unused", minimum=1, maximum=10)],
        metrics=[m for m in CONTINUAL_METRICS if m.name == "recall1_before"],
    )
