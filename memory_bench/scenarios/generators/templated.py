"""The templated generator: METHOD.md's synthetic facts, varied so no one pattern repeats.

Each fact has its own invented subject and value; thirteen relations, four fact
templates and three question phrasings each; noise is facts about other
subjects (so interference is real, not random strings); updates give a fact's
subject and relation a new value with an update template.
"""

from __future__ import annotations

import random
import re

from memory_bench.contract.items import Item
from memory_bench.scenarios.continual.data import Fact, GateCase, ScenarioData, Update
from memory_bench.scenarios.continual.params import ContinualParams as Params
from memory_bench.scenarios.generators import vocab
from memory_bench.scenarios.generators.common import EPOCH, WHITESPACE, ItemStamper
from memory_bench.scenarios.generators.names import NamePools
from memory_bench.scenarios.generators.overlap import question_overlap
from memory_bench.scenarios.generators.relations import RELATIONS, Relation

__all__ = ["MAX_SUBJECTS", "generate"]

# Up to here every name pool stays under half full even when every fact is updated
# (tests/test_scenario_generator.py checks the worst case on several seeds).
MAX_SUBJECTS = 1500


def capacity_error(s: Params) -> str | None:
    wanted = s.facts + s.noise + s.gate_clean
    if wanted > MAX_SUBJECTS:
        return (
            f"asks for {wanted} distinct subjects (facts + noise + gate_clean);"
            f" the templated generator can make at most {MAX_SUBJECTS}"
        )
    return None


_S_POSSESSIVE = re.compile(r"(?<=s)'s\b")


def _cap(text: str) -> str:
    """Capitalise the first letter and write "Fathom Foods'" for "Fathom Foods's"."""
    text = _S_POSSESSIVE.sub("'", text)
    return text[:1].upper() + text[1:]


def _relations(rng: random.Random, n: int) -> list[Relation]:
    """n relations, balanced: every relation appears before any appears twice more."""
    out: list[Relation] = []
    while len(out) < n:
        block = list(RELATIONS)
        rng.shuffle(block)
        out.extend(block)
    return out[:n]


def generate(s: Params, seed: int) -> ScenarioData:
    rng = random.Random(f"memory-bench/templated/{seed}")
    names = NamePools(rng)
    stamp = ItemStamper(s.region)

    def fact_item(prefix: str, i: int, rel: Relation, subj: str, text: str) -> Item:
        return stamp(prefix, i, text, (f"subject:{subj}", f"relation:{rel.name}"))

    def make_fact(prefix: str, i: int, rel: Relation) -> Fact:
        subj, value = names.draw(rel.subject), names.draw(rel.value)
        text = _cap(rng.choice(rel.facts).format(s=subj, v=value))
        question = _cap(rng.choice(rel.questions).format(s=subj))
        return Fact(fact_item(prefix, i, rel, subj, text), question, subj, rel.name, value)

    facts = [make_fact("e1", i, r) for i, r in enumerate(_relations(rng, s.facts))]
    noise = [make_fact("n", i, r).item for i, r in enumerate(_relations(rng, s.noise))]

    by_name = {r.name: r for r in RELATIONS}
    updates: list[Update] = []
    for i, fi in enumerate(sorted(rng.sample(range(len(facts)), s.updates))):
        f = facts[fi]
        rel = by_name[f.relation]
        value = names.draw(rel.value)
        text = _cap(rng.choice(rel.updates).format(s=f.subject, v=value))
        updates.append(Update(fi, fact_item("e2", i, rel, f.subject, text), f.question, value))

    gate = _gate(s, rng, facts, noise, make_fact)
    stamped = [GateCase(stamp("g", i, g.item.text, g.item.tags), g.kind)
               for i, g in enumerate(gate)]

    updated = {u.fact for u in updates}
    reinforce = sorted(rng.sample([i for i in range(len(facts)) if i not in updated],
                                  s.reinforce_cells))
    return ScenarioData(
        seed=seed,
        facts=tuple(facts),
        noise=tuple(noise),
        updates=tuple(updates),
        gate=tuple(stamped),
        reinforce=tuple(reinforce),
        stats={"question_overlap": question_overlap(
            probe=([f.question for f in facts], [f.item.text for f in facts],
                   [f.subject for f in facts]),
            update=([u.question for u in updates], [u.item.text for u in updates],
                    [facts[u.fact].subject for u in updates]),
        )},
    )


def _gate(s: Params, rng: random.Random, facts: list[Fact], noise: list[Item], make_fact):
    """Refusable and clean items in a seeded shuffled order (ids and times set later)."""
    placeholder = EPOCH

    def junk(text: str, tags: tuple[str, ...] = ()) -> Item:
        return Item(id="", text=text, source="", timestamp=placeholder, tags=tags)

    cases = [GateCase(junk(rng.choice(WHITESPACE)), "empty") for _ in range(s.gate_empty)]
    shorts = (
        rng.sample(vocab.SHORT_TEXTS, s.gate_short)
        if s.gate_short <= len(vocab.SHORT_TEXTS)
        else rng.choices(vocab.SHORT_TEXTS, k=s.gate_short)
    )
    cases += [GateCase(junk(t), "short") for t in shorts]
    stored = [f.item for f in facts] + noise
    dup_sources = (
        rng.sample(stored, s.gate_duplicate)
        if s.gate_duplicate <= len(stored)
        else rng.choices(stored, k=s.gate_duplicate)
    )
    cases += [GateCase(junk(it.text, it.tags), "duplicate") for it in dup_sources]
    for i, rel in enumerate(_relations(rng, s.gate_clean)):
        cases.append(GateCase(make_fact("g", i, rel).item, "clean"))
    rng.shuffle(cases)
    return cases
