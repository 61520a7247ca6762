"""The published hard-scenario results say what issue 18 promised, from the file alone."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from memory_bench.results.io import load_result

ROOT = Path(__file__).resolve().parent.parent
PUBLISHED = sorted((ROOT / "reports").glob("*-hard-*.json.gz"))
PHASE = re.compile(r"-(e1|e2|n|g)(-|$)")


@pytest.mark.parametrize("path", PUBLISHED, ids=lambda p: p.name)
def test_a_published_hard_result_leaks_nothing_and_measures_every_gate_kind(path: Path) -> None:
    r = load_result(path)
    assert r.scenario.generator == "hard" and len(r.seeds) >= 10
    assert r.scenario.exposure["structure"] == [] and r.scenario.exposure["tagged_items"] == 0
    assert not [b.label for b in r.backends if b.structure_used(r.scenario)]
    gate_kinds = set()
    for b in r.backends:
        for run in b.ok_runs():
            assert run.records is not None
            prefix = f"bench-{r.run_id}-s{run.seed}-"
            probes = run.records.probes
            for p in probes:
                for i in (*p.expected, *p.returned):
                    assert i.startswith(prefix) and re.fullmatch(r"[0-9a-f]{12}",
                                                                  i[len(prefix):]), i
                for s in (*p.expected_sources, *(x for h in p.hit_sources for x in h)):
                    assert s is None or not (PHASE.search(s) or "bench" in s), s
            asked = {p.key: p.question for p in probes if p.tag == "probe"}
            assert all(p.question != asked[p.key] for p in probes if p.tag == "update")
            gate_kinds |= {i.category for i in run.records.items if i.tag == "gate"}
            if b.has("gate"):
                per_kind = {k for k in run.metrics if k.startswith("gateRecall/")}
                assert len(per_kind) >= 6
    assert len(gate_kinds - {"clean", "clean_short"}) >= 6
    tested = [c for c in r.comparisons or [] if c.p_holm is not None]
    assert tested and all(c.effect is not None for c in tested)


def test_the_make_bench_result_has_the_rule_gate_reference_row() -> None:
    """make bench's hard table carries faiss-rag:gate=rules (bench-encoder's need not)."""
    assert PUBLISHED, "no published hard-scenario result"
    assert any(any(b.spec == "faiss-rag:gate=rules" for b in load_result(p).backends)
               for p in PUBLISHED)
