"""Supersession: the new value outranks the old, the old is kept and linked (lineage)."""

from __future__ import annotations

from memory_bench_rshl import Lattice, LatticeConfig


def _two_values(rec, lat: Lattice, tags: bool):
    kw = {"subject": "Mara Olsen", "relation": "works_for"} if tags else {}
    lat.write([rec("t-e1-0000", "Mara Olsen works for Acme Foods.", 0, **kw)])
    lat.write([rec(f"t-n-{i:04d}", t, 1 + i) for i, t in enumerate([
        "Ivo Petrov works for Globex Shipping.",
        "Lena Berg is employed by Initech Labs.",
        "Tomas Haddad lives in the town of Krakow.",
    ])])
    # A different template, as the generator's updates use.
    return lat.write([rec("t-e2-0000", "Mara Olsen has moved jobs and is now employed by "
                                       "Vandelay Industries.", 10, **kw)])[0]


def test_tags_supersede_and_keep_lineage(rec) -> None:
    lat = Lattice(LatticeConfig(dim=2048))
    out = _two_values(rec, lat, tags=True)
    assert out.accepted and out.supersedes == "t-e1-0000"
    old, new = lat.get("t-e1-0000"), lat.get("t-e2-0000")
    assert old is not None and new is not None  # the old cell is kept
    assert old.superseded_by == "t-e2-0000" and new.supersedes == ["t-e1-0000"]
    assert lat.lineage("t-e1-0000") == lat.lineage("t-e2-0000") == ["t-e1-0000", "t-e2-0000"]
    ids = [h.id for h in lat.query("Who does Mara Olsen work for?", 5)]
    assert ids.index("t-e2-0000") < ids.index("t-e1-0000")
    hit_old = next(h for h in lat.query("Who does Mara Olsen work for?", 5)
                   if h.id == "t-e1-0000")
    assert hit_old.superseded_by == "t-e2-0000"


def test_text_only_fallback_supersedes_without_tags(rec) -> None:
    lat = Lattice(LatticeConfig(dim=2048, supersede="text"))
    lat.write([rec("t-e1-0000", "Mara Olsen works for Acme Foods.", 0),
               rec("t-n-0000", "Mara Olsen lives in the town of Krakow.", 1),
               rec("t-n-0001", "Ivo Petrov works for Globex Shipping.", 2)])
    # Same subject, same relation word, a new value: an update.
    out = lat.write([rec("t-e2-0000", "Mara Olsen now works for Vandelay Industries.", 10)])[0]
    assert out.supersedes == "t-e1-0000"
    ids = [h.id for h in lat.query("Who does Mara Olsen work for?", 5)]
    assert ids[0] == "t-e2-0000"
    assert lat.get("t-n-0000").superseded_by is None  # her other fact is not an old value


def test_text_supersession_needs_the_same_relation_and_a_new_value(rec) -> None:
    lat = Lattice(LatticeConfig(dim=2048, supersede="text"))
    lat.write([rec("t-f-0000", "Mara Olsen works for Acme Foods.", 0)])
    other = lat.write([rec("t-f-0001", "Mara Olsen was born in Lower Rosthwaite.", 1)])[0]
    again = lat.write([rec("t-f-0002", "Records say that Mara Olsen works for Acme Foods.", 2)])
    assert other.supersedes is None  # another relation of the same person
    assert again[0].supersedes is None  # the same value again: a restatement


def test_a_dialogue_speaker_is_not_the_subject(rec) -> None:
    lat = Lattice(LatticeConfig(dim=2048, supersede="text"))
    lat.write([rec("t-d-0000", "Caroline: I went to a support group yesterday.", 0)])
    out = lat.write([rec("t-d-0001", "Caroline: I went to the beach with the kids.", 1)])[0]
    assert out.supersedes is None  # two turns of one speaker, not two values of one fact


def test_a_near_namesake_is_not_a_new_value(rec) -> None:
    # The scale scenario's near misses: a fact with one word of a name renamed. The two
    # share a place; their people share a surname: two Radcliffes, not a new resident.
    lat = Lattice(LatticeConfig(dim=2048, supersede="text"))
    lat.write([rec("t-n-0000", "Quinta Radcliffe lives in East Selfield.", 0)])
    twin = lat.write([rec("t-n-0001", "Quidrose Radcliffe lives in East Selfield.", 1)])[0]
    assert twin.accepted and twin.supersedes is None
    assert lat.get("t-n-0000").superseded_by is None
    moved = lat.write([rec("t-n-0002", "Tobias Wren lives in East Selfield.", 2)])[0]
    assert moved.supersedes is not None  # a name sharing no word still reads as a new value


def test_supersede_off_links_nothing(rec) -> None:
    lat = Lattice(LatticeConfig(dim=2048, supersede="off"))
    out = _two_values(rec, lat, tags=True)
    assert out.supersedes is None and lat.get("t-e1-0000").superseded_by is None


def test_out_of_order_write_keeps_the_later_value_current(rec) -> None:
    lat = Lattice(LatticeConfig(dim=2048))
    kw = {"subject": "Ivo", "relation": "city"}
    lat.write([rec("t-e2-0000", "Ivo Petrov now lives in Porto.", 50, **kw)])
    out = lat.write([rec("t-e1-0000", "Ivo Petrov lives in Lyon.", 5, **kw)])[0]
    assert out.supersedes == "t-e1-0000"  # the older item is the one superseded
    assert lat.get("t-e1-0000").superseded_by == "t-e2-0000"


def test_removing_the_successor_restores_the_old_value(rec) -> None:
    lat = Lattice(LatticeConfig(dim=2048))
    _two_values(rec, lat, tags=True)
    assert lat.remove("t-e2-") == 1
    assert lat.get("t-e1-0000").superseded_by is None
    assert lat.query("Who does Mara Olsen work for?", 1)[0].id == "t-e1-0000"


def test_superseded_cells_can_be_hidden(rec) -> None:
    lat = Lattice(LatticeConfig(dim=2048, show_superseded=False))
    _two_values(rec, lat, tags=True)
    ids = [h.id for h in lat.query("Who does Mara Olsen work for?", 5)]
    assert ids[0] == "t-e2-0000" and "t-e1-0000" not in ids
    assert lat.get("t-e1-0000") is not None  # hidden from results, still kept


def test_whom_a_turn_addresses_is_not_its_subject() -> None:
    from memory_bench_rshl.claims import claim

    assert claim("Caroline: Thanks, Mel! Believe in yourself.").names == ()
    assert claim("Jon: Hey Gina, I met Ivo Petrov at Acme Foods.").names == (
        "ivo petrov", "acme foods")
    assert claim("Wow. Mara Olsen now works for Acme Foods.").names == (
        "mara olsen", "acme foods")


def test_a_change_cue_links_the_one_known_value_in_other_words(rec) -> None:
    lat = Lattice(LatticeConfig(dim=2048, supersede="text"))
    lat.write([rec("t-c-0000", "Acme Foods employs Mara Olsen.", 0)])
    out = lat.write([rec("t-c-0001", "Mara Olsen now works for Vandelay Industries.", 1)])[0]
    assert out.supersedes == "t-c-0000"  # no shared relation word, but "now" and one peer
    lat = Lattice(LatticeConfig(dim=2048, supersede="text"))
    lat.write([rec("t-c-0002", "Acme Foods employs Mara Olsen.", 0),
               rec("t-c-0003", "Mara Olsen lives in Lower Rosthwaite.", 1)])
    out = lat.write([rec("t-c-0004", "Mara Olsen now works for Vandelay Industries.", 2)])[0]
    assert out.supersedes is None  # two peers, no shared relation word: which one is unknown
