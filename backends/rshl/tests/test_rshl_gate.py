"""The write gate: each refusal reason, no false refusal, near-duplicate merge with provenance."""

from __future__ import annotations

from memory_bench_rshl import Lattice, LatticeConfig
from memory_bench_rshl.gate import text_subject


def test_each_refusal_reason(lattice: Lattice, rec) -> None:
    out = lattice.write(
        [
            rec("t-g-0000", "", minutes=100),
            rec("t-g-0001", " \t\n ", minutes=101),
            rec("t-g-0002", "Hello there", minutes=102),
            rec("t-g-0003", "Mara   Olsen works for\nAcme Foods.", minutes=103),
        ]
    )
    assert [(o.accepted, o.reason) for o in out] == [
        (False, "empty"),
        (False, "empty"),
        (False, "too_short"),
        (False, "duplicate"),
    ]
    assert lattice.count("t-g-") == 0


def test_duplicate_within_one_batch_and_reused_id(rec) -> None:
    lat = Lattice(LatticeConfig(dim=1024))
    out = lat.write(
        [
            rec("a-0", "Nadia Berg owns a red bicycle.", 1),
            rec("a-1", "Nadia Berg owns a red bicycle.", 2),
            rec("a-0", "Nadia Berg owns a blue kayak.", 3),
        ]
    )
    assert [o.reason for o in out] == [None, "duplicate", "duplicate_id"]


def test_clean_distinct_facts_are_never_refused_or_merged(rec) -> None:
    lat = Lattice(LatticeConfig(dim=2048))
    texts = [f"{first} {last} works for {co}." for first, last, co in [
        ("Mara", "Olsen", "Acme Foods"), ("Mara", "Olsen2", "Acme Foods"),
        ("Ivo", "Olsen", "Acme Foods"), ("Mara", "Olsen", "Globex"),
    ]] + ["Three short words.", "Acme Foods employs many people."]
    out = lat.write([rec(f"c-{i}", t, i) for i, t in enumerate(texts)])
    assert all(o.accepted and o.merged_into is None for o in out)
    assert lat.live_count() == len(texts)


def test_near_duplicate_is_merged_keeping_both_sources(lattice: Lattice, rec) -> None:
    out = lattice.write(
        [rec("t-x-0000", "Mara Olsen works for Acme Foods!", minutes=50, source="diary")]
    )
    assert out[0].accepted and out[0].merged_into == "t-e1-0000"
    hit = lattice.query("Who does Mara Olsen work for?", 1)[0]
    assert hit.id == "t-e1-0000"
    assert hit.source == "t-e1" and set(hit.sources) == {"t-e1", "diary"}
    assert lattice.count("t-x-") == 1  # the merged item is still counted, and removable
    assert lattice.strength(["t-x-0000"]) == lattice.strength(["t-e1-0000"])
    assert lattice.remove("t-x-") == 1
    assert lattice.query("Who does Mara Olsen work for?", 1)[0].sources == ("t-e1",)


def test_a_new_value_is_not_a_near_duplicate(lattice: Lattice, rec) -> None:
    out = lattice.write([rec("t-x-0001", "Mara Olsen works for Globex Foods.", minutes=60)])
    assert out[0].accepted and out[0].merged_into is None


def test_text_subject() -> None:
    assert text_subject("Mara Olsen's employer is now Globex.") == "mara olsen"
    assert text_subject("Records show that Ivo Petrov was born in Lyon.") == "ivo petrov"
    assert text_subject("Roswick lies on the river.") == "roswick"
    # A one-word capital at the start reads as sentence case when a name follows.
    assert text_subject("Tomorrow, Ivo Petrov moves to Lyon.") == "ivo petrov"
    assert text_subject("nothing capitalised here") is None


def test_cells_are_grouped_by_region(rec) -> None:
    from dataclasses import replace

    lat = Lattice(LatticeConfig(dim=1024))
    lat.write([
        replace(rec("a-0", "Nadia Berg owns a red bicycle.", 0), region="home"),
        replace(rec("a-1", "Nadia Berg rents a red bicycle.", 1), region="work"),
    ])
    assert {h.id for h in lat.query("Nadia Berg red bicycle", 5)} == {"a-0", "a-1"}
    assert [h.id for h in lat.query("Nadia Berg red bicycle", 5, region="work")] == ["a-1"]
    assert lat.query("Nadia Berg red bicycle", 5, region="nowhere") == []


def test_a_removed_text_can_be_written_again(lattice: Lattice, rec) -> None:
    lattice.write([rec("t-x-0000", "Mara Olsen works for Acme Foods!", 50, source="diary")])
    assert lattice.remove("t-x-") == 1  # the merged item only
    again = lattice.write([rec("t-y-0000", "Mara Olsen works for Acme Foods!", 51)])[0]
    assert again.accepted and again.merged_into == "t-e1-0000"
    assert lattice.remove("t-e1-0000") == 1 and lattice.get("t-y-0000").id == "t-y-0000"
    assert lattice.write([rec("t-z-0000", "Mara Olsen works for Acme Foods.", 52)])[0].accepted


def test_forgetting_one_source_of_a_merged_cell_keeps_the_other(lattice: Lattice, rec) -> None:
    lattice.write([rec("t-x-0000", "Mara Olsen works for Acme Foods!", minutes=50,
                       source="diary")])
    facts = lattice.count("t-e1-")
    assert lattice.forget(source="t-e1", prefix="t-e1-0000") == 1  # only that item of t-e1
    hit = lattice.query("Who does Mara Olsen work for?", 1)[0]
    assert (hit.id, hit.sources) == ("t-x-0000", ("diary",))  # the diary's copy stays
    assert lattice.count("t-e1-0000") == 0 and lattice.count("t-e1-") == facts - 1
    assert lattice.forget(["t-x-0000", "t-nope"]) == 1
    assert "t-x-0000" not in [h.id for h in lattice.query("Who does Mara Olsen work for?", 5)]
