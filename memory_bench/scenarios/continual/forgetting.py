"""The continual protocol's forget steps: facts forgotten on request, then asked again.

Three kinds, each drawn from the facts nothing later reads (not reinforced, not
stated again, not copied by a gate item): ``forget_ids`` facts forgotten by id;
``forget_sources`` sources forgotten whole, each a source whose stored items are
only facts of that kind (so forgetting it removes exactly those facts); and
``forget_updated`` updated facts forgotten by id after their update, old and new
value both (and the old value's history item, where there is one), so that none may
come back. Every forgotten fact's question is
asked later (tag ``forgotten``, with the forgotten ids as the answer key and no
expected id): ``forgottenReturned`` is the share of them whose top-k holds a
forgotten item. As many facts that were not forgotten are asked among them
(tag ``kept``, with their gold id): ``forgetKept`` is their recall@1, so forgetting
more than was asked loses, and so does a rule that answers nothing once a forget
call has been made. A backend without the ``forget`` capability skips the forget
calls and all these questions (the metrics read null).

The phased stream asks these questions as they are; the blind stream (``blind.py``)
uses them as templates for the asks a forgotten or kept fact already has after its
forget call, and adds no question.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from memory_bench.contract.capabilities import Capability
from memory_bench.contract.items import Item
from memory_bench.scenarios.continual.data import ScenarioData, Update
from memory_bench.scenarios.continual.params import ContinualParams
from memory_bench.scenarios.script import Forget, Probe, Step

__all__ = ["Forgetting", "plan_forgetting"]


@dataclass(frozen=True)
class Forgetting:
    """The forget calls (run where the script puts them) and the questions that check
    them (asked later); ``stats`` says how many of each the data allowed."""

    forgets: tuple[Step, ...] = ()
    questions: tuple[Step, ...] = ()
    stats: dict[str, int] = field(default_factory=dict)


def _free_facts(data: ScenarioData) -> list[int]:
    """Facts no later step reads: not updated, reinforced, corroborated or copied."""
    busy = {u.fact for u in data.updates} | set(data.reinforce)
    busy |= {c.fact for c in data.corroborations}
    copied = {g.copy_of for g in data.gate if g.copy_of is not None}
    return [i for i, f in enumerate(data.facts) if i not in busy and f.item.id not in copied]


def _whole_sources(items: Sequence[Item], allowed: set[str]) -> dict[str, list[str]]:
    """Sources every stored item of which is in ``allowed``: source -> its item ids."""
    by_source: dict[str, list[str]] = defaultdict(list)
    for item in items:
        by_source[item.source].append(item.id)
    return {s: ids for s, ids in by_source.items() if set(ids) <= allowed}


def plan_forgetting(p: ContinualParams, data: ScenarioData,
                    written: Sequence[Item]) -> Forgetting:
    """The forget steps for ``data``, given every item ``written`` before them."""
    if not (p.forget_ids or p.forget_sources or p.forget_updated):
        return Forgetting()
    rng = random.Random(f"memory-bench/forget/{data.seed}")
    facts = data.facts
    free = _free_facts(data)
    fact_of = {facts[i].item.id: i for i in free}
    whole = _whole_sources(written, set(fact_of))
    sources = rng.sample(sorted(whole), min(p.forget_sources, len(whole)))
    by_source = {fact_of[i] for s in sources for i in whole[s]}
    rest = [i for i in free if i not in by_source]
    by_id = sorted(rng.sample(rest, min(p.forget_ids, len(rest))))
    updated = sorted(rng.sample(range(len(data.updates)),
                                min(p.forget_updated, len(data.updates))))

    forgets: list[Step] = []
    questions: list[Step] = []

    def ask(question: str, fact: int, gone: tuple[str, ...]) -> None:
        questions.append(Probe(question, (), "forgotten", key=f"fact-{fact:04d}",
                               forgotten=gone, needs=Capability.FORGET))

    if by_id:
        ids = tuple(facts[i].item.id for i in by_id)
        forgets.append(Forget(ids=ids, forgotten=ids))
    for s in sources:
        forgets.append(Forget(source=s, forgotten=tuple(whole[s])))
    def every_value(u: Update) -> tuple[str, ...]:
        return (facts[u.fact].item.id, u.item.id, *u.history_ids)

    for ui in updated:
        every = every_value(data.updates[ui])
        forgets.append(Forget(ids=every, forgotten=every))
    rng.shuffle(forgets)
    for i in by_id:
        ask(facts[i].question, i, (facts[i].item.id,))
    for s in sources:
        for item_id in whole[s]:
            ask(facts[fact_of[item_id]].question, fact_of[item_id], tuple(whole[s]))
    for ui in updated:
        u = data.updates[ui]
        ask(u.question, u.fact, every_value(u))
    left = [i for i in rest if i not in set(by_id)]
    kept = sorted(rng.sample(left, min(len(questions), len(left))))
    questions += [Probe(facts[i].question, (facts[i].item.id,), "kept", key=f"fact-{i:04d}",
                        needs=Capability.FORGET) for i in kept]
    rng.shuffle(questions)
    stats = {"by_id": len(by_id), "sources": len(sources), "by_source": len(by_source),
             "updated": len(updated), "kept": len(kept)}
    return Forgetting(tuple(forgets), tuple(questions), stats)
