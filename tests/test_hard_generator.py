"""The hard scenario: fair on every published seed, hard by construction, leaking nothing."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from scenario_helpers import generate, load_scenario, script

from memory_bench.scenarios.continual.data import GATE_ACCEPT, Statement
from memory_bench.scenarios.continual.fairness import fairness_violations
from memory_bench.scenarios.generators import hard, templated
from memory_bench.scenarios.generators.asking import FRAMES
from memory_bench.scenarios.generators.common import SOURCE_FORMS, bare
from memory_bench.scenarios.generators.hard_relations import HARD_RELATIONS, HISTORY
from memory_bench.scenarios.generators.overlap import content_words
from memory_bench.scenarios.script import UNBOUND_PREFIX

HARD = load_scenario("hard")
PUBLISHED_SEEDS = range(HARD.seed_base, HARD.seed_base + HARD.seeds)  # what make bench runs
ID = re.compile(re.escape(UNBOUND_PREFIX) + r"[0-9a-f]{12}$")
SOURCE = re.compile("^(" + "|".join(f.split("-")[0] for f, _ in SOURCE_FORMS) + r")-\d+$")


@pytest.mark.parametrize("seed", PUBLISHED_SEEDS)
def test_every_question_has_exactly_one_answer_on_every_published_seed(seed: int) -> None:
    d = generate(HARD, seed)
    assert fairness_violations(d, hard.renderings) == []
    # and it is hard: near-identical names, several facts a person, distractors
    h = d.stats["hard"]
    assert h["near_identical_name_pairs"] >= 2 * h["families"]
    per_person = Counter(s.subject for s in d.stated.values())
    assert min(per_person[f.subject] for f in d.facts) >= HARD.params["family_relations"]


@pytest.mark.parametrize("seed", [0, 1])
def test_the_default_scenario_is_fair_too(seed: int) -> None:
    assert fairness_violations(generate(load_scenario("default"), seed),
                               templated.renderings) == []


def test_the_fairness_check_catches_a_second_answer() -> None:
    d = generate(HARD, 0)
    f = d.facts[0]
    # the noise item written first: some question about the fact comes after it
    first = {i.id for i in script(HARD, 0).items()[:200]}
    noise = next(i for i in d.noise if i.id in first)
    # Say that a noise item states the first fact's relation of its subject: unfair.
    d.stated[noise.id] = Statement(f.subject, f.relation, "elsewhere")
    bad = fairness_violations(d, hard.renderings)
    assert any("2 stored item(s) state" in b for b in bad)
    assert any("is not a rendering" in b for b in bad)


def test_backends_see_no_phase_no_index_and_no_tags() -> None:
    d = generate(HARD, 3)
    items = d.all_items()
    assert all(ID.match(i.id) for i in items)
    assert all(SOURCE.match(i.source) for i in items), {i.source for i in items}
    assert all(i.tags == () for i in items)
    # Ids are not in write order, and sources are drawn from one pool for every phase.
    assert [i.id for i in items] != sorted(i.id for i in items)
    kinds = {phase: Counter(i.source.split("-")[0] for i in its) for phase, its in (
        ("facts", [f.item for f in d.facts]), ("noise", d.noise),
        ("updates", d.update_phase_items()))}
    assert set(kinds["facts"]) == set(kinds["noise"]) == set(kinds["updates"])
    # A re-sent duplicate keeps its original's source; an update never reuses the old one.
    stored = {i.text: i.source for i in d.noise}
    assert all(g.item.source == stored[g.item.text] for g in d.gate if g.kind == "duplicate")
    assert all(u.item.source != d.facts[u.fact].item.source for u in d.updates)


def test_structured_adds_tags_and_the_exposure_says_so() -> None:
    plain = script(HARD, 0).exposure()
    assert plain["structure"] == [] and plain["tagged_items"] == 0
    tagged = script(load_scenario("hard", {"structured": "true"}), 0)
    e = tagged.exposure()
    assert e["structure"] == ["tags"] and e["tag_keys"] == ["relation", "subject"]
    assert e["tagged_items"] >= 120 + 600 + 30


def _slots(template: str) -> str:
    return re.sub(r"\{[a-zA-Z]\}", "", template)


def test_questions_paraphrase_the_relation() -> None:
    """No question (present or past, in any frame) shares a content word or a stem with its
    relation's fact, update or history templates (two words share a stem here when one is
    the other plus a short suffix)."""
    def stems_clash(a: str, b: str) -> bool:
        k = 0
        while k < min(len(a), len(b)) and a[k] == b[k]:
            k += 1
        return k >= 3 and k >= min(len(a), len(b)) - 1

    for rel in HARD_RELATIONS:
        stated = set().union(*(content_words(_slots(t))
                               for t in (*rel.facts, *rel.updates, *HISTORY[rel.name])))
        assert len(rel.questions) >= 8 and len(rel.past) >= 5
        for q in (*rel.questions, *rel.past, *FRAMES):
            asked = content_words(_slots(q.replace("{q}", "").replace("{Q}", "")))
            clash = [(a, b) for a in asked for b in stated if a == b or stems_clash(a, b)]
            assert not clash, (rel.name, q, clash)


def test_updates_are_said_and_asked_in_other_words() -> None:
    d = generate(HARD, 1)
    forms = {r.name: r for r in HARD_RELATIONS}
    for u in d.updates:
        f = d.facts[u.fact]
        assert u.question not in (f.question, f.reprobe_question)
        assert f.reprobe_question != f.question
        rel = forms[f.relation]
        old = next(t for t in rel.facts
                   if bare(hard._fill(t, f.subject, f.value)) == bare(f.item.text))
        assert bare(u.item.text) != bare(hard._fill(old, f.subject, u.value))
        # No stock update phrase: an update is said in a fact template.
        assert bare(u.item.text) in {bare(hard._fill(t, f.subject, u.value)) for t in rel.facts}
    assert len(d.update_noise) == HARD.params["update_distractors"]


def test_the_gate_has_every_kind_and_each_is_what_it_claims() -> None:
    d = generate(HARD, 2)
    kinds = Counter(g.kind for g in d.gate)
    refusable = [k for k in kinds if k not in GATE_ACCEPT]
    assert len(refusable) >= 6 and set(GATE_ACCEPT) <= set(kinds)
    stored = {i.text for i in d.noise}
    sayable = {bare(t) for s in d.stated.values() for t in hard.renderings(s)}
    for g in d.gate:
        text, words = g.item.text, len(g.item.text.split())
        if g.kind == "empty":
            assert not text.strip()
        elif g.kind == "short":
            assert 1 <= words < 3
        elif g.kind == "duplicate":
            assert text in stored
        elif g.kind == "near_duplicate":
            assert text not in stored and d.stated[g.item.id] == d.stated[g.copy_of]
        elif g.kind in ("chitchat", "boilerplate", "fragment"):
            assert words >= 3 and bare(text) not in sayable
        elif g.kind == "clean_short":
            assert 2 <= words <= 4
        else:
            assert words >= 3 and text not in stored
    # Some clean facts are two words long: a word-count rule refuses what it should keep.
    assert any(len(g.item.text.split()) == 2 for g in d.gate if g.kind == "clean_short")


def test_near_identical_names_are_never_the_same_name() -> None:
    d = generate(HARD, 4)
    subjects = sorted({s.subject for s in d.stated.values()})
    assert len({" ".join(s.casefold().split()) for s in subjects}) == len(subjects)
    one_apart = [(a, b) for i, a in enumerate(subjects) for b in subjects[i + 1:]
                 if _one_span_apart(a, b) and hard._edits(a, b) == 1]
    assert len(one_apart) >= d.stats["hard"]["near_identical_name_pairs"]


def _one_span_apart(a: str, b: str) -> bool:
    """Necessary for a Levenshtein distance of 1 (cheap, so that the quadratic loop above
    runs the distance only where it can be 1): lengths within one, and a common prefix
    and suffix that leave at most one character of the longer out."""
    if abs(len(a) - len(b)) > 1:
        return False
    return _common(a, b) + _common(a[::-1], b[::-1]) >= max(len(a), len(b)) - 1


def _common(a: str, b: str) -> int:
    """The length of the common prefix."""
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
                min(len(a), len(b)))


def test_same_seed_same_data_other_seed_differs() -> None:
    a, b, c = generate(HARD, 5), generate(HARD, 5), generate(HARD, 6)
    assert a.to_dict() == b.to_dict() and a.items_hash() == b.items_hash() != c.items_hash()


def test_half_the_updates_are_followed_by_the_old_value_in_the_past_tense() -> None:
    """A history item recalls the old value after the update, from a third source; the
    update probe must rank the new value above it as above the old one, so "the newest
    item about the subject" is not the answer by itself."""
    d = generate(HARD, 3)
    s = script(HARD, 3)
    with_history = [u for u in d.updates if u.history is not None]
    assert len(with_history) == round(0.5 * len(d.updates))
    order = {i.id: n for n, i in enumerate(s.items())}
    step_of = {i.id: n for n, st in enumerate(s.steps) if hasattr(st, "items")
               for i in st.items}
    probes = {st.expected[0]: (n, st) for n, st in enumerate(s.steps)
              if getattr(st, "tag", "") == "update" and hasattr(st, "outrank")}
    for u in with_history:
        f = d.facts[u.fact]
        st = d.stated[u.history.id]
        assert st.past and (st.subject, st.relation, st.value) == (f.subject, f.relation,
                                                                   f.value)
        assert f.subject in u.history.text and f.value in u.history.text
        assert u.history.source not in (f.item.source, u.item.source)
        assert order[f.item.id] < order[u.item.id] < order[u.history.id]
        n, p = probes[u.item.id]
        assert set(p.outrank) == {f.item.id, u.history.id}
        assert step_of[u.history.id] < n  # asked once both are written
    assert not fairness_violations(d, hard.renderings, s)
