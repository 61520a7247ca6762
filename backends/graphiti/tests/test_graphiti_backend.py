"""graphiti through the Backend protocol: real graphiti-core, Kuzu, spaCy and MiniLM."""

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

# What a run with the shared embedder (ONNX runtime) writes under HOME, whichever backend.
SHARED_EMBEDDER_HOME = (".cache/memory-bench", ".cache/Microsoft")


def test_listing_plugins_imports_neither_graphiti_nor_kuzu() -> None:
    code = textwrap.dedent("""
        import json, sys
        from memory_bench.plugins import load_plugins
        info = load_plugins().registry.get("graphiti")
        heavy = [m for m in ("graphiti_core", "kuzu", "spacy", "torch") if m in sys.modules]
        print(json.dumps({"caps": sorted(c.value for c in info.capabilities), "heavy": heavy}))
        """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == {"caps": ["provenance"], "heavy": []}


@pytest.mark.slow
def test_facts_are_graphiti_edges_between_spacy_entities(tmp_path: Path) -> None:
    b = open_backend(tmp_path, "graphiti")
    try:
        written = items("bench-a-e1", FACTS)
        assert all(r.accepted for r in b.write(written))
        b.write(items("other-b", ["Nils Berg repairs violins in Odense."], 50))
        # One edge per item, its endpoints the entities spaCy names in it.
        edge = b.edges["other-b-0000"]
        names = {n.uuid: n.name for n in b.nodes.values()}
        assert (names[edge.source_node_uuid], names[edge.target_node_uuid]) == (
            "Nils Berg", "Odense")
        hits = b.query("Who does Mara Olsen work for?", 3)
        assert hits[0].id == "bench-a-e1-0000"
        assert hits[0].source == "bench-a-e1" and hits[0].timestamp == written[0].timestamp
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        assert b.count("bench-") == 5 and b.count("") == 6
        assert b.remove("bench-a-") == 5 and b.count("") == 1
        assert [h.id for h in b.query("Who repairs violins?", 5)] == ["other-b-0000"]
        with pytest.raises(NotSupportedError):
            b.strength(["other-b-0000"])
    finally:
        b.close()


@pytest.mark.slow
def test_graph_search_finds_a_fact_through_a_shared_entity(tmp_path: Path) -> None:
    """search=graph expands from the nodes of what BM25 and cosine found: a fact that
    shares neither words nor meaning with the question, only an entity, comes back;
    with search=hybrid it does not."""
    texts = ["Mara Olsen works for Fathom Foods.", "Fathom Foods was founded in Kellsport."]
    found, uuids = {}, {}
    for search in ("graph", "hybrid"):
        (tmp_path / search).mkdir()
        b = open_backend(tmp_path / search, f"graphiti:search={search}")
        try:
            b.write(items("bench-g-e1", texts))
            found[search] = [h.id for h in b.query("Who employs Mara Olsen?", 5)]
            uuids[search] = sorted(e.uuid for e in b.edges.values())
        finally:
            b.close()
    assert found["graph"][0] == found["hybrid"][0] == "bench-g-e1-0000"
    assert "bench-g-e1-0001" in found["graph"] and "bench-g-e1-0001" not in found["hybrid"]
    assert uuids["graph"] == uuids["hybrid"]  # from the item ids: ties break the same way


@pytest.mark.slow
def test_supersede_tags_closes_the_older_edge_and_search_skips_it(tmp_path: Path) -> None:
    tags = ("subject:mara-olsen", "relation:employer")
    old = Item("bench-s-e1-0000", "Mara Olsen works for Fathom Foods.", "bench-s-e1", T0,
               tags=tags)
    new = Item("bench-s-e2-0000", "Mara Olsen now works for Copperline Freight.", "bench-s-e2",
               T0 + timedelta(hours=3), tags=tags)
    b = open_backend(tmp_path, "graphiti:supersede=tags")
    try:
        b.write([old])
        assert [h.id for h in b.query("Who does Mara Olsen work for?", 5)] == [old.id]
        b.write([new])
        assert b.edges[old.id].invalid_at == new.timestamp  # Graphiti's bi-temporal field
        assert [h.id for h in b.query("Who does Mara Olsen work for?", 5)] == [new.id]
        assert b.count("bench-s-") == 2  # closed, not deleted
    finally:
        b.close()


@pytest.mark.slow
def test_a_run_tries_no_network_and_calls_no_llm(tmp_path: Path) -> None:
    """The smoke scenario through the runner: no connection or DNS lookup but loopback,
    telemetry off, nothing written in the home directory; the LLM and cross-encoder
    clients refuse every call, so a run that finished called neither."""
    got = smoke_run_guarded(["graphiti"], tmp_path, extra="""
        from graphiti_core.telemetry import telemetry
        RESULT["telemetry"] = telemetry.is_telemetry_enabled()
        """)
    assert got["attempts"] == []
    # Only the shared embedder's files (its ONNX export, onnxruntime's device id): none
    # of this system's own.
    own = [p for p in got["home"] if p != ".cache" and not p.startswith(SHARED_EMBEDDER_HOME)]
    assert own == []
    assert got["telemetry"] is False
    run = got["runs"]["graphiti"]
    assert run["status"] == "ok", run["error"]
    assert run["cleanup_ok"]
    assert run["metrics"]["recall5_before"] == 1.0 and run["metrics"]["provenanceAccuracy"] == 1.0
