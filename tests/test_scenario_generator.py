"""Scenario files and the templated generator: defaults, determinism, variety, limits."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from scenario_helpers import PLUGINS, generate, load_scenario, script

from memory_bench.scenarios.continual import ContinualParams
from memory_bench.scenarios.script import Write
from memory_bench.scenarios.spec import ScenarioError, resolve_scenario


def test_default_scenario_has_protocol_numbers() -> None:
    s = ContinualParams.from_params(load_scenario("default").params)
    assert (s.facts, s.noise, s.updates) == (120, 600, 30)
    assert (s.gate_empty, s.gate_short, s.gate_duplicate, s.gate_clean) == (20, 20, 20, 30)
    assert (s.reinforce_cells, s.reinforce_queries, s.k) == (10, 5, 5)


def test_same_seed_byte_identical_other_seed_differs() -> None:
    s = load_scenario("default")
    a, b, c = generate(s, 3), generate(s, 3), generate(s, 4)
    assert a.to_dict() == b.to_dict()
    assert a.items_hash() == b.items_hash() != c.items_hash()


def test_counts_ids_and_timestamps() -> None:
    s = load_scenario("default")
    d = generate(s, 0)
    assert len(d.facts) == 120 and len(d.noise) == 600 and len(d.updates) == 30
    kinds = Counter(g.kind for g in d.gate)
    assert kinds == {"empty": 20, "short": 20, "duplicate": 20, "clean": 30}
    items = d.all_items()
    assert len({i.id for i in items}) == len(items)
    times = [i.timestamp for i in items]
    assert times == sorted(times) and len(set(times)) == len(times)
    assert all(t.tzinfo is not None for t in times)
    last_before_update = max(i.timestamp for i in [f.item for f in d.facts] + list(d.noise))
    assert all(u.item.timestamp > last_before_update for u in d.updates)
    # Opaque ids, sources that look like provenance and never name the phase, no tags.
    assert all(re.fullmatch(r"bench-RUN-[0-9a-f]{12}", i.id) for i in items)
    assert not [i for i in items if re.search(r"bench|RUN|-e\d|-n$|-g$", i.source)]
    assert all(i.tags == () for i in items)
    assert all(u.item.source != d.facts[u.fact].item.source for u in d.updates)


def test_facts_are_varied_and_do_not_collide() -> None:
    d = generate(load_scenario("default"), 1)
    subjects = [f.subject for f in d.facts] + [d.stated[i.id].subject for i in d.noise]
    assert len(set(subjects)) == len(subjects)
    values = [f.value for f in d.facts] + [u.value for u in d.updates]
    assert len(set(values)) == len(values)
    assert len({f.relation for f in d.facts}) == 13

    def shape(f) -> str:
        return f.item.text.replace(f.subject, "S").replace(f.value, "V")

    assert len({shape(f) for f in d.facts}) >= 40  # many sentence patterns, not one
    assert len({f.question.replace(f.subject, "S") for f in d.facts}) >= 30
    for f in d.facts:
        text = f.item.text.casefold()  # a first letter may be small (one surface for all)
        assert f.subject.casefold() in text and f.value.casefold() in text
        assert f.subject in f.question and f.value not in f.question


def test_gate_items_are_what_they_claim() -> None:
    d = generate(load_scenario("default"), 2)
    stored = {f.item.text for f in d.facts} | {i.text for i in d.noise}
    for g in d.gate:
        words = len(g.item.text.split())
        if g.kind == "empty":
            assert not g.item.text.strip()
        elif g.kind == "short":
            assert 1 <= words < 3
        elif g.kind == "duplicate":
            assert g.item.text in stored
        else:
            assert words >= 3 and g.item.text not in stored
    assert [g.kind for g in d.gate] != sorted(g.kind for g in d.gate)  # shuffled


def test_updates_and_reinforce_selection() -> None:
    d = generate(load_scenario("default"), 0)
    for u in d.updates:
        f = d.facts[u.fact]
        said = d.stated[u.item.id]
        assert said.subject == f.subject and said.relation == f.relation
        assert u.value != f.value and u.value.casefold() in u.item.text.casefold()
        assert u.question not in (f.question, f.reprobe_question)  # asked in other words
    assert not set(d.reinforce) & {u.fact for u in d.updates}
    assert len(set(d.reinforce)) == 10


def test_bind_changes_only_the_run_tag() -> None:
    s = script(load_scenario("smoke"), 0)
    b = s.bind("bench-20260101T000000-abcd-s0-")
    first, bound = s.steps[0], b.steps[0]
    assert isinstance(first, Write) and isinstance(bound, Write)
    token = first.items[0].id.removeprefix("bench-RUN-")
    assert bound.items[0].id == "bench-20260101T000000-abcd-s0-" + token
    assert bound.items[0].source == first.items[0].source  # sources carry no run
    assert bound.items[0].text == first.items[0].text
    # The hash is the script's (order and clock included): the same seed, the same hash.
    assert b.data_hash == s.data_hash == script(load_scenario("smoke"), 0).data_hash


def test_no_possessive_typos() -> None:
    d = generate(load_scenario("default"), 0)
    texts = [f.item.text for f in d.facts] + [f.question for f in d.facts]
    assert not [t for t in texts if re.search(r"s's\b", t)]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("facts = [", "not valid TOML"),
        ("factz = 3", "unknown parameter 'factz'"),
        ("facts = 0", "parameter facts: 0 is below 1"),
        ("noise = -1", "parameter noise: -1 is below 1"),
        ("gate_short = -2", "is below 0"),
        ("facts = 'many'", "expected int"),
        ("k = 5.5", "expected int"),
        ("consolidate = 'perhaps'", "expected a boolean"),
        ("facts = 1000\nnoise = 1000", "distinct subjects"),
        ("generator = 'nope'", "unknown generator"),
        ("updates = 200", "updates"),
    ],
)
def test_bad_scenario_files(tmp_path: Path, body: str, message: str) -> None:
    f = tmp_path / "bad.toml"
    f.write_text(body)
    with pytest.raises(ScenarioError, match=message):
        load_scenario(str(f))


def test_overrides_are_validated() -> None:
    s = load_scenario("smoke", {"facts": "20", "consolidate": "true"})
    assert s.params["facts"] == 20 and s.params["consolidate"] is True
    with pytest.raises(ScenarioError, match="unknown parameter"):
        load_scenario("smoke", {"colour": "red"})
    with pytest.raises(ScenarioError, match="unknown scenario"):
        load_scenario("no-such-scenario")


def test_scenario_roundtrip() -> None:
    s = load_scenario("smoke")
    data = s.to_dict()
    again = resolve_scenario(PLUGINS.scenarios, {**data.pop("params"), **data}, "round trip")
    assert again == s


@pytest.mark.parametrize("seed", range(4))
def test_generator_at_its_capacity_limit(seed: int) -> None:
    # MAX_SUBJECTS subjects, every fact updated: the worst case for the name pools.
    from memory_bench.scenarios.generators.templated import MAX_SUBJECTS

    facts = MAX_SUBJECTS - 31
    s = load_scenario("default", {"facts": str(facts), "updates": str(facts), "noise": "1",
                                  "reinforce_cells": "0"})
    d = generate(s, seed)
    subjects = [f.subject for f in d.facts] + [d.stated[i.id].subject for i in d.noise]
    assert len(set(subjects)) == len(subjects) == MAX_SUBJECTS - 30
    generate(load_scenario("default", {"noise": str(MAX_SUBJECTS - 150)}), seed)
    with pytest.raises(ScenarioError, match="distinct subjects"):
        load_scenario("default", {"noise": str(MAX_SUBJECTS)})


def test_every_ask_has_its_own_wording_and_asides_are_fair() -> None:
    """At least 12 distinct wordings a fact, 6 an update, 4 about the former value, never
    a fact's wording again; an aside for every noise item no gate item copies and every
    clean gate fact, each the only item that states its subject's relation."""
    from memory_bench.scenarios.continual.fairness import fairness_violations
    from memory_bench.scenarios.generators import templated

    d = generate(load_scenario("default"), 2)
    for f in d.facts:
        ws = f.all_wordings
        assert len(ws) >= 12 and len(set(ws)) == len(ws) and ws[0] == f.question
        assert all(f.subject in w for w in ws)
    for u in d.updates:
        assert len(u.wordings) >= 6 and len(u.past_wordings) >= 4
        assert not set(u.wordings + u.past_wordings) & set(d.facts[u.fact].all_wordings)
    copied = {g.copy_of for g in d.gate if g.copy_of}
    assert {a.item.id for a in d.asides} >= {i.id for i in d.noise if i.id not in copied}
    assert all(len(set(a.wordings)) == len(a.wordings) >= 4 for a in d.asides)
    assert fairness_violations(d, templated.renderings) == []
    # The check reads the asides: give one a second answer and it says so.
    a = d.asides[0]
    d.stated[d.facts[0].item.id] = d.stated[a.item.id]
    assert any("aside" in b for b in fairness_violations(d, templated.renderings))
