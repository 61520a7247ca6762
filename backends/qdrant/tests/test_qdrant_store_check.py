"""``qdrant:mode=persistent,path=DIR`` at a directory whose meta.json is not a Qdrant local store's:
refused before the run with one line, exit 2, the user's directory untouched."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from memory_bench.contract.options import OptionError
from memory_bench.plugins import load_plugins
from memory_bench.plugins.selection import select_backends


def _snapshot(root: Path) -> dict[str, tuple]:
    """Every entry under ``root``: inode, size, mtime and bytes (files)."""
    out: dict[str, tuple] = {}
    for p in sorted([root, *root.rglob("*")]):
        st = os.stat(p)
        data = p.read_bytes() if p.is_file() else None
        out[str(p.relative_to(root))] = (st.st_ino, st.st_size, st.st_mtime_ns, data)
    return out


def test_a_meta_json_of_another_kind_is_refused_before_anything_is_written(
    tmp_path: Path,
) -> None:
    store = tmp_path / "mine"
    store.mkdir()
    (store / "meta.json").write_text("{}")
    (store / "notes.txt").write_text("another program's files")
    before = _snapshot(store)
    work = tmp_path / "work"
    work.mkdir()
    env = {**os.environ, "MEMORY_BENCH_DISABLE_PLUGIN_AUTOLOAD": "0"}
    env.pop("MEMORY_BENCH_PLUGINS", None)
    out = subprocess.run(
        [str(Path(sys.executable).parent / "memory-bench"), "run", "--backend",
         f"qdrant:mode=persistent,path={store}", "--scenario", "smoke", "--seed", "0",
         "--quiet", "--save"],
        cwd=work, capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "meta.json that is not a Qdrant local store" in lines[0]
    assert "Traceback" not in out.stderr and "KeyError" not in out.stderr
    assert list(work.iterdir()) == []  # no runs/, no reports/
    assert _snapshot(store) == before  # no byte, inode or mtime changed; no .lock made


@pytest.mark.parametrize("meta", [
    "[]", "not json", '{"collections": {}}', '{"collections": [], "aliases": {}}',
    '{"collections": {"c": 1}, "aliases": {}}',
    '{"collections": {}, "aliases": {}, "text_indexes": {"gone": {}}}',
    "[" * 100_000,
])
def test_every_meta_json_qdrant_could_not_open_is_refused(tmp_path: Path, meta: str) -> None:
    (tmp_path / "meta.json").write_text(meta)
    with pytest.raises(OptionError, match=r"meta\.json"):
        select_backends(load_plugins().registry, [f"qdrant:mode=persistent,path={tmp_path}"])


def test_a_store_qdrant_client_wrote_is_accepted(tmp_path: Path) -> None:
    from qdrant_client import QdrantClient, models

    client = QdrantClient(path=str(tmp_path))
    client.create_collection("memory-bench", vectors_config=models.VectorParams(
        size=4, distance=models.Distance.COSINE))
    client.close()
    (sel,) = select_backends(load_plugins().registry, [f"qdrant:mode=persistent,path={tmp_path}"])
    assert sel.options["path"] == str(tmp_path)
