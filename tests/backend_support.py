"""What the backend distributions' tests share: a few facts as items on a logical clock,
a backend opened as a run opens it, and the smoke scenario run in a guarded child."""

from __future__ import annotations

import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from guarded_run import run_guarded

from memory_bench import BackendContext, Item
from memory_bench.plugins import load_plugins
from memory_bench.plugins.selection import select_backends

__all__ = ["FACTS", "T0", "items", "open_backend", "smoke_run_guarded"]

T0 = datetime(2026, 1, 1, tzinfo=UTC)
FACTS = [
    "Mara Olsen works for Fathom Foods.",
    "Ivo Brandt was born in Kellsport.",
    "The phone extension of Lena Park is 4471.",
    "Tobias Wren's dog is called Biscuit.",
    "Greta Lund lives in Harrowgate.",
]


def items(prefix: str, texts: list[str], start_min: int = 0) -> list[Item]:
    """``<prefix>-NNNN`` items with source ``prefix``, one logical minute apart."""
    return [Item(f"{prefix}-{i:04d}", t, source=prefix,
                 timestamp=T0 + timedelta(minutes=start_min + i)) for i, t in enumerate(texts)]


def open_backend(tmp_path: Path, spec: str) -> Any:
    """The installed backend ``spec`` on ``tmp_path/work``, with a cache in ``tmp_path``."""
    sel = select_backends(load_plugins().registry, [spec])[0]
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    ctx = BackendContext(workdir=work, seed=0, run_id="t", cache_dir=tmp_path / "cache")
    return sel.info.factory(dict(sel.options), ctx)


_SMOKE = """
    from pathlib import Path
    from memory_bench.harness.runner import RunConfig
    from memory_bench.session.pipeline import execute
    from memory_bench.plugins.manager import default_plugins
    from memory_bench.plugins.selection import select_backends
    from memory_bench.scenarios.spec import load_scenario
    plugins = default_plugins()
    cfg = RunConfig(plugins=plugins, selections=select_backends(plugins.registry, SPECS),
                    scenario=load_scenario("smoke"), seeds=[0], out=Path("r.json"),
                    executor="local", cache_dir=Path("cache"))
    result = execute(cfg)
    RESULT = {"runs": {b.label: {"status": r.status, "error": r.error, "metrics": r.metrics,
                                 "cleanup_ok": bool(r.cleanup and r.cleanup.ok)}
                       for b in result.backends for r in b.runs},
              "returned": {b.label: [p.returned for p in b.runs[0].records.probes]
                           for b in result.backends if b.runs[0].records}}
"""


def smoke_run_guarded(specs: list[str], tmp_path: Path, extra: str = "") -> dict[str, Any]:
    """The smoke scenario, seed 0, in-process in a guarded child (see guarded_run);
    ``extra`` is code run after it that may add keys to ``RESULT``."""
    code = f"SPECS = {specs!r}\n" + textwrap.dedent(_SMOKE) + textwrap.dedent(extra)
    return run_guarded(code, tmp_path)
