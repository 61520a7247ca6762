"""Metric definitions on hand-built records (PROTOCOL.md's edge cases)."""

from __future__ import annotations

import pytest

from memory_bench.contract.capabilities import Capability
from memory_bench.metrics.continual import CONTINUAL_METRICS
from memory_bench.metrics.spec import compute_metrics as _compute
from memory_bench.records.records import ItemRecord, ProbeRecord, Records, StrengthRecord

ALL = frozenset(c.value for c in Capability)
SeedRecords = Records


def compute_metrics(records: Records, caps) -> dict:
    return _compute(CONTINUAL_METRICS, records, caps)


def probe(tag, expected, returned, old=None, latency=1.0, src=None, ts=None, wsrc=None,
          wts=None, key=None):
    return ProbeRecord(tag, "q?", [expected], returned, [1.0] * len(returned), latency,
                       outrank=[] if old is None else [old], top_source=src, top_timestamp=ts,
                       written_source=wsrc, written_timestamp=wts,
                       key=f"fact-{expected}" if key is None else key)


def gate(item_id, kind, accepted, reason=None):
    return ItemRecord(item_id, "gate", kind, accepted, reason)


def reinforce(item_id, before, after):
    return [StrengthRecord(item_id, "reinforce", "before", before),
            StrengthRecord(item_id, "reinforce", "after", after)]


def test_update_win_and_stale_cases() -> None:
    r = SeedRecords(probes=[
        probe("update", "new", ["new", "old"], old="old"),  # win, stale
        probe("update", "new", ["old", "new"], old="old"),  # loss, stale
        probe("update", "new", ["new", "x"], old="old"),  # win (old absent), not stale
        probe("update", "new", ["old", "x"], old="old"),  # loss (new absent), stale
        probe("update", "new", ["x"], old="old"),  # loss (new absent), not stale
    ])
    m = compute_metrics(r, ALL)
    assert m["updateWinRate"] == pytest.approx(2 / 5)
    assert m["staleRate"] == pytest.approx(3 / 5)


def test_retention_is_null_when_nothing_found_before() -> None:
    r = SeedRecords(probes=[probe("probe", "a", ["b"]), probe("reprobe", "a", ["a"])])
    m = compute_metrics(r, ALL)
    assert m["recall1_before"] == 0.0
    assert m["retention"] is None


def test_recall5_counts_rank_five_not_six() -> None:
    r = SeedRecords(probes=[
        probe("probe", "a", ["1", "2", "3", "4", "a"]),
        probe("probe", "a", ["1", "2", "3", "4", "5", "a"]),
    ])
    assert compute_metrics(r, ALL)["recall5_before"] == 0.5


def test_provenance_needs_both_source_and_timestamp_to_match() -> None:
    r = SeedRecords(probes=[
        probe("probe", "a", ["a"], src="s", ts="t", wsrc="s", wts="t"),  # right
        probe("probe", "a", ["b"], src="s2", ts="t2", wsrc="s2", wts="t2"),  # wrong item, true
        probe("probe", "a", ["a"], src="s", ts=None, wsrc="s", wts="t"),  # no timestamp
        probe("probe", "a", ["a"], src="s", ts="t9", wsrc="s", wts="t"),  # wrong timestamp
        probe("probe", "a", [], wsrc=None),  # no hit
    ])
    assert compute_metrics(r, ALL)["provenanceAccuracy"] == pytest.approx(2 / 5)


def test_gate_metrics_and_capability_nulls() -> None:
    r = SeedRecords(items=[
        gate("1", "empty", False, "empty"),
        gate("2", "short", True),
        gate("3", "clean", True),
        gate("4", "clean", False, "duplicate"),
    ], strengths=reinforce("a", 0.2, 0.5) + reinforce("b", 0.4, 0.5))
    m = compute_metrics(r, ALL)
    assert m["gateRecall"] == 0.5 and m["falseRefusals"] == 0.5
    assert m["strengthDelta"] == pytest.approx(0.2)  # self-reported, out of the headline
    assert m["reinforcementDelta"] is None  # no reinforced or control question was asked
    bare = compute_metrics(r, frozenset())
    assert bare["gateRecall"] is None and bare["falseRefusals"] is None
    assert bare["strengthDelta"] is None


def test_latency_percentiles_use_probe_and_reprobe_only() -> None:
    r = SeedRecords(probes=[probe("probe", "a", ["a"], latency=float(i)) for i in range(1, 101)]
                    + [probe("update", "a", ["a"], latency=1e6)])
    m = compute_metrics(r, ALL)
    assert m["latency_p50_ms"] == pytest.approx(50.5)
    assert m["latency_p95_ms"] == pytest.approx(95.05)


def _answer(returned, hit_sources, src=None, ts=None, exp=("new",), esrc=("s-new",),
            ets=("t-new",), tag="update"):
    return ProbeRecord(tag, "q?", list(exp), returned, [1.0] * len(returned), 1.0,
                       outrank=["old"], top_source=src, top_timestamp=ts,
                       hit_sources=hit_sources, expected_sources=list(esrc),
                       expected_timestamps=list(ets))


def test_update_provenance_needs_the_new_value_s_source_and_time() -> None:
    r = SeedRecords(probes=[
        _answer(["new"], [["s-new"]], "s-new", "t-new"),  # right
        _answer(["old", "new"], [["s-old"], ["s-new"]], "s-old", "t-old"),  # stale: loses
        _answer(["new"], [["s-new"]], "s-new", "t-old"),  # the old time: loses
        _answer(["new"], [[]]),  # no provenance at all
        _answer([], []),  # nothing found
    ])
    assert compute_metrics(r, ALL)["provenanceUpdate"] == pytest.approx(1 / 5)


def test_a_fact_from_two_sources_needs_both_reported() -> None:
    two = {"exp": ("a", "b"), "esrc": ("doc-1", "email-2"), "ets": ("t1", "t2"),
           "tag": "corroborate"}
    r = SeedRecords(probes=[
        _answer(["a", "b"], [["doc-1"], ["email-2"]], **two),  # both items, in front
        _answer(["a"], [["doc-1", "email-2"]], **two),  # one merged cell with both
        _answer(["a", "x", "b"], [["doc-1"], ["note-3"], ["email-2"]], **two),  # b too late
        _answer(["a"], [["doc-1"]], **two),  # one source of two: partial
    ])
    m = compute_metrics(r, ALL)
    assert m["provenanceSources"] == pytest.approx(2 / 4)
    assert compute_metrics(SeedRecords(), ALL)["provenanceSources"] is None


def test_gate_recall_is_reported_per_kind_and_clean_kinds_per_kind_too() -> None:
    r = SeedRecords(items=[
        gate("1", "empty", False, "empty"), gate("2", "chitchat", True),
        gate("3", "chitchat", False, "junk"), gate("4", "clean", True),
        gate("5", "clean_short", False, "too_short"),
    ])
    m = compute_metrics(r, ALL)
    assert m["gateRecall/empty"] == 1.0 and m["gateRecall/chitchat"] == 0.5
    assert m["falseRefusals/clean"] == 0.0 and m["falseRefusals/clean_short"] == 1.0
    # a kind a metric does not apply to gets no key, and no gate means null per kind
    assert "gateRecall/clean" not in m and "falseRefusals/empty" not in m
    bare = compute_metrics(r, frozenset())
    assert bare["gateRecall/empty"] is None and "gateRecall/clean" not in bare
