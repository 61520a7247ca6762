"""rerank runs with no network at all: the embedder and the cross-encoder both load from
installed packages (checked in a child with the network guard, in its own namespace)."""

from __future__ import annotations

from pathlib import Path

import pytest
from guarded_run import run_guarded
from memory_bench_embed import models_dir

pytestmark = pytest.mark.slow


def test_rerank_loads_and_answers_offline(tmp_path: Path) -> None:
    # The MiniLM ONNX export already made on this machine (HOME is empty in the child).
    cache = models_dir().parent
    got = run_guarded(
        f"""
        import os
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ["MEMORY_BENCH_CACHE"] = {str(cache)!r}
        from datetime import UTC, datetime
        from pathlib import Path
        from memory_bench import BackendContext, Item
        from memory_bench.plugins import load_plugins
        from memory_bench.plugins.selection import select_backends
        sel = select_backends(load_plugins().registry, ["rerank:first=hybrid"])[0]
        b = sel.info.factory(dict(sel.options), BackendContext(Path("w"), 0, "t"))
        b.write([Item("bench-t-e1-0000", "Lena Park plays the cello.", "bench-t-e1",
                      datetime(2026, 1, 1, tzinfo=UTC))])
        RESULT = {{"top": b.query("What does Lena Park play?", 1)[0].id,
                  "pairs": b.encoder.stats["pairs"]}}
        b.close()
        """,
        tmp_path,
    )
    assert got["attempts"] == []
    assert (got["top"], got["pairs"]) == ("bench-t-e1-0000", 1)
