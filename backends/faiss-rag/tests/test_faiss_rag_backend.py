"""faiss-rag and faiss-rag-recency through the Backend protocol, with the real model."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from memory_bench import BackendContext, Item, NotSupportedError
from memory_bench.plugins import load_plugins
from memory_bench.plugins.selection import select_backends

pytestmark = pytest.mark.slow

T0 = datetime(2026, 1, 1, tzinfo=UTC)
FACTS = [
    "Mara Olsen works for Fathom Foods.",
    "Ivo Brandt was born in Kellsport.",
    "The phone extension of Lena Park is 4471.",
    "Tobias Wren's dog is called Biscuit.",
    "Greta Lund lives in Harrowgate.",
    "Pavel Ode has a job at Lumen Dynamics.",
]


def _items(prefix: str, texts: list[str], start_min: int = 0) -> list[Item]:
    return [
        Item(f"{prefix}-{i:04d}", t, source=prefix, timestamp=T0 + timedelta(minutes=start_min + i))
        for i, t in enumerate(texts)
    ]


def _make(spec: str, tmp_path: Path, cache: bool = True):
    sel = select_backends(load_plugins().registry, [spec])[0]
    ctx = BackendContext(workdir=tmp_path / "work", seed=0, run_id="t",
                         cache_dir=tmp_path / "cache" if cache else None)
    ctx.workdir.mkdir(exist_ok=True)
    return sel.info.factory(dict(sel.options), ctx)


@pytest.mark.parametrize("spec", ["faiss-rag", "faiss-rag:index=hnsw", "faiss-rag-recency"])
def test_query_returns_the_fact_with_its_provenance(spec: str, tmp_path: Path) -> None:
    b = _make(spec, tmp_path)
    try:
        items = _items("bench-x-e1", FACTS)
        results = b.write(items)
        assert [r.id for r in results] == [i.id for i in items] and all(r.accepted for r in results)
        hits = b.query("Who does Mara Olsen work for?", 3)
        assert hits[0].id == "bench-x-e1-0000"
        assert hits[0].source == "bench-x-e1" and hits[0].timestamp == items[0].timestamp
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        assert len(b.query("Where was Ivo Brandt born?", 50)) == len(FACTS)
        with pytest.raises(NotSupportedError):
            b.strength(["bench-x-e1-0000"])
    finally:
        b.close()


@pytest.mark.parametrize("spec", ["faiss-rag", "faiss-rag:index=hnsw"])
def test_remove_and_count_by_prefix(spec: str, tmp_path: Path) -> None:
    b = _make(spec, tmp_path)
    try:
        b.write(_items("bench-a-e1", FACTS) + _items("other-b", FACTS[:2], 100))
        assert b.count("bench-") == 6 and b.count("other-") == 2 and b.count("") == 8
        assert b.remove("bench-a-") == 6
        assert b.count("bench-") == 0 and b.count("") == 2
        hits = b.query("Who does Mara Olsen work for?", 5)
        assert [h.id for h in hits] == ["other-b-0000", "other-b-0001"]
        assert b.remove("bench-") == 0
    finally:
        b.close()


def test_writing_an_id_again_replaces_it(tmp_path: Path) -> None:
    b = _make("faiss-rag", tmp_path)
    try:
        b.write(_items("bench-x-e1", FACTS))
        again = Item("bench-x-e1-0000", "Mara Olsen works for Copperline Freight.",
                     source="bench-x-e2", timestamp=T0 + timedelta(hours=5))
        b.write([again])
        assert b.count("bench-x-e1-0000") == 1
        hit = b.query("Who does Mara Olsen work for?", 1)[0]
        assert hit.id == "bench-x-e1-0000" and hit.source == "bench-x-e2"
    finally:
        b.close()


def test_recency_breaks_a_near_tie_towards_the_newer_item(tmp_path: Path) -> None:
    old = Item("bench-x-e1-0000", "Mara Olsen works for Fathom Foods.", "bench-x-e1", T0)
    new = Item("bench-x-e2-0000", "Mara Olsen now works for Fathom Freight.", "bench-x-e2",
               T0 + timedelta(hours=12))
    plain, recent = _make("faiss-rag", tmp_path), _make("faiss-rag-recency", tmp_path)
    try:
        for b in (plain, recent):
            b.write([*_items("bench-x-n", FACTS[1:], 1), old, new])
        q = "Who does Mara Olsen work for?"
        p = {h.id: h.score for h in plain.query(q, 5)}
        r = {h.id: h.score for h in recent.query(q, 5)}
        # The newest item is "now": its full bonus is the weight (0.1 by default).
        assert r[new.id] == pytest.approx(p[new.id] + 0.1, abs=1e-5)
        assert r[new.id] - r[old.id] > p[new.id] - p[old.id]
        assert recent.query(q, 1)[0].id == new.id
    finally:
        plain.close()
        recent.close()


def test_recency_top_k_is_exact_under_the_combined_score(tmp_path: Path) -> None:
    """The candidate loop must equal a brute-force ranking over every stored item."""
    texts = [f"Person {i} works for Company {i % 17} in Town {i % 5}." for i in range(200)]
    items = _items("bench-x-n", texts)
    b = _make("faiss-rag-recency:recency_weight=0.5,half_life_hours=1", tmp_path)
    try:
        b.write(items)
        vecs = b.embedder.encode(texts)
        now = items[-1].timestamp
        ages = np.array([(now - it.timestamp).total_seconds() / 3600 for it in items])
        for q in ("Who does Person 3 work for?", "Which company is in Town 4?"):
            combined = vecs @ b.embedder.encode([q])[0] + 0.5 * 0.5 ** (ages / 1.0)
            expected = [items[i].id for i in np.argsort(-combined, kind="stable")[:10]]
            assert [h.id for h in b.query(q, 10)] == expected
        assert b.fetched > 0
    finally:
        b.close()
