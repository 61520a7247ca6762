"""rerank through the Backend protocol, with the real MiniLM and the real cross-encoder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from backend_support import T0, items, open_backend

from memory_bench import Item

pytestmark = pytest.mark.slow

DOGS = ["Tobias Wren's dog is called Biscuit.", "Tobias Wren's cat is called Pepper.",
        "Tobias Wren likes dogs.", "Greta Lund lives in Harrowgate."]
Q = "What is the name of Tobias Wren's dog?"


@pytest.fixture
def make(tmp_path: Path) -> Any:
    made: list[Any] = []

    def _make(spec: str) -> Any:
        made.append(open_backend(tmp_path, spec))
        return made[-1]

    yield _make
    for b in made:
        b.close()


@pytest.mark.parametrize("first", ["dense", "hybrid"])
def test_the_cross_encoder_mends_the_first_stage_rank_one(make: Any, first: str) -> None:
    b = make(f"rerank:first={first}")
    written = items("bench-x-e1", DOGS)
    assert all(r.accepted for r in b.write(written))
    assert b.first.query(Q, 1)[0].id == "bench-x-e1-0002"  # "likes dogs": the wrong one
    hits = b.query(Q, 3)
    assert hits[0].id == "bench-x-e1-0000"
    assert (hits[0].source, hits[0].timestamp) == ("bench-x-e1", written[0].timestamp)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    # Every first-stage candidate was scored inside the query call (4 stored < depth 50).
    assert b.encoder.stats["pairs"] == 4


def test_depth_bounds_what_the_cross_encoder_can_reach(make: Any) -> None:
    b = make("rerank:depth=1")
    b.write(items("bench-x-e1", DOGS))
    assert [h.id for h in b.query(Q, 1)] == ["bench-x-e1-0002"]  # only the first stage's pick
    assert len(b.query(Q, 3)) == 3  # at least k candidates, whatever the depth
    assert b.encoder.stats["pairs"] == 1 + 3


def test_rewrite_remove_and_count(make: Any) -> None:
    b = make("rerank")
    b.write(items("bench-x-e1", DOGS) + items("bench-x-n", ["Biscuit is a small terrier."]))
    b.write([Item("bench-x-e1-0000", "Tobias Wren's dog is called Nugget.", "bench-x-e1", T0)])
    assert b.count("bench-x-") == 5
    assert b.query(Q, 1)[0].id == "bench-x-e1-0000"
    assert b.remove("bench-x-e1") == 4 and b.count("bench-x-") == 1
    assert [h.id for h in b.query(Q, 5)] == ["bench-x-n-0000"]
    assert b.remove("bench-x-") == 1 and b.query(Q, 5) == [] and b.query(Q, 0) == []


def test_forget_reaches_the_first_stage(make: Any) -> None:
    b = make("rerank:first=hybrid")
    b.write(items("bench-x-e1", DOGS) + items("bench-x-e2", ["Biscuit is a small terrier."]))
    assert b.forget(["bench-x-e1-0000"]) == 1
    assert b.forget(source="bench-x-e2", prefix="bench-x-") == 1
    assert {h.id for h in b.query(Q, 5)} == {"bench-x-e1-0001", "bench-x-e1-0002",
                                             "bench-x-e1-0003"}
    assert b.count("bench-x-") == 3
    assert set(b._texts) == {"bench-x-e1-0001", "bench-x-e1-0002", "bench-x-e1-0003"}
