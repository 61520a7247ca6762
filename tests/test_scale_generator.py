"""The scale generator: a continual script grown to a size, near misses a fixed share."""

from __future__ import annotations

import re

import pytest
from scenario_helpers import PLUGINS, load_scenario

from memory_bench.harness.pair import generate_script
from memory_bench.scenarios.scale.rename import CAPITALISED
from memory_bench.scenarios.script import Probe, Write

SMOKE = {"facts": "12", "noise": "24", "updates": "4", "gate_empty": "3", "gate_short": "3",
         "gate_duplicate": "3", "gate_clean": "4", "reinforce_cells": "3",
         "reinforce_queries": "2", "write_batch": "16", "structured": "true",
         "forget_ids": "1", "forget_sources": "1", "forget_updated": "1"}


def _scale(size: int, seed: int = 0, hard: float = 0.1, **extra: str):
    spec = load_scenario("scale", {**SMOKE, "size": str(size), "hard_share": str(hard),
                                   **extra})
    return spec, generate_script(PLUGINS, spec.ref(), seed)


def _base(seed: int = 0):
    spec = load_scenario("smoke", {"write_batch": "16", "stream": "phased"})
    return generate_script(PLUGINS, spec.ref(), seed)


def _noise(script) -> list:
    return [i for s in script.steps if isinstance(s, Write) and s.tag == "interfere"
            for i in s.items]


def _facts(script) -> dict[str, tuple[str, str]]:
    """fact id -> (text, question)"""
    texts = {i.id: i.text for s in script.steps if isinstance(s, Write) and s.tag == "seed"
             for i in s.items}
    return {p.expected[0]: (texts[p.expected[0]], p.question)
            for p in script.steps if isinstance(p, Probe) and p.tag == "probe"}


def test_the_store_holds_exactly_size_items_with_the_share_of_near_misses() -> None:
    for size, hard in ((200, 0.1), (500, 0.25), (60, 0.0)):
        _, script = _scale(size, hard=hard)
        noise = _noise(script)
        assert 12 + len(noise) == size
        stats = script.stats["scale"]
        # The grown run is the bulk; the base's noise among facts and updates stays.
        assert stats["noise"] + stats["kept_noise"] == len(noise)
        assert stats["hard"] == round(hard * stats["noise"])
        assert stats["base_noise"] + stats["kept_noise"] == 24
        assert stats["renamed"] == stats["noise"] - stats["base_noise"] - stats["hard"]


def test_everything_but_the_noise_is_the_base_script() -> None:
    base, (_, grown) = _base(), _scale(300)
    assert [type(s) for s in base.steps if not (isinstance(s, Write) and s.tag == "interfere")] \
        == [type(s) for s in grown.steps if not (isinstance(s, Write) and s.tag == "interfere")]
    probes = lambda sc: [(p.question, p.expected, p.outrank, p.tag) for p in sc.steps  # noqa: E731
                         if isinstance(p, Probe)]
    assert probes(base) == probes(grown)
    later = lambda sc, tag: [(i.id, i.text, i.source, i.tags) for s in sc.steps  # noqa: E731
                             if isinstance(s, Write) and s.tag == tag for i in s.items]
    for tag in ("seed", "update", "gate"):
        assert later(base, tag) == later(grown, tag)
    # The base's own noise items are all in the grown store, unchanged but for time and id.
    assert {i.text for i in _noise(base)} <= {i.text for i in _noise(grown)}


def test_ids_sources_and_clock_do_not_tell_noise_kinds_apart_and_only_move_forward() -> None:
    _, script = _scale(400)
    noise = _noise(script)
    assert len({i.id for i in script.items()}) == len(script.items())
    base_items = _base().items()
    # Noise ids have the base generators' form (prefix, 12 hex digits) and noise sources
    # come from the pool every phase draws from: neither names the phase or the kind.
    assert all(re.fullmatch(script.prefix + r"[0-9a-f]{12}", i.id) for i in script.items())
    assert {i.source for i in noise} <= {i.source for i in base_items}
    assert len({i.source for i in noise}) > 1
    stamps = [i.timestamp for i in script.items()]
    assert stamps == sorted(stamps) and len(set(stamps)) == len(stamps)


def test_near_misses_rename_one_subject_word_and_never_answer_the_question() -> None:
    _, script = _scale(600, hard=0.3)
    facts = _facts(script)
    noise_texts = [i.text for i in _noise(script)]
    assert not set(noise_texts) & {t for t, _ in facts.values()}
    assert len(set(noise_texts)) == len(noise_texts)
    near = 0
    for text in noise_texts:
        words = text.split()
        for fact, question in facts.values():
            fw = fact.split()
            if len(fw) != len(words):
                continue
            diff = [(a, b) for a, b in zip(fw, words, strict=True) if a != b]
            if len(diff) == 1:
                old, new = (CAPITALISED.search(w).group() for w in diff[0])
                assert old in question.split() or old in re.findall(r"\w+", question)
                assert new not in re.findall(r"\w+", question)
                near += 1
                break
    assert near >= script.stats["scale"]["hard"]


def test_renamed_noise_never_names_a_fact_subject_and_its_tags_follow_its_text() -> None:
    _, script = _scale(500, hard=0.0)
    facts = _facts(script)
    fact_words = {w for text, q in facts.values() for w in CAPITALISED.findall(text + " " + q)}
    base_texts = {i.text for i in _noise(_base())}
    renamed = [i for i in _noise(script) if i.text not in base_texts]
    assert len(renamed) == 500 - 12 - 24
    for item in renamed:
        subject = item.tag("subject")
        assert subject is not None and subject in item.text
        assert not set(CAPITALISED.findall(item.text)) & (fact_words - {"The", "Of", "Records",
                                                                        "Dial", "Corrected"})


def test_same_seed_same_items_other_seed_other_items() -> None:
    _, a = _scale(300, seed=4)
    _, b = _scale(300, seed=4)
    _, c = _scale(300, seed=5)
    assert a.data_hash == b.data_hash
    assert [i.text for i in _noise(a)] == [i.text for i in _noise(b)]
    assert a.data_hash != c.data_hash
    _, d = _scale(301, seed=4)
    assert d.data_hash != a.data_hash


@pytest.mark.parametrize(("overrides", "message"), [
    ({"size": "30"}, "too small"),
    ({"base": "scale"}, "cannot grow"),
    ({"base": "nope"}, "unknown generator"),
])
def test_unusable_parameters_are_refused_in_one_line(overrides, message) -> None:
    from memory_bench.scenarios.spec import ScenarioError

    with pytest.raises(ScenarioError, match=message):
        load_scenario("scale", {**SMOKE, **overrides})


def test_the_natural_generator_can_be_grown_too_or_says_why_not() -> None:
    """Any continual generator: natural's definitions hold few names, so renaming them
    either works or fails with a clear reason, never a silent duplicate."""
    from memory_bench.harness.pair import GenerationError

    spec = load_scenario("scale", {**SMOKE, "base": "natural", "size": "120"})
    try:
        script = generate_script(PLUGINS, spec.ref(), 0)
    except GenerationError as exc:
        assert "name tokens" in str(exc) or "near miss" in str(exc)
    else:
        texts = [i.text for i in _noise(script)]
        assert len(set(texts)) == len(texts) == 120 - 12
