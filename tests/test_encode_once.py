"""Encode once per run (issue 23): each seed's texts encoded once per embedder identity,
read by every embedding backend; the same quality metrics as each backend encoding its
own, no misses, and latency in parts (the call, the encoder, end to end)."""

from __future__ import annotations

import json

import pytest

COSTS = ("latency", "ingest", "rss", "_ms", "_per_s", "_mb")
# graphiti also encodes names of its own (its nodes' entity names): in the table too.
BACKENDS = ("faiss-rag", "rshl:encoder=dense", "graphiti", "bm25")


def _run(cli, mode: str) -> dict:
    done = cli("run", "--scenario", "smoke", "--seed", "0", "--no-cache", "--quiet",
               "--encode", mode, *(a for b in BACKENDS for a in ("--backend", b)),
               "--out", f"{mode}.json", fakes_only=False)
    assert done.returncode == 0, done.stderr
    return json.loads((cli.cwd / f"{mode}.json").read_text())


@pytest.mark.slow
def test_both_encode_modes_give_identical_quality_metrics(cli) -> None:
    once, per = _run(cli, "once"), _run(cli, "per-backend")
    assert once["execution"]["encode"] == "once"
    (encoder,) = once["execution"]["encoders"].values()  # one identity: both read it
    assert encoder["read_by"] == ["faiss-rag", "graphiti", "rshl:encoder=dense"]
    assert encoder["items"] > 0 and encoder["query_encode_p50_ms"] > 0
    for a, b in zip(once["backends"], per["backends"], strict=True):
        ra, rb = a["runs"][0], b["runs"][0]
        assert ra["status"] == rb["status"] == "ok"
        quality = [k for k in ra["metrics"] if not any(c in k for c in COSTS)]
        assert quality and {k: ra["metrics"][k] for k in quality} == {
            k: rb["metrics"][k] for k in quality}, a["label"]
        if a["label"] == "bm25":  # no embedder: nothing to report, no encoder part
            assert ra.get("encoding") is None and ra["metrics"]["encode_p50_ms"] is None
            continue
        enc = ra["encoding"]
        assert enc["mode"] == "once" and enc["misses"] == 0 and enc["model_encodes"] == 0
        assert enc["hits"] > 0
        assert rb["encoding"]["mode"] == "per-backend" and rb["encoding"]["model_encodes"] > 0
        # The call is the store's own; the encoder's time is beside it; e2e is both.
        probes = ra["records"]["probes"]
        assert all(p["encode_ms"] > 0 for p in probes)
        assert ra["metrics"]["e2e_p50_ms"] >= ra["metrics"]["latency_p50_ms"]
        assert rb["metrics"]["encode_p50_ms"] is None
        assert rb["metrics"]["e2e_p50_ms"] == rb["metrics"]["latency_p50_ms"]


def test_a_worker_that_cannot_see_the_tables_encodes_its_own(tmp_path) -> None:
    """A remote worker: the parent's tables are not on its host, so its pair runs as
    per-backend encoding (no parent encoder times counted twice) and says so."""
    from memory_bench.harness.pair import PairSpec, _tables_here

    spec = PairSpec(run_id="r", index=0, label="x", backend="x", scenario={}, seed=0,
                    vectors={"id": str(tmp_path / "elsewhere")}, encode_ms={"q": 1.0})
    here, why = _tables_here(spec)
    assert here.vectors == {} and here.encode_ms == {} and "not on this worker" in why
    (tmp_path / "elsewhere").mkdir()
    assert _tables_here(spec) == (spec, None)
    assert PairSpec.from_dict(spec.to_dict()) == spec  # plain data, as dask ships it


class _Source:
    """A vector source that records which seeds each build was given (no model)."""

    identity, label = "fake|cpu", "fake"

    def build(self, texts, questions, dest, cache_dir=None) -> dict:
        return {"items": len(texts), "item_encode_s": 0.5, "query_encode_ms": [1.0] * len(
            questions), "batch_size": 32, "dest": str(dest)}


def test_tables_built_in_parts_cover_every_seed_once(tmp_path) -> None:
    """With parts, each child builds a share of the seeds; together they are the same
    tables a single child builds, and one failed share records the identity's error."""
    import threading
    from datetime import UTC, datetime

    from memory_bench.contract.items import Item
    from memory_bench.harness.vectors import VectorPlan, build_tables
    from memory_bench.scenarios.script import Probe, Script, Write

    when = datetime(2026, 1, 1, tzinfo=UTC)
    scripts = {seed: Script(steps=(
        Write(items=(Item(id=f"i{seed}", text=f"fact {seed}", source="s", timestamp=when),),
              tag="fact"),
        Probe(question=f"which {seed}?", expected=(f"i{seed}",), tag="probe")), k=5, seed=seed)
        for seed in range(5)}
    plan = VectorPlan(sources={"fake|cpu": _Source()}, readers={"faiss-rag": "fake|cpu"})
    calls: list[str] = []
    together: list[threading.Barrier] = []

    def call(fn):
        calls.append(threading.current_thread().name)
        if together:
            together[0].wait()  # times out unless both shares are in flight at once
        return {"status": "ok", "value": fn()}

    one = build_tables(plan, scripts, tmp_path, None, call)
    assert len(calls) == 1
    calls.clear()
    together.append(threading.Barrier(2, timeout=10))
    two = build_tables(plan, scripts, tmp_path, None, call, parts=2)
    assert len(calls) == 2 and len(set(calls)) == 2  # two children, from two threads
    assert two.dirs == one.dirs and sorted(two.dirs) == list(range(5))
    assert two.encode_ms == one.encode_ms and two.encoders == one.encoders
    assert two.encoders["fake|cpu"]["seeds"] == list(range(5))

    def failing(fn):
        value = fn()
        return ({"status": "error", "error": "boom"} if 0 in value else
                {"status": "ok", "value": value})

    broken = build_tables(plan, scripts, tmp_path, None, failing, parts=2)
    assert broken.errors == {"fake|cpu": "boom"} and broken.dirs == {}
