"""Hard, never unfair: a check that each question of a continual data set has one answer.

From the generator's answer key (``ScenarioData.stated``: what each item says)
and the interleaved stream (``script.py``), for every question at the moment it
is asked:

- exactly one stored item states the asked relation of the asked subject (the
  fact), or, for an updated fact, exactly the old and the new one (the new one
  later, with another value) and, where the update has one, its history item (the old
  value in the past tense, written after the update), or, for a fact stated twice, exactly those two
  items (same value, different sources);
- every item's text is one the generator could have written for what it says
  (``renders``, surface form aside), so the key describes the texts, not the
  other way round;
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
from memory_bench.scenarios.continual.params import ContinualParams
from memory_bench.scenarios.generators.common import bare
from memory_bench.scenarios.script import Forget, Probe, Script, Write

__all__ = ["fairness_violations"]


def _norm(name: str) -> str:
    return " ".join(name.casefold().split())


@lru_cache(maxsize=4096)
def _pattern(name: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w-])" + re.escape(_norm(name)) + r"(?![\w-])")


def _names(text: str, name: str) -> bool:
    """``text`` names ``name`` as whole words (case and spacing aside)."""
    return _pattern(name).search(_norm(text)) is not None


def _script(d: ScenarioData) -> Script:
    from memory_bench.scenarios.continual.script import continual_script

    return continual_script(ContinualParams(), d)


def fairness_violations(d: ScenarioData, renders: Callable[[Statement], set[str]],
                        script: Script | None = None) -> list[str]:
    """Walks ``script`` (the continual script of ``d`` by default) step by step."""
    script = _script(d) if script is None else script
    bad: list[str] = []
    st = d.stated
    stored: list[Item] = []
    index: dict[tuple[str, str], set[str]] = {}
    when: dict[str, int] = {}

    def store(items: Iterable[Item]) -> None:
        for i in items:
            stored.append(i)
            when[i.id] = len(when)
            if i.id in st:
                index.setdefault((st[i.id].subject, st[i.id].relation), set()).add(i.id)

    def check(what: str, subject: str, relation: str, want: Iterable[str]) -> None:
        got, want = index.get((subject, relation), set()), set(want)
        if got != want:
            bad.append(f"seed {d.seed}, {what}: {len(got)} stored item(s) state {relation} of "
                       f"{subject!r}, expected exactly {len(want)}")

    for item in script.items():
        if item.id in st and bare(item.text) not in {bare(r) for r in renders(st[item.id])}:
            bad.append(f"seed {d.seed}: item text {item.text!r} is not a rendering of "
                       f"{st[item.id]}")

    facts = d.facts
    asked = {f.subject for f in facts}
    by_fact = {f"fact-{i:04d}": f for i, f in enumerate(facts)}
    for step in script.steps:
        if isinstance(step, Write):
            store(step.items)
        elif isinstance(step, Forget):  # a forgotten item answers nothing any more
            for ids in index.values():
                ids.difference_update(step.forgotten)
        elif isinstance(step, Probe) and step.key in by_fact:
            f = by_fact[step.key]
            check(f"{step.tag} of {step.key}", f.subject, f.relation,
                  [*step.expected, *step.outrank])
            if step.tag == "update" and not all(when[step.expected[0]] > when[o]
                                                for o in step.outrank if not st[o].past):
                bad.append(f"seed {d.seed}: the update of {step.key} is written before the "
                           "value it replaces")
    for u in d.updates:
        f = facts[u.fact]
        if not u.item.timestamp > f.item.timestamp or u.value == f.value:
            bad.append(f"seed {d.seed}: the update of fact {u.fact} is not later or not new")
        if u.question == f.question and d.stats.get("hard"):
            bad.append(f"seed {d.seed}: the update of fact {u.fact} is asked as its probe was")
    for c in d.corroborations:
        f = facts[c.fact]
        if c.item.source == f.item.source or st.get(c.item.id, f).value != f.value:
            bad.append(f"seed {d.seed}: the restatement of fact {c.fact} is not the same fact "
                       "from another source")
    for g in d.gate:  # a copy says what its original says
        if g.copy_of is not None and g.copy_of in when and when[g.item.id] < when[g.copy_of]:
            bad.append(f"seed {d.seed}: a gate copy is written before its original")

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
    questions = [(q, f.subject) for f in facts for q in {f.question, f.reprobe_question}]
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
