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
- an update is asked in other words than its fact's probe;
- every wording of a question (``Fact.wordings``, ``Update.wordings`` and
  ``past_wordings``, ``Aside.wordings``) names its subject and no other asked one,
  and no string is two of one fact's wordings (or both a fact's and its update's);
- a question about a former value (tag ``past``) is answered by the items that state
  the old value (the old fact and its history item) and by nothing else but the new
  value;
- an aside (a question about a noise item, a decoy's new value or a clean gate fact) has
  exactly its item as the answer among everything written, beside the older values it
  outranks and the item (``until``) before whose write it is asked; walked with the
  script, its probe has exactly its expected and outranked items stored when asked.

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
    asked = {f.subject for f in facts} | {st[a.item.id].subject for a in d.asides
                                          if a.item.id in st}
    named_in = _Names(asked)
    by_fact = {f"fact-{i:04d}": f for i, f in enumerate(facts)}
    aside_of = {a.item.id: a for a in d.asides}
    for step in script.steps:
        if isinstance(step, Write):
            store(step.items)
        elif isinstance(step, Forget):  # a forgotten item answers nothing any more
            for ids in index.values():
                ids.difference_update(step.forgotten)
        elif isinstance(step, Probe) and step.key in by_fact and step.tag == "past":
            f = by_fact[step.key]
            got = index.get((f.subject, f.relation), set())
            old = {i for i in got if st[i].value == f.value}
            if not step.expected or old != set(step.expected) or len(got - old) != 1:
                bad.append(f"seed {d.seed}, past of {step.key}: {len(old)} stored item(s) "
                           f"state the former value, expected {len(step.expected)}, and "
                           f"{len(got - old)} a newer one, expected 1")
        elif isinstance(step, Probe) and step.key in by_fact:
            f = by_fact[step.key]
            check(f"{step.tag} of {step.key}", f.subject, f.relation,
                  [*step.expected, *step.outrank])
        elif isinstance(step, Probe) and step.expected and step.expected[0] in aside_of:
            a = st[step.expected[0]]
            check(f"aside {step.key or step.expected[0]}", a.subject, a.relation,
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
            named = named_in(item.text)
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
    questions += [(q, facts[u.fact].subject) for u in d.updates
                  for q in (*u.wordings, *u.past_wordings)]
    questions += [(q, f.subject) for f in facts for q in f.wordings]
    questions += [(q, st[a.item.id].subject) for a in d.asides if a.item.id in st
                  for q in a.wordings]
    for q, s in dict.fromkeys(questions):
        if not _names(q, s):
            bad.append(f"seed {d.seed}: {q!r} does not name {s!r}")
        # Another asked subject named by the question, unless its name is part of this
        # one's ("Thorndale" in "West Thorndale": a reader tells them apart).
        others = [o for o in named_in(q) if o != s and not _names(s, o)]
        if others:
            bad.append(f"seed {d.seed}: {q!r} also names {others[0]!r}")
    return bad + _wording_violations(d) + _aside_violations(d)


class _Names:
    """Which of many names a text names, fast: only the names whose first word occurs in
    the text are matched in full."""

    def __init__(self, names: Iterable[str]) -> None:
        self.by_first: dict[str, list[str]] = {}
        for n in names:
            self.by_first.setdefault(_norm(n).split(" ", 1)[0], []).append(n)

    def __call__(self, text: str) -> list[str]:
        words = set(re.findall(r"[\w-]+", _norm(text)))
        words |= {w.split("'")[0] for w in re.findall(r"[\w'-]+", _norm(text))}
        return [n for w in words for n in self.by_first.get(w, ()) if _names(text, n)]


def _wording_violations(d: ScenarioData) -> list[str]:
    """No string is two wordings of one fact, nor a fact's and its update's."""
    bad = []
    for i, f in enumerate(d.facts):
        if len(set(f.all_wordings)) != len(f.all_wordings):
            bad.append(f"seed {d.seed}: fact {i} has a wording twice")
    for u in d.updates:
        ws = (*u.wordings, *u.past_wordings)
        if len(set(ws)) != len(ws) or set(ws) & set(d.facts[u.fact].all_wordings):
            bad.append(f"seed {d.seed}: the update of fact {u.fact} repeats a wording")
    return bad


def _aside_violations(d: ScenarioData) -> list[str]:
    """Every aside's item is the one item, among everything written, that states its
    subject's relation, beside what it outranks and what it is asked before."""
    st = d.stated
    said: dict[tuple[str, str], set[str]] = {}
    for item in d.all_items():
        if item.id in st:
            said.setdefault((st[item.id].subject, st[item.id].relation), set()).add(item.id)
    bad = []
    for a in d.asides:
        if a.item.id not in st:
            bad.append(f"seed {d.seed}: aside {a.item.text!r} has no statement")
            continue
        s = st[a.item.id]
        want = {a.item.id, *a.outrank, *([a.until] if a.until else [])}
        if said.get((s.subject, s.relation), set()) != want or len(set(a.wordings)) < len(
                a.wordings):
            bad.append(f"seed {d.seed}: aside {a.item.text!r}: "
                       f"{len(said.get((s.subject, s.relation), ()))} item(s) state it, "
                       f"expected {len(want)}")
        if a.until and st.get(a.until, s).value == s.value:
            bad.append(f"seed {d.seed}: aside {a.item.text!r} is asked until an item that "
                       "states the same value")
    return bad
