"""qdrant through the Backend protocol: real qdrant-client (local mode), the real model."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from datetime import timedelta
from pathlib import Path

import pytest
from backend_support import FACTS, T0, items, open_backend, smoke_run_guarded

from memory_bench import Item, NotSupportedError
from memory_bench.plugins import load_plugins
from memory_bench.plugins.selection import select_backends


def _make(tmp_path: Path, spec: str = "qdrant"):
    return open_backend(tmp_path, spec)


def test_listing_plugins_imports_neither_qdrant_client_nor_torch() -> None:
    code = textwrap.dedent("""
        import json, sys
        from memory_bench.plugins import load_plugins
        info = load_plugins().registry.get("qdrant")
        heavy = [m for m in ("qdrant_client", "torch", "sentence_transformers") if m in sys.modules]
        print(json.dumps({"caps": sorted(c.value for c in info.capabilities), "heavy": heavy,
                          "libraries": list(info.libraries)}))
        """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    got = json.loads(out.stdout)
    assert got["caps"] == ["forget", "provenance"] and got["heavy"] == []
    assert "qdrant-client" in got["libraries"] and "torch" in got["libraries"]


@pytest.mark.slow
def test_query_remove_count_and_provenance(tmp_path: Path) -> None:
    b = _make(tmp_path)
    try:
        written = items("bench-a-e1", FACTS)
        assert all(r.accepted for r in b.write(written))
        b.write(items("other-b", FACTS[:2], 50))
        hits = b.query("Who does Mara Olsen work for?", 3)
        # The same text under two ids: a tie, in either order.
        assert {h.id for h in hits[:2]} == {"bench-a-e1-0000", "other-b-0000"}
        top = next(h for h in hits if h.id == "bench-a-e1-0000")
        assert top.source == "bench-a-e1" and top.timestamp == written[0].timestamp
        assert 0.5 < top.score <= 1.0 + 1e-6
        # The score is the cosine of the shared embedder's vectors, as faiss-rag's is.
        q = b.embedder.encode_query("Who does Mara Olsen work for?")
        v = b.embedder.encode([FACTS[0]])[0]
        assert top.score == pytest.approx(float(q @ v), abs=1e-5)
        # Prefixes are any leading characters, not only whole id segments.
        assert b.count("bench-") == 5 and b.count("") == 7 and b.count("bench-a-e1-000") == 5
        assert b.count("bench-a-e1-0003") == 1 and b.count("bench-a-e1-00031") == 0
        assert b.remove("bench-a-") == 5 and b.count("bench-") == 0 and b.count("") == 2
        assert {h.id for h in b.query("Who does Mara Olsen work for?", 5)} == {
            "other-b-0000", "other-b-0001"}
        with pytest.raises(NotSupportedError):
            b.strength(["other-b-0000"])
    finally:
        b.close()


@pytest.mark.slow
def test_writing_an_id_again_replaces_it(tmp_path: Path) -> None:
    b = _make(tmp_path)
    try:
        b.write(items("bench-x-e1", FACTS))
        b.write([Item("bench-x-e1-0000", "Mara Olsen works for Copperline Freight.",
                      "bench-x-e2", T0 + timedelta(hours=5))])
        assert b.count("bench-x-e1-0000") == 1 and b.count("") == 5
        hit = b.query("Who does Mara Olsen work for?", 1)[0]
        assert hit.id == "bench-x-e1-0000" and hit.source == "bench-x-e2"
    finally:
        b.close()


@pytest.mark.slow
def test_the_local_store_outlives_the_backend(tmp_path: Path) -> None:
    store = tmp_path / "store"
    b = _make(tmp_path, f"qdrant:mode=persistent,path={store}")
    try:
        b.write(items("bench-p-e1", FACTS))
    finally:
        b.close()  # releases qdrant's lock on the directory
    again = _make(tmp_path, f"qdrant:mode=persistent,path={store}")
    try:
        assert again.count("bench-p-") == 5
        assert again.query("Where was Ivo Brandt born?", 1)[0].id == "bench-p-e1-0001"
        assert again.remove("bench-p-") == 5 and again.count("") == 0
    finally:
        again.close()




@pytest.mark.slow
def test_a_smoke_run_tries_no_network_and_ranks_as_faiss_rag(tmp_path: Path) -> None:
    """The whole run, beside faiss-rag: nothing but loopback is attempted, and with the
    same encoder and exact search qdrant returns what faiss-rag returns, probe by probe."""
    got = smoke_run_guarded(["qdrant", "faiss-rag"], tmp_path)
    assert got["attempts"] == []
    for label in ("qdrant", "faiss-rag"):
        run = got["runs"][label]
        assert run["status"] == "ok", run["error"]
        assert run["metrics"]["recall5_before"] == 1.0
        assert run["metrics"]["provenanceAccuracy"] == 1.0
    # probe by probe the same first hit; below it, items whose scores tie (a gate copy of
    # a stored text has its vector) and the k-th place may differ between the two indexes
    q, f = got["returned"]["qdrant"], got["returned"]["faiss-rag"]
    assert len(q) == len(f)
    same = sum(a[:1] == b[:1] for a, b in zip(q, f, strict=True))
    assert same >= 0.95 * len(q)
    quality = ("recall1_before", "recall1_after", "retention", "updateWinRate", "staleRate")
    assert {k: got["runs"]["qdrant"]["metrics"][k] for k in quality} == {
        k: got["runs"]["faiss-rag"]["metrics"][k] for k in quality}


def test_a_local_store_is_never_a_directory_of_the_users_files(tmp_path: Path) -> None:
    from memory_bench.contract.options import OptionError

    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(OptionError, match="holds files but no Qdrant local store"):
        select_backends(load_plugins().registry, [f"qdrant:mode=persistent,path={tmp_path}"])
    select_backends(load_plugins().registry,
                    [f"qdrant:mode=persistent,path={tmp_path / 'new'}"])  # fine
