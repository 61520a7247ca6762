"""Hebbian reinforcement (bounded) and decay over logical time, computed lazily."""

from __future__ import annotations

import pytest
from memory_bench_rshl import Lattice, LatticeConfig
from memory_bench_rshl.strength import decayed, new_moment, reinforced

DAY = 86_400.0


def test_reinforced_is_bounded_and_monotone() -> None:
    s = 0.3
    for _ in range(200):
        nxt = reinforced(s, 0.2)
        assert s <= nxt <= 1.0
        s = nxt
    assert s == pytest.approx(1.0)
    assert reinforced(0.5, 0.2, relevance=0.0) == 0.5


def test_retrieval_raises_strength_once_per_logical_moment(lattice: Lattice, facts, rec) -> None:
    before = lattice.strength(["t-e1-0002"])[0]
    for _ in range(5):  # five questions with no item written between them: massed, one use
        assert lattice.query(facts[2][1], 3)[0].id == "t-e1-0002"
    after = lattice.strength(["t-e1-0002"])[0]
    eta, s0 = lattice.config.eta, lattice.config.initial_strength
    # (the cell was written 5 logical minutes before "now": a 30-day half-life barely shows)
    assert after == pytest.approx(s0 + eta * (1 - s0), rel=1e-4)
    assert before is not None and after > before
    assert lattice.cells[2].retrievals == 5
    assert lattice.query(facts[2][1], 1, reinforce=False)[0].strength == pytest.approx(after)
    # An item written a minute later moves "now": a new moment, and a full step again.
    lattice.write([rec("t-e2-0000", "Nadia Berg sells blue kayaks.", 8)])
    again = lattice.strength(["t-e1-0002"])[0]
    assert again is not None
    assert lattice.query(facts[2][1], 3)[0].id == "t-e1-0002"
    assert lattice.strength(["t-e1-0002"])[0] == pytest.approx(again + eta * (1 - again))


def test_a_step_once_per_logical_moment() -> None:
    assert new_moment(None, 5.0)  # never retrieved
    assert not new_moment(5.0, 5.0)  # retrieved at this moment already
    assert new_moment(5.0, 5.5)
    assert not new_moment(10.0, 5.0)  # an earlier "now" is no new moment


def test_a_burst_of_questions_does_not_let_a_hub_outrank_the_answer(rec) -> None:
    """A cell near every question of a burst (a hub) gains one step, not one per question,
    so the strength tie-break cannot lift it over a slightly more similar answer asked
    later in the same burst (LoCoMo's late questions, issue 25: 28 of the 30 cells that
    displaced an answer faiss-rag found had been returned earlier in the burst)."""
    lat = Lattice(LatticeConfig(dim=4096, strength_weight=0.02, supersede="off"))
    lat.write([
        rec("a-0", "Nadia Berg owns a red bicycle and a tent.", 0),
        rec("a-1", "Nadia Berg owns a red bicycle and a kayak.", 1),
    ])
    q = "Nadia Berg owns a red bicycle"
    hits = lat.query(q, 2)  # the burst's first question: both cells returned, both used
    answer, hub = hits[0].id, hits[1].id
    assert 0 < hits[0].similarity - hits[1].similarity < 0.02 * 0.1  # a near-tie
    for _ in range(30):  # the rest of the burst keeps returning the runner-up
        assert lat.query("tent" if hub == "a-0" else "kayak", 1)[0].id == hub
    hits = lat.query(q, 2, reinforce=False)
    assert [h.id for h in hits] == [answer, hub]
    s_answer, s_hub = lat.strength([answer, hub])
    assert s_answer is not None and s_hub is not None
    assert s_hub == pytest.approx(s_answer, abs=1e-3)  # one step each


def test_decay_follows_logical_time_not_the_wall_clock(rec) -> None:
    lat = Lattice(LatticeConfig(dim=1024, half_life_s=10 * DAY))
    lat.write([rec("a-0", "Nadia Berg owns a red bicycle.", 0)])
    assert lat.strength(["a-0"])[0] == pytest.approx(0.3)
    assert lat.strength(["a-0"])[0] == pytest.approx(0.3)  # reading does not decay it
    # Ten logical days later (one item timestamp), strength has halved.
    lat.write([rec("a-1", "Ivo Petrov sells blue kayaks.", 10 * 24 * 60)])
    assert lat.strength(["a-0"])[0] == pytest.approx(0.15)
    assert lat.strength(["a-1"])[0] == pytest.approx(0.3)
    assert lat.strength(["nope"]) == [None]


def test_decayed_never_raises_strength() -> None:
    assert decayed(0.4, t_ref=100.0, now=50.0, half_life_s=10.0) == 0.4
    assert decayed(0.4, 0.0, 20.0, 10.0) == pytest.approx(0.1)


def test_strength_breaks_near_ties_but_never_overrides_similarity(rec) -> None:
    # supersede=off: without tags, the text fallback would link these same-subject facts.
    lat = Lattice(LatticeConfig(dim=4096, strength_weight=0.02, supersede="off"))
    lat.write([
        rec("a-0", "Nadia Berg owns a red bicycle and a tent.", 0),
        rec("a-1", "Nadia Berg owns a red bicycle and a kayak.", 1),
        rec("a-2", "Nadia Berg owns a blue car.", 2),
    ])
    q = "Nadia Berg owns a red bicycle"
    hits = lat.query(q, 3, reinforce=False)
    assert {h.id for h in hits[:2]} == {"a-0", "a-1"}
    loser = hits[1].id
    lat.cells[int(loser[-1])].strength = 1.0  # make the runner-up strong
    hits = lat.query(q, 3, reinforce=False)
    assert hits[0].id == loser  # a near-tie: strength decides
    for h in hits:
        assert abs(h.score - h.similarity - 0.02 * h.strength) < 1e-5
    far = lat.cells[2]
    far.strength = 1.0  # even full strength cannot lift a clearly less similar cell
    assert lat.query(q, 3, reinforce=False)[2].id == "a-2"
