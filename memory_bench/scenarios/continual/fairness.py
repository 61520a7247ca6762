"""Hard, never unfair: a check that each question of a continual data set has one answer.

From the generator's answer key (``ScenarioData.stated``: what each item says)
and the phase order, for every question at the moment it is asked:

- exactly one stored item states the asked relation of the asked subject (the
  fact), or, for an updated fact, exactly the old and the new one (the new one
  later, with another value), or, for a fact stated twice, exactly those two
  items (same value, different sources);
- every item's text is one the generator could have written for what it says
  (``renders``), so the key describes the texts, not the other way round;
- an item without a statement (gate junk, short facts about short names) names
  no asked subject, so it cannot state an asked relation either;
- distinct subjects never share a name (after case and spacing), and each
  question names its own subject and no other asked subject (a name inside its
  own subject's, "Thorndale" in "West Thorndale", aside);
- an update is asked in other words than its fact's probe.

It returns every violation as a sentence; an empty list means fair. Used by the
tests (every published seed) and by ``scripts/check_fairness.py``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache

from memory_bench.contract.items import Item
from memory_bench.scenarios.continual.data import ScenarioData, Statement

__all__ = ["fairness_violations"]


def _norm(name: str) -> str:
    return " ".join(name.casefold().split())


@lru_cache(maxsize=4096)
def _pattern(name: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w-])" + re.escape(_norm(name)) + r"(?![\w-])")


def _names(text: str, name: str) -> bool:
    """``text`` names ``name`` as whole words (case and spacing aside)."""
    return _pattern(name).search(_norm(text)) is not None


def fairness_violations(d: ScenarioData, renders: Callable[[Statement], set[str]]
                        ) -> list[str]:
    bad: list[str] = []
    st = d.stated
    stored: list[Item] = []
    index: dict[tuple[str, str], set[str]] = {}

    def store(items: Iterable[Item]) -> None:
        for i in items:
            stored.append(i)
            if i.id in st:
                index.setdefault((st[i.id].subject, st[i.id].relation), set()).add(i.id)

    def about(subject: str, relation: str) -> set[str]:
        return index.get((subject, relation), set())

    def check(what: str, subject: str, relation: str, want: Iterable[str]) -> None:
        got, want = about(subject, relation), set(want)
        if got != want:
            bad.append(f"seed {d.seed}, {what}: {len(got)} stored item(s) state {relation} of "
                       f"{subject!r}, expected exactly {len(want)}")

    for item in d.all_items():
        if item.id in st and item.text not in renders(st[item.id]):
            bad.append(f"seed {d.seed}: item text {item.text!r} is not a rendering of "
                       f"{st[item.id]}")

    facts = d.facts
    asked = {f.subject for f in facts}
    store(f.item for f in facts)
    for i, f in enumerate(facts):
        check(f"probe of fact {i}", f.subject, f.relation, [f.item.id])
    store(d.noise)
    for i, f in enumerate(facts):
        check(f"re-probe of fact {i}", f.subject, f.relation, [f.item.id])
    store(d.update_phase_items())
    updated = {u.fact for u in d.updates}
    for i, f in enumerate(facts):
        if i not in updated:  # update noise restates other facts only
            check(f"update phase, fact {i}", f.subject, f.relation, [f.item.id])
    for u in d.updates:
        f = facts[u.fact]
        check(f"update of fact {u.fact}", f.subject, f.relation, [f.item.id, u.item.id])
        if not u.item.timestamp > f.item.timestamp or u.value == f.value:
            bad.append(f"seed {d.seed}: the update of fact {u.fact} is not later or not new")
        if u.question == f.question and d.stats.get("hard"):
            bad.append(f"seed {d.seed}: the update of fact {u.fact} is asked as its probe was")
    store(c.item for c in d.corroborations)
    for c in d.corroborations:
        f = facts[c.fact]
        check(f"corroboration of fact {c.fact}", f.subject, f.relation, [f.item.id, c.item.id])
        if c.item.source == f.item.source or st.get(c.item.id, f).value != f.value:
            bad.append(f"seed {d.seed}: the restatement of fact {c.fact} is not the same fact "
                       "from another source")
    store(g.item for g in d.gate)
    for i in d.reinforce:
        check(f"reinforcement of fact {i}", facts[i].subject, facts[i].relation,
              [facts[i].item.id])

    for item in stored:
        if item.id not in st and item.text.strip():
            named = [s for s in asked if _names(item.text, s)]
            if named:
                bad.append(f"seed {d.seed}: {item.text!r} has no statement but names "
                           f"{named[0]!r}")

    subjects = sorted({s.subject for s in st.values()})
    norms: dict[str, str] = {}
    for s in subjects:
        if _norm(s) in norms:
            bad.append(f"seed {d.seed}: {s!r} and {norms[_norm(s)]!r} are the same name")
        norms[_norm(s)] = s
    questions = [(f.question, f.subject) for f in facts]
    questions += [(u.question, facts[u.fact].subject) for u in d.updates]
    questions += [(c.question, facts[c.fact].subject) for c in d.corroborations]
    for q, s in questions:
        if not _names(q, s):
            bad.append(f"seed {d.seed}: {q!r} does not name {s!r}")
        # Another asked subject named by the question, unless its name is part of this
        # one's ("Thorndale" in "West Thorndale": a reader tells them apart).
        others = [o for o in asked if o != s and _names(q, o) and not _names(s, o)]
        if others:
            bad.append(f"seed {d.seed}: {q!r} also names {others[0]!r}")
    return bad
