"""The bm25 backend through the Backend protocol."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from memory_bench_bm25.backend import BM25Backend
from memory_bench_bm25.plugin import OPTIONS

from memory_bench import Backend, BackendContext, Item, NotSupportedError
from memory_bench.contract.options import resolve_options

T0 = datetime(2026, 1, 1, tzinfo=UTC)
FACTS = [
    "Mara Olsen works for Acme Robotics.",
    "Jonas Berg lives in Bergen.",
    "Lena Park plays the cello.",
    "Omar Haddad owns a grey parrot.",
]


def make(tmp_path: Path, **raw: str) -> BM25Backend:
    opts = resolve_options("bm25", OPTIONS, raw)
    return BM25Backend(opts, BackendContext(tmp_path, seed=0, run_id="t"))


def items(texts: list[str], tag: str, start: int = 0) -> list[Item]:
    return [
        Item(
            f"bench-t-{tag}-{start + i:04d}", t, f"bench-t-{tag}", T0 + timedelta(minutes=start + i)
        )
        for i, t in enumerate(texts)
    ]


def test_recall_with_provenance(tmp_path: Path) -> None:
    b = make(tmp_path)
    assert isinstance(b, Backend)
    written = items(FACTS, "e1")
    assert all(w.accepted for w in b.write(written))
    hits = b.query("Where does Jonas Berg live?", 5)
    assert hits[0].id == "bench-t-e1-0001"
    assert hits[0].source == "bench-t-e1"
    assert hits[0].timestamp == written[1].timestamp
    assert all(h.score > 0 for h in hits)
    assert len(hits) == 1  # the others share no term with the question
    with pytest.raises(NotSupportedError):
        b.strength(["bench-t-e1-0000"])


def test_stemming_matches_inflections(tmp_path: Path) -> None:
    stemmed, plain = make(tmp_path), make(tmp_path, stemmer="none")
    for b in (stemmed, plain):
        b.write(items(["Lena Novak plays the cello.", "Jonas Berg plays the flute."], "e1"))
    assert stemmed.query("What does Lena Novak play?", 5)[0].id == "bench-t-e1-0000"
    scores_stemmed = {h.id: h.score for h in stemmed.query("who played", 5)}
    assert len(scores_stemmed) == 2
    assert plain.query("who played", 5) == []


def test_index_is_rebuilt_once_per_write_phase(tmp_path: Path) -> None:
    b = make(tmp_path)
    b.write(items(FACTS[:2], "e1"))
    b.write(items(FACTS[2:], "e1", start=2))
    for _ in range(3):
        b.query("Lena Park", 3)
    assert b.rebuilds == 1
    b.write(items(["Lena Park plays the harp."], "e2"))
    assert {h.id for h in b.query("What does Lena Park play?", 3)} == {
        "bench-t-e1-0002",
        "bench-t-e2-0000",
    }
    assert b.rebuilds == 2


def test_ties_go_to_the_earlier_write(tmp_path: Path) -> None:
    b = make(tmp_path)
    b.write(items(["Mara Olsen works for Acme."], "e1"))
    b.write(items(["Mara Olsen works for Globex."], "e2"))
    hits = b.query("Who does Mara Olsen work for?", 5)
    assert [h.id for h in hits] == ["bench-t-e1-0000", "bench-t-e2-0000"]
    assert hits[0].score == hits[1].score  # BM25 has no notion of recency


def test_junk_is_accepted_and_unknown_queries_find_nothing(tmp_path: Path) -> None:
    b = make(tmp_path)
    assert b.query("anything", 5) == []  # empty store
    res = b.write(items(["", "   ", "ok", FACTS[0]], "g"))
    assert all(r.accepted for r in res)
    assert b.query("zebra quantum", 5) == []
    assert b.query("", 5) == []
    assert b.query("Mara", 0) == []
    assert [h.id for h in b.query("Mara Olsen", 50)] == ["bench-t-g-0003"]


def test_remove_and_count_by_prefix(tmp_path: Path) -> None:
    b = make(tmp_path)
    b.write(items(FACTS, "e1") + items(["Mara Olsen is tall."], "n"))
    assert b.count("bench-t-") == 5
    assert b.count("bench-t-e1") == 4
    assert b.query("Who does Mara Olsen work for?", 5)[0].id == "bench-t-e1-0000"
    assert b.remove("bench-t-e1") == 4
    assert b.count("bench-t-") == 1
    assert [h.id for h in b.query("Mara Olsen", 5)] == ["bench-t-n-0000"]
    assert b.remove("bench-t-") == 1
    assert b.query("Mara Olsen", 5) == []
    assert b.remove("bench-t-") == 0
