"""hybrid through the Backend protocol, with the real MiniLM model and the real bm25s."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from backend_support import FACTS, T0, items, open_backend

from memory_bench import Item

pytestmark = pytest.mark.slow


@pytest.fixture
def make(tmp_path: Path) -> Any:
    made: list[Any] = []

    def _make(spec: str) -> Any:
        made.append(open_backend(tmp_path, spec))
        return made[-1]

    yield _make
    for b in made:
        b.close()


def test_both_sides_count_and_hits_carry_provenance(make: Any) -> None:
    b = make("hybrid")
    written = items("bench-x-e1", FACTS)
    assert all(r.accepted for r in b.write(written))
    hits = b.query("Who does Mara Olsen work for?", 3)
    assert hits[0].id == "bench-x-e1-0000"
    assert (hits[0].source, hits[0].timestamp) == ("bench-x-e1", written[0].timestamp)
    # Both sides ranked it first: the best possible fused score.
    assert hits[0].score == pytest.approx(1.0)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    # BM25 finds nothing for a question sharing no term; the dense side still answers.
    assert b.lexical.query("Which canine belongs to him?", 3) == []
    assert b.query("Which canine belongs to him?", 1)[0].id == "bench-x-e1-0003"


def test_fusion_ranks_differently_from_either_side(make: Any) -> None:
    # Dense puts "likes dogs" first, BM25 the item sharing "dog" and "name"; RRF interleaves.
    b = make("hybrid")
    b.write(items("bench-x-e1", [
        "Tobias Wren's dog is called Biscuit.",
        "Tobias Wren's cat is called Pepper.",
        "Tobias Wren likes dogs.",
        "A dog named Rex belongs to Wren.",
        "The name of the dog is Biscuit.",
    ]))
    q = "What is the name of Tobias Wren's dog?"
    dense = [h.id[-1] for h in b.dense.query(q, 5)]
    lexical = [h.id[-1] for h in b.lexical.query(q, 5)]
    fused = [h.id[-1] for h in b.query(q, 5)]
    assert (dense, lexical, fused) == (list("20134"), list("34201"), list("23041"))


def test_recency_lets_the_newer_twin_win(make: Any) -> None:
    old = items("bench-x-e1", ["Mara Olsen works for Fathom Foods."])
    new = items("bench-x-e2", ["Mara Olsen works for Lumen Dynamics."], start_min=600)
    q = "Who does Mara Olsen work for?"
    plain, recent = make("hybrid"), make("hybrid:recency_weight=0.1")
    for b in (plain, recent):
        b.write(old + items("bench-x-n", FACTS[1:], start_min=1))
        b.write(new)
    assert recent.query(q, 1)[0].id == "bench-x-e2-0000"
    top = recent.query(q, 2)
    assert top[0].score - top[1].score <= 0.1 + 1e-9  # the bonus is at most the weight
    assert {h.id for h in plain.query(q, 2)} == {"bench-x-e1-0000", "bench-x-e2-0000"}


def test_weighted_fusion_at_the_extremes_is_one_side(make: Any) -> None:
    dense_only, lexical_only = make("hybrid:fusion=weighted,weight=1"), make(
        "hybrid:fusion=weighted,weight=0")
    for b in (dense_only, lexical_only):
        b.write(items("bench-x-e1", FACTS))
    q = "Where was Ivo Brandt born?"
    assert [h.id for h in dense_only.query(q, 3)] == [h.id for h in dense_only.dense.query(q, 3)]
    got = [h.id for h in lexical_only.query(q, 1)]
    assert got == [h.id for h in lexical_only.lexical.query(q, 1)]


def test_rewrite_remove_and_count_reach_both_sides(make: Any) -> None:
    b = make("hybrid")
    b.write(items("bench-x-e1", FACTS) + items("bench-x-n", ["Mara Olsen is tall."]))
    b.write([Item("bench-x-e1-0000", "Mara Olsen plays chess.", "bench-x-e1", T0)])
    assert b.count("bench-x-") == 6
    assert b.query("Which game does Mara Olsen play?", 1)[0].id == "bench-x-e1-0000"
    assert b.remove("bench-x-e1") == 5
    assert (b.count("bench-x-"), b.dense.count("bench-x-"), b.lexical.count("bench-x-")) == (
        1, 1, 1)
    assert [h.id for h in b.query("Mara Olsen", 5)] == ["bench-x-n-0000"]
    assert b.remove("bench-x-") == 1 and b.query("Mara Olsen", 5) == []


def test_forget_by_id_and_by_source_reaches_both_sides(make: Any) -> None:
    b = make("hybrid")
    b.write(items("bench-x-e1", FACTS) + items("bench-x-e2", ["Mara Olsen is tall."]))
    assert b.forget(["bench-x-e1-0000", "bench-x-unknown"]) == 1
    assert "bench-x-e1-0000" not in {h.id for h in b.query("Who does Mara Olsen work for?", 5)}
    assert b.forget(source="bench-x-e2", prefix="bench-x-") == 1
    assert "bench-x-e2-0000" not in {h.id for h in b.query("Mara Olsen tall", 5)}
    assert (b.count("bench-x-"), b.dense.count("bench-x-"), b.lexical.count("bench-x-")) == (
        4, 4, 4)
