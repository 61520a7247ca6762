"""faiss-rag:gate=rules: the trivial rule gate as a reference row, with the real model."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from memory_bench_faiss_rag.gate import RuleGate

from memory_bench import BackendContext, Item
from memory_bench.harness.runner import RunConfig
from memory_bench.plugins import load_plugins
from memory_bench.plugins.manager import default_plugins
from memory_bench.plugins.selection import select_backends
from memory_bench.scenarios.spec import load_scenario
from memory_bench.session.pipeline import execute

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def test_the_rules_and_nothing_more() -> None:
    g = RuleGate()
    assert g.refusal("  \n") == "empty" and g.refusal("ok thanks") == "too_short"
    assert g.refusal("Ivo resigned.") == "too_short"  # a real fact: the rule's blind spot
    assert g.refusal("haha sure thing") is None  # chit-chat of three words passes
    g.admit("Mara Olsen works for Fathom Foods.")
    assert g.refusal("Mara  Olsen works for Fathom Foods.") == "duplicate"
    assert g.refusal("Mara Olsen is employed by Fathom Foods.") is None  # a paraphrase passes
    g.admit("Mara Olsen works for Fathom Foods.")
    g.forget("Mara Olsen works for Fathom Foods.")  # one copy left: still a duplicate
    assert g.refusal("Mara Olsen works for Fathom Foods.") == "duplicate"


def test_the_option_grants_the_gate_capability_and_refuses_in_order() -> None:
    registry = load_plugins().registry
    plain, ruled = select_backends(registry, ["faiss-rag", "faiss-rag:gate=rules"])
    assert "gate" not in plain.capabilities and "gate" in ruled.capabilities
    ctx = BackendContext(workdir=Path("."), seed=0, run_id="t", cache_dir=None)
    b = ruled.info.factory(dict(ruled.options), ctx)
    try:
        fact = "Mara Olsen works for Fathom Foods."
        texts = [fact, "", "ok", fact, "Ivo Brandt was born in Kellsport."]
        items = [Item(f"bench-t-s0-{i}", t, "doc-1", T0 + timedelta(minutes=i))
                 for i, t in enumerate(texts)]
        res = b.write(items)
        assert [(r.accepted, r.reason) for r in res] == [
            (True, None), (False, "empty"), (False, "too_short"), (False, "duplicate"),
            (True, None)]
        assert b.count("bench-t-") == 2
        assert b.remove("bench-t-") == 2
        assert b.write(items[:1])[0].accepted  # removed texts are no longer duplicates
    finally:
        b.close()


@pytest.mark.slow
def test_on_the_hard_gate_the_rules_catch_only_their_own_kinds(tmp_path: Path) -> None:
    small = {"facts": "16", "noise": "80", "updates": "4", "update_distractors": "4",
             "corroborations": "2", "reinforce_cells": "2", "gate_clean": "6"}
    cfg = RunConfig(plugins=default_plugins(),
                    selections=select_backends(default_plugins().registry,
                                               ["faiss-rag:gate=rules"]),
                    scenario=load_scenario("hard", small), seeds=[0], out=tmp_path / "r.json",
                    executor="local", cache_dir=None)
    (b,) = execute(cfg).backends
    m = b.runs[0].metrics
    assert m["gateRecall/empty"] == m["gateRecall/short"] == m["gateRecall/duplicate"] == 1.0
    for kind in ("near_duplicate", "chitchat", "boilerplate"):
        assert m[f"gateRecall/{kind}"] == 0.0, kind
    assert m["gateRecall"] < 0.6 and m["falseRefusals/clean"] == 0.0
    assert m["falseRefusals/clean_short"] > 0  # two-word facts are refused as too short
