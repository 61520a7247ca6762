"""The templated generator: METHOD.md's synthetic facts, varied so no one pattern repeats.

Each fact has its own invented subject and value; thirteen relations, four fact
templates and three question phrasings each, asked in 16 framed wordings
(``asking.py``), an update in 8 and its former value in 6 (``PAST_QUESTIONS``);
noise is facts about other subjects (so interference is real, not random
strings), each asked as an aside; updates give a fact's subject and relation a
new value in another fact template. Every question names its subject as the
fact does and repeats the relation's words: the easy, METHOD.md-compatible test
(``hard.py`` is the other one).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from memory_bench.contract.items import Item
from memory_bench.scenarios.continual.data import (
    Aside,
    Corroboration,
    Fact,
    ScenarioData,
    Statement,
    Update,
)
from memory_bench.scenarios.continual.params import ContinualParams as Params
from memory_bench.scenarios.generators import asking, vocab
from memory_bench.scenarios.generators.common import (
    ItemStamper,
    bare,
    other_index,
    pick_reinforced,
)
from memory_bench.scenarios.generators.common import sentence as _cap
from memory_bench.scenarios.generators.gate import (
    GateTexts,
    build_gate,
    clean_short_facts,
    sample,
    short_names_error,
)
from memory_bench.scenarios.generators.names import NamePools
from memory_bench.scenarios.generators.overlap import question_overlap
from memory_bench.scenarios.generators.relations import PAST_QUESTIONS, RELATIONS, Relation

__all__ = ["MAX_SUBJECTS", "capacity_error", "generate", "renderings"]

# Up to here every name pool stays under half full even when every fact is updated
# (tests/test_scenario_generator.py checks the worst case on several seeds).
MAX_SUBJECTS = 1500
# Wordings per question (tests/test_scenario_generator.py): every follow-up in a new one.
FACT_WORDINGS, UPDATE_WORDINGS, PAST_WORDINGS, ASIDE_WORDINGS = 16, 8, 6, 12


def capacity_error(s: Params) -> str | None:
    if s.update_history:
        return ("update_history needs the hard or natural generator (the templated one has "
                "no past-tense forms)")
    wanted = (s.facts + s.noise + s.gate_clean + s.gate_fragment + s.gate_chitchat
              + s.gate_boilerplate)
    if wanted > MAX_SUBJECTS:
        return (
            f"asks for {wanted} distinct subjects (facts + noise + gate_clean + gate_fragment"
            " + gate_chitchat + gate_boilerplate);"
            f" the templated generator can make at most {MAX_SUBJECTS}"
        )
    return short_names_error(s)




def _relations(rng: random.Random, n: int) -> list[Relation]:
    """n relations, balanced: every relation appears before any appears twice more."""
    out: list[Relation] = []
    while len(out) < n:
        block = list(RELATIONS)
        rng.shuffle(block)
        out.extend(block)
    return out[:n]


@dataclass(frozen=True)
class _Stated:
    """What a templated item states, kept by the generator (never sent)."""

    relation: Relation
    subject: str
    value: str
    template: int


def _tags(rel: Relation, subj: str) -> tuple[str, ...]:
    return (f"subject:{subj}", f"relation:{rel.name}")


def _other(rng: random.Random, n: int, not_this: int) -> int:
    """A template index other than ``not_this`` (when there is another)."""
    return rng.choice([i for i in range(n) if i != not_this] or [not_this])


def generate(s: Params, seed: int) -> ScenarioData:
    rng = random.Random(f"memory-bench/templated/{seed}")
    names = NamePools(rng)
    stamp = ItemStamper(s.region, f"templated/{seed}", structured=s.structured)
    stated: dict[str, _Stated] = {}
    asked_with: dict[str, tuple[int, int]] = {}  # fact id -> its probe and re-probe phrasings

    def state(rel: Relation, subj: str, value: str, template: int, **kw) -> Item:
        item = stamp(_cap(rel.facts[template].format(s=subj, v=value)), _tags(rel, subj), **kw)
        stated[item.id] = _Stated(rel, subj, value, template)
        return item

    # Wordings have their own randomness: how many a fact gets changes no item.
    ask = random.Random(f"memory-bench/templated-asking/{seed}")

    def make_fact(rel: Relation, n_wordings: int = FACT_WORDINGS) -> Fact:
        subj, value = names.draw(rel.subject), names.draw(rel.value)
        item = state(rel, subj, value, rng.randrange(len(rel.facts)))
        q = rng.randrange(len(rel.questions))
        r = other_index(rng, len(rel.questions), (q,))
        asked_with[item.id] = (q, r)
        ws = asking.wordings(ask, _cores(rel.questions, subj), n_wordings, first=(q, r))
        return Fact(item, ws[0], subj, rel.name, value, ws[1], wordings=tuple(ws))

    facts = [make_fact(r) for r in _relations(rng, s.facts)]
    noise = [make_fact(r, 2).item for r in _relations(rng, s.noise)]

    by_name = {r.name: r for r in RELATIONS}
    updates: list[Update] = []
    for fi in sorted(rng.sample(range(len(facts)), s.updates)):
        f = facts[fi]
        rel = by_name[f.relation]
        value = names.draw(rel.value)
        # A fact template other than the old one's: no stock update phrase ("Corrected
        # records now give ...") tells an update from a fact.
        t = _other(rng, len(rel.facts), stated[f.item.id].template)
        item = state(rel, f.subject, value, t, avoid=(f.item.source,))
        q = other_index(rng, len(rel.questions), asked_with[f.item.id])
        ws = asking.wordings(ask, _cores(rel.questions, f.subject), UPDATE_WORDINGS,
                             first=(q,), taken=f.wordings)
        past = asking.wordings(ask, _cores(PAST_QUESTIONS[rel.name], f.subject),
                               PAST_WORDINGS)
        updates.append(Update(fi, item, ws[0], value, wordings=tuple(ws),
                              past_wordings=tuple(past)))

    reinforce, restated = pick_reinforced(rng, len(facts), {u.fact for u in updates},
                                          s.reinforce_cells, s.corroborations)
    corroborations = []
    for n, fi in enumerate(restated):
        f, st = facts[fi], stated[facts[fi].item.id]
        # Half restate the fact word for word, half in another template; always from a
        # source other than the first one.
        template = st.template if n % 2 == 0 else _other(rng, len(st.relation.facts),
                                                            st.template)
        item = state(st.relation, f.subject, f.value, template, avoid=(f.item.source,))
        q = asking.wordings(ask, _cores(st.relation.questions, f.subject), 1,
                            taken=f.wordings)
        corroborations.append(Corroboration(fi, item, q[0]))

    texts, clean_said = _gate_texts(s, rng, names, stated)
    gate = build_gate(s, rng, stamp, noise, texts)
    for g in gate:  # a copy says what its original says; a clean fact what it was made to
        if g.copy_of is not None:
            stated[g.item.id] = stated[g.copy_of]
        elif g.kind == "clean" and bare(g.item.text) in clean_said:
            stated[g.item.id] = clean_said[bare(g.item.text)]
    copied = {g.copy_of for g in gate if g.copy_of}
    asides = [Aside(i, tuple(asking.wordings(
        ask, _cores(stated[i.id].relation.questions, stated[i.id].subject), ASIDE_WORDINGS)))
        for i in [*noise, *(g.item for g in gate if g.kind == "clean")]
        if i.id in stated and i.id not in copied]
    return ScenarioData(
        seed=seed,
        facts=tuple(facts),
        noise=tuple(noise),
        updates=tuple(updates),
        gate=tuple(gate),
        reinforce=tuple(reinforce),
        corroborations=tuple(corroborations),
        asides=tuple(asides),
        stated={i: Statement(x.subject, x.relation.name, x.value) for i, x in stated.items()},
        stats={"question_overlap": question_overlap(
            probe=([f.question for f in facts], [f.item.text for f in facts],
                   [f.subject for f in facts]),
            update=([u.question for u in updates], [u.item.text for u in updates],
                    [facts[u.fact].subject for u in updates]),
        )},
    )


def renderings(st: Statement) -> set[str]:
    """Every text this generator could have written for ``st`` (fact and update forms)."""
    rel = next(r for r in RELATIONS if r.name == st.relation)
    return {_cap(t.format(s=st.subject, v=st.value)) for t in (*rel.facts, *rel.updates)}


def fragment(rel: Relation, template: str, subj: str) -> str | None:
    """``template`` about ``subj`` cut just before its value: states nothing, or None
    when the value comes first (nothing would be left to cut)."""
    head = template.split("{v}")[0].format(s=subj).rstrip(" ,:")
    return _cap(head) if len(head.split()) >= 3 else None


def _cores(questions: tuple[str, ...], subject: str) -> list[str]:
    return [_cap(q.format(s=subject)) for q in questions]


def _gate_texts(s: Params, rng: random.Random, names: NamePools,
                stated: dict[str, _Stated]) -> tuple[GateTexts, dict[str, _Stated]]:
    """The gate's texts, and what each clean fact states (by its bare text)."""
    said: dict[str, _Stated] = {}
    shorts = iter(sample(rng, vocab.SHORT_TEXTS, s.gate_short))
    short_facts = iter(clean_short_facts(rng, s.gate_clean_short))
    relations = iter(_relations(rng, s.gate_clean + s.gate_fragment))

    def paraphrase(item: Item) -> str:
        st = stated[item.id]
        t = _other(rng, len(st.relation.facts), st.template)
        return _cap(st.relation.facts[t].format(s=st.subject, v=st.value))

    def cut() -> str:
        rel = next(relations)
        subj = names.draw(rel.subject)
        cuts = [c for t in rel.facts if (c := fragment(rel, t, subj))]
        return rng.choice(cuts) if cuts else subj

    def clean() -> tuple[str, tuple[str, ...]]:
        rel = next(relations)
        subj, value = names.draw(rel.subject), names.draw(rel.value)
        t = rng.randrange(len(rel.facts))
        text = _cap(rel.facts[t].format(s=subj, v=value))
        said[bare(text)] = _Stated(rel, subj, value, t)
        return text, _tags(rel, subj)

    return GateTexts(short=lambda: next(shorts), paraphrase=paraphrase, fragment=cut,
                     clean=clean, clean_short=lambda: (next(short_facts), ()),
                     person=lambda: names.draw("person"), plain_share=0.25), said
