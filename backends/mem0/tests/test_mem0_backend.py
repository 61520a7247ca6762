"""mem0 through the Backend protocol: real mem0ai (store-only), the real model, offline."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from guarded_run import run_guarded

from memory_bench import BackendContext, Item, NotSupportedError
from memory_bench.plugins import load_plugins
from memory_bench.plugins.selection import select_backends

T0 = datetime(2026, 1, 1, tzinfo=UTC)
FACTS = [
    "Mara Olsen works for Fathom Foods.",
    "Ivo Brandt was born in Kellsport.",
    "The phone extension of Lena Park is 4471.",
    "Tobias Wren's dog is called Biscuit.",
    "Greta Lund lives in Harrowgate.",
]


def _items(prefix: str, texts: list[str], start_min: int = 0) -> list[Item]:
    return [Item(f"{prefix}-{i:04d}", t, source=prefix,
                 timestamp=T0 + timedelta(minutes=start_min + i)) for i, t in enumerate(texts)]


def _make(tmp_path: Path, spec: str = "mem0"):
    sel = select_backends(load_plugins().registry, [spec])[0]
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    ctx = BackendContext(workdir=work, seed=0, run_id="t", cache_dir=tmp_path / "cache")
    return sel.info.factory(dict(sel.options), ctx)


def test_listing_plugins_imports_neither_mem0_nor_torch() -> None:
    code = textwrap.dedent("""
        import json, sys
        from memory_bench.plugins import load_plugins
        info = load_plugins().registry.get("mem0")
        heavy = [m for m in ("mem0", "torch", "sentence_transformers", "faiss", "qdrant_client")
                 if m in sys.modules]
        print(json.dumps({"caps": sorted(c.value for c in info.capabilities), "heavy": heavy,
                          "libraries": list(info.libraries)}))
        """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    got = json.loads(out.stdout)
    assert got["caps"] == ["persistent", "provenance"] and got["heavy"] == []
    assert got["libraries"][0] == "mem0ai"


@pytest.mark.slow
@pytest.mark.parametrize("store", ["faiss", "qdrant"])
def test_query_remove_count_and_provenance(tmp_path: Path, store: str) -> None:
    b = _make(tmp_path, f"mem0:store={store}")
    try:
        from mem0.memory import telemetry

        assert telemetry.MEM0_TELEMETRY is False
        items = _items("bench-a-e1", FACTS)
        assert all(r.accepted for r in b.write(items))
        b.write(_items("other-b", ["Nils Berg repairs violins in Odense."], 50))
        hits = b.query("Who does Mara Olsen work for?", 3)
        assert hits[0].id == "bench-a-e1-0000"
        # Provenance: the source from mem0's metadata, the timestamp from its created_at.
        assert hits[0].source == "bench-a-e1" and hits[0].timestamp == items[0].timestamp
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        assert b.count("bench-") == 5 and b.count("") == 6 and b.count("bench-a-e1-000") == 5
        assert b.remove("bench-a-") == 5 and b.count("bench-") == 0 and b.count("") == 1
        assert [h.id for h in b.query("Who repairs violins?", 5)] == ["other-b-0000"]
        with pytest.raises(NotSupportedError):
            b.strength(["other-b-0000"])
    finally:
        b.close()


@pytest.mark.slow
def test_mem0s_score_is_the_cosine_with_its_threshold(tmp_path: Path) -> None:
    """What mem0's search does here (see the README): (semantic + BM25 + entity boost) /
    the active weights, and with neither BM25 nor entities that is the cosine of mem0's
    own vectors; hits under the threshold (0.1) are dropped, so fewer than k may come."""
    from memory_bench_embed import get_embedder

    b = _make(tmp_path)
    emb = get_embedder()
    try:
        # Cosine to the question about 0.09 and -0.09: under mem0's threshold.
        texts = [*FACTS, "Boil the pasta for nine minutes.",
                 "Quarterly revenue rose by three percent."]
        b.write(_items("bench-c-e1", texts))
        question = "Where does Greta Lund live?"
        hits = b.query(question, 7)
        q = emb.encode_query(question)
        vecs = emb.encode(texts)
        cosine = {f"bench-c-e1-{i:04d}": float(q @ v) for i, v in enumerate(vecs)}
        assert hits[0].id == "bench-c-e1-0004"
        for h in hits:
            assert h.score == pytest.approx(cosine[h.id], abs=1e-4)
        kept = {i for i, c in cosine.items() if c >= 0.1}
        assert {h.id for h in hits} == kept and len(kept) == 5  # the threshold cut two
        # Threshold 0 keeps the pasta (0 < cosine < 0.1), not the negative cosine.
        lax = {h.id for h in _make_threshold(tmp_path, b).query(question, 7)}
        assert lax == {i for i, c in cosine.items() if c >= 0.0} and len(lax) == 6
    finally:
        b.close()
        emb.close()


def _make_threshold(tmp_path: Path, b):
    """The same store searched with threshold 0."""
    from memory_bench_mem0.backend import Mem0Memory

    return Mem0Memory(b.memory, b.ids, user_id=b.user_id, threshold=0.0, threads=1)


@pytest.mark.slow
def test_writing_an_id_again_replaces_it_and_the_store_reopens(tmp_path: Path) -> None:
    store = tmp_path / "store"
    b = _make(tmp_path, f"mem0:path={store}")
    try:
        b.write(_items("bench-x-e1", FACTS))
        b.write([Item("bench-x-e1-0000", "Mara Olsen works for Copperline Freight.",
                      "bench-x-e2", T0 + timedelta(hours=5))])
        assert b.count("bench-x-e1-0000") == 1 and b.count("") == 5
        hit = b.query("Who does Mara Olsen work for?", 1)[0]
        assert hit.id == "bench-x-e1-0000" and hit.source == "bench-x-e2"
    finally:
        b.close()
    again = _make(tmp_path, f"mem0:path={store}")
    try:
        assert again.count("bench-x-") == 5
        assert again.query("Where was Ivo Brandt born?", 1)[0].id == "bench-x-e1-0001"
        assert again.remove("bench-x-") == 5 and again.count("") == 0
    finally:
        again.close()


_SMOKE = """
    from pathlib import Path
    from memory_bench.harness.runner import RunConfig, run_benchmark
    from memory_bench.plugins.manager import default_plugins
    from memory_bench.plugins.selection import select_backends
    from memory_bench.scenarios.spec import load_scenario
    plugins = default_plugins()
    cfg = RunConfig(plugins=plugins, selections=select_backends(plugins.registry, SPECS),
                    scenario=load_scenario("smoke"), seeds=[0], out=Path("r.json"),
                    executor="local", cache_dir=Path("cache"))
    result = run_benchmark(cfg)
    import mem0.memory.telemetry as t
    RESULT = {"runs": {b.label: [r.status, r.error, r.metrics, r.cleanup.ok]
                       for b in result.backends for r in b.runs},
              "telemetry": t.MEM0_TELEMETRY}
"""


@pytest.mark.slow
def test_a_run_tries_no_network_and_writes_nothing_in_home(tmp_path: Path) -> None:
    """The whole smoke scenario through the runner, both of mem0's stores: no connection
    or DNS lookup but loopback is attempted, telemetry is off, and mem0 writes nothing in
    the home directory (MEM0_DIR is the pair's workdir)."""
    got = run_guarded("SPECS = ['mem0', 'mem0:store=qdrant']\n" + textwrap.dedent(_SMOKE),
                      tmp_path)
    assert got["attempts"] == []
    assert got["telemetry"] is False
    assert got["home"] == []
    for label in ("mem0", "mem0:store=qdrant"):
        status, error, metrics, cleaned = got["runs"][label]
        assert status == "ok", error
        assert cleaned
        assert metrics["recall5_before"] == 1.0 and metrics["provenanceAccuracy"] == 1.0
        assert metrics["gateRecall"] is None and metrics["reinforcementDelta"] is None
