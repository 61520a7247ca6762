"""The hard generator: people with near-identical names, several facts each, asked in other words.

The templated generator is easy by construction (every question repeats its
fact's wording and names a subject nobody else shares). Here:

- **families** of ``family_size`` people whose names are one letter apart or
  share a first or last name (Mara Olsen, Mara Olsan, Mira Olsen, Mara Quist,
  Ilse Olsen). Every member has the same ``family_relations`` relations stated,
  ``probed_per_person`` of them as probed facts and the rest as noise: a
  question about Mara Olsen's birthplace competes with her home town, her
  employer, and the birthplaces of four people with almost her name;
- **questions paraphrase** the relation: no question shares a content word or a
  word stem with a fact or update template of its relation (hard_relations.py);
- **updates** are stated with another fact template than the old fact (no
  stock update phrase) and asked with a question other than the fact's probe
  and re-probe; a re-probe, too, asks in other words than the probe;
- **every ask in a new wording**: 20 wordings a fact, 8 an update, 6 about the
  former value (``asking.py``: a paraphrase in a frame), and 12 for each aside (a
  question about a noise item, a decoy's new value or a clean gate fact);
- **tense on both sides**: current facts in the past tense too, history items in
  the present too (hard_relations.py), so neither tense nor a count of tense
  markers tells them apart;
- **noise**: those same-family distractors, plus unrelated people and
  unrelated companies and towns;
- **gate**: every kind in ``gate.py`` the scenario asks for, junk with accepted
  look-alikes (chat with names and numbers, plain facts with neither, facts ending
  in a preposition, fragments ending in a content word).

Hard, never unfair: every question has exactly one correct item among what is
stored when it is asked (two for a fact stated twice, the newer for an updated
one), and distinct people never share a name. ``fairness.py`` checks both
from the generator's answer key (``ScenarioData.stated``), for every seed the
tests and ``scripts/check_fairness.py`` try.
"""

from __future__ import annotations

import math
import random
from dataclasses import replace

from memory_bench.contract.items import Item
from memory_bench.scenarios.continual.data import (
    Aside,
    Corroboration,
    Fact,
    GateCase,
    ScenarioData,
    Statement,
    Update,
)
from memory_bench.scenarios.continual.params import HardParams as Params
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
from memory_bench.scenarios.generators.hard_relations import (
    HARD_RELATIONS,
    HISTORY,
    VALUES,
    HardRelation,
    article,
    years,
)
from memory_bench.scenarios.generators.names import NamePools
from memory_bench.scenarios.generators.overlap import question_overlap
from memory_bench.scenarios.generators.relations import RELATIONS, Relation

__all__ = ["capacity_error", "generate", "renderings"]

# Unrelated noise about companies and towns: relations nobody is asked about.
OTHER_RELATIONS = tuple(r for r in RELATIONS if r.subject != "person")
_BY_NAME: dict[str, HardRelation | Relation] = {
    **{r.name: r for r in OTHER_RELATIONS}, **{r.name: r for r in HARD_RELATIONS}}
COLLEGE_KINDS = ("College", "Polytechnic", "Academy", "Conservatory")
# Wordings per question (tests/test_hard_generator.py): every follow-up in a new one.
FACT_WORDINGS, UPDATE_WORDINGS, PAST_WORDINGS, ASIDE_WORDINGS = 20, 8, 6, 12
MAX_PEOPLE = 1200  # person names drawn in a seed: far under half the pool (80 x 80)
_VOWELS = "aeiou"


def _families(p: Params) -> int:
    return math.ceil(p.facts / (p.family_size * p.probed_per_person))


def _distractors(p: Params) -> int:
    """Noise items that state a family member's non-probed relations."""
    members = _families(p) * p.family_size
    return members * p.family_relations - p.facts


def capacity_error(p: Params) -> str | None:
    if p.probed_per_person > p.family_relations:
        return None  # check_hard says so
    d = _distractors(p)
    if d > p.noise:
        return (f"the families state {d} non-probed facts, which are written as noise: "
                f"noise must be at least {d} (or fewer family_relations)")
    people = (_families(p) * p.family_size * 3 + p.noise + p.gate_clean + p.gate_fragment
              + p.gate_chitchat + p.gate_boilerplate)
    if people > MAX_PEOPLE:
        return f"asks for about {people} distinct names; the hard generator makes at most " \
               f"{MAX_PEOPLE}"
    return short_names_error(p)


def _fill(template: str, subject: str, value: str) -> str:
    return _cap(template.format(s=subject, v=value, a=article(value), **years(subject)))


def renderings(st: Statement) -> set[str]:
    """Every text the generator could have written for ``st`` (fact and update forms, or
    the history forms of a former value)."""
    rel = _BY_NAME[st.relation]
    forms = HISTORY[rel.name] if st.past else (*rel.facts, *rel.updates)
    return {_fill(t, st.subject, st.value) for t in forms}


def _one_edit(rng: random.Random, word: str, taken: set[str]) -> str | None:
    """``word`` with one vowel after the first letter changed, not in ``taken``."""
    spots = [i for i, c in enumerate(word) if i > 0 and c in _VOWELS]
    rng.shuffle(spots)
    for i in spots:
        for v in rng.sample(_VOWELS, len(_VOWELS)):
            if v != word[i] and (cand := word[:i] + v + word[i + 1:]) not in taken:
                return cand
    return None


class _People:
    """Person names for one seed: families of near-identical ones, and strangers."""

    def __init__(self, rng: random.Random, names: NamePools) -> None:
        self.rng, self.names = rng, names
        self.real = set(vocab.FIRST_NAMES) | set(vocab.SURNAMES)

    def _take(self, first: str, last: str) -> str | None:
        name = f"{first} {last}"
        return name if self.names.claim("person", name) else None

    def _variant(self, how: int, first: str, last: str) -> tuple[str | None, str | None]:
        """A name near ``first last``: 0 surname one letter off, 1 first name one letter
        off, 2 the same first name, 3 the same surname."""
        if how == 0:
            return first, _one_edit(self.rng, last, self.real)
        if how == 1:
            return _one_edit(self.rng, first, self.real), last
        if how == 2:
            return first, self.rng.choice(vocab.SURNAMES)
        return self.rng.choice(vocab.FIRST_NAMES), last

    def family(self, size: int) -> list[str]:
        """``size`` names around one: one letter apart, or a shared first or last name."""
        while True:
            first = self.rng.choice(vocab.FIRST_NAMES)
            last = self.rng.choice(vocab.SURNAMES)
            base = self._take(first, last)
            if base is None:
                continue
            out = [base]
            for how in range(size - 1):
                for _ in range(50):
                    f, l2 = self._variant(how, first, last)
                    if f and l2 and (name := self._take(f, l2)):
                        out.append(name)
                        break
            if len(out) == size:
                return out
            # A family that cannot be completed keeps its names taken: they are never
            # used, so no stranger shares them either.

    def stranger(self) -> str:
        return self.names.draw("person")


class _Writer:
    """Stamps items and keeps what each states (the answer key)."""

    def __init__(self, rng: random.Random, names: NamePools, stamp: ItemStamper) -> None:
        self.rng, self.names, self.stamp = rng, names, stamp
        self.stated: dict[str, Statement] = {}
        self.template: dict[str, int] = {}

    def value(self, rel: HardRelation | Relation, other_than: str | None = None) -> str:
        kind = rel.value
        while True:
            if kind in VALUES:
                v = self.rng.choice(VALUES[kind])
            elif kind == "college":
                v = (f"{self.rng.choice(vocab.PLACE_HEADS)}{self.rng.choice(vocab.PLACE_TAILS)} "
                     f"{self.rng.choice(COLLEGE_KINDS)}")
            else:
                v = self.names.draw(kind)
            if v != other_than:
                return v

    def say(self, rel: HardRelation | Relation, subject: str, value: str, text: str,
            template: int = -1, **kw) -> Item:
        item = self.stamp(text, (f"subject:{subject}", f"relation:{rel.name}"), **kw)
        self.stated[item.id] = Statement(subject, rel.name, value)
        self.template[item.id] = template
        return item

    def fact(self, rel: HardRelation | Relation, subject: str, value: str | None = None,
             template: int | None = None, **kw) -> Item:
        value = self.value(rel) if value is None else value
        t = self.rng.randrange(len(rel.facts)) if template is None else template
        return self.say(rel, subject, value, _fill(rel.facts[t], subject, value), t, **kw)


def _other(rng: random.Random, n: int, not_this: int) -> int:
    return rng.choice([i for i in range(n) if i != not_this] or [not_this])


def generate(p: Params, seed: int) -> ScenarioData:
    rng = random.Random(f"memory-bench/hard/{seed}")
    names = NamePools(rng)
    people = _People(rng, names)
    w = _Writer(rng, names, ItemStamper(p.region, f"hard/{seed}", structured=p.structured))

    # Families: every member gets the family's relations; some are probed facts.
    probed: list[tuple[str, HardRelation]] = []
    family_noise: list[tuple[str, HardRelation]] = []
    near_pairs = 0
    families: list[list[str]] = []
    for _ in range(_families(p)):
        members = people.family(p.family_size)
        families.append(members)
        near_pairs += sum(_edits(a, b) == 1 for i, a in enumerate(members)
                          for b in members[i + 1:])
        rels = rng.sample(HARD_RELATIONS, p.family_relations)
        for m in members:
            asked = set(rng.sample(range(len(rels)), p.probed_per_person))
            for j, rel in enumerate(rels):
                (probed if j in asked else family_noise).append((m, rel))
    rng.shuffle(probed)
    family_noise += probed[p.facts:]  # a last family's surplus is stated, not asked
    probed = probed[:p.facts]

    # Wordings have their own randomness: how many a fact gets changes no item.
    ask = random.Random(f"memory-bench/hard-asking/{seed}")
    facts, asked_with = [], []
    for subject, rel in probed:
        item = w.fact(rel, subject)
        q = rng.randrange(len(rel.questions))
        r = other_index(rng, len(rel.questions), (q,))
        ws = asking.wordings(ask, _cores(rel, subject), FACT_WORDINGS, first=(q, r))
        facts.append(Fact(item, ws[0], subject, rel.name, w.stated[item.id].value, ws[1],
                          wordings=tuple(ws)))
        asked_with.append((q, r))

    unrelated = p.noise - len(family_noise)
    n_people = round(unrelated * p.unrelated_people)
    noise_plan: list[tuple[str, HardRelation | Relation]] = list(family_noise)
    noise_plan += [(people.stranger(), rng.choice(HARD_RELATIONS)) for _ in range(n_people)]
    for _ in range(unrelated - n_people):
        rel = rng.choice(OTHER_RELATIONS)
        noise_plan.append((names.draw(rel.subject), rel))
    rng.shuffle(noise_plan)
    noise = [w.fact(rel, subject) for subject, rel in noise_plan]

    # The update phase: new values of probed facts, and of family noise beside them.
    family_of = {m: n for n, fam in enumerate(families) for m in fam}
    noise_at = {(w.stated[i.id].subject, w.stated[i.id].relation): i for i in noise
                if w.stated[i.id].subject in family_of}
    to_update = sorted(rng.sample(range(len(facts)), p.updates))
    plan: list[tuple[str, int | Item]] = [("fact", fi) for fi in to_update]
    plan += [("noise", i) for i in _companions(rng, p.update_distractors, facts, to_update,
                                                noise_at, family_of)]
    rng.shuffle(plan)
    updates: list[Update] = []
    update_noise: list[Item] = []
    for kind, what in plan:
        if kind == "noise":
            assert isinstance(what, Item)
            update_noise.append(_restate(rng, w, what))
            continue
        assert isinstance(what, int)
        f = facts[what]
        item = _restate(rng, w, f.item)
        rel = _BY_NAME[f.relation]
        q = other_index(rng, len(rel.questions), asked_with[what])
        ws = asking.wordings(ask, _cores(rel, f.subject), UPDATE_WORDINGS, first=(q,),
                             taken=f.wordings)
        past = asking.wordings(ask, _cores(rel, f.subject, past=True), PAST_WORDINGS)
        updates.append(Update(what, item, ws[0], w.stated[item.id].value, wordings=tuple(ws),
                              past_wordings=tuple(past)))
    updates.sort(key=lambda u: u.fact)

    reinforce, restated = pick_reinforced(rng, len(facts), {u.fact for u in updates},
                                          p.reinforce_cells, p.corroborations)
    corroborations = []
    for n, fi in enumerate(restated):
        f = facts[fi]
        rel = _BY_NAME[f.relation]
        old = w.template[f.item.id]
        t = old if n % 2 == 0 else _other(rng, len(rel.facts), old)
        item = w.fact(rel, f.subject, f.value, t, avoid=(f.item.source,))
        q = other_index(rng, len(rel.questions), asked_with[fi])
        ws = asking.wordings(ask, _cores(rel, f.subject), 1, first=(q,), taken=f.wordings)
        corroborations.append(Corroboration(fi, item, ws[0]))

    # A gate copy of a noise item that an update decoy renews would be a second old value.
    renewed = {(w.stated[i.id].subject, w.stated[i.id].relation): i for i in update_noise}
    copyable = [i for i in noise if (w.stated[i.id].subject, w.stated[i.id].relation)
                not in renewed]
    texts, clean_said = _gate_texts(p, rng, w, people)
    gate = build_gate(p, rng, w.stamp, copyable, texts)
    for g in gate:  # a copy says what its original says; a clean fact what it was made to
        if g.copy_of is not None:
            w.stated[g.item.id] = w.stated[g.copy_of]
        elif g.kind == "clean" and bare(g.item.text) in clean_said:
            w.stated[g.item.id] = clean_said[bare(g.item.text)]
    # Last, with their own randomness, so that the rest of a seed is drawn as before.
    updates = _with_history(random.Random(f"memory-bench/hard-history/{seed}"), w, facts,
                            updates, round(p.update_history * len(updates)))
    asides = _asides(ask, w, noise, update_noise, renewed, gate)
    stats = {
        "question_overlap": question_overlap(
            probe=([f.question for f in facts], [f.item.text for f in facts],
                   [f.subject for f in facts]),
            update=([u.question for u in updates], [u.item.text for u in updates],
                    [facts[u.fact].subject for u in updates]),
        ),
        "hard": {
            "families": _families(p), "family_size": p.family_size,
            "near_identical_name_pairs": near_pairs,
            "family_distractors": len(family_noise), "unrelated_noise": unrelated,
            "update_distractors": len(update_noise),
            "update_history": sum(u.history is not None for u in updates),
            "asides": len(asides),
        },
    }
    return ScenarioData(
        seed=seed, facts=tuple(facts), noise=tuple(noise), updates=tuple(updates),
        gate=tuple(gate), reinforce=tuple(reinforce), corroborations=tuple(corroborations),
        update_noise=tuple(update_noise), asides=tuple(asides), stats=stats, stated=w.stated,
    )


def _cores(rel: HardRelation | Relation, subject: str, past: bool = False) -> list[str]:
    """The relation's questions (or its questions about the former value) for ``subject``."""
    forms = rel.past if past and isinstance(rel, HardRelation) else rel.questions
    return [_cap(q.format(s=subject)) for q in forms]


def _asides(rng: random.Random, w: _Writer, noise: list[Item], update_noise: list[Item],
            renewed: dict[tuple[str, str], Item], gate: list[GateCase]) -> list[Aside]:
    """A question for every noise item, update decoy and clean gate fact that one stored
    item answers: a noise item that a gate item copies is left out (two would answer), a
    noise item a decoy renews is asked before the decoy is written (``until``), and the
    decoy must outrank it."""
    copied = {g.copy_of for g in gate if g.copy_of}
    out = []
    for item in noise:
        if item.id in copied:
            continue
        st = w.stated[item.id]
        new = renewed.get((st.subject, st.relation))
        out.append(Aside(item, tuple(asking.wordings(
            rng, _cores(_BY_NAME[st.relation], st.subject), ASIDE_WORDINGS)),
            until=new.id if new is not None else None))
    old = {(w.stated[i.id].subject, w.stated[i.id].relation): i for i in noise}
    for item in update_noise:
        st = w.stated[item.id]
        out.append(Aside(item, tuple(asking.wordings(
            rng, _cores(_BY_NAME[st.relation], st.subject), ASIDE_WORDINGS)),
            outrank=(old[(st.subject, st.relation)].id,)))
    for g in gate:
        if g.kind == "clean" and g.item.id in w.stated:
            st = w.stated[g.item.id]
            out.append(Aside(g.item, tuple(asking.wordings(
                rng, _cores(_BY_NAME[st.relation], st.subject), ASIDE_WORDINGS))))
    return out


def _restate(rng: random.Random, w: _Writer, old: Item) -> Item:
    """A new value for what ``old`` states, in a fact template other than ``old``'s, from
    another source. Never an update template: their stock phrases ("has moved and now
    lives in") would tell an update from a fact by its words alone."""
    st = w.stated[old.id]
    rel = _BY_NAME[st.relation]
    value = w.value(rel, other_than=st.value)
    forms = [t for i, t in enumerate(rel.facts) if i != w.template[old.id]]
    return w.say(rel, st.subject, value, _fill(rng.choice(forms), st.subject, value),
                 avoid=(old.source,))


def _with_history(rng: random.Random, w: _Writer, facts: list[Fact], updates: list[Update],
                  n: int) -> list[Update]:
    """``n`` of the updates, seeded, given a history item: the old value in the past tense,
    from a source neither the fact nor the update has."""
    chosen = set(rng.sample(range(len(updates)), min(n, len(updates))))
    out = []
    for k, u in enumerate(updates):
        if k in chosen:
            f = facts[u.fact]
            text = _fill(rng.choice(HISTORY[f.relation]), f.subject, f.value)
            item = w.stamp(text, (f"subject:{f.subject}", f"relation:{f.relation}"),
                           avoid=(f.item.source, u.item.source))
            w.stated[item.id] = Statement(f.subject, f.relation, f.value, past=True)
            u = replace(u, history=item)
        out.append(u)
    return out


def _companions(rng: random.Random, n: int, facts: list[Fact], updated: list[int],
                noise_at: dict[tuple[str, str], Item], family_of: dict[str, int]) -> list[Item]:
    """n family noise items to give new values beside the updates: for each updated
    fact, the same person's other relation or a near-identical name's same relation."""
    by_family: dict[int, list[Item]] = {}
    for (subject, _), item in noise_at.items():
        by_family.setdefault(family_of[subject], []).append(item)
    chosen: dict[str, Item] = {}
    for fi in (updated * (n // max(1, len(updated)) + 1))[:n]:
        f = facts[fi]
        fam = by_family.get(family_of[f.subject], [])
        near = [i for (s, r), i in noise_at.items()
                if i.id not in chosen and family_of[s] == family_of[f.subject]
                and (s == f.subject or r == f.relation)]
        pool = near or [i for i in fam if i.id not in chosen]
        if pool:
            pick = rng.choice(pool)
            chosen[pick.id] = pick
    return list(chosen.values())


def _edits(a: str, b: str) -> int:
    """Levenshtein distance (names are short)."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


# A fragment cut before its value ends in one of these as often as not; the others are
# cut one word earlier, so that they end in a content word as facts do.
_CUT = frozenset(("in", "of", "by", "to", "at", "on", "as", "for", "from", "under", "with",
                  "a", "an", "the"))


def _gate_texts(p: Params, rng: random.Random, w: _Writer,
                people: _People) -> tuple[GateTexts, dict[str, Statement]]:
    """The gate's texts, and what each clean fact states (by its bare text)."""
    shorts = iter(sample(rng, vocab.SHORT_TEXTS, p.gate_short))
    short_facts = iter(clean_short_facts(rng, p.gate_clean_short))
    said: dict[str, Statement] = {}

    def paraphrase(item: Item) -> str:
        st = w.stated[item.id]
        rel = _BY_NAME[st.relation]
        return _fill(rel.facts[_other(rng, len(rel.facts), w.template[item.id])], st.subject,
                     st.value)

    def fragment() -> str:
        rel, subject = rng.choice(HARD_RELATIONS), people.stranger()
        # Every relation has a template that names the subject before the value.
        heads = [h for t in rel.facts if "{s}" in (h := t.split("{v}")[0])]
        words = rng.choice(heads).format(s=subject, a="", **years(subject)).split()
        if words[-1] in _CUT and len(words) > 3 and rng.random() < 0.5:
            words = words[:-1]
        return _cap(" ".join(words).rstrip(",:"))

    def clean() -> tuple[str, tuple[str, ...]]:
        rel, subject = rng.choice(HARD_RELATIONS), people.stranger()
        item_value = w.value(rel)
        t = rng.randrange(len(rel.facts))
        text = _fill(rel.facts[t], subject, item_value)
        said[bare(text)] = Statement(subject, rel.name, item_value)
        return text, (f"subject:{subject}", f"relation:{rel.name}")

    texts = GateTexts(short=lambda: next(shorts), paraphrase=paraphrase, fragment=fragment,
                      clean=clean, clean_short=lambda: (next(short_facts), ()),
                      person=people.stranger, plain_share=0.25)
    return texts, said
