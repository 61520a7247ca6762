"""The runner and every metric against the fake backends, with exact expected values."""

from __future__ import annotations

from pathlib import Path

import fake_backends
import pytest

from memory_bench.harness.runner import RunConfig
from memory_bench.plugins import load_plugins
from memory_bench.plugins.selection import select_backends
from memory_bench.results.io import load_result
from memory_bench.scenarios.spec import load_scenario
from memory_bench.session.pipeline import execute


def _run(tmp_path: Path, specs: list[str], seeds: list[int] | None = None, **overrides):
    loaded = load_plugins([("fake_backends", fake_backends)], autoload=False)
    # The phased layout: these tests check the metrics' arithmetic against a stream whose
    # shape they know (which probe comes after how many writes); the blind stream's own
    # tests are in test_stream_leaks.py.
    scenario = load_scenario("smoke", {"stream": "phased", **overrides})
    cfg = RunConfig(
        plugins=loaded,
        selections=select_backends(loaded.registry, specs),
        scenario=scenario,
        seeds=seeds or [0],
        out=tmp_path / "r.json",
        executor="local",  # in-process: this test is not about isolation
    )
    return execute(cfg), cfg


def _metrics(result, label, seed_index=0):
    b = next(b for b in result.backends if b.label == label)
    return b.runs[seed_index].metrics


def test_perfect_backend_scores_exactly(tmp_path: Path) -> None:
    result, _ = _run(tmp_path, ["fake-perfect"])
    m = _metrics(result, "fake-perfect")
    assert m["recall1_before"] == 1.0
    assert m["recall5_before"] == 1.0
    assert m["recall1_after"] == 1.0
    assert m["retention"] == 1.0
    assert m["updateWinRate"] == 1.0  # newest first
    assert m["staleRate"] == 1.0  # but the old value is never erased
    assert m["provenanceAccuracy"] == 1.0
    assert m["gateRecall"] == 1.0
    assert m["falseRefusals"] == 0.0
    # Strength from 0.5, s += 0.1 (1 - s) per top-1 retrieval: probed twice
    # (phases 2 and 5) before the reinforce phase, then 2 more queries.
    expected = 0.5 * (0.9**2 - 0.9**4)
    assert m["strengthDelta"] == pytest.approx(expected)  # self-reported
    assert m["reinforcementDelta"] is None  # smoke asks no reinforced or control question
    assert m["latency_p50_ms"] > 0 and m["latency_p95_ms"] >= m["latency_p50_ms"]
    assert m["ingest_items_per_s"] > 0


def _fifo(capacity: int) -> dict[str, float]:
    """What a memory keeping only the last ``capacity`` items scores on smoke seed 0, from
    the interleaved script itself: a probe finds its item when it is still kept."""
    from scenario_helpers import script

    from memory_bench.scenarios.script import Probe, Write

    at: dict[str, int] = {}
    flags: dict[str, list[bool]] = {"probe": [], "reprobe": [], "win": [], "stale": []}
    for step in script(load_scenario("smoke", {"stream": "phased"}), 0).steps:
        if isinstance(step, Write):
            for i in step.items:
                at[i.id] = len(at)
        elif isinstance(step, Probe) and step.tag in ("probe", "reprobe", "update"):
            kept = [len(at) - at[i] <= capacity for i in (*step.expected, *step.outrank)]
            if step.tag == "update":
                flags["win"].append(kept[0])
                flags["stale"].append(kept[1])
            else:
                flags[step.tag].append(kept[0])
    return {k: sum(v) / len(v) for k, v in flags.items()}


def test_forgetful_backend_loses_facts_under_interference(tmp_path: Path) -> None:
    # smoke: 12 facts and 24 noise items interleaved; a memory of the last 24 items keeps
    # only the facts written within 24 items of each re-probe.
    result, _ = _run(tmp_path, ["fake-forgetful"])
    m = _metrics(result, "fake-forgetful")
    want = _fifo(24)
    assert m["recall1_before"] == 1.0 == want["probe"]
    assert m["recall1_after"] == pytest.approx(want["reprobe"]) and want["reprobe"] < 0.75
    assert m["retention"] == pytest.approx(want["reprobe"])
    assert m["updateWinRate"] == pytest.approx(want["win"])
    assert m["staleRate"] == pytest.approx(want["stale"]) and want["stale"] < 0.5
    assert m["gateRecall"] is None and m["falseRefusals"] is None  # no gate capability
    assert m["strengthDelta"] is None  # no strength capability


def test_partial_forgetting_gives_partial_retention(tmp_path: Path) -> None:
    # capacity 30: more facts kept than with 24, fewer than all.
    result, _ = _run(tmp_path, ["fake-forgetful:capacity=30"])
    m = _metrics(result, "fake-forgetful:capacity=30")
    want = _fifo(30)
    assert m["recall1_after"] == pytest.approx(want["reprobe"])
    assert _fifo(24)["reprobe"] < want["reprobe"] < 1.0


def test_no_provenance_scores_zero_by_construction(tmp_path: Path) -> None:
    result, _ = _run(tmp_path, ["fake-noprov"])
    m = _metrics(result, "fake-noprov")
    assert m["recall1_before"] == 1.0
    assert m["provenanceAccuracy"] == 0.0  # 0, not null: METHOD.md's "by construction"
    assert m["gateRecall"] is None
    assert m["strengthDelta"] is None


def test_failing_backend_is_recorded_and_others_run(tmp_path: Path) -> None:
    result, _ = _run(tmp_path, ["fake-broken-query", "fake-perfect"])
    broken = next(b for b in result.backends if b.label == "fake-broken-query")
    assert broken.runs[0].status == "failed"
    assert "index corrupted" in broken.runs[0].error
    assert broken.runs[0].cleanup.ok is True  # cleaned up on failure too
    assert _metrics(result, "fake-perfect")["recall1_before"] == 1.0


def test_records_allow_recomputation_and_file_is_complete(tmp_path: Path) -> None:
    _, cfg = _run(tmp_path, ["fake-perfect"], seeds=[0, 1])
    saved = load_result(cfg.out)
    assert saved.schema == "memory-bench/2.1"
    assert saved.status == "complete"
    run = saved.backends[0].runs[1]
    probes = [p for p in run.records.probes if p.tag == "probe"]
    assert len(probes) == 12
    first = probes[0]
    assert first.question and first.latency_ms > 0
    assert first.returned[0] == first.expected[0]
    assert run.cleanup is not None and run.cleanup.to_dict() == {
        "prefix": f"bench-{cfg.run_id}-s1-", "removed": run.cleanup.removed,
        "left": 0, "ok": True,
    }
    summary = saved.backends[0].summary["recall1_before"]
    assert summary.to_dict() == {"mean": 1.0, "std": 0.0, "ci_low": 1.0, "ci_high": 1.0,
                                 "n": 2, "boot_low": 1.0, "boot_high": 1.0}  # analysed
    assert (cfg.out.parent / "r.pairs").is_dir()  # one file per finished pair
    assert len(list((cfg.out.parent / "r.pairs").glob("*.json"))) == 2
    assert set(saved.scenario.data_hashes) == {"0", "1"}


def test_same_seed_same_hash_and_metrics(tmp_path: Path) -> None:
    a, _ = _run(tmp_path / "a", ["fake-perfect", "fake-forgetful"])
    b, _ = _run(tmp_path / "b", ["fake-perfect", "fake-forgetful"])
    assert a.scenario.data_hashes == b.scenario.data_hashes
    for label in ("fake-perfect", "fake-forgetful"):  # timings aside (*_ms, ingest/s)
        ma, mb = _metrics(a, label), _metrics(b, label)
        assert {k: v for k, v in ma.items() if not _timing(k)} == {
            k: v for k, v in mb.items() if not _timing(k)
        }


def _timing(metric: str) -> bool:
    from memory_bench.metrics.latency import is_timing

    return is_timing(metric)


def test_same_backend_twice_gets_distinct_labels(tmp_path: Path) -> None:
    result, _ = _run(tmp_path, ["fake-forgetful:capacity=24", "fake-forgetful:capacity=30"])
    labels = [b.label for b in result.backends]
    assert labels == ["fake-forgetful:capacity=24", "fake-forgetful:capacity=30"]
    assert _metrics(result, labels[0])["retention"] == pytest.approx(_fifo(24)["reprobe"])
    assert _metrics(result, labels[1])["retention"] == pytest.approx(_fifo(30)["reprobe"])
